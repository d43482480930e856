//! The board simulator: plays games the way people handle pieces and
//! records what a sensor board would report.
//!
//! A [`Table`] is the physical board: pieces, a hand that lifts and places
//! them, and a clock of simulated milliseconds; every change it makes is a
//! [`Sensed`]. A [`Profile`] decides *how* each move is handled (clean, or
//! with the habits of real players); it is a small pluggable piece that only
//! talks to the table. [`dgt`] turns the readings into the bytes a DGT board
//! sends, as a capture file.

pub mod bus;
pub mod check;
pub mod clock;
pub mod dgt;
pub mod family;
pub mod faults;
mod human;
pub mod open;
pub mod open_line;
pub mod pty;
mod real;
pub mod source;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

pub use human::Human;
pub use real::Real;
pub use source::{SourceGame, read_games};

use boardcast::event::Millis;
use boardcast::games::chess::{Board, Color, Move, Piece, Position, Role, Square};
use boardcast::track::Cell;

/// One change the sensors report, in game orientation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sensed {
    /// One square changed.
    Square(Square, Cell),
    /// The whole board was read (after a reconnect, say).
    Dump(Box<[Cell; 64]>),
}

/// What really happened, for checking a reconstruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Truth {
    /// A ply of the source game was completed by the reading at `at`.
    Ply {
        /// 1-based ply.
        ply: usize,
        /// Time of the completing reading.
        at: Millis,
    },
    /// The board showed ply `ply`'s position again after its piece was
    /// knocked off its square or lifted after the move: the reading at
    /// `at` completes the move a second time (a screen cannot know the
    /// move is final while the board does not show it).
    Shown {
        /// 1-based ply.
        ply: usize,
        /// Time of the reading that set the piece back.
        at: Millis,
    },
    /// The players restored the position after `to_ply` plies.
    Takeback {
        /// Plies left.
        to_ply: usize,
        /// Time of the completing reading.
        at: Millis,
    },
}

/// A simulated session: readings with their times, and the truth.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Session {
    /// Readings in time order.
    pub readings: Vec<(Millis, Sensed)>,
    /// What was really played.
    pub truth: Vec<Truth>,
    /// The board stood turned round (Black on ranks 1-2).
    pub rotated: bool,
    /// The board's contents when the session starts (game orientation).
    pub initial: Box<[Cell; 64]>,
    /// What the clock reports, in time order (empty: the board sends no
    /// clock messages at all).
    pub clock: Vec<(Millis, clock::Signal)>,
}

/// The physical board and the hand that moves pieces on it.
#[derive(Debug)]
pub struct Table {
    cells: [Cell; 64],
    now: Millis,
    rng: SmallRng,
    session: Session,
}

impl Table {
    /// A table with `initial` set up at time 0.
    pub fn new(initial: &Board, seed: u64) -> Table {
        let mut cells = [Cell::Empty; 64];
        for (sq, piece) in initial.iter() {
            cells[sq as usize] = Cell::Piece(piece);
        }
        Table {
            cells,
            now: 0,
            rng: SmallRng::seed_from_u64(seed),
            session: Session {
                readings: Vec::new(),
                truth: Vec::new(),
                rotated: false,
                initial: Box::new(cells),
                clock: Vec::new(),
            },
        }
    }

    /// The simulated time.
    pub fn now(&self) -> Millis {
        self.now
    }

    /// The random source of this session.
    pub fn rng(&mut self) -> &mut SmallRng {
        &mut self.rng
    }

    /// Lets `ms` milliseconds pass.
    pub fn wait(&mut self, ms: Millis) {
        self.now += ms;
    }

    /// Waits a random time in `lo..=hi` milliseconds.
    pub fn pause(&mut self, lo: Millis, hi: Millis) {
        let ms = self.rng.gen_range(lo..=hi);
        self.wait(ms);
    }

    /// What a square holds.
    pub fn cell(&self, sq: Square) -> Cell {
        self.cells[sq as usize]
    }

    /// Sets a square, reporting the change if there is one.
    pub fn set(&mut self, sq: Square, cell: Cell) {
        if self.cells[sq as usize] != cell {
            self.cells[sq as usize] = cell;
            self.session
                .readings
                .push((self.now, Sensed::Square(sq, cell)));
        }
    }

    /// Lifts whatever stands on `sq` and returns it.
    pub fn lift(&mut self, sq: Square) -> Cell {
        let cell = self.cell(sq);
        self.set(sq, Cell::Empty);
        cell
    }

    /// Puts a piece on `sq`.
    pub fn put(&mut self, sq: Square, piece: Piece) {
        self.set(sq, Cell::Piece(piece));
    }

    /// The square a piece was last set down on (the move just made ends
    /// there, or with its rook when castling).
    pub fn last_placed(&self) -> Option<Square> {
        self.session
            .readings
            .iter()
            .rev()
            .find_map(|(_, r)| match r {
                Sensed::Square(sq, Cell::Piece(_)) => Some(*sq),
                _ => None,
            })
    }

    /// The square a piece was last lifted from.
    pub fn last_lifted(&self) -> Option<Square> {
        self.session
            .readings
            .iter()
            .rev()
            .find_map(|(_, r)| match r {
                Sensed::Square(sq, Cell::Empty) => Some(*sq),
                _ => None,
            })
    }

    /// Reports a full board read (as after a reconnect).
    pub fn dump(&mut self) {
        self.session
            .readings
            .push((self.now, Sensed::Dump(Box::new(self.cells))));
    }

    /// Records a truth mark at the current time.
    pub fn mark(&mut self, truth: impl FnOnce(Millis) -> Truth) {
        let at = self.session.readings.last().map_or(self.now, |(t, _)| *t);
        self.session.truth.push(truth(at));
    }

    /// Marks that the board shows the last ply's position again (see
    /// [`Truth::Shown`]); nothing before the first ply.
    pub fn mark_shown(&mut self) {
        let ply = self.session.truth.iter().rev().find_map(|t| match t {
            Truth::Ply { ply, .. } => Some(*ply),
            Truth::Takeback { to_ply, .. } => Some(*to_ply),
            Truth::Shown { .. } => None,
        });
        if let Some(ply) = ply.filter(|&p| p > 0) {
            self.mark(|at| Truth::Shown { ply, at });
        }
    }

    /// Finishes the session.
    pub fn into_session(self) -> Session {
        self.session
    }
}

/// How the pieces of one move travel: a pluggable handling habit.
pub trait Profile {
    /// Plays `m` (legal in `pos`) on the table, from the first touch to the
    /// last piece set down, and may add anything people do between moves.
    fn play(&mut self, table: &mut Table, pos: &Position, m: Move);

    /// Time passes before the side to move in `pos` touches a piece.
    fn think(&mut self, table: &mut Table, pos: &Position) {
        let _ = pos;
        table.pause(1_500, 12_000);
    }

    /// A chance to take moves back after ply `ply` completed (returns the
    /// ply count restored to, if a takeback happened).
    fn maybe_takeback(
        &mut self,
        table: &mut Table,
        game: &[Position],
        ply: usize,
    ) -> Option<usize> {
        let _ = (table, game, ply);
        None
    }
}

/// Cleanly played moves: lift, set down, textbook order.
#[derive(Clone, Copy, Debug, Default)]
pub struct Clean;

impl Profile for Clean {
    fn play(&mut self, table: &mut Table, pos: &Position, m: Move) {
        play_textbook(table, pos, m);
    }
}

/// The physical steps of a move, each as lift or place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parts {
    /// The moving piece (the king, for castling) and where it goes.
    pub piece: Piece,
    /// Origin.
    pub from: Square,
    /// Destination.
    pub to: Square,
    /// What finally stands on `to` (differs on promotion).
    pub placed: Piece,
    /// The square of a captured piece, if any.
    pub victim: Option<Square>,
    /// For castling: the rook's origin and destination.
    pub rook: Option<(Square, Square)>,
}

/// Splits a move into the pieces that travel.
pub fn parts(pos: &Position, m: Move) -> Parts {
    let color = pos.turn();
    let from = m.from();
    let piece = pos
        .board()
        .piece_at(from)
        .expect("a legal move has a piece");
    let rook = m.castling_rook().map(|r| {
        let file = if r > from {
            boardcast::games::chess::File::F
        } else {
            boardcast::games::chess::File::D
        };
        (r, Square::from_coords(file, from.rank()))
    });
    let victim = if m.is_en_passant() {
        Some(Square::from_coords(m.to().file(), from.rank()))
    } else if m.is_capture() {
        Some(m.to())
    } else {
        None
    };
    Parts {
        piece,
        from,
        to: m.to(),
        placed: Piece {
            color,
            role: m.promotion().unwrap_or(piece.role),
        },
        victim,
        rook,
    }
}

/// A hand's travel time between two squares.
pub fn reach(table: &mut Table) {
    table.pause(150, 500);
}

/// The textbook way: captured piece off first, then the mover; king before
/// rook when castling; the promoted piece placed directly.
pub fn play_textbook(table: &mut Table, pos: &Position, m: Move) {
    let p = parts(pos, m);
    if let Some((rook_from, rook_to)) = p.rook {
        castle_king_first(table, &p, rook_from, rook_to);
        return;
    }
    if let Some(v) = p.victim {
        table.lift(v);
        reach(table);
    }
    table.lift(p.from);
    reach(table);
    table.put(p.to, p.placed);
}

/// Castling king first; when squares overlap (Chess960), both pieces are
/// lifted before either is set down.
pub fn castle_king_first(table: &mut Table, p: &Parts, rook_from: Square, rook_to: Square) {
    let rook = Piece {
        color: p.piece.color,
        role: Role::Rook,
    };
    let overlap = p.to == rook_from || rook_to == p.from || p.from == p.to;
    if overlap {
        table.lift(p.from);
        reach(table);
        table.lift(rook_from);
        reach(table);
        table.put(p.to, p.piece);
        reach(table);
        table.put(rook_to, rook);
    } else {
        table.lift(p.from);
        reach(table);
        table.put(p.to, p.piece);
        reach(table);
        table.lift(rook_from);
        reach(table);
        table.put(rook_to, rook);
    }
}

/// Plays a whole game on a table with a profile.
pub fn simulate(game: &SourceGame, profile: &mut dyn Profile, seed: u64, rotated: bool) -> Session {
    let mut table = Table::new(game.start.board(), seed);
    table.wait(1_000);
    let mut positions = vec![game.start.clone()];
    let mut ply = 0;
    while ply < game.moves.len() {
        let pos = positions[ply].clone();
        profile.think(&mut table, &pos);
        let m = game.moves[ply];
        profile.play(&mut table, &pos, m);
        ply += 1;
        table.mark(|at| Truth::Ply { ply, at });
        positions.truncate(ply);
        positions.push(pos.play(m));
        if let Some(to) = profile.maybe_takeback(&mut table, &positions, ply) {
            ply = to;
            positions.truncate(to + 1);
        }
    }
    table.wait(5_000);
    let mut session = table.into_session();
    session.rotated = rotated;
    session
}

/// The colour of a cell's piece.
pub fn color_of(cell: Cell) -> Option<Color> {
    match cell {
        Cell::Piece(p) => Some(p.color),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_capture_lifts_the_victim_first() {
        let pos = Position::from_fen(
            "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
            false,
        )
        .unwrap();
        let m = pos.parse_san("exd5").unwrap();
        let mut t = Table::new(pos.board(), 1);
        Clean.play(&mut t, &pos, m);
        let s = t.into_session();
        let squares: Vec<_> = s
            .readings
            .iter()
            .map(|(_, r)| match r {
                Sensed::Square(sq, c) => (*sq, *c),
                Sensed::Dump(_) => unreachable!(),
            })
            .collect();
        assert_eq!(squares[0], (Square::D5, Cell::Empty));
        assert_eq!(squares[1], (Square::E4, Cell::Empty));
        assert_eq!(
            squares[2],
            (
                Square::D5,
                Cell::Piece(Piece {
                    color: Color::White,
                    role: Role::Pawn
                })
            )
        );
    }
}
