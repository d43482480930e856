//! The nonces of the operator commands accepted, on disk, so that a
//! command captured on the broker is refused after a daemon restart as it
//! is before one.
//!
//! One append-only file of JSON lines, `{"nonce":"...","expiry":N}`
//! (`expiry`: the Unix millisecond after which the command's signing time
//! is out of the window, and the nonce can be forgotten). Opening it cuts
//! a torn last line ([`crate::sink::append`]), reads the nonces back,
//! drops the expired ones and rewrites the file with the rest (aside,
//! then renamed); it is rewritten so again whenever it holds many more
//! lines than live nonces.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::sink::append::open_append;

/// Lines appended beyond the live nonces before the file is rewritten.
const SLACK: usize = 1024;

/// One line of the file.
#[derive(Debug, Serialize, Deserialize)]
struct Entry {
    nonce: String,
    expiry: u64,
}

/// The nonce file, open for appending.
#[derive(Debug)]
pub struct NonceFile {
    path: PathBuf,
    file: File,
    /// Lines in the file.
    lines: usize,
}

impl NonceFile {
    /// Opens (or creates) the file at `path` and returns it with the
    /// nonces still live at `now_ms` (Unix milliseconds), each with its
    /// expiry. A line that is not an entry is skipped with a warning.
    pub fn open(path: &Path, now_ms: u64) -> io::Result<(NonceFile, Vec<(String, u64)>)> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        let (file, _) = open_append(path, "nonce file")?;
        let mut live = Vec::new();
        for (i, line) in BufReader::new(&file).lines().enumerate() {
            let line = line?;
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<Entry>(&line) {
                Ok(e) if e.expiry >= now_ms => live.push((e.nonce, e.expiry)),
                Ok(_) => {}
                Err(e) => {
                    tracing::warn!(file = %path.display(), line = i + 1, error = %e, "a line of the nonce file is not a nonce: skipped");
                }
            }
        }
        let mut me = NonceFile {
            path: path.to_path_buf(),
            file,
            lines: 0,
        };
        me.rewrite(live.iter().map(|(n, e)| (n.as_str(), *e)))?;
        Ok((me, live))
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends an accepted nonce and syncs it to the disk (before the
    /// command takes effect).
    pub fn record(&mut self, nonce: &str, expiry: u64) -> io::Result<()> {
        let mut line = serde_json::to_vec(&Entry {
            nonce: nonce.to_string(),
            expiry,
        })
        .map_err(io::Error::other)?;
        line.push(b'\n');
        self.file.write_all(&line)?;
        self.file.sync_data()?;
        self.lines += 1;
        Ok(())
    }

    /// Whether the file holds so many more lines than the `live` nonces
    /// that [`NonceFile::rewrite`] is worth doing.
    pub fn wants_rewrite(&self, live: usize) -> bool {
        self.lines > 2 * live + SLACK
    }

    /// Rewrites the file with only the `live` nonces (aside, then
    /// renamed: a crash leaves the old file).
    pub fn rewrite<'a>(&mut self, live: impl Iterator<Item = (&'a str, u64)>) -> io::Result<()> {
        let mut out = Vec::new();
        let mut lines = 0;
        for (nonce, expiry) in live {
            serde_json::to_writer(
                &mut out,
                &Entry {
                    nonce: nonce.to_string(),
                    expiry,
                },
            )
            .map_err(io::Error::other)?;
            out.push(b'\n');
            lines += 1;
        }
        crate::sink::folder::write_atomic(&self.path, &out)?;
        self.file = open_append(&self.path, "nonce file")?.0;
        self.lines = lines;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn live_nonces_come_back_expired_ones_go_and_a_torn_line_is_cut() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rec").join("nonces.jsonl");
        {
            let (mut f, live) = NonceFile::open(&path, 1_000).unwrap();
            assert!(live.is_empty());
            f.record("aaaaaaaaaaaaaaaa", 5_000).unwrap();
            f.record("bbbbbbbbbbbbbbbb", 1_500).unwrap();
        }
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("{\"nonce\":\"cccc");
        std::fs::write(&path, text).unwrap();
        let (mut f, live) = NonceFile::open(&path, 2_000).unwrap();
        assert_eq!(live, [("aaaaaaaaaaaaaaaa".to_string(), 5_000)]);
        f.record("dddddddddddddddd", 6_000).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 2, "{text}");
        let (_, live) = NonceFile::open(&path, 2_000).unwrap();
        assert_eq!(live.len(), 2);
    }
}
