//! Squares, colours and pieces of English draughts.
//!
//! The 32 dark squares are numbered 1-32 as the rule book numbers them
//! (art. 1.5, 1.11): Black (the book's red) starts on 1-12, White on 21-32,
//! square 32 is White's nearest double corner. The open protocol
//! (interface §6) names the same squares `a1`-`h8` from Black's side:
//! `g1` is square 1, `a1` square 4, `h8` square 29, `b8` square 32.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

/// The two sides. Black is the rule book's red and moves first (art. 1.13).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    /// The dark pieces (the book's red), squares 1-12 at the start; moves first.
    Black,
    /// The light pieces, squares 21-32 at the start.
    White,
}

impl Color {
    /// The other side.
    #[must_use]
    pub fn opponent(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// Lower-case name used in events (`black`, `white`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Color::Black => "black",
            Color::White => "white",
        }
    }

    /// The PDN FEN letter (`B` or `W`).
    #[must_use]
    pub fn fen_char(self) -> char {
        match self {
            Color::Black => 'B',
            Color::White => 'W',
        }
    }

    /// Rank step (+1 or -1) that is "forward" for this side's men.
    #[must_use]
    pub fn forward(self) -> i8 {
        match self {
            Color::Black => 1,
            Color::White => -1,
        }
    }

    /// The rank (0-7, 0 = rank 1) where this side's men are crowned (art. 1.15).
    #[must_use]
    pub fn king_rank(self) -> u8 {
        match self {
            Color::Black => 7,
            Color::White => 0,
        }
    }

    /// Index 0 (Black) or 1 (White), for per-side tables.
    #[must_use]
    pub fn index(self) -> usize {
        self as usize
    }
}

/// Man or king.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// An uncrowned piece; moves and captures forward only (art. 1.14, 1.17).
    Man,
    /// A crowned piece; moves and captures both ways (art. 1.16, 1.20).
    King,
}

/// A piece: colour and kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Its side.
    pub color: Color,
    /// Man or king.
    pub kind: Kind,
}

impl Piece {
    /// A man of `color`.
    #[must_use]
    pub fn man(color: Color) -> Piece {
        Piece {
            color,
            kind: Kind::Man,
        }
    }

    /// A king of `color`.
    #[must_use]
    pub fn king(color: Color) -> Piece {
        Piece {
            color,
            kind: Kind::King,
        }
    }

    /// Whether this piece is a king.
    #[must_use]
    pub fn is_king(self) -> bool {
        self.kind == Kind::King
    }
}

/// One of the 32 playing squares, numbered 1-32 as the rule book does.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

/// A square name that is not 1-32 or not a dark `a1`-`h8` coordinate.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("not a draughts square: {0:?}")]
pub struct ParseSquareError(pub String);

impl Square {
    /// All 32 squares in numeric order.
    pub fn all() -> impl Iterator<Item = Square> {
        (0u8..32).map(Square)
    }

    /// Square number `n` (1-32).
    #[must_use]
    pub fn new(n: u8) -> Option<Square> {
        (1..=32).contains(&n).then(|| Square(n - 1))
    }

    /// From a 0-based index (0-31, square number minus one).
    #[must_use]
    pub fn from_index(i: usize) -> Option<Square> {
        (i < 32).then_some(Square(i as u8))
    }

    /// 0-based index (square number minus one).
    #[must_use]
    pub fn index(self) -> usize {
        usize::from(self.0)
    }

    /// The book's number, 1-32.
    #[must_use]
    pub fn number(self) -> u8 {
        self.0 + 1
    }

    /// Rank 0-7 (0 = rank 1, Black's home row).
    #[must_use]
    pub fn rank(self) -> u8 {
        self.0 / 4
    }

    /// File 0-7 (0 = file `a`), seen from Black's side.
    #[must_use]
    pub fn file(self) -> u8 {
        let k = self.0 % 4;
        if self.rank().is_multiple_of(2) {
            6 - 2 * k
        } else {
            7 - 2 * k
        }
    }

    /// The dark square at `file`, `rank` (0-7 each), or `None` for a light
    /// square or one off the board.
    #[must_use]
    pub fn from_file_rank(file: u8, rank: u8) -> Option<Square> {
        if file > 7 || rank > 7 || !(file + rank).is_multiple_of(2) {
            return None;
        }
        let k = if rank.is_multiple_of(2) {
            (6 - file) / 2
        } else {
            (7 - file) / 2
        };
        Some(Square(rank * 4 + k))
    }

    /// Cell index on the 8x8 board, `rank * 8 + file` (`a1` = 0, `h8` = 63).
    #[must_use]
    pub fn cell(self) -> usize {
        usize::from(self.rank()) * 8 + usize::from(self.file())
    }

    /// The square on 8x8 cell `cell` (`rank * 8 + file`), `None` if light.
    #[must_use]
    pub fn from_cell(cell: usize) -> Option<Square> {
        if cell >= 64 {
            return None;
        }
        Square::from_file_rank((cell % 8) as u8, (cell / 8) as u8)
    }

    /// The open protocol coordinate, `a1`-`h8` (interface §6).
    #[must_use]
    pub fn coord(self) -> String {
        format!("{}{}", char::from(b'a' + self.file()), self.rank() + 1)
    }

    /// Parses an open protocol coordinate (`a1`-`h8`, dark squares only).
    pub fn from_coord(s: &str) -> Result<Square, ParseSquareError> {
        let b = s.as_bytes();
        let bad = || ParseSquareError(s.to_owned());
        if b.len() != 2 {
            return Err(bad());
        }
        let file = b[0].to_ascii_lowercase().wrapping_sub(b'a');
        let rank = b[1].wrapping_sub(b'1');
        Square::from_file_rank(file, rank).ok_or_else(bad)
    }

    /// The diagonal neighbour one step `(df, dr)` away, if on the board.
    #[must_use]
    pub fn step(self, df: i8, dr: i8) -> Option<Square> {
        let f = self.file() as i8 + df;
        let r = self.rank() as i8 + dr;
        if (0..8).contains(&f) && (0..8).contains(&r) {
            Square::from_file_rank(f as u8, r as u8)
        } else {
            None
        }
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Square({})", self.number())
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.number())
    }
}

impl FromStr for Square {
    type Err = ParseSquareError;

    /// Parses a square number `1`-`32`.
    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        s.trim()
            .parse::<u8>()
            .ok()
            .and_then(Square::new)
            .ok_or_else(|| ParseSquareError(s.to_owned()))
    }
}

/// The four diagonal directions as `(file step, rank step)`.
pub const DIRECTIONS: [(i8, i8); 4] = [(-1, 1), (1, 1), (-1, -1), (1, -1)];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interface_anchors() {
        let sq = |n| Square::new(n).unwrap();
        assert_eq!(sq(4).coord(), "a1");
        assert_eq!(sq(1).coord(), "g1");
        assert_eq!(sq(32).coord(), "b8");
        assert_eq!(sq(29).coord(), "h8");
        assert_eq!(sq(5).coord(), "h2");
    }

    #[test]
    fn round_trips() {
        for s in Square::all() {
            assert_eq!(Square::from_coord(&s.coord()), Ok(s));
            assert_eq!(Square::from_cell(s.cell()), Some(s));
            assert_eq!(s.number().to_string().parse::<Square>(), Ok(s));
        }
        let dark = (0..64).filter_map(Square::from_cell).count();
        assert_eq!(dark, 32);
        assert!(Square::from_coord("a2").is_err());
    }
}
