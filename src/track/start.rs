//! Waiting for a start position, and setting a game up: the steps of
//! [`Waiting`] (the set-up alert) and a new [`Playing`] state.

use std::collections::VecDeque;

use crate::event::{AlertKind, EventKind, Millis};
use crate::games::{Article, Game, Placement, Record, Start};

use super::held::Held;
use super::{Board, Context, Course, Orientation, Playing, Position, Waiting, search};

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

    /// The board as the sensors show it, in the game's orientation.
    pub(super) fn target(&self, cx: &Context<G>) -> Board<G> {
        if self.orientation.is_rotated() {
            cx.raw.rotated()
        } else {
            cx.raw.clone()
        }
    }
}
