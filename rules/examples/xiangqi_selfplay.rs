//! Writes the bundled xiangqi self-play corpus
//! (`tests/data/xiangqi-selfplay.pgn`): games between two copies of a small
//! alpha-beta engine (negamax, depth 2 plus captures, material and
//! mobility), from the start position, with fixed seeds, so the file is
//! reproducible:
//!
//! `cargo run --release -p boardcast-rules --example xiangqi_selfplay > rules/tests/data/xiangqi-selfplay.pgn`
//!
//! No public-domain xiangqi game collection ships in the package
//! registries (see `tests/data/README.md`), so these games stand in for
//! real ones: unlike random moves they develop pieces, trade, check, mate
//! and run into the move limit as games do.
//!
//! A game ends by mate or stalemate (Art. 16), a draw when a side may
//! claim the move limit (60 moves, 6 checks counted, Art. 17) or a
//! repetition the rules draw (Art. 17), else after 300 plies (`*`). The
//! engine never repeats a position a third time by choice, so it never
//! makes a forbidden perpetual. Each seed jitters the root scores (more in
//! the first ten moves), so openings vary.

use boardcast_rules::xiangqi::pgn::{GameResult, Record, write};
use boardcast_rules::xiangqi::repetition::{MoveLimit, Ruling, Tracker, Verdict};
use boardcast_rules::xiangqi::{Kind, Move, Outcome, Position, Side};

const GAMES: u64 = 200;
const MAX_PLIES: usize = 300;
const DEPTH: u32 = 2;
const MATE: i32 = 100_000;

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

fn value(kind: Kind, crossed: bool) -> i32 {
    match kind {
        Kind::General => 0,
        Kind::Chariot => 900,
        Kind::Cannon => 450,
        Kind::Horse => 400,
        Kind::Advisor | Kind::Elephant => 200,
        Kind::Soldier if crossed => 200,
        Kind::Soldier => 100,
    }
}

fn pseudo(pos: &Position, side: Side) -> Vec<Move> {
    let mut v = Vec::with_capacity(64);
    for (from, _) in pos.pieces(side) {
        pos.pseudo_moves_from(from, &mut v);
    }
    v
}

/// Material and mobility for the side to move.
fn evaluate(pos: &Position) -> i32 {
    let me = pos.turn();
    let mut score = 0;
    for side in [Side::Red, Side::Black] {
        let sign = if side == me { 1 } else { -1 };
        for (sq, p) in pos.pieces(side) {
            score += sign * value(p.kind, !sq.own_half(side));
        }
        score += sign * 4 * pseudo(pos, side).len() as i32;
    }
    score
}

/// Whether the side to move can take the other general (the last move
/// left its own general attacked, or the generals facing).
fn can_take_general(pos: &Position) -> bool {
    pos.general(pos.turn().other())
        .is_none_or(|g| pos.attacked_by(g, pos.turn()))
}

fn ordered(pos: &Position, captures_only: bool) -> Vec<Move> {
    let mut moves: Vec<(i32, Move)> = pseudo(pos, pos.turn())
        .into_iter()
        .filter_map(|m| {
            let victim = pos.piece_at(m.to).map(|p| value(p.kind, false) + 1);
            match victim {
                Some(v) => {
                    let attacker = pos.piece_at(m.from).map_or(0, |p| value(p.kind, false));
                    Some((10 * v - attacker / 10, m))
                }
                None if captures_only => None,
                None => Some((0, m)),
            }
        })
        .collect();
    moves.sort_by_key(|(k, _)| -k);
    moves.into_iter().map(|(_, m)| m).collect()
}

fn quiesce(pos: &Position, mut alpha: i32, beta: i32, depth: u32) -> i32 {
    if can_take_general(pos) {
        return MATE;
    }
    let stand = evaluate(pos);
    if stand >= beta || depth == 0 {
        return stand;
    }
    alpha = alpha.max(stand);
    for m in ordered(pos, true) {
        let next = pos.after_unchecked(m).expect("pseudo move");
        let score = -quiesce(&next, -beta, -alpha, depth - 1);
        if score >= beta {
            return score;
        }
        alpha = alpha.max(score);
    }
    alpha
}

fn search(pos: &Position, depth: u32, mut alpha: i32, beta: i32) -> i32 {
    if can_take_general(pos) {
        return MATE;
    }
    if depth == 0 {
        return quiesce(pos, alpha, beta, 4);
    }
    let mut best = -MATE;
    for m in ordered(pos, false) {
        let next = pos.after_unchecked(m).expect("pseudo move");
        let score = -search(&next, depth - 1, -beta, -alpha);
        best = best.max(score);
        alpha = alpha.max(score);
        if alpha >= beta {
            break;
        }
    }
    // Every move loses the general: mated or stalemated, both lose.
    best
}

fn choose(pos: &Position, seen: &[Position], rng: &mut Rng, ply: usize) -> Move {
    let legal = pos.legal_moves();
    let jitter = if ply < 20 { 40 } else { 6 };
    let mut best = (i32::MIN, legal[0]);
    for m in legal {
        let next = pos.after(m).expect("legal");
        let repeats = seen.iter().filter(|p| p.key() == next.key()).count();
        let mut score = -search(&next, DEPTH - 1, -MATE - 1, MATE + 1);
        if repeats >= 2 {
            score -= 50_000;
        } else if repeats == 1 {
            score -= 30;
        }
        score += rng.below(2 * jitter + 1) as i32 - jitter as i32;
        if score > best.0 {
            best = (score, m);
        }
    }
    best.1
}

fn play(seed: u64) -> (Vec<Move>, GameResult) {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x5eed);
    let start = Position::start();
    let mut tracker = Tracker::new(start.clone(), MoveLimit::default());
    let mut pos = start.clone();
    let mut seen = vec![start];
    let mut moves = Vec::new();
    loop {
        match pos.outcome() {
            Outcome::Checkmate { winner } | Outcome::Stalemate { winner } => {
                return (moves, GameResult::Win(winner));
            }
            Outcome::Ongoing => {}
        }
        if moves.len() >= MAX_PLIES {
            return (moves, GameResult::Unfinished);
        }
        let m = choose(&pos, &seen, &mut rng, moves.len());
        let verdicts = tracker.push(m).expect("legal");
        pos.play(m).expect("legal");
        seen.push(pos.clone());
        moves.push(m);
        for v in verdicts {
            match v {
                Verdict::MoveLimit(_) => return (moves, GameResult::Draw),
                Verdict::Repetition(r) if r.ruling == Ruling::Draw => {
                    return (moves, GameResult::Draw);
                }
                Verdict::Repetition(_) => {}
            }
        }
    }
}

fn main() {
    for round in 1..=GAMES {
        let (moves, result) = play(round);
        let rec = Record {
            tags: vec![
                ("Event".into(), "boardcast corpus: engine self-play".into()),
                (
                    "Site".into(),
                    "generated by rules/examples/xiangqi_selfplay.rs".into(),
                ),
                ("Date".into(), "2026.11.25".into()),
                ("Round".into(), round.to_string()),
                ("Red".into(), "boardcast alpha-beta d2".into()),
                ("Black".into(), "boardcast alpha-beta d2".into()),
            ],
            start: Position::start(),
            moves,
            result,
        };
        print!("{}", write(&rec).expect("legal record"));
        eprintln!(
            "game {round}: {} plies, {}",
            rec.moves.len(),
            result.token()
        );
    }
}
