//! Xiangqi for the [`Tracker`](super::Tracker), over the rule engine of the
//! `boardcast-games` crate.

use boardcast_games::xiangqi::notation::{iccs, wxf};
use boardcast_games::xiangqi::pgn::{self, GameResult, Record};
use boardcast_games::xiangqi::repetition::{MoveLimit, RepetitionKind, Tracker, Verdict as Rep};
use boardcast_games::xiangqi::{Move, Outcome, Position, Side, Square};
use boardcast_protocols::reading::{Geometry, Square as Cell};

use super::event::{GameAlert, GameAlertKind};
use super::{TrackedGame, Verdict};

/// Xiangqi on the 9x10 points (ICCS names: `a0`-`i9`, rank 0 on Red's side).
#[derive(Debug, Clone, Copy, Default)]
pub struct Xiangqi;

fn cell(sq: Square) -> Cell {
    Cell::new(sq.file() as u8, sq.rank() as u8)
}

fn square(c: Cell) -> Option<Square> {
    Square::new(c.file as i8, c.rank as i8)
}

impl TrackedGame for Xiangqi {
    type Position = Position;
    type Move = Move;
    type Referee = Tracker;

    const NAME: &'static str = "xiangqi";

    fn geometry() -> Geometry {
        Geometry::XIANGQI
    }

    fn start() -> Position {
        Position::start()
    }

    fn legal_moves(pos: &Position) -> Vec<Move> {
        pos.legal_moves()
    }

    fn after(pos: &Position, mv: &Move) -> Position {
        pos.after(*mv).expect("a legal move")
    }

    fn letter(pos: &Position, sq: Cell) -> Option<char> {
        square(sq)
            .and_then(|s| pos.piece_at(s))
            .map(|p| p.fen_char())
    }

    fn squares(mv: &Move) -> Vec<Cell> {
        vec![cell(mv.from), cell(mv.to)]
    }

    fn id(_pos: &Position, mv: &Move) -> String {
        iccs(*mv)
    }

    fn notation(pos: &Position, mv: &Move) -> String {
        wxf(pos, *mv)
    }

    fn fen(pos: &Position) -> String {
        pos.fen()
    }

    fn side_to_move(pos: &Position) -> &'static str {
        pos.turn().name()
    }

    fn referee(start: &Position) -> Tracker {
        Tracker::new(start.clone(), MoveLimit::default())
    }

    fn judge(referee: &mut Tracker, mv: &Move) -> Vec<Verdict> {
        let Ok(verdicts) = referee.push(*mv) else {
            return Vec::new();
        };
        let mut out: Vec<Verdict> = verdicts
            .into_iter()
            .map(|v| match v {
                Rep::Repetition(r) => {
                    let kind = match r.kind {
                        RepetitionKind::PerpetualCheck => GameAlertKind::PerpetualCheck,
                        RepetitionKind::PerpetualChase => GameAlertKind::PerpetualChase,
                        RepetitionKind::Repetition => GameAlertKind::Repetition,
                    };
                    Verdict::Alert(GameAlert::new(
                        kind,
                        r.side.map(Side::name),
                        Some(r.law),
                        r.message(),
                    ))
                }
                Rep::MoveLimit(c) => Verdict::Alert(GameAlert::new(
                    GameAlertKind::DrawClaimable,
                    Some(c.side.name()),
                    Some("17"),
                    format!(
                        "{} may claim the move limit ({} moves counted since ply {})",
                        c.side.name(),
                        c.counted,
                        c.since_ply
                    ),
                )),
            })
            .collect();
        let (winner, how) = match referee.position().outcome() {
            Outcome::Ongoing => return out,
            Outcome::Checkmate { winner } => (winner, "checkmate"),
            Outcome::Stalemate { winner } => (winner, "no legal move"),
        };
        out.push(Verdict::End {
            winner: Some(winner.name()),
            result: GameResult::Win(winner).token().to_owned(),
            reason: format!("{how} (Art. 16)"),
        });
        out
    }

    fn record(start: &Position, moves: &[Move], result: Option<&str>) -> String {
        let rec = Record {
            tags: Vec::new(),
            start: start.clone(),
            moves: moves.to_vec(),
            result: result
                .and_then(GameResult::from_token)
                .unwrap_or(GameResult::Unfinished),
        };
        pgn::write(&rec).unwrap_or_default()
    }
}
