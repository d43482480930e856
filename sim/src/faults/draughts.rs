//! Draughts faults, on an open-protocol board played with the simulator's
//! hands: each kind of [`FaultKind::DRAUGHTS`] has its act
//! ([`DRAUGHTS_ACTS`]; the wrong set-up is played before the first move).

use boardcast_rules::draughts::{self, Classification as DrClass, PseudoMove, classify};
use rand::Rng;

use super::{
    Act, At, FaultCase, FaultKind, lift_and_put_back, push_and_set_back, set_back, set_right,
};
use crate::open::{
    Hands, OtherGame, OtherGameProfile, OtherGameSession, draughts_hands, dsq, play_draughts,
};

/// One draughts fault's act at its ply (`None`: no place for it here).
type DraughtsAct = fn(&mut At<'_, draughts::Move, draughts::Position>) -> Option<Act>;

/// The act of every draughts fault after the first move.
const DRAUGHTS_ACTS: [(FaultKind, DraughtsAct); 6] = [
    (FaultKind::MissedCaptureStands, dr_missed_capture_stands),
    (FaultKind::MissedCapture, dr_missed_capture),
    (FaultKind::UnfinishedJump, dr_unfinished_jump),
    (FaultKind::Displaced, dr_displaced),
    (FaultKind::Pushed, dr_pushed),
    (FaultKind::TouchMove, dr_touch_move),
];

/// The letter of the draughts piece on `s`.
fn dr_letter(pos: &draughts::Position, s: draughts::Square) -> char {
    boardcast::games::draughts::letter(pos.piece_at(s).expect("a piece"))
}

/// Builds a draughts fault case of `kind` over `moves` (legal from the
/// start), or `None` when the game offers no place for it.
pub fn inject(
    moves: &[draughts::Move],
    kind: FaultKind,
    profile: OtherGameProfile,
    seed: u64,
) -> Option<FaultCase<OtherGameSession>> {
    let mut positions = vec![draughts::Position::start()];
    for m in moves {
        let next = positions.last().expect("start").after(m);
        positions.push(next);
    }
    let ids: Vec<String> = moves.iter().map(draughts::Move::id).collect();
    let start = positions[0];
    let mut h = draughts_hands(profile, seed, &start);
    if kind == FaultKind::WrongSetup {
        return Some(dr_wrong_setup(moves, h, profile, seed, ids));
    }
    let n = moves.len();
    if n < 4 {
        return None;
    }
    // The plies where this fault can happen.
    let places: Vec<usize> = (1..n - 1)
        .filter(|&k| match kind {
            FaultKind::MissedCapture | FaultKind::MissedCaptureStands => moves[k].is_capture(),
            FaultKind::UnfinishedJump => moves[k].captured().len() >= 2,
            _ => true,
        })
        .collect();
    if places.is_empty() {
        return None;
    }
    let k = places[h.rng.gen_range(0..places.len())];
    let (_, act) = DRAUGHTS_ACTS.iter().find(|(f, _)| *f == kind)?;
    h.hello();
    for (i, mv) in moves[..k].iter().enumerate() {
        h.think();
        play_draughts(&mut h, &positions[i], mv);
    }
    h.quiet = true;
    h.think();
    let pos = positions[k];
    let mut at = At {
        moves,
        kind,
        h,
        pos,
        k,
        ids,
    };
    let act = act(&mut at)?;
    let At { mut h, ids, .. } = at;
    let (side, ids) = match act {
        Act::Stood(side, ids) => (side, ids),
        Act::PutRight(side) => {
            h.quiet = false;
            let mut p = pos;
            for mv in &moves[k..] {
                h.think();
                play_draughts(&mut h, &p, mv);
                p.play(mv);
            }
            (side, ids)
        }
    };
    h.wait(2_000, 2_000);
    Some(FaultCase {
        kind,
        session: h.session(),
        side,
        record: ids,
        at_ply: k,
    })
}

/// The draughts start position set up wrongly (a man missing, or on a
/// free dark square nearby), corrected before the first move.
fn dr_wrong_setup(
    moves: &[draughts::Move],
    mut h: Hands,
    profile: OtherGameProfile,
    seed: u64,
    ids: Vec<String>,
) -> FaultCase<OtherGameSession> {
    let g = OtherGame::Draughts;
    let start = draughts::Position::start();
    let occupied: Vec<draughts::Square> = start.pieces().map(|(s, _)| s).collect();
    let wrong = occupied[h.rng.gen_range(0..occupied.len())];
    let mut cells = h.cells_snapshot();
    cells[g.index_of(dsq(wrong))] = None;
    // Missing, or set on a free dark square nearby.
    let moved_to = if h.rng.gen_bool(0.5) {
        let free: Vec<draughts::Square> = draughts::Square::all()
            .filter(|s| start.piece_at(*s).is_none())
            .filter(|s| s.rank().abs_diff(wrong.rank()) <= 2)
            .collect();
        (!free.is_empty()).then(|| free[h.rng.gen_range(0..free.len())])
    } else {
        None
    };
    let piece = dr_letter(&start, wrong);
    if let Some(t) = moved_to {
        cells[g.index_of(dsq(t))] = Some(piece);
    }
    let mut h = set_right(
        Hands::new(g, profile, seed, cells),
        dsq(wrong),
        moved_to.map(dsq),
        piece,
    );
    let mut pos = start;
    for mv in moves {
        h.think();
        play_draughts(&mut h, &pos, mv);
        pos.play(mv);
    }
    h.wait(2_000, 2_000);
    FaultCase {
        kind: FaultKind::WrongSetup,
        session: h.session(),
        side: None,
        record: ids,
        at_ply: 0,
    }
}

/// One of the opponent's men that no capture of the side to move takes: a
/// lift of it begins a reply (and never continues a capture).
fn dr_safe_replier(h: &mut Hands, pos: &draughts::Position) -> Option<draughts::Square> {
    let turn = pos.turn();
    let takes: Vec<draughts::Square> = pos
        .captures()
        .iter()
        .flat_map(|c| c.captured().to_vec())
        .collect();
    let own: Vec<draughts::Square> = pos
        .pieces()
        .filter(|(s, p)| p.color != turn && !takes.contains(s))
        .map(|(s, _)| s)
        .collect();
    (!own.is_empty()).then(|| own[h.rng.gen_range(0..own.len())])
}

/// The plain steps of the side to move that a compulsory capture forbids
/// (`promoting`: steps that crown a man count too).
fn dr_missed_steps(
    pos: &draughts::Position,
    promoting: bool,
) -> Vec<(draughts::Square, draughts::Square, draughts::Piece)> {
    let turn = pos.turn();
    let mut steps = Vec::new();
    for (from, p) in pos.pieces().filter(|(_, p)| p.color == turn) {
        for (df, dr) in [(1, 1), (-1, 1), (1, -1), (-1, -1)] {
            let Some(to) = from.step(df, dr) else {
                continue;
            };
            let seen = PseudoMove {
                from,
                to,
                removed: Vec::new(),
                added: Vec::new(),
            };
            if pos.piece_at(to).is_none()
                && (promoting || p.is_king() || to.rank() != turn.king_rank())
                && matches!(classify(pos, &seen), DrClass::MissedCapture { .. })
            {
                steps.push((from, to, p));
            }
        }
    }
    steps
}

/// A plain step where a capture was compulsory, answered and never
/// noticed: it stands, and random legal play goes on from it.
fn dr_missed_capture_stands(at: &mut At<'_, draughts::Move, draughts::Position>) -> Option<Act> {
    let (pos, k) = (at.pos, at.k);
    let turn = pos.turn();
    let steps = dr_missed_steps(&pos, false);
    let ids = &at.ids;
    let h = &mut at.h;
    if steps.is_empty() {
        return None;
    }
    let (from, to, p) = steps[h.rng.gen_range(0..steps.len())];
    let man = boardcast::games::draughts::letter(p);
    h.up(dsq(from));
    h.wait(200, 600);
    h.down(dsq(to), man);
    // Nobody notices: the opponent replies from the position it
    // made, and random legal play goes on.
    let mut after = pos;
    after.set(from, None);
    after.set(to, Some(p));
    after.set_turn(turn.opponent());
    let mut ids: Vec<String> = ids[..k].to_vec();
    ids.push(format!("{}-{}", from.number(), to.number()));
    h.quiet = false;
    let plies = h.rng.gen_range(4..12);
    for _ in 0..plies {
        let legal = after.legal_moves();
        if legal.is_empty() {
            break;
        }
        let m = legal[h.rng.gen_range(0..legal.len())].clone();
        h.think();
        play_draughts(h, &after, &m);
        ids.push(m.id());
        after.play(&m);
    }
    Some(Act::Stood(
        Some(boardcast::games::GameColor::side(turn)),
        ids,
    ))
}

/// A plain step where a capture was compulsory, completed by the
/// opponent's first touch, then put right.
fn dr_missed_capture(at: &mut At<'_, draughts::Move, draughts::Position>) -> Option<Act> {
    let pos = at.pos;
    let steps = dr_missed_steps(&pos, true);
    let h = &mut at.h;
    if steps.is_empty() {
        return None;
    }
    let (from, to, p) = steps[h.rng.gen_range(0..steps.len())];
    let man = boardcast::games::draughts::letter(p);
    let replier = dr_safe_replier(h, &pos)?;
    h.up(dsq(from));
    h.wait(200, 600);
    h.down(dsq(to), man);
    // The opponent begins to reply (which completes the move),
    // notices, and the position is restored.
    h.wait(1_000, 4_500);
    h.up(dsq(replier));
    h.wait(300, 900);
    h.down(dsq(replier), dr_letter(&pos, replier));
    h.wait(2_000, 5_000);
    h.up(dsq(to));
    h.wait(200, 600);
    h.down(dsq(from), man);
    Some(Act::PutRight(Some(boardcast::games::GameColor::side(
        pos.turn(),
    ))))
}

/// A multi-jump stopped after its first jump, completed by the opponent's
/// first touch, then put right.
fn dr_unfinished_jump(at: &mut At<'_, draughts::Move, draughts::Position>) -> Option<Act> {
    let pos = at.pos;
    let m = &at.moves[at.k];
    let path = m.path();
    let first = m.captured()[0];
    let man = dr_letter(&pos, path[0]);
    let victim = dr_letter(&pos, first);
    let h = &mut at.h;
    let replier = dr_safe_replier(h, &pos)?;
    h.up(dsq(path[0]));
    h.wait(150, 450);
    h.down(dsq(path[1]), man);
    h.wait(150, 400);
    h.up(dsq(first));
    h.wait(1_000, 4_500);
    h.up(dsq(replier));
    h.wait(300, 900);
    h.down(dsq(replier), dr_letter(&pos, replier));
    h.wait(2_000, 5_000);
    h.up(dsq(path[1]));
    h.wait(200, 600);
    h.down(dsq(path[0]), man);
    h.wait(200, 600);
    h.down(dsq(first), victim);
    Some(Act::PutRight(Some(boardcast::games::GameColor::side(
        pos.turn(),
    ))))
}

/// One piece of each side knocked off the board, set back a while later.
fn dr_displaced(at: &mut At<'_, draughts::Move, draughts::Position>) -> Option<Act> {
    let (pos, h) = (at.pos, &mut at.h);
    let mut knocked = Vec::new();
    for color in [draughts::Color::Black, draughts::Color::White] {
        let c: Vec<draughts::Square> = pos
            .pieces()
            .filter(|(_, p)| p.color == color)
            .map(|(s, _)| s)
            .collect();
        let s = c[h.rng.gen_range(0..c.len())];
        h.up(dsq(s));
        knocked.push((s, dr_letter(&pos, s)));
        h.wait(50, 400);
    }
    set_back(h, knocked.into_iter().map(|(s, l)| (dsq(s), l)));
    Some(Act::PutRight(None))
}

/// A piece of the side not to move pushed to a free neighbouring square,
/// left there, set back.
fn dr_pushed(at: &mut At<'_, draughts::Move, draughts::Position>) -> Option<Act> {
    let (pos, h) = (at.pos, &mut at.h);
    let turn = pos.turn();
    let just = at.moves[at.k - 1].to();
    let mut pushes = Vec::new();
    for (from, _) in pos.pieces().filter(|(s, p)| p.color != turn && *s != just) {
        for (df, dr) in [(1, 1), (-1, 1), (1, -1), (-1, -1)] {
            if let Some(to) = from.step(df, dr)
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
    push_and_set_back(h, dsq(from), dsq(to), dr_letter(&pos, from));
    Some(Act::PutRight(Some(boardcast::games::GameColor::side(
        turn.opponent(),
    ))))
}

/// The player to move lifts a piece that could move, puts it back, and
/// moves another.
fn dr_touch_move(at: &mut At<'_, draughts::Move, draughts::Position>) -> Option<Act> {
    let (pos, h) = (at.pos, &mut at.h);
    let turn = pos.turn();
    let real = at.moves[at.k].from();
    let legal = pos.legal_moves();
    let movable: Vec<draughts::Square> = pos
        .pieces()
        .filter(|(s, p)| p.color == turn && *s != real && legal.iter().any(|m| m.from() == *s))
        .map(|(s, _)| s)
        .collect();
    if movable.is_empty() {
        return None;
    }
    let t = movable[h.rng.gen_range(0..movable.len())];
    lift_and_put_back(h, dsq(t), dr_letter(&pos, t));
    Some(Act::PutRight(Some(boardcast::games::GameColor::side(turn))))
}
