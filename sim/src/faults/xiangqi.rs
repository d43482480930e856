//! Xiangqi faults, on an open-protocol board played with the simulator's
//! hands: each kind of [`FaultKind::XIANGQI`] has its act
//! ([`XIANGQI_ACTS`]; the wrong set-up is played before the first move).

use boardcast_rules::xiangqi::illegal::{Classification as XqClass, Exposure, irregular_moves};
use boardcast_rules::xiangqi::{self, Kind as XqKind};
use rand::Rng;

use super::{
    Act, At, FaultCase, FaultKind, lift_and_put_back, push_and_set_back, set_back, set_right,
};
use crate::open::{
    Hands, OtherGame, OtherGameProfile, OtherGameSession, play_xiangqi, xiangqi_hands, xsq,
};

/// One xiangqi fault's act at its ply (`None`: no place for it here).
type XiangqiAct = fn(&mut At<'_, xiangqi::Move, xiangqi::Position>) -> Option<Act>;

/// The act of every xiangqi fault after the first move.
const XIANGQI_ACTS: [(FaultKind, XiangqiAct); 6] = [
    (FaultKind::Movement, xq_illegal_move),
    (FaultKind::GeneralsFacing, xq_illegal_move),
    (FaultKind::SelfCheck, xq_illegal_move),
    (FaultKind::Displaced, xq_displaced),
    (FaultKind::Pushed, xq_pushed),
    (FaultKind::TouchMove, xq_touch_move),
];

/// The letter of the xiangqi piece on `s`.
fn xq_letter(pos: &xiangqi::Position, s: xiangqi::Square) -> char {
    pos.piece_at(s).expect("a piece").fen_char()
}

/// Builds a xiangqi fault case of `kind` over `moves` (legal from the
/// start), or `None` when the game offers no place for it.
pub fn inject(
    moves: &[xiangqi::Move],
    kind: FaultKind,
    profile: OtherGameProfile,
    seed: u64,
) -> Option<FaultCase<OtherGameSession>> {
    let mut positions = vec![xiangqi::Position::start()];
    for &m in moves {
        let next = positions.last().expect("start").after(m).ok()?;
        positions.push(next);
    }
    let ids: Vec<String> = moves.iter().map(ToString::to_string).collect();
    let mut h = xiangqi_hands(profile, seed, &positions[0]);
    if kind == FaultKind::WrongSetup {
        return xq_wrong_setup(moves, h, profile, seed, ids);
    }
    let n = moves.len();
    if n < 4 {
        return None;
    }
    let places: Vec<usize> = (1..n - 1)
        .filter(|&k| match kind {
            FaultKind::Movement | FaultKind::GeneralsFacing | FaultKind::SelfCheck => {
                !xq_illegal(&positions[k], kind).is_empty()
            }
            _ => true,
        })
        .collect();
    if places.is_empty() {
        return None;
    }
    let k = places[h.rng.gen_range(0..places.len())];
    let (_, act) = XIANGQI_ACTS.iter().find(|(f, _)| *f == kind)?;
    h.hello();
    for (i, &mv) in moves[..k].iter().enumerate() {
        h.think();
        play_xiangqi(&mut h, &positions[i], mv);
    }
    h.quiet = true;
    h.think();
    let pos = positions[k].clone();
    let mut at = At {
        moves,
        kind,
        h,
        pos,
        k,
        ids,
    };
    let Act::PutRight(side) = act(&mut at)? else {
        unreachable!("every xiangqi fault is put right")
    };
    let At {
        mut h, ids, pos, ..
    } = at;
    h.quiet = false;
    let mut p = pos;
    for &mv in &moves[k..] {
        h.think();
        play_xiangqi(&mut h, &p, mv);
        p.play(mv).ok()?;
    }
    h.wait(2_000, 2_000);
    Some(FaultCase {
        kind,
        session: h.session(),
        side,
        record: ids,
        at_ply: k,
    })
}

/// The xiangqi start position set up wrongly (a piece missing, or on a
/// free neighbouring point), corrected before the first move.
fn xq_wrong_setup(
    moves: &[xiangqi::Move],
    mut h: Hands,
    profile: OtherGameProfile,
    seed: u64,
    ids: Vec<String>,
) -> Option<FaultCase<OtherGameSession>> {
    let g = OtherGame::Xiangqi;
    let start = xiangqi::Position::start();
    let occupied: Vec<xiangqi::Square> = (0..90)
        .filter_map(xiangqi::Square::from_index)
        .filter(|s| {
            start
                .piece_at(*s)
                .is_some_and(|p| p.kind != XqKind::General)
        })
        .collect();
    let wrong = occupied[h.rng.gen_range(0..occupied.len())];
    let piece = xq_letter(&start, wrong);
    let mut cells = h.cells_snapshot();
    cells[g.index_of(xsq(wrong))] = None;
    let moved_to = if h.rng.gen_bool(0.5) {
        let free: Vec<xiangqi::Square> = [(1, 0), (-1, 0), (0, 1), (0, -1)]
            .into_iter()
            .filter_map(|(df, dr)| xiangqi::Square::new(wrong.file() + df, wrong.rank() + dr))
            .filter(|s| start.piece_at(*s).is_none())
            .collect();
        (!free.is_empty()).then(|| free[h.rng.gen_range(0..free.len())])
    } else {
        None
    };
    if let Some(t) = moved_to {
        cells[g.index_of(xsq(t))] = Some(piece);
    }
    let mut h = set_right(
        Hands::new(g, profile, seed, cells),
        xsq(wrong),
        moved_to.map(xsq),
        piece,
    );
    let mut pos = start;
    for &mv in moves {
        h.think();
        play_xiangqi(&mut h, &pos, mv);
        pos.play(mv).ok()?;
    }
    h.wait(2_000, 2_000);
    Some(FaultCase {
        kind: FaultKind::WrongSetup,
        session: h.session(),
        side: None,
        record: ids,
        at_ply: 0,
    })
}

/// The illegal moves of fault `kind` open at `pos` (to an empty point: a
/// capture on a board without piece identity shows only its origin
/// emptied, which reads as no move at all).
fn xq_illegal(pos: &xiangqi::Position, kind: FaultKind) -> Vec<xiangqi::Move> {
    irregular_moves(pos)
        .into_iter()
        .filter(|i| pos.piece_at(i.mv.to).is_none())
        .filter(|i| match (kind, &i.classification) {
            (FaultKind::Movement, XqClass::Movement(_)) => true,
            (FaultKind::GeneralsFacing, XqClass::Exposed(Exposure::GeneralsFacing)) => true,
            (FaultKind::SelfCheck, XqClass::Exposed(e)) => *e != Exposure::GeneralsFacing,
            _ => false,
        })
        .map(|i| i.mv)
        .collect()
}

/// An illegal move of the at's kind, completed by the opponent's first
/// touch, then put right.
fn xq_illegal_move(at: &mut At<'_, xiangqi::Move, xiangqi::Position>) -> Option<Act> {
    let At { kind, h, pos, .. } = at;
    let turn = pos.turn();
    let list = xq_illegal(pos, *kind);
    let m = list[h.rng.gen_range(0..list.len())];
    let piece = xq_letter(pos, m.from);
    // Not a piece the moving piece could legally take from where it
    // stood: lifting that one may be the capture under way (set down short
    // of its victim), not a reply.
    let victims: Vec<xiangqi::Square> = pos
        .legal_moves()
        .into_iter()
        .filter(|c| c.from == m.from)
        .map(|c| c.to)
        .collect();
    let repliers: Vec<xiangqi::Square> = pos
        .pieces(turn.other())
        .map(|(s, _)| s)
        .filter(|s| *s != m.to && !victims.contains(s))
        .collect();
    if repliers.is_empty() {
        return None;
    }
    let replier = repliers[h.rng.gen_range(0..repliers.len())];
    h.up(xsq(m.from));
    h.wait(200, 600);
    h.down(xsq(m.to), piece);
    h.wait(1_000, 4_500);
    h.up(xsq(replier));
    h.wait(300, 900);
    h.down(xsq(replier), xq_letter(pos, replier));
    h.wait(2_000, 5_000);
    h.up(xsq(m.to));
    h.wait(200, 600);
    h.down(xsq(m.from), piece);
    Some(Act::PutRight(Some(boardcast::games::GameColor::side(turn))))
}

/// One piece of each side (not a general) knocked off the board, set back
/// a while later.
fn xq_displaced(at: &mut At<'_, xiangqi::Move, xiangqi::Position>) -> Option<Act> {
    let At { h, pos, .. } = at;
    let mut knocked = Vec::new();
    for side in [xiangqi::Side::Red, xiangqi::Side::Black] {
        let c: Vec<xiangqi::Square> = pos
            .pieces(side)
            .filter(|(_, p)| p.kind != XqKind::General)
            .map(|(s, _)| s)
            .collect();
        if c.is_empty() {
            return None;
        }
        let s = c[h.rng.gen_range(0..c.len())];
        h.up(xsq(s));
        knocked.push((s, xq_letter(pos, s)));
        h.wait(50, 400);
    }
    set_back(h, knocked.into_iter().map(|(s, l)| (xsq(s), l)));
    Some(Act::PutRight(None))
}

/// A piece of the side not to move (not the general) pushed to a free
/// neighbouring point, left there, set back.
fn xq_pushed(at: &mut At<'_, xiangqi::Move, xiangqi::Position>) -> Option<Act> {
    let At {
        h, pos, moves, k, ..
    } = at;
    let turn = pos.turn();
    let just = moves[*k - 1].to;
    let mut pushes = Vec::new();
    for (from, p) in pos.pieces(turn.other()) {
        if from == just || p.kind == XqKind::General {
            continue;
        }
        for (df, dr) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
            if let Some(to) = xiangqi::Square::new(from.file() + df, from.rank() + dr)
                && pos.piece_at(to).is_none()
            {
                pushes.push((from, to));
            }
        }
    }
    if pushes.is_empty() {
        return None;
    }
    let (from, to) = pushes[h.rng.gen_range(0..pushes.len())];
    push_and_set_back(h, xsq(from), xsq(to), xq_letter(pos, from));
    Some(Act::PutRight(Some(boardcast::games::GameColor::side(
        turn.other(),
    ))))
}

/// The player to move lifts a piece that could move, puts it back, and
/// moves another.
fn xq_touch_move(at: &mut At<'_, xiangqi::Move, xiangqi::Position>) -> Option<Act> {
    let At {
        h, pos, moves, k, ..
    } = at;
    let turn = pos.turn();
    let real = moves[*k].from;
    let legal = pos.legal_moves();
    let movable: Vec<xiangqi::Square> = pos
        .pieces(turn)
        .map(|(s, _)| s)
        .filter(|s| *s != real && legal.iter().any(|m| m.from == *s))
        .collect();
    if movable.is_empty() {
        return None;
    }
    let t = movable[h.rng.gen_range(0..movable.len())];
    lift_and_put_back(h, xsq(t), xq_letter(pos, t));
    Some(Act::PutRight(Some(boardcast::games::GameColor::side(turn))))
}
