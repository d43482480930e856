//! Explaining a sensor board as legal play.
//!
//! Given the game so far and what the sensors show, find the cheapest
//! explanation: the board equals the game's position; or a short sequence
//! of legal plies from it reaches the board; or an earlier position of the
//! game, possibly followed by a few plies, does (a takeback, or a published
//! move that turned out wrong).
//!
//! Design: the cost of one search must stay bounded whatever the board
//! shows (a board covered in pieces, random garbage). Three bounds do it:
//! a depth limit on plies, a node budget on positions visited, and a sound
//! pruning rule, the game's own ([`Game::feasible`]; chess: each ply brings
//! at most one piece of its mover's colour onto a square, two when
//! castling, so a position from which the board still needs more arrivals
//! of a colour than that colour has plies left is abandoned). Boards that
//! only *lack* pieces (pieces in hand, a capture half done) are never
//! searched: they are partial moves, and the caller waits for the next
//! reading.
//!
//! Games whose boards may not identify pieces ([`Game::ranks_by_evidence`])
//! are searched with the [`Evidence`] of the readings: every explanation of
//! the cheapest cost is found and the one whose moves' squares the readings
//! touched wins; a board that only lacks pieces is then searched too (a
//! capture on such a board changes only its origin's occupancy), but only
//! an explanation whose every changed square was touched counts.

use crate::games::{Game, GameMove, GamePiece, GamePosition, Placement, Record, SquareSet};

pub use super::ranking::Evidence;
use super::ranking::Score;

/// How far a search may go.
///
/// Design: while square updates stream in, every physical change is seen,
/// so at most two plies can land between two explained boards (a move and
/// the opponent's fast reply before it settled). Deeper explanations of a
/// streamed board are nearly always wrong: a piece in hand can be
/// "explained" as captured in a four-ply exchange. Deep search is kept for
/// resynchronising after a whole-board read (a board that reconnects and
/// dumps its state after moves were made while it was away).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Most plies undone plus played while square updates stream in.
    pub stream_depth: usize,
    /// Most plies in a forward explanation after a whole-board read.
    pub depth: usize,
    /// Most plies taken back before playing forward again (a published move
    /// that the board shows was not the final one).
    pub back: usize,
    /// Most positions visited by one search while updates stream in.
    pub budget: usize,
    /// Most positions visited by one search after a whole-board read.
    pub resync_budget: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            stream_depth: 2,
            depth: 4,
            back: 2,
            budget: 4_000,
            resync_budget: 60_000,
        }
    }
}

/// How the board relates to the game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Explanation<M> {
    /// The board shows the game's current position.
    Same,
    /// These legal plies, played from the current position, give the board.
    Forward(Vec<M>),
    /// Go back `plies` plies, then play `then`.
    Back {
        /// How many plies of the game to undo.
        plies: usize,
        /// Plies to play after undoing (empty for a pure takeback).
        then: Vec<M>,
    },
}

impl<M> Explanation<M> {
    /// Plies undone and played: the explanation's cost.
    pub fn cost(&self) -> usize {
        match self {
            Explanation::Same => 0,
            Explanation::Forward(m) => m.len(),
            Explanation::Back { plies, then } => plies + then.len(),
        }
    }
}

/// The result of one search, with how much work it did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome<M> {
    /// The explanation found, if any.
    pub explanation: Option<Explanation<M>>,
    /// Positions visited.
    pub nodes: usize,
    /// Whether the readings back the explanation up on every square it
    /// changes (always, for games searched without [`Evidence`]).
    pub backed: bool,
}

/// Whether the board only lacks pieces compared with `pos`: every piece on
/// it stands where the position has the same piece.
pub fn only_removals<B: Placement>(pos: &B, target: &B) -> bool {
    (pos.diff(target) & target.occupied()).is_empty()
}

/// A search for what explains a board: the game so far, how to search,
/// and the readings' evidence. Built by the reading rules for each board
/// they ask about; [`Query::explain`] runs it.
#[derive(Clone, Copy, Debug)]
pub struct Query<'a, G: Game> {
    /// The game's rules.
    pub rules: &'a G,
    /// The game as published so far.
    pub game: &'a Record<G>,
    /// The placements after each legal move of the game's position (see
    /// [`successors`]).
    pub successors: &'a [(G::Board, G::Move)],
    /// Break ties towards undoing plies (a takeback is under way).
    pub prefer_back: bool,
    /// Allow the deep search of a whole-board read.
    pub resync: bool,
    /// How far and how much to search.
    pub limits: Limits,
    /// What the readings say, for games that rank explanations by
    /// evidence ([`Game::ranks_by_evidence`]); `None` searches by cost
    /// alone.
    pub evidence: Option<&'a Evidence<'a>>,
}

impl<'a, G: Game> Query<'a, G> {
    /// A streamed query (no takeback preferred, no deep search, no
    /// evidence) of `game`, whose position's `successors` are given.
    pub fn new(
        rules: &'a G,
        game: &'a Record<G>,
        successors: &'a [(G::Board, G::Move)],
        limits: Limits,
    ) -> Self {
        Query {
            rules,
            game,
            successors,
            prefer_back: false,
            resync: false,
            limits,
            evidence: None,
        }
    }

    /// Finds the cheapest explanation of `target` (in game orientation);
    /// with evidence, the best backed-up one of the cheapest cost found.
    pub fn explain(&self, target: &G::Board) -> Outcome<G::Move> {
        if let Some(evidence) = self.evidence {
            return self.explain_ranked(target, evidence);
        }
        let Query {
            rules,
            game,
            successors,
            prefer_back,
            resync,
            limits,
            ..
        } = *self;
        let pos = game.position();
        let mut budget = Budget::for_search(limits, resync);
        let done = |e: Option<Explanation<G::Move>>, b: &Budget| Outcome {
            explanation: e,
            nodes: b.used,
            backed: true,
        };
        if pos.board().matches(target) {
            return done(Some(Explanation::Same), &budget);
        }
        if only_removals(pos.board(), target) {
            return done(None, &budget);
        }
        let depth = search_depth(limits, resync);
        for cost in 1..=depth {
            let forward = |budget: &mut Budget| -> Option<Explanation<G::Move>> {
                if cost == 1 {
                    successors
                        .iter()
                        .find(|(b, _)| b.matches(target))
                        .map(|(_, m)| Explanation::Forward(vec![m.clone()]))
                } else {
                    let mut line = Vec::with_capacity(cost);
                    forward_search(rules, pos, target, cost, &mut line, budget)
                        .then_some(Explanation::Forward(line))
                }
            };
            let found = if prefer_back {
                first_back(rules, game, target, cost, limits, &mut budget)
                    .or_else(|| forward(&mut budget))
            } else {
                forward(&mut budget)
                    .or_else(|| first_back(rules, game, target, cost, limits, &mut budget))
            };
            if found.is_some() {
                return done(found, &budget);
            }
        }
        done(far_takeback(game, target, depth, limits, |_| true), &budget)
    }
}

/// How deep a search goes: a whole-board read searches deeper.
fn search_depth(limits: Limits, resync: bool) -> usize {
    if resync {
        limits.depth
    } else {
        limits.stream_depth
    }
}

/// The first explanation of `cost` plies that withdraws some (up to
/// `limits.back`) and plays the rest.
fn first_back<G: Game>(
    rules: &G,
    game: &Record<G>,
    target: &G::Board,
    cost: usize,
    limits: Limits,
    budget: &mut Budget,
) -> Option<Explanation<G::Move>> {
    let n = game.len();
    for plies in 1..=limits.back.min(cost).min(n) {
        let earlier = game.position_at(n - plies);
        let rest = cost - plies;
        if rest == 0 {
            if earlier.board().matches(target) {
                return Some(Explanation::Back {
                    plies,
                    then: Vec::new(),
                });
            }
        } else {
            let mut line = Vec::with_capacity(rest);
            if forward_search(rules, earlier, target, rest, &mut line, budget) {
                return Some(Explanation::Back { plies, then: line });
            }
        }
    }
    None
}

/// A takeback further than the search depth: the board equals an earlier
/// position exactly, one that `allowed` accepts, and one that differs from
/// the game's position by more than one piece changing square.
///
/// Design: players restoring several plies move more than one piece. When
/// the plies between cancel out but for one piece (kings or advisers
/// shuffling in an ending), that piece pushed a step recreates the old
/// position exactly; reading it as a takeback published the withdrawal of
/// many plies and then the piece set back as new moves. Such a board is a
/// displaced piece (`misplaced` once it stands long enough); an arbiter who
/// really restores that position corrects the record explicitly.
fn far_takeback<G: Game>(
    game: &Record<G>,
    target: &G::Board,
    depth: usize,
    limits: Limits,
    allowed: impl Fn(&G::Board) -> bool,
) -> Option<Explanation<G::Move>> {
    let n = game.len();
    let now = game.position().board();
    (0..n.saturating_sub(depth.min(limits.back)))
        .rev()
        .find(|&ply| {
            let earlier = game.position_at(ply).board();
            earlier.matches(target) && !one_piece_apart(now, earlier) && allowed(earlier)
        })
        .map(|ply| Explanation::Back {
            plies: n - ply,
            then: Vec::new(),
        })
}

/// Whether two placements differ by one piece standing on another square
/// and nothing else (whole pieces compared, kind included).
pub(crate) fn one_piece_apart<B: Placement>(a: &B, b: &B) -> bool {
    let changed: Vec<_> = (a.occupied() | b.occupied())
        .into_iter()
        .filter(|&sq| a.piece_at(sq) != b.piece_at(sq))
        .collect();
    let [x, y] = changed[..] else {
        return false;
    };
    let moved = |from, to| {
        a.piece_at(to).is_none() && b.piece_at(from).is_none() && a.piece_at(from) == b.piece_at(to)
    };
    moved(x, y) || moved(y, x)
}

impl<G: Game> Query<'_, G> {
    /// [`Query::explain`] for games that rank explanations by evidence.
    fn explain_ranked(&self, target: &G::Board, evidence: &Evidence) -> Outcome<G::Move> {
        let Query {
            rules,
            game,
            resync,
            limits,
            ..
        } = *self;
        let pos = game.position();
        let mut budget = Budget::for_search(limits, resync);
        let done = |e: Option<Explanation<G::Move>>, backed: bool, b: &Budget| Outcome {
            explanation: e,
            nodes: b.used,
            backed,
        };
        if pos.board().matches(target) {
            return done(Some(Explanation::Same), true, &budget);
        }
        // Pieces only lifted: a move under way, or (on a board without piece
        // identity) a capture done: only a move every square of which was
        // touched.
        let lifted = only_removals(pos.board(), target);
        let unknown = target
            .occupied()
            .into_iter()
            .any(|sq| target.piece_at(sq).is_some_and(|p| p.color().is_none()));
        if lifted && !unknown {
            return done(None, true, &budget);
        }
        let depth = search_depth(limits, resync);
        for cost in 1..=depth {
            let all = self.ranked_of_cost(target, evidence, cost, lifted, &mut budget);
            if let Some((score, e)) = best_ranked(all, lifted) {
                // (A board that identifies pieces backs any explanation up.)
                return done(Some(e), score.0 || !unknown, &budget);
            }
        }
        if lifted {
            return done(None, true, &budget);
        }
        let deeper = deeper_back(
            rules,
            game,
            target,
            depth + 1,
            limits,
            evidence,
            &mut budget,
        );
        if let Some((score, e)) = best_ranked(deeper, lifted) {
            return done(Some(e), score.0 || !unknown, &budget);
        }
        let now = pos.board();
        let allowed = |earlier: &G::Board| evidence.restores_seen(rules, now, earlier);
        let far = far_takeback(game, target, depth, limits, allowed);
        done(far, true, &budget)
    }

    /// Every explanation of `cost` plies that the evidence allows, with
    /// its score, in the order ties break: forward and back, or back first
    /// while a takeback is under way. With pieces only `lifted`, only
    /// provisional plies may be withdrawn.
    fn ranked_of_cost(
        &self,
        target: &G::Board,
        evidence: &Evidence,
        cost: usize,
        lifted: bool,
        budget: &mut Budget,
    ) -> Vec<(Score, Explanation<G::Move>)> {
        let Query {
            rules,
            game,
            successors,
            prefer_back,
            limits,
            ..
        } = *self;
        let pos = game.position();
        let forward = all_forward(rules, pos, successors, target, cost, budget);
        let forward = forward.into_iter().filter(|moves| {
            !evidence.hands_over_unseen(rules, moves) && !evidence.out_of_order(rules, pos, moves)
        });
        let forward = forward.map(|moves| {
            let score = evidence.score(rules, pos, &moves);
            (score, Explanation::Forward(moves))
        });
        // (Pieces only lifted, provisional plies only: the piece of a move
        // read from its stop short of a capture lifted again, the capture
        // done from where it started, on a board that senses occupancy.)
        let back_limits = if lifted {
            Limits {
                back: limits.back.min(evidence.provisional),
                ..limits
            }
        } else {
            limits
        };
        let back = all_back(rules, game, target, cost, back_limits, evidence, budget);
        if prefer_back {
            back.into_iter().chain(forward).collect()
        } else {
            forward.chain(back).collect()
        }
    }
}

/// The explanations one ply deeper than the search goes that withdraw
/// two provisional plies or more: a reply read from a victim set down
/// beside for a moment, and the move it replied to read from the
/// capturing piece set down short of it, then the capture made from where
/// the piece started (two plies withdrawn, one played).
fn deeper_back<G: Game>(
    rules: &G,
    game: &Record<G>,
    target: &G::Board,
    cost: usize,
    limits: Limits,
    evidence: &Evidence,
    budget: &mut Budget,
) -> Vec<(Score, Explanation<G::Move>)> {
    let withdrawn = Limits {
        back: limits.back.min(evidence.provisional),
        ..limits
    };
    let mut deeper = all_back(rules, game, target, cost, withdrawn, evidence, budget);
    deeper.retain(|(_, e)| matches!(e, Explanation::Back { plies, .. } if *plies >= 2));
    deeper
}

/// Every line of `cost` legal plies from `pos` to `target`.
fn all_forward<G: Game>(
    rules: &G,
    pos: &G::Position,
    successors: &[(G::Board, G::Move)],
    target: &G::Board,
    cost: usize,
    budget: &mut Budget,
) -> Vec<Vec<G::Move>> {
    let mut forward = Vec::new();
    if cost == 1 {
        forward.extend(
            successors
                .iter()
                .filter(|(b, _)| b.matches(target))
                .map(|(_, m)| vec![m.clone()]),
        );
    } else {
        let mut line = Vec::with_capacity(cost);
        forward_all(rules, pos, target, cost, &mut line, &mut forward, budget);
    }
    forward
}

/// Every explanation of `cost` plies that withdraws some (up to
/// `limits.back`) and plays the rest, with its evidence score.
fn all_back<G: Game>(
    rules: &G,
    game: &Record<G>,
    target: &G::Board,
    cost: usize,
    limits: Limits,
    evidence: &Evidence,
    budget: &mut Budget,
) -> Vec<(Score, Explanation<G::Move>)> {
    let n = game.len();
    let mut back = Vec::new();
    for plies in 1..=limits.back.min(cost).min(n) {
        let earlier = game.position_at(n - plies);
        let rest = cost - plies;
        if rest == 0 {
            if earlier.board().matches(target) {
                back.push((
                    (true, 0, 0),
                    Explanation::Back {
                        plies,
                        then: Vec::new(),
                    },
                ));
            }
            continue;
        }
        let mut lines = Vec::new();
        let mut line = Vec::with_capacity(rest);
        forward_all(rules, earlier, target, rest, &mut line, &mut lines, budget);
        let lines = lines
            .into_iter()
            .filter(|then| !evidence.out_of_order(rules, earlier, then));
        back.extend(lines.map(|then| {
            let withdrawn: Vec<G::Move> = game.plies()[n - plies..]
                .iter()
                .filter_map(|x| x.m.clone())
                .collect();
            let score = evidence.score_after(rules, earlier, &then, &withdrawn);
            (score, Explanation::Back { plies, then })
        }));
    }
    back
}

/// The best backed-up explanation; among equals, the first found. With
/// pieces only lifted, only one the readings back up.
fn best_ranked<M>(
    all: Vec<(Score, Explanation<M>)>,
    lifted: bool,
) -> Option<(Score, Explanation<M>)> {
    let mut best: Option<(Score, Explanation<M>)> = None;
    for (score, e) in all {
        if lifted && !score.0 {
            continue;
        }
        if best.as_ref().is_none_or(|(b, _)| score > *b) {
            best = Some((score, e));
        }
    }
    best
}

/// Every line of exactly `plies` legal plies from `pos` to `target`.
fn forward_all<G: Game>(
    rules: &G,
    pos: &G::Position,
    target: &G::Board,
    plies: usize,
    line: &mut Vec<G::Move>,
    out: &mut Vec<Vec<G::Move>>,
    budget: &mut Budget,
) {
    let d = pos.board().diff(target);
    if plies == 0 {
        if d.is_empty() {
            out.push(line.clone());
        }
        return;
    }
    if !rules.feasible(pos, target, plies) {
        return;
    }
    for m in pos.legal_moves() {
        if (m.touched() & d).is_empty() {
            continue;
        }
        if !budget.take() {
            return;
        }
        let next = pos.play(&m);
        line.push(m);
        forward_all(rules, &next, target, plies - 1, line, out, budget);
        line.pop();
    }
}

struct Budget {
    left: usize,
    used: usize,
}

impl Budget {
    /// The budget of one search (a whole-board read gets more).
    fn for_search(limits: Limits, resync: bool) -> Budget {
        Budget {
            left: if resync {
                limits.resync_budget
            } else {
                limits.budget
            },
            used: 0,
        }
    }

    fn take(&mut self) -> bool {
        if self.left == 0 {
            return false;
        }
        self.left -= 1;
        self.used += 1;
        true
    }
}

/// The placement after each legal move of `pos`.
pub fn successors<P: GamePosition>(pos: &P) -> Vec<(P::Board, P::Move)> {
    pos.legal_moves()
        .map(|m| (pos.board_after(&m), m))
        .collect()
}

/// Depth-first search for exactly `plies` legal plies from `pos` to `target`.
fn forward_search<G: Game>(
    rules: &G,
    pos: &G::Position,
    target: &G::Board,
    plies: usize,
    line: &mut Vec<G::Move>,
    budget: &mut Budget,
) -> bool {
    let d = pos.board().diff(target);
    if plies == 0 {
        return d.is_empty();
    }
    if !rules.feasible(pos, target, plies) {
        return false;
    }
    for m in pos.legal_moves() {
        // A ply that touches no differing square only adds differences.
        if (m.touched() & d).is_empty() {
            continue;
        }
        if !budget.take() {
            return false;
        }
        let next = pos.play(&m);
        line.push(m);
        if forward_search(rules, &next, target, plies - 1, line, budget) {
            return true;
        }
        line.pop();
    }
    false
}

/// Squares as a bitboard, for messages and tests.
pub fn squares<S: std::fmt::Display, B: SquareSet<S>>(b: B) -> Vec<String> {
    b.into_iter().map(|s| s.to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::chess::{Board, Chess, Game, Position};

    fn game_after(sans: &[&str]) -> Game {
        let mut g = Game::new(Position::standard());
        for s in sans {
            let m = g.position().parse_san(s).unwrap();
            g.push(m);
        }
        g
    }

    fn board_after(sans: &[&str]) -> Board {
        game_after(sans).position().board().clone()
    }

    /// A resynchronising search (whole-board read) with default limits.
    fn search(game: &Game, target: &Board) -> Outcome<crate::games::chess::Move> {
        let succ = successors(game.position());
        Query {
            resync: true,
            ..Query::new(&Chess::default(), game, &succ, Limits::default())
        }
        .explain(target)
    }

    fn run(game: &Game, target: &Board) -> Option<Explanation<crate::games::chess::Move>> {
        search(game, target).explanation
    }

    fn sans(game: &Game, e: &Explanation<crate::games::chess::Move>) -> Vec<String> {
        let mut g = game.clone();
        match e {
            Explanation::Same => vec![],
            Explanation::Forward(ms) | Explanation::Back { then: ms, .. } => {
                if let Explanation::Back { plies, .. } = e {
                    g.truncate(g.len() - plies);
                }
                ms.iter().map(|m| g.push(*m).notation.clone()).collect()
            }
        }
    }

    #[test]
    fn one_move_is_found() {
        let g = game_after(&[]);
        let e = run(&g, &board_after(&["e4"])).unwrap();
        assert_eq!(sans(&g, &e), ["e4"]);
    }

    #[test]
    fn a_fast_reply_is_two_plies() {
        let g = game_after(&["e4"]);
        let e = run(&g, &board_after(&["e4", "e5", "Nf3"])).unwrap();
        assert_eq!(sans(&g, &e), ["e5", "Nf3"]);
    }

    #[test]
    fn four_missed_plies_with_captures_are_found() {
        let g = game_after(&["e4", "d5"]);
        let target = board_after(&["e4", "d5", "exd5", "Qxd5", "Nc3", "Qa5"]);
        let e = run(&g, &target).unwrap();
        assert_eq!(sans(&g, &e), ["exd5", "Qxd5", "Nc3", "Qa5"]);
    }

    #[test]
    fn a_piece_in_hand_is_not_searched() {
        let g = game_after(&["e4"]);
        let mut target = g.position().board().clone();
        target.discard_piece_at(crate::games::chess::Square::E7);
        let out = search(&g, &target);
        assert_eq!(out.explanation, None);
        assert_eq!(out.nodes, 0);
    }

    #[test]
    fn a_restored_position_is_a_takeback() {
        // Pawn moves cannot be undone by play, so only a takeback explains.
        let g = game_after(&["e4", "e5", "d4", "d5"]);
        let e = run(&g, &board_after(&["e4", "e5"])).unwrap();
        assert_eq!(
            e,
            Explanation::Back {
                plies: 2,
                then: vec![]
            }
        );
        let far = run(&g, &board_after(&[])).unwrap();
        assert_eq!(
            far,
            Explanation::Back {
                plies: 4,
                then: vec![]
            }
        );
    }

    #[test]
    fn a_half_done_chess960_castling_is_not_explained_while_streaming() {
        // King d1 set down on c1 while the a1 rook is in the hand: a
        // four-ply exchange could explain it, but streamed readings only
        // ever need two.
        let pos = Position::from_fen(
            "2kr2qb/1ppbp2p/p1np1n2/5p2/P4P2/2NPB2P/1PP1PQ2/R2KN2B w Q - 0 11",
            true,
        )
        .unwrap();
        let g = Game::new(pos.clone());
        let mut target = pos.board().clone();
        let king = target
            .remove_piece_at(crate::games::chess::Square::D1)
            .unwrap();
        target.discard_piece_at(crate::games::chess::Square::A1);
        target.set_piece_at(crate::games::chess::Square::C1, king);
        let succ = successors(&pos);
        let chess = Chess::default();
        let streamed = Query::new(&chess, &g, &succ, Limits::default()).explain(&target);
        assert_eq!(streamed.explanation, None);
        let resync = Query {
            resync: true,
            ..Query::new(&chess, &g, &succ, Limits::default())
        }
        .explain(&target);
        assert_eq!(resync.explanation.map(|e| e.cost()), Some(4));
    }

    #[test]
    fn a_piece_that_travelled_on_replaces_the_move() {
        let g = game_after(&["a4", "e5", "Ra3"]);
        let e = run(&g, &board_after(&["a4", "e5", "Ra2"])).unwrap();
        assert_eq!(sans(&g, &e), ["Ra2"]);
        assert!(matches!(e, Explanation::Back { plies: 1, .. }));
    }

    #[test]
    fn garbage_costs_a_bounded_search() {
        let g = game_after(&["e4"]);
        // Queens everywhere.
        let target: Board = "QQQQQQQQ/qqqqqqqq/QQQQQQQQ/8/8/qqqqqqqq/QQQQQQQQ/qqqqqqqq"
            .parse()
            .unwrap();
        let out = search(&g, &target);
        assert_eq!(out.explanation, None);
        assert!(out.nodes <= Limits::default().resync_budget);
    }
}
