//! The last good pairings: a copy of the pairings file, kept in the
//! recorder folder each time the file reads well, for the daemon to start
//! with when the file does not read (a pairing program's half-written
//! export at a power cut), and the warnings while it does not.
//!
//! Design: a pairings file that does not read never keeps the broadcast
//! from starting: the boards run with the last good copy (or, with none,
//! without pairings), and a warning says so at most once a
//! [`WARN_EVERY`] until the file reads again. The copy is written
//! atomically (a temporary file, synced, renamed), so a power cut during
//! the copy leaves the previous copy whole.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How often the warning that the pairings file does not read is said
/// again while it does not.
pub const WARN_EVERY: Duration = Duration::from_secs(60);

/// The last good copy of a pairings file, and whether the file reads now.
#[derive(Debug)]
pub struct LastGood {
    copy: Option<PathBuf>,
    failing: Option<String>,
    warned: Option<Instant>,
}

impl LastGood {
    /// The copy of `pairings` kept in `recorder` (none without a recorder
    /// folder): `last-good-pairings.<extension of the file>`, so it reads
    /// as the same format.
    pub fn new(pairings: &Path, recorder: Option<&Path>) -> LastGood {
        let name = match pairings.extension() {
            Some(e) => format!("last-good-pairings.{}", e.to_string_lossy()),
            None => "last-good-pairings".to_string(),
        };
        LastGood {
            copy: recorder.map(|dir| dir.join(name)),
            failing: None,
            warned: None,
        }
    }

    /// The copy, when it exists.
    pub fn copy(&self) -> Option<&Path> {
        self.copy.as_deref().filter(|c| c.is_file())
    }

    /// Where the copy is kept, when there is a recorder folder.
    pub fn copy_path(&self) -> Option<&Path> {
        self.copy.as_deref()
    }

    /// The file read well (`bytes`): the copy is written (atomically), and
    /// it is no longer failing. Returns whether it was failing.
    pub fn read_well(&mut self, bytes: &[u8]) -> std::io::Result<bool> {
        let was = self.failing.take().is_some();
        self.warned = None;
        if let Some(copy) = &self.copy {
            write_atomically(copy, bytes)?;
        }
        Ok(was)
    }

    /// The file did not read (`error`, one line): whether to warn now
    /// (the first time, then once a [`WARN_EVERY`]).
    pub fn read_badly(&mut self, error: String, now: Instant) -> bool {
        self.failing = Some(error);
        self.due(now)
    }

    /// Why the file does not read, while it does not.
    pub fn failing(&self) -> Option<&str> {
        self.failing.as_deref()
    }

    /// Whether the file does not read and the warning is due again (it is
    /// then counted as said).
    pub fn due(&mut self, now: Instant) -> bool {
        if self.failing.is_none() {
            return false;
        }
        let due = self
            .warned
            .is_none_or(|t| now.saturating_duration_since(t) >= WARN_EVERY);
        if due {
            self.warned = Some(now);
        }
        due
    }
}

/// Writes `bytes` to `path` through a synced temporary file renamed over
/// it.
fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension("tmp");
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    drop(f);
    std::fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_warning_is_said_at_most_once_a_minute_until_the_file_reads() {
        let mut k = LastGood::new(Path::new("round.trf"), None);
        let t = Instant::now();
        assert!(!k.due(t));
        assert!(k.read_badly("line 3: x".into(), t));
        assert!(!k.read_badly("line 3: x".into(), t + Duration::from_secs(30)));
        assert!(!k.due(t + Duration::from_secs(59)));
        assert!(k.due(t + WARN_EVERY));
        assert!(k.read_well(b"").unwrap());
        assert!(!k.due(t + WARN_EVERY * 3));
    }
}
