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

    /// Appends a decision and syncs it to the disk.
    pub fn append(&self, entry: &DecisionEntry) -> std::io::Result<()> {
        let mut line = serde_json::to_string(entry).expect("decisions serialise");
        line.push('\n');
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)?;
        f.write_all(line.as_bytes())?;
        f.sync_data()
    }
}
