//! One reader for every game: a board's readings to its game's
//! reconstructor ([`Reader`]), whatever the game. What differs between
//! games is how their boards are read ([`Sensing`]): chess boards name
//! their pieces, or sense occupancy and are followed by a tracker, and a
//! DGT board keeps a memory (`chess.rs`); draughts and xiangqi boards send
//! a whole board, then the squares that changed (`diffing.rs`). Also here:
//! where a reader reports what is not an event (the pipeline's counters and
//! diagnostics), and a game's record resolved to its position and moves.

use std::collections::VecDeque;

use boardcast_protocols::reading::{MemoryRecord, Reading};

use super::{Diagnostic, PipelineStats};
use crate::event::{EventKind, Millis, Side};
use crate::games::{Game, GameColor, GamePosition};
use crate::track::{Config, Reconstructor};

/// Where a reader reports what is not an event: the pipeline's counters
/// and diagnostics.
#[derive(Debug)]
pub struct Report<'a> {
    /// The pipeline's counters.
    pub stats: &'a mut PipelineStats,
    /// The pipeline's diagnostics.
    pub diagnostics: &'a mut VecDeque<Diagnostic>,
}

/// How the boards of a game are read: what a reader keeps of the board
/// beside the reconstructor, and the steps that use it. Every step is
/// handed the whole [`Reader`], as the reconstructor and the reader's own
/// events are the steps' to use.
pub trait Sensing: Game {
    /// What a reader keeps of the board between readings.
    type Sensors: std::fmt::Debug;

    /// What a reader of this game knows of a board it has not read yet.
    fn sensors(&self) -> Self::Sensors;

    /// A whole board or one square's new content, at `t` (other readings
    /// are the pipeline's).
    fn read(r: &mut Reader<Self>, t: Millis, reading: &Reading, report: Report<'_>);

    /// The board's memory (a DGT board's move log, oldest first), read
    /// when a board comes back. By default nothing: the board dump that
    /// follows is read as usual, and a game starts afresh from it.
    fn recover(r: &mut Reader<Self>, t: Millis, records: &[MemoryRecord], report: Report<'_>) {
        let _ = (r, t, records, report);
    }

    /// A game was taken up from its record: what the reader knew of the
    /// board gives way to the position the record reaches.
    fn taken_up(r: &mut Reader<Self>);

    /// The reconstructor's next event is `kind`, at `t`: an event of the
    /// reader's own that must go out before it, if any (`kind` is then
    /// held back and follows). By default none.
    fn before(r: &mut Reader<Self>, t: Millis, kind: &EventKind) -> Option<EventKind> {
        let _ = (r, t, kind);
        None
    }

    /// For a flag alert: the moves `side` has made in the game, a move
    /// still settling included, and whether its opponent cannot win by any
    /// series of legal moves (chess, Law 6.9; never in the other games).
    fn flag_facts(r: &Reader<Self>, side: Side) -> (u32, bool) {
        let (plies, _) = r.recon.last_mover();
        let first = r.recon.game().map(|g| g.start().turn().side());
        let plies = plies as u32;
        let own = match first {
            Some(first) if first == side => plies.div_ceil(2),
            Some(_) => plies / 2,
            None => 0,
        };
        (own, false)
    }
}

/// One board's readings, to its game's reconstructor.
#[derive(Debug)]
pub struct Reader<G: Sensing> {
    pub(super) recon: Reconstructor<G>,
    /// What the reader keeps of the board (see [`Sensing::Sensors`]).
    pub(super) sensors: G::Sensors,
    /// Events of the reader's own (the unrecognised-position report, a
    /// game followed from the middle), out after the reconstructor's.
    pub(super) own: VecDeque<(Millis, EventKind)>,
    /// A reconstructor's event held back while one of the reader's own
    /// goes out first (see [`Sensing::before`]).
    held: Option<(Millis, EventKind)>,
}

impl<G: Sensing> Reader<G> {
    /// A reader of a game of `rules`.
    pub fn new(config: Config, rules: G) -> Reader<G> {
        Reader {
            sensors: rules.sensors(),
            recon: Reconstructor::for_game(config, rules),
            own: VecDeque::new(),
            held: None,
        }
    }

    /// The reconstructor, for state queries.
    pub fn reconstructor(&self) -> &Reconstructor<G> {
        &self.recon
    }

    /// Takes up the game `start` and `ids` record (see
    /// [`super::AnyGame::take_up`]): the board is taken to show its
    /// position.
    pub(super) fn take_up(
        &mut self,
        at: Millis,
        start: &str,
        ids: &[String],
        rotated: bool,
    ) -> Result<(), String> {
        let (position, moves) = resolve(self.recon.rules(), start, ids)?;
        self.recon.take_up(at, position, moves, rotated);
        G::taken_up(self);
        Ok(())
    }

    /// A whole board or one square's new content, at `t`.
    pub(super) fn handle_reading(&mut self, t: Millis, reading: &Reading, report: Report<'_>) {
        G::read(self, t, reading, report);
    }

    /// The board's memory, when it comes back (see [`Sensing::recover`]).
    pub(super) fn recover_from_memory(
        &mut self,
        t: Millis,
        records: &[MemoryRecord],
        report: Report<'_>,
    ) {
        G::recover(self, t, records, report);
    }

    /// The next event: the reconstructor's, then the reader's own.
    pub(super) fn poll_event(&mut self) -> Option<(Millis, EventKind)> {
        if let Some(held) = self.held.take() {
            return Some(held);
        }
        let Some((t, kind)) = self.recon.poll_event() else {
            return self.own.pop_front();
        };
        match G::before(self, t, &kind) {
            Some(first) => {
                self.held = Some((t, kind));
                Some((t, first))
            }
            None => Some((t, kind)),
        }
    }

    /// For a flag alert (see [`Sensing::flag_facts`]).
    pub(super) fn flag_facts(&self, side: Side) -> (u32, bool) {
        G::flag_facts(self, side)
    }
}

/// The start position and moves a game's record names: `start` a FEN of
/// the game, `ids` its moves' ids (UCI, draughts paths, ICCS), each legal
/// in turn. The error names the first that is not.
pub(super) fn resolve<G: Game>(
    rules: &G,
    start: &str,
    ids: &[String],
) -> Result<(G::Position, Vec<G::Move>), String> {
    let position = rules
        .parse_position(start)
        .ok_or_else(|| format!("`{start}` is no {} position", rules.game_id().name()))?;
    let mut at = position.clone();
    let mut moves = Vec::with_capacity(ids.len());
    for (i, id) in ids.iter().enumerate() {
        let m = at
            .legal_moves()
            .find(|m| at.id(m) == *id)
            .ok_or_else(|| format!("move {} (`{id}`) is not legal there", i + 1))?;
        at = at.play(&m);
        moves.push(m);
    }
    Ok((position, moves))
}
