use crate::event::Millis;
use crate::games::{
    Change, Game, GameColor, GameMove, GamePosition, Placement, PlyRecord, Record, SquareSet,
};

use super::evidence::{lifted_by_side_to_move, put_back};
use super::{Context, Explanation, Playing, Set, evidence_of};

impl<G: Game> Playing<G> {
    /// Shows the moves of the candidate settling on the board as
    /// provisional once it has stood [`SettleRule::provisional_ms`] (see
    /// [`finality`]): screens that want speed need not wait for the settle
    /// time, which only decides what the reconstructor reads next.
    pub(super) fn preview(&mut self, cx: &mut Context<G>, now: Millis) {
        let debounce = cx.config.settle.provisional_ms;
        let Some(c) = self.held.candidate_mut() else {
            return;
        };
        if !c.showing || c.previewed || now < c.since + debounce {
            return;
        }
        c.previewed = true;
        let (plies, moves) = match &c.explanation {
            Explanation::Forward(moves) => (0, moves),
            Explanation::Back { plies, then } if !then.is_empty() => (*plies, then),
            _ => return,
        };
        let first = self.game.len() - plies;
        let mut record: Record<G> = Record::new(self.game.position_at(first).clone());
        for (i, m) in moves.iter().enumerate() {
            let side = record.position().turn();
            let rec = record.push(m.clone());
            let event = cx
                .rules
                .move_event((first + i + 1) as u32, side, rec, false);
            cx.finality.preview(c.since, &event, &mut cx.events);
        }
    }

    /// Whether the board is quiet enough for provisional plies to become
    /// final on time at `now`: nothing settling, and every square of the
    /// provisional plies and of the ply before them as those plies left
    /// it, unless what differs there has stood past the misplacement
    /// delay (the re-examination there could still read those plies
    /// otherwise: a piece of theirs in the air, gone on, or pushed; what
    /// stood past it is the arbiter's business, and play goes on around
    /// it). A piece knocked elsewhere changes nothing about those plies.
    pub(super) fn quiet(&self, cx: &Context<G>, now: Millis) -> bool {
        // (Not while a move settles; nor while the victim of a capture the
        // last ply may go on to make is off the board: the capture is under
        // way.)
        if self.held.candidate().is_some() || self.capture_under_way(cx) {
            return false;
        }
        let target = self.target(cx);
        let first = cx.finality.final_plies().min(self.game.len());
        let touched = |plies: &[PlyRecord<G>]| {
            plies
                .iter()
                .filter_map(|x| x.m.as_ref())
                .fold(Set::<G>::default(), |s, m| s | m.touched())
        };
        let pending = touched(&self.game.plies()[first..]);
        let before = touched(&self.game.plies()[first.saturating_sub(1)..first]);
        let differ = self.game.position().board().diff(&target);
        let check = cx.config.delays.misplaced_ms;
        let stood = self
            .displaced
            .as_ref()
            .is_some_and(|d| d.since + check <= now)
            || self
                .unexplained
                .is_some_and(|u| u.raised.is_some() || u.reexamined);
        // The piece of the last (provisional) ply knocked off its square
        // after it, standing where that ply could not have taken it, with
        // nothing else out of place, cannot change the move: a move on
        // would be a candidate, and it is not a piece in the air.
        let last_to = self
            .game
            .plies()
            .last()
            .and_then(|x| x.m.as_ref())
            .map(|m| m.to());
        let knocked = first < self.game.len()
            && self.displaced.as_ref().is_some_and(|d| {
                !d.shadow
                    && d.plies == self.game.len()
                    && Some(d.m.from()) == last_to
                    && put_back(d, &target)
                        .is_some_and(|b| self.game.position().board().matches(&b))
            });
        knocked || !(differ & pending).any() && (stood || !(differ & before).any())
    }

    /// Whether the game's first move from the initial position is still
    /// provisional, in a game that holds it ([`Game::holds_first_move`]).
    pub(super) fn first_move_pending(&self, cx: &Context<G>) -> bool {
        cx.rules.holds_first_move()
            && cx.finality.final_plies() == 0
            && self.game.start().board() == cx.rules.start().board()
    }

    /// Whether a piece the last ply's piece could capture from where it
    /// was set down is off the board, lifted as a capture's victim (see
    /// [`Playing::about_to_capture`]): the capture may go on.
    pub(super) fn capture_under_way(&self, cx: &Context<G>) -> bool {
        let Some(m) = self.game.plies().last().and_then(|x| x.m.as_ref()) else {
            return false;
        };
        let before = self.game.position_at(self.game.len() - 1);
        self.about_to_capture(&cx.rules, before, m, self.game.position(), &self.target(cx))
    }

    /// Makes the provisional moves final when the board proves them so:
    /// the opponent lifted a piece of their own or their reply stands on
    /// the board, or the moves have stood their time with nothing else
    /// waiting to be explained (see [`finality`]).
    pub(super) fn check_finality(&mut self, cx: &mut Context<G>, now: Millis) {
        let Some(due) = cx.finality.due() else {
            return;
        };
        let target = self.target(cx);
        let position = self.game.position();
        let mover = cx.finality.pending_mover();
        let pending_last = mover == Some(position.turn().other().side());
        // (Not a victim the last ply's piece was set down short of: the
        // capture may go on.)
        let last = self.game.plies().last().and_then(|x| x.m.as_ref());
        let continuing = self.capture_under_way(cx);
        // (Nor while the last ply's own piece is off its square: a victim
        // set down beside and lifted away again is no reply that stands.)
        let stands = last.is_none_or(|m| target.occupied().contains(m.to()));
        // (Nor, after a reply that moved the piece the move before could
        // capture, while that move's piece is off its square: the capture
        // goes on, and the "reply" was its victim on the way off.)
        let resumed = cx.finality.pending_plies() >= 2
            && self
                .capture_held_from(&cx.rules)
                .is_some_and(|sq| !target.occupied().contains(sq));
        // (Nor a lift read before the last ply's piece was set down: a
        // victim lifted first, its capture read on the way as a move and
        // a reply taking it.)
        let evidence = evidence_of(self, &cx.finality);
        let after_landing = self.lifted_after_landing(&cx.rules, &evidence, &target);
        let replied = pending_last
            && (lifted_by_side_to_move::<G>(position, &target)
                && after_landing
                && !continuing
                && stands
                && !resumed
                || self.held.candidate().is_some_and(|c| {
                    matches!(&c.explanation, Explanation::Forward(moves)
                        if !moves.first().is_some_and(|m| self.moves_its_victim(&cx.rules, m)))
                }));
        // The game's first move is final on time only a misplacement delay
        // later where the game holds it (see `Game::holds_first_move`).
        let first = self.first_move_pending(cx);
        let settled = !first && now >= due && self.quiet(cx, now);
        let overdue = now >= due + cx.config.delays.misplaced_ms;
        if replied || settled || overdue {
            cx.finality.make_final(&mut cx.events);
        }
    }
}
