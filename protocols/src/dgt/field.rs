//! Square numbering as the DGT board counts.

use std::fmt;

/// A square in the board's own numbering: 0 = a8, 1 = b8, ... 7 = h8, 8 = a7,
/// ..., 63 = h1 (as if the board stands the normal way round).
///
/// The board never rotates its numbering. When it is placed the other way
/// round, the host has to turn every index with [`Field::rotated`] before the
/// names (`file`, `rank`, `Display`) mean what they say.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Field(u8);

impl Field {
    /// Number of squares on the board.
    pub const COUNT: u8 = 64;

    /// The square with the given board index, or `None` if `index >= 64`.
    pub const fn new(index: u8) -> Option<Field> {
        if index < Self::COUNT {
            Some(Field(index))
        } else {
            None
        }
    }

    /// The board index, 0..=63.
    pub const fn index(self) -> u8 {
        self.0
    }

    /// The file, 0 = a ... 7 = h.
    pub const fn file(self) -> u8 {
        self.0 % 8
    }

    /// The rank, 0 = rank 1 ... 7 = rank 8.
    pub const fn rank(self) -> u8 {
        7 - self.0 / 8
    }

    /// The square on `file` (0 = a) and `rank` (0 = rank 1), or `None` if
    /// either is 8 or more.
    pub const fn from_file_rank(file: u8, rank: u8) -> Option<Field> {
        if file < 8 && rank < 8 {
            Some(Field((7 - rank) * 8 + file))
        } else {
            None
        }
    }

    /// The same physical square seen from the other side of the board
    /// (index `63 - index`). Applying it twice gives the square back.
    pub const fn rotated(self) -> Field {
        Field(63 - self.0)
    }

    /// Iterates over all 64 squares in index order (a8, b8, ..., h1).
    pub fn all() -> impl Iterator<Item = Field> {
        (0..Self::COUNT).map(Field)
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = char::from(b'a' + self.file());
        let rank = char::from(b'1' + self.rank());
        write!(f, "{file}{rank}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_zero_is_a8_and_index_63_is_h1() {
        assert_eq!(Field::new(0).unwrap().to_string(), "a8");
        assert_eq!(Field::new(7).unwrap().to_string(), "h8");
        assert_eq!(Field::new(8).unwrap().to_string(), "a7");
        assert_eq!(Field::new(63).unwrap().to_string(), "h1");
    }

    #[test]
    fn e2_is_52_and_e4_is_36() {
        let e2 = Field::from_file_rank(4, 1).unwrap();
        let e4 = Field::from_file_rank(4, 3).unwrap();
        assert_eq!(e2.index(), 52);
        assert_eq!(e4.index(), 36);
        assert_eq!(e2.to_string(), "e2");
        assert_eq!(e4.to_string(), "e4");
    }

    #[test]
    fn indices_of_64_and_more_are_rejected() {
        assert_eq!(Field::new(64), None);
        assert_eq!(Field::new(255), None);
        assert_eq!(Field::from_file_rank(8, 0), None);
        assert_eq!(Field::from_file_rank(0, 8), None);
    }

    #[test]
    fn file_and_rank_round_trip_for_every_square() {
        for field in Field::all() {
            assert_eq!(
                Field::from_file_rank(field.file(), field.rank()),
                Some(field)
            );
        }
        assert_eq!(Field::all().count(), 64);
    }

    #[test]
    fn rotation_maps_a8_to_h1_and_is_its_own_inverse() {
        let a8 = Field::new(0).unwrap();
        assert_eq!(a8.rotated().to_string(), "h1");
        let e2 = Field::from_file_rank(4, 1).unwrap();
        assert_eq!(e2.rotated().to_string(), "d7");
        for field in Field::all() {
            assert_eq!(field.rotated().rotated(), field);
            assert_eq!(field.rotated().file(), 7 - field.file());
            assert_eq!(field.rotated().rank(), 7 - field.rank());
        }
    }
}
