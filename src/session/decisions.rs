//! A board's decisions journal: the arbiter's decisions about its alerts,
//! one JSON object per line ([`DecisionEntry`]), beside the captures of
//! the chain whose alerts they name, so they survive a restart.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::report::DecisionEntry;

/// The journal file of a chain of captures.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
}

impl Journal {
    /// The journal of the capture chain that begins with `first_capture`
    /// (`board-session.capture` -> `board-session.decisions.jsonl`).
    pub fn of_chain(first_capture: &Path) -> Journal {
        Journal {
            path: first_capture.with_extension("decisions.jsonl"),
        }
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The decisions on record, oldest first (none when there is no file;
    /// a line that is not a decision is skipped with a warning).
    pub fn read(&self) -> Vec<DecisionEntry> {
        let Ok(text) = std::fs::read_to_string(&self.path) else {
            return Vec::new();
        };
        text.lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .filter_map(|(i, l)| match serde_json::from_str(l) {
                Ok(d) => Some(d),
                Err(e) => {
                    tracing::warn!(journal = %self.path.display(), line = i + 1, error = %e, "a line of the decisions journal is not a decision: skipped");
                    None
                }
            })
            .collect()
    }

    /// Appends a decision (after cutting a torn last line) and syncs it
    /// to the disk.
    pub fn append(&self, entry: &DecisionEntry) -> std::io::Result<()> {
        let mut line = serde_json::to_string(entry).expect("decisions serialise");
        line.push('\n');
        // A line torn by a full disk or a crash is cut first: glued to
        // it, this decision would be unreadable.
        let (mut f, _) = crate::sink::append::open_append(&self.path, "decisions journal")?;
        f.write_all(line.as_bytes())?;
        f.sync_data()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Decision;

    fn decision(alert: u64, decision: Decision, at_unix_ms: u64) -> DecisionEntry {
        DecisionEntry {
            alert,
            decision,
            note: None,
            at_unix_ms,
            by: "command".into(),
        }
    }

    #[test]
    fn a_line_torn_by_a_full_disk_never_swallows_the_next_decision() {
        let dir = tempfile::tempdir().unwrap();
        let journal = Journal::of_chain(&dir.path().join("1-S.capture"));
        journal
            .append(&decision(3, Decision::Confirmed, 1))
            .unwrap();
        // The disk filled up in the middle of the next line.
        let mut text = std::fs::read_to_string(journal.path()).unwrap();
        text.push_str("{\"alert\":3,\"decision\":\"hand");
        std::fs::write(journal.path(), text).unwrap();
        journal
            .append(&decision(3, Decision::Dismissed, 3))
            .unwrap();
        let read = journal.read();
        assert_eq!(
            read.iter().map(|d| d.decision).collect::<Vec<_>>(),
            [Decision::Confirmed, Decision::Dismissed],
            "the last decision is the arbiter's last"
        );
    }
}
