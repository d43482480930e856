//! What the readings say of a game in play: the free functions the
//! reconstructor's reading rules ask (is a move confirmed, contradicted,
//! travelling on; how long a candidate settles; where a displaced piece
//! belongs; how a published move is pushed, withdrawn and judged). They
//! read the tracker's state ([`super::Playing`]) and change only what they
//! are handed.

use super::*;

/// The piece a cell holds.
pub(super) fn cell_piece<P>(cell: Cell<P>) -> Option<P> {
    match cell {
        Cell::Piece(p) => Some(p),
        _ => None,
    }
}

/// Whether the opponent lifting one of their own pieces proves the
/// candidate move (or correction) finished. (Not a takeback: lifting a
/// piece after restoring a position proves nothing; nor a correction a
/// knock can fake; nor any lift after a king went to the centre: the
/// result signal may be under way, with pieces cleared for it; nor of a
/// candidate the readings did not back up, such as a capture onto a
/// square no reading touched: a victim set down beside for a moment on a
/// board sensing occupancy reads as one.)
pub(super) fn confirmed_by_lift<G: Game>(rules: &G, p: &Playing<G>, target: &Board<G>) -> bool {
    p.candidate.as_ref().is_some_and(|c| {
        let after = candidate_position(&p.game, &c.explanation);
        // A correction of the last ply counts as a move (its piece went on
        // to capture, say), unless a knock can fake it.
        let (before, moves) = match &c.explanation {
            Explanation::Forward(moves) => (p.game.position(), moves),
            Explanation::Back { plies, then }
                if !then.is_empty() && !held_correction(p, &c.explanation) =>
            {
                (p.game.position_at(p.game.len() - plies), then)
            }
            _ => return false,
        };
        // (Nor the victim of a capture the candidate's piece is about to
        // make: it was set down short of it first, taking nothing.)
        let about_to_capture =
            moves.len() == 1 && about_to_capture(rules, p, before, &moves[0], &after, target);
        lifted_by_side_to_move::<G>(&after, target)
            && !c.unbacked
            && !about_to_capture
            && !signal_into(rules, &c.explanation)
    })
}

/// Whether the pieces of the side to move that `target` lacks after `m`
/// (played from `before` to `after`, taking nothing) are victims the piece
/// of `m` may yet capture: it was set down short of them (a capture in
/// three touches: set down, the victim lifted, the capture made), so their
/// lift is not the opponent beginning to reply. A victim that can take the
/// piece may be replying by taking it, lifted after it: then the order
/// tells. A victim lifted before the piece left its square is the
/// capture's too (victim first, then the piece slid to it: where it
/// touches down on the way is its path, not its landing; issue 44).
pub(super) fn about_to_capture<G: Game>(
    rules: &G,
    p: &Playing<G>,
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
    let on = m.to();
    let threat = after
        .legal_moves()
        .any(|r| theirs.contains(r.from()) && r.touched().contains(on));
    victims_of_capture_from(rules, before, m.from(), on, theirs)
        && (!threat
            || lifted_under_the_piece(p, on, theirs)
            || lifted_before_the_piece(p, m.from(), theirs))
}

/// Whether `reply` moves the piece that the game's last ply's piece could
/// capture from where it was set down (see [`victims_of_capture_from`]):
/// a victim set down beside for a moment before the capture is finished
/// looks just like it, so such a reply alone proves nothing of the ply.
pub(super) fn moves_its_victim<G: Game>(rules: &G, p: &Playing<G>, reply: &Move<G>) -> bool {
    moves_victim_of(rules, p, p.game.len(), reply)
}

/// Whether `reply` moves the piece that the piece of the first `plies`
/// plies' last could capture from where it was set down.
fn moves_victim_of<G: Game>(rules: &G, p: &Playing<G>, plies: usize, reply: &Move<G>) -> bool {
    let Some(last) = plies
        .checked_sub(1)
        .and_then(|i| p.game.plies()[i].m.as_ref())
    else {
        return false;
    };
    let before = p.game.position_at(plies - 1);
    victims_of_capture_from(rules, before, last.from(), last.to(), reply.from().into())
}

/// The square of the piece whose capture a reply held by
/// [`moves_its_victim`] may still finish: the game's last ply moved the
/// piece that the ply before's piece, on that square, could capture.
pub(super) fn capture_held_from<G: Game>(rules: &G, p: &Playing<G>) -> Option<Square<G>> {
    let n = p.game.len();
    let reply = p.game.plies().last()?.m.as_ref()?;
    let before = p.game.plies().get(n.checked_sub(2)?)?.m.as_ref()?;
    moves_victim_of(rules, p, n - 1, reply).then(|| before.to())
}

/// The capture a held reply waited for, made: the game ends in a move
/// short of a capture and a reply moving its victim (see
/// [`capture_held_from`]), and `e` plays the first move's piece on from its
/// stop to the victim's square. When the capture from where that piece
/// started explains `target` as well (a board sensing occupancy cannot
/// tell the two apart), it is that capture: the stop and the "reply" are
/// withdrawn. A reply made and answered that fast is a victim set down
/// beside on its way off the board, not two moves.
pub(super) fn capture_finished<G: Game>(
    rules: &G,
    p: &Playing<G>,
    e: &Explanation<Move<G>>,
    target: &Board<G>,
) -> Option<Explanation<Move<G>>> {
    let Explanation::Forward(moves) = e else {
        return None;
    };
    let [m] = &moves[..] else {
        return None;
    };
    let stop = capture_held_from(rules, p)?;
    let n = p.game.len();
    let victim = p.game.plies()[n - 1].m.as_ref()?.from();
    let first = p.game.plies()[n - 2].m.as_ref()?;
    if m.from() != stop || m.to() != victim {
        return None;
    }
    let before = p.game.position_at(n - 2);
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
fn lifted_before_the_piece<G: Game>(p: &Playing<G>, from: Square<G>, victims: Set<G>) -> bool {
    let mut older = p.recent.iter().rev();
    if !older.any(|&(sq, seen, _)| sq == from && seen.is_none()) {
        return false;
    }
    older.any(|&(sq, seen, _)| seen.is_none() && victims.contains(sq))
}

/// Whether the opponent's reply stands on the board, made: the board is
/// the candidate move's position (a move, not a correction or takeback)
/// with one piece of the side to move after it moved as a legal move
/// moves it, but wrongly placed (a pawn set on its last rank and left
/// there), so that no legal move explains the board. The reply itself,
/// once on the board, completes the candidate, even a king's step into the
/// centre, whose lifts prove nothing (see [`confirmed_by_lift`]).
///
/// Design: only the squares of a legal move count. A piece knocked
/// elsewhere (a pawn pushed back while the players walk their kings to
/// the centre) is no reply, and treating it as one published the first
/// king of the result signal as a move.
pub(super) fn confirmed_by_reply<G: Game>(rules: &G, p: &Playing<G>, target: &Board<G>) -> bool {
    p.candidate.as_ref().is_some_and(|c| {
        let Explanation::Forward(_) = &c.explanation else {
            return false;
        };
        let after = candidate_position(&p.game, &c.explanation);
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
/// [`takeback_continues`], [`against_displacement_order`] and
/// [`moves_reported_piece`].
pub(super) fn contradicted<G: Game>(
    p: &Playing<G>,
    e: &Explanation<Move<G>>,
    target: &Board<G>,
) -> bool {
    takeback_continues(p, e, target)
        || against_displacement_order(p, e)
        || moves_reported_piece(p, e)
        || moves_waiting_piece(p, e)
        || captured_unseen(p, e)
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

/// Streamed readings of a board that names pieces: a ply whose piece the
/// next ply captures where it landed (so the board never shows it again)
/// is the choice the readings last showed there, when another legal choice
/// of the same ply (a promotion to another piece) keeps the rest of the
/// history legal. A pawn promoted to a bishop, the bishop read for a moment
/// as a queen as it was set down, and taken at once, is `f1=B+ Rxf1`, not
/// the first choice the search finds.
pub(super) fn as_seen<G: Game>(p: &Playing<G>, e: Explanation<Move<G>>) -> Explanation<Move<G>> {
    let Explanation::Forward(mut moves) = e else {
        return e;
    };
    if p.resync || moves.len() < 2 {
        return Explanation::Forward(moves);
    }
    let mut pos = p.game.position().clone();
    for k in 0..moves.len() - 1 {
        let m = &moves[k];
        let after = pos.play(m);
        let placed = after.board().piece_at(m.to());
        let gone = after.board_after(&moves[k + 1]).piece_at(m.to()) != placed;
        // The mover's piece last seen there (the capturer stands there
        // now).
        let mover = placed.and_then(GamePiece::color);
        let last = p
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

/// Streamed readings of a board that names pieces: a history of two or
/// more plies in which a ply sets a piece down and the next captures it
/// there needs that piece seen on that square. Players clearing the centre
/// for a result signal (the pawns on d5 and e4 lifted, a king set on d5)
/// read for a moment as a capture there and the king taking the capturer
/// (`exd5 Kxd5`), though no white pawn ever stood on d5.
pub(super) fn captured_unseen<G: Game>(p: &Playing<G>, e: &Explanation<Move<G>>) -> bool {
    let Explanation::Forward(moves) = e else {
        return false;
    };
    if p.resync || moves.len() < 2 {
        return false;
    }
    let mut pos = p.game.position().clone();
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
            let seen = p.recent.iter().any(|&(sq, seen, _)| {
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

/// A move waits to be published, its piece seen on the square it went to:
/// a history of two or more plies that plays that piece to another square
/// contradicts the readings when the piece was never seen there, or was
/// seen there only before it was seen on its waiting square (it slid past
/// on its way). (A reply capturing the piece, its victim lifted first, with
/// the capturing piece passing another square on its way, or set down
/// beyond its victim on the square the piece slid past, reads as such a
/// history for a moment.)
pub(super) fn moves_waiting_piece<G: Game>(p: &Playing<G>, e: &Explanation<Move<G>>) -> bool {
    let (
        Some(Candidate {
            explanation: Explanation::Forward(waiting),
            ..
        }),
        Explanation::Forward(moves),
    ) = (&p.candidate, e)
    else {
        return false;
    };
    let ([w], [first, _, ..]) = (waiting.as_slice(), moves.as_slice()) else {
        return false;
    };
    if first.from() != w.from() || first.to() == w.to() {
        return false;
    }
    let placed = Some(p.game.position().board_after(first).piece_at(first.to())).flatten();
    // Where the piece was set down last: on the history's square, or on
    // the waiting move's.
    let last_seen = p.recent.iter().rev().find(|&&(sq, seen, _)| {
        (sq == first.to() || sq == w.to()) && seen.is_some() && Board::<G>::agrees(placed, seen)
    });
    last_seen.is_none_or(|&(sq, _, _)| sq != first.to())
}

/// A takeback under way (one ply restored, the board now lacking only
/// pieces of the position before it): the players are taking back another
/// ply, not making two new ones.
pub(super) fn takeback_continues<G: Game>(
    p: &Playing<G>,
    e: &Explanation<Move<G>>,
    target: &Board<G>,
) -> bool {
    if let (
        Some(Candidate {
            explanation: Explanation::Back { plies, then },
            ..
        }),
        Explanation::Forward(moves),
    ) = (&p.candidate, e)
    {
        then.is_empty()
            && moves.len() >= 2
            && p.game.len() > *plies
            && search::only_removals(p.game.position_at(p.game.len() - plies - 1).board(), target)
    } else {
        false
    }
}

/// A displacement was seen before the rest changed: a history that plays
/// it as a later ply (the reply to a move made after it) contradicts the
/// order of the readings. (As the first ply too, once plies were
/// published around it: it was seen before them.)
pub(super) fn against_displacement_order<G: Game>(
    p: &Playing<G>,
    e: &Explanation<Move<G>>,
) -> bool {
    let (Some(d), Explanation::Forward(moves)) = (&p.displaced, e) else {
        return false;
    };
    moves.iter().enumerate().any(|(k, m)| {
        (k >= 1 || p.game.len() > d.plies) && m.from() == d.m.from() && m.to() == d.m.to()
    })
}

/// After a reported illegal move, its piece was seen on the square it went
/// to: a history of two or more plies that moves it from its old square to
/// another one contradicts the readings (a capture of it under way, a
/// piece sliding through). (To the same square is the arbiter's
/// correction: a pawn left unpromoted is exchanged for a queen.)
pub(super) fn moves_reported_piece<G: Game>(p: &Playing<G>, e: &Explanation<Move<G>>) -> bool {
    let (Some(x), Explanation::Forward(moves)) = (&p.pseudo, e) else {
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
/// [`held_correction`]), a takeback of several plies one piece's change
/// makes, or a takeback of a move completed by a clock press.
pub(super) fn candidate_settle<G: Game>(
    rules: &G,
    config: &Config,
    p: &Playing<G>,
    explanation: &Explanation<Move<G>>,
    unbacked: bool,
) -> Millis {
    let hold = config.delays.misplaced_ms;
    let mut settle = settle_time(rules, &config.settle, &p.game, explanation);
    if unbacked {
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
        let earlier = p.game.position_at(p.game.len() - plies);
        let one_piece = |board: &Board<G>| board.diff(earlier.board()).count() <= 2;
        let pending = p
            .candidate
            .as_ref()
            .filter(|c| matches!(c.explanation, Explanation::Forward(_)))
            .map(|c| candidate_position(&p.game, &c.explanation));
        if one_piece(p.game.position().board()) || pending.is_some_and(|c| one_piece(c.board())) {
            settle = settle.max(hold);
        }
    }
    if held_correction(p, explanation) || reads_pending_as_other_piece(p, explanation) {
        settle = settle.max(hold);
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
        && p.game.len() - plies < p.completed
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
/// [`held_correction`]); the settling piece going on (a slide) is the
/// same piece and is not held.
pub(super) fn reads_pending_as_other_piece<G: Game>(
    p: &Playing<G>,
    e: &Explanation<Move<G>>,
) -> bool {
    let (Some(c), Explanation::Forward(new)) = (&p.candidate, e) else {
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
/// [`held_correction`]): the change from the game's position to the
/// corrected one, as a move of that piece, first seen at `since`.
pub(super) fn shadow_displacement<G: Game>(
    rules: &G,
    p: &Playing<G>,
    correction: &Explanation<Move<G>>,
    since: Millis,
) -> Option<Displacement<G>> {
    let after = candidate_position(&p.game, correction);
    rules
        .find_pseudo(p.game.position(), after.board())
        .map(|m| Displacement {
            m,
            since,
            plies: p.game.len(),
            shadow: true,
        })
}

/// Builds the referee afresh for the game as it now stands (after plies
/// were withdrawn, or an illegal move entered the record).
pub(super) fn rebuild_referee<G: Game>(rules: &G, p: &mut Playing<G>) {
    p.referee = rules.referee(&p.game);
}

/// Withdraws the last `plies` published plies: `retract` events, newest
/// first, and the game truncated.
pub(super) fn withdraw<G: Game>(rules: &G, p: &mut Playing<G>, plies: usize) -> Vec<EventKind> {
    let n = p.game.len();
    let out = (n - plies + 1..=n)
        .rev()
        .map(|ply| rules.retract_event(ply as u32, &p.game.plies()[ply - 1]))
        .collect();
    p.game.truncate(n - plies);
    p.successors = search::successors(p.game.position());
    rebuild_referee(rules, p);
    out
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

/// Whether the pieces on `victims` were lifted while the piece set down on
/// `on` still stood there (it may have been lifted since): the order of a
/// capture in three touches. A reply capturing that piece lifts it first,
/// then the capturer.
pub(super) fn lifted_under_the_piece<G: Game>(
    p: &Playing<G>,
    on: Square<G>,
    victims: Set<G>,
) -> bool {
    // From the newest lift of a victim back in time: the piece's arrival
    // on `on` before any lift of it.
    let mut older = p.recent.iter().rev();
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

/// The squares of the pieces of the side to move in `after` that `target`
/// lacks (lifted, as far as the board tells).
fn lifted_of_side_to_move<G: Game>(after: &Position<G>, target: &Board<G>) -> Set<G> {
    after.board().by_color(after.turn()) & !target.occupied()
}

/// Whether `target` is `after`'s board with one or more pieces of the side
/// to move lifted.
pub(super) fn lifted_by_side_to_move<G: Game>(after: &Position<G>, target: &Board<G>) -> bool {
    search::only_removals(after.board(), target) && lifted_of_side_to_move::<G>(after, target).any()
}

/// Whether `target` is the board of `after` (a correction of the game's
/// last ply) with one or more pieces of the side to move lifted that stand
/// in the game's position too: a piece the published ply took is off the
/// board already, and its empty square is no lift.
pub(super) fn lifted_against_correction<G: Game>(
    p: &Playing<G>,
    after: &Position<G>,
    target: &Board<G>,
) -> bool {
    let standing = p.game.position().board().by_color(after.turn());
    search::only_removals(after.board(), target)
        && (lifted_of_side_to_move::<G>(after, target) & standing).any()
}

/// Game-end and draw reports after a ply: the rule book's verdicts.
pub(super) fn after_move<G: Game>(rules: &G, p: &mut Playing<G>) -> Vec<EventKind> {
    let verdicts = rules.judge(
        &mut p.referee,
        &p.game,
        !p.successors.is_empty(),
        p.course.ended(),
    );
    let mut out = Vec::with_capacity(verdicts.len());
    for v in verdicts {
        match v {
            Verdict::Alert(a) => out.push(EventKind::Alert(a)),
            Verdict::End { result, reason } => {
                p.course = if p.course.frozen() {
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
pub(super) fn push_move<G: Game>(rules: &G, p: &mut Playing<G>, m: Move<G>) -> EventKind {
    let ply = p.game.len() as u32 + 1;
    let side = p.game.position().turn();
    let (rec, next) = p.game.push_known(m, &p.successors);
    let event = rules.move_event(ply, side, rec, false);
    p.successors = next;
    // A move was made: a board whose orientation was open stands as read.
    if p.orientation == Orientation::Open {
        p.orientation = Orientation::Normal;
    }
    event
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

/// Whether `m`, played in `pos`, leaves its piece where a player capturing
/// with it stops short of the victim (beside it, or on the way): the
/// capture in three touches may be under way, so the move waits until the
/// victim's lift (part of that capture) can come.
fn short_of_a_capture<G: Game>(rules: &G, pos: &Position<G>, m: &Move<G>) -> bool {
    let theirs = pos.board().by_color(pos.turn().other());
    (m.touched() & theirs).is_empty() && capturable_short_of(rules, pos, m.from(), m.to()).any()
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

/// Whether the correction `c` (a held correction, see
/// [`held_correction`]) sets the piece of the last ply back on a square it
/// stood on before the one its ply was published to (see [`came_back`]),
/// rather than moving it on.
///
/// `stood_ms`: only when the piece stood on that square at least this
/// long before it went on (0: any touch). A slide touches the squares on
/// its way for a moment; a piece set back onto one of them was knocked
/// there, not returned to where it stood.
pub(super) fn piece_came_back<G: Game>(p: &Playing<G>, c: &Candidate<G>, stood_ms: Millis) -> bool {
    let e @ Explanation::Back { then, .. } = &c.explanation else {
        return false;
    };
    if !travels_on::<G>(&p.game, e) {
        return false;
    }
    let Some(last) = p.game.plies().last().and_then(|r| r.m.as_ref()) else {
        return false;
    };
    let Some(placed) = p.game.position().board().piece_at(last.to()) else {
        return false;
    };
    came_back::<G>(&p.recent, last, placed, then[0].to()).is_some_and(|j| {
        let set = p.recent[j].2;
        // The first reading after it that emptied that square.
        let left = p
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
pub(super) fn held_or_prior<G: Game>(p: &Playing<G>) -> Option<(&Candidate<G>, bool)> {
    let held = |c: &&Candidate<G>| held_correction(p, &c.explanation);
    match p.candidate.as_ref().filter(held) {
        Some(c) => Some((c, false)),
        None => p.prior_correction.as_ref().filter(held).map(|c| (c, true)),
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
/// (see [`victim_cleared_first`]), which no knock makes.
pub(super) fn held_correction<G: Game>(p: &Playing<G>, e: &Explanation<Move<G>>) -> bool {
    let game = &p.game;
    if travels_on::<G>(game, e) {
        return !victim_cleared_first(p, e);
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

/// How long a piece stood on a square before it went on, for its return
/// there to be a return (see [`piece_came_back`]): longer than a slide's
/// touch on the way.
const STOOD_MS: Millis = 500;

/// Whether the candidate is a held correction (see [`held_correction`])
/// of a move that is already final (`final_plies` of the game are). A
/// move final on its time has stood longer than any stop a real hand
/// makes on the way (every one under 2 s in the recordings of real play,
/// docs/boards.md), so its piece moving on is a knock until the opponent
/// replies to it where it stands (Law 4.6: a piece released on a square
/// is not moved on to another): time alone never turns it into the move.
/// Reported as displaced at the misplacement delay meanwhile.
///
/// Not a piece set back where it stood before the square its move was
/// published to (see [`piece_came_back`]), the board then showing the
/// corrected position whole: that is the order of readings a knock
/// leaves, the knock being the published square. (A capture's piece
/// pushed back onto a square it passed leaves its victim's square empty:
/// the correction would need the victim in a hand.) Nor a king gone on
/// into the centre (see [`signal_into`]): the result signal may be under
/// way, and the history is re-examined at the delay as before.
pub(super) fn awaits_reply<G: Game>(
    rules: &G,
    p: &Playing<G>,
    final_plies: usize,
    target: &Board<G>,
) -> bool {
    final_plies >= p.game.len()
        && p.candidate.as_ref().is_some_and(|c| {
            let whole = || {
                candidate_position(&p.game, &c.explanation)
                    .board()
                    .diff(target)
                    .is_empty()
            };
            held_correction(p, &c.explanation)
                && !(piece_came_back(p, c, STOOD_MS) && whole())
                && !signal_into(rules, &c.explanation)
        })
}

/// Whether the piece of the last ply went on to capture with its victim
/// lifted after it was set down on the square its ply was published to:
/// the capture in three touches (set down short of the victim, the victim
/// cleared, the piece moved on). A knock never lifts a piece of the other
/// side first.
pub(super) fn victim_cleared_first<G: Game>(p: &Playing<G>, e: &Explanation<Move<G>>) -> bool {
    let Explanation::Back { plies: 1, then } = e else {
        return false;
    };
    let [next] = then.as_slice() else {
        return false;
    };
    let Some(last) = p.game.plies().last().and_then(|x| x.m.as_ref()) else {
        return false;
    };
    let before = p.game.position_at(p.game.len() - 1);
    let victims = next.touched() & before.board().by_color(before.turn().other());
    let mut lifted = false;
    for &(sq, seen, _) in p.recent.iter().rev() {
        match seen {
            Some(_) if sq == last.to() => return lifted,
            None if victims.contains(sq) => lifted = true,
            _ => {}
        }
    }
    false
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

/// Turns the squares the reading evidence names round, when the board's
/// orientation changes: the touches and recent readings
/// ([`turn_readings_round`]) and the readings' numbers per square
/// ([`turn_touched_at`]).
pub(super) fn turn_squares_round<G: Game>(rules: &G, p: &mut Playing<G>) {
    turn_readings_round(rules, p);
    turn_touched_at(rules, p);
}

/// Turns the squares of the touches and of the recent readings round.
pub(super) fn turn_readings_round<G: Game>(rules: &G, p: &mut Playing<G>) {
    for t in &mut p.touches {
        t.sq = rules.turn_round(t.sq);
    }
    for r in &mut p.recent {
        r.0 = rules.turn_round(r.0);
    }
}

/// Turns the readings' numbers per square ([`Playing::touched_at`])
/// round.
pub(super) fn turn_touched_at<G: Game>(rules: &G, p: &mut Playing<G>) {
    if p.touched_at.is_empty() {
        return;
    }
    let old = std::mem::take(&mut p.touched_at);
    p.touched_at = vec![(0, 0); old.len()];
    for (i, &t) in old.iter().enumerate() {
        let sq = rules.turn_round(rules.square(i));
        p.touched_at[rules.index(sq)] = t;
    }
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

/// Whether a piece of the side to move that `target` lacks was lifted
/// after the game's last ply's piece was set down, as the readings number
/// them: a reply begins after the move it answers. (A victim lifted while
/// the capturing piece was still in the air, the piece then touching down
/// short of it, reads as a move and a reply taking it.) Always so in games
/// that keep no evidence (see [`Game::ranks_by_evidence`]).
pub(super) fn lifted_after_landing<G: Game>(
    rules: &G,
    p: &Playing<G>,
    evidence: &search::Evidence<'_>,
    target: &Board<G>,
) -> bool {
    let reading = |sq| evidence.at(rules, sq);
    let lifted = lifted_of_side_to_move::<G>(p.game.position(), target);
    evidence.touched_at.is_empty()
        || p.game
            .plies()
            .last()
            .and_then(|x| x.m.as_ref())
            .is_none_or(|m| lifted.into_iter().any(|sq| reading(sq) > reading(m.to())))
}
