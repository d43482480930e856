//! How a game's boards are read: the hooks ([`Sensing`]) a game gives the
//! one reader every board has ([`crate::pipeline`]'s `Reader`), and what
//! the hooks see of the board's tracker ([`Tracker`]).
//!
//! Every board's readings go through the same reader to the same generic
//! reconstructor; what differs between games is how their boards are read.
//! Chess boards name their pieces, or sense occupancy only and are
//! followed by a tracker, and a DGT board keeps a memory of its moves
//! (`chess/reading.rs`); draughts and xiangqi boards send a whole board,
//! then the squares that changed ([`diffing`](super::diffing)).
//!
//! Design: the reconstructor is above the games (it is generic over
//! [`Game`]), so the hooks reach it through [`Tracker`], which it
//! implements, as quinn-proto's state machine sees its connection through
//! a trait; a hook's readings counted, readings it could not read and its
//! own events go into [`Heard`], which the reader turns into the
//! pipeline's counters, diagnostics and events.

use std::collections::VecDeque;

use boardcast_protocols::reading::{MemoryRecord, Reading};

use super::{Cell, Game, GameColor, GamePosition, Record};
use crate::event::{EventKind, Millis, Side};

/// A board's tracker (the reconstructor) as a game's reading hooks see it.
pub trait Tracker<G: Game> {
    /// The game's rules.
    fn rules(&self) -> &G;

    /// One square's new content, at `t`.
    fn handle_square(&mut self, t: Millis, sq: G::Square, cell: Cell<G::Piece>);

    /// A whole board, at `t`, in the game's square order.
    fn handle_board(&mut self, t: Millis, cells: &[Cell<G::Piece>]);

    /// Starts a game from `start`, found on the board (the board stands
    /// turned round when `rotated`).
    fn start_from(&mut self, t: Millis, start: G::Position, rotated: bool);

    /// The pieces as the sensors see them.
    fn sensed(&self) -> &G::Board;

    /// The game being played, if a start position was recognised.
    fn game(&self) -> Option<&Record<G>>;

    /// The game's ply count, a move still settling included, and who made
    /// the last ply.
    fn last_mover(&self) -> (usize, Option<Side>);

    /// When a timer is next due (with no game on: a set-up being judged).
    fn poll_timeout(&self) -> Option<Millis>;
}

/// What a reading came to beside the tracker's work: the square readings
/// handed on, the readings that could not be read, and events of the
/// reader's own (out after the tracker's).
#[derive(Debug, Default)]
pub struct Heard {
    /// Square readings handed to the tracker since last counted.
    pub square_readings: u64,
    /// Readings that could not be read since last counted: when, and why.
    pub unreadable: Vec<(Millis, String)>,
    /// Events of the reader's own (the unrecognised-position report, a
    /// game followed from the middle), out after the tracker's.
    pub events: VecDeque<(Millis, EventKind)>,
}

/// How the boards of a game are read: what a reader keeps of the board
/// beside the tracker, and the steps that use it.
pub trait Sensing: Game {
    /// What a reader keeps of the board between readings.
    type Sensors: std::fmt::Debug;

    /// What a reader of this game knows of a board it has not read yet.
    fn sensors(&self) -> Self::Sensors;

    /// A whole board or one square's new content, at `t` (other readings
    /// are the pipeline's).
    fn read(
        sensors: &mut Self::Sensors,
        tracker: &mut impl Tracker<Self>,
        t: Millis,
        reading: &Reading,
        heard: &mut Heard,
    );

    /// The board's memory (a DGT board's move log, oldest first), read
    /// when a board comes back. By default nothing: the board dump that
    /// follows is read as usual, and a game starts afresh from it.
    fn recover(
        sensors: &mut Self::Sensors,
        tracker: &mut impl Tracker<Self>,
        t: Millis,
        records: &[MemoryRecord],
        heard: &mut Heard,
    ) {
        let _ = (sensors, tracker, t, records, heard);
    }

    /// A game was taken up from its record: what the reader knew of the
    /// board gives way to the position the record reaches.
    fn taken_up(sensors: &mut Self::Sensors, tracker: &impl Tracker<Self>);

    /// The tracker's next event is `kind`, at `t`: an event of the
    /// reader's own that must go out before it, if any (`kind` is then
    /// held back and follows). By default none.
    fn before(sensors: &mut Self::Sensors, t: Millis, kind: &EventKind) -> Option<EventKind> {
        let _ = (sensors, t, kind);
        None
    }

    /// For a flag alert: the moves `side` has made in the game, a move
    /// still settling included, and whether its opponent cannot win by any
    /// series of legal moves (chess, Law 6.9; never in the other games).
    fn flag_facts(tracker: &impl Tracker<Self>, side: Side) -> (u32, bool) {
        let (plies, _) = tracker.last_mover();
        let first = tracker.game().map(|g| g.start().turn().side());
        let plies = plies as u32;
        let own = match first {
            Some(first) if first == side => plies.div_ceil(2),
            Some(_) => plies / 2,
            None => 0,
        };
        (own, false)
    }
}
