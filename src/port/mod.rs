//! Serial I/O: one task per line ([`PortTask`]) over the line's family
//! driver ([`crate::family::Driver`]), whatever the family: it finds its
//! device, opens it, talks the driver's hello, feeds the boards' pipelines
//! with daemon time, records every byte, and comes back after the line is
//! unplugged. A board on its own line is a line with one unit (0); the
//! boards of a DGT bus are the units of one line, told apart by address
//! (see [`bus`]).
//!
//! # One line's life
//!
//! 1. **Find.** The line's candidate paths ([`find::candidates`]) are tried
//!    in order; a device another task holds is skipped.
//! 2. **Open and identify.** The driver's line settings at the configured
//!    speed, then its hello. A family whose board must name itself first
//!    (DGT: `reset` 0x40 and `serial number` 0x45, see
//!    [`Driver::identify_first`](crate::family::Driver::identify_first))
//!    must report its serial number within `serial.handshake_ms`; other
//!    families are taken once the driver reads anything from them (and
//!    their identity, if one follows within 100 ms); a bus once a
//!    configured unit answers the ping. A board with a configured
//!    `serial`, or whose port is a pattern or a list, must report its own
//!    serial number (the first one seen is kept for the session when none
//!    is configured); otherwise the next candidate is tried. On one fixed
//!    path a different board is accepted with a warning: the operator
//!    chose the path.
//! 3. **Live.** With a game on (after an unplug, or a resumed game), the
//!    board's memory first ([`Driver::request_memory_of`](crate::family::Driver::request_memory_of),
//!    DGT 0x49; on a bus the driver asks at the unit's turn): its log of
//!    piece changes tells in which order the moves made while nobody
//!    listened were played. Then the rest of the hello (DGT: `version`
//!    0x4d, `board dump` 0x42 and update mode `SendUpdateNice` 0x4b: field
//!    updates as they happen, clock messages only when the clock changes;
//!    the fresh dump lets the reconstructor explain moves made while the
//!    board was away). The driver is polled for its keepalives (DGT: the
//!    serial number every `serial.poll_ms`, as other DGT drivers do;
//!    others at their own pace) and the bus polling; a board that stays
//!    silent for `serial.silence_ms` (at least three keepalives) is taken
//!    for gone.
//! 4. **Lost.** A read or write error, an end of file repeating, or
//!    silence: the boards are published `offline`, the device released,
//!    and the task tries again after a capped exponential backoff.
//!
//! The pipelines and the games survive all of this ([`Session`]).
//! Bytes are read in a plain loop rather than through a `tokio_util` codec:
//! the recorder needs the raw bytes, and the line's driver, which decodes
//! them once for every board of the line, keeps its own buffer, so a
//! codec would only add a copy. The driver lives as long as the task,
//! across unplugs: it keeps what it learnt of the board (a Certabo's
//! calibration, a Millennium's square order), and each connection reopens
//! its decoder, marked in the captures (`# opened`) for `replay`.
//!
//! A line task never waits for the broker (see [`crate::mqtt`]), and
//! nothing one line does can stop another: each has its own task, device,
//! pipelines and queues.

pub mod bus;
pub mod config;
pub mod find;
mod line;
pub mod memory;
pub mod recorder;
mod task;
pub mod usb;

use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use crate::capture::Direction;
use crate::control::OperatorCommand;
use crate::event::Millis;
use crate::family::DriverEvent;
use crate::session::Session;
use find::Claims;
use recorder::Recorder;

pub use task::PortTask;

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

    /// The session time of `instant` (not before the clock started).
    pub fn at(&self, instant: Instant) -> Millis {
        self.offset + instant.saturating_duration_since(self.start).as_millis() as Millis
    }

    /// The instant of a session time.
    pub fn instant(&self, t: Millis) -> Instant {
        self.start + Duration::from_millis(t.saturating_sub(self.offset))
    }
}

/// One board's part of a line task: its configuration, clock, session,
/// capture and operator commands. A line task ([`PortTask`]) holds one
/// (a board on its own line) or several (the units of a DGT bus).
#[derive(Debug)]
pub struct BoardTask {
    /// The board's configuration.
    pub board: crate::setup::config::Board,
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
}

impl BoardTask {
    /// The part of `board` (line settings `serial`), driving `session` with
    /// `clock`, recording with `recorder`, taking operator `commands`.
    pub fn new(
        board: crate::setup::config::Board,
        serial: config::Serial,
        clock: Clock,
        claims: Arc<Claims>,
        session: Session,
        recorder: Option<Recorder>,
        commands: tokio::sync::mpsc::Receiver<crate::control::Request>,
    ) -> BoardTask {
        BoardTask {
            board,
            serial,
            clock,
            claims,
            session,
            recorder,
            commands,
        }
    }

    /// Takes bytes written to the line: recorded in the capture; the
    /// pipeline's time goes on.
    fn take_bytes(&mut self, t: Millis, dir: Direction, bytes: &[u8]) {
        if let Some(r) = &mut self.recorder {
            r.record(t, dir, bytes);
        }
        self.session.handle_bytes(t, dir, bytes);
    }

    /// Takes bytes read from the line and what the line's driver read in
    /// them: the bytes recorded in the capture, the events of this board
    /// (its own unit's on a bus, and the line's) to the pipeline.
    fn read(&mut self, t: Millis, bytes: &[u8], events: &[DriverEvent]) {
        if let Some(r) = &mut self.recorder {
            r.record(t, Direction::FromBoard, bytes);
        }
        let unit = self.board.bus_address;
        let mine = events.iter().filter(|e| e.concerns(unit)).cloned();
        self.session.handle_decoded(t, mine);
    }

    /// The line's driver starts afresh at `t` (a connection, the board
    /// read whole again): marked in the capture, where `replay` reopens
    /// its decoder.
    fn opened(&mut self, t: Millis) {
        if let Some(r) = &mut self.recorder {
            r.record(t, Direction::Opened, &[]);
        }
    }

    /// Fires the pipeline's due timers.
    fn advance(&mut self) {
        self.session.advance_to(self.clock.now_ms());
    }

    /// Applies an operator command the moment it arrives (the line task
    /// waits for commands beside its bytes and timers).
    fn apply(&mut self, request: &mut crate::control::Request) {
        let t = self.clock.now_ms();
        self.session.advance_to(t);
        let outcome = self.session.handle_request(t, request);
        // A correction that took effect goes into the capture, where a
        // resume and `boardcast replay` find it (decisions have their
        // own journal).
        let correction = !matches!(request.command, OperatorCommand::Decide { .. });
        if outcome.changed
            && correction
            && let Some(r) = &mut self.recorder
        {
            let json = crate::pipeline::correct::recorded(&request.command, request.by.as_deref());
            r.record(t, Direction::Operator, &json);
            r.flush();
        }
    }

    /// The board is no longer heard (`note` in its capture): pending moves
    /// published, the board `offline`, the capture flushed.
    fn offline(&mut self, note: &str) {
        let t = self.clock.now_ms();
        self.session.advance_to(t);
        self.session.set_offline(t);
        self.note(note);
        self.flush();
    }

    /// The daemon stops: the game finished as far as it goes, the board
    /// `offline`, capture and PGN written.
    fn stop(&mut self) {
        let t = self.clock.now_ms();
        self.session.finish(t);
        self.session.set_offline(t);
        self.flush();
        if let Some(r) = &mut self.recorder {
            r.write_pgn(&self.session.all_games_pgn());
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

    /// Whether the capture resumed after a gap since the last call (see
    /// [`Recorder::take_resumed`]): the board is to be read whole again.
    fn recording_resumed(&mut self) -> bool {
        self.recorder.as_mut().is_some_and(Recorder::take_resumed)
    }
}
