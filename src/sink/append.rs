//! Append-only line files: the journals the daemon keeps (the arbiter's
//! decisions, the delayed view, the operator commands' nonces) and the
//! captures the recorder reopens. One rule for all of them: a file is
//! opened for appending only after a last line left without its newline
//! (a crash, a full disk mid-write) has been cut back to the end of the
//! last whole line, so the next record never joins the torn one and
//! swallows it.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom};
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
    use std::io::Write;

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
}
