//! One board's pure pipeline: bytes in, events out.
//!
//! the family's driver ([`crate::family::Driver`], every family, DGT
//! included) -> neutral readings -> reconstructor -> events. The live
//! daemon and `boardcast replay` both drive a [`BoardPipeline`]: the daemon
//! with wall-clock milliseconds and bytes from a serial port, replay with
//! the timestamps and bytes of a capture. Neither the pipeline nor anything
//! below it reads a clock.
//!
//! Driving order: before handling input at time `t`, fire every timer due
//! at or before `t` ([`BoardPipeline::advance_to`]); after the last input,
//! [`BoardPipeline::finish`] fires whatever is still pending.
//!
//! Every game walks it: the pipeline holds an [`AnyGame`] chosen at run
//! time (chess, draughts, xiangqi), whose arms are each the same
//! [`Reader`] of its game, handing the readings to that game's
//! reconstructor; how a game's boards are read is its [`Sensing`] hooks
//! (in [`crate::games`]). The clock, the counters and the diagnostics
//! are the pipeline's, whatever the game.

pub mod correct;
pub mod game;
mod judge;
pub mod reader;

pub use crate::games::sensing::Sensing;
pub use game::AnyGame;
pub use reader::Reader;

use std::collections::VecDeque;

use boardcast_protocols::reading::{Identity, Reading as Sensed, Snapshot};

use crate::capture::Direction;
use crate::clock::{ClockReading, ClockTracker, GameView};
use crate::event::{Alert, AlertKind, Event, EventKind, Evidence, GameId, Millis, Side};
use crate::family::{Driver, DriverEvent, DriverOptions, Family};
use crate::games::Article;
use crate::setup::BoardSetup;
use crate::track::{Config, Press};
use judge::ClockJudge;
use reader::Report;

/// Something about the byte stream worth logging (not an event).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Diagnostic {
    /// Garbage bytes were skipped before the next frame.
    Skipped {
        /// When.
        t_ms: Millis,
        /// How many bytes.
        count: usize,
    },
    /// A frame was malformed and dropped.
    BadFrame {
        /// When.
        t_ms: Millis,
        /// What the decoder said.
        reason: String,
    },
    /// An open-protocol board's `hello` names another game than the one
    /// configured: it is read as the configured game.
    OtherGame {
        /// When.
        t_ms: Millis,
        /// The game its `hello` names.
        said: String,
        /// The game it is read as.
        read_as: crate::event::GameId,
    },
    /// The board identified itself.
    Serial {
        /// When.
        t_ms: Millis,
        /// The serial number.
        serial: String,
    },
    /// An alert was cleared whose raise no daemon published (a timer that
    /// fired only when a resumed capture was finished, see
    /// [`BoardPipeline::finish_unseen`]): the clearing is not published
    /// either, but the board agrees with the game again.
    QuietClear {
        /// When.
        t_ms: Millis,
        /// The alert's kind.
        kind: AlertKind,
    },
}

/// Counters of a pipeline.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PipelineStats {
    /// Messages decoded.
    pub messages: u64,
    /// Square readings passed on to the reconstructor (a whole board
    /// counts each of its squares: 64 on a chess board, 90 in xiangqi).
    pub square_readings: u64,
    /// Garbage bytes skipped.
    pub skipped_bytes: u64,
    /// Malformed frames dropped.
    pub bad_frames: u64,
}

/// What a board said of itself and of its squares, raw: kept for the
/// board check ([`crate::readiness`]) beside the game, which never reads
/// it (the moves are read as they always were).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sightings {
    /// Who the board says it is (each field as last reported).
    pub identity: Identity,
    /// The squares as last reported, in the board's own coordinates and
    /// the family's neutral contents (a letter no piece of the game's set
    /// has included), once any square was read.
    pub contents: Option<Snapshot>,
    /// The latest input dropped, with when and why, oldest first (at most
    /// [`Sightings::DROPPED_KEPT`]).
    pub dropped: VecDeque<(Millis, String)>,
}

impl Sightings {
    /// How many dropped inputs are kept.
    pub const DROPPED_KEPT: usize = 8;

    /// A reading of this board's (`game`: the geometry of a board first
    /// read square by square).
    fn note(&mut self, reading: &Sensed, game: GameId) {
        match reading {
            Sensed::Snapshot(s) => self.contents = Some(s.clone()),
            Sensed::Square(change) => {
                self.contents
                    .get_or_insert_with(|| {
                        Snapshot::empty(crate::games::diffing::geometry_of(game))
                    })
                    .set(change.square, change.content);
            }
            Sensed::Identity(id) => {
                let fields = [
                    (&mut self.identity.serial, &id.serial),
                    (&mut self.identity.version, &id.version),
                    (&mut self.identity.name, &id.name),
                ];
                for (mine, said) in fields {
                    if let Some(said) = said {
                        *mine = Some(crate::text::board_text(said));
                    }
                }
            }
            Sensed::Clock(_) | Sensed::NoClock => {}
        }
    }

    /// Input dropped at `t` for `reason`.
    fn note_dropped(&mut self, t: Millis, reason: &str) {
        if self.dropped.len() == Self::DROPPED_KEPT {
            self.dropped.pop_front();
        }
        self.dropped.push_back((t, reason.to_owned()));
    }
}

/// One board's decoder and reconstructor.
#[derive(Debug)]
pub struct BoardPipeline {
    board: String,
    /// How the board's bytes decode: its family and driver options.
    decoding: (Family, DriverOptions),
    /// The family's driver, made when bytes are handed in
    /// ([`BoardPipeline::handle_bytes`]: `replay`, tests). Live, the
    /// line's driver decodes and hands the pipeline its events
    /// ([`BoardPipeline::handle_decoded`]): a line's bytes are decoded
    /// once, whatever its number of boards.
    decoder: Option<Box<dyn Driver>>,
    /// What the decoder made of the last bytes (kept to reuse its memory).
    driver_events: Vec<DriverEvent>,
    /// The game played, its reader and reconstructor.
    game: AnyGame,
    /// Events with the time they were published.
    events: VecDeque<(Millis, Event)>,
    diagnostics: VecDeque<Diagnostic>,
    stats: PipelineStats,
    now: Millis,
    /// The board's clock, its flags and its events.
    judge: ClockJudge,
    /// On a DGT bus: the address of this pipeline's board; readings of the
    /// other boards on the line are not its business.
    unit: Option<u16>,
    /// Events published so far (the last one's `evidence.seq`).
    published: u64,
    /// The last time the board showed the game exactly (or a game began or
    /// ended): where an alert's evidence starts.
    agreed_at: Millis,
    /// What the board said of itself and its squares, raw, for the board
    /// check.
    sightings: Sightings,
    /// The corrections' memory: the current game as published, the
    /// players fixed, the seats given.
    corrections: correct::Corrections,
    /// Alerts raised when a resumed capture was finished, which no daemon
    /// published (see [`BoardPipeline::finish_unseen`]).
    unseen: Vec<AlertKind>,
}

/// How far an alert's evidence reaches past the moment it was raised: the
/// board as the arbiter found it, and the players' first response.
pub const EVIDENCE_MARGIN_MS: Millis = 2_000;

impl BoardPipeline {
    /// The pipeline of the board `setup` declares (the configuration's or
    /// a capture header's), with the reconstructor's `config`: the one
    /// constructor every board goes through. Its family's driver is told
    /// the game played (an open-protocol board's lines are read as that
    /// game's); on a DGT bus the bytes handed in are the whole line's, and
    /// only the board at its address counts.
    pub fn new(setup: &BoardSetup, config: Config) -> BoardPipeline {
        let family = match setup.bus_unit {
            Some(_) => Family::DgtBus,
            None => setup.protocol,
        };
        // Design: clocks are judged for chess only so far (flags and the
        // virtual clock cite the FIDE Laws); a draughts or xiangqi board
        // publishes no estimated times.
        let time_control = setup
            .time_control
            .clone()
            .filter(|_| setup.game == GameId::Chess);
        BoardPipeline {
            board: setup.id.clone(),
            decoding: (family, setup.driver_options()),
            decoder: None,
            driver_events: Vec::new(),
            game: AnyGame::new(setup.game, config, setup.options),
            events: VecDeque::new(),
            diagnostics: VecDeque::new(),
            stats: PipelineStats::default(),
            now: 0,
            judge: ClockJudge::new(setup.game, time_control),
            unit: setup.bus_unit,
            published: 0,
            agreed_at: 0,
            sightings: Sightings::default(),
            corrections: correct::Corrections::default(),
            unseen: Vec::new(),
        }
    }

    /// The game the board plays.
    pub fn game(&self) -> GameId {
        self.game.id()
    }

    /// The game's reader and reconstructor, for state queries.
    pub fn any_game(&self) -> &AnyGame {
        &self.game
    }

    /// Whether a game is on (a start position was recognised).
    pub fn in_game(&self) -> bool {
        self.game.in_game()
    }

    /// Whether the board stands turned round.
    pub fn is_rotated(&self) -> bool {
        self.game.is_rotated()
    }

    /// The pieces as the sensors see them, as the board part of the
    /// game's FEN.
    pub fn sensed_placement(&self) -> String {
        self.game.sensed_placement()
    }

    /// The bus address this pipeline reads, on a DGT bus.
    pub fn bus_unit(&self) -> Option<u16> {
        self.unit
    }

    /// The operator sets the current game's result.
    pub fn set_result(&mut self, at: Millis, result: &str, reason: &str) {
        self.game.set_result(at, result, reason);
        self.drain();
    }

    /// The operator restarts the board's game.
    pub fn restart(&mut self, at: Millis) {
        self.game.restart(at);
        self.drain();
    }

    /// The operator says the board stands the other way round; returns
    /// whether it is read turned round now.
    pub fn turn_round(&mut self, at: Millis) -> bool {
        self.game.turn_round(at);
        self.drain();
        self.game.is_rotated()
    }

    /// Publishes an operator's correction as a `correction` event.
    pub fn push_correction(&mut self, at: Millis, command: &str, message: &str, by: Option<&str>) {
        self.push_unnumbered(
            at,
            EventKind::Correction {
                command: command.into(),
                message: message.into(),
                by: by.map(str::to_string),
            },
        );
    }

    /// Publishes an event made above the pipeline (an operator's result
    /// for a finished game, an arbiter's decision). Like corrections, it
    /// is not numbered with the events the readings made (a replay of the
    /// board's captures, which hold no commands, numbers those alike).
    pub fn push_event(&mut self, at: Millis, kind: EventKind) {
        self.push_unnumbered(at, kind);
    }

    fn push_unnumbered(&mut self, at: Millis, kind: EventKind) {
        self.corrections.note(&kind);
        let event = Event {
            board: self.board.clone(),
            t_ms: at,
            game: self.game.id(),
            kind,
        };
        self.events.push_back((self.now, event));
    }

    /// How many events the pipeline has published (the last one's
    /// `evidence.seq`).
    pub fn published(&self) -> u64 {
        self.published
    }

    /// Takes up a game from its record (a capture slice's header words):
    /// the game starting at `start` (a FEN of the board's game) with the
    /// moves `ids` played, the board turned round when `rotated`, and the
    /// sensors taken to show the position reached. Publishes the game's
    /// start and moves at `at`. The error names what is wrong.
    pub fn take_up(
        &mut self,
        at: Millis,
        start: &str,
        ids: &[String],
        rotated: bool,
    ) -> Result<(), String> {
        self.now = self.now.max(at);
        let taken = self.game.take_up(at, start, ids, rotated);
        self.drain();
        self.agreed_at = at;
        taken
    }

    /// Whether the decoder holds no part of a frame: the next bytes start
    /// one (a capture may be cut here).
    pub fn between_frames(&self) -> bool {
        self.decoder.as_ref().is_none_or(|d| d.pending() == 0)
    }

    /// Whether the board shows the published game exactly right now.
    pub fn shows_game(&self) -> bool {
        self.game.shows_game()
    }

    /// The clock as last read.
    pub fn clock(&self) -> &ClockTracker {
        self.judge.tracker()
    }

    /// What the board said of itself and its squares, raw (for the board
    /// check).
    pub fn sightings(&self) -> &Sightings {
        &self.sightings
    }

    /// The board id.
    pub fn board(&self) -> &str {
        &self.board
    }

    /// The chess reconstructor, on a chess board (for state queries).
    pub fn reconstructor(&self) -> Option<&crate::track::Reconstructor> {
        self.game.chess().map(|c| c.reconstructor())
    }

    /// Counters.
    pub fn stats(&self) -> PipelineStats {
        self.stats
    }

    /// When a timer is next due, if one is pending: the daemon sleeps until
    /// then (or the next bytes) and calls [`BoardPipeline::advance_to`].
    pub fn poll_timeout(&self) -> Option<Millis> {
        self.game.poll_timeout()
    }

    /// Fires every timer due at or before `t`.
    pub fn advance_to(&mut self, t: Millis) {
        while let Some(due) = self.game.poll_timeout() {
            if due > t {
                break;
            }
            self.now = self.now.max(due);
            self.game.handle_timeout(due);
            self.drain();
            self.note_agreement(due);
        }
        self.now = self.now.max(t);
    }

    /// Remembers `t` as a moment the board showed the game.
    fn note_agreement(&mut self, t: Millis) {
        if self.game.shows_game() {
            self.agreed_at = t;
        }
    }

    /// Fires every pending timer, however far ahead (end of a replay).
    pub fn finish(&mut self) {
        while let Some(due) = self.game.poll_timeout() {
            self.now = self.now.max(due);
            self.game.handle_timeout(due);
            self.drain();
        }
    }

    /// Fires every pending timer, as [`BoardPipeline::finish`] does, at
    /// the end of a capture whose session stopped there and that another
    /// session resumed. The alerts those timers raise were never
    /// published (the daemon had stopped before they were due), so when
    /// one is cleared later its clearing is not published either (a
    /// [`Diagnostic::QuietClear`] says so).
    pub fn finish_unseen(&mut self) {
        let from = self.events.len();
        self.finish();
        for (_, e) in self.events.iter().skip(from) {
            if let EventKind::Alert(a) = &e.kind {
                self.unseen.retain(|k| *k != a.kind);
                if !a.cleared {
                    self.unseen.push(a.kind);
                }
            }
        }
    }

    /// Bytes seen on the line at time `t`, decoded here with the board
    /// family's driver, made as the line task makes its own and reopened
    /// where the capture says the line was opened: how `replay` reads a
    /// capture exactly as the line read it live.
    pub fn handle_bytes(&mut self, t: Millis, dir: Direction, bytes: &[u8]) {
        self.advance_to(t);
        self.now = t;
        match dir {
            Direction::ToBoard => return,
            Direction::Operator => return self.correct_recorded(t, bytes),
            Direction::Opened => return self.decoder().reopen(),
            Direction::FromBoard => {}
        }
        let mut out = std::mem::take(&mut self.driver_events);
        self.decoder().feed(t, bytes, &mut out);
        self.take_events(t, out.drain(..));
        self.driver_events = out;
    }

    /// What the line's driver made of bytes read at `t`: live, the line
    /// task decodes once and hands every board of the line the events
    /// (each keeps its own unit's readings, see [`DriverEvent::unit`]).
    pub fn handle_decoded(&mut self, t: Millis, events: impl IntoIterator<Item = DriverEvent>) {
        self.advance_to(t);
        self.now = t;
        self.take_events(t, events);
    }

    /// The decoder of bytes handed in, made at the first.
    fn decoder(&mut self) -> &mut dyn Driver {
        let (family, options) = &self.decoding;
        self.decoder
            .get_or_insert_with(|| crate::family::for_family(*family, options))
            .as_mut()
    }

    fn take_events(&mut self, t: Millis, events: impl IntoIterator<Item = DriverEvent>) {
        for e in events {
            self.handle_driver_event(t, e);
            self.drain();
        }
        self.drain();
    }

    /// What the board's driver made of the bytes.
    fn handle_driver_event(&mut self, t: Millis, e: DriverEvent) {
        if !e.concerns(self.unit) {
            return;
        }
        match e {
            DriverEvent::Reading { reading, .. } => self.handle_reading(t, reading),
            DriverEvent::Memory { records, .. } => {
                self.stats.messages += 1;
                let report = Report {
                    stats: &mut self.stats,
                    diagnostics: &mut self.diagnostics,
                };
                self.game.recover_from_memory(t, &records, report);
            }
            DriverEvent::Skipped { bytes } => {
                self.stats.skipped_bytes += bytes as u64;
                self.diagnostics.push_back(Diagnostic::Skipped {
                    t_ms: t,
                    count: bytes,
                });
            }
            DriverEvent::Dropped { reason, bytes } => {
                self.sightings.note_dropped(t, &reason);
                self.stats.bad_frames += 1;
                self.stats.skipped_bytes += bytes as u64;
                self.diagnostics
                    .push_back(Diagnostic::BadFrame { t_ms: t, reason });
            }
            DriverEvent::OtherGame { said } => {
                self.diagnostics.push_back(Diagnostic::OtherGame {
                    t_ms: t,
                    said,
                    read_as: self.game.id(),
                });
            }
            DriverEvent::UnitMissing { .. } | DriverEvent::UnitFound { .. } => {}
        }
    }

    /// One reading of this pipeline's board.
    fn handle_reading(&mut self, t: Millis, reading: Sensed) {
        self.stats.messages += 1;
        self.sightings.note(&reading, self.game.id());
        match reading {
            Sensed::Square(_) | Sensed::Snapshot(_) => {
                let report = Report {
                    stats: &mut self.stats,
                    diagnostics: &mut self.diagnostics,
                };
                self.game.handle_reading(t, &reading, report);
                self.drain();
                self.note_agreement(t);
            }
            Sensed::Clock(reading) => self.handle_clock(t, reading),
            Sensed::NoClock => self.clock_disconnected(t),
            Sensed::Identity(id) => {
                if let Some(serial) = id.serial {
                    let serial = crate::text::board_text(&serial);
                    self.diagnostics
                        .push_back(Diagnostic::Serial { t_ms: t, serial });
                }
            }
        }
    }

    fn drain(&mut self) {
        while let Some((t_ms, kind)) = self.game.poll_event() {
            let mover = match &kind {
                EventKind::GameStart { .. } => {
                    self.judge.new_game(t_ms);
                    None
                }
                EventKind::Move { side, .. } => Some(*side),
                _ => None,
            };
            self.push(t_ms, kind);
            // No clock reports: run a virtual one from move times.
            if let Some(kind) = mover.and_then(|side| self.judge.moved(t_ms, side)) {
                self.push(t_ms, kind);
            }
        }
    }

    fn push(&mut self, t_ms: Millis, mut kind: EventKind) {
        if let EventKind::Alert(a) = &kind
            && let Some(i) = self.unseen.iter().position(|k| *k == a.kind)
        {
            self.unseen.remove(i);
            if a.cleared {
                self.diagnostics
                    .push_back(Diagnostic::QuietClear { t_ms, kind: a.kind });
                return;
            }
        }
        self.published += 1;
        match &mut kind {
            EventKind::Alert(a) => {
                a.evidence = Some(Evidence {
                    seq: self.published,
                    from_t_ms: self.agreed_at.min(t_ms),
                    to_t_ms: self.now.max(t_ms) + EVIDENCE_MARGIN_MS,
                });
            }
            EventKind::GameStart { .. } | EventKind::GameEnd { .. } => {
                self.agreed_at = self.agreed_at.max(t_ms);
            }
            _ => {}
        }
        self.corrections.note(&kind);
        let event = Event {
            board: self.board.clone(),
            t_ms,
            game: self.game.id(),
            kind,
        };
        self.events.push_back((self.now, event));
    }

    /// A clock message: presses complete moves (Law 6.2a), flags are judged
    /// (Laws 6.4, 6.9), times are published.
    fn handle_clock(&mut self, t: Millis, reading: ClockReading) {
        let (plies, last_mover) = self.game.last_mover();
        let last_mover = last_mover.map(|s| self.judge.seat(s));
        let update = self.judge.read(t, reading, GameView { plies, last_mover });
        if let Some((_, Some(seat))) = update.press {
            self.clock_pressed(t, seat);
        }
        if let Some(kind) = self.judge.reading_event(reading, &update) {
            self.push(t, kind);
        }
        if let Some(seat) = update.flag {
            let side = self.judge.side_of_seat(seat);
            let facts = self.game.flag_facts(side);
            let article = self.game.article(Article::LostOnTime);
            let alert = self.judge.flag_alert(seat, facts, article);
            self.push(t, EventKind::Alert(alert));
        }
    }

    /// The board says no clock is connected: published once.
    fn clock_disconnected(&mut self, t: Millis) {
        if let Some(kind) = self.judge.disconnected() {
            self.push(t, kind);
        }
    }

    /// The player in `seat` pressed the clock: the move on the board is
    /// complete; a press with no move is an alert (Law 6.2a, xiangqi Art.
    /// 21).
    fn clock_pressed(&mut self, t: Millis, seat: Side) {
        let side = self.judge.side_of_seat(seat);
        let press = self.game.handle_clock_press(t, side);
        self.drain();
        if press == Press::NoMove {
            let article = self.game.article(Article::ClockPress);
            let cited = article
                .as_ref()
                .map(|(_, cite)| format!(" ({cite})"))
                .unwrap_or_default();
            self.push(
                t,
                EventKind::Alert(Alert {
                    kind: AlertKind::ClockPress,
                    side: Some(side),
                    law: article.map(|(n, _)| n.to_owned()),
                    message: format!(
                        "{} pressed the clock with no move on the board{cited}.",
                        side.name()
                    ),
                    cleared: false,
                    evidence: None,
                }),
            );
        }
    }

    /// The next event.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front().map(|(_, e)| e)
    }

    /// The next event with the time it was published (the input or timer
    /// time that produced it; later than `t_ms` when a move had to settle).
    pub fn poll_published(&mut self) -> Option<(Millis, Event)> {
        self.events.pop_front()
    }

    /// The next diagnostic.
    pub fn poll_diagnostic(&mut self) -> Option<Diagnostic> {
        self.diagnostics.pop_front()
    }

    /// The pipeline's notion of now: the latest input or timer time.
    pub fn now(&self) -> Millis {
        self.now
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The draughts start position as a `board` line: ranks 8 down to 1,
    /// men on the dark squares (a1 dark), the first player's (`M`) on
    /// ranks 1-3.
    fn draughts_start() -> String {
        let mut cells = String::new();
        for rank in (0..8).rev() {
            for file in 0..8 {
                let dark = (file + rank) % 2 == 0;
                cells.push(match (dark, rank) {
                    (true, 0..=2) => 'M',
                    (true, 5..=7) => 'm',
                    _ => '.',
                });
            }
        }
        format!("board {cells}\n")
    }

    #[test]
    fn a_hello_naming_another_game_is_reported_and_the_board_read_as_configured() {
        let setup = BoardSetup::new("d", Family::Open, GameId::Draughts);
        let mut p = BoardPipeline::new(&setup, Config::default());
        p.handle_bytes(0, Direction::ToBoard, b"?\nboard?\n");
        p.handle_bytes(5, Direction::FromBoard, b"hello xiangqi 9x10 id=Q-1\n");
        p.handle_bytes(9, Direction::FromBoard, draughts_start().as_bytes());
        p.finish();
        let diagnostics: Vec<Diagnostic> = std::iter::from_fn(|| p.poll_diagnostic()).collect();
        assert!(
            matches!(&diagnostics[0], Diagnostic::OtherGame { said, read_as: GameId::Draughts, .. } if said == "xiangqi"),
            "{diagnostics:?}"
        );
        assert!(
            matches!(&diagnostics[1], Diagnostic::Serial { serial, .. } if serial == "Q-1"),
            "{diagnostics:?}"
        );
        assert_eq!(p.stats().bad_frames, 0, "the 64-cell board line is read");
        let events: Vec<Event> = std::iter::from_fn(|| p.poll_event()).collect();
        assert!(
            events.iter().any(
                |e| e.game == GameId::Draughts && matches!(e.kind, EventKind::GameStart { .. })
            ),
            "{events:?}"
        );
        assert!(p.in_game() && p.any_game().chess().is_none());
    }
    #[test]
    fn a_certabo_board_read_as_occupancy_before_calibration_loses_nothing_after_it() {
        use boardcast_protocols::certabo::{CardId, Frame};
        // Certabo cards, a8 first: 32 distinct cards on the start squares.
        let start = || {
            let mut ids = Box::new([CardId::default(); 64]);
            for i in (0..16).chain(48..64) {
                ids[i] = CardId([i as u8 + 1, 7, 7, 7, 7]);
            }
            ids
        };
        let setup = BoardSetup::new("c", Family::Certabo, GameId::Chess);
        let mut p = BoardPipeline::new(&setup, Config::default());
        // Not yet the start position (a8 missing): not calibrated, so the
        // frame reads as occupancy only.
        let mut partial = start();
        partial[0] = CardId::default();
        p.handle_bytes(0, Direction::FromBoard, &Frame::Rfid(partial).to_bytes());
        // The start position: calibrated; then 1. e4 (e2 is index 52, e4
        // index 36, a8 first).
        p.handle_bytes(
            1_000,
            Direction::FromBoard,
            &Frame::Rfid(start()).to_bytes(),
        );
        let mut e4 = start();
        e4[36] = e4[52];
        e4[52] = CardId::default();
        p.handle_bytes(2_000, Direction::FromBoard, &Frame::Rfid(e4).to_bytes());
        p.advance_to(5_000);
        let moves: Vec<String> = std::iter::from_fn(|| p.poll_event())
            .filter_map(|e| match e.kind {
                EventKind::Move { notation, .. } => Some(notation),
                _ => None,
            })
            .collect();
        assert_eq!(moves, ["e4"]);
    }
}
