//! Boards of any size for the games other than chess: a grid of cells
//! holding the open protocol's piece letters (interface §6), with each
//! game's rule for which letters a sensor may show for which piece.
//!
//! A [`Spec`] (one per game) fixes the grid's size, its colours, how its
//! squares are named and which sensor letters agree with which piece; the
//! types here are generic over it: [`Point`] (a square), [`Points`] (a set
//! of squares, up to 128), [`Stone`] (a piece letter), [`Grid`] (a
//! placement) and [`GridChange`] (a change that looks like a move).
//!
//! Design: a board without piece identity reports `o` (a piece of unknown
//! colour) on an occupied square; the grid keeps that letter, and the
//! comparison of two placements ([`Placement::diff`]) counts a square as
//! different only where the sensor can tell: a piece of unknown colour
//! agrees with any piece, and each game says which letters agree beyond
//! equality (draughts: same colour, as an identity board may keep
//! reporting a man on a crowned square). So the generic reconstructor
//! follows boards with and without piece identity alike, without guessing
//! which piece a hand set down.

use std::fmt;
use std::hash::Hash;
use std::marker::PhantomData;
use std::ops::{BitAnd, BitOr, Not};

use boardcast_protocols::reading::Content;

use super::{Cell, Change, GameColor, GamePiece, Placement, SquareSet};

/// The letter a board without piece identity reports for a piece.
pub const UNKNOWN: u8 = b'o';

/// The most squares a grid has (xiangqi's 9 x 10 points).
pub const MAX_SQUARES: usize = 90;

/// What a game's grid is.
pub trait Spec: Copy + Eq + Hash + fmt::Debug + Default + Send + Sync + 'static {
    /// Files (columns).
    const FILES: u8;
    /// Ranks (rows), rank 0 on the first player's side.
    const RANKS: u8;
    /// The game's colours.
    type Color: GameColor;
    /// The colour of a piece letter; `None` for [`UNKNOWN`].
    fn color(letter: u8) -> Option<Self::Color>;
    /// Whether a sensor showing `seen` agrees with `expected`, both letters
    /// of known colour (by default: the same letter).
    fn agrees(expected: u8, seen: u8) -> bool {
        expected == seen
    }
    /// The name of a square, in the game's own terms.
    fn name(file: u8, rank: u8) -> String;
}

/// A square of the grid: `rank * FILES + file`, in the game's coordinates.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point<S>(u8, PhantomData<S>);

impl<S: Spec> Point<S> {
    /// The square on `file`, `rank`, if on the grid.
    pub fn new(file: u8, rank: u8) -> Option<Point<S>> {
        (file < S::FILES && rank < S::RANKS).then(|| Point(rank * S::FILES + file, PhantomData))
    }

    /// The square numbered `i` (`rank * FILES + file`).
    pub fn from_index(i: usize) -> Option<Point<S>> {
        (i < Self::count()).then_some(Point(i as u8, PhantomData))
    }

    /// How many squares the grid has.
    pub const fn count() -> usize {
        S::FILES as usize * S::RANKS as usize
    }

    /// Its number.
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// Its file.
    pub fn file(self) -> u8 {
        self.0 % S::FILES
    }

    /// Its rank.
    pub fn rank(self) -> u8 {
        self.0 / S::FILES
    }

    /// The square 180 degrees round.
    pub fn turned(self) -> Point<S> {
        Point((Self::count() - 1 - self.index()) as u8, PhantomData)
    }
}

impl<S: Spec> fmt::Display for Point<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&S::name(self.file(), self.rank()))
    }
}

impl<S: Spec> fmt::Debug for Point<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A set of squares of the grid.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Points<S>(u128, PhantomData<S>);

impl<S: Spec> Points<S> {
    fn mask() -> u128 {
        if Point::<S>::count() >= 128 {
            u128::MAX
        } else {
            (1u128 << Point::<S>::count()) - 1
        }
    }

    /// Every square.
    pub fn all() -> Points<S> {
        Points(Self::mask(), PhantomData)
    }
}

impl<S: Spec> fmt::Debug for Points<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(*self).finish()
    }
}

impl<S: Spec> BitAnd for Points<S> {
    type Output = Points<S>;
    fn bitand(self, o: Points<S>) -> Points<S> {
        Points(self.0 & o.0, PhantomData)
    }
}

impl<S: Spec> BitOr for Points<S> {
    type Output = Points<S>;
    fn bitor(self, o: Points<S>) -> Points<S> {
        Points(self.0 | o.0, PhantomData)
    }
}

impl<S: Spec> Not for Points<S> {
    type Output = Points<S>;
    fn not(self) -> Points<S> {
        Points(!self.0 & Self::mask(), PhantomData)
    }
}

impl<S: Spec> From<Point<S>> for Points<S> {
    fn from(p: Point<S>) -> Points<S> {
        Points(1u128 << p.0, PhantomData)
    }
}

/// The squares of a set, lowest first.
#[derive(Debug)]
pub struct PointsIter<S>(u128, PhantomData<S>);

impl<S: Spec> Iterator for PointsIter<S> {
    type Item = Point<S>;
    fn next(&mut self) -> Option<Point<S>> {
        if self.0 == 0 {
            return None;
        }
        let i = self.0.trailing_zeros();
        self.0 &= self.0 - 1;
        Some(Point(i as u8, PhantomData))
    }
}

impl<S: Spec> IntoIterator for Points<S> {
    type Item = Point<S>;
    type IntoIter = PointsIter<S>;
    fn into_iter(self) -> PointsIter<S> {
        PointsIter(self.0, PhantomData)
    }
}

impl<S: Spec> SquareSet<Point<S>> for Points<S> {
    fn contains(self, sq: Point<S>) -> bool {
        self.0 & (1u128 << sq.0) != 0
    }
    fn add(&mut self, sq: Point<S>) {
        self.0 |= 1u128 << sq.0;
    }
    fn discard(&mut self, sq: Point<S>) {
        self.0 &= !(1u128 << sq.0);
    }
    fn count(self) -> usize {
        self.0.count_ones() as usize
    }
    fn is_empty(self) -> bool {
        self.0 == 0
    }
}

/// A piece: its open-protocol letter (upper case for the first player,
/// [`UNKNOWN`] for a piece of unknown colour).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Stone<S>(u8, PhantomData<S>);

impl<S: Spec> Stone<S> {
    /// The piece of letter `letter`.
    pub fn new(letter: u8) -> Stone<S> {
        Stone(letter, PhantomData)
    }

    /// A piece of unknown colour (a board without piece identity).
    pub fn unknown() -> Stone<S> {
        Stone(UNKNOWN, PhantomData)
    }

    /// Its letter.
    pub fn letter(self) -> char {
        char::from(self.0)
    }

    /// Whether its colour is known.
    pub fn is_known(self) -> bool {
        S::color(self.0).is_some()
    }
}

impl<S: Spec> fmt::Debug for Stone<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

impl<S: Spec> GamePiece for Stone<S> {
    type Color = S::Color;
    fn color(self) -> Option<S::Color> {
        S::color(self.0)
    }
}

/// A placement on the grid. Cells hold a letter, 0 for an empty square.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Grid<S> {
    cells: [u8; MAX_SQUARES],
    spec: PhantomData<S>,
}

impl<S: Spec> Grid<S> {
    /// The pieces on the grid, with their squares.
    pub fn pieces(&self) -> impl Iterator<Item = (Point<S>, Stone<S>)> + '_ {
        self.cells[..Point::<S>::count()]
            .iter()
            .enumerate()
            .filter(|(_, c)| **c != 0)
            .map(|(i, &c)| (Point(i as u8, PhantomData), Stone(c, PhantomData)))
    }

    /// The placement with every piece's colour forgotten (what a board
    /// without piece identity shows).
    pub fn occupancy(&self) -> Grid<S> {
        let mut g = self.clone();
        for c in &mut g.cells[..Point::<S>::count()] {
            if *c != 0 {
                *c = UNKNOWN;
            }
        }
        g
    }

    /// Whether any piece's colour is known.
    pub fn identifies(&self) -> bool {
        self.pieces().any(|(_, p)| p.is_known())
    }

    /// The grid rank by rank from the highest rank down, each from file 0:
    /// `.` for an empty square, else the letter (the open protocol's
    /// `board` line).
    pub fn cells_text(&self) -> String {
        let mut out = String::with_capacity(Point::<S>::count());
        for rank in (0..S::RANKS).rev() {
            for file in 0..S::FILES {
                let p = Point::<S>::new(file, rank).expect("on the grid");
                out.push(match self.cells[p.index()] {
                    0 => '.',
                    c => char::from(c),
                });
            }
        }
        out
    }

    /// The squares a sensor shows differently from this placement in
    /// `seen`, in words (`15 is empty, should hold a black man`), each
    /// piece named by `name`.
    pub fn differences(&self, seen: &Grid<S>, name: fn(Stone<S>) -> String) -> Vec<String> {
        self.diff(seen)
            .into_iter()
            .map(|sq| match (self.piece_at(sq), seen.piece_at(sq)) {
                (Some(p), None) => format!("{sq} is empty, should hold {}", name(p)),
                (None, Some(q)) => format!("{sq} holds {}, should be empty", name(q)),
                (Some(p), Some(q)) => format!("{sq} holds {}, should hold {}", name(q), name(p)),
                (None, None) => unreachable!("diff squares differ"),
            })
            .collect()
    }

    /// This placement and `seen` as a board set up from `start` is
    /// compared: both turned round when this one is not `start` as it
    /// stands (a board set up turned round), so the differences name the
    /// squares as the players see them.
    pub fn facing(&self, seen: &Grid<S>, start: &Grid<S>) -> (Grid<S>, Grid<S>) {
        if self.matches(start) {
            (self.clone(), seen.clone())
        } else {
            (self.rotated(), seen.rotated())
        }
    }
}

/// A sensor's content as a grid cell: a letter of one of the game's
/// colours as that piece, an occupied square or any other letter as a
/// piece of unknown colour, a result token as that token.
pub fn sensor_cell<S: Spec>(content: Content) -> Cell<Stone<S>> {
    match content {
        Content::Empty => Cell::Empty,
        Content::Occupied => Cell::Piece(Stone::unknown()),
        Content::Piece(p) => match S::color(p.letter() as u8) {
            Some(_) => Cell::Piece(Stone::new(p.letter() as u8)),
            None => Cell::Piece(Stone::unknown()),
        },
        Content::Token(t) => super::token_cell(t),
    }
}

impl<S: Spec> fmt::Debug for Grid<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Grid({})", self.cells_text())
    }
}

/// Whether a sensor showing `seen` agrees with `expected` (a piece of
/// unknown colour agrees with any piece).
fn agree<S: Spec>(expected: u8, seen: u8) -> bool {
    match (expected, seen) {
        (0, 0) => true,
        (0, _) | (_, 0) => false,
        (UNKNOWN, _) | (_, UNKNOWN) => true,
        (e, s) => e == s || S::agrees(e, s),
    }
}

impl<S: Spec> Placement for Grid<S> {
    type Square = Point<S>;
    type Piece = Stone<S>;
    type Color = S::Color;
    type Set = Points<S>;

    fn empty() -> Grid<S> {
        Grid {
            cells: [0; MAX_SQUARES],
            spec: PhantomData,
        }
    }
    fn piece_at(&self, sq: Point<S>) -> Option<Stone<S>> {
        match self.cells[sq.index()] {
            0 => None,
            c => Some(Stone(c, PhantomData)),
        }
    }
    fn set_piece_at(&mut self, sq: Point<S>, piece: Stone<S>) {
        self.cells[sq.index()] = piece.0;
    }
    fn discard_piece_at(&mut self, sq: Point<S>) {
        self.cells[sq.index()] = 0;
    }
    fn occupied(&self) -> Points<S> {
        let mut set = 0u128;
        for (i, c) in self.cells[..Point::<S>::count()].iter().enumerate() {
            if *c != 0 {
                set |= 1 << i;
            }
        }
        Points(set, PhantomData)
    }
    fn by_color(&self, color: S::Color) -> Points<S> {
        let mut set = 0u128;
        for (i, c) in self.cells[..Point::<S>::count()].iter().enumerate() {
            if *c != 0 && S::color(*c) == Some(color) {
                set |= 1 << i;
            }
        }
        Points(set, PhantomData)
    }
    fn diff(&self, other: &Grid<S>) -> Points<S> {
        let mut set = 0u128;
        for i in 0..Point::<S>::count() {
            if !agree::<S>(self.cells[i], other.cells[i]) {
                set |= 1 << i;
            }
        }
        Points(set, PhantomData)
    }
    fn agrees(expected: Option<Stone<S>>, seen: Option<Stone<S>>) -> bool {
        agree::<S>(expected.map_or(0, |p| p.0), seen.map_or(0, |p| p.0))
    }
    fn rotated(&self) -> Grid<S> {
        let n = Point::<S>::count();
        let mut g = Self::empty();
        for i in 0..n {
            g.cells[n - 1 - i] = self.cells[i];
        }
        g
    }
}

/// A change of a grid that looks like one move by one side (see
/// [`Change`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GridChange<S: Spec> {
    /// The side whose piece moved.
    pub mover: S::Color,
    /// The piece as the game had it.
    pub piece: Stone<S>,
    /// Where it stood.
    pub from: Point<S>,
    /// Where it stands.
    pub to: Point<S>,
    /// What stands on `to` (a man crowned).
    pub placed: Stone<S>,
    /// Pieces of the other side that left the board.
    pub taken: Vec<(Point<S>, Stone<S>)>,
}

impl<S: Spec> Change for GridChange<S> {
    type Square = Point<S>;
    type Piece = Stone<S>;
    type Color = S::Color;
    fn mover(&self) -> S::Color {
        self.mover
    }
    fn piece(&self) -> Stone<S> {
        self.piece
    }
    fn from(&self) -> Point<S> {
        self.from
    }
    fn to(&self) -> Point<S> {
        self.to
    }
    fn placed(&self) -> Stone<S> {
        self.placed
    }
    fn taken(&self) -> Vec<(Point<S>, Stone<S>)> {
        self.taken.clone()
    }
    fn compound(&self) -> bool {
        false
    }
}

/// Finds the change from `before` to `target` that looks like one piece
/// moving, for a game whose pieces move one at a time: one square of one
/// colour emptied (the origin), one square newly holding a piece that may
/// be it (the destination, or a square whose piece changed colour: a
/// capture by replacement, on a board that identifies pieces), and, for
/// games that capture by jumping, squares of the other colour emptied
/// (`taken_ok` decides which may be). Pieces of unknown colour take the
/// mover's. Tries the side to move (`turn`) first.
pub fn find_change<S: Spec>(
    before: &Grid<S>,
    target: &Grid<S>,
    turn: S::Color,
    taken_ok: impl Fn(S::Color, Point<S>, Point<S>, &[Point<S>]) -> bool,
) -> Option<GridChange<S>> {
    let d = before.diff(target);
    if d.is_empty() {
        return None;
    }
    let mut departures = Vec::new();
    let mut arrivals = Vec::new();
    for sq in d {
        match (before.piece_at(sq), target.piece_at(sq)) {
            (Some(p), None) => departures.push((sq, p)),
            (None, Some(q)) => arrivals.push((sq, q)),
            // A piece replaced by a piece of another colour: a capture on
            // a board that identifies pieces.
            (Some(p), Some(q)) => {
                if q.color().is_some() && q.color() != p.color() {
                    arrivals.push((sq, q));
                } else {
                    return None;
                }
            }
            (None, None) => return None,
        }
    }
    let [(to, placed)] = arrivals[..] else {
        return None;
    };
    for mover in [turn, turn.other()] {
        if placed.color().is_some_and(|c| c != mover) {
            continue;
        }
        let own: Vec<_> = departures
            .iter()
            .filter(|(_, p)| p.color() == Some(mover))
            .collect();
        let [&(from, piece)] = own[..] else {
            continue;
        };
        let taken: Vec<(Point<S>, Stone<S>)> = departures
            .iter()
            .filter(|(sq, _)| *sq != from)
            .copied()
            .collect();
        let squares: Vec<Point<S>> = taken.iter().map(|(sq, _)| *sq).collect();
        if !taken.is_empty() && !taken_ok(mover, from, to, &squares) {
            continue;
        }
        let mut taken = taken;
        if let Some(victim) = before.piece_at(to) {
            taken.insert(0, (to, victim));
        }
        let placed = if placed.is_known() { placed } else { piece };
        return Some(GridChange {
            mover,
            piece,
            from,
            to,
            placed,
            taken,
        });
    }
    None
}
