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
use std::time::{Duration, Instant};

use tracing::{info, warn};

use crate::capture::{Direction, Header, RESUMED_FROM, Writer};
use crate::event::Millis;
use crate::family::Family;

/// How long a failed recorder waits before trying the disk again.
const RETRY: Duration = Duration::from_secs(1);

/// A recording that failed (a full disk, say) and is retried.
#[derive(Debug)]
struct Gap {
    /// Session time of the first line lost (or of the failure).
    from: Option<Millis>,
    /// Session time of the last line lost.
    to: Option<Millis>,
    /// The first error.
    error: String,
    /// When to try again.
    retry_at: Instant,
    /// Lines lost so far.
    lost: u64,
}

/// A board's capture and PGN files.
///
/// Design: a write error (a full disk, an I/O error) never stops the
/// board. The recorder drops the open file, counts what it could not
/// write, and tries again at most once a second, at a flush; when the disk
/// takes writes again it reopens the capture for appending (cutting a line
/// the failure left half written), writes a `# gap: ...` comment line
/// saying what was lost, and records on. The readings lost in the gap
/// leave the capture's board behind the real one, so the recorder then
/// says it resumed ([`Recorder::take_resumed`]) and the line task reads
/// the board whole again, as after an unplugged board (its memory, a board
/// dump): a resume or a replay of the capture explains the moves of the
/// gap from those readings. The game itself never depends on the capture.
/// A PGN file that could not be written is written again at the next
/// flush.
#[derive(Debug)]
pub struct Recorder {
    writer: Option<Writer<BufWriter<File>>>,
    capture: PathBuf,
    pgn: PathBuf,
    unflushed: bool,
    gap: Option<Gap>,
    /// The PGN text not yet written (a write failed).
    pgn_pending: Option<String>,
    /// The header, when even it could not be written yet.
    header: Option<Header>,
    /// The last PGN write failed (said once).
    pgn_failing: bool,
    /// Recording resumed after a gap, not yet taken by the line task.
    resumed: bool,
    /// The time of the last line written: a capture's times never go
    /// back (a connection's hello, recorded after the fact with the times
    /// it was sent, may be older than a correction applied meanwhile).
    last_t: Millis,
}

impl Recorder {
    /// Creates `{dir}/{board}-{session}.capture` (and the folder). An
    /// existing capture is never truncated: a daemon restarted within the
    /// same second writes `{board}-{session}-2.capture` (then `-3`, ...).
    /// `resumed_from`, when given, names the capture whose game this
    /// session continues (header word [`RESUMED_FROM`]); `protocol` is the
    /// board's family, written in the header so `replay` picks its driver.
    ///
    /// Fails only when the file cannot be created at all; a header that
    /// cannot be written (a full disk) is retried like any later write.
    pub fn create(
        dir: &Path,
        board: &str,
        session: &str,
        resumed_from: Option<&str>,
        protocol: Family,
    ) -> io::Result<Recorder> {
        Recorder::create_with(dir, board, session, resumed_from, protocol, &[])
    }

    /// [`Recorder::create`] with more `key=value` words on the header line
    /// (`unit=` for a board on a DGT bus).
    pub fn create_with(
        dir: &Path,
        board: &str,
        session: &str,
        resumed_from: Option<&str>,
        protocol: Family,
        extra: &[(String, String)],
    ) -> io::Result<Recorder> {
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
        let mut meta = vec![
            ("board".into(), board.into()),
            ("session".into(), session.into()),
        ];
        if let Some(prev) = resumed_from {
            meta.push((RESUMED_FROM.into(), prev.into()));
        }
        meta.extend(extra.iter().cloned());
        let header = Header { protocol, meta };
        let mut r = Recorder {
            writer: None,
            capture,
            pgn,
            unflushed: false,
            last_t: 0,
            resumed: false,
            gap: None,
            pgn_pending: None,
            header: None,
            pgn_failing: false,
        };
        let started = Writer::new(BufWriter::new(file), &header).and_then(|mut w| {
            w.flush()?;
            Ok(w)
        });
        match started {
            Ok(w) => r.writer = Some(w),
            Err(e) => {
                // Keep the header for the retry: the file is empty.
                let _ = fs::remove_file(&r.capture);
                r.fail(None, &e);
                r.header = Some(header);
            }
        }
        Ok(r)
    }
    /// The capture file.
    pub fn capture_path(&self) -> &Path {
        &self.capture
    }

    /// The PGN file.
    pub fn pgn_path(&self) -> &Path {
        &self.pgn
    }

    /// Whether the recorder is failing (and retrying) right now.
    pub fn failing(&self) -> bool {
        self.gap.is_some()
    }

    /// Whether recording resumed after a gap since the last call: the
    /// board should be read whole again (its memory and a board dump),
    /// so the capture holds where the board stands after the readings
    /// it lost.
    pub fn take_resumed(&mut self) -> bool {
        std::mem::take(&mut self.resumed)
    }

    /// Records bytes seen on the line.
    pub fn record(&mut self, t: Millis, dir: Direction, bytes: &[u8]) {
        let t = t.max(self.last_t);
        self.last_t = t;
        // A failed recording resumes at a flush only: the line task then
        // has the board read whole again before more readings go in.
        if self.gap.is_some() || self.writer.is_none() {
            self.lose(t);
            return;
        }
        let result = match &mut self.writer {
            Some(w) => w.write_chunk(t, dir, bytes),
            None => return,
        };
        self.unflushed = true;
        if let Err(e) = result {
            self.fail(Some(t), &e);
        }
    }

    /// Records a comment line (connections, disconnections).
    pub fn note(&mut self, text: &str) {
        if self.gap.is_some() {
            return;
        }
        let result = match &mut self.writer {
            Some(w) => w.write_comment(text),
            None => return,
        };
        self.unflushed = true;
        if let Err(e) = result {
            self.fail(None, &e);
        }
    }

    /// Writes buffered lines to the file, if there are any (and retries a
    /// failed recording, and a PGN file not yet written).
    pub fn flush(&mut self) {
        if let Some(text) = self.pgn_pending.take() {
            self.write_pgn(&text);
        }
        if !self.ready() || !self.unflushed {
            return;
        }
        self.unflushed = false;
        let result = match &mut self.writer {
            Some(w) => w.flush(),
            None => return,
        };
        if let Err(e) = result {
            self.fail(None, &e);
        }
    }

    /// Replaces the PGN file with `text` (written aside, then renamed). A
    /// failure is retried at the next [`Recorder::flush`].
    pub fn write_pgn(&mut self, text: &str) {
        let aside = self.pgn.with_extension("pgn.tmp");
        let result = fs::write(&aside, text).and_then(|()| fs::rename(&aside, &self.pgn));
        match result {
            Err(e) => {
                let _ = fs::remove_file(&aside);
                if !self.pgn_failing {
                    warn!(file = %self.pgn.display(), error = %e, "could not write the PGN file; retrying");
                    self.pgn_failing = true;
                }
                self.pgn_pending = Some(text.to_string());
            }
            Ok(()) if self.pgn_failing => {
                info!(file = %self.pgn.display(), "PGN file written again");
                self.pgn_failing = false;
            }
            Ok(()) => {}
        }
    }

    /// Counts a line that could not be written.
    fn lose(&mut self, t: Millis) {
        if let Some(g) = &mut self.gap {
            g.from.get_or_insert(t);
            g.to = Some(t);
            g.lost += 1;
        }
    }

    /// A write failed: drop the file (what its buffer held is lost) and
    /// retry later.
    fn fail(&mut self, t: Option<Millis>, e: &io::Error) {
        if let Some(w) = self.writer.take() {
            // The buffer cannot be written either: forget it.
            let (file, _) = w.into_inner().into_parts();
            drop(file);
        }
        self.unflushed = false;
        match (&mut self.gap, t) {
            (Some(_), Some(t)) => self.lose(t),
            (Some(_), None) => {}
            (None, _) => {
                warn!(file = %self.capture.display(), error = %e, "recording failed; retrying every second");
                self.gap = Some(Gap {
                    from: t,
                    to: t,
                    error: e.to_string(),
                    retry_at: Instant::now() + RETRY,
                    lost: u64::from(t.is_some()),
                });
            }
        }
    }

    /// Whether the capture is open; a failed one is reopened when its
    /// retry is due and the disk takes a line again.
    fn ready(&mut self) -> bool {
        let Some(gap) = &mut self.gap else {
            return self.writer.is_some();
        };
        if Instant::now() < gap.retry_at {
            return false;
        }
        gap.retry_at = Instant::now() + RETRY;
        let Ok(w) = self.reopen() else {
            return false;
        };
        let gap = self.gap.take().expect("failing");
        let span = match (gap.from, gap.to) {
            (Some(a), Some(b)) => format!("session time {a}..{b} ms"),
            _ => "no line".into(),
        };
        info!(file = %self.capture.display(), lost = gap.lost, "recording resumed; the board is read whole again");
        self.writer = Some(w);
        let at = format!(" after session time {} ms", self.last_t);
        let line = format!(
            "gap: recording failed ({}); at least {} line(s) lost, {span}; resumed{at}",
            gap.error, gap.lost
        );
        let result = self
            .writer
            .as_mut()
            .expect("just set")
            .write_comment(&capture_comment(&line));
        if let Err(e) = result {
            self.gap = Some(gap);
            self.fail(None, &e);
            return false;
        }
        self.unflushed = true;
        self.resumed = true;
        true
    }

    /// Opens the capture for appending, cutting a line a failure left half
    /// written (so the file ends with a whole line), or writes the header
    /// that could not be written at creation.
    fn reopen(&mut self) -> io::Result<Writer<BufWriter<File>>> {
        if let Some(header) = &self.header {
            let file = fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(false)
                .open(&self.capture)?;
            file.set_len(0)?;
            let mut w = Writer::new(BufWriter::new(file), header)?;
            w.flush()?;
            self.header = None;
            return Ok(w);
        }
        if !self.capture.exists() {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                "the capture is gone",
            ));
        }
        // A line the failure left half written is cut back first.
        let (file, _) = crate::sink::append::open_append(&self.capture, "capture")?;
        // A probe: the disk must take a whole line before recording goes on.
        let mut w = Writer::append(BufWriter::new(file));
        w.write_comment("recorder back after a write failure")?;
        w.flush()?;
        Ok(w)
    }
}

/// A comment's text on one line.
fn capture_comment(text: &str) -> String {
    text.replace(['\n', '\r'], " ")
}

impl Drop for Recorder {
    fn drop(&mut self) {
        if let Some(w) = &mut self.writer {
            let _ = w.flush();
        }
    }
}

/// The latest capture of `board` in `dir`: the newest session (then the
/// highest `-n`), if any.
pub fn latest_capture(dir: &Path, board: &str) -> Option<PathBuf> {
    let mut best: Option<(String, u32, PathBuf)> = None;
    for entry in fs::read_dir(dir).ok()?.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some((session, n)) = parse_capture_name(name, board) else {
            continue;
        };
        if best
            .as_ref()
            .is_none_or(|(s, m, _)| (s.as_str(), *m) < (session, n))
        {
            best = Some((session.to_string(), n, entry.path()));
        }
    }
    best.map(|(_, _, p)| p)
}

/// `{board}-{session}[-n].capture` -> (session, n).
fn parse_capture_name<'a>(name: &'a str, board: &str) -> Option<(&'a str, u32)> {
    let stem = name.strip_suffix(".capture")?;
    let rest = stem.strip_prefix(board)?.strip_prefix('-')?;
    let (session, n) = match rest.split_once('-') {
        Some((s, n)) => (s, n.parse().ok()?),
        None => (rest, 1),
    };
    let b = session.as_bytes();
    let stamp = b.len() == 16
        && b[8] == b'T'
        && b[15] == b'Z'
        && b[..8].iter().chain(&b[9..15]).all(u8::is_ascii_digit);
    stamp.then_some((session, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_bytes_read_back_as_a_capture() {
        let dir = tempfile::tempdir().unwrap();
        let mut r = Recorder::create(dir.path(), "7", "S", None, Family::Dgt).unwrap();
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
        let mut first =
            Recorder::create(dir.path(), "1", "20261123T050000Z", None, Family::Dgt).unwrap();
        first.record(5, Direction::FromBoard, &[0x8e, 0x00, 0x05, 0x34, 0x00]);
        first.flush();
        let path = first.capture_path().to_path_buf();
        drop(first);
        let before = fs::read_to_string(&path).unwrap();
        let second =
            Recorder::create(dir.path(), "1", "20261123T050000Z", None, Family::Dgt).unwrap();
        assert!(
            second
                .capture_path()
                .ends_with("1-20261123T050000Z-2.capture")
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), before);
        assert!(before.contains("5 < 8e 00 05 34 00"));
    }

    #[test]
    fn the_latest_capture_is_the_newest_session_then_the_highest_number() {
        let dir = tempfile::tempdir().unwrap();
        for name in [
            "1-20261123T050000Z.capture",
            "1-20261123T060000Z.capture",
            "1-20261123T060000Z-2.capture",
            "1-20261123T060000Z-10.capture",
            "1-2-20261123T070000Z.capture",
            "1-notes.capture",
            "12-20261123T080000Z.capture",
        ] {
            fs::write(dir.path().join(name), "").unwrap();
        }
        let latest = latest_capture(dir.path(), "1").unwrap();
        assert!(
            latest.ends_with("1-20261123T060000Z-10.capture"),
            "{latest:?}"
        );
        let other = latest_capture(dir.path(), "1-2").unwrap();
        assert!(other.ends_with("1-2-20261123T070000Z.capture"));
        assert_eq!(latest_capture(dir.path(), "3"), None);
    }

    #[test]
    fn a_resumed_session_names_its_predecessor_in_the_header() {
        let dir = tempfile::tempdir().unwrap();
        let r = Recorder::create(dir.path(), "1", "S", Some("1-T.capture"), Family::Dgt).unwrap();
        let text = fs::read_to_string(r.capture_path()).unwrap();
        assert!(
            text.starts_with(
                "# boardcast capture v1 protocol=dgt board=1 session=S resumed_from=1-T.capture\n"
            ),
            "{text}"
        );
    }
}
