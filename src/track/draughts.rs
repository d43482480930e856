//! English draughts for the [`Tracker`](super::Tracker), over the rule
//! engine of the `boardcast-games` crate.

use boardcast_games::draughts::{
    Color, Game, Law, Move, Outcome, PdnGame, Piece, Position, Square, Verdict as RuleVerdict,
};
use boardcast_protocols::reading::{Geometry, Square as Cell};

use super::event::{GameAlert, GameAlertKind};
use super::{Irregular, TrackedGame, Verdict};
use crate::event::Millis;

/// English draughts on the 32 dark squares of an 8x8 board (squares named
/// as the open protocol names them: `g1` is square 1, `b8` square 32).
#[derive(Debug, Clone, Copy, Default)]
pub struct Draughts;

/// The referee: the rule book's game (draw counters) and the claims
/// already reported, so each is reported once when it arises.
#[derive(Debug)]
pub struct Referee {
    game: Game,
    claimable: Vec<Law>,
}

fn cell(sq: Square) -> Cell {
    Cell::new(sq.file(), sq.rank())
}

fn square(c: Cell) -> Option<Square> {
    Square::from_file_rank(c.file, c.rank)
}

/// The open protocol's letter for a draughts piece: `M`/`K` for Black (the
/// first player), `m`/`k` for White.
pub fn letter(p: Piece) -> char {
    let c = if p.is_king() { 'K' } else { 'M' };
    match p.color {
        Color::Black => c,
        Color::White => c.to_ascii_lowercase(),
    }
}

impl TrackedGame for Draughts {
    type Position = Position;
    type Move = Move;
    type Referee = Referee;

    const NAME: &'static str = "draughts";

    fn geometry() -> Geometry {
        Geometry::CHESS
    }

    fn start() -> Position {
        Position::start()
    }

    fn legal_moves(pos: &Position) -> Vec<Move> {
        pos.legal_moves()
    }

    fn after(pos: &Position, mv: &Move) -> Position {
        pos.after(mv)
    }

    fn letter(pos: &Position, sq: Cell) -> Option<char> {
        square(sq).and_then(|s| pos.piece_at(s)).map(letter)
    }

    fn same_piece(expected: char, seen: char) -> bool {
        expected.is_ascii_uppercase() == seen.is_ascii_uppercase()
    }

    fn squares(mv: &Move) -> Vec<Cell> {
        [mv.from(), mv.to()]
            .iter()
            .chain(mv.captured())
            .map(|&s| cell(s))
            .collect()
    }

    fn route(mv: &Move) -> Vec<Cell> {
        let path = mv.path();
        path[1..path.len() - 1].iter().map(|&s| cell(s)).collect()
    }

    fn id(_pos: &Position, mv: &Move) -> String {
        mv.id()
    }

    fn notation(pos: &Position, mv: &Move) -> String {
        mv.notation(pos)
    }

    fn fen(pos: &Position) -> String {
        pos.fen()
    }

    fn side_to_move(pos: &Position) -> &'static str {
        pos.turn().name()
    }

    // Design: captured men are often removed well after the jumping piece
    // lands, and a multi-jump is set down square by square: a capture waits
    // longer than a plain move before it is committed.
    fn settle_ms(_pos: &Position, mv: &Move, base: Millis) -> Millis {
        if mv.is_capture() { base.max(900) } else { base }
    }

    fn referee(start: &Position) -> Referee {
        Referee {
            game: Game::from_position(*start),
            claimable: Vec::new(),
        }
    }

    fn judge(referee: &mut Referee, mv: &Move) -> Vec<Verdict> {
        let verdicts = referee.game.play(mv);
        let mut out = Vec::new();
        let mut claimable = Vec::new();
        for v in verdicts {
            match v {
                RuleVerdict::Win { winner, law } => out.push(Verdict::End {
                    winner: Some(winner.name()),
                    result: Outcome::Win(winner).pdn().to_owned(),
                    reason: format!(
                        "{} has no legal move (art. {})",
                        winner.opponent().name(),
                        law.article()
                    ),
                }),
                RuleVerdict::DrawClaimable { law } => {
                    claimable.push(law);
                    if !referee.claimable.contains(&law) {
                        let why = if law == Law::Repetition {
                            "the same position stands for the third time"
                        } else {
                            "40 moves each without a man advanced or a piece removed"
                        };
                        out.push(Verdict::Alert(GameAlert::new(
                            GameAlertKind::DrawClaimable,
                            None,
                            Some(law.article()),
                            format!("a draw may be claimed: {why}"),
                        )));
                    }
                }
            }
        }
        referee.claimable = claimable;
        out
    }

    fn displaced_law() -> Option<&'static str> {
        Some(Law::Displaced.article())
    }

    // Art. 1.19: captures are compulsory and a multi-jump, once begun, is
    // completed; failing to do either is an illegal move (art. 1.25.1).
    fn irregular_moves(pos: &Position) -> Vec<Irregular<Move>> {
        let captures = pos.captures();
        let Some(first) = captures.first() else {
            return Vec::new();
        };
        let law = Law::FailToCapture.article();
        let mut out: Vec<Irregular<Move>> = pos
            .plain_moves()
            .into_iter()
            .map(|mv| Irregular {
                mv,
                law,
                what: format!(
                    "a capture was compulsory ({}, art. {}) and none was made",
                    first.notation(pos),
                    Law::CompulsoryCapture.article()
                ),
            })
            .collect();
        for c in &captures {
            let path = c.path();
            for k in 1..c.captured().len() {
                let mv = Move::new(path[..=k].to_vec(), c.captured()[..k].to_vec(), false);
                if captures.contains(&mv) || out.iter().any(|i| i.mv == mv) {
                    continue;
                }
                out.push(Irregular {
                    mv,
                    law,
                    what: format!(
                        "the multi-jump was not completed ({} was the whole capture, art. {})",
                        c.notation(pos),
                        Law::CompulsoryCapture.article()
                    ),
                });
            }
        }
        out
    }

    fn illegal_consequence(count: u32) -> String {
        if count == 1 {
            format!(
                "A first offence: the player is warned and the pieces go back where they stood (art. {}); if the opponent moves on instead, the move stands (art. {}).",
                Law::IllegalMove.article(),
                Law::Condonation.article()
            )
        } else {
            format!(
                "A repeated offence: the game is forfeited (art. {}).",
                Law::IllegalMove.article()
            )
        }
    }

    fn record(start: &Position, moves: &[Move], result: Option<&str>) -> String {
        let mut g = PdnGame::new();
        g.start = *start;
        g.moves = moves.to_vec();
        g.outcome = match result {
            Some("2-0") => Outcome::Win(Color::Black),
            Some("0-2") => Outcome::Win(Color::White),
            Some("1-1") => Outcome::Draw,
            _ => Outcome::Unknown,
        };
        g.to_pdn()
    }
}
