//! What the readings say of a game in play: the playing state's methods
//! that the reconstructor's reading rules ask (is a move confirmed,
//! contradicted, travelling on; how long a candidate settles; where a
//! displaced piece belongs; how a published move is pushed, withdrawn and
//! judged), and the few free functions they need of a position or a
//! record. Captures made in more than one touch are [`super::capture`]'s.

use super::*;

/// How long a piece stood on a square before it went on, for its return
/// there to be a return (see [`Playing::piece_came_back`]): longer than a
/// slide's touch on the way.
const STOOD_MS: Millis = 500;

impl<G: Game> Playing<G> {
    /// Whether the opponent lifting one of their own pieces proves the
    /// candidate move (or correction) finished. (Not a takeback: lifting a
    /// piece after restoring a position proves nothing; nor a correction a
    /// knock can fake; nor any lift after a king went to the centre: the
    /// result signal may be under way, with pieces cleared for it; nor of a
    /// candidate the readings did not back up, such as a capture onto a
    /// square no reading touched: a victim set down beside for a moment on a
    /// board sensing occupancy reads as one.)
    pub(super) fn confirmed_by_lift(&self, rules: &G, target: &Board<G>) -> bool {
        self.held.candidate().is_some_and(|c| {
            let after = candidate_position(&self.game, &c.explanation);
            // A correction of the last ply counts as a move (its piece went on
            // to capture, say), unless a knock can fake it.
            let (before, moves) = match &c.explanation {
                Explanation::Forward(moves) => (self.game.position(), moves),
                Explanation::Back { plies, then }
                    if !then.is_empty() && !self.held_correction(&c.explanation) =>
                {
                    (self.game.position_at(self.game.len() - plies), then)
                }
                _ => return false,
            };
            // (Nor the victim of a capture the candidate's piece is about to
            // make: it was set down short of it first, taking nothing.)
            let about_to_capture =
                moves.len() == 1 && self.about_to_capture(rules, before, &moves[0], &after, target);
            lifted_by_side_to_move::<G>(&after, target)
                && !c.unbacked
                && !about_to_capture
                && !signal_into(rules, &c.explanation)
        })
    }

    /// Whether the opponent's reply stands on the board, made: the board is
    /// the candidate move's position (a move, not a correction or takeback)
    /// with one piece of the side to move after it moved as a legal move
    /// moves it, but wrongly placed (a pawn set on its last rank and left
    /// there), so that no legal move explains the board. The reply itself,
    /// once on the board, completes the candidate, even a king's step into the
    /// centre, whose lifts prove nothing (see [`Playing::confirmed_by_lift`]).
    ///
    /// Design: only the squares of a legal move count. A piece knocked
    /// elsewhere (a pawn pushed back while the players walk their kings to
    /// the centre) is no reply, and treating it as one published the first
    /// king of the result signal as a move.
    pub(super) fn confirmed_by_reply(&self, rules: &G, target: &Board<G>) -> bool {
        self.held.candidate().is_some_and(|c| {
            let Explanation::Forward(_) = &c.explanation else {
                return false;
            };
            let after = candidate_position(&self.game, &c.explanation);
            rules.find_pseudo(&after, target).is_some_and(|m| {
                m.mover() == after.turn()
                    && !rules.signal_pseudo(&m)
                    && after
                        .legal_moves()
                        .any(|l| l.from() == m.from() && l.to() == m.to())
            })
        })
    }

    /// Whether an explanation contradicts what the readings showed: see
    /// [`Playing::takeback_continues`], [`Playing::against_displacement_order`] and
    /// [`Playing::moves_reported_piece`].
    pub(super) fn contradicted(&self, e: &Explanation<Move<G>>, target: &Board<G>) -> bool {
        self.takeback_continues(e, target)
            || self.against_displacement_order(e)
            || self.moves_reported_piece(e)
            || self.moves_waiting_piece(e)
            || self.captured_unseen(e)
    }

    /// Streamed readings of a board that names pieces: a ply whose piece the
    /// next ply captures where it landed (so the board never shows it again)
    /// is the choice the readings last showed there, when another legal choice
    /// of the same ply (a promotion to another piece) keeps the rest of the
    /// history legal. A pawn promoted to a bishop, the bishop read for a moment
    /// as a queen as it was set down, and taken at once, is `f1=B+ Rxf1`, not
    /// the first choice the search finds.
    pub(super) fn as_seen(&self, e: Explanation<Move<G>>) -> Explanation<Move<G>> {
        let Explanation::Forward(mut moves) = e else {
            return e;
        };
        if self.resync || moves.len() < 2 {
            return Explanation::Forward(moves);
        }
        let mut pos = self.game.position().clone();
        for k in 0..moves.len() - 1 {
            let m = &moves[k];
            let after = pos.play(m);
            let placed = after.board().piece_at(m.to());
            let gone = after.board_after(&moves[k + 1]).piece_at(m.to()) != placed;
            // The mover's piece last seen there (the capturer stands there
            // now).
            let mover = placed.and_then(GamePiece::color);
            let last = self
                .recent
                .iter()
                .rev()
                .find(|&&(sq, seen, _)| {
                    sq == m.to() && seen.is_some_and(|s| mover.is_some() && s.color() == mover)
                })
                .and_then(|&(_, seen, _)| seen);
            if gone && last.is_some() && !Board::<G>::agrees(placed, last) {
                let choice = pos.legal_moves().find(|c| {
                    c.from() == m.from()
                        && c.to() == m.to()
                        && Board::<G>::agrees(pos.board_after(c).piece_at(c.to()), last)
                });
                if let Some(c) = choice
                    && let Some(rest) = replayed::<G>(&pos.play(&c), &moves[k + 1..])
                {
                    moves.truncate(k);
                    moves.push(c);
                    moves.extend(rest);
                }
            }
            pos = pos.play(&moves[k]);
        }
        Explanation::Forward(moves)
    }

    /// A move waits to be published, its piece seen on the square it went to:
    /// a history of two or more plies that plays that piece to another square
    /// contradicts the readings when the piece was never seen there, or was
    /// seen there only before it was seen on its waiting square (it slid past
    /// on its way). (A reply capturing the piece, its victim lifted first, with
    /// the capturing piece passing another square on its way, or set down
    /// beyond its victim on the square the piece slid past, reads as such a
    /// history for a moment.)
    pub(super) fn moves_waiting_piece(&self, e: &Explanation<Move<G>>) -> bool {
        let (
            Some(Candidate {
                explanation: Explanation::Forward(waiting),
                ..
            }),
            Explanation::Forward(moves),
        ) = (self.held.candidate(), e)
        else {
            return false;
        };
        let ([w], [first, _, ..]) = (waiting.as_slice(), moves.as_slice()) else {
            return false;
        };
        if first.from() != w.from() || first.to() == w.to() {
            return false;
        }
        let placed = Some(self.game.position().board_after(first).piece_at(first.to())).flatten();
        // Where the piece was set down last: on the history's square, or on
        // the waiting move's.
        let last_seen = self.recent.iter().rev().find(|&&(sq, seen, _)| {
            (sq == first.to() || sq == w.to()) && seen.is_some() && Board::<G>::agrees(placed, seen)
        });
        last_seen.is_none_or(|&(sq, _, _)| sq != first.to())
    }

    /// A takeback under way (one ply restored, the board now lacking only
    /// pieces of the position before it): the players are taking back another
    /// ply, not making two new ones.
    pub(super) fn takeback_continues(&self, e: &Explanation<Move<G>>, target: &Board<G>) -> bool {
        if let (
            Some(Candidate {
                explanation: Explanation::Back { plies, then },
                ..
            }),
            Explanation::Forward(moves),
        ) = (self.held.candidate(), e)
        {
            then.is_empty()
                && moves.len() >= 2
                && self.game.len() > *plies
                && search::only_removals(
                    self.game.position_at(self.game.len() - plies - 1).board(),
                    target,
                )
        } else {
            false
        }
    }

    /// A displacement was seen before the rest changed: a history that plays
    /// it as a later ply (the reply to a move made after it) contradicts the
    /// order of the readings. (As the first ply too, once plies were
    /// published around it: it was seen before them.)
    pub(super) fn against_displacement_order(&self, e: &Explanation<Move<G>>) -> bool {
        let (Some(d), Explanation::Forward(moves)) = (&self.displaced, e) else {
            return false;
        };
        moves.iter().enumerate().any(|(k, m)| {
            (k >= 1 || self.game.len() > d.plies) && m.from() == d.m.from() && m.to() == d.m.to()
        })
    }

    /// After a reported illegal move, its piece was seen on the square it went
    /// to: a history of two or more plies that moves it from its old square to
    /// another one contradicts the readings (a capture of it under way, a
    /// piece sliding through). (To the same square is the arbiter's
    /// correction: a pawn left unpromoted is exchanged for a queen.)
    pub(super) fn moves_reported_piece(&self, e: &Explanation<Move<G>>) -> bool {
        let (Some(x), Explanation::Forward(moves)) = (self.held.illegal(), e) else {
            return false;
        };
        x.reported.is_some()
            && moves.len() >= 2
            && moves[0].from() == x.m.from()
            && moves[0].to() != x.m.to()
    }

    /// How long a new candidate settles: the game's settle time, longer for
    /// an explanation the readings do not back up, and as long as a
    /// displacement for a correction a knock can fake (see
    /// [`Playing::held_correction`]), a takeback of several plies one piece's change
    /// makes, or a takeback of a move completed by a clock press.
    pub(super) fn candidate_settle(
        &self,
        rules: &G,
        config: &Config,
        explanation: &Explanation<Move<G>>,
        unbacked: bool,
    ) -> Millis {
        let hold = config.delays.misplaced_ms;
        let mut settle = settle_time(rules, &config.settle, &self.game, explanation);
        if unbacked {
            settle = settle.max(config.settle.unbacked_ms);
        }
        // Three plies or more at once: moves made while nobody read the
        // board (a restart, a line down). A board still in motion (a
        // capture half made, its pieces in the hand) can read as a longer
        // legal history than the one played: it waits as long as an
        // unbacked explanation, for the hand to finish.
        if matches!(explanation, Explanation::Forward(moves) if moves.len() >= 3) {
            settle = settle.max(config.settle.unbacked_ms);
        }
        // A takeback of several plies that one piece's change makes (a
        // repeated position, a knocked piece landing where it stood earlier)
        // is held as long as a displacement: players restoring several plies
        // move more than one piece. The change counts from the game and from a
        // move not yet published (the knock can come before its settle time
        // ran out); not from a takeback not yet published (players restore one
        // ply after the other).
        if let Explanation::Back { plies, then } = explanation
            && *plies > 1
            && then.is_empty()
        {
            let earlier = self.game.position_at(self.game.len() - plies);
            let one_piece = |board: &Board<G>| board.diff(earlier.board()).count() <= 2;
            let pending = self
                .held
                .candidate()
                .filter(|c| matches!(c.explanation, Explanation::Forward(_)))
                .map(|c| candidate_position(&self.game, &c.explanation));
            if one_piece(self.game.position().board())
                || pending.is_some_and(|c| one_piece(c.board()))
            {
                settle = settle.max(hold);
            }
        }
        if self.held_correction(explanation) || self.reads_pending_as_other_piece(explanation) {
            settle = settle.max(hold);
        }
        // The first move that decided which way round the board stands,
        // put back: the board is at the start again, and the way round is
        // open again at once (see `commit`), before the real first move,
        // which often follows at once (a man of the side that moves second
        // pushed and set back, issue 60).
        if self.oriented_by_play
            && self.game.len() == 1
            && matches!(explanation, Explanation::Back { plies: 1, then } if then.is_empty())
        {
            return 0;
        }
        // A takeback of a move its player completed by pressing the clock
        // (Law 6.2a) is held as long as a displacement too: the piece that
        // moved, knocked back onto the square it came from, makes the same
        // board, and is set right within seconds; players or an arbiter
        // restoring a completed move leave the position standing. (Not every
        // final move: without a clock, players do take moves back, and a
        // knock during a held takeback would be read as moves.)
        if let Explanation::Back { plies, then } = explanation
            && then.is_empty()
            && self.game.len() - plies < self.completed
        {
            settle = settle.max(hold);
        }
        settle
    }

    /// Whether `e` re-reads the move still settling as the move of another
    /// piece of the same side to the same square: the board changed by that
    /// other piece alone (a knock onto the square the settling move left, so
    /// that the board reads as the other piece's move). Held as long as a
    /// displacement, as a knock-made correction of a published move is (see
    /// [`Playing::held_correction`]); the settling piece going on (a slide) is the
    /// same piece and is not held.
    pub(super) fn reads_pending_as_other_piece(&self, e: &Explanation<Move<G>>) -> bool {
        let (Some(c), Explanation::Forward(new)) = (self.held.candidate(), e) else {
            return false;
        };
        let (Explanation::Forward(old), [b]) = (&c.explanation, new.as_slice()) else {
            return false;
        };
        let [a] = old.as_slice() else {
            return false;
        };
        a.from() != b.from() && a.to() == b.to()
    }

    /// The displacement a held correction stands for while it settles (see
    /// [`Playing::held_correction`]): the change from the game's position to the
    /// corrected one, as a move of that piece, first seen at `since`.
    pub(super) fn shadow_displacement(
        &self,
        rules: &G,
        correction: &Explanation<Move<G>>,
        since: Millis,
    ) -> Option<Displacement<G>> {
        let after = candidate_position(&self.game, correction);
        rules
            .find_pseudo(self.game.position(), after.board())
            .map(|m| Displacement {
                m,
                since,
                plies: self.game.len(),
                shadow: true,
            })
    }

    /// Builds the referee afresh for the game as it now stands (after plies
    /// were withdrawn, or an illegal move entered the record).
    pub(super) fn rebuild_referee(&mut self, rules: &G) {
        self.referee = rules.referee(&self.game);
    }

    /// Withdraws the last `plies` published plies: `retract` events, newest
    /// first, and the game truncated.
    pub(super) fn withdraw(&mut self, rules: &G, plies: usize) -> Vec<EventKind> {
        let n = self.game.len();
        let out = (n - plies + 1..=n)
            .rev()
            .map(|ply| rules.retract_event(ply as u32, &self.game.plies()[ply - 1]))
            .collect();
        self.game.truncate(n - plies);
        self.successors = search::successors(self.game.position());
        self.rebuild_referee(rules);
        out
    }

    /// Whether `target` is the board of `after` (a correction of the game's
    /// last ply) with one or more pieces of the side to move lifted that stand
    /// in the game's position too: a piece the published ply took is off the
    /// board already, and its empty square is no lift.
    pub(super) fn lifted_against_correction(&self, after: &Position<G>, target: &Board<G>) -> bool {
        let standing = self.game.position().board().by_color(after.turn());
        search::only_removals(after.board(), target)
            && (lifted_of_side_to_move::<G>(after, target) & standing).any()
    }

    /// Game-end and draw reports after a ply: the rule book's verdicts.
    pub(super) fn after_move(&mut self, rules: &G) -> Vec<EventKind> {
        let verdicts = rules.judge(
            &mut self.referee,
            &self.game,
            !self.successors.is_empty(),
            self.course.ended(),
        );
        let mut out = Vec::with_capacity(verdicts.len());
        for v in verdicts {
            match v {
                Verdict::Alert(a) => out.push(EventKind::Alert(a)),
                Verdict::End { result, reason } => {
                    self.course = if self.course.frozen() {
                        Course::Frozen
                    } else {
                        Course::Ended
                    };
                    let winner = rules.game_id().winner(&result);
                    out.push(EventKind::GameEnd {
                        result,
                        reason,
                        winner,
                    });
                }
            }
        }
        out
    }

    /// Plays `m` in the game (whose successors `p.successors` are current) and
    /// returns its event; the successors of the new position replace them.
    pub(super) fn push_move(&mut self, rules: &G, m: Move<G>) -> EventKind {
        let ply = self.game.len() as u32 + 1;
        let side = self.game.position().turn();
        let (rec, next) = self.game.push_known(m, &self.successors);
        let event = rules.move_event(ply, side, rec, false);
        self.successors = next;
        // A move was made: a board whose orientation was open stands as read.
        if self.orientation == Orientation::Open {
            self.orientation = Orientation::Normal;
        }
        event
    }

    /// Whether the correction `c` (a held correction, see
    /// [`Playing::held_correction`]) sets the piece of the last ply back on a square it
    /// stood on before the one its ply was published to (see [`came_back`]),
    /// rather than moving it on.
    ///
    /// `stood_ms`: only when the piece stood on that square at least this
    /// long before it went on (0: any touch). A slide touches the squares on
    /// its way for a moment; a piece set back onto one of them was knocked
    /// there, not returned to where it stood.
    pub(super) fn piece_came_back(&self, c: &Candidate<G>, stood_ms: Millis) -> bool {
        let e @ Explanation::Back { then, .. } = &c.explanation else {
            return false;
        };
        if !travels_on::<G>(&self.game, e) {
            return false;
        }
        let Some(last) = self.game.plies().last().and_then(|r| r.m.as_ref()) else {
            return false;
        };
        let Some(placed) = self.game.position().board().piece_at(last.to()) else {
            return false;
        };
        came_back::<G>(&self.recent, last, placed, then[0].to()).is_some_and(|j| {
            let set = self.recent[j].2;
            // The first reading after it that emptied that square.
            let left = self
                .recent
                .iter()
                .skip(j + 1)
                .find(|&&(sq, seen, _)| sq == then[0].to() && seen.is_none())
                .map_or(set, |&(_, _, t)| t);
            left >= set + stood_ms
        })
    }

    /// The held correction: the candidate when it is one, else the one a
    /// passing board replaced ([`Playing::prior_correction`]); with whether it
    /// is the latter.
    pub(super) fn held_or_prior(&self) -> Option<(&Candidate<G>, bool)> {
        let held = |c: &&Candidate<G>| self.held_correction(&c.explanation);
        match self.held.candidate().filter(held) {
            Some(c) => Some((c, false)),
            None => self
                .prior_correction
                .as_ref()
                .filter(held)
                .map(|c| (c, true)),
        }
    }

    /// Whether an explanation re-reads the last ply in a way a knock can fake,
    /// so that it is held as long as a displacement before it is published:
    /// the piece that just moved travelled on (see [`travels_on`]), or another
    /// piece of the same side changed square and the board now reads as that
    /// piece's move instead (a knocked knight landing where the other knight
    /// came from).
    ///
    /// Design: a player who changes their published move lifts the piece they
    /// played first, so the board passes through the position before it (a
    /// takeback); a single piece changing square without that passage is what
    /// a knock does. Publishing such a re-reading after 450 ms made a knock of
    /// the side not to move look like a different move and shifted the record.
    ///
    /// Not when the piece went on to capture and its victim was lifted while
    /// it stood on the published square: that is a capture in three touches
    /// (see [`Playing::victim_cleared_first`]), which no knock makes.
    pub(super) fn held_correction(&self, e: &Explanation<Move<G>>) -> bool {
        let game = &self.game;
        if travels_on::<G>(game, e) {
            return !self.victim_cleared_first(e);
        }
        let Explanation::Back { plies: 1, then } = e else {
            return false;
        };
        let [next] = then.as_slice() else {
            return false;
        };
        let before = game.position_at(game.len() - 1);
        let after = before.play(next);
        let changed = game.position().board().diff(after.board());
        changed.count() <= 2 && (changed & game.position().board().by_color(before.turn())).any()
    }

    /// Whether the candidate is a held correction (see [`Playing::held_correction`])
    /// of a move that is already final (`final_plies` of the game are). A
    /// move final on its time has stood longer than any stop a real hand
    /// makes on the way (every one under 2 s in the recordings of real play,
    /// docs/boards.md), so its piece moving on is a knock until the opponent
    /// replies to it where it stands (Law 4.6: a piece released on a square
    /// is not moved on to another): time alone never turns it into the move.
    /// Reported as displaced at the misplacement delay meanwhile.
    ///
    /// Not a piece set back where it stood before the square its move was
    /// published to (see [`Playing::piece_came_back`]), the board then showing the
    /// corrected position whole: that is the order of readings a knock
    /// leaves, the knock being the published square. (A capture's piece
    /// pushed back onto a square it passed leaves its victim's square empty:
    /// the correction would need the victim in a hand.) Nor a king gone on
    /// into the centre (see [`signal_into`]): the result signal may be under
    /// way, and the history is re-examined at the delay as before.
    pub(super) fn awaits_reply(&self, rules: &G, final_plies: usize, target: &Board<G>) -> bool {
        final_plies >= self.game.len()
            && self.held.candidate().is_some_and(|c| {
                let whole = || {
                    candidate_position(&self.game, &c.explanation)
                        .board()
                        .diff(target)
                        .is_empty()
                };
                self.held_correction(&c.explanation)
                    && !(self.piece_came_back(c, STOOD_MS) && whole())
                    && !signal_into(rules, &c.explanation)
            })
    }

    /// Turns the squares the reading evidence names round, when the board's
    /// orientation changes: the touches and recent readings
    /// ([`Playing::turn_readings_round`]) and the readings' numbers per square
    /// ([`Playing::turn_touched_at`]).
    pub(super) fn turn_squares_round(&mut self, rules: &G) {
        self.turn_readings_round(rules);
        self.turn_touched_at(rules);
    }

    /// Turns the squares of the touches and of the recent readings round.
    pub(super) fn turn_readings_round(&mut self, rules: &G) {
        for t in &mut self.touches {
            t.sq = rules.turn_round(t.sq);
        }
        for r in &mut self.recent {
            r.0 = rules.turn_round(r.0);
        }
    }

    /// Turns the readings' numbers per square ([`Playing::touched_at`])
    /// round.
    pub(super) fn turn_touched_at(&mut self, rules: &G) {
        if self.touched_at.is_empty() {
            return;
        }
        let old = std::mem::take(&mut self.touched_at);
        self.touched_at = vec![(0, 0); old.len()];
        for (i, &t) in old.iter().enumerate() {
            let sq = rules.turn_round(rules.square(i));
            self.touched_at[rules.index(sq)] = t;
        }
    }
}

/// The piece a cell holds.
pub(super) fn cell_piece<P>(cell: Cell<P>) -> Option<P> {
    match cell {
        Cell::Piece(p) => Some(p),
        _ => None,
    }
}

/// Whether `target` is `after` (the board `m` made from `before`) with
/// some of the pieces `m` captured still standing where they stood.
pub(super) fn standing_only<G: Game>(
    before: &Position<G>,
    m: &Move<G>,
    after: &Board<G>,
    target: &Board<G>,
) -> bool {
    let captured = m.touched() & !Set::<G>::from(m.from()) & !Set::<G>::from(m.to());
    let d = after.diff(target);
    captured.any()
        && d.any()
        && (d & !captured).is_empty()
        && d.into_iter().all(|sq| {
            target.piece_at(sq).is_some()
                && Board::<G>::agrees(before.board().piece_at(sq), target.piece_at(sq))
        })
}

/// The same plies (squares and choices) played from `pos`, if they are
/// legal there (a capture then takes another piece).
fn replayed<G: Game>(pos: &Position<G>, moves: &[Move<G>]) -> Option<Vec<Move<G>>> {
    let mut pos = pos.clone();
    let mut out = Vec::with_capacity(moves.len());
    for m in moves {
        let l = pos
            .legal_moves()
            .find(|l| l.from() == m.from() && l.to() == m.to() && l.same_choice(m))?;
        pos = pos.play(&l);
        out.push(l);
    }
    Some(out)
}

/// Whether a candidate ends with a move that may be the first half of a
/// result signal (chess: a king stepping onto a centre square).
pub(super) fn signal_into<G: Game>(rules: &G, e: &Explanation<Move<G>>) -> bool {
    let moves = match e {
        Explanation::Forward(m) | Explanation::Back { then: m, .. } => m,
        Explanation::Same => return false,
    };
    moves.last().is_some_and(|m| rules.signal_move(m))
}

/// The squares of the pieces of the side to move in `after` that `target`
/// lacks (lifted, as far as the board tells).
pub(super) fn lifted_of_side_to_move<G: Game>(after: &Position<G>, target: &Board<G>) -> Set<G> {
    after.board().by_color(after.turn()) & !target.occupied()
}

/// Whether `target` is `after`'s board with one or more pieces of the side
/// to move lifted.
pub(super) fn lifted_by_side_to_move<G: Game>(after: &Position<G>, target: &Board<G>) -> bool {
    search::only_removals(after.board(), target) && lifted_of_side_to_move::<G>(after, target).any()
}

/// The position a candidate leads to.
pub(super) fn candidate_position<G: Game>(
    game: &Record<G>,
    e: &Explanation<Move<G>>,
) -> Position<G> {
    let (base, moves) = match e {
        Explanation::Same => return game.position().clone(),
        Explanation::Forward(m) => (game.position(), m.as_slice()),
        Explanation::Back { plies, then } => {
            (game.position_at(game.len() - plies), then.as_slice())
        }
    };
    moves.iter().fold(base.clone(), |p, m| p.play(m))
}

/// The side that made the last ply of a candidate (none for a takeback).
pub(super) fn last_mover<G: Game>(game: &Record<G>, e: &Explanation<Move<G>>) -> Option<Side> {
    match e {
        Explanation::Same => None,
        Explanation::Back { then, .. } if then.is_empty() => None,
        _ => Some(candidate_position(game, e).turn().other().side()),
    }
}

pub(super) fn settle_time<G: Game>(
    rules: &G,
    rule: &SettleRule,
    game: &Record<G>,
    e: &Explanation<Move<G>>,
) -> Millis {
    let (base, moves) = match e {
        Explanation::Same => return 0,
        Explanation::Forward(m) => (game.position(), m.as_slice()),
        Explanation::Back { plies, then } => {
            (game.position_at(game.len() - plies), then.as_slice())
        }
    };
    match moves.split_last() {
        None => rule.takeback_ms,
        Some((last, before)) => {
            let pos = before.iter().fold(base.clone(), |p, m| p.play(m));
            let settle = rules.settle_ms(rule, &pos, last);
            if rules.waits_short_of_capture(&pos, last) && short_of_a_capture(rules, &pos, last) {
                settle.max(rule.short_of_capture_ms)
            } else {
                settle
            }
        }
    }
}

/// How long a displacement stands before `misplaced`: a piece displaced in
/// a way that may be the first half of a result signal (chess: a king
/// onto a centre square) waits twice as long, as players reporting a
/// result set the kings there one after the other.
pub(super) fn displacement_delay<G: Game>(
    rules: &G,
    delays: &AlertDelays,
    d: Option<&Displacement<G>>,
) -> Millis {
    if d.is_some_and(|d| rules.signal_pseudo(&d.m)) {
        delays.misplaced_ms * 2
    } else {
        delays.misplaced_ms
    }
}

/// `target` with the displaced piece put back where the game has it, if it
/// still stands where it was displaced to.
pub(super) fn put_back<G: Game>(d: &Displacement<G>, target: &Board<G>) -> Option<Board<G>> {
    if d.m.compound()
        || !Board::<G>::agrees(Some(d.m.placed()), target.piece_at(d.m.to()))
        || target.piece_at(d.m.from()).is_some()
    {
        return None;
    }
    let mut b = target.clone();
    b.discard_piece_at(d.m.to());
    for (sq, piece) in d.m.taken() {
        b.set_piece_at(sq, piece);
    }
    b.set_piece_at(d.m.from(), d.m.piece());
    Some(b)
}

/// Whether `target` is `pos`'s board, or that board with at most two pieces
/// of the side to move lifted (a move under way), none of them the one on
/// `kept` (a displaced piece lifted may be on its way back).
pub(super) fn in_hand_of_mover<G: Game>(
    pos: &Position<G>,
    target: &Board<G>,
    kept: Square<G>,
) -> bool {
    let board = pos.board();
    if board.matches(target) {
        return true;
    }
    let removed = board.occupied() & !target.occupied();
    search::only_removals(board, target)
        && removed.count() <= 2
        && !removed.contains(kept)
        && (removed & !board.by_color(pos.turn())).is_empty()
}

/// Whether the piece that made `last` (`placed`, where it stands now) was
/// set down on `to` after it left its square and before it was last set on
/// the square `last` went to: it stood on `to`, went on to where the ply
/// was published, and is on `to` again.
///
/// Design: this is the order of readings a knock leaves (a piece pushed
/// off the square it was played to and set back there), not the order a
/// piece travelling on leaves (it goes on from the published square to a
/// new one). The evidence is in the order of the readings, not in any
/// game's rules.
pub(super) fn came_back<G: Game>(
    recent: &Recent<G>,
    last: &Move<G>,
    placed: Piece<G>,
    to: Square<G>,
) -> Option<usize> {
    let placed = Some(placed);
    let seen_placed = |seen: Option<Piece<G>>| seen.is_some() && Board::<G>::agrees(placed, seen);
    let mut older = recent.iter().enumerate().rev();
    older.find(|&(_, &(sq, seen, _))| sq == last.to() && seen_placed(seen))?;
    for (j, &(sq, seen, _)) in older {
        if sq == last.from() && seen.is_none() {
            return None;
        }
        if sq == to && seen_placed(seen) {
            return Some(j);
        }
    }
    None
}

/// Whether an explanation says the piece of the last ply travelled on: the
/// last ply withdrawn and the same piece, from the same square, played to
/// another square.
///
/// Design: this is the shape a knock of the piece that has just moved
/// takes too; the reconstructor holds such a correction as long as a
/// displacement (see `follow`) instead of trusting the first reading.
/// (Both plies start from the same position: the same square holds the
/// same piece.)
pub(super) fn travels_on<G: Game>(game: &Record<G>, e: &Explanation<Move<G>>) -> bool {
    let Explanation::Back { plies: 1, then } = e else {
        return false;
    };
    let [next] = then.as_slice() else {
        return false;
    };
    game.plies()
        .last()
        .and_then(|p| p.m.as_ref())
        .is_some_and(|last| last.from() == next.from())
}
