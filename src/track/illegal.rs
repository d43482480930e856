use crate::event::{AlertKind, EventKind, Millis};
use crate::games::{
    Article, Change, Game, GameColor, GameMove, GamePosition, Placement, SquareSet,
};

use super::capture::victims_of_capture_from;
use super::evidence::{candidate_position, displacement_delay, lifted_of_side_to_move};
use super::held::{Held, Irregular};
use super::{
    Board, Completed, Context, Explanation, Move, Playing, Position, Pseudo, Set, Square,
    Unexplained, evidence_of, search,
};

impl<G: Game> Playing<G> {
    /// Step: after a reported illegal move, play may have gone on from it.
    /// With no legal explanation, the illegal move and its continuation
    /// are tried; a legal history of two or more plies (a piece sliding
    /// through a square that makes one) is not better evidence than the
    /// completed illegal move and a shorter continuation.
    pub(super) fn play_on_from_irregular(
        &mut self,
        cx: &mut Context<G>,
        at: Millis,
        target: &Board<G>,
        explanation: Option<Explanation<Move<G>>>,
    ) -> Option<Explanation<Move<G>>> {
        match &explanation {
            None => self.continue_irregular(cx, at, target, usize::MAX),
            Some(e @ (Explanation::Forward(_) | Explanation::Back { .. })) if e.cost() >= 2 => {
                let cost = e.cost();
                self.continue_irregular(cx, at, target, cost - 1)
                    .or(explanation)
            }
            Some(_) => explanation,
        }
    }

    /// After an illegal move was reported: if play went on from the
    /// position it made, accept it into the record and explain the rest.
    /// `max_moves`: the most plies after the illegal move that may explain
    /// the board.
    pub(super) fn continue_irregular(
        &mut self,
        cx: &mut Context<G>,
        at: Millis,
        target: &Board<G>,
        max_moves: usize,
    ) -> Option<Explanation<Move<G>>> {
        let limits = cx.config.limits;
        let pseudo = self.held.illegal()?;
        let after = pseudo.reported.as_ref()?.as_ref()?;
        let (notation, id) = cx.rules.pseudo_text(self.game.position(), &pseudo.m);
        let mut game = self.game.clone();
        game.push_irregular(notation.clone(), id.clone(), after.clone());
        let successors = search::successors(after);
        let evidence = cx
            .rules
            .ranks_by_evidence()
            .then(|| evidence_of(self, &cx.finality));
        let out = search::Query {
            evidence: evidence.as_ref(),
            ..search::Query::new(&cx.rules, &game, &successors, limits)
        }
        .explain(target);
        let Some(Explanation::Forward(moves)) = out.explanation else {
            return None;
        };
        if moves.len() > max_moves {
            return None;
        }
        let pseudo = self.held.take_illegal().expect("checked");
        let after = game.position().clone();
        let ply = self.game.len() as u32 + 1;
        let side = pseudo.m.mover();
        self.game.push_irregular(notation, id, after);
        self.successors = successors;
        self.held.drop_candidate();
        self.touches.clear();
        self.rebuild_referee(&cx.rules);
        let event = cx.rules.move_event(
            ply,
            side,
            self.game.plies().last().expect("just pushed"),
            true,
        );
        cx.emit(at, event);
        Some(Explanation::Forward(moves))
    }

    /// The board is not explained by legal play: watch for an illegal move
    /// and for boards that stay wrong.
    pub(super) fn watch_unexplained(&mut self, cx: &mut Context<G>, at: Millis, target: &Board<G>) {
        let rules = &cx.rules;
        let pos = self.game.position().clone();
        // While a legal candidate is pending (a move not yet published, a
        // takeback under way) the board is in motion: no illegal move yet.
        let pseudo = if self.held.candidate().is_some() {
            None
        } else {
            rules.find_pseudo(&pos, target).or_else(|| {
                self.held
                    .illegal()
                    .is_none()
                    .then(|| pushed_beside_hand(rules, &pos, target))
                    .flatten()
            })
        };
        // A move settling, and beside it another piece of its side pushed
        // (a sleeve as the hand comes back, issue 60): a displacement
        // around that move, not the move going on.
        if let Some((m, plies)) = pushed_beside_candidate(rules, self, target) {
            self.note_displacement(m, at, plies);
        }
        match pseudo {
            // A piece of the side not to move changed square: a knock, a
            // push, or a move out of turn. Only a clock press makes it a
            // move (see `handle_clock_press`); until then it is a
            // displacement, and `misplaced` if it stands.
            Some(m) if m.mover() != pos.turn() => {
                let plies = self.game.len();
                self.note_displacement(m, at, plies);
                if self.held.illegal().is_some_and(|x| x.reported.is_none()) {
                    self.held.drop_illegal();
                }
            }
            Some(m) => self.watch_illegal(cx, at, target, &pos, m),
            None => self.watch_lifts(cx, at, target, &pos),
        }
        self.watch_stays_wrong(cx, at, target, &pos);
    }

    /// Step: a move of the side to move that is not legal stands on the
    /// board: held, to be reported once completed (by the press, or the
    /// opponent's hand on a piece of their own).
    fn watch_illegal(
        &mut self,
        cx: &mut Context<G>,
        at: Millis,
        target: &Board<G>,
        pos: &Position<G>,
        m: Pseudo<G>,
    ) {
        let rules = &cx.rules;
        let same = self
            .held
            .illegal()
            .is_some_and(|x| x.m == m && x.board == *target);
        // Time alone never makes it a move (a knocked piece stands
        // as long as it stands): the press or the reply does.
        // The last ply's piece, lifted again as if to capture this
        // move's piece, set back where it stood: no capture, and the
        // opponent's hand on a piece of their own, so the move was
        // made.
        let set_back = same
            && self
                .held
                .illegal()
                .is_some_and(|x| x.reported.is_none() && x.capture_lifted);
        if set_back {
            self.report_illegal(cx, at, Completed::Reply);
        } else if !same && self.held.illegal().is_none_or(|x| x.reported.is_none()) {
            let made = rules.pseudo_board(pos, &m, target);
            self.held = Held::Illegal(Irregular {
                m,
                board: target.clone(),
                made,
                reported: None,
                reply_since: None,
                capture_lifted: false,
            });
        }
    }

    /// Step: no move stands on the board; pieces lifted from the board an
    /// illegal move made may complete it (see [`Lifts`]).
    fn watch_lifts(
        &mut self,
        cx: &mut Context<G>,
        at: Millis,
        target: &Board<G>,
        pos: &Position<G>,
    ) {
        let final_ms = cx.config.settle.final_ms;
        let Lifts {
            waiting,
            lifted,
            confirmed,
            replied,
            capture_lifted,
        } = self.lifts(&cx.rules, target, pos);
        let stood = match self.held.illegal_mut().filter(|_| waiting) {
            Some(x) if replied => {
                let since = *x.reply_since.get_or_insert(at);
                at >= since + final_ms
            }
            Some(x) => {
                x.reply_since = None;
                x.capture_lifted |= capture_lifted;
                false
            }
            None => false,
        };
        if confirmed || stood {
            self.report_illegal(cx, at, Completed::Reply);
        } else if waiting && !lifted && !replied {
            self.held.drop_illegal();
        }
    }

    /// What the pieces lifted from the board the pending illegal move made
    /// (if one is) say about it.
    fn lifts(&self, rules: &G, target: &Board<G>, pos: &Position<G>) -> Lifts {
        // Pieces lifted from the board the illegal move made: the
        // opponent lifting one of their own proves the move was
        // completed; other lifts (a capture begun with the victim)
        // keep it pending.
        let pending = self.held.illegal().filter(|x| x.reported.is_none());
        let lifted = pending.is_some_and(|x| search::only_removals(&x.board, target));
        // (Not after a king went to the centre: the other king, or
        // a piece cleared out of its way, is the result signal on
        // its way; the reply itself, once on the board, completes
        // the move.)
        // (Nor the pieces a legal capture by the same piece takes:
        // it was set down short of its victim, which is being
        // cleared.)
        // (Nor the capturing piece lifted again when the "illegal
        // move" is its victim set down beside by the capturer's
        // hand: the last ply's piece was set down short of that
        // victim, and the capture goes on.)
        let capture_goes_on = |x: &Irregular<G>, opponents: Set<G>| {
            let Some(last) = self.game.plies().last().and_then(|r| r.m.as_ref()) else {
                return false;
            };
            let before = self.game.position_at(self.game.len() - 1);
            opponents == Set::<G>::from(last.to())
                && victims_of_capture_from(rules, before, last.from(), last.to(), x.m.from().into())
        };
        // The opponent's pieces the board lacks.
        let opponents = |x: &Irregular<G>| {
            let removed = x.board.occupied() & !target.occupied();
            removed & x.made.by_color(x.m.mover().other())
        };
        let confirmed = lifted
            && pending.is_some_and(|x| {
                let opponents = opponents(x);
                opponents.any()
                    && !capture_goes_on(x, opponents)
                    && !victims_of_capture_from(rules, pos, x.m.from(), x.m.to(), opponents)
                    && !rules.signal_pseudo(&x.m)
            });
        // The piece whose lift read as a capture's victim (the
        // illegal move's piece standing beside it) set down on
        // another square: no capture, but the opponent's reply,
        // made, once it has stood its time (a victim is often set
        // down beside for a moment on its way off the board, and
        // the capture made then).
        let replied = pending.is_some_and(|x| {
            opponent_moved_one(x, target).is_some_and(|from| {
                !rules.signal_pseudo(&x.m)
                    && victims_of_capture_from(rules, pos, x.m.from(), x.m.to(), from.into())
            })
        });
        let capture_lifted = lifted && pending.is_some_and(|x| capture_goes_on(x, opponents(x)));
        Lifts {
            waiting: pending.is_some(),
            lifted,
            confirmed,
            replied,
            capture_lifted,
        }
    }

    /// Step: the board stays unexplained: the misplacement (or in-hand)
    /// timer runs from the first reading that showed it.
    fn watch_stays_wrong(
        &mut self,
        cx: &Context<G>,
        at: Millis,
        target: &Board<G>,
        pos: &Position<G>,
    ) {
        let delays = cx.config.delays;
        let rules = &cx.rules;
        let in_hand = {
            let removed = pos.board().occupied() & !target.occupied();
            search::only_removals(pos.board(), target)
                && removed.count() <= 2
                && (removed & !pos.board().by_color(pos.turn())).is_empty()
        };
        let delay = if in_hand {
            delays.in_hand_ms
        } else {
            displacement_delay(rules, &delays, self.displaced.as_ref())
        };
        let u = self.unexplained.get_or_insert(Unexplained {
            since: at,
            due: at + delay,
            raised: None,
            reexamined: false,
        });
        u.due = u.since + delay;
    }

    pub(super) fn report_illegal(&mut self, cx: &mut Context<G>, at: Millis, completed: Completed) {
        // Reported as displaced pieces while it stood: now it is a move.
        if let Some(u) = &mut self.unexplained
            && u.raised == Some(AlertKind::Misplaced)
        {
            u.raised = Some(AlertKind::IllegalMove);
            cx.emit_cleared(
                at,
                AlertKind::Misplaced,
                Article::Displaced,
                "The displaced piece was a move: reported as an illegal move.",
            );
        }
        let Some(x) = self.held.illegal_mut() else {
            return;
        };
        let before = self.game.position().clone();
        let color = x.m.mover();
        let count = &mut self.illegal_counts[color.index()];
        *count += 1;
        let alert = cx
            .rules
            .illegal_move_alert(&before, &x.m, *count, self.game.len(), completed);
        x.reported = Some(cx.rules.irregular(&before, x.made.clone(), color.other()));
        // The piece was moved, not displaced: lifted and later put back,
        // it was touched.
        let from = x.m.from();
        for t in self.touches.iter_mut().filter(|t| t.sq == from) {
            t.displaced = false;
        }
        cx.emit(at, EventKind::Alert(alert));
    }
}

/// While a move settles (a forward candidate), a piece of the mover's side
/// other than the ones the move takes changed square: the displacement
/// that makes, as a change of that piece (its squares are the same in the
/// game), with the plies the game will have once the move is published.
fn pushed_beside_candidate<G: Game>(
    rules: &G,
    p: &Playing<G>,
    target: &Board<G>,
) -> Option<(Pseudo<G>, usize)> {
    let c = p.held.candidate()?;
    let Explanation::Forward(moves) = &c.explanation else {
        return None;
    };
    let after = candidate_position(&p.game, &c.explanation);
    let m = rules.find_pseudo(&after, target)?;
    let touched = |sq| moves.iter().any(|x| x.from() == sq || x.to() == sq);
    (m.mover() != after.turn() && !touched(m.from()) && !touched(m.to()))
        .then_some((m, p.game.len() + moves.len()))
}

/// The mover's hand holds pieces of their own (lifted, not set down yet)
/// while a piece of the other side is pushed (issue 60): that push, found
/// on the board with the lifted pieces back where the game has them.
fn pushed_beside_hand<G: Game>(
    rules: &G,
    pos: &Position<G>,
    target: &Board<G>,
) -> Option<Pseudo<G>> {
    let lifted = lifted_of_side_to_move::<G>(pos, target);
    if lifted.is_empty() {
        return None;
    }
    let mut restored = target.clone();
    for sq in lifted {
        if let Some(piece) = pos.board().piece_at(sq) {
            restored.set_piece_at(sq, piece);
        }
    }
    // Only that: one piece of the other side onto a free square, nothing
    // of the mover's set down anywhere (an illegal move, a capture under
    // way are read otherwise).
    if restored.diff(pos.board()).count() != 2 {
        return None;
    }
    rules
        .find_pseudo(pos, &restored)
        .filter(|m| m.mover() != pos.turn() && pos.board().piece_at(m.to()).is_none())
}

/// The square an opponent's piece left, when `target` is the board the
/// illegal move `x` made with that one piece moved to an empty square
/// (the same piece, as far as the sensors tell: their reply, made).
fn opponent_moved_one<G: Game>(x: &Irregular<G>, target: &Board<G>) -> Option<Square<G>> {
    let left = x.board.occupied() & !target.occupied();
    let came = target.occupied() & !x.board.occupied();
    let (from, to) = (left.into_iter().next()?, came.into_iter().next()?);
    (left.count() == 1
        && came.count() == 1
        && (x.board.diff(target) & !(left | came)).is_empty()
        && x.made.by_color(x.m.mover().other()).contains(from)
        && <Board<G> as Placement>::agrees(x.made.piece_at(from), target.piece_at(to)))
    .then_some(from)
}

/// What the pieces lifted from the board a pending illegal move made say
/// about it (see [`Playing::watch_unexplained`]).
struct Lifts {
    /// An illegal move is pending (not reported yet).
    waiting: bool,
    /// Pieces were only lifted from the board it made.
    lifted: bool,
    /// The opponent lifted a piece of their own: the move was completed.
    confirmed: bool,
    /// A piece it could capture was set down elsewhere: the reply, made.
    replied: bool,
    /// The last ply's piece was lifted again as if to capture it.
    capture_lifted: bool,
}
