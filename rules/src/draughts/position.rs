//! Positions, PDN FEN, legal move generation, play and undo.

use std::fmt;

use thiserror::Error;

use super::geometry::{Color, DIRECTIONS, Kind, Piece, Square};
use super::moves::Move;

/// A position: what stands on each of the 32 squares, and who moves.
///
/// Any placement is representable (men on their own crowning row included),
/// so a position read from a sensor board or a FEN can always be held; the
/// rules below apply to whatever stands.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    board: [Option<Piece>; 32],
    turn: Color,
}

/// A PDN FEN that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FenError {
    /// The side to move is not `B` or `W`.
    #[error("bad side to move in FEN {0:?}")]
    Turn(String),
    /// A section does not start with `B` or `W`.
    #[error("bad colour section {0:?}")]
    Section(String),
    /// A square or range that is not 1-32.
    #[error("bad square {0:?}")]
    Square(String),
    /// The same square is listed twice.
    #[error("square {0} listed twice")]
    Duplicate(u8),
}

/// What [`Position::play`] needs to take a move back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Undo {
    moved: Piece,
    captured: Vec<(Square, Piece)>,
}

impl Position {
    /// The starting position (art. 1.11): Black on 1-12, White on 21-32,
    /// Black to move (art. 1.13).
    #[must_use]
    pub fn start() -> Position {
        let mut board = [None; 32];
        for (i, cell) in board.iter_mut().enumerate() {
            if i < 12 {
                *cell = Some(Piece::man(Color::Black));
            } else if i >= 20 {
                *cell = Some(Piece::man(Color::White));
            }
        }
        Position {
            board,
            turn: Color::Black,
        }
    }

    /// An empty board with `turn` to move.
    #[must_use]
    pub fn empty(turn: Color) -> Position {
        Position {
            board: [None; 32],
            turn,
        }
    }

    /// The side to move.
    #[must_use]
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// Sets the side to move.
    pub fn set_turn(&mut self, turn: Color) {
        self.turn = turn;
    }

    /// The piece on `sq`.
    #[must_use]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.board[sq.index()]
    }

    /// Puts `piece` (or nothing) on `sq`.
    pub fn set(&mut self, sq: Square, piece: Option<Piece>) {
        self.board[sq.index()] = piece;
    }

    /// Occupied squares with their pieces, in numeric order.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        Square::all().filter_map(|s| self.piece_at(s).map(|p| (s, p)))
    }

    /// Occupied 8x8 cells as a bit set, bit `rank * 8 + file` (see
    /// [`Square::cell`]): what an occupancy-only sensor board reports.
    #[must_use]
    pub fn occupancy(&self) -> u64 {
        self.pieces().fold(0, |bits, (s, _)| bits | 1 << s.cell())
    }

    /// Number of pieces of `color`.
    #[must_use]
    pub fn count(&self, color: Color) -> usize {
        self.pieces().filter(|(_, p)| p.color == color).count()
    }

    /// Every legal move for the side to move. Captures are compulsory
    /// (art. 1.19): if any capture exists only captures are returned, each
    /// a complete sequence (art. 1.18) with free choice among them (no
    /// majority rule). A man that reaches the king row by a jump stops there
    /// (art. 1.15, 1.18).
    #[must_use]
    pub fn legal_moves(&self) -> Vec<Move> {
        let caps = self.captures();
        if caps.is_empty() {
            self.plain_moves()
        } else {
            caps
        }
    }

    /// Whether the side to move has a capture (and so must capture).
    #[must_use]
    pub fn has_capture(&self) -> bool {
        self.pieces()
            .filter(|(_, p)| p.color == self.turn)
            .any(|(s, p)| {
                self.directions(p).any(|(df, dr)| {
                    matches!((s.step(df, dr), s.step(2 * df, 2 * dr)), (Some(over), Some(to))
                        if self.piece_at(over).is_some_and(|q| q.color != p.color)
                            && self.piece_at(to).is_none())
                })
            })
    }

    /// Non-capturing moves (art. 1.14, 1.16), whether or not a capture exists.
    #[must_use]
    pub fn plain_moves(&self) -> Vec<Move> {
        let mut out = Vec::new();
        for (s, p) in self.pieces().filter(|(_, p)| p.color == self.turn) {
            for (df, dr) in self.directions(p) {
                if let Some(to) = s.step(df, dr)
                    && self.piece_at(to).is_none()
                {
                    out.push(Move::new(vec![s, to], Vec::new(), crowns(p, to)));
                }
            }
        }
        out
    }

    /// Complete capture sequences for the side to move (art. 1.17-1.20).
    #[must_use]
    pub fn captures(&self) -> Vec<Move> {
        let mut out = Vec::new();
        for (s, p) in self.pieces().filter(|(_, p)| p.color == self.turn) {
            let mut path = vec![s];
            let mut taken = Vec::new();
            self.jumps(p, s, true, &mut path, &mut taken, &mut out);
        }
        out
    }

    /// Capture sequences from `from` with the crowning stop of art. 1.15
    /// switched off when `stop_on_crown` is false (used to recognise a man
    /// that jumped on past the king row, art. 1.25.7).
    pub(crate) fn captures_from(&self, from: Square, stop_on_crown: bool) -> Vec<Move> {
        let mut out = Vec::new();
        if let Some(p) = self.piece_at(from) {
            let mut path = vec![from];
            let mut taken = Vec::new();
            self.jumps(p, from, stop_on_crown, &mut path, &mut taken, &mut out);
        }
        out
    }

    fn directions(&self, p: Piece) -> impl Iterator<Item = (i8, i8)> {
        let fwd = p.color.forward();
        DIRECTIONS
            .into_iter()
            .filter(move |&(_, dr)| p.kind == Kind::King || dr == fwd)
    }

    // Design: a depth-first search over landing squares. Captured pieces stay
    // on the board until the sequence ends (art. 1.18: removed afterwards), so
    // they can neither be jumped twice (art. 1.19) nor landed on; the moving
    // piece's origin counts as empty (it has left it).
    fn jumps(
        &self,
        p: Piece,
        at: Square,
        stop_on_crown: bool,
        path: &mut Vec<Square>,
        taken: &mut Vec<Square>,
        out: &mut Vec<Move>,
    ) {
        let origin = path[0];
        let mut extended = false;
        let crowned_here = path.len() > 1 && crowns(p, at);
        // With the stop switched off, a man crowned mid-capture jumps on as
        // a king would (the offence of art. 1.25.7).
        let p = if crowned_here && !stop_on_crown {
            Piece::king(p.color)
        } else {
            p
        };
        if !(crowned_here && stop_on_crown) {
            for (df, dr) in self.directions(p) {
                let (Some(over), Some(to)) = (at.step(df, dr), at.step(2 * df, 2 * dr)) else {
                    continue;
                };
                let enemy = self.piece_at(over).is_some_and(|q| q.color != p.color);
                let free = self.piece_at(to).is_none() || to == origin;
                if enemy && free && !taken.contains(&over) {
                    extended = true;
                    path.push(to);
                    taken.push(over);
                    self.jumps(p, to, stop_on_crown, path, taken, out);
                    path.pop();
                    taken.pop();
                }
            }
        }
        if !extended && path.len() > 1 {
            let crowned = p.kind == Kind::Man && path.iter().skip(1).any(|&s| crowns(p, s));
            out.push(Move::new(path.clone(), taken.clone(), crowned));
        }
    }

    /// Plays `mv` (assumed legal, e.g. taken from [`Position::legal_moves`]):
    /// moves the piece, removes the captured pieces, crowns a man that ends
    /// on its king row, passes the turn. Returns what [`Position::undo`] needs.
    pub fn play(&mut self, mv: &Move) -> Undo {
        let from = mv.from();
        let moved = self.board[from.index()]
            .take()
            .expect("move from an empty square");
        let captured = mv
            .captured()
            .iter()
            .filter_map(|&s| self.board[s.index()].take().map(|p| (s, p)))
            .collect();
        let piece = if moved.kind == Kind::Man && moved.color.king_rank() == mv.to().rank() {
            Piece::king(moved.color)
        } else {
            moved
        };
        self.board[mv.to().index()] = Some(piece);
        self.turn = self.turn.opponent();
        Undo { moved, captured }
    }

    /// Takes back `mv` played with [`Position::play`].
    pub fn undo(&mut self, mv: &Move, undo: Undo) {
        self.board[mv.to().index()] = None;
        for (s, p) in undo.captured {
            self.board[s.index()] = Some(p);
        }
        self.board[mv.from().index()] = Some(undo.moved);
        self.turn = self.turn.opponent();
    }

    /// The position after `mv`.
    #[must_use]
    pub fn after(&self, mv: &Move) -> Position {
        let mut next = *self;
        next.play(mv);
        next
    }

    /// PDN FEN, e.g. `B:W21,22,...,32:B1,...,12`; kings prefixed `K`,
    /// squares in numeric order, White's list first.
    #[must_use]
    pub fn fen(&self) -> String {
        let list = |c: Color| {
            self.pieces()
                .filter(|(_, p)| p.color == c)
                .map(|(s, p)| {
                    if p.is_king() {
                        format!("K{}", s.number())
                    } else {
                        s.number().to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join(",")
        };
        format!(
            "{}:W{}:B{}",
            self.turn.fen_char(),
            list(Color::White),
            list(Color::Black)
        )
    }

    /// Reads a PDN FEN. Sections may come in either order, squares in any
    /// order, ranges such as `1-12` or `K29-32` are accepted, a trailing `.`
    /// and whitespace are ignored.
    pub fn from_fen(fen: &str) -> Result<Position, FenError> {
        let fen = fen.trim().trim_end_matches('.');
        let mut parts = fen.split(':');
        let turn = match parts.next().map(str::trim) {
            Some("B" | "b") => Color::Black,
            Some("W" | "w") => Color::White,
            other => return Err(FenError::Turn(other.unwrap_or("").to_owned())),
        };
        let mut pos = Position::empty(turn);
        for section in parts {
            let section = section.trim();
            let (color, rest) = match section.chars().next() {
                Some('B' | 'b') => (Color::Black, &section[1..]),
                Some('W' | 'w') => (Color::White, &section[1..]),
                _ => return Err(FenError::Section(section.to_owned())),
            };
            for item in rest.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                let (kind, body) = match item.strip_prefix(['K', 'k']) {
                    Some(b) => (Kind::King, b),
                    None => (Kind::Man, item),
                };
                let num = |s: &str| {
                    s.trim()
                        .parse::<u8>()
                        .ok()
                        .and_then(Square::new)
                        .ok_or_else(|| FenError::Square(item.to_owned()))
                };
                let (lo, hi) = match body.split_once('-') {
                    Some((a, b)) => (num(a)?, num(b.trim_start_matches(['K', 'k']))?),
                    None => (num(body)?, num(body)?),
                };
                if lo > hi {
                    return Err(FenError::Square(item.to_owned()));
                }
                for n in lo.number()..=hi.number() {
                    let sq = Square::new(n).expect("in range");
                    if pos.piece_at(sq).is_some() {
                        return Err(FenError::Duplicate(n));
                    }
                    pos.set(sq, Some(Piece { color, kind }));
                }
            }
        }
        Ok(pos)
    }
}

/// Whether `p` arriving on `to` is crowned there (art. 1.15).
pub(crate) fn crowns(p: Piece, to: Square) -> bool {
    p.kind == Kind::Man && to.rank() == p.color.king_rank()
}

impl Default for Position {
    fn default() -> Position {
        Position::start()
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({})", self.fen())
    }
}

impl fmt::Display for Position {
    /// An 8x8 diagram from Black's side (rank 8 on top): `b`/`w` men,
    /// `B`/`W` kings, `.` empty dark squares, space for light squares.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for rank in (0..8).rev() {
            for file in 0..8 {
                let c = match Square::from_file_rank(file, rank) {
                    None => ' ',
                    Some(s) => match self.piece_at(s) {
                        None => '.',
                        Some(p) => match (p.color, p.kind) {
                            (Color::Black, Kind::Man) => 'b',
                            (Color::Black, Kind::King) => 'B',
                            (Color::White, Kind::Man) => 'w',
                            (Color::White, Kind::King) => 'W',
                        },
                    },
                };
                write!(f, "{c}")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}
