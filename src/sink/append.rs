//! Append-only line files: the journals the daemon keeps (the arbiter's
//! decisions, the delayed view, the operator commands' nonces) and the
//! captures the recorder reopens. One rule for all of them: a file is
//! opened for appending only after a last line left without its newline
//! (a crash, a full disk mid-write) has been cut back to the end of the
//! last whole line, so the next record never joins the torn one and
//! swallows it. [`append_line`] also takes back at once a record it
//! could not write whole, and one its caller gives up
//! ([`Appended::take_back`]).

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;

/// How far back a torn tail is looked for at a time.
const STEP: u64 = 4096;

/// Opens `path` for appending (creating it and nothing else), readable,
/// with a torn last line cut off first; says so in one warning naming
/// `what` the file is. Returns the file and the number of bytes cut.
///
/// Design: appends go through `O_APPEND`, so whatever the read position
/// (a caller may read the file back from the start), every record lands
/// at the end.
pub fn open_append(path: &Path, what: &str) -> io::Result<(File, u64)> {
    let mut file = OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .open(path)?;
    let cut = cut_torn_tail(&mut file)?;
    if cut > 0 {
        tracing::warn!(file = %path.display(), bytes = cut, "{what}: a torn last line (no newline) was cut back to the last whole line");
    }
    Ok((file, cut))
}

/// A record [`append_line`] appended (synced), which its caller can take
/// back while nothing else is appended to the file.
#[derive(Debug)]
pub struct Appended {
    file: File,
    /// The file's length before the record.
    at: u64,
}

impl Appended {
    /// Takes the record back: the file is cut to its length before it
    /// (a cut needs no room on the disk) and synced.
    pub fn take_back(self) -> io::Result<()> {
        self.file.set_len(self.at)?;
        self.file.sync_data()
    }
}

/// Appends `line` and a newline to `path` as one record (opened with
/// [`open_append`], so a torn last line is cut first) and syncs it. A
/// write or sync that fails (a full disk) is cut back before the error
/// returns: the file ends with its last whole record, as before.
pub fn append_line(path: &Path, what: &str, line: &[u8]) -> io::Result<Appended> {
    let (mut file, _) = open_append(path, what)?;
    let at = file.metadata()?.len();
    let mut record = Vec::with_capacity(line.len() + 1);
    record.extend_from_slice(line);
    record.push(b'\n');
    let written = file.write_all(&record).and_then(|()| file.sync_data());
    if let Err(e) = written {
        if let Err(cut) = file.set_len(at) {
            tracing::warn!(file = %path.display(), error = %cut, "{what}: a record that could not be written could not be cut back either (the next append cuts it)");
        }
        return Err(e);
    }
    Ok(Appended { file, at })
}

/// Cuts `file` back to the end of its last whole line (the end of the
/// file when it ends with a newline, nothing when it has no newline at
/// all). Returns the number of bytes cut.
pub fn cut_torn_tail(file: &mut File) -> io::Result<u64> {
    let len = file.metadata()?.len();
    let mut keep = len;
    let mut buf = [0u8; STEP as usize];
    while keep > 0 {
        let start = keep.saturating_sub(STEP);
        let n = (keep - start) as usize;
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(&mut buf[..n])?;
        if let Some(i) = buf[..n].iter().rposition(|&b| b == b'\n') {
            keep = start + i as u64 + 1;
            break;
        }
        keep = start;
    }
    if keep < len {
        file.set_len(keep)?;
    }
    file.seek(SeekFrom::Start(0))?;
    Ok(len - keep)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_torn_last_line_is_cut_and_the_next_record_stands_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.jsonl");
        std::fs::write(&path, "one\ntw").unwrap();
        let (mut f, cut) = open_append(&path, "test journal").unwrap();
        assert_eq!(cut, 2);
        f.write_all(b"three\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "one\nthree\n");
    }

    #[test]
    fn whole_files_are_left_alone_and_a_file_without_any_newline_is_emptied() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.jsonl");
        let long = format!("{}\n", "x".repeat(10_000));
        std::fs::write(&path, &long).unwrap();
        assert_eq!(open_append(&path, "test").unwrap().1, 0);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), long);
        std::fs::write(&path, "x".repeat(9_000)).unwrap();
        assert_eq!(open_append(&path, "test").unwrap().1, 9_000);
        assert_eq!(std::fs::read(&path).unwrap(), b"");
        let fresh = dir.path().join("new.jsonl");
        assert_eq!(open_append(&fresh, "test").unwrap().1, 0);
        assert!(fresh.exists());
    }

    #[test]
    fn a_line_appended_reads_back_whole_and_can_be_taken_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("actions.jsonl");
        std::fs::write(&path, "{\"a\":1}\n{\"a\":").unwrap();
        let second = append_line(&path, "test", b"{\"a\":2}").unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\"a\":1}\n{\"a\":2}\n",
            "the torn line is cut, the new one stands alone"
        );
        append_line(&path, "test", b"{\"a\":3}")
            .unwrap()
            .take_back()
            .unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\"a\":1}\n{\"a\":2}\n"
        );
        drop(second);
    }
}
