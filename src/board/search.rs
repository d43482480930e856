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
//! pruning rule: each ply brings at most one piece of its mover's colour
//! onto a square (two when castling), so a position from which the board
//! still needs more arrivals of a colour than that colour has plies left is
//! abandoned. Boards that only *lack* pieces (pieces in hand, a capture
//! half done) are never searched: they are partial moves, and the caller
//! waits for the next reading.

use crate::rules::{Bitboard, Board, Color, Game, Move, Position, diff};

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
pub enum Explanation {
    /// The board shows the game's current position.
    Same,
    /// These legal plies, played from the current position, give the board.
    Forward(Vec<Move>),
    /// Go back `plies` plies, then play `then`.
    Back {
        /// How many plies of the game to undo.
        plies: usize,
        /// Plies to play after undoing (empty for a pure takeback).
        then: Vec<Move>,
    },
}

impl Explanation {
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
pub struct Outcome {
    /// The explanation found, if any.
    pub explanation: Option<Explanation>,
    /// Positions visited.
    pub nodes: usize,
}

/// Whether the board only lacks pieces compared with `pos`: every piece on
/// it stands where the position has the same piece.
pub fn only_removals(pos: &Board, target: &Board) -> bool {
    (diff(pos, target) & target.occupied()).is_empty()
}

/// Finds the cheapest explanation of `target` (in game orientation).
///
/// `successors` must be the placements after each legal move of the current
/// position (see [`successors`]); `prefer_back` breaks ties towards undoing
/// plies (used while a takeback is under way); `resync` allows the deep
/// search of a whole-board read.
pub fn explain(
    game: &Game,
    successors: &[(Board, Move)],
    target: &Board,
    prefer_back: bool,
    resync: bool,
    limits: Limits,
) -> Outcome {
    let pos = game.position();
    let mut budget = Budget {
        left: if resync {
            limits.resync_budget
        } else {
            limits.budget
        },
        used: 0,
    };
    let done = |e: Option<Explanation>, b: &Budget| Outcome {
        explanation: e,
        nodes: b.used,
    };
    if pos.board() == target {
        return done(Some(Explanation::Same), &budget);
    }
    if only_removals(pos.board(), target) {
        return done(None, &budget);
    }
    let n = game.len();
    let depth = if resync {
        limits.depth
    } else {
        limits.stream_depth
    };
    for cost in 1..=depth {
        let forward = |budget: &mut Budget| -> Option<Explanation> {
            if cost == 1 {
                successors
                    .iter()
                    .find(|(b, _)| b == target)
                    .map(|(_, m)| Explanation::Forward(vec![*m]))
            } else {
                let mut line = Vec::with_capacity(cost);
                forward_search(pos, target, cost, &mut line, budget)
                    .then_some(Explanation::Forward(line))
            }
        };
        let back = |budget: &mut Budget| -> Option<Explanation> {
            for plies in 1..=limits.back.min(cost).min(n) {
                let earlier = game.position_at(n - plies);
                let rest = cost - plies;
                if rest == 0 {
                    if earlier.board() == target {
                        return Some(Explanation::Back {
                            plies,
                            then: Vec::new(),
                        });
                    }
                } else {
                    let mut line = Vec::with_capacity(rest);
                    if forward_search(earlier, target, rest, &mut line, budget) {
                        return Some(Explanation::Back { plies, then: line });
                    }
                }
            }
            None
        };
        let found = if prefer_back {
            back(&mut budget).or_else(|| forward(&mut budget))
        } else {
            forward(&mut budget).or_else(|| back(&mut budget))
        };
        if found.is_some() {
            return done(found, &budget);
        }
    }
    // A takeback further than the search depth: the board equals an earlier
    // position exactly.
    let far = (0..n.saturating_sub(depth.min(limits.back)))
        .rev()
        .find(|&ply| game.position_at(ply).board() == target)
        .map(|ply| Explanation::Back {
            plies: n - ply,
            then: Vec::new(),
        });
    done(far, &budget)
}

struct Budget {
    left: usize,
    used: usize,
}

impl Budget {
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
pub fn successors(pos: &Position) -> Vec<(Board, Move)> {
    pos.legal_moves().map(|m| (pos.board_after(m), m)).collect()
}

/// Depth-first search for exactly `plies` legal plies from `pos` to `target`.
fn forward_search(
    pos: &Position,
    target: &Board,
    plies: usize,
    line: &mut Vec<Move>,
    budget: &mut Budget,
) -> bool {
    let d = diff(pos.board(), target);
    if plies == 0 {
        return d.is_empty();
    }
    if !feasible(pos, target, plies) {
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
        let next = pos.play(m);
        line.push(m);
        if forward_search(&next, target, plies - 1, line, budget) {
            return true;
        }
        line.pop();
    }
    false
}

/// The pruning rule: can `plies` plies from `pos` still reach `target`?
///
/// Each ply puts exactly one piece of its mover's colour on a square (two
/// when castling), so the squares where the target shows a piece of colour
/// `c` that `pos` does not have there need that many plies of `c`. Each ply
/// empties at most one square, two when castling or taking en passant.
fn feasible(pos: &Position, target: &Board, plies: usize) -> bool {
    let d = diff(pos.board(), target);
    let mover = pos.turn();
    for color in Color::ALL {
        let arrivals = (d & target.by_color(color)).count();
        let own_plies = if color == mover {
            plies.div_ceil(2)
        } else {
            plies / 2
        };
        let castle = usize::from(pos.castling_rooks(color).any());
        if arrivals > own_plies + castle {
            return false;
        }
    }
    let departures = (d & !target.occupied() & pos.board().occupied()).count();
    let slack = 2 * usize::from(pos.any_castling_rights()) + 1;
    departures <= plies + slack
}

/// Squares as a bitboard, for messages and tests.
pub fn squares(b: Bitboard) -> Vec<String> {
    b.into_iter().map(|s| s.to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn search(game: &Game, target: &Board) -> Outcome {
        let succ = successors(game.position());
        explain(game, &succ, target, false, true, Limits::default())
    }

    fn run(game: &Game, target: &Board) -> Option<Explanation> {
        search(game, target).explanation
    }

    fn sans(game: &Game, e: &Explanation) -> Vec<String> {
        let mut g = game.clone();
        match e {
            Explanation::Same => vec![],
            Explanation::Forward(ms) | Explanation::Back { then: ms, .. } => {
                if let Explanation::Back { plies, .. } = e {
                    g.truncate(g.len() - plies);
                }
                ms.iter().map(|m| g.push(*m).san.clone()).collect()
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
        target.discard_piece_at(crate::rules::Square::E7);
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
        let king = target.remove_piece_at(crate::rules::Square::D1).unwrap();
        target.discard_piece_at(crate::rules::Square::A1);
        target.set_piece_at(crate::rules::Square::C1, king);
        let succ = successors(&pos);
        let streamed = explain(&g, &succ, &target, false, false, Limits::default());
        assert_eq!(streamed.explanation, None);
        let resync = explain(&g, &succ, &target, false, true, Limits::default());
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
