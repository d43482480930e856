//! The desk's files in the recorder folder (`<recorder>/desk/`):
//! `state.json` (the [`DeskState`]), `pairings.trf` (the pairing file as
//! loaded), `password` (the desk password's hash) and `actions.jsonl`
//! (every action, one JSON line each). Each is written
//! whole and atomically; a file that does not read is warned about and
//! left, and the desk starts without it.

use std::path::{Path, PathBuf};

use tracing::warn;

use super::{DeskState, PasswordHash};
use crate::sink::folder::write_atomic;

/// Where the desk keeps what the operator set up; without a recorder
/// folder, nowhere (a restart forgets it).
#[derive(Clone, Debug)]
pub struct Store {
    dir: Option<PathBuf>,
}

/// What a [`Store`] held at start.
#[derive(Debug, Default)]
pub struct Stored {
    /// The desk's state.
    pub state: DeskState,
    /// The pairing file's bytes.
    pub trf: Option<Vec<u8>>,
    /// The desk password's hash.
    pub password: Option<PasswordHash>,
}

impl Store {
    /// The store in `<recorder>/desk/` (`None`: no recorder folder).
    pub fn new(recorder: Option<&Path>) -> Store {
        Store {
            dir: recorder.map(|r| r.join("desk")),
        }
    }

    /// The folder, when there is one.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// Reads what is kept.
    pub fn read(&self) -> Stored {
        let Some(dir) = &self.dir else {
            return Stored::default();
        };
        let state = match std::fs::read(dir.join("state.json")) {
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|e| {
                warn!(file = %dir.join("state.json").display(), error = %e, "the desk's state does not read: the desk starts empty");
                DeskState::default()
            }),
            Err(_) => DeskState::default(),
        };
        let trf = std::fs::read(dir.join("pairings.trf")).ok();
        let password = std::fs::read_to_string(dir.join("password"))
            .ok()
            .and_then(|t| {
                let h = PasswordHash::parse(&t);
                if h.is_none() {
                    warn!(file = %dir.join("password").display(), "the desk password file does not read: choose the password again");
                }
                h
            });
        Stored {
            state,
            trf,
            password,
        }
    }

    /// Keeps the desk's state.
    pub fn write_state(&self, state: &DeskState) -> std::io::Result<()> {
        let json = serde_json::to_vec_pretty(state).expect("desk states serialise");
        self.write("state.json", &json)
    }

    /// Keeps the pairing file.
    pub fn write_trf(&self, bytes: &[u8]) -> std::io::Result<()> {
        self.write("pairings.trf", bytes)
    }

    /// Keeps the desk password's hash.
    pub fn write_password(&self, hash: &PasswordHash) -> std::io::Result<()> {
        self.write("password", format!("{}\n", hash.as_str()).as_bytes())
    }

    /// Appends one line to `actions.jsonl`, the desk's journal: every
    /// action with its wall time and who made it (flushed at once).
    pub fn append_action(&self, line: &serde_json::Value) -> std::io::Result<()> {
        use std::io::Write;
        let Some(dir) = &self.dir else {
            return Ok(());
        };
        std::fs::create_dir_all(dir)?;
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join("actions.jsonl"))?;
        f.write_all(format!("{line}\n").as_bytes())?;
        f.sync_data()
    }

    fn write(&self, name: &str, bytes: &[u8]) -> std::io::Result<()> {
        let Some(dir) = &self.dir else {
            return Ok(());
        };
        std::fs::create_dir_all(dir)?;
        write_atomic(&dir.join(name), bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_the_desk_keeps_reads_back() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(Some(tmp.path()));
        assert_eq!(store.read().state, DeskState::default());
        let mut state = DeskState {
            round: Some(2),
            ..DeskState::default()
        };
        state.assigned.insert("b1".into(), 3);
        store.write_state(&state).unwrap();
        store.write_trf(b"012 x\n").unwrap();
        let hash = PasswordHash::new("a desk password").unwrap();
        store.write_password(&hash).unwrap();
        let back = store.read();
        assert_eq!(back.state, state);
        assert_eq!(back.trf.as_deref(), Some(&b"012 x\n"[..]));
        assert!(back.password.unwrap().verify("a desk password"));
        // A state that does not read is left, and the desk starts empty.
        std::fs::write(tmp.path().join("desk/state.json"), b"{").unwrap();
        assert_eq!(store.read().state, DeskState::default());
    }
}
