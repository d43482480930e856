//! The desk's files in the recorder folder (`<recorder>/desk/`):
//! `state.json` (the [`DeskState`]), `pairings.trf` (the pairing file as
//! loaded), `password` (the desk password's hash) and `actions.jsonl`
//! (every action, one JSON line each). A file that does not read is warned
//! about and left, and the desk starts without it.
//!
//! Durable or refused: one change of the desk ([`Store::keep`]) is written
//! in three steps, each of which can fail without anything changing:
//! 1. every file it rewrites is written whole to a temporary file of its
//!    own beside it and synced ([`Staged`]: where a full disk fails);
//! 2. its line is appended to `actions.jsonl` and synced (a torn last line
//!    cut first, see [`crate::sink::append`]);
//! 3. the temporary files are renamed over the old ones (a rename needs no
//!    room) and the folder is synced.
//!
//! A failure in step 1 or 2 leaves every file as it was (a half-written
//! journal line is cut back); one in step 3 (a failing disk, not a full
//! one) takes the journal line back, and a file renamed before the
//! failure is logged as an error. Either way the change is answered as a
//! [`StoreError`] and the desk keeps what it had.

use std::io;
use std::path::{Path, PathBuf};

use tracing::{error, warn};

use super::{DeskState, PasswordHash};
use crate::sink::append::append_line;
use crate::sink::folder::{Staged, sync_dir};

/// A desk file that could not be written: the change it carried is not
/// made (the page shows it as refused, `507`).
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The disk (or the user's quota) is full.
    #[error("not kept: the disk is full ({}: {source}); the desk is as it was", .file.display())]
    DiskFull {
        /// The file being written.
        file: PathBuf,
        /// The error.
        source: io::Error,
    },
    /// Any other failure to write.
    #[error("not kept: {} cannot be written ({source}); the desk is as it was", .file.display())]
    Unwritable {
        /// The file being written.
        file: PathBuf,
        /// The error.
        source: io::Error,
    },
}

impl StoreError {
    /// The error `source` met writing `file`, named for the operator.
    fn of(file: &Path, source: io::Error) -> StoreError {
        let file = file.to_owned();
        match source.kind() {
            io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded => {
                StoreError::DiskFull { file, source }
            }
            _ => StoreError::Unwritable { file, source },
        }
    }
}

/// The files one desk change rewrites (`None`: left as they are).
#[derive(Clone, Copy, Debug, Default)]
pub struct Files<'a> {
    /// The desk's state.
    pub state: Option<&'a DeskState>,
    /// The pairing file's bytes.
    pub trf: Option<&'a [u8]>,
    /// The desk password's hash.
    pub password: Option<&'a PasswordHash>,
}

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

    /// Keeps one change of the desk: `files` rewritten and `line` appended
    /// to `actions.jsonl`, all or nothing (see the module's doc). Without
    /// a folder, nothing is kept and nothing fails.
    pub fn keep(&self, files: Files<'_>, line: &serde_json::Value) -> Result<(), StoreError> {
        let Some(dir) = &self.dir else {
            return Ok(());
        };
        std::fs::create_dir_all(dir).map_err(|e| StoreError::of(dir, e))?;
        let mut writes: Vec<(&str, Vec<u8>)> = Vec::new();
        if let Some(trf) = files.trf {
            writes.push(("pairings.trf", trf.to_vec()));
        }
        if let Some(hash) = files.password {
            writes.push(("password", format!("{}\n", hash.as_str()).into_bytes()));
        }
        if let Some(state) = files.state {
            let json = serde_json::to_vec_pretty(state).expect("desk states serialise");
            writes.push(("state.json", json));
        }
        let staged = writes
            .iter()
            .map(|(name, bytes)| {
                let path = dir.join(name);
                Staged::write(&path, bytes).map_err(|e| StoreError::of(&path, e))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let appended = self.append(dir, line)?;
        let mut renamed = Vec::new();
        let done = staged
            .into_iter()
            .try_for_each(|s| {
                let path = s.path().to_owned();
                s.rename().map_err(|e| (path.clone(), e))?;
                renamed.push(path);
                Ok(())
            })
            .and_then(|()| sync_dir(dir).map_err(|e| (dir.clone(), e)));
        if let Err((path, e)) = done {
            if let Err(back) = appended.take_back() {
                warn!(error = %back, "the desk's journal keeps the line of a change that was not kept");
            }
            if !renamed.is_empty() {
                error!(files = ?renamed, error = %e, "the desk's folder failed mid-change: these files hold it, the others do not (check the disk)");
            }
            return Err(StoreError::of(&path, e));
        }
        Ok(())
    }

    /// Appends `line` to `actions.jsonl`, the desk's journal (every action
    /// with its wall time and who made it), synced; a torn last line is
    /// cut first, so it never swallows this one.
    pub fn append_action(&self, line: &serde_json::Value) -> Result<(), StoreError> {
        let Some(dir) = &self.dir else {
            return Ok(());
        };
        std::fs::create_dir_all(dir).map_err(|e| StoreError::of(dir, e))?;
        self.append(dir, line).map(drop)
    }

    fn append(
        &self,
        dir: &Path,
        line: &serde_json::Value,
    ) -> Result<crate::sink::append::Appended, StoreError> {
        let path = dir.join("actions.jsonl");
        append_line(&path, "the desk's journal", line.to_string().as_bytes())
            .map_err(|e| StoreError::of(&path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(n: u32) -> serde_json::Value {
        serde_json::json!({"t": n, "by": "desk: 127.0.0.1", "action": "assign", "detail": "x"})
    }

    /// The desk's journal, line by line (each must be JSON).
    fn journal(dir: &Path) -> Vec<serde_json::Value> {
        std::fs::read_to_string(dir.join("desk/actions.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l:?}: {e}")))
            .collect()
    }

    /// The desk folder's files, temporary ones included.
    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir.join("desk"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

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
        let hash = PasswordHash::new("a desk password").unwrap();
        let files = Files {
            state: Some(&state),
            trf: Some(b"012 x\n"),
            password: Some(&hash),
        };
        store.keep(files, &line(1)).unwrap();
        let back = store.read();
        assert_eq!(back.state, state);
        assert_eq!(back.trf.as_deref(), Some(&b"012 x\n"[..]));
        assert!(back.password.unwrap().verify("a desk password"));
        assert_eq!(journal(tmp.path()), [line(1)]);
        assert_eq!(
            names(tmp.path()),
            ["actions.jsonl", "pairings.trf", "password", "state.json"]
        );
        // A state that does not read is left, and the desk starts empty.
        std::fs::write(tmp.path().join("desk/state.json"), b"{").unwrap();
        assert_eq!(store.read().state, DeskState::default());
    }

    #[test]
    fn a_change_whose_journal_line_cannot_be_written_changes_no_file() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(Some(tmp.path()));
        let before = DeskState {
            round: Some(1),
            ..DeskState::default()
        };
        let files = Files {
            state: Some(&before),
            trf: Some(b"012 one\n"),
            password: None,
        };
        store.keep(files, &line(1)).unwrap();
        // The journal cannot be appended to: a folder stands in its place.
        let journal_path = tmp.path().join("desk/actions.jsonl");
        std::fs::remove_file(&journal_path).unwrap();
        std::fs::create_dir(&journal_path).unwrap();
        let after = DeskState {
            round: Some(2),
            ..DeskState::default()
        };
        let files = Files {
            state: Some(&after),
            trf: Some(b"012 two\n"),
            password: None,
        };
        let e = store.keep(files, &line(2)).unwrap_err();
        assert!(matches!(e, StoreError::Unwritable { .. }), "{e:?}");
        assert!(e.to_string().starts_with("not kept: "), "{e}");
        let back = store.read();
        assert_eq!(back.state, before);
        assert_eq!(back.trf.as_deref(), Some(&b"012 one\n"[..]));
        assert_eq!(
            names(tmp.path()),
            ["actions.jsonl", "pairings.trf", "state.json"],
            "no temporary file is left"
        );
    }

    #[test]
    fn a_full_disk_is_named_as_such() {
        let full = StoreError::of(
            Path::new("/rec/desk/state.json"),
            io::Error::from_raw_os_error(28),
        );
        assert!(matches!(full, StoreError::DiskFull { .. }), "{full:?}");
        let text = full.to_string();
        assert!(
            text.starts_with("not kept: the disk is full (/rec/desk/state.json: "),
            "{text}"
        );
        assert!(!text.contains('\n'), "one line: {text}");
    }

    #[test]
    fn a_journal_line_torn_by_a_full_disk_swallows_no_later_action() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(Some(tmp.path()));
        store.append_action(&line(1)).unwrap();
        // The disk filled mid-line: half a line, no newline.
        let path = tmp.path().join("desk/actions.jsonl");
        let mut torn = std::fs::read(&path).unwrap();
        torn.extend_from_slice(br#"{"t":2,"by":"desk: 127.0.0.1","act"#);
        std::fs::write(&path, torn).unwrap();
        let state = DeskState::default();
        let files = Files {
            state: Some(&state),
            ..Files::default()
        };
        store.keep(files, &line(3)).unwrap();
        store.append_action(&line(4)).unwrap();
        assert_eq!(journal(tmp.path()), [line(1), line(3), line(4)]);
    }
}
