//! Draughts played by the simulated hands: captures cleared before,
//! during or after the jump, crowning, what is left for the opponent.

use boardcast_protocols::reading::{Geometry, Square};
use boardcast_rules::draughts;
use rand::Rng;

use super::hands::{Deferred, Hands};
use super::{Habits, OtherGame, OtherGameProfile, OtherGameSession};

/// A draughts square as the open protocol's (file, rank) square.
pub(crate) fn dsq(s: draughts::Square) -> Square {
    Square::new(s.file(), s.rank())
}

/// The hands at a draughts board in the start position, the board
/// introduced (`hello` and a `board` line).
pub(crate) fn draughts_hands(
    profile: OtherGameProfile,
    seed: u64,
    start: &draughts::Position,
) -> Hands {
    let g = Geometry::CHESS;
    let cells = (0..g.len())
        .map(|i| {
            let sq = g.square(i).expect("in range");
            draughts::Square::from_file_rank(sq.file, sq.rank)
                .and_then(|s| start.piece_at(s))
                .map(boardcast::games::draughts::letter)
        })
        .collect();
    Hands::new(OtherGame::Draughts, profile, seed, cells)
}

/// Plays one draughts move (legal in `pos`) with the hands, then perhaps a
/// knock.
pub(crate) fn play_draughts(h: &mut Hands, pos: &draughts::Position, mv: &draughts::Move) {
    do_deferred(h);
    let profile = h.profile;
    let piece = pos.piece_at(mv.from()).expect("a piece to move");
    let man = boardcast::games::draughts::letter(piece);
    let path: Vec<Square> = mv.path().iter().map(|&s| dsq(s)).collect();
    let captured: Vec<Square> = mv.captured().iter().map(|&s| dsq(s)).collect();
    // When the captured pieces leave: 0 before, 1 during, 2 after.
    let when = if profile.human && !captured.is_empty() {
        h.rng.gen_range(0..3)
    } else {
        2
    };
    let swept = profile.human && h.rng.gen_bool(0.5);
    let remove = |h: &mut Hands, list: &[Square], swept: bool| {
        for &c in list {
            if swept {
                h.wait(20, 60);
            } else {
                h.wait(250, 700);
            }
            h.take_off(c, true);
        }
    };
    if when == 0 {
        remove(h, &captured, swept);
        h.wait(200, 600);
    }
    h.up(path[0]);
    if captured.is_empty() && path.len() == 2 {
        maybe_stop_on_the_other_square(h, path[0], path[1], man);
    }
    let set_down_each = !profile.human || h.rng.gen_bool(0.5);
    land(h, &path, &captured, man, set_down_each, when == 1);
    // (Drawn only when the habit is on: sessions without it stay as
    // they were.)
    let left = h.habits.left_for_opponent;
    let leave = |h: &mut Hands| left > 0.0 && h.rng.gen_bool(left);
    if when == 2 {
        if !captured.is_empty() && leave(h) {
            h.deferred
                .extend(captured.iter().map(|&c| Deferred::Clear(c)));
        } else {
            h.wait(200, 900);
            remove(h, &captured, swept);
        }
    }
    if mv.is_crowning() {
        let king = if man.is_ascii_uppercase() { 'K' } else { 'k' };
        let to = *path.last().expect("path");
        if leave(h) {
            h.deferred.push(Deferred::Crown(to, king));
        } else {
            crown(h, to, king);
        }
    }
    let mut avoid = path.clone();
    avoid.extend(&captured);
    h.maybe_knock(&avoid);
}

/// A simple move first set down on the other square the man could step
/// to (a real stop on the way), then on its own.
fn maybe_stop_on_the_other_square(h: &mut Hands, from: Square, to: Square, man: char) {
    if !h.real_habit(10.0 / 193.0) {
        return;
    }
    let other = h.empty(
        2 * i16::from(from.file) - i16::from(to.file),
        i16::from(to.rank),
    );
    if let Some(other) = other {
        h.wait(150, 450);
        h.down(other, man);
        h.stop_on_the_way();
        h.up(other);
    }
}

/// The lifted man carried along `path`: set down on the last square, and
/// on each landing on the way with `set_down_each`; with `during`, each
/// captured man lifted as the jump over it lands.
fn land(
    h: &mut Hands,
    path: &[Square],
    captured: &[Square],
    man: char,
    set_down_each: bool,
    during: bool,
) {
    for (k, &land) in path.iter().enumerate().skip(1) {
        let last = k == path.len() - 1;
        if last || set_down_each {
            h.wait(150, 450);
            h.down(land, man);
            if during {
                h.wait(150, 400);
                h.up(captured[k - 1]);
            }
            if !last {
                h.wait(100, 300);
                h.up(land);
            }
        } else if during {
            h.wait(150, 400);
            h.up(captured[k - 1]);
        }
    }
}

/// The mover crowns their man: turned over, or a second piece stacked.
fn crown(h: &mut Hands, to: Square, king: char) {
    let profile = h.profile;
    {
        h.wait(400, 1500);
        if profile.human && h.rng.gen_bool(0.5) {
            // Turned over: lifted and set down as a king.
            h.up(to);
            h.wait(200, 600);
            h.down(to, king);
        } else {
            // A second piece stacked on the man.
            h.down(to, king);
        }
    }
}

/// The opponent, at the start of their turn, clears the captured men and
/// crowns the man the mover left.
fn do_deferred(h: &mut Hands) {
    let items = std::mem::take(&mut h.deferred);
    for &d in &items {
        h.wait(250, 800);
        match d {
            Deferred::Clear(sq) => h.up(sq),
            // A second piece stacked on the man.
            Deferred::Crown(sq, king) => h.down(sq, king),
        }
    }
    if !items.is_empty() {
        h.wait(200, 600);
    }
}

/// Plays a draughts game (moves legal from the start) on a simulated board.
pub fn simulate_draughts(
    moves: &[draughts::Move],
    profile: OtherGameProfile,
    seed: u64,
) -> OtherGameSession {
    simulate_draughts_with(moves, profile, Habits::default(), seed)
}

/// [`simulate_draughts`] with more habits.
pub fn simulate_draughts_with(
    moves: &[draughts::Move],
    profile: OtherGameProfile,
    habits: Habits,
    seed: u64,
) -> OtherGameSession {
    let mut pos = draughts::Position::start();
    let mut h = draughts_hands(profile, seed, &pos);
    h.habits = habits;
    h.hello();
    let firsts: Vec<_> = pos
        .legal_moves()
        .iter()
        .map(|m| (dsq(m.from()), dsq(m.to())))
        .collect();
    h.maybe_knock_before_first_move(&firsts);
    h.maybe_push_second_mover(&firsts);
    for mv in moves {
        h.think();
        play_draughts(&mut h, &pos, mv);
        h.ply_done();
        pos.play(mv);
    }
    if !h.deferred.is_empty() {
        // The opponent clears the last capture.
        h.think();
        do_deferred(&mut h);
    }
    h.wait(2000, 2000);
    h.session()
}
