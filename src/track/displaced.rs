use crate::event::{AlertKind, EventKind, Millis};
use crate::games::{Article, Change, Game, GameMove, GamePosition, Placement, Record, SquareSet};

use super::capture::taken_there;
use super::evidence::{
    candidate_position, displacement_delay, in_hand_of_mover, put_back, signal_into,
};
use super::held::Candidate;
use super::{
    Board, Context, Displacement, Evidence, Explanation, Limits, Move, Playing, Position, Pseudo,
    Unexplained, evidence_of, search,
};

impl<G: Game> Playing<G> {
    /// Step: a displaced piece still standing where it was pushed: the rest
    /// of the board is explained around it. (Once it is that side's turn,
    /// it is still not their move: it got there before.) Returns whether
    /// that explained the board.
    pub(super) fn follow_standing_displacement(
        &mut self,
        cx: &mut Context<G>,
        at: Millis,
        target: &Board<G>,
    ) -> bool {
        let standing = self
            .displaced
            .as_ref()
            .is_some_and(|d| !d.shadow && put_back(d, target).is_some());
        standing && self.follow_around_displacement(cx, at, target)
    }

    /// Step: the opponent began to reply (lifted a piece of their own)
    /// while a correction of the last ply was held (its piece travelled
    /// on, see [`Playing::held_correction`]): the correction is the move, published
    /// at once. Players reply to the move as it stands; a knocked piece is
    /// set back before they do. (A correction of a final move waits for
    /// nothing else: see [`Playing::awaits_reply`].)
    pub(super) fn correction_confirmed_by_reply(
        &mut self,
        cx: &mut Context<G>,
        at: Millis,
        target: &Board<G>,
    ) {
        let last_final = cx.finality.final_plies() >= self.game.len();
        // Begun: a piece of theirs lifted, or their reply made (set down
        // before its piece was lifted, the board may never show the lift).
        // (Not a final move's king gone on into the centre: the other
        // king may be coming for the result signal. Nor, for a final
        // move, a corrected piece off its new square: a piece the reply
        // takes, lifted by the opponent's hand and set down beside on its
        // own line for a moment, reads as that piece moved on.)
        // (Not while the corrected piece is off its new square, unless a
        // piece lifted by the opponent could take it there, as its victim
        // lifted first: the piece an opponent's capture takes elsewhere,
        // set down beside for a moment and lifted away, is no move of its
        // own.)
        let confirmed = self.held.candidate().is_some_and(|c| {
            let after = candidate_position(&self.game, &c.explanation);
            let stands = match &c.explanation {
                Explanation::Back { then, .. } => then.last().is_none_or(|m| {
                    target.occupied().contains(m.to())
                        || !last_final && taken_there::<G>(&after, target, m.to())
                }),
                _ => true,
            };
            self.held_correction(&c.explanation)
                && stands
                && !(last_final && signal_into(&cx.rules, &c.explanation))
                && (self.lifted_against_correction(&after, target)
                    || after
                        .legal_moves()
                        .any(|m| after.board_after(&m).diff(target).is_empty()))
        });
        if confirmed {
            let c = self.held.take_candidate().expect("checked");
            self.clear_unexplained(cx, at);
            self.commit(cx, c);
        }
    }

    /// The correction of a final move (see [`Playing::awaits_reply`]) has stood the
    /// misplacement delay: the board is reported as displaced, as it would
    /// be had the piece been knocked anywhere else; the reply (or the
    /// piece set back) will tell which it was.
    pub(super) fn raise_awaiting_correction(&mut self, cx: &mut Context<G>, now: Millis) {
        let target = self.target(cx);
        if self.unexplained.is_some_and(|u| u.raised.is_some()) {
            return;
        }
        let since = self.held.candidate().map_or(now, |c| c.since);
        let alert = cx.rules.misplaced_alert(self.game.position(), &target);
        self.unexplained = Some(Unexplained {
            since,
            due: now,
            raised: Some(alert.kind),
            reexamined: true,
        });
        cx.emit(now, EventKind::Alert(alert));
    }

    /// The board is not explained, but a displacement stands: explain it
    /// with the displaced piece put back. The side to move may play on
    /// while it stands (their move is published; the `misplaced` timer
    /// keeps running until the piece is back). Returns whether that
    /// explained the board.
    pub(super) fn follow_around_displacement(
        &mut self,
        cx: &mut Context<G>,
        at: Millis,
        target: &Board<G>,
    ) -> bool {
        let delays = cx.config.delays;
        let Some(d) = &self.displaced else {
            return false;
        };
        let Some(masked) = put_back::<G>(d, target) else {
            return false;
        };
        let since = d.since;
        match self.search(cx, &masked) {
            Some(Explanation::Same) => {
                // A piece of the opponent in the air decides nothing
                // between a knock and a piece that travelled on: a held
                // correction stays, for the reply to decide.
                if !self
                    .held
                    .candidate()
                    .is_some_and(|c| self.held_correction(&c.explanation))
                {
                    self.held.drop_candidate();
                }
                if let Some(c) = self.held.candidate_mut() {
                    c.showing = false;
                }
            }
            Some(e @ Explanation::Forward(_)) => {
                self.resync = false;
                // Play went on around it: whatever it stood for, it is now
                // a displacement of its own.
                if let Some(d) = &mut self.displaced {
                    d.shadow = false;
                }
                self.follow(cx, at, e);
            }
            _ => return false,
        }
        let delay = displacement_delay(&cx.rules, &delays, self.displaced.as_ref());
        let u = self.unexplained.get_or_insert(Unexplained {
            since,
            due: since + delay,
            raised: None,
            reexamined: false,
        });
        u.due = u.since + delay;
        true
    }

    /// A correction of the last ply is held (the piece that just moved
    /// stands on another square: it travelled on, or was knocked) and the
    /// board is not explained with the piece put back. If the opponent's
    /// reply on the board is legal play from the corrected position, the
    /// opponent replied to the piece where it stands: the correction is
    /// published (`retract` and the move), then the reply. Returns whether
    /// that explained the board.
    ///
    /// Design: the reply is evidence. Had the piece been knocked from a
    /// square it was really played to, the reply would be legal with it
    /// put back (see `follow_around_displacement`, tried first); a reply
    /// legal only with the piece where it stands says it was played there.
    pub(super) fn follow_from_correction(
        &mut self,
        cx: &mut Context<G>,
        at: Millis,
        target: &Board<G>,
    ) -> bool {
        let limits = cx.config.limits;
        let Some((c, from_prior)) = self.held_or_prior() else {
            return false;
        };
        if self.game.len() <= self.completed {
            return false;
        }
        let Explanation::Back { then, .. } = &c.explanation else {
            return false;
        };
        let mut game = self.game.clone();
        game.truncate(game.len() - 1);
        game.push(then[0].clone());
        let successors = search::successors(game.position());
        let evidence = cx
            .rules
            .ranks_by_evidence()
            .then(|| evidence_of(self, &cx.finality));
        let out = search::Query {
            evidence: evidence.as_ref(),
            ..search::Query::new(&cx.rules, &game, &successors, limits)
        }
        .explain(target);
        cx.stats.searches += 1;
        cx.stats.nodes += out.nodes as u64;
        let Some(reply @ Explanation::Forward(_)) = out.explanation else {
            return false;
        };
        let c = if from_prior {
            self.held.drop_candidate();
            self.prior_correction.take()
        } else {
            self.held.take_candidate()
        }
        .expect("checked");
        self.displaced = None;
        self.held.drop_illegal();
        self.resync = false;
        self.commit(cx, c);
        self.clear_unexplained(cx, at);
        self.follow(cx, at, reply);
        true
    }

    /// Whether the held correction (the candidate, else the one a
    /// passing board replaced: [`Playing::prior_correction`]) is a piece
    /// that came back (see [`came_back`]) rather than one that travelled
    /// on.
    pub(super) fn correction_came_back(&self) -> bool {
        self.held_or_prior()
            .is_some_and(|(c, _)| self.piece_came_back(c, 0))
    }

    /// A displacement of the piece its side moved last has stood past the
    /// delay and no clock press completed that move: re-examine the last
    /// plies for a history that explains the board with no displacement
    /// (the piece travelled on after a pause). Returns whether one did; it
    /// is then published as a correction (`retract` and moves).
    ///
    /// `on_time`: re-examined because the delay ran out, not because the
    /// piece was played on from where it stands. Then a final last ply
    /// with no reply after it is never withdrawn: time alone does not
    /// correct a final move (see [`Playing::awaits_reply`]).
    pub(super) fn reexamine(
        &mut self,
        cx: &mut Context<G>,
        at: Millis,
        target: &Board<G>,
        on_time: bool,
    ) -> bool {
        let Some((i, game, first)) = self.replayed_to_displacement(cx, on_time) else {
            return false;
        };
        let back = self.game.len() - i;
        let displaced_to = first.to();
        // The plies published after it keep their order (the readings
        // gave it), when they are still legal and give the board.
        let published: Vec<Move<G>> = self.game.plies()[i + 1..]
            .iter()
            .filter_map(|r| r.m.clone())
            .collect();
        let mut replayed = game.position().clone();
        let same_order = published.len() == back - 1
            && published.iter().all(|m| {
                let ok = replayed.legal_moves().any(|l| l == *m);
                if ok {
                    replayed = replayed.play(m);
                }
                ok
            })
            && in_hand_of_mover::<G>(&replayed, target, displaced_to);
        if same_order {
            let then = std::iter::once(first).chain(published).collect();
            self.correct(cx, at, Explanation::Back { plies: back, then });
            return true;
        }
        let Some(rest) = self.search_replayed(cx, &game, back, target) else {
            return false;
        };
        let then = std::iter::once(first).chain(rest).collect();
        self.correct(cx, at, Explanation::Back { plies: back, then });
        true
    }

    /// The ply of the displaced piece's side, among the last four, that set
    /// it where it was displaced from, played again to where it stands:
    /// that ply's index, and the game up to it with the ply replayed.
    /// (`on_time`: see [`Playing::reexamine`].)
    fn replayed_to_displacement(
        &self,
        cx: &Context<G>,
        on_time: bool,
    ) -> Option<(usize, Record<G>, Move<G>)> {
        let d = self.displaced.as_ref()?;
        let n = self.game.len();
        let (i, _) = self
            .game
            .plies()
            .iter()
            .enumerate()
            .skip(n.saturating_sub(4))
            .rev()
            .find(|(i, ply)| {
                self.game.position_at(*i).turn() == d.m.mover()
                    && ply.m.as_ref().is_some_and(|m| m.to() == d.m.from())
            })?;
        // Design: the history must withdraw the ply that moved the piece
        // (so the displacement becomes where that ply went), no further
        // than four plies back; the search then plays forward from there
        // as deep as it withdrew, plus one. A ply completed by a clock
        // press is never withdrawn.
        if i < self.completed || i + 1 != d.plies {
            return None;
        }
        if on_time && i + 1 == n && cx.finality.final_plies() >= n {
            return None;
        }
        // The withdrawn ply is played again, to where the piece stands;
        // the plies after it are searched from there.
        let withdrawn = self.game.plies()[i].m.clone().expect("checked");
        let mut game = self.game.clone();
        game.truncate(i);
        let first = game.position().legal_moves().find(|m| {
            m.from() == withdrawn.from() && m.to() == d.m.to() && m.same_choice(&withdrawn)
        })?;
        game.push(first.clone());
        Some((i, game, first))
    }

    /// The plies after a replayed one (`game`, `back` plies withdrawn)
    /// that explain the board, searched as deep as were withdrawn.
    fn search_replayed(
        &self,
        cx: &mut Context<G>,
        game: &Record<G>,
        back: usize,
        target: &Board<G>,
    ) -> Option<Vec<Move<G>>> {
        let mut limits = cx.config.limits;
        let successors = search::successors(game.position());
        limits.stream_depth = back;
        limits.back = 0;
        limits.budget = limits.resync_budget;
        let evidence = cx.rules.ranks_by_evidence().then(|| Evidence {
            touched_at: &self.touched_at,
            base: self.evidence_base,
            provisional: 0,
        });
        let out = search::Query {
            evidence: evidence.as_ref(),
            ..search::Query::new(&cx.rules, game, &successors, limits)
        }
        .explain(target);
        cx.stats.searches += 1;
        cx.stats.nodes += out.nodes as u64;
        match out.explanation {
            Some(Explanation::Forward(rest)) => Some(rest),
            Some(Explanation::Same) => Some(Vec::new()),
            _ => None,
        }
    }

    /// Publishes a re-examined history at once, the displacement gone (and
    /// a `misplaced` alert raised for it cleared).
    pub(super) fn correct(
        &mut self,
        cx: &mut Context<G>,
        at: Millis,
        explanation: Explanation<Move<G>>,
    ) {
        self.clear_unexplained(cx, at);
        self.displaced = None;
        self.held.drop_illegal();
        self.held.drop_candidate();
        let reading = cx.stats.readings;
        self.commit(
            cx,
            Candidate {
                explanation,
                since: at,
                settle: 0,
                reading,
                showing: false,
                previewed: true,
                unbacked: false,
            },
        );
    }

    pub(super) fn raise_unexplained(&mut self, cx: &mut Context<G>, at: Millis) {
        let target = self.target(cx);
        if self.reexamine(cx, at, &target, true) {
            return;
        }
        if self.course.ended() || self.held.illegal().is_some_and(|x| x.reported.is_some()) {
            // Said already (an illegal move), or the game is over and the
            // pieces are being put away: nothing to add, nothing to clear.
            if let Some(u) = &mut self.unexplained {
                u.raised = Some(AlertKind::IllegalMove);
            }
            return;
        }
        // A move settling beside the displaced piece (the mover played on
        // around it, issue 60): the board is told against that move's
        // position, so that the alert names the displaced piece alone.
        // (The displaced piece, if it still stands where it went, and the
        // board with it put back.)
        let standing = self
            .displaced
            .as_ref()
            .and_then(|d| Some((d, put_back(d, &target)?)));
        let around = self
            .held
            .candidate()
            .filter(|c| matches!(c.explanation, Explanation::Forward(_)))
            .map(|c| candidate_position(&self.game, &c.explanation))
            .filter(|after| {
                standing
                    .as_ref()
                    .is_some_and(|(_, b)| b.matches(after.board()))
            });
        // No displacement kept, but one piece pushed beside legal play (a
        // move made or answered around it): that push, against the
        // position the play leads to.
        let beside = if standing.is_none() {
            pushed_beside_play(&cx.rules, self, &target, cx.config.limits)
        } else {
            None
        };
        let (around, pushed) = match beside {
            Some((after, m)) => (Some(after), Some(m)),
            None => (around, None),
        };
        let base = around.as_ref().unwrap_or(self.game.position());
        // A displaced piece that still stands where it went is what the
        // alert is about, whatever the mover's hand does meanwhile (a piece
        // of theirs in the air, a touch): told alone, with its side.
        let displaced = standing
            .filter(|(d, _)| !d.shadow)
            .map(|(d, _)| d.m.clone())
            .or(pushed)
            .map(|m| {
                let mut b = base.board().clone();
                b.discard_piece_at(m.from());
                b.set_piece_at(m.to(), m.placed());
                b
            });
        let alert = match cx.rules.illegal_position_alert(&target) {
            Some(alert) => alert,
            None => cx
                .rules
                .misplaced_alert(base, displaced.as_ref().unwrap_or(&target)),
        };
        if let Some(u) = &mut self.unexplained {
            u.raised = Some(alert.kind);
        }
        cx.emit(at, EventKind::Alert(alert));
    }

    pub(super) fn clear_unexplained(&mut self, cx: &mut Context<G>, at: Millis) {
        let Some(u) = self.unexplained.take() else {
            return;
        };
        let message = match u.raised {
            Some(AlertKind::Misplaced) => Some((
                AlertKind::Misplaced,
                Article::Displaced,
                "The board agrees with the game again.",
            )),
            Some(AlertKind::IllegalPosition) => Some((
                AlertKind::IllegalPosition,
                Article::IllegalPosition,
                "The impossible position is gone; the board agrees with the game again.",
            )),
            _ => None,
        };
        if let Some((kind, law, text)) = message {
            cx.emit_cleared(at, kind, law, text);
        }
    }

    /// A piece displaced as `m` (first seen at `at`, with `plies` in the
    /// game then): kept as the displacement unless it is the one already
    /// kept; one that changed keeps when the first was seen.
    pub(super) fn note_displacement(&mut self, m: Pseudo<G>, at: Millis, plies: usize) {
        if self.displaced.as_ref().is_some_and(|d| d.m == m) {
            return;
        }
        let (since, plies) = self
            .displaced
            .as_ref()
            .map_or((at, plies), |d| (d.since, d.plies));
        self.displaced = Some(Displacement {
            m,
            since,
            plies,
            shadow: false,
        });
    }
}

/// The board unexplained by legal play, and no displacement kept: one
/// piece (of either side) pushed beside the play (a sleeve as a move is
/// made or answered, issue 60), found as the single piece that, put back
/// where the game has it, leaves a board that one or two legal plies
/// explain without that piece (it may stand where a moved piece left). Gives the position after
/// those plies and the push (a change of that piece); none when no piece,
/// or more than one, does.
fn pushed_beside_play<G: Game>(
    rules: &G,
    p: &Playing<G>,
    target: &Board<G>,
    limits: Limits,
) -> Option<(Position<G>, Pseudo<G>)> {
    let pos = p.game.position();
    let diff = target.diff(pos.board());
    let limits = Limits {
        stream_depth: limits.stream_depth.min(2),
        ..limits
    };
    let mut found = None;
    for to in diff {
        let Some(piece) = target.piece_at(to) else {
            continue;
        };
        for from in diff {
            if target.piece_at(from).is_some() || pos.board().piece_at(from) != Some(piece) {
                continue;
            }
            let mut restored = target.clone();
            restored.discard_piece_at(to);
            restored.set_piece_at(from, piece);
            let Some(Explanation::Forward(moves)) =
                search::Query::new(rules, &p.game, &p.successors, limits)
                    .explain(&restored)
                    .explanation
            else {
                continue;
            };
            // The pushed piece stays out of the play; it may land where a
            // moved piece left.
            if moves
                .iter()
                .any(|m| m.from() == from || m.to() == from || m.to() == to)
            {
                continue;
            }
            let after = candidate_position(&p.game, &Explanation::Forward(moves));
            let Some(m) = rules.find_pseudo(&after, target) else {
                continue;
            };
            if found.is_some() {
                return None;
            }
            found = Some((after, m));
        }
    }
    found
}
