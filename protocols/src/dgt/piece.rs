//! The 4-bit piece codes used in board dumps, field updates and the EEPROM log.

/// What the board sees on one square.
///
/// Note the order of king and queen: the king comes first for both colours
/// (white king 5, white queen 6; black king 11, black queen 12). Codes 13 to
/// 15 are the "magic" result pieces an arbiter puts on the board.
///
/// A DGT Pegasus cannot tell pieces apart; it reports 1 ([`PieceCode::WhitePawn`])
/// for any occupied square and 0 for an empty one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum PieceCode {
    /// No piece.
    Empty = 0,
    /// White pawn.
    WhitePawn = 1,
    /// White rook.
    WhiteRook = 2,
    /// White knight.
    WhiteKnight = 3,
    /// White bishop.
    WhiteBishop = 4,
    /// White king.
    WhiteKing = 5,
    /// White queen.
    WhiteQueen = 6,
    /// Black pawn.
    BlackPawn = 7,
    /// Black rook.
    BlackRook = 8,
    /// Black knight.
    BlackKnight = 9,
    /// Black bishop.
    BlackBishop = 10,
    /// Black king.
    BlackKing = 11,
    /// Black queen.
    BlackQueen = 12,
    /// Result piece: the game was drawn.
    Draw = 13,
    /// Result piece: white won.
    WhiteWins = 14,
    /// Result piece: black won.
    BlackWins = 15,
}

impl PieceCode {
    /// Every code in numeric order (index = code).
    pub const ALL: [PieceCode; 16] = [
        PieceCode::Empty,
        PieceCode::WhitePawn,
        PieceCode::WhiteRook,
        PieceCode::WhiteKnight,
        PieceCode::WhiteBishop,
        PieceCode::WhiteKing,
        PieceCode::WhiteQueen,
        PieceCode::BlackPawn,
        PieceCode::BlackRook,
        PieceCode::BlackKnight,
        PieceCode::BlackBishop,
        PieceCode::BlackKing,
        PieceCode::BlackQueen,
        PieceCode::Draw,
        PieceCode::WhiteWins,
        PieceCode::BlackWins,
    ];

    /// The piece with wire code `b`, or `None` if `b > 15`.
    pub const fn from_u8(b: u8) -> Option<PieceCode> {
        if (b as usize) < Self::ALL.len() {
            Some(Self::ALL[b as usize])
        } else {
            None
        }
    }

    /// The wire code, 0..=15.
    pub const fn to_u8(self) -> u8 {
        self as u8
    }

    /// True for the twelve real chess pieces (not empty, not a result piece).
    pub const fn is_chess_piece(self) -> bool {
        matches!(self.to_u8(), 1..=12)
    }

    /// True for the three result pieces (draw, white wins, black wins).
    pub const fn is_result_piece(self) -> bool {
        matches!(self.to_u8(), 13..=15)
    }

    /// The FEN letter of a chess piece (`P N B R Q K` for white, lower case
    /// for black); `None` for empty squares and result pieces.
    pub const fn fen_char(self) -> Option<char> {
        match self {
            PieceCode::WhitePawn => Some('P'),
            PieceCode::WhiteRook => Some('R'),
            PieceCode::WhiteKnight => Some('N'),
            PieceCode::WhiteBishop => Some('B'),
            PieceCode::WhiteKing => Some('K'),
            PieceCode::WhiteQueen => Some('Q'),
            PieceCode::BlackPawn => Some('p'),
            PieceCode::BlackRook => Some('r'),
            PieceCode::BlackKnight => Some('n'),
            PieceCode::BlackBishop => Some('b'),
            PieceCode::BlackKing => Some('k'),
            PieceCode::BlackQueen => Some('q'),
            PieceCode::Empty | PieceCode::Draw | PieceCode::WhiteWins | PieceCode::BlackWins => {
                None
            }
        }
    }

    /// The chess piece whose FEN letter is `c` (the inverse of
    /// [`PieceCode::fen_char`]); `None` for any other character.
    pub fn from_fen_char(c: char) -> Option<PieceCode> {
        Self::ALL.into_iter().find(|p| p.fen_char() == Some(c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_from_0_to_15_round_trips() {
        for b in 0..16u8 {
            let piece = PieceCode::from_u8(b).unwrap();
            assert_eq!(piece.to_u8(), b);
        }
    }

    #[test]
    fn fen_letters_name_the_twelve_chess_pieces_both_ways() {
        for code in PieceCode::ALL {
            match code.fen_char() {
                Some(c) => assert_eq!(PieceCode::from_fen_char(c), Some(code)),
                None => assert!(!code.is_chess_piece()),
            }
        }
        assert_eq!(PieceCode::from_fen_char('.'), None);
        assert_eq!(PieceCode::from_fen_char('x'), None);
    }

    #[test]
    fn codes_above_15_are_rejected() {
        for b in 16..=255u8 {
            assert_eq!(PieceCode::from_u8(b), None);
        }
    }

    #[test]
    fn king_comes_before_queen_for_both_colours() {
        assert_eq!(PieceCode::from_u8(5), Some(PieceCode::WhiteKing));
        assert_eq!(PieceCode::from_u8(6), Some(PieceCode::WhiteQueen));
        assert_eq!(PieceCode::from_u8(0x0b), Some(PieceCode::BlackKing));
        assert_eq!(PieceCode::from_u8(0x0c), Some(PieceCode::BlackQueen));
    }

    #[test]
    fn fen_letters_exist_only_for_chess_pieces() {
        let letters: String = PieceCode::ALL.iter().filter_map(|p| p.fen_char()).collect();
        assert_eq!(letters, "PRNBKQprnbkq");
        assert!(PieceCode::WhiteQueen.is_chess_piece());
        assert!(!PieceCode::Empty.is_chess_piece());
        assert!(PieceCode::Draw.is_result_piece());
        assert!(!PieceCode::BlackKing.is_result_piece());
    }
}
