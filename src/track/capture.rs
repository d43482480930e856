//! Captures made in more than one touch, as real hands make them: the
//! capturing piece set down short of its victim, the victim lifted first
//! or after, the capture finished later. Methods of the playing state
//! ([`super::Playing`]) that the reading rules ask, and what they need of
//! a position.

use super::*;

impl<G: Game> Playing<G> {
    /// Whether the pieces of the side to move that `target` lacks after `m`
    /// (played from `before` to `after`, taking nothing) are victims the piece
    /// of `m` may yet capture: it was set down short of them (a capture in
    /// three touches: set down, the victim lifted, the capture made), so their
    /// lift is not the opponent beginning to reply. A victim that can take the
    /// piece may be replying by taking it, lifted after it: then the order
    /// tells. A victim lifted before the piece left its square is the
    /// capture's too (victim first, then the piece slid to it: where it
    /// touches down on the way is its path, not its landing; issue 44).
    pub(super) fn about_to_capture(
        &self,
        rules: &G,
        before: &Position<G>,
        m: &Move<G>,
        after: &Position<G>,
        target: &Board<G>,
    ) -> bool {
        if (m.touched() & before.board().by_color(before.turn().other())).any() {
            return false;
        }
        let removed = after.board().occupied() & !target.occupied();
        let theirs = removed & after.board().by_color(after.turn());
        // (Asked at every timer poll: the cheap tests first, the moves
        // generated only when an opponent's piece is off the board.)
        if theirs.is_empty() {
            return false;
        }
        let on = m.to();
        if !victims_of_capture_from(rules, before, m.from(), on, theirs) {
            return false;
        }
        let threat = after
            .legal_moves()
            .any(|r| theirs.contains(r.from()) && r.touched().contains(on));
        !threat
            || self.lifted_under_the_piece(on, theirs)
            || self.lifted_before_the_piece(m.from(), theirs)
    }

    /// Whether `reply` moves the piece that the game's last ply's piece could
    /// capture from where it was set down (see [`victims_of_capture_from`]):
    /// a victim set down beside for a moment before the capture is finished
    /// looks just like it, so such a reply alone proves nothing of the ply.
    pub(super) fn moves_its_victim(&self, rules: &G, reply: &Move<G>) -> bool {
        self.moves_victim_of(rules, self.game.len(), reply)
    }

    /// Whether `reply` moves the piece that the piece of the first `plies`
    /// plies' last could capture from where it was set down.
    fn moves_victim_of(&self, rules: &G, plies: usize, reply: &Move<G>) -> bool {
        let Some(last) = plies
            .checked_sub(1)
            .and_then(|i| self.game.plies()[i].m.as_ref())
        else {
            return false;
        };
        let before = self.game.position_at(plies - 1);
        victims_of_capture_from(rules, before, last.from(), last.to(), reply.from().into())
    }

    /// The square of the piece whose capture a reply held by
    /// [`Playing::moves_its_victim`] may still finish: the game's last ply moved the
    /// piece that the ply before's piece, on that square, could capture.
    pub(super) fn capture_held_from(&self, rules: &G) -> Option<Square<G>> {
        let n = self.game.len();
        let reply = self.game.plies().last()?.m.as_ref()?;
        let before = self.game.plies().get(n.checked_sub(2)?)?.m.as_ref()?;
        self.moves_victim_of(rules, n - 1, reply)
            .then(|| before.to())
    }

    /// The capture a held reply waited for, made: the game ends in a move
    /// short of a capture and a reply moving its victim (see
    /// [`Playing::capture_held_from`]), and `e` plays the first move's piece on from its
    /// stop to the victim's square. When the capture from where that piece
    /// started explains `target` as well (a board sensing occupancy cannot
    /// tell the two apart), it is that capture: the stop and the "reply" are
    /// withdrawn. A reply made and answered that fast is a victim set down
    /// beside on its way off the board, not two moves.
    pub(super) fn capture_finished(
        &self,
        rules: &G,
        e: &Explanation<Move<G>>,
        target: &Board<G>,
    ) -> Option<Explanation<Move<G>>> {
        let Explanation::Forward(moves) = e else {
            return None;
        };
        let [m] = &moves[..] else {
            return None;
        };
        let stop = self.capture_held_from(rules)?;
        let n = self.game.len();
        let victim = self.game.plies()[n - 1].m.as_ref()?.from();
        let first = self.game.plies()[n - 2].m.as_ref()?;
        if m.from() != stop || m.to() != victim {
            return None;
        }
        let before = self.game.position_at(n - 2);
        let capture = before
            .legal_moves()
            .find(|c| c.from() == first.from() && c.to() == victim)?;
        before
            .play(&capture)
            .board()
            .matches(target)
            .then(|| Explanation::Back {
                plies: 2,
                then: vec![capture],
            })
    }

    /// Whether a piece on `victims` was lifted before the piece on `from` was
    /// (its newest lift): the victim of a capture made victim first. No reply
    /// comes before the move it replies to.
    fn lifted_before_the_piece(&self, from: Square<G>, victims: Set<G>) -> bool {
        let mut older = self.recent.iter().rev();
        if !older.any(|&(sq, seen, _)| sq == from && seen.is_none()) {
            return false;
        }
        older.any(|&(sq, seen, _)| seen.is_none() && victims.contains(sq))
    }

    /// Streamed readings of a board that names pieces: a history of two or
    /// more plies in which a ply sets a piece down and the next captures it
    /// there needs that piece seen on that square. Players clearing the centre
    /// for a result signal (the pawns on d5 and e4 lifted, a king set on d5)
    /// read for a moment as a capture there and the king taking the capturer
    /// (`exd5 Kxd5`), though no white pawn ever stood on d5.
    pub(super) fn captured_unseen(&self, e: &Explanation<Move<G>>) -> bool {
        let Explanation::Forward(moves) = e else {
            return false;
        };
        if self.resync || moves.len() < 2 {
            return false;
        }
        let mut pos = self.game.position().clone();
        for pair in moves.windows(2) {
            let (m, next) = (&pair[0], &pair[1]);
            let after = pos.play(m);
            let placed = after.board().piece_at(m.to());
            // The next ply takes it there (not the piece moving on itself).
            let taken = placed.is_some()
                && next.from() != m.to()
                && next.touched().contains(m.to())
                && after.board_after(next).piece_at(m.to()) != placed;
            if taken {
                let seen = self.recent.iter().any(|&(sq, seen, _)| {
                    sq == m.to() && seen.is_some() && Board::<G>::agrees(placed, seen)
                });
                if !seen {
                    return true;
                }
            }
            pos = after;
        }
        false
    }

    /// Whether the pieces on `victims` were lifted while the piece set down on
    /// `on` still stood there (it may have been lifted since): the order of a
    /// capture in three touches. A reply capturing that piece lifts it first,
    /// then the capturer.
    pub(super) fn lifted_under_the_piece(&self, on: Square<G>, victims: Set<G>) -> bool {
        // From the newest lift of a victim back in time: the piece's arrival
        // on `on` before any lift of it.
        let mut older = self.recent.iter().rev();
        if !older.any(|&(sq, seen, _)| seen.is_none() && victims.contains(sq)) {
            return false;
        }
        for &(sq, seen, _) in older {
            if sq == on {
                return seen.is_some();
            }
        }
        false
    }

    /// Whether the piece of the last ply went on to capture with its victim
    /// lifted after it was set down on the square its ply was published to:
    /// the capture in three touches (set down short of the victim, the victim
    /// cleared, the piece moved on). A knock never lifts a piece of the other
    /// side first.
    pub(super) fn victim_cleared_first(&self, e: &Explanation<Move<G>>) -> bool {
        let Explanation::Back { plies: 1, then } = e else {
            return false;
        };
        let [next] = then.as_slice() else {
            return false;
        };
        let Some(last) = self.game.plies().last().and_then(|x| x.m.as_ref()) else {
            return false;
        };
        let before = self.game.position_at(self.game.len() - 1);
        let victims = next.touched() & before.board().by_color(before.turn().other());
        let mut lifted = false;
        for &(sq, seen, _) in self.recent.iter().rev() {
            match seen {
                Some(_) if sq == last.to() => return lifted,
                None if victims.contains(sq) => lifted = true,
                _ => {}
            }
        }
        false
    }

    /// Whether a piece of the side to move that `target` lacks was lifted
    /// after the game's last ply's piece was set down, as the readings number
    /// them: a reply begins after the move it answers. (A victim lifted while
    /// the capturing piece was still in the air, the piece then touching down
    /// short of it, reads as a move and a reply taking it.) Always so in games
    /// that keep no evidence (see [`Game::ranks_by_evidence`]).
    pub(super) fn lifted_after_landing(
        &self,
        rules: &G,
        evidence: &search::Evidence<'_>,
        target: &Board<G>,
    ) -> bool {
        let reading = |sq| evidence.at(rules, sq);
        let lifted = lifted_of_side_to_move::<G>(self.game.position(), target);
        evidence.touched_at.is_empty()
            || self
                .game
                .plies()
                .last()
                .and_then(|x| x.m.as_ref())
                .is_none_or(|m| lifted.into_iter().any(|sq| reading(sq) > reading(m.to())))
    }
}

/// Whether every square in `lifted` holds a piece that a legal capture by
/// the piece on `from` takes in `pos`, that piece having been set down on
/// `set_down`, short of the capture (see [`Game::short_of_capture`]):
/// their lift is part of that capture (the capturing piece set down beside
/// its victim or on its way, then the victim cleared; draughts players
/// lift the men a multi-jump takes between hops), never the opponent
/// beginning to reply. A piece set down elsewhere proves nothing of the
/// kind: a man lifted after a plain step is the reply.
pub(super) fn victims_of_capture_from<G: Game>(
    rules: &G,
    pos: &Position<G>,
    from: Square<G>,
    set_down: Square<G>,
    lifted: Set<G>,
) -> bool {
    let capturable = capturable_short_of(rules, pos, from, set_down);
    lifted.any() && (lifted & !capturable).is_empty()
}

/// The opponent's pieces that a legal capture by the piece on `from` in
/// `pos` takes, among the captures that piece may stop short of on
/// `set_down` (see [`Game::short_of_capture`]).
fn capturable_short_of<G: Game>(
    rules: &G,
    pos: &Position<G>,
    from: Square<G>,
    set_down: Square<G>,
) -> Set<G> {
    let theirs = pos.board().by_color(pos.turn().other());
    pos.legal_moves()
        .filter(|m| m.from() == from && rules.short_of_capture(m, set_down))
        .fold(Set::<G>::default(), |acc, m| acc | (m.touched() & theirs))
}

/// Whether `m`, played in `pos`, leaves its piece where a player capturing
/// with it stops short of the victim (beside it, or on the way): the
/// capture in three touches may be under way, so the move waits until the
/// victim's lift (part of that capture) can come.
pub(super) fn short_of_a_capture<G: Game>(rules: &G, pos: &Position<G>, m: &Move<G>) -> bool {
    let theirs = pos.board().by_color(pos.turn().other());
    (m.touched() & theirs).is_empty() && capturable_short_of(rules, pos, m.from(), m.to()).any()
}

/// Whether a piece of the side to move in `after`, lifted in `target`,
/// could capture the piece on `sq` (onto it, or en passant).
pub(super) fn taken_there<G: Game>(after: &Position<G>, target: &Board<G>, sq: Square<G>) -> bool {
    let lifted = lifted_of_side_to_move::<G>(after, target);
    after.board().piece_at(sq).is_some()
        && after.legal_moves().any(|m| {
            lifted.contains(m.from())
                && (m.to() == sq || after.board_after(&m).piece_at(sq).is_none())
        })
}
