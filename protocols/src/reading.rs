//! What every board family produces for the core: readings.
//!
//! A [`Reading`] is one of
//!
//! * a square's new content ([`SquareChange`]): a known piece, a piece the
//!   board cannot identify ([`Content::Occupied`]), a result token (DGT's
//!   magic pieces), or nothing;
//! * a whole-board [`Snapshot`] (Millennium status reports, Certabo frames,
//!   DGT dumps, open-protocol `board` lines);
//! * a clock reading through the board ([`ClockReading`], or no clock);
//! * the board's [`Identity`] (serial number, firmware version, name).
//!
//! Boards of any size are described by a [`Geometry`] (files × ranks), and
//! squares by zero-based file and rank ([`Square`]); rank 0 is the side of the
//! player who moves first. How a square is *named* depends on the game (chess
//! and draughts count ranks from 1, xiangqi from 0), so names take the first
//! rank's number as an argument.
//!
//! Boards that report whole snapshots are turned into square changes by a
//! [`SnapshotDiff`], so that a snapshot in which one square changed costs the
//! core one square update.

use std::fmt;

/// A board's size: `files` columns (a, b, ...) by `ranks` rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Geometry {
    files: u8,
    ranks: u8,
}

impl Geometry {
    /// The most files a board can have (a to z).
    pub const MAX_FILES: u8 = 26;
    /// The most ranks a board can have.
    pub const MAX_RANKS: u8 = 99;
    /// An 8 × 8 board (chess, English draughts).
    pub const CHESS: Geometry = Geometry { files: 8, ranks: 8 };
    /// A 9 × 10 board (xiangqi).
    pub const XIANGQI: Geometry = Geometry {
        files: 9,
        ranks: 10,
    };

    /// A board of `files` × `ranks` squares, or `None` if either is 0 or
    /// above [`Geometry::MAX_FILES`] / [`Geometry::MAX_RANKS`].
    pub const fn new(files: u8, ranks: u8) -> Option<Geometry> {
        if files == 0 || ranks == 0 || files > Self::MAX_FILES || ranks > Self::MAX_RANKS {
            None
        } else {
            Some(Geometry { files, ranks })
        }
    }

    /// Number of files.
    pub const fn files(self) -> u8 {
        self.files
    }

    /// Number of ranks.
    pub const fn ranks(self) -> u8 {
        self.ranks
    }

    /// Number of squares.
    pub const fn len(self) -> usize {
        self.files as usize * self.ranks as usize
    }

    /// Always false: a geometry has at least one square.
    pub const fn is_empty(self) -> bool {
        false
    }

    /// True if `square` lies on the board.
    pub const fn contains(self, square: Square) -> bool {
        square.file < self.files && square.rank < self.ranks
    }

    /// The position of `square` in snapshot order: rank by rank from the
    /// highest rank down, each rank from file a (for 8 × 8: a8 = 0, h1 = 63,
    /// the DGT and open-protocol order).
    pub const fn index(self, square: Square) -> Option<usize> {
        if self.contains(square) {
            Some(
                (self.ranks - 1 - square.rank) as usize * self.files as usize
                    + square.file as usize,
            )
        } else {
            None
        }
    }

    /// The square at `index` in snapshot order.
    pub const fn square(self, index: usize) -> Option<Square> {
        if index >= self.len() {
            return None;
        }
        let files = self.files as usize;
        Some(Square {
            file: (index % files) as u8,
            rank: self.ranks - 1 - (index / files) as u8,
        })
    }

    /// The same physical square seen from the other side of the board.
    pub const fn rotated(self, square: Square) -> Square {
        Square {
            file: self.files - 1 - square.file,
            rank: self.ranks - 1 - square.rank,
        }
    }
}

impl fmt::Display for Geometry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.files, self.ranks)
    }
}

/// A square: zero-based file (0 = a) and rank (0 = the first player's side).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square {
    /// File, 0 = a.
    pub file: u8,
    /// Rank, 0 = the rank nearest the player who moves first.
    pub rank: u8,
}

impl Square {
    /// The square on `file` and `rank` (both zero-based).
    pub const fn new(file: u8, rank: u8) -> Square {
        Square { file, rank }
    }

    /// The square's name when the first rank is numbered `first_rank`
    /// (1 for chess and draughts: `e4`; 0 for xiangqi: `e3`).
    pub fn name(self, first_rank: u8) -> String {
        let file = char::from(b'a' + self.file.min(25));
        format!("{file}{}", u16::from(self.rank) + u16::from(first_rank))
    }

    /// Reads a name such as `e4` or `a10` when the first rank is numbered
    /// `first_rank`. `None` for anything else (upper-case files, signs,
    /// leading zeros other than a lone `0`, ranks below `first_rank`).
    pub fn parse(name: &str, first_rank: u8) -> Option<Square> {
        let bytes = name.as_bytes();
        let (&file, digits) = bytes.split_first()?;
        if !file.is_ascii_lowercase() || digits.is_empty() || digits.len() > 3 {
            return None;
        }
        if !digits.iter().all(u8::is_ascii_digit) || (digits.len() > 1 && digits[0] == b'0') {
            return None;
        }
        let number: u16 = std::str::from_utf8(digits).ok()?.parse().ok()?;
        let rank = number.checked_sub(u16::from(first_rank))?;
        Some(Square {
            file: file - b'a',
            rank: u8::try_from(rank).ok()?,
        })
    }
}

impl fmt::Display for Square {
    /// Chess-style name (rank 0 is `1`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name(1))
    }
}

/// A piece the board identified: an ASCII letter, upper case for the player
/// who moves first (chess FEN letters `KQRBNP`, draughts `M`/`K`, xiangqi
/// `KABNRCP`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece(u8);

impl Piece {
    /// The piece written `letter`, or `None` if it is not an ASCII letter.
    pub const fn from_letter(letter: char) -> Option<Piece> {
        if letter.is_ascii_alphabetic() {
            Some(Piece(letter as u8))
        } else {
            None
        }
    }

    /// The piece's letter.
    pub const fn letter(self) -> char {
        self.0 as char
    }

    /// True for the player who moves first (upper-case letter).
    pub const fn is_first_player(self) -> bool {
        self.0.is_ascii_uppercase()
    }
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// A result token an arbiter puts on the board (DGT's "magic pieces").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ResultToken {
    /// The game was drawn.
    Draw,
    /// The player who moved first won.
    FirstWins,
    /// The other player won.
    SecondWins,
}

/// What a square holds as far as the board can tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Content {
    /// Nothing.
    #[default]
    Empty,
    /// A piece the board cannot identify (occupancy-only boards, unknown
    /// RFID tags).
    Occupied,
    /// This piece.
    Piece(Piece),
    /// A result token (only DGT boards report them).
    Token(ResultToken),
}

impl Content {
    /// True unless empty.
    pub const fn is_occupied(self) -> bool {
        !matches!(self, Content::Empty)
    }

    /// The open-protocol character: `.` empty, `o` occupied (and result
    /// tokens, which the open protocol does not carry), else the piece's
    /// letter.
    pub const fn to_char(self) -> char {
        match self {
            Content::Empty => '.',
            Content::Occupied | Content::Token(_) => 'o',
            Content::Piece(p) => p.letter(),
        }
    }
}

/// The whole board at one moment, in [`Geometry::index`] order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Snapshot {
    geometry: Geometry,
    cells: Vec<Content>,
}

impl Snapshot {
    /// A snapshot of `geometry` from cells in [`Geometry::index`] order, or
    /// `None` if the number of cells is wrong.
    pub fn new(geometry: Geometry, cells: Vec<Content>) -> Option<Snapshot> {
        (cells.len() == geometry.len()).then_some(Snapshot { geometry, cells })
    }

    /// An empty board.
    pub fn empty(geometry: Geometry) -> Snapshot {
        Snapshot {
            geometry,
            cells: vec![Content::Empty; geometry.len()],
        }
    }

    /// The board's size.
    pub fn geometry(&self) -> Geometry {
        self.geometry
    }

    /// The cells in [`Geometry::index`] order.
    pub fn cells(&self) -> &[Content] {
        &self.cells
    }

    /// The content of `square` (`None` off the board).
    pub fn get(&self, square: Square) -> Option<Content> {
        self.geometry.index(square).map(|i| self.cells[i])
    }

    /// Sets `square`; returns false (and changes nothing) off the board.
    pub fn set(&mut self, square: Square, content: Content) -> bool {
        match self.geometry.index(square) {
            Some(i) => {
                self.cells[i] = content;
                true
            }
            None => false,
        }
    }

    /// The board seen from the other side (every square rotated 180°).
    pub fn rotated(&self) -> Snapshot {
        let mut cells = self.cells.clone();
        cells.reverse();
        Snapshot {
            geometry: self.geometry,
            cells,
        }
    }

    /// The cells as open-protocol characters (`.`, `o`, letters), rank by
    /// rank from the highest down.
    pub fn to_cells_string(&self) -> String {
        self.cells.iter().map(|c| c.to_char()).collect()
    }
}

/// One square's new content.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SquareChange {
    /// The square.
    pub square: Square,
    /// What it holds now.
    pub content: Content,
}

/// Who the board says it is.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Identity {
    /// Serial number or other unique id.
    pub serial: Option<String>,
    /// Firmware version, as the family writes it (`1.02`, `01.03`).
    pub version: Option<String>,
    /// Maker or model name.
    pub name: Option<String>,
}

/// A physical clock face.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Face {
    /// The left face, seen from the front of the clock.
    Left,
    /// The right face.
    Right,
}

impl Face {
    /// The other face.
    pub fn other(self) -> Face {
        match self {
            Face::Left => Face::Right,
            Face::Right => Face::Left,
        }
    }

    /// "left"/"right".
    pub fn name(self) -> &'static str {
        match self {
            Face::Left => "left",
            Face::Right => "right",
        }
    }
}

/// One reading of a clock, as the board reports it (the family's codec
/// leaves out readings a clock sends in error: all zeros, out of range).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClockReading {
    /// Seconds on the left face.
    pub left: u32,
    /// Seconds on the right face.
    pub right: u32,
    /// The face counting down, if the clock runs.
    pub running: Option<Face>,
    /// A face whose flag has fallen.
    pub flag: Option<Face>,
    /// The clock shows a low battery.
    pub battery_low: bool,
}

impl ClockReading {
    /// Seconds on a face.
    pub fn on(&self, face: Face) -> u32 {
        match face {
            Face::Left => self.left,
            Face::Right => self.right,
        }
    }
}

/// One record of the move log a board keeps in its memory (history, not a
/// live reading), in the board's own square numbering.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemoryRecord {
    /// The board stood in the game's start position (`rotated`: turned
    /// round, the second player's pieces on the first ranks).
    Start {
        /// Turned round.
        rotated: bool,
    },
    /// The board was empty.
    Empty,
    /// One square changed.
    Change(SquareChange),
}

/// Everything a board family hands to the core.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reading {
    /// One square changed.
    Square(SquareChange),
    /// The whole board.
    Snapshot(Snapshot),
    /// Clock times (a clock connected through the board).
    Clock(ClockReading),
    /// The board says no clock is connected to it.
    NoClock,
    /// Identification.
    Identity(Identity),
}

/// Turns successive snapshots into square changes.
///
/// The first snapshot (and the first after a change of geometry or a
/// [`SnapshotDiff::reset`]) has nothing to compare with: the caller should
/// forward it whole. After that, [`SnapshotDiff::update`] compares cell by
/// cell in place and emits only the squares that changed, so a status report
/// in which nothing moved costs no allocation and no reading at all.
#[derive(Clone, Debug, Default)]
pub struct SnapshotDiff {
    last: Option<Snapshot>,
}

/// What [`SnapshotDiff::update`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiffOutcome {
    /// Nothing to compare with: forward the snapshot itself.
    First,
    /// This many square changes were appended to the output.
    Changed(usize),
}

impl SnapshotDiff {
    /// A diff that has seen nothing yet.
    pub fn new() -> SnapshotDiff {
        SnapshotDiff::default()
    }

    /// Forgets the last snapshot (after a reconnect, say).
    pub fn reset(&mut self) {
        self.last = None;
    }

    /// The last snapshot seen.
    pub fn last(&self) -> Option<&Snapshot> {
        self.last.as_ref()
    }

    /// Compares `snapshot` with the previous one and appends the squares that
    /// changed to `out`, in snapshot order.
    pub fn update(&mut self, snapshot: &Snapshot, out: &mut Vec<SquareChange>) -> DiffOutcome {
        let last = match &mut self.last {
            Some(last) if last.geometry == snapshot.geometry => last,
            _ => {
                self.last = Some(snapshot.clone());
                return DiffOutcome::First;
            }
        };
        let before = out.len();
        let geometry = snapshot.geometry;
        for (i, (old, new)) in last.cells.iter_mut().zip(&snapshot.cells).enumerate() {
            if old != new {
                *old = *new;
                if let Some(square) = geometry.square(i) {
                    out.push(SquareChange {
                        square,
                        content: *new,
                    });
                }
            }
        }
        DiffOutcome::Changed(out.len() - before)
    }

    /// Applies one square change to the remembered snapshot (for families
    /// that mix snapshots and square updates, such as DGT), so the next
    /// snapshot is compared with what the core already knows.
    pub fn apply(&mut self, change: SquareChange) {
        if let Some(last) = &mut self.last {
            last.set(change.square, change.content);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(c: char) -> Content {
        Content::Piece(Piece::from_letter(c).unwrap())
    }

    #[test]
    fn chess_geometry_indexes_a8_first_and_h1_last() {
        let g = Geometry::CHESS;
        assert_eq!(g.index(Square::new(0, 7)), Some(0));
        assert_eq!(g.index(Square::new(7, 0)), Some(63));
        assert_eq!(g.square(52).unwrap().to_string(), "e2");
        for i in 0..64 {
            assert_eq!(g.index(g.square(i).unwrap()), Some(i));
        }
        assert_eq!(g.square(64), None);
        assert_eq!(g.index(Square::new(8, 0)), None);
    }

    #[test]
    fn xiangqi_squares_are_named_from_rank_zero() {
        let g = Geometry::XIANGQI;
        assert_eq!(g.len(), 90);
        assert_eq!(g.square(0).unwrap().name(0), "a9");
        assert_eq!(g.square(89).unwrap().name(0), "i0");
        assert_eq!(Square::parse("i9", 0), Some(Square::new(8, 9)));
        assert_eq!(Square::parse("a0", 0), Some(Square::new(0, 0)));
        assert_eq!(Square::parse("a0", 1), None);
        assert_eq!(Square::parse("a10", 1), Some(Square::new(0, 9)));
        for bad in ["", "a", "A1", "a01", "a-1", "1a", "a1x", "a1000"] {
            assert_eq!(Square::parse(bad, 1), None, "{bad}");
        }
    }

    #[test]
    fn geometry_limits_are_enforced() {
        assert_eq!(Geometry::new(0, 8), None);
        assert_eq!(Geometry::new(27, 8), None);
        assert_eq!(Geometry::new(8, 100), None);
        assert_eq!(Geometry::new(10, 10).unwrap().to_string(), "10x10");
        let g = Geometry::new(10, 10).unwrap();
        assert_eq!(g.rotated(Square::new(0, 0)), Square::new(9, 9));
    }

    #[test]
    fn first_snapshot_is_forwarded_whole_then_only_changes() {
        let mut diff = SnapshotDiff::new();
        let mut out = Vec::new();
        let mut board = Snapshot::empty(Geometry::CHESS);
        board.set(Square::new(4, 1), p('P'));
        assert_eq!(diff.update(&board, &mut out), DiffOutcome::First);
        assert!(out.is_empty());
        assert_eq!(diff.update(&board, &mut out), DiffOutcome::Changed(0));
        board.set(Square::new(4, 1), Content::Empty);
        board.set(Square::new(4, 3), p('P'));
        assert_eq!(diff.update(&board, &mut out), DiffOutcome::Changed(2));
        assert_eq!(
            out,
            vec![
                SquareChange {
                    square: Square::new(4, 3),
                    content: p('P')
                },
                SquareChange {
                    square: Square::new(4, 1),
                    content: Content::Empty
                },
            ]
        );
        // A different geometry starts over.
        let xq = Snapshot::empty(Geometry::XIANGQI);
        assert_eq!(diff.update(&xq, &mut out), DiffOutcome::First);
    }

    #[test]
    fn applied_square_changes_are_not_reported_again() {
        let mut diff = SnapshotDiff::new();
        let mut out = Vec::new();
        let mut board = Snapshot::empty(Geometry::CHESS);
        diff.update(&board, &mut out);
        let change = SquareChange {
            square: Square::new(0, 0),
            content: Content::Occupied,
        };
        diff.apply(change);
        board.set(change.square, change.content);
        assert_eq!(diff.update(&board, &mut out), DiffOutcome::Changed(0));
    }

    #[test]
    fn rotation_reverses_the_cells() {
        let mut board = Snapshot::empty(Geometry::XIANGQI);
        board.set(Square::new(0, 0), p('R'));
        let turned = board.rotated();
        assert_eq!(turned.get(Square::new(8, 9)), Some(p('R')));
        assert_eq!(turned.rotated(), board);
    }
}
