//! Recognising a start position (standard or any of the 960 Chess960 ones)
//! on a sensor board, in either orientation.

use shakmaty::{Bitboard, Board, Color, File, Piece, Rank, Role, Square};

use super::{Position, rotated};

/// A start position found on the board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StartPosition {
    /// The position, White to move, all castling rights.
    pub position: Position,
    /// True when White's pieces stand on the board's ranks 7-8: the board is
    /// turned round (Law 7.2b) and every square must be read rotated.
    pub rotated: bool,
}

/// Recognises a start position on a board as the sensors see it (the
/// board's own orientation). Tries the normal and the rotated reading.
pub fn detect_start(raw: &Board) -> Option<StartPosition> {
    if let Some(position) = start_in(raw) {
        return Some(StartPosition {
            position,
            rotated: false,
        });
    }
    let turned = rotated(raw);
    start_in(&turned).map(|position| StartPosition {
        position,
        rotated: true,
    })
}

/// The back-rank order of the standard start position.
const STANDARD: [Role; 8] = [
    Role::Rook,
    Role::Knight,
    Role::Bishop,
    Role::Queen,
    Role::King,
    Role::Bishop,
    Role::Knight,
    Role::Rook,
];

fn start_in(board: &Board) -> Option<Position> {
    let rank = |r: Rank| Bitboard::from_rank(r);
    if board.by_piece(Piece {
        color: Color::White,
        role: Role::Pawn,
    }) != rank(Rank::Second)
        || board.by_piece(Piece {
            color: Color::Black,
            role: Role::Pawn,
        }) != rank(Rank::Seventh)
        || board.by_color(Color::White) != rank(Rank::First) | rank(Rank::Second)
        || board.by_color(Color::Black) != rank(Rank::Seventh) | rank(Rank::Eighth)
    {
        return None;
    }
    let mut roles = [Role::Pawn; 8];
    for file in File::ALL {
        let white = board.role_at(Square::from_coords(file, Rank::First))?;
        let black = board.role_at(Square::from_coords(file, Rank::Eighth))?;
        if white != black || white == Role::Pawn {
            return None;
        }
        roles[file as usize] = white;
    }
    if !is_chess960_back_rank(&roles) {
        return None;
    }
    Position::from_start_board(board.clone(), roles != STANDARD)
}

/// One king between two rooks, bishops on opposite colours, one queen, two
/// knights.
fn is_chess960_back_rank(roles: &[Role; 8]) -> bool {
    let at = |role: Role| -> Vec<usize> {
        roles
            .iter()
            .enumerate()
            .filter(|(_, r)| **r == role)
            .map(|(i, _)| i)
            .collect()
    };
    let (kings, rooks, bishops) = (at(Role::King), at(Role::Rook), at(Role::Bishop));
    kings.len() == 1
        && rooks.len() == 2
        && bishops.len() == 2
        && at(Role::Queen).len() == 1
        && at(Role::Knight).len() == 2
        && rooks[0] < kings[0]
        && kings[0] < rooks[1]
        && bishops[0] % 2 != bishops[1] % 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_start_is_recognised_both_ways_round() {
        let board = Board::new();
        let found = detect_start(&board).unwrap();
        assert!(!found.rotated && !found.position.is_chess960());
        let found = detect_start(&rotated(&board)).unwrap();
        assert!(found.rotated);
        assert_eq!(found.position, Position::standard());
    }

    #[test]
    fn chess960_start_is_recognised() {
        let pos = Position::from_fen(
            "nrqkbrnb/pppppppp/8/8/8/8/PPPPPPPP/NRQKBRNB w KQkq - 0 1",
            true,
        )
        .unwrap();
        let found = detect_start(pos.board()).unwrap();
        assert!(found.position.is_chess960());
        assert!(found.position.legal_moves().count() > 0);
    }

    #[test]
    fn bishops_on_one_colour_are_not_a_start() {
        let pos: Board = "rbnqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RBNQKBNR"
            .parse()
            .unwrap();
        assert!(detect_start(&pos).is_none());
    }

    #[test]
    fn a_missing_pawn_is_not_a_start() {
        let pos: Board = "rnbqkbnr/pppppppp/8/8/8/8/PPPP1PPP/RNBQKBNR"
            .parse()
            .unwrap();
        assert!(detect_start(&pos).is_none());
    }
}
