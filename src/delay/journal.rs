//! The delay line's journal: what the public has not seen yet, on disk, so
//! that a daemon restart neither publishes anything early nor loses it.
//!
//! One file of JSON lines. `{"push":{...}}` records an item as it enters
//! the line; `{"released":N}` records that every item up to sequence
//! number `N` has been published (items leave in order, so one number
//! says it all). Opening the file reads it back, keeps the items not yet
//! released, and rewrites the file with only those (written aside and
//! renamed, so a crash during the rewrite leaves the old file). A last
//! line cut short by a crash is ignored; any other unreadable line is an
//! error that names the file and line.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::Delayed;

/// Records appended since the last rewrite after which [`Journal::compact`]
/// is worth doing.
const COMPACT_AFTER: usize = 20_000;

/// A journal that cannot be read back.
#[derive(Debug, thiserror::Error)]
pub enum JournalError {
    /// The file could not be opened, read or rewritten.
    #[error("{path}: {source}")]
    Io {
        /// The journal file.
        path: PathBuf,
        /// What failed.
        source: io::Error,
    },
    /// A line in the middle of the file is not a journal record.
    #[error("{path}:{line}: not a delay journal record: {message}")]
    Malformed {
        /// The journal file.
        path: PathBuf,
        /// The line number (from 1).
        line: usize,
        /// What is wrong with it.
        message: String,
    },
}

/// A journal line, as read back.
#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum Record<T> {
    Push(Delayed<T>),
    Released(u64),
}

/// A journal line, as written (the same shape, borrowed).
#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
enum RecordRef<'a, T> {
    Push(&'a Delayed<T>),
    Released(u64),
}

/// An open journal, appending.
#[derive(Debug)]
pub struct Journal<T> {
    path: PathBuf,
    file: BufWriter<File>,
    appended: usize,
    _items: PhantomData<fn(T) -> T>,
}

impl<T: Serialize + DeserializeOwned> Journal<T> {
    /// Opens (or creates) the journal at `path` and returns it with the
    /// items that were not released yet, oldest first.
    pub fn open(path: &Path) -> Result<(Journal<T>, Vec<Delayed<T>>), JournalError> {
        let io_err = |source| JournalError::Io {
            path: path.to_path_buf(),
            source,
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            fs::create_dir_all(dir).map_err(io_err)?;
        }
        let pending = match File::open(path) {
            Ok(f) => read(path, BufReader::new(f))?,
            Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(io_err(e)),
        };
        rewrite(path, &pending).map_err(io_err)?;
        let file = OpenOptions::new().append(true).open(path).map_err(io_err)?;
        let journal = Journal {
            path: path.to_path_buf(),
            file: BufWriter::new(file),
            appended: 0,
            _items: PhantomData,
        };
        Ok((journal, pending))
    }

    /// The journal file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Records an item entering the line, and writes it out.
    pub fn pushed(&mut self, d: &Delayed<T>) -> io::Result<()> {
        self.append(&RecordRef::Push(d))
    }

    /// Records that every item up to `seq` has been published.
    pub fn released(&mut self, seq: u64) -> io::Result<()> {
        self.append(&RecordRef::<T>::Released(seq))
    }

    /// Whether enough has been appended that [`Journal::compact`] would
    /// shrink the file noticeably.
    pub fn wants_compaction(&self) -> bool {
        self.appended >= COMPACT_AFTER
    }

    /// Rewrites the file with only `pending`, the items still waiting.
    pub fn compact<'a>(&mut self, pending: impl Iterator<Item = &'a Delayed<T>>) -> io::Result<()>
    where
        T: Clone + 'a,
    {
        let pending: Vec<Delayed<T>> = pending.cloned().collect();
        self.file.flush()?;
        rewrite(&self.path, &pending)?;
        self.file = BufWriter::new(OpenOptions::new().append(true).open(&self.path)?);
        self.appended = 0;
        Ok(())
    }

    fn append(&mut self, record: &RecordRef<'_, T>) -> io::Result<()> {
        let mut line = serde_json::to_vec(record).map_err(io::Error::other)?;
        line.push(b'\n');
        self.file.write_all(&line)?;
        self.file.flush()?;
        self.appended += 1;
        Ok(())
    }
}

/// Reads the records of a journal; returns the items not released.
fn read<T: DeserializeOwned>(
    path: &Path,
    reader: impl BufRead,
) -> Result<Vec<Delayed<T>>, JournalError> {
    let mut items: Vec<Delayed<T>> = Vec::new();
    let mut released = 0;
    let mut lines = reader.split(b'\n').enumerate().peekable();
    while let Some((i, line)) = lines.next() {
        let line = line.map_err(|source| JournalError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<Record<T>>(&line) {
            Ok(Record::Push(d)) => items.push(d),
            Ok(Record::Released(seq)) => released = released.max(seq),
            // A crash can cut the last line short: what it held was not
            // written out, so it was never acknowledged to anyone.
            Err(_) if lines.peek().is_none() => break,
            Err(e) => {
                return Err(JournalError::Malformed {
                    path: path.to_path_buf(),
                    line: i + 1,
                    message: e.to_string(),
                });
            }
        }
    }
    items.retain(|d| d.seq > released);
    items.sort_by_key(|d| d.seq);
    Ok(items)
}

fn rewrite<T: Serialize>(path: &Path, pending: &[Delayed<T>]) -> io::Result<()> {
    let mut out = Vec::new();
    for d in pending {
        serde_json::to_writer(&mut out, &RecordRef::Push(d)).map_err(io::Error::other)?;
        out.push(b'\n');
    }
    crate::sink::folder::write_atomic(path, &out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::delay::DelayLine;

    fn journal_path() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("delay").join("public.jsonl");
        (dir, path)
    }

    #[test]
    fn items_not_yet_released_survive_a_restart() {
        let (_dir, path) = journal_path();
        {
            let (mut j, pending) = Journal::<String>::open(&path).expect("open");
            assert!(pending.is_empty());
            let mut line = DelayLine::new(1_000);
            for (t, m) in [(0, "e4"), (10, "e5"), (20, "Nf3")] {
                let d = line.push(t, m.to_string()).clone();
                j.pushed(&d).expect("push");
            }
            let first = line.pop_due(1_000).expect("due");
            j.released(first.seq).expect("release");
        }
        let (_, pending) = Journal::<String>::open(&path).expect("reopen");
        let items: Vec<_> = pending.iter().map(|d| d.item.as_str()).collect();
        assert_eq!(items, ["e5", "Nf3"]);
        assert_eq!(pending[0].made_ms, 10);
        // The file was rewritten with the pending items only.
        let text = fs::read_to_string(&path).expect("read");
        assert_eq!(text.lines().count(), 2);
        assert!(!text.contains("e4"));
    }

    #[test]
    fn a_last_line_cut_short_is_ignored() {
        let (_dir, path) = journal_path();
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(
            &path,
            "{\"push\":{\"seq\":1,\"made_ms\":5,\"item\":\"e4\"}}\n{\"push\":{\"seq\":2,\"ma",
        )
        .unwrap();
        let (_, pending) = Journal::<String>::open(&path).expect("open");
        assert_eq!(pending.len(), 1);
        assert_eq!(pending[0].item, "e4");
    }

    #[test]
    fn a_bad_line_in_the_middle_names_file_and_line() {
        let (_dir, path) = journal_path();
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(
            &path,
            "{\"push\":{\"seq\":1,\"made_ms\":5,\"item\":\"e4\"}}\ngarbage\n{\"released\":1}\n",
        )
        .unwrap();
        let err = Journal::<String>::open(&path).expect_err("malformed");
        let text = err.to_string();
        assert!(text.contains("public.jsonl:2:"), "{text}");
    }

    #[test]
    fn compaction_keeps_only_what_waits() {
        let (_dir, path) = journal_path();
        let (mut j, _) = Journal::<u32>::open(&path).expect("open");
        let mut line = DelayLine::new(0);
        for i in 0..10 {
            let d = line.push(i, i as u32).clone();
            j.pushed(&d).unwrap();
        }
        for _ in 0..7 {
            let d = line.pop_due(100).unwrap();
            j.released(d.seq).unwrap();
        }
        j.compact(line.pending()).unwrap();
        let d = line.push(50, 99).clone();
        j.pushed(&d).unwrap();
        drop(j);
        let (_, pending) = Journal::<u32>::open(&path).expect("reopen");
        let items: Vec<_> = pending.iter().map(|d| d.item).collect();
        assert_eq!(items, [7, 8, 9, 99]);
    }
}
