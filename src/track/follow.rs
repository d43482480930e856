use std::ops::ControlFlow;

use crate::event::{AlertKind, EventKind, Millis, Side};
use crate::games::{Article, Change, Game, GameColor, GamePosition, Placement, Start};

use super::evidence::{candidate_position, last_mover, standing_only};
use super::held::{Candidate, Held, Irregular};
use super::{
    Board, Completed, Context, Course, Explanation, KingsSignal, Move, Orientation, Playing,
    Position, Press, Touch, evidence_of, search,
};

impl<G: Game> Playing<G> {
    pub(super) fn search(
        &mut self,
        cx: &mut Context<G>,
        target: &Board<G>,
    ) -> Option<Explanation<Move<G>>> {
        let limits = cx.config.limits;
        let prefer_back = matches!(
            self.held,
            Held::Move(Candidate {
                explanation: Explanation::Back { .. },
                ..
            })
        );
        let evidence = cx
            .rules
            .ranks_by_evidence()
            .then(|| evidence_of(self, &cx.finality));
        let out = search::Query {
            rules: &cx.rules,
            game: &self.game,
            successors: &self.successors,
            prefer_back,
            resync: self.resync,
            limits,
            evidence: evidence.as_ref(),
        }
        .explain(target);
        cx.stats.searches += 1;
        cx.stats.nodes += out.nodes as u64;
        cx.stats.max_nodes = cx.stats.max_nodes.max(out.nodes);
        cx.backed = out.backed;
        let explanation = out.explanation?;
        if cx.finality.pending_plies() >= 2
            && let Some(capture) = self.capture_finished(&cx.rules, &explanation, target)
        {
            return Some(capture);
        }
        Some(explanation)
    }

    /// A reading while a game is on: its ordered rules, each a named step.
    /// The first steps may explain the board on their own (and end the
    /// reading); then the board is searched, the explanation screened
    /// against what the readings showed, and followed or watched.
    /// Returns the start position of a new game set up on the board, if
    /// one is (the game ends, and the reading with it).
    pub(super) fn on_reading(
        &mut self,
        cx: &mut Context<G>,
        at: Millis,
        start: Option<Start<Position<G>>>,
    ) -> Option<Start<Position<G>>> {
        let target = self.target(cx);
        if self.course.frozen() {
            // A finished game: only a new start position matters.
            return start;
        }
        if self.watch_result_signal(cx, at, &target) {
            return None;
        }
        // The piece that just moved came back to a square it stood on
        // before the one its ply was published to (it was knocked on and
        // set back): that square is the move, and the opponent's reply is
        // read from it first, before any other history (play around a
        // displacement, standing or not, a repeated position taken for a
        // takeback).
        if self.correction_came_back() && self.follow_from_correction(cx, at, &target) {
            return None;
        }
        self.correction_confirmed_by_reply(cx, at, &target);
        if self.follow_standing_displacement(cx, at, &target) {
            return None;
        }
        let (target, explanation) = self.explain_reading(cx, &target);
        let mut explanation = match self.new_game_or_confirmed(cx, start, &target, explanation) {
            ControlFlow::Continue(explanation) => explanation,
            ControlFlow::Break(start) => return Some(start),
        };
        if let Some(e) = explanation.take() {
            explanation = Some(self.as_seen(e));
        }
        if explanation
            .as_ref()
            .is_some_and(|e| self.contradicted(e, &target))
        {
            explanation = None;
        }
        let explanation = self.play_on_from_irregular(cx, at, &target, explanation);
        if explanation.is_none() && self.explain_otherwise(cx, at, &target) {
            return None;
        }
        match explanation {
            None => {
                if let Some(c) = self.held.candidate_mut() {
                    c.showing = false;
                }
                self.watch_unexplained(cx, at, &target);
            }
            Some(explanation) => {
                // (The correction of a final move reported as a
                // displacement, read again: still displaced.)
                let still = self.awaits_reply(&cx.rules, cx.finality.final_plies(), &target)
                    && self
                        .held
                        .candidate()
                        .is_some_and(|c| c.explanation == explanation);
                self.resync = false;
                self.held.drop_illegal();
                self.displaced = None;
                if !still {
                    self.clear_unexplained(cx, at);
                }
                self.follow(cx, at, explanation);
            }
        }
        None
    }

    /// Step: players report a result with both kings on the centre
    /// squares; it counts once it has stood a moment (a king set down
    /// briefly on a wrong square can touch the centre too). Returns whether
    /// the board shows the signal (nothing else is read from it).
    pub(super) fn watch_result_signal(
        &mut self,
        cx: &mut Context<G>,
        at: Millis,
        target: &Board<G>,
    ) -> bool {
        let delay = cx.config.settle.kings_signal_ms;
        match cx.rules.result_signal(&self.game, target) {
            Some((plies, result)) => {
                if self.kings.as_ref().is_none_or(|k| k.board != *target) {
                    self.kings = Some(KingsSignal {
                        due: at + delay,
                        plies,
                        result,
                        board: target.clone(),
                    });
                }
                if let Some(c) = self.held.candidate_mut() {
                    c.showing = false;
                }
                true
            }
            None => {
                self.kings = None;
                false
            }
        }
    }

    /// Step: the search, with the board turned round while its orientation
    /// is open, and a completed move kept: returns the board in game
    /// orientation and its explanation.
    pub(super) fn explain_reading(
        &mut self,
        cx: &mut Context<G>,
        target: &Board<G>,
    ) -> (Board<G>, Option<Explanation<Move<G>>>) {
        let mut explanation = self.search(cx, target);
        if explanation.is_none() {
            explanation = self.men_left_standing(cx, target);
        }
        // The board's orientation is still open (a symmetric start on a
        // board without piece identity): the first move that explains the
        // board turned round fixes it.
        let target = match self.orient(cx, target, explanation.is_none()) {
            Some((turned, e)) => {
                explanation = Some(e);
                turned
            }
            None => target.clone(),
        };
        // A completed move (its player pressed the clock) does not travel
        // on: a change of that piece is a displacement.
        if explanation
            .as_ref()
            .is_some_and(|e| self.held_correction(e))
            && self.game.len() <= self.completed
        {
            explanation = None;
        }
        (target, explanation)
    }

    /// Step, in games whose captured pieces are often left for the
    /// opponent to clear (draughts): a board that differs from the position
    /// after a legal capture only by its captured men still standing is that
    /// capture; one that differs from the game's position only by the men
    /// its last ply captured is that position. The men are cleared later,
    /// often by the opponent at the start of their turn.
    pub(super) fn men_left_standing(
        &self,
        cx: &Context<G>,
        target: &Board<G>,
    ) -> Option<Explanation<Move<G>>> {
        if !cx.rules.captures_left_standing() {
            return None;
        }
        let pos = self.game.position();
        if let Some(last) = self.game.plies().last().and_then(|x| x.m.as_ref()) {
            let before = self.game.position_at(self.game.len() - 1);
            if standing_only::<G>(before, last, pos.board(), target) {
                return Some(Explanation::Same);
            }
        }
        // Two captures may leave the same men standing (a king's circular
        // jump, either way round): the one whose landings were read in its
        // order is the one made.
        let evidence = evidence_of(self, &cx.finality);
        let in_order = |m: &Move<G>| evidence.landings_in_order(&cx.rules, m);
        self.successors
            .iter()
            .filter(|(after, m)| standing_only::<G>(pos, m, after, target))
            // (The first found among equals.)
            .rev()
            .max_by_key(|(_, m)| in_order(m))
            .map(|(_, m)| Explanation::Forward(vec![m.clone()]))
    }

    /// Step: the start position set up again is a new game (and the
    /// reading ends), unless the game itself explains it by play; a board
    /// no explanation fits may prove the candidate move finished (it is
    /// then published, and the board searched again).
    pub(super) fn new_game_or_confirmed(
        &mut self,
        cx: &mut Context<G>,
        start: Option<Start<Position<G>>>,
        target: &Board<G>,
        explanation: Option<Explanation<Move<G>>>,
    ) -> ControlFlow<Start<Position<G>>, Option<Explanation<Move<G>>>> {
        if let Some(start) = start {
            let by_play = matches!(
                explanation,
                Some(Explanation::Same | Explanation::Forward(_))
            );
            // The first move or two put back (a piece touched and put
            // back, a knock before the first move read as one): a
            // takeback, not a new game.
            let put_back = !self.course.ended()
                && matches!(&explanation, Some(Explanation::Back { plies, then })
                    if then.is_empty() && *plies == self.game.len() && *plies <= 2);
            // (Nor one piece's step from the game in play: a knock that
            // recreates the start after moves that cancel out, 1. Nc3 h6
            // 2. Nb1 and the pawn knocked back to h7. Players setting up a
            // new game move more than one piece.)
            let knocked = !self.course.ended()
                && search::one_piece_apart(self.game.position().board(), target);
            if !by_play && !put_back && !knocked && (!self.game.is_empty() || self.course.ended()) {
                return ControlFlow::Break(start);
            }
        }
        if explanation.is_some() {
            return ControlFlow::Continue(explanation);
        }
        // The opponent lifting one of their own pieces proves the
        // candidate move finished (not a takeback: lifting a piece after
        // restoring a position proves nothing), and so does their reply
        // standing on the board when no legal move explains it.
        if self.confirmed_by_lift(&cx.rules, target) || self.confirmed_by_reply(&cx.rules, target) {
            let c = self.held.take_candidate().expect("checked");
            self.commit(cx, c);
            return ControlFlow::Continue(self.search(cx, target));
        }
        ControlFlow::Continue(None)
    }

    /// Step: a board legal play does not explain may still be explained
    /// around a displacement, from a held correction, or by re-examining
    /// the last plies. Returns whether one of them did.
    pub(super) fn explain_otherwise(
        &mut self,
        cx: &mut Context<G>,
        at: Millis,
        target: &Board<G>,
    ) -> bool {
        if self.follow_around_displacement(cx, at, target) {
            return true;
        }
        if self.follow_from_correction(cx, at, target) {
            return true;
        }
        // A displaced piece of the side that moved last has moved on from
        // where it stood (that side played it from there): a history in
        // which its last ply went there explains the board with no
        // irregularity at all.
        let moved_on = self.displaced.as_ref().is_some_and(|d| {
            !d.shadow && !Board::<G>::agrees(Some(d.m.placed()), target.piece_at(d.m.to()))
        });
        moved_on && self.reexamine(cx, at, target, false)
    }

    /// The board is explained: make the explanation the candidate.
    pub(super) fn follow(
        &mut self,
        cx: &mut Context<G>,
        at: Millis,
        explanation: Explanation<Move<G>>,
    ) {
        // An explanation the readings do not back up (a knock on a board
        // without piece identity can look like a capture) is held longer,
        // and none of it is published at once.
        let unbacked = !std::mem::replace(&mut cx.backed, true);
        if explanation == Explanation::Same {
            self.held.drop_candidate();
            // A move shown before it settled is gone from the board.
            let plies = self.game.len();
            cx.finality.unshow(at, plies, &mut cx.events);
            return;
        }
        let explanation = self.publish_finished_plies(cx, at, explanation, unbacked);
        let reading = cx.stats.readings;
        let rules = &cx.rules;
        let same = self
            .held
            .candidate()
            .is_some_and(|c| c.explanation == explanation);
        if !same {
            if let Some(old) = self.held.candidate()
                && self.held_correction(&old.explanation)
                && !self.held_correction(&explanation)
            {
                self.prior_correction = Some(old.clone());
            }
            let settle = self.candidate_settle(rules, &cx.config, &explanation, unbacked);
            if self.held_correction(&explanation) {
                // The piece that just moved is on another square: it
                // travelled on after a pause, or it was knocked and will be
                // set back. Only time (or the mover's clock press) tells:
                // it is held as long as a displacement (see
                // `candidate_settle`), and treated as one meanwhile.
                self.displaced = self.shadow_displacement(rules, &explanation, at);
            }
            // A correction a knock can fake, or an explanation the
            // readings do not back up, is not shown before it settles.
            let previewed = unbacked || self.held_correction(&explanation);
            self.held = Held::Move(Candidate {
                explanation,
                since: at,
                settle,
                reading,
                showing: true,
                previewed,
                unbacked,
            });
        } else if let Some(c) = self.held.candidate_mut() {
            c.showing = true;
            let c = self.held.candidate().expect("checked");
            if self.displaced.is_none() && self.held_correction(&c.explanation) {
                // Back on the same correction (the piece travelled on, or
                // was knocked, and a square flickered meanwhile): it still
                // stands for a displacement, seen first when the
                // correction was.
                self.displaced = self.shadow_displacement(rules, &c.explanation, c.since);
            }
        }
        // Back on a candidate that has already stood long enough.
        self.handle_timeout(cx, at);
    }

    /// Every ply of an explanation followed by a ply of the opponent is
    /// finished: it is published now, and only the last one is returned to
    /// settle (unless the readings do not back the explanation up).
    pub(super) fn publish_finished_plies(
        &mut self,
        cx: &mut Context<G>,
        at: Millis,
        explanation: Explanation<Move<G>>,
        unbacked: bool,
    ) -> Explanation<Move<G>> {
        // A finished ply that may begin a result signal (a king into the
        // centre) waits with the rest: the reply may be a piece cleared
        // while the other king comes. So does every ply before a last one
        // that may begin it: a piece cleared from the centre and a king
        // set there read as a move onto that square and the king taking
        // it.
        let signal = |moves: &[Move<G>]| {
            let mut pos = self.game.position().clone();
            moves.iter().any(|m| {
                let begins = cx.rules.may_begin_signal(&pos, m);
                pos = pos.play(m);
                begins
            })
        };
        match explanation {
            Explanation::Forward(mut moves) if moves.len() >= 2 && !unbacked && !signal(&moves) => {
                let last = moves.pop().expect("two or more");
                // The evidence for the plies after them is in the readings
                // since the board showed them, if it did.
                let explanation = Explanation::Forward(moves);
                let reading = match self.held.take_candidate() {
                    Some(c) if c.explanation == explanation => c.reading,
                    _ => self.evidence_base,
                };
                self.commit(
                    cx,
                    Candidate {
                        explanation,
                        since: at,
                        settle: 0,
                        reading,
                        showing: false,
                        previewed: true,
                        unbacked,
                    },
                );
                Explanation::Forward(vec![last])
            }
            e => e,
        }
    }

    /// Publishes a candidate. The events carry the time of the reading that
    /// completed it.
    pub(super) fn commit(&mut self, cx: &mut Context<G>, c: Candidate<G>) {
        let t = c.since;
        let delays = cx.config.delays;
        let rules = &cx.rules;
        if self.held_correction(&c.explanation) {
            self.displaced = None;
        }
        self.prior_correction = None;
        self.evidence_base = self.evidence_base.max(c.reading);
        let mut out = Vec::new();
        match c.explanation {
            Explanation::Same => {}
            Explanation::Forward(moves) => {
                for m in moves {
                    // Only lifts before the move was set down: a piece
                    // lifted after it (a knock while the move settled) is
                    // no touch before the move (the move was final once
                    // released).
                    let before: Vec<Touch<G>> = self
                        .touches
                        .iter()
                        .filter(|x| x.lifted < t)
                        .cloned()
                        .collect();
                    if !before.is_empty() {
                        let alerts =
                            rules.touch_alerts(self.game.position(), &m, &before, delays.touch_ms);
                        out.extend(alerts.into_iter().map(EventKind::Alert));
                    }
                    self.touches.clear();
                    // (Or later, when the hand went on finishing it before
                    // the board settled: a man taken off from beside.)
                    self.moved_at = Some(self.moved_at.map_or(t, |m| m.max(t)));
                    if self.moves_its_victim(rules, &m) {
                        cx.finality.hold_reply(self.game.len() as u32 + 1);
                    }
                    out.push(self.push_move(rules, m));
                    out.extend(self.after_move(rules));
                }
            }
            Explanation::Back { plies, then } if then.is_empty() => {
                let to = self.game.len() - plies;
                self.game.truncate(to);
                self.successors = search::successors(self.game.position());
                self.rebuild_referee(rules);
                out.push(rules.takeback_event(to as u32, self.game.position()));
                self.course = Course::InPlay;
                if to == 0 && self.oriented_by_play {
                    // The move that turned the board round is taken back
                    // (a knock read as the first move): its orientation
                    // goes with it.
                    self.oriented_by_play = false;
                    self.orientation = Orientation::Open;
                    self.turn_squares_round(rules);
                }
            }
            Explanation::Back { plies, then } => {
                out.extend(self.withdraw(rules, plies));
                self.course = Course::InPlay;
                for m in then {
                    if self.moves_its_victim(rules, &m) {
                        cx.finality.hold_reply(self.game.len() as u32 + 1);
                    }
                    out.push(self.push_move(rules, m));
                    out.extend(self.after_move(rules));
                }
            }
        }
        self.touches.clear();
        let final_ms = cx.config.settle.final_ms;
        cx.finality.route_batch(t, out, final_ms, &mut cx.events);
    }

    /// While the board's orientation is open and no move was made: when
    /// the board is not explained as it stands, whether it is explained
    /// turned round (the first move, seen from the other side). If so the
    /// orientation is fixed, and the turned board and its explanation are
    /// returned.
    pub(super) fn orient(
        &mut self,
        cx: &mut Context<G>,
        target: &Board<G>,
        unexplained: bool,
    ) -> Option<(Board<G>, Explanation<Move<G>>)> {
        if !(self.orientation == Orientation::Open && unexplained && self.game.is_empty()) {
            return None;
        }
        let turned = target.rotated();
        // The evidence turned round with the board.
        self.turn_evidence(cx);
        // Only an explanation the readings back up fixes the orientation:
        // a piece in the hand or knocked reads, turned round, as a capture
        // whose destination nobody touched.
        let Some(e) = self.search(cx, &turned).filter(|_| cx.backed) else {
            self.turn_evidence(cx);
            return None;
        };
        self.orientation = Orientation::Rotated;
        self.oriented_by_play = true;
        // (The readings' numbers per square were turned for the search.)
        self.turn_readings_round(&cx.rules);
        Some((turned, e))
    }

    /// Turns the squares of the evidence (see [`Playing::touched_at`])
    /// round.
    pub(super) fn turn_evidence(&mut self, cx: &mut Context<G>) {
        self.turn_touched_at(&cx.rules);
    }

    /// The game's result, given by the operator, a result piece or the
    /// kings in the centre: the game ends and its record is frozen until a
    /// new game is set up. Does nothing when the result is already known.
    pub(super) fn set_result(
        &mut self,
        cx: &mut Context<G>,
        at: Millis,
        result: &str,
        reason: &str,
    ) {
        if self.course.frozen() {
            return;
        }
        self.course = Course::Frozen;
        self.held.drop_candidate();
        self.held.drop_illegal();
        self.displaced = None;
        // A displacement reported while the result signal was on its way
        // (a king set early in the centre) is withdrawn.
        if self
            .unexplained
            .is_some_and(|u| u.raised == Some(AlertKind::Misplaced))
        {
            cx.emit_cleared(
                at,
                AlertKind::Misplaced,
                Article::Displaced,
                "The game has ended; the displaced-pieces report is withdrawn.",
            );
        }
        self.unexplained = None;
        cx.emit(
            at,
            EventKind::GameEnd {
                result: result.into(),
                reason: reason.into(),
                winner: cx.rules.game_id().winner(result),
            },
        );
    }

    pub(super) fn press(&mut self, cx: &mut Context<G>, at: Millis, side: Side) -> Press {
        debug_assert!(cx.events.back().is_none_or(|(t, _)| *t <= at));
        let target = self.target(cx);
        // The candidate is on the board, or the opponent has already begun
        // to take one of its pieces (a capture begun with the victim).
        if let Some(c) = self.held.candidate()
            && (c.showing
                || search::only_removals(
                    candidate_position(&self.game, &c.explanation).board(),
                    &target,
                ))
            && last_mover(&self.game, &c.explanation) == Some(side)
        {
            let c = self.held.take_candidate().expect("checked");
            self.commit(cx, c);
            self.completed = self.game.len();
            return Press::Published;
        }
        let turn = self.game.position().turn().side();
        // A piece of the side not to move stands displaced and that side
        // pressed its clock: a move out of turn was completed (Laws 6.2a,
        // 7.5). Without the press it stays a displacement. (Not when the
        // press completes the presser's own provisional move: the press is
        // that move's, and the piece beside it was knocked.)
        if turn != side
            && cx.finality.pending_mover() != Some(side)
            && self.held.illegal().is_none()
            && self
                .displaced
                .as_ref()
                .is_some_and(|d| d.m.mover().side() == side)
            && self.held.candidate().is_none()
        {
            let d = self.displaced.take().expect("checked");
            let made = cx.rules.pseudo_board(self.game.position(), &d.m, &target);
            self.held = Held::Illegal(Irregular {
                m: d.m,
                board: target,
                made,
                reported: None,
                reply_since: None,
                capture_lifted: false,
            });
            self.report_illegal(cx, at, Completed::Press);
            return Press::IllegalMove;
        }
        // The side to move pressed with an illegal move on the board: it
        // is completed.
        if turn == side
            && self
                .held
                .illegal()
                .is_some_and(|x| x.reported.is_none() && x.m.mover().side() == side)
        {
            self.report_illegal(cx, at, Completed::Press);
            return Press::IllegalMove;
        }
        if turn != side && !self.game.is_empty() {
            // The presser made the last ply: it is complete.
            self.completed = self.game.len();
        }
        if self.held.candidate().is_none()
            && self.game.position().turn().side() == side
            && self.unexplained.is_none()
        {
            return Press::NoMove;
        }
        Press::Nothing
    }
}
