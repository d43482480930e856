//! One reader for every game: a board's readings to its game's
//! reconstructor ([`Reader`]), whatever the game. What differs between
//! games is how their boards are read: each game's [`Sensing`] hooks
//! (chess in `games/chess/reading.rs`, draughts and xiangqi in
//! `games/diffing.rs`), which see the reconstructor as a [`Tracker`]. Also
//! here: where a reader reports what is not an event (the pipeline's
//! counters and diagnostics), and a game's record resolved to its position
//! and moves.

use std::collections::VecDeque;

use boardcast_protocols::reading::{MemoryRecord, Reading};

use super::{Diagnostic, PipelineStats};
use crate::event::{EventKind, Millis, Side};
use crate::games::sensing::{Heard, Sensing, Tracker};
use crate::games::{Cell, Game, GamePosition, Record};
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

impl Report<'_> {
    /// What the game's hooks heard since last counted, into the
    /// pipeline's counters and diagnostics.
    fn count(&mut self, heard: &mut Heard) {
        self.stats.square_readings += std::mem::take(&mut heard.square_readings);
        if heard.unreadable.is_empty() {
            return;
        }
        for (t_ms, reason) in heard.unreadable.drain(..) {
            self.stats.bad_frames += 1;
            self.diagnostics
                .push_back(Diagnostic::BadFrame { t_ms, reason });
        }
    }
}

/// The reconstructor as a game's reading hooks see it.
impl<G: Game> Tracker<G> for Reconstructor<G> {
    fn rules(&self) -> &G {
        Reconstructor::rules(self)
    }

    fn handle_square(&mut self, t: Millis, sq: G::Square, cell: Cell<G::Piece>) {
        Reconstructor::handle_square(self, t, sq, cell)
    }

    fn handle_board(&mut self, t: Millis, cells: &[Cell<G::Piece>]) {
        Reconstructor::handle_board(self, t, cells)
    }

    fn start_from(&mut self, t: Millis, start: G::Position, rotated: bool) {
        Reconstructor::start_from(self, t, start, rotated)
    }

    fn sensed(&self) -> &G::Board {
        Reconstructor::sensed(self)
    }

    fn game(&self) -> Option<&Record<G>> {
        Reconstructor::game(self)
    }

    fn last_mover(&self) -> (usize, Option<Side>) {
        Reconstructor::last_mover(self)
    }

    fn poll_timeout(&self) -> Option<Millis> {
        Reconstructor::poll_timeout(self)
    }
}

/// One board's readings, to its game's reconstructor.
#[derive(Debug)]
pub struct Reader<G: Sensing> {
    pub(super) recon: Reconstructor<G>,
    /// What the reader keeps of the board (see [`Sensing::Sensors`]).
    sensors: G::Sensors,
    /// What the game's hooks heard: counters and diagnostics not yet
    /// reported, and events of the reader's own, out after the
    /// reconstructor's.
    heard: Heard,
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
            heard: Heard::default(),
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
        G::taken_up(&mut self.sensors, &self.recon);
        Ok(())
    }

    /// A whole board or one square's new content, at `t`.
    pub(super) fn handle_reading(&mut self, t: Millis, reading: &Reading, mut report: Report<'_>) {
        G::read(
            &mut self.sensors,
            &mut self.recon,
            t,
            reading,
            &mut self.heard,
        );
        report.count(&mut self.heard);
    }

    /// The board's memory, when it comes back (see [`Sensing::recover`]).
    pub(super) fn recover_from_memory(
        &mut self,
        t: Millis,
        records: &[MemoryRecord],
        mut report: Report<'_>,
    ) {
        G::recover(
            &mut self.sensors,
            &mut self.recon,
            t,
            records,
            &mut self.heard,
        );
        report.count(&mut self.heard);
    }

    /// The next event: the reconstructor's, then the reader's own.
    pub(super) fn poll_event(&mut self) -> Option<(Millis, EventKind)> {
        if let Some(held) = self.held.take() {
            return Some(held);
        }
        let Some((t, kind)) = self.recon.poll_event() else {
            return self.heard.events.pop_front();
        };
        match G::before(&mut self.sensors, t, &kind) {
            Some(first) => {
                self.held = Some((t, kind));
                Some((t, first))
            }
            None => Some((t, kind)),
        }
    }

    /// For a flag alert (see [`Sensing::flag_facts`]).
    pub(super) fn flag_facts(&self, side: Side) -> (u32, bool) {
        G::flag_facts(&self.recon, side)
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
