//! How a board's sensors read chess: the neutral squares and contents of
//! [`boardcast_protocols::reading`] as chess squares and cells, the start
//! position as a board reads it, and a board memory log taken up where the
//! board was last read. (Chess squares and cells as DGT fields and piece
//! codes are the simulator's: `boardcast_sim::dgt`; the daemon reads DGT
//! through the neutral readings.)

use boardcast_protocols::reading::{Content, MemoryRecord, ResultToken, Square as At};

use super::{Board, Piece, Square};
use crate::games::{Cell, Token};

/// The chess square a neutral square names (`None`: off an 8 × 8 board).
pub fn square(at: At) -> Option<Square> {
    (at.file < 8 && at.rank < 8).then(|| Square::new(u32::from(at.rank) * 8 + u32::from(at.file)))
}

/// The neutral square of a chess square.
pub fn at(square: Square) -> At {
    At::new(square.file() as u8, square.rank() as u8)
}

/// The cell a reading's content stands for on a chess board (`None`: a
/// piece the board cannot identify, or a letter that is no chess piece).
pub fn cell(content: Content) -> Option<Cell> {
    Some(match content {
        Content::Empty => Cell::Empty,
        Content::Occupied => return None,
        Content::Piece(p) => Cell::Piece(Piece::from_char(p.letter())?),
        Content::Token(ResultToken::Draw) => Cell::Token(Token::Draw),
        Content::Token(ResultToken::FirstWins) => Cell::Token(Token::WhiteWins),
        Content::Token(ResultToken::SecondWins) => Cell::Token(Token::BlackWins),
    })
}

/// The standard start position as a board reads it, turned round (Black
/// on ranks 1-2) when `rotated`.
pub fn start_cells(rotated: bool) -> [Cell; 64] {
    let board = Board::default();
    let mut cells = [Cell::Empty; 64];
    for (i, cell) in cells.iter_mut().enumerate() {
        let game = if rotated { 63 - i } else { i };
        if let Some(p) = board.piece_at(Square::new(game as u32)) {
            *cell = Cell::Piece(p);
        }
    }
    cells
}

/// The piece changes of a board memory log after the last time the board
/// stood as `sensed` (in the board's own orientation), oldest first;
/// `None` when the log never shows that board. The log's board is known
/// from a start-position or empty-board record on.
pub fn memory_since(records: &[MemoryRecord], sensed: &[Cell; 64]) -> Option<Vec<(Square, Cell)>> {
    let mut board: Option<[Cell; 64]> = None;
    let mut changes = Vec::new();
    let mut since = None;
    for record in records {
        match *record {
            MemoryRecord::Start { rotated } => board = Some(start_cells(rotated)),
            MemoryRecord::Empty => board = Some([Cell::Empty; 64]),
            MemoryRecord::Change(change) => {
                let (Some(sq), Some(cell)) = (square(change.square), cell(change.content)) else {
                    continue;
                };
                changes.push((sq, cell));
                if let Some(b) = &mut board {
                    b[sq as usize] = cell;
                }
            }
        }
        if board.as_ref() == Some(sensed) {
            since = Some(changes.len());
        }
    }
    since.map(|n| changes.split_off(n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use boardcast_protocols::dgt::{self, EeRecord, Field, PieceCode};

    use crate::games::chess::{Color, Role};

    /// The square a DGT field names, the board the normal way round.
    fn square_of(field: u8) -> Square {
        square(Field::new(field).unwrap().square()).unwrap()
    }

    /// The cell a DGT piece code stands for.
    fn cell_of(code: PieceCode) -> Cell {
        cell(code.content()).unwrap()
    }

    fn change(field: u8, piece: PieceCode) -> EeRecord {
        EeRecord::PieceChange {
            field: Field::new(field).unwrap(),
            piece,
            rapid: false,
        }
    }

    #[test]
    fn the_memory_is_taken_up_after_the_board_as_last_read() {
        // 1. e4 e5 as the board logs it: e2 (field 52) emptied, e4 (36)
        // filled, e7 (12) emptied, e5 (28) filled.
        let log = dgt::memory(&[
            EeRecord::PowerUp,
            EeRecord::BeginPos,
            change(52, PieceCode::Empty),
            change(36, PieceCode::WhitePawn),
            EeRecord::Time {
                left_display: true,
                hours: 1,
                minutes: 30,
                seconds: 0,
            },
            change(12, PieceCode::Empty),
            change(28, PieceCode::BlackPawn),
            EeRecord::Eof,
        ]);
        let mut after_e4 = start_cells(false);
        after_e4[square_of(52) as usize] = Cell::Empty;
        after_e4[square_of(36) as usize] = cell_of(PieceCode::WhitePawn);
        let rest = memory_since(&log, &after_e4).unwrap();
        assert_eq!(
            rest,
            [
                (square_of(12), Cell::Empty),
                (square_of(28), cell_of(PieceCode::BlackPawn))
            ]
        );
        // From the start: every change; a board the log never shows: none.
        assert_eq!(memory_since(&log, &start_cells(false)).unwrap().len(), 4);
        assert_eq!(memory_since(&log, &start_cells(true)), None);
        // Changes before the start mark are not known to start anywhere.
        assert_eq!(memory_since(&log[1..], &after_e4), None);
        // A board turned round starts from its own start position.
        let turned = dgt::memory(&[EeRecord::BeginPosRotated, change(11, PieceCode::Empty)]);
        assert_eq!(memory_since(&turned, &start_cells(true)).unwrap().len(), 1);
        assert_eq!(
            start_cells(true)[0],
            Cell::Piece(Piece {
                color: Color::Black,
                role: Role::Rook
            })
        );
    }
}
