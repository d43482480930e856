//! Serial I/O: one task per board that finds its device, opens it, talks
//! its family's handshake, feeds the pipeline with daemon time, records
//! every byte, and comes back after the board is unplugged.
//!
//! DGT boards are spoken to as below. Boards of the other families
//! (Millennium, Certabo, the open protocol) are opened with their driver's
//! line settings, sent its hello, and taken for a board once the driver
//! reads anything from them; the driver's keepalives replace the serial
//! number polls (see docs/boards.md).
//!
//! # One board's life
//!
//! 1. **Find.** The board's candidate paths ([`find::candidates`]) are tried
//!    in order; a device another board task holds is skipped.
//! 2. **Open and identify.** 9600 baud 8N1 (tokio-serial), then `reset`
//!    (0x40) and `serial number` (0x45). The board must name itself within
//!    `serial.handshake_ms`. A board with a configured `serial`, or whose
//!    port is a pattern or a list, must report its own serial number (the
//!    first one seen is kept for the session when none is configured);
//!    otherwise the next candidate is tried. On one fixed path a different
//!    board is accepted with a warning: the operator chose the path.
//! 3. **Live.** With a game on (after an unplug, or a resumed game), the
//!    board's memory (0x49) first: its log of piece changes tells in which
//!    order the moves made while nobody listened were played. Then
//!    `version` (0x4d), `board dump` (0x42) and update mode.
//!    Design: the mode is `SendUpdateNice` (0x4b): field updates as they
//!    happen, and clock messages only when the clock changes, which a later
//!    clock reader can use without the once-a-second traffic of
//!    `SendUpdate` (0x43). The fresh dump lets the reconstructor explain
//!    moves made while the board was away (a deep search on a whole-board
//!    read). Every few seconds (`serial.poll_ms`) the task asks for the
//!    serial number again, as other DGT drivers do: a board that stays
//!    silent for `serial.silence_ms` is taken for gone.
//! 4. **Lost.** A read or write error, an end of file repeating, or
//!    silence: the board is published `offline`, the device released, and
//!    the task tries again after a capped exponential backoff.
//!
//! The pipeline and the game survive all of this ([`Session`]).
//! Bytes are read in a plain loop rather than through a `tokio_util` codec:
//! the recorder needs the raw bytes before decoding, and the pipeline
//! decodes them itself, so a codec would only add a copy.
//!
//! A board task never waits for the broker (see [`crate::mqtt`]), and
//! nothing one board does can stop another: each has its own task, device,
//! pipeline and queue.

pub mod bus;
pub mod find;
mod line;
pub mod recorder;

use std::io;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use boardcast_protocols::dgt::{self, Command, Message};
use bytes::BytesMut;
use tokio::io::AsyncReadExt;
use tokio::sync::watch;
use tokio::time::Instant;
use tokio_serial::SerialStream;
use tracing::{Instrument, debug, info, info_span, warn};

use crate::capture::Direction;
use crate::config;
use crate::event::Millis;
use crate::family::{Driver, DriverEvent, DriverOptions, Family, LineSettings, Reading};
use crate::session::Session;
use find::{Claims, DeviceClaim};
use line::{LineTask, Lost, hex, keep_open, write};
use recorder::Recorder;

/// The daemon's session clock: milliseconds since the daemon started,
/// monotonic. Pipelines and captures share it.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    start: Instant,
    /// Session time at `start` (a resumed board's time goes on from its
    /// earlier captures, so one pipeline sees one rising clock).
    offset: Millis,
}

impl Clock {
    /// A clock starting now.
    pub fn start() -> Clock {
        Clock {
            start: Instant::now(),
            offset: 0,
        }
    }

    /// The same clock, reading `offset` more (at least the time a resumed
    /// pipeline stopped at).
    pub fn offset_by(self, offset: Millis) -> Clock {
        Clock { offset, ..self }
    }

    /// Milliseconds since the start.
    pub fn now_ms(&self) -> Millis {
        self.offset + self.start.elapsed().as_millis() as Millis
    }

    /// The instant of a session time.
    pub fn instant(&self, t: Millis) -> Instant {
        self.start + Duration::from_millis(t.saturating_sub(self.offset))
    }
}

/// Everything a board task needs.
#[derive(Debug)]
pub struct BoardTask {
    /// The board's configuration.
    pub board: config::Board,
    /// Line settings common to all boards.
    pub serial: config::Serial,
    /// The session clock.
    pub clock: Clock,
    /// The device and serial registry shared by all board tasks.
    pub claims: Arc<Claims>,
    /// The pipeline, record and publications.
    pub session: Session,
    /// The capture and PGN files, when recording.
    pub recorder: Option<Recorder>,
    /// Operator corrections for this board (from MQTT or the CLI).
    pub commands: tokio::sync::mpsc::Receiver<crate::control::Request>,
    /// The serial number the board must report: the configured one, else
    /// the first one seen (kept for the daemon's life).
    pinned: Option<String>,
}

/// An open, identified board.
struct Link {
    stream: SerialStream,
    path: PathBuf,
    /// The serial number it reported, or (a board of a family that names
    /// no serial number) `{family}@{path}`.
    serial: String,
    /// Whether `serial` is the board's own.
    named: bool,
    /// Another family's driver, for what the host writes (keepalives);
    /// `None` on DGT lines, which [`BoardTask::serve`] speaks itself.
    driver: Option<Box<dyn Driver>>,
    _claim: DeviceClaim,
}

impl BoardTask {
    /// A task for `board` (line settings `serial`), driving `session` with
    /// `clock`, recording with `recorder`, taking operator `commands`.
    pub fn new(
        board: config::Board,
        serial: config::Serial,
        clock: Clock,
        claims: Arc<Claims>,
        session: Session,
        recorder: Option<Recorder>,
        commands: tokio::sync::mpsc::Receiver<crate::control::Request>,
    ) -> BoardTask {
        BoardTask {
            pinned: board.serial.clone(),
            board,
            serial,
            clock,
            claims,
            session,
            recorder,
            commands,
        }
    }

    /// Runs until `shutdown` turns true, then flushes the capture and PGN
    /// and publishes the board `offline`.
    pub async fn run(mut self, mut shutdown: watch::Receiver<bool>) {
        let span = info_span!("board", board = %self.board.id, spec = %self.board.port);
        let reconnect = self.serial.reconnect;
        keep_open(&mut self, reconnect, &mut shutdown)
            .instrument(span)
            .await
    }

    /// Waits `delay` while keeping the pipeline's timers firing (a move
    /// settling when the cable was pulled is still published).
    async fn wait(&mut self, delay: Duration) {
        let until = Instant::now() + delay;
        loop {
            let next = match self.session.poll_timeout() {
                Some(t) => self.clock.instant(t).min(until),
                None => until,
            };
            // Wake at least once a second for operator corrections.
            let next = next.min(Instant::now() + Duration::from_secs(1));
            tokio::time::sleep_until(next).await;
            self.session.advance_to(self.clock.now_ms());
            self.apply_commands();
            if next >= until {
                return;
            }
        }
    }

    /// Tries every candidate once; returns the first identified board.
    async fn find(&mut self, shutdown: &mut watch::Receiver<bool>) -> Option<Link> {
        let strict = self.board.serial.is_some() || !self.board.port.is_fixed();
        for path in find::candidates(&self.board.port) {
            if *shutdown.borrow() {
                return None;
            }
            let device = find::device_of(&path);
            let Some(claim) = self.claims.claim_device(&device, &self.board.id) else {
                continue;
            };
            let line = self.line();
            let mut stream = match line::open(&path, &line) {
                Ok(s) => s,
                Err(e) => {
                    debug!(path = %path.display(), error = %e, "cannot open");
                    continue;
                }
            };
            let found = match self.family() {
                Family::Dgt => self
                    .identify(&mut stream)
                    .await
                    .map(|(serial, chunks)| (Some(serial), chunks, None)),
                family => self
                    .identify_family(&mut stream, family)
                    .await
                    .map(|(serial, chunks, driver)| (serial, chunks, Some(driver))),
            };
            let (serial, chunks, driver) = match found {
                Ok(found) => found,
                Err(e) => {
                    debug!(path = %path.display(), error = %e, "no board answered");
                    continue;
                }
            };
            // A board that names no serial number (Millennium, Certabo,
            // an open board without an `id`) is known by its device.
            let named = serial.is_some();
            let serial = serial.unwrap_or_else(|| format!("{}@{}", self.family(), path.display()));
            if named
                && let Some(p) = self.pinned.as_deref()
                && p != serial
            {
                if strict {
                    debug!(path = %path.display(), %serial, expected = %p, "another board");
                    continue;
                }
                warn!(%serial, previous = %p, "a different board on this port");
            }
            if !named {
                // Nothing to pin: the device claim already keeps two board
                // tasks off one device.
            } else if let Err(other) = self.claims.claim_serial(&serial, &self.board.id) {
                if strict {
                    debug!(path = %path.display(), %serial, %other, "that board is another's");
                    continue;
                }
                warn!(%serial, %other, "this serial number is also another board's");
            }
            if named {
                self.pinned = Some(serial.clone());
            }
            // The identification traffic belongs to this board: record it
            // and feed it to the pipeline, in order.
            self.note(&format!("connected {} serial {serial}", path.display()));
            for (t, dir, bytes) in chunks {
                self.record(t, dir, &bytes);
            }
            let port = path.to_string_lossy().into_owned();
            info!(%port, %serial, "board connected");
            self.session
                .set_connected(self.clock.now_ms(), port, serial.clone());
            return Some(Link {
                stream,
                path,
                serial,
                named,
                driver,
                _claim: claim,
            });
        }
        None
    }

    /// Resets the board and reads its serial number. Returns it with the
    /// traffic so far (not yet recorded: it may be another board's).
    async fn identify(
        &self,
        stream: &mut SerialStream,
    ) -> io::Result<(String, Vec<(Millis, Direction, Vec<u8>)>)> {
        let mut chunks = Vec::new();
        let mut hello = Command::Reset.to_bytes();
        hello.extend(Command::SerialNumber.to_bytes());
        chunks.push((self.clock.now_ms(), Direction::ToBoard, hello.clone()));
        write(stream, &hello).await?;
        let deadline = Instant::now() + self.serial.handshake;
        let mut decoder = dgt::Decoder::new();
        let mut buf = BytesMut::new();
        let mut bytes = [0u8; 1024];
        loop {
            let n = tokio::time::timeout_at(deadline, stream.read(&mut bytes))
                .await
                .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "no serial number"))??;
            if n == 0 {
                return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "end of file"));
            }
            chunks.push((
                self.clock.now_ms(),
                Direction::FromBoard,
                bytes[..n].to_vec(),
            ));
            buf.extend_from_slice(&bytes[..n]);
            loop {
                match decoder.decode(&mut buf) {
                    Ok(Some(Message::SerialNumber(s) | Message::LongSerialNumber(s))) => {
                        return Ok((s.trim().to_string(), chunks));
                    }
                    Ok(Some(_)) | Err(_) => {}
                    Ok(None) => break,
                }
            }
        }
    }

    /// The board's family.
    fn family(&self) -> Family {
        self.board.protocol.family()
    }

    /// How to open the line: the family's settings at the configured speed.
    fn line(&self) -> LineSettings {
        LineSettings {
            baud: self.board.baud,
            ..crate::family::for_family(self.family(), &DriverOptions::default()).line()
        }
    }

    /// Another family's hello: writes the driver's hello and waits for the
    /// first thing the board says that the driver reads (its identity or
    /// a reading). Returns the serial number, when the board names one,
    /// the traffic so far, and the driver (for the keepalives).
    async fn identify_family(
        &self,
        stream: &mut SerialStream,
        family: Family,
    ) -> io::Result<(
        Option<String>,
        Vec<(Millis, Direction, Vec<u8>)>,
        Box<dyn Driver>,
    )> {
        let mut driver = crate::family::for_family(family, &DriverOptions::default());
        let mut chunks = Vec::new();
        let now = self.clock.now_ms();
        let hello = driver.hello(now);
        chunks.push((now, Direction::ToBoard, hello.clone()));
        if !hello.is_empty() {
            write(stream, &hello).await?;
        }
        let deadline = Instant::now() + self.serial.handshake;
        let mut bytes = [0u8; 1024];
        let mut out = Vec::new();
        let mut answered = false;
        let mut serial = None;
        loop {
            // After the first reading, a little longer for an identity
            // that may follow it.
            let until = if answered {
                deadline.min(Instant::now() + Duration::from_millis(100))
            } else {
                deadline
            };
            let n = match tokio::time::timeout_at(until, stream.read(&mut bytes)).await {
                Ok(r) => r?,
                Err(_) if answered => return Ok((serial, chunks, driver)),
                Err(_) => {
                    return Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        format!("no {family} board answered"),
                    ));
                }
            };
            if n == 0 {
                return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "end of file"));
            }
            let t = self.clock.now_ms();
            chunks.push((t, Direction::FromBoard, bytes[..n].to_vec()));
            driver.feed(t, &bytes[..n], &mut out);
            for e in out.drain(..) {
                if let DriverEvent::Reading { reading, .. } = e {
                    answered = true;
                    if let Reading::Identity(id) = reading
                        && let Some(s) = id.serial
                    {
                        serial = Some(s.trim().to_string());
                    }
                }
            }
            if serial.is_some() {
                return Ok((serial, chunks, driver));
            }
        }
    }

    /// The live loop: handshake rest, then bytes and timers until the
    /// board is lost or the daemon stops.
    async fn serve(&mut self, mut link: Link, shutdown: &mut watch::Receiver<bool>) -> Lost {
        if link.driver.is_none() {
            // With a game on, the board's memory first: it tells in which
            // order the moves made while nobody listened were played (the
            // board dump after it then agrees).
            let mut rest = Vec::new();
            if self.session.game_in_progress() {
                rest.extend(Command::EeMoves.to_bytes());
                debug!("asking for the board's memory");
            }
            rest.extend(Command::Version.to_bytes());
            rest.extend(Command::SendBoard.to_bytes());
            rest.extend(Command::SendUpdateNice.to_bytes());
            if let Err(e) = self.send(&mut link, &rest).await {
                return e;
            }
        }
        // Other families keep themselves alive at their driver's pace (a
        // status request, a `board?`); silence is judged over at least
        // three of those.
        let (poll, silence) = match &link.driver {
            None => (self.serial.poll, self.serial.silence),
            Some(d) => {
                let tick = Duration::from_millis(d.tick_ms());
                (
                    tick.min(self.serial.poll),
                    self.serial.silence.max(tick * 3),
                )
            }
        };
        let flush_every = Duration::from_millis(500);
        let mut last_rx = Instant::now();
        let mut next_poll = Instant::now() + poll;
        let mut next_flush = Instant::now() + flush_every;
        let mut eofs = 0u32;
        let mut bytes = vec![0u8; 4096];
        loop {
            let mut wake = next_poll.min(next_flush).min(last_rx + silence);
            if let Some(t) = self.session.poll_timeout() {
                wake = wake.min(self.clock.instant(t));
            }
            tokio::select! {
                r = link.stream.read(&mut bytes) => match r {
                    Ok(0) => {
                        // A hung-up tty reads as end of file; a few in a
                        // row mean the device is gone.
                        eofs += 1;
                        if eofs >= 3 {
                            return Lost::Eof;
                        }
                        tokio::time::sleep(Duration::from_millis(20)).await;
                    }
                    Ok(n) => {
                        eofs = 0;
                        last_rx = Instant::now();
                        let t = self.clock.now_ms();
                        let chunk = &bytes[..n];
                        if let Some(r) = &mut self.recorder {
                            r.record(t, Direction::FromBoard, chunk);
                        }
                        tracing::trace!(bytes = %hex(chunk), "read");
                        for serial in self.session.handle_bytes(t, Direction::FromBoard, chunk) {
                            if link.named && serial.trim() != link.serial {
                                warn!(%serial, expected = %link.serial, "the board reports another serial number");
                            }
                        }
                    }
                    Err(e) => return Lost::Read(e),
                },
                _ = tokio::time::sleep_until(wake) => {
                    let now = Instant::now();
                    self.session.advance_to(self.clock.now_ms());
                    self.apply_commands();
                    if now >= last_rx + silence {
                        return Lost::Silent(silence);
                    }
                    if now >= next_poll {
                        next_poll = now + poll;
                        let keepalive = match &mut link.driver {
                            None => Command::SerialNumber.to_bytes(),
                            // Events time alone causes (a bus unit missing)
                            // are the pipeline's driver's business.
                            Some(d) => d.poll(self.clock.now_ms(), &mut Vec::new()),
                        };
                        if !keepalive.is_empty()
                            && let Err(e) = self.send(&mut link, &keepalive).await
                        {
                            return e;
                        }
                    }
                    if now >= next_flush {
                        next_flush = now + flush_every;
                        self.flush();
                    }
                }
                _ = shutdown.changed() => return Lost::Shutdown,
            }
        }
    }

    async fn send(&mut self, link: &mut Link, bytes: &[u8]) -> Result<(), Lost> {
        let t = self.clock.now_ms();
        self.record(t, Direction::ToBoard, bytes);
        write(&mut link.stream, bytes).await.map_err(Lost::Write)?;
        debug!(path = %link.path.display(), bytes = %hex(bytes), "sent");
        Ok(())
    }

    /// Records bytes and feeds them to the pipeline.
    fn record(&mut self, t: Millis, dir: Direction, bytes: &[u8]) {
        if let Some(r) = &mut self.recorder {
            r.record(t, dir, bytes);
        }
        self.session.handle_bytes(t, dir, bytes);
    }

    /// Applies the operator corrections that have arrived.
    fn apply_commands(&mut self) {
        while let Ok(request) = self.commands.try_recv() {
            let t = self.clock.now_ms();
            self.session.handle_request(t, &request);
        }
    }

    fn note(&mut self, text: &str) {
        if let Some(r) = &mut self.recorder {
            r.note(text);
        }
    }

    fn flush(&mut self) {
        let dirty = self.session.take_pgn_dirty();
        if let Some(r) = &mut self.recorder {
            r.flush();
            if dirty {
                r.write_pgn(&self.session.all_games_pgn());
            }
        }
    }
}

impl LineTask for BoardTask {
    type Link = Link;
    const WHAT: &'static str = "board";

    async fn connect(&mut self, shutdown: &mut watch::Receiver<bool>) -> Option<Link> {
        self.find(shutdown).await
    }

    /// The device and the serial number it answered with.
    fn link_span(link: &Link) -> tracing::Span {
        info_span!("link", port = %link.path.display(), serial = %link.serial)
    }

    async fn serve(&mut self, link: Link, shutdown: &mut watch::Receiver<bool>) -> Lost {
        BoardTask::serve(self, link, shutdown).await
    }

    fn lost(&mut self, why: &Lost) {
        let t = self.clock.now_ms();
        self.session.advance_to(t);
        self.session.set_offline(t);
        self.note(&format!("disconnected: {why}"));
        self.flush();
    }

    async fn idle(&mut self, delay: Duration) {
        self.wait(delay).await
    }

    fn stop(&mut self) {
        let t = self.clock.now_ms();
        self.session.finish(t);
        self.session.set_offline(t);
        self.flush();
        if let Some(r) = &mut self.recorder {
            r.write_pgn(&self.session.all_games_pgn());
        }
    }
}
