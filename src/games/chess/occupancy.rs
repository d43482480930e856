//! Chess on boards that sense occupancy only (Tabutronic and other
//! occupancy boards, open-protocol boards without piece identity).
//!
//! Such a board says that a square is occupied, never by what. The
//! tracker keeps what it believes stands on every square, from the start
//! position on, and turns each occupancy change into the cell the
//! reconstructor needs: a square emptied held the piece the tracker had
//! there (now in the air); a square filled receives one of the pieces in
//! the air, chosen by where it came from. The reconstructor then judges the
//! readings as it judges any board's.
//!
//! Design: written by hand because no library follows pieces through
//! occupancy. The choice of the piece set down uses only where each piece
//! in the air was lifted from and whether it could go from there to the
//! square in one move ([`crate::games::chess::can_reach`]): the piece landing on a
//! square a piece was just lifted from is the capturer, not its victim; a
//! piece set back where it was lifted is that piece. Limits, documented in
//! docs/boards.md: the start position must be the standard one standing
//! the normal way round (an occupancy board cannot tell White from Black
//! at the start, nor a Chess960 array), and a pawn reaching its last rank
//! is read as promoted to a queen.

use crate::games::Cell;
use crate::games::chess::{Bitboard, Board, Color, File, Piece, Role, Square, can_reach};

/// Pieces lifted longer ago than this, other than the last one, are taken
/// as put away (captured pieces taken off the board).
const PUT_AWAY_MS: u64 = 30_000;

/// A piece lifted again this soon after it was set down is still on its
/// way (set down for a moment on a square it passes): where it came from
/// counts, not where it paused.
const PASSING_MS: u64 = 1_000;

/// A piece set down and lifted again within this time, with no piece set
/// down meanwhile and a piece of the other colour lifted, is still on its
/// way: a capturer set down beside its victim while the victim is taken
/// off (a capture in three touches), then moved onto the victim's square.
const PAUSED_MS: u64 = 5_000;

/// A piece set down this soon after it was lifted, on a square it could
/// not go to in one move, is sliding on its way (see `choose`).
const SLIDING_MS: u64 = 1_000;

/// A pawn taken en passant is lifted within this time of the capture.
const EN_PASSANT_MS: u64 = 10_000;

/// A piece in the air.
#[derive(Clone, Copy, Debug)]
struct Lifted {
    /// The square it was lifted from.
    from: Square,
    /// Where its way began (`from`, or the square it left before pausing
    /// on `from`).
    origin: Square,
    /// Where it came from in its last move to `from` (`arrived`): set down
    /// there again, it is taken back.
    came_from: Option<Square>,
    /// When it was last set down on `from`, if the tracker saw it.
    landed_at: Option<u64>,
    /// It became a queen on `from` (a pawn that reached its last rank):
    /// set down on `came_from` again, it is a pawn again.
    promoted: bool,
    piece: Piece,
    at: u64,
}

/// A piece taken off the board (captured).
#[derive(Clone, Copy, Debug)]
struct Off {
    /// The square it was captured on.
    on: Square,
    piece: Piece,
    /// Where it had come from to that square (`arrived`), restored when it
    /// is brought back (a takeback), so that the move before can be taken
    /// back too.
    arrived: Option<Square>,
}

/// Follows the pieces of an occupancy-only chess board (board orientation).
#[derive(Clone, Debug)]
pub struct OccupancyTracker {
    /// What the tracker believes stands on each square; `None` until the
    /// start position has been seen.
    cells: Option<Box<[Cell; 64]>>,
    /// Pieces in the air, oldest first.
    lifted: Vec<Lifted>,
    /// Pieces taken off the board (captured), with the square they were
    /// captured on, last taken last: a piece set down while none is in the
    /// air is one of them brought back (a takeback).
    off: Vec<Off>,
    /// For each square, where the piece on it came from in its last move
    /// (a piece set back keeps it): the square a takeback returns it to.
    arrived: Box<[Option<Square>; 64]>,
    /// Squares whose piece changed without a reading of their own (a
    /// takeback worked out after the fact), for [`OccupancyTracker::take_changes`].
    changes: Vec<(Square, Cell)>,
    /// For each square, the origin of the piece last set down there and
    /// when (see [`PASSING_MS`]).
    landed: Box<[Option<(Square, u64)>; 64]>,
    /// The last piece set down: where and when (see [`PAUSED_MS`]).
    last_down: Option<(Square, u64)>,
    /// Occupancy as the sensors report it.
    occupied: Bitboard,
    /// Squares whose queen is a pawn promoted there (see
    /// [`Lifted::promoted`]).
    promoted: Box<[bool; 64]>,
    /// When a queen became a pawn again on a square (a promotion taken
    /// back): lifted again at once, it was a queen sliding past.
    unpromoted: Box<[Option<u64>; 64]>,
}

impl Default for OccupancyTracker {
    fn default() -> OccupancyTracker {
        OccupancyTracker {
            cells: None,
            lifted: Vec::new(),
            off: Vec::new(),
            arrived: Box::new([None; 64]),
            changes: Vec::new(),
            landed: Box::new([None; 64]),
            last_down: None,
            occupied: Bitboard::EMPTY,
            promoted: Box::new([false; 64]),
            unpromoted: Box::new([None; 64]),
        }
    }
}

impl OccupancyTracker {
    /// A tracker that has seen nothing yet.
    pub fn new() -> OccupancyTracker {
        OccupancyTracker::default()
    }

    /// Squares whose piece the last reading changed besides its own square
    /// (a takeback of a capture worked out after the fact): hand them to
    /// the reconstructor before the cell [`OccupancyTracker::square`]
    /// returned.
    pub fn take_changes(&mut self) -> Vec<(Square, Cell)> {
        std::mem::take(&mut self.changes)
    }

    /// A whole board's occupancy. Returns the board to hand to the
    /// reconstructor: the standard start position when the occupancy is
    /// that of a start position (a new game), else the tracked pieces
    /// (`None` before any start position was seen).
    pub fn board(&mut self, at: u64, occupied: Bitboard) -> Option<[Cell; 64]> {
        if is_start(occupied) {
            self.occupied = occupied;
            self.lifted.clear();
            self.off.clear();
            *self.arrived = [None; 64];
            *self.landed = [None; 64];
            self.last_down = None;
            *self.promoted = [false; 64];
            *self.unpromoted = [None; 64];
            let mut cells = [Cell::Empty; 64];
            for (sq, piece) in Board::default() {
                cells[sq as usize] = Cell::Piece(piece);
            }
            self.cells = Some(Box::new(cells));
            return Some(cells);
        }
        // Otherwise: the changes, one square at a time.
        let changed = self.occupied ^ occupied;
        let mut out = None;
        for sq in changed & !occupied {
            self.square(at, sq, false, None);
            out = self.cells.as_deref().copied();
        }
        for sq in changed & occupied {
            self.square(at, sq, true, None);
            out = self.cells.as_deref().copied();
        }
        out.or_else(|| self.cells.as_deref().copied())
    }

    /// One square's occupancy changed. Returns the cell to hand to the
    /// reconstructor, or `None` when the tracker cannot tell (no start
    /// position seen yet, or a piece set down with none in the air).
    ///
    /// `turn`: the side to move in the game as published, if known; it
    /// breaks ties between pieces in the air that could both have gone
    /// there.
    pub fn square(
        &mut self,
        at: u64,
        sq: Square,
        occupied: bool,
        turn: Option<Color>,
    ) -> Option<Cell> {
        if self.occupied.contains(sq) == occupied {
            // No change (a board repeating itself): what the square holds.
            return self.cells.as_deref().map(|c| c[sq as usize]);
        }
        if occupied {
            self.occupied.add(sq);
        } else {
            self.occupied.discard(sq);
        }
        if is_start(self.occupied) {
            // A start position set up again: a new game, known pieces.
            let cells = self.board(at, self.occupied)?;
            return Some(cells[sq as usize]);
        }
        self.cells.as_ref()?;
        if !occupied {
            self.lift(at, sq);
            return Some(Cell::Empty);
        }
        self.put_away_stale(at);
        let cell = match choose(&self.lifted, sq, turn, at) {
            Some(pick) => Some(self.land(at, sq, pick, turn)),
            None => self.bring_back(at, sq),
        };
        self.last_down = Some((sq, at));
        cell
    }

    /// A piece lifted from `sq` (known cells): in the air, or off the board
    /// when it was just taken en passant.
    fn lift(&mut self, at: u64, sq: Square) {
        let Some(cells) = self.cells.as_deref_mut() else {
            return;
        };
        {
            if let Cell::Piece(piece) = cells[sq as usize] {
                if en_passant_victim(cells, &self.landed, sq, piece, at) {
                    // Taken en passant a moment ago: off the board.
                    self.off.push(Off {
                        on: sq,
                        piece,
                        arrived: self.arrived[sq as usize],
                    });
                    cells[sq as usize] = Cell::Empty;
                    return;
                }
                let origin = match self.landed[sq as usize] {
                    Some((origin, t)) if at.saturating_sub(t) <= PASSING_MS => origin,
                    // Set down beside its victim, which is in the air now,
                    // and nothing set down since: still on its way.
                    Some((origin, t))
                        if self.last_down == Some((sq, t))
                            && at.saturating_sub(t) <= PAUSED_MS
                            && self.lifted.iter().any(|l| l.piece.color != piece.color) =>
                    {
                        origin
                    }
                    _ => sq,
                };
                // A queen read back as a pawn where it came from, lifted
                // again at once: it was passing there, still a queen.
                let passing_back = self.unpromoted[sq as usize]
                    .take()
                    .is_some_and(|t| at.saturating_sub(t) <= PASSING_MS);
                let piece = if passing_back {
                    Piece {
                        role: Role::Queen,
                        ..piece
                    }
                } else {
                    piece
                };
                self.lifted.push(Lifted {
                    from: sq,
                    origin,
                    came_from: self.arrived[sq as usize],
                    landed_at: self.landed[sq as usize].map(|(_, t)| t),
                    promoted: self.promoted[sq as usize] || passing_back,
                    piece,
                    at,
                });
            }
            cells[sq as usize] = Cell::Empty;
        }
    }

    /// Captured pieces taken off the board long ago are gone (the newest
    /// piece in the air stays).
    fn put_away_stale(&mut self, at: u64) {
        let newest = self.lifted.len().saturating_sub(1);
        let mut i = 0;
        let off = &mut self.off;
        self.lifted.retain(|l| {
            let keep = i == newest || at.saturating_sub(l.at) <= PUT_AWAY_MS;
            if !keep {
                off.push(Off {
                    on: l.from,
                    piece: l.piece,
                    arrived: l.came_from,
                });
            }
            i += 1;
            keep
        });
    }

    /// A piece set down on `sq` with none in the air that could have gone
    /// there: a capture taken back, or a captured piece brought back.
    fn bring_back(&mut self, at: u64, sq: Square) -> Option<Cell> {
        let cells = self.cells.as_deref_mut()?;
        {
            // None in the air, and a piece that captured on another square
            // came from here: it was set back there a moment ago, but the
            // players are taking the capture back. It comes here, and the
            // piece it took goes back where it stood. (Only a piece set
            // back where it stood: one that came there from elsewhere was
            // moved, and something else is brought back here.)
            let swap = Square::ALL.into_iter().find_map(|s| {
                let Cell::Piece(_) = cells[s as usize] else {
                    return None;
                };
                if self.arrived[s as usize] != Some(sq)
                    || self.landed[s as usize].is_some_and(|(origin, _)| origin != s)
                {
                    return None;
                }
                let k = self.off.iter().rposition(|o| o.on == s)?;
                Some((s, k))
            });
            if let Some((s, k)) = swap {
                let Off {
                    piece: taken,
                    arrived,
                    ..
                } = self.off.remove(k);
                let mover = cells[s as usize];
                cells[s as usize] = Cell::Piece(taken);
                cells[sq as usize] = mover;
                self.arrived[s as usize] = arrived;
                self.arrived[sq as usize] = None;
                self.landed[sq as usize] = Some((sq, at));
                self.changes.push((s, Cell::Piece(taken)));
                return Some(mover);
            }
            // Else a captured piece brought back, the one captured on this
            // square if any, else the last one taken.
            let back = self
                .off
                .iter()
                .rposition(|o| o.on == sq)
                .or_else(|| self.off.len().checked_sub(1))?;
            let Off { piece, arrived, .. } = self.off.remove(back);
            cells[sq as usize] = Cell::Piece(piece);
            self.landed[sq as usize] = Some((sq, at));
            self.arrived[sq as usize] = arrived;
            Some(Cell::Piece(piece))
        }
    }

    /// The piece in the air at `pick` set down on `sq`: promoted, a
    /// promotion taken back, or as it was; pieces it captured go off.
    fn land(&mut self, at: u64, sq: Square, pick: usize, turn: Option<Color>) -> Cell {
        let Lifted {
            from,
            origin,
            came_from,
            landed_at,
            promoted,
            mut piece,
            ..
        } = self.lifted.remove(pick);
        self.promoted[sq as usize] = false;
        self.unpromoted[sq as usize] = None;
        // Nothing set down since it landed on `from`: the same gesture.
        let untouched_since = landed_at.is_some_and(|t| self.last_down == Some((from, t)));
        if promoted
            && came_from == Some(sq)
            && (turn.is_some_and(|t| t != piece.color) || untouched_since)
        {
            // A promotion taken back (the queen goes back where the pawn
            // came from while the other side is to move), or never made
            // (the pawn set on its last rank and put back before anything
            // else was set down): the pawn.
            piece.role = Role::Pawn;
            self.unpromoted[sq as usize] = Some(at);
        } else if piece.role == Role::Pawn
            && (can_reach(piece, from, sq) || can_reach(piece, origin, sq))
            && sq.rank() == last_rank(piece.color)
        {
            piece.role = Role::Queen;
            self.promoted[sq as usize] = true;
        } else if promoted && from == sq {
            self.promoted[sq as usize] = true;
        }
        self.landed[sq as usize] = Some((origin, at));
        if from != sq && origin != sq {
            self.arrived[sq as usize] = Some(origin);
        }
        // A piece of the other colour lifted from this square was captured:
        // it is off the board for good.
        // En passant: the pawn taken stood beside the capturing pawn's
        // origin, on the file it went to.
        let passed = (piece.role == Role::Pawn && origin.file() != sq.file())
            .then(|| Square::from_coords(sq.file(), origin.rank()));
        let off = &mut self.off;
        self.lifted.retain(|l| {
            let captured = l.piece.color != piece.color
                && (l.from == sq
                    || l.origin == sq
                    || (Some(l.from) == passed && l.piece.role == Role::Pawn));
            if captured {
                off.push(Off {
                    on: l.from,
                    piece: l.piece,
                    arrived: l.came_from,
                });
            }
            !captured
        });
        if let Some(cells) = self.cells.as_deref_mut() {
            cells[sq as usize] = Cell::Piece(piece);
        }
        Cell::Piece(piece)
    }
}

/// Whether the pawn lifted from `sq` was just taken en passant: a pawn of
/// the other colour landed a moment ago on the square in front of it (as
/// the capturer sees it), coming diagonally from beside it.
fn en_passant_victim(
    cells: &[Cell; 64],
    landed: &[Option<(Square, u64)>; 64],
    sq: Square,
    piece: Piece,
    at: u64,
) -> bool {
    if piece.role != Role::Pawn {
        return false;
    }
    let ahead = match piece.color {
        Color::White => sq.offset(-8),
        Color::Black => sq.offset(8),
    };
    let Some(ahead) = ahead else {
        return false;
    };
    let capturer = Cell::Piece(Piece {
        color: !piece.color,
        role: Role::Pawn,
    });
    // The victim came with a double step (the ply before the capture).
    let double_step = landed[sq as usize].is_some_and(|(origin, _)| {
        origin.file() == sq.file() && (u32::from(origin.rank())).abs_diff(u32::from(sq.rank())) == 2
    });
    double_step
        && cells[ahead as usize] == capturer
        && landed[ahead as usize].is_some_and(|(origin, t)| {
            origin.rank() == sq.rank()
                && origin.file() != sq.file()
                && at.saturating_sub(t) <= EN_PASSANT_MS
        })
}

/// Which piece in the air (index into `lifted`) was set down on `to`.
fn choose(lifted: &[Lifted], to: Square, turn: Option<Color>, now: u64) -> Option<usize> {
    if lifted.len() <= 1 {
        return (!lifted.is_empty()).then_some(0);
    }
    // The piece lifted last by the side to move (by anyone when the turn
    // is not known).
    let last = lifted
        .iter()
        .rposition(|l| turn.is_none_or(|t| t == l.piece.color));
    let score = |i: usize| set_down_score(lifted, i, to, last, now);
    // Best score; among equals, a piece of the side to move, then the
    // piece lifted last, except between two pieces of one colour, where
    // the one lifted first goes first (castling: the king is lifted first,
    // Law 4.4, and set down first).
    let best = (0..lifted.len()).map(score).max()?;
    let tied: Vec<usize> = (0..lifted.len()).filter(|&i| score(i) == best).collect();
    let side = tied
        .iter()
        .copied()
        .filter(|&i| Some(lifted[i].piece.color) == turn)
        .collect::<Vec<_>>();
    let pool = if side.is_empty() { tied } else { side };
    // Castling: the king set down on its castling square is the king,
    // even if the rook once came to its corner from there (a rook knocked
    // onto that square and set back long ago).
    if let Some(king) = castling_king(lifted, &pool, to) {
        return Some(king);
    }
    // Then a piece set down where it came from in its last move: that move
    // is taken back (castling taken back: the rook goes back to its
    // corner, not the king).
    if let Some(&back) = pool.iter().find(|&&i| lifted[i].came_from == Some(to)) {
        return Some(back);
    }
    let first = pool[0];
    if pool
        .iter()
        .all(|&i| lifted[i].piece.color == lifted[first].piece.color)
    {
        one_colour_pick(lifted, &pool, to)
    } else {
        pool.last().copied()
    }
}

/// How well `lifted[i]` explains a piece set down on `to`: 4 it can go
/// there and takes a victim lifted from there, 3 it is the piece just
/// lifted (`last`) sliding through, 2 it can go there, 1 it is back where
/// it stood, 0 none of these.
fn set_down_score(lifted: &[Lifted], i: usize, to: Square, last: Option<usize>, now: u64) -> i32 {
    let l = &lifted[i];
    if can_reach(l.piece, l.from, to) || can_reach(l.piece, l.origin, to) {
        if victim_here(lifted, l, to) { 4 } else { 2 }
    } else if l.from != to && last == Some(i) && now.saturating_sub(l.at) <= SLIDING_MS {
        // The piece just lifted, set down on a square it cannot go to
        // in one move: it is sliding (set down for a moment on its
        // way), not one lifted earlier.
        3
    } else if l.from == to || l.origin == to {
        1
    } else {
        0
    }
}

/// Whether `capturer` could be taking a piece on `to`: another piece in
/// the air of the other colour was lifted from there. Not one that was set
/// down there after the capturer was lifted: that one was passing there on
/// its own way (set down a moment while the piece it is capturing is in
/// the air), not standing there to be taken.
fn victim_here(lifted: &[Lifted], capturer: &Lifted, to: Square) -> bool {
    lifted.iter().any(|l| {
        l.from == to
            && l.piece.color != capturer.piece.color
            && l.landed_at.is_none_or(|t| t <= capturer.at)
    })
}

/// Among a `pool` of pieces of one colour, the one set down on `to`.
fn one_colour_pick(lifted: &[Lifted], pool: &[usize], to: Square) -> Option<usize> {
    // Castling with both hands, the two set down in one frame of a board
    // that reports whole frames (read square by square, in order): the
    // rook's square after castling takes the rook.
    if let Some(rook) = pool.iter().copied().find(|&i| {
        lifted[i].piece.role == Role::Rook
            && castling_squares(lifted[i].from).is_some_and(|(_, rook)| rook == to)
    }) && pool
        .iter()
        .any(|&i| lifted[i].piece.role == Role::King && lifted[i].from.rank() == to.rank())
    {
        return Some(rook);
    }
    // One colour: a king before anything else (castling, or castling
    // taken back), else the piece lifted first.
    pool.iter()
        .copied()
        .find(|&i| lifted[i].piece.role == Role::King)
        .or(pool.first().copied())
}

/// Among `pool`, the king lifted from its start square while a rook of
/// its colour is lifted from a corner of its rank, when `to` is where the
/// king goes castling with that rook (standard chess).
fn castling_king(lifted: &[Lifted], pool: &[usize], to: Square) -> Option<usize> {
    let king = pool.iter().copied().find(|&i| {
        let l = &lifted[i];
        l.piece.role == Role::King && l.from.file() == File::E
    })?;
    let from = lifted[king].from;
    let castles = pool.iter().any(|&i| {
        let l = &lifted[i];
        l.piece.role == Role::Rook
            && l.piece.color == lifted[king].piece.color
            && l.from.rank() == from.rank()
            && castling_squares(l.from).is_some_and(|(king, _)| king == to)
    });
    castles.then_some(king)
}

/// Where the king and the rook in `corner` go when they castle together
/// (standard chess: occupancy boards start from the standard array).
fn castling_squares(corner: Square) -> Option<(Square, Square)> {
    match corner {
        Square::H1 => Some((Square::G1, Square::F1)),
        Square::A1 => Some((Square::C1, Square::D1)),
        Square::H8 => Some((Square::G8, Square::F8)),
        Square::A8 => Some((Square::C8, Square::D8)),
        _ => None,
    }
}

fn last_rank(color: Color) -> crate::games::chess::Rank {
    match color {
        Color::White => crate::games::chess::Rank::Eighth,
        Color::Black => crate::games::chess::Rank::First,
    }
}

/// Whether the occupancy is that of the standard start position.
fn is_start(occupied: Bitboard) -> bool {
    occupied == Board::default().occupied()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(name: &str) -> Square {
        name.parse().unwrap()
    }

    fn piece(c: char) -> Cell {
        Cell::Piece(Piece::from_char(c).unwrap())
    }

    fn started() -> OccupancyTracker {
        let mut t = OccupancyTracker::new();
        assert!(t.board(0, Board::default().occupied()).is_some());
        t
    }

    #[test]
    fn a_capture_taken_back_after_the_capturer_was_set_back_swaps_them() {
        // 1. Nf3 d5 2. Nd4?? ... Nxd4 is not needed: 1. e4 d5 2. exd5,
        // then the capturer is lifted and set back on d5 (a touch), then
        // the players take the capture back: d5 lifted, a piece set on d5
        // (the captured pawn) and e4 (the capturer).
        let mut t = started();
        for (at, name, occupied) in [
            (1_000, "e2", false),
            (1_300, "e4", true),
            (3_000, "d7", false),
            (3_300, "d5", true),
            (5_000, "d5", false),
            (5_200, "e4", false),
            (5_500, "d5", true),
            (9_000, "d5", false),
            (9_100, "d5", true),
        ] {
            t.square(at, sq(name), occupied, None);
        }
        assert!(t.take_changes().is_empty());
        assert_eq!(t.square(9_500, sq("e4"), true, None), Some(piece('P')));
        assert_eq!(t.take_changes(), [(sq("d5"), piece('p'))]);
    }

    /// Plays `(square, occupied)` changes 400 ms apart from `at`, the
    /// side to move as given, and returns the cell of the last one.
    fn play(
        t: &mut OccupancyTracker,
        at: u64,
        turn: Color,
        steps: &[(&str, bool)],
    ) -> Option<Cell> {
        let mut last = None;
        for (i, (name, occupied)) in steps.iter().enumerate() {
            last = t.square(at + 400 * i as u64, sq(name), *occupied, Some(turn));
        }
        last
    }

    /// Each ply as (lifted, set down), 5 s apart, White first.
    fn plies(t: &mut OccupancyTracker, moves: &[(&str, &str)]) -> u64 {
        let mut at = 10_000;
        for (i, (from, to)) in moves.iter().enumerate() {
            let turn = if i % 2 == 0 {
                Color::White
            } else {
                Color::Black
            };
            // A capture (onto an occupied square) lifts its victim first.
            if t.occupied.contains(sq(to)) {
                play(t, at, turn, &[(to, false), (from, false), (to, true)]);
            } else {
                play(t, at, turn, &[(from, false), (to, true)]);
            }
            at += 5_000;
        }
        at
    }

    #[test]
    fn a_capture_in_three_touches_taken_back_swaps_capturer_and_victim() {
        // 1. e4 d5 2. exd5 in three touches: the pawn set down on e5 beside
        // its victim, where it stands 1.5 s while the victim is lifted,
        // then moved onto d5. Then the players take it back: the capturer
        // lifted and set back (a touch), then a piece set on e4.
        let mut t = started();
        let at = plies(&mut t, &[("e2", "e4"), ("d7", "d5")]);
        let white = Color::White;
        t.square(at, sq("e4"), false, Some(white));
        t.square(at + 300, sq("e5"), true, Some(white));
        t.square(at + 1_300, sq("d5"), false, Some(white));
        t.square(at + 1_800, sq("e5"), false, Some(white));
        assert_eq!(
            t.square(at + 2_100, sq("d5"), true, Some(white)),
            Some(piece('P'))
        );
        let black = Color::Black;
        t.square(at + 9_000, sq("d5"), false, Some(black));
        t.square(at + 9_300, sq("d5"), true, Some(black));
        assert!(t.take_changes().is_empty());
        assert_eq!(
            t.square(at + 9_700, sq("e4"), true, Some(black)),
            Some(piece('P'))
        );
        // The pawn goes back to e4, the black pawn it took to d5.
        assert_eq!(t.take_changes(), [(sq("d5"), piece('p'))]);
    }

    #[test]
    fn a_pawn_set_on_its_last_rank_and_put_back_is_a_pawn() {
        // A white pawn on c7 with White to move: lifted, set on b8 (read
        // as a queen), lifted and put back on c7 before anything else was
        // set down. It is still a pawn, though White is to move.
        let mut t = started();
        let at = plies(
            &mut t,
            &[
                ("b2", "b4"),
                ("c7", "c5"),
                ("b4", "c5"),
                ("d8", "a5"),
                ("c5", "c6"),
                ("b8", "a6"),
                ("c6", "c7"),
                ("a6", "b4"),
            ],
        );
        let white = Color::White;
        t.square(at, sq("c7"), false, Some(white));
        assert_eq!(
            t.square(at + 100, sq("b8"), true, Some(white)),
            Some(piece('Q'))
        );
        t.square(at + 2_700, sq("b8"), false, Some(white));
        assert_eq!(
            t.square(at + 3_000, sq("c7"), true, Some(white)),
            Some(piece('P'))
        );
    }

    #[test]
    fn a_capturer_paused_on_its_way_is_not_taken_for_a_victim() {
        // 1. e4 e5 2. Qh5 Nc6 3. Qxf7+: the pawn on f7 is lifted, the queen
        // is lifted, pauses on g6 (read empty and occupied again at once),
        // and lands on f7.
        let mut t = started();
        let at = plies(
            &mut t,
            &[("e2", "e4"), ("e7", "e5"), ("d1", "h5"), ("b8", "c6")],
        );
        let white = Color::White;
        play(&mut t, at, white, &[("f7", false), ("h5", false)]);
        assert_eq!(
            t.square(at + 900, sq("g6"), true, Some(white)),
            Some(piece('Q'))
        );
        t.square(at + 1000, sq("g6"), false, Some(white));
        assert_eq!(
            t.square(at + 1000, sq("g6"), true, Some(white)),
            Some(piece('Q'))
        );
        t.square(at + 1100, sq("g6"), false, Some(white));
        assert_eq!(
            t.square(at + 1300, sq("f7"), true, Some(white)),
            Some(piece('Q'))
        );
        assert!(t.lifted.is_empty());
    }

    /// Black castles short with both hands at `at`, the king lifted and
    /// set down first: the tracker names the king on g8, the rook on f8.
    fn castles_black_king_first(t: &mut OccupancyTracker, at: u64) {
        let black = Color::Black;
        t.square(at, sq("e8"), false, Some(black));
        t.square(at + 50, sq("h8"), false, Some(black));
        assert_eq!(
            t.square(at + 240, sq("g8"), true, Some(black)),
            Some(piece('k'))
        );
        assert_eq!(
            t.square(at + 350, sq("f8"), true, Some(black)),
            Some(piece('r'))
        );
    }

    #[test]
    fn castling_is_read_as_castling_after_the_rook_was_knocked_and_set_back() {
        // The h8 rook knocked onto g8, standing there 2 s, and set back;
        // then Black castles with both hands, the king set on g8 first.
        // The rook's arrival from g8 does not make it the piece set down
        // there.
        let mut t = started();
        let at = plies(
            &mut t,
            &[
                ("g2", "g3"),
                ("g8", "f6"),
                ("f1", "g2"),
                ("g7", "g6"),
                ("g1", "f3"),
                ("f8", "g7"),
                ("b1", "c3"),
            ],
        );
        let black = Color::Black;
        t.square(at, sq("h8"), false, Some(black));
        t.square(at + 200, sq("g8"), true, Some(black));
        t.square(at + 2_000, sq("g8"), false, Some(black));
        t.square(at + 2_200, sq("h8"), true, Some(black));
        castles_black_king_first(&mut t, at + 5_000);
    }

    #[test]
    fn castling_with_two_hands_sets_the_king_down_first() {
        // The king and the rook lifted together, the king set on g8 first.
        let mut t = started();
        let at = plies(
            &mut t,
            &[
                ("d2", "d4"),
                ("g8", "f6"),
                ("c2", "c4"),
                ("g7", "g6"),
                ("g2", "g3"),
                ("f8", "g7"),
            ],
        );
        t.square(at, sq("b1"), false, Some(Color::White));
        t.square(at + 400, sq("c3"), true, Some(Color::White));
        castles_black_king_first(&mut t, at + 5_000);
    }

    #[test]
    fn castling_with_two_hands_read_in_one_frame_puts_the_rook_on_its_square() {
        // A board that sends whole frames: both pieces set down in one,
        // read in square order (f1 before g1).
        let mut t = started();
        let at = plies(
            &mut t,
            &[
                ("g2", "g3"),
                ("g8", "f6"),
                ("g1", "f3"),
                ("g7", "g6"),
                ("f1", "g2"),
                ("f8", "g7"),
            ],
        );
        let white = Color::White;
        t.square(at, sq("e1"), false, Some(white));
        t.square(at + 50, sq("h1"), false, Some(white));
        assert_eq!(
            t.square(at + 300, sq("f1"), true, Some(white)),
            Some(piece('R'))
        );
        assert_eq!(
            t.square(at + 300, sq("g1"), true, Some(white)),
            Some(piece('K'))
        );
    }

    #[test]
    fn castling_taken_back_puts_the_rook_in_its_corner() {
        let mut t = started();
        let at = plies(
            &mut t,
            &[
                ("g1", "f3"),
                ("g8", "f6"),
                ("e2", "e3"),
                ("e7", "e6"),
                ("f1", "e2"),
                ("f8", "e7"),
            ],
        );
        let white = Color::White;
        play(
            &mut t,
            at,
            white,
            &[("e1", false), ("g1", true), ("h1", false), ("f1", true)],
        );
        // Taken back, king first: both in the air, the rook set down first.
        let black = Color::Black;
        play(&mut t, at + 5_000, black, &[("g1", false), ("f1", false)]);
        assert_eq!(
            t.square(at + 6_000, sq("h1"), true, Some(black)),
            Some(piece('R'))
        );
        assert_eq!(
            t.square(at + 6_400, sq("e1"), true, Some(black)),
            Some(piece('K'))
        );
    }

    #[test]
    fn a_capture_taken_back_to_a_square_of_an_older_capture_brings_back_its_own_victim() {
        // 1. e4 d5 2. exd5 Qxd5 (captures on d5) 3. Nc3 Qxa2 (from d5),
        // then 3... Qxa2 taken back: the queen to d5, the pawn to a2 (not
        // the pawn taken on d5 long ago).
        let mut t = started();
        let at = plies(&mut t, &[("e2", "e4"), ("d7", "d5"), ("e4", "d5")]);
        let black = Color::Black;
        play(
            &mut t,
            at,
            black,
            &[("d5", false), ("d8", false), ("d5", true)],
        );
        let at = plies(&mut t, &[]) + at + 5_000;
        play(&mut t, at, Color::White, &[("b1", false), ("c3", true)]);
        play(
            &mut t,
            at + 5_000,
            black,
            &[("a2", false), ("d5", false), ("a2", true)],
        );
        let white = Color::White;
        play(&mut t, at + 10_000, white, &[("a2", false), ("d5", true)]);
        assert_eq!(
            t.square(at + 11_000, sq("a2"), true, Some(white)),
            Some(piece('P'))
        );
        assert!(t.take_changes().is_empty());
    }

    #[test]
    fn captures_taken_back_one_after_the_other_after_a_touch() {
        // 1. e4 d5 2. exd5 c6 3. dxc6 Nxc6; the knight is lifted and set
        // back on c6, then the players take both captures back.
        let mut t = started();
        let at = plies(
            &mut t,
            &[("e2", "e4"), ("d7", "d5"), ("e4", "d5"), ("c7", "c6")],
        );
        let (white, black) = (Color::White, Color::Black);
        play(
            &mut t,
            at,
            white,
            &[("c6", false), ("d5", false), ("c6", true)],
        );
        play(
            &mut t,
            at + 5_000,
            black,
            &[("c6", false), ("b8", false), ("c6", true)],
        );
        // The touch, then the knight's origin refilled with none in the
        // air: the capture is being taken back.
        play(&mut t, at + 10_000, white, &[("c6", false), ("c6", true)]);
        assert_eq!(
            t.square(at + 12_000, sq("b8"), true, Some(white)),
            Some(piece('n'))
        );
        assert_eq!(t.take_changes(), [(sq("c6"), piece('P'))]);
        // 3. dxc6 taken back: the pawn to d5, Black's pawn to c6.
        play(&mut t, at + 15_000, black, &[("c6", false), ("d5", true)]);
        assert_eq!(
            t.square(at + 16_000, sq("c6"), true, Some(black)),
            Some(piece('p'))
        );
    }

    #[test]
    fn a_promotion_taken_back_puts_the_pawn_back() {
        let mut t = started();
        // Black's a7 pawn and a8 rook taken off the board (and put away);
        // much later White's a2 pawn goes to a7, then promotes on a8.
        t.square(0, sq("a7"), false, None);
        t.square(1, sq("a8"), false, None);
        t.square(40_000, sq("a2"), false, None);
        t.square(40_100, sq("a7"), true, None);
        t.square(45_000, sq("a7"), false, None);
        assert_eq!(t.square(45_300, sq("a8"), true, None), Some(piece('Q')));
        // Taken back (Black to move): the queen lifted, a pawn set back
        // on a7.
        let black = Some(Color::Black);
        t.square(50_000, sq("a8"), false, black);
        assert_eq!(t.square(50_400, sq("a7"), true, black), Some(piece('P')));
        // And played again.
        let white = Some(Color::White);
        t.square(55_000, sq("a7"), false, white);
        assert_eq!(t.square(55_300, sq("a8"), true, white), Some(piece('Q')));
        // Black replies; then, with White to move, the new queen going
        // back to a7 is a move. (Put back before anything else was set
        // down, it would be the pawn again: see
        // `a_pawn_set_on_its_last_rank_and_put_back_is_a_pawn`.)
        t.square(57_000, sq("h7"), false, black);
        t.square(57_300, sq("h6"), true, black);
        t.square(60_000, sq("a8"), false, white);
        assert_eq!(t.square(60_400, sq("a7"), true, white), Some(piece('Q')));
    }

    #[test]
    fn nothing_is_known_before_the_start_position() {
        let mut t = OccupancyTracker::new();
        assert_eq!(t.square(0, sq("e4"), true, None), None);
        let cells = t.board(1, Board::default().occupied()).unwrap();
        assert_eq!(cells[sq("e1") as usize], piece('K'));
        assert_eq!(cells[sq("d8") as usize], piece('q'));
    }

    #[test]
    fn a_move_a_capture_either_way_round_and_a_piece_set_back() {
        let mut t = started();
        // 1. e4 d5
        assert_eq!(t.square(10, sq("e2"), false, None), Some(Cell::Empty));
        assert_eq!(t.square(20, sq("e4"), true, None), Some(piece('P')));
        t.square(30, sq("d7"), false, None);
        assert_eq!(t.square(40, sq("d5"), true, None), Some(piece('p')));
        // 2. exd5, the capturer lifted first, then the victim.
        t.square(50, sq("e4"), false, None);
        t.square(60, sq("d5"), false, None);
        assert_eq!(t.square(70, sq("d5"), true, None), Some(piece('P')));
        // 2... Qxd5, the victim lifted first.
        t.square(80, sq("d5"), false, None);
        t.square(90, sq("d8"), false, None);
        assert_eq!(t.square(100, sq("d5"), true, None), Some(piece('q')));
        // A knight lifted and set back.
        t.square(110, sq("g1"), false, None);
        assert_eq!(t.square(120, sq("g1"), true, None), Some(piece('N')));
    }

    #[test]
    fn a_pawn_on_its_last_rank_is_a_queen_and_pieces_long_in_the_air_are_put_away() {
        let mut t = started();
        // Black's a7 pawn and a8 rook taken off the board (and put away).
        t.square(0, sq("a7"), false, None);
        t.square(1, sq("a8"), false, None);
        // Much later White's a2 pawn is set on a7, then goes on to a8.
        t.square(40_000, sq("a2"), false, None);
        assert_eq!(t.square(40_100, sq("a7"), true, None), Some(piece('P')));
        t.square(45_000, sq("a7"), false, None);
        assert_eq!(t.square(45_300, sq("a8"), true, None), Some(piece('Q')));
    }

    #[test]
    fn the_start_position_set_up_again_makes_the_pieces_known_again() {
        let mut t = started();
        // A knight lifted from g1 and set down on b1's neighbour... then
        // everything set up again: g1 holds a knight whatever happened.
        t.square(10, sq("g1"), false, None);
        t.square(20, sq("f3"), true, None);
        t.square(30, sq("f3"), false, None);
        assert_eq!(t.square(40, sq("g1"), true, None), Some(piece('N')));
        assert!(t.lifted.is_empty());
    }

    #[test]
    fn a_piece_set_down_with_none_in_the_air_is_unknown_or_a_captured_one_brought_back() {
        let mut t = started();
        assert_eq!(t.square(10, sq("e4"), true, None), None);
        // 1. e4 d5 2. exd5, then taken back: the pawn goes back to e4 and
        // the captured pawn comes back to d5.
        let mut t = started();
        for (at, name, occupied) in [
            (10, "e2", false),
            (20, "e4", true),
            (30, "d7", false),
            (40, "d5", true),
            (50, "d5", false),
            (60, "e4", false),
            (70, "d5", true),
            (80, "d5", false),
            (90, "e4", true),
        ] {
            t.square(at, sq(name), occupied, None);
        }
        assert_eq!(t.square(100, sq("d5"), true, None), Some(piece('p')));
    }
}
