//! The recorder: every byte of a board's line, both ways, to a capture file
//! (interface section 2), and the board's games as PGN beside it.
//!
//! One capture per board and daemon session, named
//! `{board}-{session}.capture`, where the session is the daemon's start in
//! UTC (`20261122T081500Z`). Times are the daemon's session milliseconds,
//! the same clock the pipeline is driven with, so `boardcast replay` of the
//! file reproduces the session's events, reconnections included. Writes are
//! buffered and flushed by the board task at least every half second, so a
//! crash loses at most the last second. The PGN file is replaced atomically
//! (written aside, then renamed).

use std::fs::{self, File};
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use tracing::warn;

use crate::capture::{Direction, Header, Protocol, Writer};
use crate::event::Millis;

/// A board's capture and PGN files.
#[derive(Debug)]
pub struct Recorder {
    writer: Option<Writer<BufWriter<File>>>,
    capture: PathBuf,
    pgn: PathBuf,
    unflushed: bool,
}

impl Recorder {
    /// Creates `{dir}/{board}-{session}.capture` (and the folder). An
    /// existing capture is never truncated: a daemon restarted within the
    /// same second writes `{board}-{session}-2.capture` (then `-3`, ...).
    pub fn create(dir: &Path, board: &str, session: &str) -> io::Result<Recorder> {
        fs::create_dir_all(dir)?;
        let (capture, pgn, file) = (1..1000)
            .find_map(|n| {
                let stem = if n == 1 {
                    format!("{board}-{session}")
                } else {
                    format!("{board}-{session}-{n}")
                };
                let capture = dir.join(format!("{stem}.capture"));
                match fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&capture)
                {
                    Ok(file) => Some(Ok((capture, dir.join(format!("{stem}.pgn")), file))),
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => None,
                    Err(e) => Some(Err(e)),
                }
            })
            .unwrap_or_else(|| {
                Err(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    "999 captures of this board and session already exist",
                ))
            })?;
        let header = Header {
            protocol: Protocol::Dgt,
            meta: vec![
                ("board".into(), board.into()),
                ("session".into(), session.into()),
            ],
        };
        let mut writer = Writer::new(BufWriter::new(file), &header)?;
        writer.flush()?;
        Ok(Recorder {
            writer: Some(writer),
            capture,
            pgn,
            unflushed: false,
        })
    }

    /// The capture file.
    pub fn capture_path(&self) -> &Path {
        &self.capture
    }

    /// The PGN file.
    pub fn pgn_path(&self) -> &Path {
        &self.pgn
    }

    /// Records bytes seen on the line.
    pub fn record(&mut self, t: Millis, dir: Direction, bytes: &[u8]) {
        let result = match &mut self.writer {
            Some(w) => w.write_chunk(t, dir, bytes),
            None => return,
        };
        self.unflushed = true;
        self.check(result);
    }

    /// Records a comment line (connections, disconnections).
    pub fn note(&mut self, text: &str) {
        let result = match &mut self.writer {
            Some(w) => w.write_comment(text),
            None => return,
        };
        self.unflushed = true;
        self.check(result);
    }

    /// Writes buffered lines to the file, if there are any.
    pub fn flush(&mut self) {
        if !self.unflushed {
            return;
        }
        self.unflushed = false;
        let result = match &mut self.writer {
            Some(w) => w.flush(),
            None => return,
        };
        self.check(result);
    }

    /// Replaces the PGN file with `text`.
    pub fn write_pgn(&mut self, text: &str) {
        let aside = self.pgn.with_extension("pgn.tmp");
        let result = fs::write(&aside, text).and_then(|()| fs::rename(&aside, &self.pgn));
        if let Err(e) = result {
            warn!(file = %self.pgn.display(), error = %e, "could not write the PGN file");
        }
    }

    fn check(&mut self, result: io::Result<()>) {
        if let Err(e) = result {
            // A full disk must not stop the board: stop recording instead.
            warn!(file = %self.capture.display(), error = %e, "recording stopped");
            self.writer = None;
        }
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        if let Some(w) = &mut self.writer {
            let _ = w.flush();
        }
    }
}

/// The current UTC time as `YYYYMMDDTHHMMSSZ`, naming a session.
pub fn session_stamp() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (y, mo, d, h, mi, s) = civil(secs);
    format!("{y:04}{mo:02}{d:02}T{h:02}{mi:02}{s:02}Z")
}

/// Today's UTC date as PGN writes it, `YYYY.MM.DD`.
pub fn pgn_date() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (y, mo, d, ..) = civil(secs);
    format!("{y:04}.{mo:02}.{d:02}")
}

/// Seconds since 1970 to (year, month, day, hour, minute, second) in UTC
/// (Howard Hinnant's days-to-civil algorithm).
fn civil(secs: u64) -> (i64, u32, u32, u32, u32, u32) {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (
        y,
        m,
        d,
        (rem / 3600) as u32,
        (rem % 3600 / 60) as u32,
        (rem % 60) as u32,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates_are_right() {
        assert_eq!(civil(0), (1970, 1, 1, 0, 0, 0));
        // 2024-02-29 12:34:56 UTC
        assert_eq!(civil(1_709_210_096), (2024, 2, 29, 12, 34, 56));
    }

    #[test]
    fn recorded_bytes_read_back_as_a_capture() {
        let dir = tempfile::tempdir().unwrap();
        let mut r = Recorder::create(dir.path(), "7", "S").unwrap();
        r.record(0, Direction::ToBoard, &[0x40]);
        r.note("connected");
        r.record(25, Direction::FromBoard, &[0x8e, 0, 5, 0x34, 0]);
        r.flush();
        let text = fs::read_to_string(r.capture_path()).unwrap();
        let (h, reader) = crate::capture::Reader::new(text.as_bytes()).unwrap();
        assert_eq!(h.meta[0], ("board".to_string(), "7".to_string()));
        let chunks: Vec<_> = reader.map(Result::unwrap).collect();
        assert_eq!(chunks.len(), 2);
        assert_eq!(chunks[1].bytes, vec![0x8e, 0, 5, 0x34, 0]);
        r.write_pgn("[Event \"?\"]\n\n*\n");
        assert!(fs::read_to_string(r.pgn_path()).unwrap().contains("Event"));
    }

    #[test]
    fn a_restart_in_the_same_second_never_truncates_the_earlier_capture() {
        let dir = tempfile::tempdir().unwrap();
        let mut first = Recorder::create(dir.path(), "1", "20261123T050000Z").unwrap();
        first.record(5, Direction::FromBoard, &[0x8e, 0x00, 0x05, 0x34, 0x00]);
        first.flush();
        let path = first.capture_path().to_path_buf();
        drop(first);
        let before = fs::read_to_string(&path).unwrap();
        let second = Recorder::create(dir.path(), "1", "20261123T050000Z").unwrap();
        assert!(
            second
                .capture_path()
                .ends_with("1-20261123T050000Z-2.capture")
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), before);
        assert!(before.contains("5 < 8e 00 05 34 00"));
    }
}
