//! Faults for the arbiter on draughts and xiangqi boards (open protocol):
//! sessions in which something the rule books care about happens, with
//! what boardcast should say about it. The open-protocol counterpart of
//! [`super::faults`], used by `cargo bench --bench games` and the tests.
//!
//! Each [`FaultKind`] is injected into a real game of the bundled
//! corpora, played with the simulator's hands ([`super::open`]) under a
//! given [`OpenProfile`]; every fault but `MissedCaptureStands` is put
//! right before play goes on, so the expected record is the source game:
//!
//! - `MissedCapture` (draughts): a capture was compulsory (art. 1.19) and
//!   the player makes a plain step instead; the opponent begins to reply
//!   (lifts one of their own men), which completes it (art. 1.25.1), and
//!   the position is restored (art. 1.24); then the real capture.
//! - `MissedCaptureStands` (draughts): the same plain step, answered by a
//!   reply and never noticed: it stands (art. 1.25), and random legal play
//!   goes on from the position it made; the record must hold it as played.
//! - `UnfinishedJump` (draughts): a multi-jump stopped after its first jump
//!   (the first man jumped removed), the opponent begins to reply, the
//!   position is restored, then the whole multi-jump.
//! - `Movement` (xiangqi): a piece moved to a point it cannot reach (Art.
//!   20), completed by the opponent's reply, restored.
//! - `GeneralsFacing` (xiangqi): a move that leaves the generals facing on
//!   an open file (Art. 16), completed, restored.
//! - `SelfCheck` (xiangqi): a move that leaves its own general in check,
//!   or does not answer a check (Art. 16), completed, restored.
//! - `Displaced` (both): one piece of each side knocked off the board and
//!   left there for 15-40 s, then set back (draughts art. 1.26).
//! - `Pushed` (both): a piece of the side not to move pushed to a free
//!   neighbouring square and left there 10-20 s, then set back: displaced,
//!   never an illegal move.
//! - `WrongSetup` (both): the start position set up wrongly (a piece
//!   missing or on a wrong square), corrected before the first move.
//! - `TouchMove` (both): the player to move lifts one of their pieces that
//!   could move, holds it, puts it back and moves another (draughts art.
//!   1.22, xiangqi Art. 13).

use boardcast_games::draughts::{self, Classification as DrClass, PseudoMove, classify};
use boardcast_games::xiangqi::illegal::{Classification as XqClass, Exposure, irregular_moves};
use boardcast_games::xiangqi::{self, Kind as XqKind};
use rand::Rng;

use super::faults::FaultKind;
use super::open::{
    Hands, OpenGame, OpenProfile, OpenSession, draughts_hands, dsq, play_draughts, play_xiangqi,
    xiangqi_hands, xsq,
};
use boardcast::event::{AlertKind, EventKind, Side};
use boardcast::replay::Played;

/// A session with a fault and what should come of it.
#[derive(Clone, Debug)]
pub struct OpenFaultCase {
    /// The kind injected.
    pub kind: FaultKind,
    /// The board's lines.
    pub session: OpenSession,
    /// The side the alert concerns, when it concerns one.
    pub side: Option<Side>,
    /// The move ids the record must hold in the end.
    pub ids: Vec<String>,
    /// The ply after which the fault happens (0: before the first move).
    pub at_ply: usize,
}

/// How boardcast handled one fault case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenFaultCheck {
    /// The expected alert was raised (and, for an illegal move, its
    /// message says what was wrong).
    pub raised: bool,
    /// It named the right side (true when no side is expected).
    pub side_right: bool,
    /// The published record equals the expected one.
    pub exact: bool,
    /// Error alerts beyond the expected one that were never withdrawn
    /// (false alarms).
    pub extra_errors: usize,
    /// The first error alert of another kind withdrawn later (an illegal
    /// move first reported as displaced pieces).
    pub reclassified: bool,
}

/// The ids of the moves a replay published, retractions applied.
pub fn record_ids(replay: &Played) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for e in &replay.events {
        match &e.kind {
            EventKind::GameStart { .. } => ids.clear(),
            EventKind::Move { ply, id, .. } => {
                ids.truncate((*ply as usize).saturating_sub(1));
                ids.push(id.clone());
            }
            EventKind::Retract { ply, .. } => ids.truncate((*ply as usize).saturating_sub(1)),
            EventKind::Takeback { to_ply, .. } => ids.truncate(*to_ply as usize),
            _ => {}
        }
    }
    ids
}

/// Error alerts a replay raised and never withdrew.
pub fn standing_errors(replay: &Played) -> usize {
    alerts_errors(&replay.events)
}

/// Touch-move alerts a replay raised (information, not errors).
pub fn touch_alerts(replay: &Played) -> usize {
    alerts(replay)
        .iter()
        .filter(|a| a.kind == AlertKind::TouchMove)
        .count()
}

/// Error alerts among `events` never withdrawn among them.
fn alerts_errors(events: &[boardcast::event::Event]) -> usize {
    let alerts: Vec<&boardcast::event::Alert> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Alert(a) => Some(a),
            _ => None,
        })
        .collect();
    alerts
        .iter()
        .enumerate()
        .filter(|(i, a)| {
            a.kind.is_error()
                && !a.cleared
                && !alerts[i + 1..]
                    .iter()
                    .any(|b| b.kind == a.kind && b.cleared)
        })
        .count()
}

fn alerts(replay: &Played) -> Vec<&boardcast::event::Alert> {
    replay
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Alert(a) => Some(a),
            _ => None,
        })
        .collect()
}

/// Checks a replay of a fault case.
pub fn evaluate(case: &OpenFaultCase, replay: &Played) -> OpenFaultCheck {
    let want = case.kind.alert();
    // The alerts from the fault on (after the move that preceded it): an
    // earlier informational alert (a knock read as a touch) is not it.
    let from = replay
        .events
        .iter()
        .rposition(
            |e| matches!(&e.kind, EventKind::Move { ply, .. } if *ply as usize == case.at_ply),
        )
        .map_or(0, |i| i + 1);
    let alerts: Vec<&boardcast::event::Alert> = replay.events[from..]
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Alert(a) => Some(a),
            _ => None,
        })
        .collect();
    let earlier_errors = alerts_errors(&replay.events[..from]);
    let raised: Vec<_> = alerts
        .iter()
        .filter(|a| {
            a.kind == want && !a.cleared && case.kind.says().is_none_or(|s| a.message.contains(s))
        })
        .collect();
    // An error alert withdrawn later (displaced pieces that turned out to
    // be the illegal move, or a misplacement put right) is no false alarm
    // when it is of another kind than the expected one.
    let withdrawn = |i: usize, a: &boardcast::event::Alert| {
        alerts[i + 1..]
            .iter()
            .any(|b| b.kind == a.kind && b.cleared)
    };
    let reclassified = alerts
        .iter()
        .enumerate()
        .any(|(i, a)| a.kind.is_error() && a.kind != want && !a.cleared && withdrawn(i, a));
    let extra_errors = alerts
        .iter()
        .enumerate()
        .filter(|(i, a)| a.kind.is_error() && !a.cleared && (a.kind == want || !withdrawn(*i, a)))
        .count()
        .saturating_sub(usize::from(!raised.is_empty() && want.is_error()))
        + earlier_errors;
    OpenFaultCheck {
        raised: !raised.is_empty(),
        side_right: raised.first().is_some_and(|a| a.side == case.side),
        exact: record_ids(replay) == case.ids,
        extra_errors,
        reclassified,
    }
}

/// What a fault's act on a draughts or xiangqi board comes to.
enum Act {
    /// Put right: the side the alert names (none for displaced pieces),
    /// and the game goes on as written.
    PutRight(Option<Side>),
    /// The fault stood and play went on from it: the side the alert names
    /// and the record the game made.
    Stood(Option<Side>, Vec<String>),
}

/// A game at the ply of its fault: the hands (the first `k` plies played,
/// thinking over the next), the position there, and the record so far.
struct At<'a, M, P> {
    moves: &'a [M],
    kind: FaultKind,
    h: Hands,
    pos: P,
    k: usize,
    ids: Vec<String>,
}

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
pub fn inject_draughts(
    moves: &[draughts::Move],
    kind: FaultKind,
    profile: OpenProfile,
    seed: u64,
) -> Option<OpenFaultCase> {
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
    Some(OpenFaultCase {
        kind,
        session: h.session(),
        side,
        ids,
        at_ply: k,
    })
}

/// The draughts start position set up wrongly (a man missing, or on a
/// free dark square nearby), corrected before the first move.
fn dr_wrong_setup(
    moves: &[draughts::Move],
    mut h: Hands,
    profile: OpenProfile,
    seed: u64,
    ids: Vec<String>,
) -> OpenFaultCase {
    let g = OpenGame::Draughts;
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
    let mut h = Hands::new(g, profile, seed, cells);
    h.quiet = true;
    h.hello();
    h.wait(8_000, 20_000);
    // The arbiter corrects it.
    if let Some(t) = moved_to {
        h.up(dsq(t));
        h.wait(200, 700);
    }
    h.down(dsq(wrong), piece);
    h.wait(500, 1_500);
    h.quiet = false;
    let mut pos = start;
    for mv in moves {
        h.think();
        play_draughts(&mut h, &pos, mv);
        pos.play(mv);
    }
    h.wait(2_000, 2_000);
    OpenFaultCase {
        kind: FaultKind::WrongSetup,
        session: h.session(),
        side: None,
        ids,
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
    h.wait(15_000, 40_000);
    for (s, l) in knocked {
        h.down(dsq(s), l);
        h.wait(300, 1_500);
    }
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
    let l = dr_letter(&pos, from);
    h.up(dsq(from));
    h.wait(40, 150);
    h.down(dsq(to), l);
    h.wait(10_000, 20_000);
    h.up(dsq(to));
    h.wait(100, 400);
    h.down(dsq(from), l);
    h.wait(500, 2_000);
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
    h.up(dsq(t));
    h.wait(600, 2_000);
    h.down(dsq(t), dr_letter(&pos, t));
    h.wait(500, 2_000);
    Some(Act::PutRight(Some(boardcast::games::GameColor::side(turn))))
}

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
pub fn inject_xiangqi(
    moves: &[xiangqi::Move],
    kind: FaultKind,
    profile: OpenProfile,
    seed: u64,
) -> Option<OpenFaultCase> {
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
    Some(OpenFaultCase {
        kind,
        session: h.session(),
        side,
        ids,
        at_ply: k,
    })
}

/// The xiangqi start position set up wrongly (a piece missing, or on a
/// free neighbouring point), corrected before the first move.
fn xq_wrong_setup(
    moves: &[xiangqi::Move],
    mut h: Hands,
    profile: OpenProfile,
    seed: u64,
    ids: Vec<String>,
) -> Option<OpenFaultCase> {
    let g = OpenGame::Xiangqi;
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
    let mut h = Hands::new(g, profile, seed, cells);
    h.quiet = true;
    h.hello();
    h.wait(8_000, 20_000);
    if let Some(t) = moved_to {
        h.up(xsq(t));
        h.wait(200, 700);
    }
    h.down(xsq(wrong), piece);
    h.wait(500, 1_500);
    h.quiet = false;
    let mut pos = start;
    for &mv in moves {
        h.think();
        play_xiangqi(&mut h, &pos, mv);
        pos.play(mv).ok()?;
    }
    h.wait(2_000, 2_000);
    Some(OpenFaultCase {
        kind: FaultKind::WrongSetup,
        session: h.session(),
        side: None,
        ids,
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
    h.wait(15_000, 40_000);
    for (s, l) in knocked {
        h.down(xsq(s), l);
        h.wait(300, 1_500);
    }
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
    let l = xq_letter(pos, from);
    h.up(xsq(from));
    h.wait(40, 150);
    h.down(xsq(to), l);
    h.wait(10_000, 20_000);
    h.up(xsq(to));
    h.wait(100, 400);
    h.down(xsq(from), l);
    h.wait(500, 2_000);
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
    h.up(xsq(t));
    h.wait(600, 2_000);
    h.down(xsq(t), xq_letter(pos, t));
    h.wait(500, 2_000);
    Some(Act::PutRight(Some(boardcast::games::GameColor::side(turn))))
}
