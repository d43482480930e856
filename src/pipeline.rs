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
//! A draughts or xiangqi board (open protocol) is read by an
//! [`open::OpenPipeline`] inside the same [`BoardPipeline`], so the
//! session, the recorder and the sinks above it are the chess boards'.

pub mod open;

use std::collections::VecDeque;

use boardcast_protocols::reading::{
    Content, MemoryRecord, Reading as Sensed, Snapshot, Square as At, SquareChange,
};

use crate::board::{Cell, Config, Press, Reconstructor};
use crate::capture::Direction;
use crate::clock::{ClockTracker, GameView, Reading, TimeControl, VirtualClock, flag_message};
use crate::event::{Alert, AlertKind, Event, EventKind, Millis, Side};
use crate::family::{Driver, DriverEvent, DriverOptions, Family};
use crate::games::chess::laws::Law;
use crate::games::chess::sensors;
use crate::games::chess::{Color, Role};

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
}

/// Counters of a pipeline.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PipelineStats {
    /// Messages decoded.
    pub messages: u64,
    /// Square readings passed on (a board dump counts 64).
    pub square_readings: u64,
    /// Garbage bytes skipped.
    pub skipped_bytes: u64,
    /// Malformed frames dropped.
    pub bad_frames: u64,
}

/// One board's decoder and reconstructor.
#[derive(Debug)]
pub struct BoardPipeline {
    board: String,
    /// The board family's driver: bytes in, readings out.
    driver: Box<dyn Driver>,
    /// What the driver made of the last bytes (kept to reuse its memory).
    driver_events: Vec<DriverEvent>,
    recon: Reconstructor,
    /// Follows the pieces of a board that senses occupancy only; made when
    /// the first reading without piece identity comes.
    occupancy: Option<crate::games::chess::occupancy::OccupancyTracker>,
    /// Events with the time they were published.
    events: VecDeque<(Millis, Event)>,
    diagnostics: VecDeque<Diagnostic>,
    stats: PipelineStats,
    now: Millis,
    clock: ClockTracker,
    time_control: Option<TimeControl>,
    virtual_clock: Option<VirtualClock>,
    /// Milliseconds each side's clock has run (White, Black), and when the
    /// last reading came.
    elapsed: [Millis; 2],
    last_clock_at: Option<Millis>,
    /// An `unrecognised` alert is open (see [`AlertKind::Unrecognised`]).
    unrecognised: bool,
    /// On a DGT bus: the address of this pipeline's board; readings of the
    /// other boards on the line are not its business.
    unit: Option<u16>,
    /// The squares as last read, in the board's own orientation (to find
    /// where a board's memory log takes up).
    sensed: [Cell; 64],
    /// A board of another game than chess (open protocol): it reads the
    /// bytes instead of the chess path above.
    open: Option<Box<open::OpenPipeline>>,
}

impl BoardPipeline {
    /// A pipeline for board `board`.
    pub fn new(board: impl Into<String>, config: Config) -> BoardPipeline {
        BoardPipeline {
            board: board.into(),
            driver: crate::family::for_family(Family::Dgt, &DriverOptions::default()),
            driver_events: Vec::new(),
            recon: Reconstructor::new(config),
            occupancy: None,
            events: VecDeque::new(),
            diagnostics: VecDeque::new(),
            stats: PipelineStats::default(),
            now: 0,
            clock: ClockTracker::new(),
            time_control: None,
            virtual_clock: None,
            elapsed: [0; 2],
            last_clock_at: None,
            unrecognised: false,
            unit: None,
            sensed: [Cell::Empty; 64],
            open: None,
        }
    }

    /// A pipeline for board `board` playing `game` on the open protocol:
    /// a draughts or xiangqi board goes through the generic reconstructor
    /// ([`open::OpenPipeline`]), a chess board through the chess path.
    /// `move_limit` is the event's for xiangqi (`None`: the default).
    pub fn with_open_game(
        board: impl Into<String>,
        config: Config,
        game: crate::event::GameId,
        move_limit: Option<boardcast_games::xiangqi::repetition::MoveLimit>,
    ) -> BoardPipeline {
        use crate::board::open::AnyOpenBoard;
        use crate::event::GameId;
        let board = board.into();
        let open = match game {
            GameId::Xiangqi => {
                let rules = crate::games::xiangqi::Xiangqi {
                    limit: move_limit.unwrap_or_default(),
                };
                Some(AnyOpenBoard::xiangqi(board.clone(), config, rules))
            }
            _ => AnyOpenBoard::new(board.clone(), config, game),
        }
        .map(|b| Box::new(open::OpenPipeline::for_board(b)));
        let mut p = BoardPipeline::with_family(board, config, crate::family::Family::Open);
        p.open = open;
        p
    }

    /// The game the board plays.
    pub fn game(&self) -> crate::event::GameId {
        self.open
            .as_ref()
            .map_or(crate::event::GameId::Chess, |o| o.game())
    }

    /// The pipeline of a board of another game than chess, if this is one.
    pub fn open_game(&self) -> Option<&open::OpenPipeline> {
        self.open.as_deref()
    }

    /// Whether a game is on (a start position was recognised).
    pub fn in_game(&self) -> bool {
        match &self.open {
            Some(o) => o.board().in_game(),
            None => self.recon.game().is_some(),
        }
    }

    /// Whether the board stands turned round.
    pub fn is_rotated(&self) -> bool {
        match &self.open {
            Some(o) => o.board().is_rotated(),
            None => self.recon.is_rotated(),
        }
    }

    /// The pieces as the sensors see them, as the board part of the
    /// game's FEN.
    pub fn sensed_placement(&self) -> String {
        match &self.open {
            Some(o) => o.board().sensed_placement(),
            None => self.recon.sensed_placement(),
        }
    }

    /// Events and diagnostics of the open-protocol pipeline, moved out.
    fn drain_open(&mut self) {
        let Some(o) = &mut self.open else { return };
        while let Some(e) = o.poll_event() {
            self.events.push_back((self.now, e));
        }
        while let Some(d) = o.poll_diagnostic() {
            self.diagnostics.push_back(d);
        }
    }

    /// A pipeline for board `board` reading a board of `family` (a chess
    /// board: DGT, Millennium, Certabo, or one on the open protocol that
    /// identifies pieces).
    pub fn with_family(
        board: impl Into<String>,
        config: Config,
        family: crate::family::Family,
    ) -> BoardPipeline {
        let mut p = BoardPipeline::new(board, config);
        p.set_family(family);
        p
    }

    /// Reads a board of `family` from now on (before any byte: a driver's
    /// state starts afresh). DGT is the default.
    pub fn set_family(&mut self, family: Family) {
        self.unit = None;
        self.driver = crate::family::for_family(family, &DriverOptions::default());
    }

    /// Reads the board at `address` of a DGT bus from now on (before any
    /// byte): the bytes handed in are the whole line's, and only that
    /// board's replies count.
    pub fn set_bus_unit(&mut self, address: u16) {
        self.set_family(crate::family::Family::DgtBus);
        self.unit = Some(address);
    }

    /// The bus address this pipeline reads, on a DGT bus.
    pub fn bus_unit(&self) -> Option<u16> {
        self.unit
    }

    /// Sets the time control of the board's games: flags are then judged
    /// (Laws 6.4, 6.9), and without a physical clock the times are
    /// estimated from move times.
    pub fn set_time_control(&mut self, tc: Option<TimeControl>) {
        self.time_control = tc;
    }

    /// Starts a game from a known position (see
    /// [`Reconstructor::start_from`]).
    pub fn start_from(
        &mut self,
        at: Millis,
        position: crate::games::chess::Position,
        rotated: bool,
    ) {
        self.recon.start_from(at, position, rotated);
        self.drain();
    }

    /// The operator sets the current game's result.
    pub fn set_result(&mut self, at: Millis, result: &str, reason: &str) {
        if let Some(o) = &mut self.open {
            o.set_result(at, result, reason);
            return self.drain_open();
        }
        self.recon.set_result(at, result, reason);
        self.drain();
    }

    /// The operator restarts the board's game.
    pub fn restart(&mut self, at: Millis) {
        if let Some(o) = &mut self.open {
            o.restart(at);
            return self.drain_open();
        }
        self.recon.restart(at);
        self.drain();
    }

    /// Publishes an operator's correction as a `correction` event.
    pub fn push_correction(&mut self, at: Millis, command: &str, message: &str) {
        self.push(
            at,
            EventKind::Correction {
                command: command.into(),
                message: message.into(),
            },
        );
    }

    /// The clock as last read.
    pub fn clock(&self) -> &ClockTracker {
        &self.clock
    }

    /// The board id.
    pub fn board(&self) -> &str {
        &self.board
    }

    /// The reconstructor, for state queries.
    pub fn reconstructor(&self) -> &Reconstructor {
        &self.recon
    }

    /// Counters.
    pub fn stats(&self) -> PipelineStats {
        self.stats
    }

    /// When a timer is next due, if one is pending: the daemon sleeps until
    /// then (or the next bytes) and calls [`BoardPipeline::advance_to`].
    pub fn poll_timeout(&self) -> Option<Millis> {
        match &self.open {
            Some(o) => o.poll_timeout(),
            None => self.recon.poll_timeout(),
        }
    }

    /// Fires every timer due at or before `t`.
    pub fn advance_to(&mut self, t: Millis) {
        if let Some(o) = &mut self.open {
            self.now = self.now.max(t);
            o.advance_to(t);
            return self.drain_open();
        }
        while let Some(due) = self.recon.poll_timeout() {
            if due > t {
                break;
            }
            self.now = self.now.max(due);
            self.recon.handle_timeout(due);
            self.drain();
        }
        self.now = self.now.max(t);
    }

    /// Fires every pending timer, however far ahead (end of a replay).
    pub fn finish(&mut self) {
        if let Some(o) = &mut self.open {
            o.finish();
            if let Some(due) = o.poll_timeout() {
                self.now = self.now.max(due);
            }
            return self.drain_open();
        }
        while let Some(due) = self.recon.poll_timeout() {
            self.now = self.now.max(due);
            self.recon.handle_timeout(due);
            self.drain();
        }
    }

    /// Bytes seen on the line at time `t`.
    pub fn handle_bytes(&mut self, t: Millis, dir: Direction, bytes: &[u8]) {
        self.advance_to(t);
        self.now = t;
        if let Some(o) = &mut self.open {
            o.handle_bytes(t, dir, bytes);
            return self.drain_open();
        }
        if dir == Direction::ToBoard {
            return;
        }
        let mut out = std::mem::take(&mut self.driver_events);
        self.driver.feed(t, bytes, &mut out);
        for e in out.drain(..) {
            self.handle_driver_event(t, e);
            self.drain();
        }
        self.driver_events = out;
        self.drain();
    }

    /// What the board's driver made of the bytes.
    fn handle_driver_event(&mut self, t: Millis, e: DriverEvent) {
        match e {
            DriverEvent::Reading { unit, .. } if self.unit.is_some_and(|u| u != unit) => {}
            DriverEvent::Reading { reading, .. } => self.handle_reading(t, reading),
            DriverEvent::Memory { unit, records } if self.unit.is_none_or(|u| u == unit) => {
                self.stats.messages += 1;
                self.recover_from_memory(t, &records);
            }
            DriverEvent::Skipped { bytes } => {
                self.stats.skipped_bytes += bytes as u64;
                self.diagnostics.push_back(Diagnostic::Skipped {
                    t_ms: t,
                    count: bytes,
                });
            }
            DriverEvent::Dropped { reason, bytes } => {
                self.stats.bad_frames += 1;
                self.stats.skipped_bytes += bytes as u64;
                self.diagnostics
                    .push_back(Diagnostic::BadFrame { t_ms: t, reason });
            }
            DriverEvent::Memory { .. }
            | DriverEvent::UnitMissing { .. }
            | DriverEvent::UnitFound { .. } => {}
        }
    }

    /// One reading of this pipeline's board.
    fn handle_reading(&mut self, t: Millis, reading: Sensed) {
        self.stats.messages += 1;
        match reading {
            Sensed::Square(change) => self.handle_square_reading(t, change),
            Sensed::Snapshot(snapshot) => self.handle_snapshot(t, &snapshot),
            Sensed::Clock(reading) => self.handle_clock(t, reading),
            Sensed::NoClock => self.clock_disconnected(t),
            Sensed::Identity(id) => {
                if let Some(serial) = id.serial {
                    self.diagnostics
                        .push_back(Diagnostic::Serial { t_ms: t, serial });
                }
            }
        }
    }

    /// One square's new content: a piece named goes to the reconstructor;
    /// on a board that senses occupancy only, the tracker names it.
    fn handle_square_reading(&mut self, t: Millis, change: SquareChange) {
        let Some(sq) = sensors::square(change.square) else {
            return;
        };
        match change.content {
            // A board that names a piece needs no tracking (a Certabo board
            // once calibrated).
            Content::Piece(_) => self.occupancy = None,
            Content::Occupied if self.occupancy.is_none() => {
                self.occupancy = Some(Default::default());
            }
            _ => {}
        }
        if let Some(tracker) = &mut self.occupancy
            && matches!(change.content, Content::Empty | Content::Occupied)
        {
            // An occupancy board: the tracker names the piece (nothing
            // before a start position was seen).
            let occupied = change.content == Content::Occupied;
            let turn = self.recon.game().map(|g| g.position().turn());
            let cell = tracker.square(t, sq, occupied, turn);
            for (other, c) in tracker.take_changes() {
                self.recon.handle_square(t, other, c);
            }
            if let Some(cell) = cell {
                self.stats.square_readings += 1;
                self.recon.handle_square(t, sq, cell);
            }
            return;
        }
        match sensors::cell(change.content) {
            Some(cell) => {
                self.stats.square_readings += 1;
                self.sensed[sq as usize] = cell;
                self.recon.handle_square(t, sq, cell);
            }
            None => self.unidentified(t),
        }
    }

    /// A whole board: pieces named go to the reconstructor; a board that
    /// senses occupancy only goes through the tracker.
    fn handle_snapshot(&mut self, t: Millis, snapshot: &Snapshot) {
        let cell_at = |i: usize| snapshot.get(At::new((i % 8) as u8, (i / 8) as u8));
        let (mut occupied_seen, mut pieces_seen) = (false, false);
        for c in (0..64).map(cell_at) {
            occupied_seen |= c == Some(Content::Occupied);
            pieces_seen |= matches!(c, Some(Content::Piece(_)));
        }
        if pieces_seen {
            // Pieces named: no tracking (unknown cards among them are
            // unidentified, below).
            self.occupancy = None;
        } else if occupied_seen || self.occupancy.is_some() {
            return self.occupancy_snapshot(t, snapshot);
        }
        let mut cells = [Cell::Empty; 64];
        for (i, cell) in cells.iter_mut().enumerate() {
            match sensors::cell(cell_at(i).unwrap_or(Content::Empty)) {
                Some(c) => *cell = c,
                None => return self.unidentified(t),
            }
        }
        self.stats.square_readings += 64;
        self.sensed = cells;
        self.recon.handle_board(t, &cells);
        self.drain();
        self.check_unrecognised(t, &cells);
    }

    /// A whole board read by occupancy only: the tracker names the pieces.
    fn occupancy_snapshot(&mut self, t: Millis, snapshot: &Snapshot) {
        let mut occupied = crate::games::chess::Bitboard::EMPTY;
        for i in 0..64u32 {
            let at = At::new((i % 8) as u8, (i / 8) as u8);
            if matches!(
                snapshot.get(at),
                Some(Content::Occupied | Content::Piece(_))
            ) {
                occupied.add(crate::games::chess::Square::new(i));
            }
        }
        let tracker = self.occupancy.get_or_insert_with(Default::default);
        if let Some(cells) = tracker.board(t, occupied) {
            self.stats.square_readings += 64;
            self.recon.handle_board(t, &cells);
        }
    }

    /// A reading without piece identity: the chess reconstructor needs to
    /// know the pieces (occupancy-only chess boards are not read yet).
    fn unidentified(&mut self, t: Millis) {
        self.stats.bad_frames += 1;
        self.diagnostics.push_back(Diagnostic::BadFrame {
            t_ms: t,
            reason: "a reading without piece identity: chess boards must identify pieces".into(),
        });
    }

    /// The board's memory (its EEPROM move log, oldest first): the piece
    /// changes it logged after it last stood as this pipeline last read it
    /// are fed in order, at `t`, so the reconstructor explains the moves
    /// made while nobody listened one by one, in their order (a whole-board
    /// read alone shows where the pieces went, not in which order, and
    /// only a few plies deep). Nothing is done without a game on, or when
    /// the log never shows the board as last read (overwritten, another
    /// game): the board dump that follows is explained as usual.
    fn recover_from_memory(&mut self, t: Millis, records: &[MemoryRecord]) {
        if self.recon.game().is_none() {
            return;
        }
        let Some(changes) = sensors::memory_since(records, &self.sensed) else {
            return;
        };
        tracing::debug!(
            changes = changes.len(),
            "board memory: changes made while away"
        );
        for (sq, cell) in changes {
            self.stats.square_readings += 1;
            self.sensed[sq as usize] = cell;
            self.recon.handle_square(t, sq, cell);
        }
    }

    /// A whole board read with no game known and no set-up being judged:
    /// a position in play (both kings and more) that nobody can explain
    /// raises [`AlertKind::Unrecognised`] once, rather than staying silent.
    fn check_unrecognised(&mut self, t: Millis, cells: &[Cell; 64]) {
        if self.unrecognised || self.recon.game().is_some() || self.recon.poll_timeout().is_some() {
            return;
        }
        let king = |color| {
            cells
                .iter()
                .any(|c| matches!(c, Cell::Piece(p) if p.role == Role::King && p.color == color))
        };
        let pieces = cells.iter().filter(|c| matches!(c, Cell::Piece(_))).count();
        if !(king(Color::White) && king(Color::Black)) || pieces < 3 {
            return;
        }
        self.unrecognised = true;
        self.push(
            t,
            EventKind::Alert(Alert {
                kind: AlertKind::Unrecognised,
                side: None,
                law: None,
                message: format!(
                    "The board shows a position in play ({pieces} pieces) but no game is known on it: \
                     its moves are not being published (a game begun before boardcast started, with no \
                     capture to resume it from). Restore the game or set up the start position."
                ),
                cleared: false,
            }),
        );
    }

    fn drain(&mut self) {
        while let Some((t_ms, kind)) = self.recon.poll_event() {
            let virtual_move = match &kind {
                EventKind::GameStart { .. } => {
                    if std::mem::take(&mut self.unrecognised) {
                        self.push(
                            t_ms,
                            EventKind::Alert(Alert {
                                kind: AlertKind::Unrecognised,
                                side: None,
                                law: None,
                                message: "A game has started on the board; the unrecognised-position report is withdrawn.".into(),
                                cleared: true,
                            }),
                        );
                    }
                    self.clock.new_game();
                    self.elapsed = [0; 2];
                    self.virtual_clock = self.time_control.clone().map(VirtualClock::new);
                    if let Some(v) = &mut self.virtual_clock {
                        v.start(t_ms);
                    }
                    None
                }
                EventKind::Move { side, .. } => Some(*side),
                _ => None,
            };
            self.push(t_ms, kind);
            // No clock reports: run a virtual one from move times.
            if let (Some(side), Some(v)) = (virtual_move, &mut self.virtual_clock)
                && self.clock.connected() != Some(true)
            {
                v.handle_move(t_ms, side);
                let (white, black) = (v.seconds(Side::White), v.seconds(Side::Black));
                self.push(
                    t_ms,
                    EventKind::Clock {
                        white: Some(white),
                        black: Some(black),
                        left: None,
                        right: None,
                        running: Some(side.other()),
                        pressed: Some(side),
                        connected: false,
                        battery_low: false,
                        estimated: true,
                    },
                );
            }
        }
    }

    fn push(&mut self, t_ms: Millis, kind: EventKind) {
        let event = Event {
            board: self.board.clone(),
            t_ms,
            game: self.game(),
            kind,
        };
        self.events.push_back((self.now, event));
    }

    /// A clock message: presses complete moves (Law 6.2a), flags are judged
    /// (Laws 6.4, 6.9), times are published.
    fn handle_clock(&mut self, t: Millis, reading: Reading) {
        self.run_clock_to(t);
        let (plies, last_mover) = self.recon.last_mover();
        let update = self
            .clock
            .handle(t, reading, GameView { plies, last_mover });
        if let Some((_, Some(side))) = update.press {
            self.clock_pressed(t, side);
        }
        if update.publish {
            let kind = EventKind::Clock {
                white: self.clock.seconds(Side::White),
                black: self.clock.seconds(Side::Black),
                left: Some(reading.left),
                right: Some(reading.right),
                running: reading.running.and_then(|f| self.clock.side_of(f)),
                pressed: update.press.and_then(|(_, s)| s),
                connected: true,
                battery_low: reading.battery_low,
                estimated: false,
            };
            self.push(t, kind);
        }
        if let Some(side) = update.flag {
            self.push(t, EventKind::Alert(self.flag_alert(side)));
        }
    }

    /// The board says no clock is connected: published once.
    fn clock_disconnected(&mut self, t: Millis) {
        if self.clock.handle_disconnected() {
            self.push(
                t,
                EventKind::Clock {
                    white: None,
                    black: None,
                    left: None,
                    right: None,
                    running: None,
                    pressed: None,
                    connected: false,
                    battery_low: false,
                    estimated: false,
                },
            );
        }
    }

    /// Adds the time since the last clock reading to the side whose clock
    /// ran, for judging flags.
    fn run_clock_to(&mut self, t: Millis) {
        if let (Some(last), Some(face)) = (
            self.last_clock_at,
            self.clock.last().and_then(|r| r.running),
        ) && let Some(side) = self.clock.side_of(face)
        {
            self.elapsed[side as usize] += t.saturating_sub(last);
        }
        self.last_clock_at = Some(t);
    }

    /// `side` pressed its clock: the move on the board is complete; a
    /// press with no move is an alert (Law 6.2a).
    fn clock_pressed(&mut self, t: Millis, side: Side) {
        let press = self.recon.handle_clock_press(t, side);
        self.drain();
        if press == Press::NoMove {
            self.push(
                t,
                EventKind::Alert(Alert {
                    kind: AlertKind::ClockPress,
                    side: Some(side),
                    law: Some(Law::ClockPress.article().into()),
                    message: format!(
                        "{} pressed the clock with no move on the board (Law 6.2a).",
                        side.name()
                    ),
                    cleared: false,
                }),
            );
        }
    }

    fn flag_alert(&self, side: Side) -> Alert {
        let (moves_made, cannot_mate) = match self.recon.game() {
            Some(game) => {
                let first = Side::from(game.start().turn());
                let n = game.len() as u32;
                let own = if first == side { n.div_ceil(2) } else { n / 2 };
                let opponent = match side.other() {
                    Side::White => crate::games::chess::Color::White,
                    Side::Black | Side::Red => crate::games::chess::Color::Black,
                };
                (own, game.position().cannot_checkmate(opponent))
            }
            None => (0, false),
        };
        let elapsed = (self.elapsed[side as usize] / 1000) as u32;
        Alert {
            kind: AlertKind::Flag,
            side: Some(side),
            law: Some(Law::FlagFall.article().into()),
            message: flag_message(
                side,
                self.time_control.as_ref(),
                moves_made,
                elapsed,
                cannot_mate,
            ),
            cleared: false,
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
        let mut p = BoardPipeline::new("c", Config::default());
        p.set_family(crate::family::Family::Certabo);
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
