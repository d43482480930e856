//! Waiting for a start position, and setting a game up: the steps of
//! [`Waiting`] (the set-up alert) and a new [`Playing`] state.

use std::collections::VecDeque;

use crate::event::{AlertKind, EventKind, Millis};
use crate::games::{Article, Game, GamePosition, Placement, Record, SquareSet, Start};

use super::held::Held;
use super::{Board, Context, Course, Move, Orientation, Playing, Position, Waiting, search};

impl<G: Game> Waiting<G> {
    /// A reading while no game is on: a start position found on the board
    /// (returned: the game starts), or the set-up timer set when the board
    /// looks like a wrong set-up it has not been told about.
    pub(super) fn on_reading(
        &mut self,
        cx: &mut Context<G>,
        at: Millis,
        start: Option<Start<Position<G>>>,
    ) -> Option<Start<Position<G>>> {
        if let Some(start) = start {
            if self.raised.is_some() {
                cx.emit_cleared(
                    at,
                    AlertKind::Setup,
                    Article::Setup,
                    "The initial position is now set up correctly.",
                );
            }
            return Some(start);
        }
        match cx.rules.nearest_start(&cx.raw) {
            Some((_, d)) if self.raised != Some(d) => {
                self.setup_due = Some(at + cx.config.delays.setup_ms);
            }
            Some(_) => self.setup_due = None,
            None => {
                self.setup_due = None;
            }
        }
        None
    }

    /// Time has reached `now`: a wrong set-up that has stood its time is
    /// reported.
    pub(super) fn handle_timeout(&mut self, cx: &mut Context<G>, now: Millis) {
        if self.setup_due.is_some_and(|d| d <= now) {
            self.setup_due = None;
            if let Some((intended, d)) = cx.rules.nearest_start(&cx.raw) {
                self.raised = Some(d);
                let a = cx.rules.setup_alert(&intended, &cx.raw);
                cx.emit(now, EventKind::Alert(a));
            }
        }
    }
}

impl<G: Game> Playing<G> {
    /// A game set up from `start` (`rotated`: whether the board stands
    /// turned round; `None`, not known yet).
    pub(super) fn new(cx: &Context<G>, start: Position<G>, rotated: Option<bool>) -> Playing<G> {
        let game = Record::new(start);
        Playing {
            successors: search::successors(game.start()),
            referee: cx.rules.referee(&game),
            game,
            orientation: Orientation::of_start(rotated),
            oriented_by_play: false,
            held: Held::Nothing,
            prior_correction: None,
            resync: false,
            course: Course::InPlay,
            kings: None,
            illegal_counts: [0; 2],
            displaced: None,
            completed: 0,
            unexplained: None,
            touches: Vec::new(),
            moved_at: None,
            recent: VecDeque::new(),
            touched_at: if cx.rules.ranks_by_evidence() {
                vec![(0, 0); cx.rules.square_count()]
            } else {
                Vec::new()
            },
            evidence_base: cx.stats.readings,
        }
    }

    /// The game taken up from its record (see
    /// [`super::Reconstructor::take_up`]): `moves` played and published as
    /// final, the sensors taken to show the position they reach.
    pub(super) fn take_up(
        &mut self,
        cx: &mut Context<G>,
        at: Millis,
        moves: Vec<Move<G>>,
        rotated: bool,
    ) {
        let mut out = Vec::new();
        for m in moves {
            out.push(self.push_move(&cx.rules, m));
            out.extend(self.after_move(&cx.rules));
        }
        self.orientation = Orientation::of_start(Some(rotated));
        let board = self.game.position().board().clone();
        let shown = if rotated { board.rotated() } else { board };
        for i in 0..cx.rules.square_count() {
            let sq = cx.rules.square(i);
            cx.raw.discard_piece_at(sq);
            cx.tokens.discard(sq);
            if let Some(piece) = shown.piece_at(sq) {
                cx.raw.set_piece_at(sq, piece);
            }
        }
        // Moves of a game taken up were final before: no provisional
        // event for them.
        let from = cx.events.len();
        let final_ms = cx.config.settle.final_ms;
        cx.finality.route_batch(at, out, final_ms, &mut cx.events);
        cx.finality.make_final(&mut cx.events);
        let mut i = 0;
        cx.events.retain(|(_, e)| {
            i += 1;
            i <= from || !matches!(e, EventKind::Provisional { .. })
        });
    }

    /// The board as the sensors show it, in the game's orientation.
    pub(super) fn target(&self, cx: &Context<G>) -> Board<G> {
        if self.orientation.is_rotated() {
            cx.raw.rotated()
        } else {
            cx.raw.clone()
        }
    }
}
