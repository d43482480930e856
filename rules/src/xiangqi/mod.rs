//! Xiangqi (Chinese chess) as the xiangqi association's competition rules
//! (`xiangqi-association-rules-2022.zh.txt`) define it; win, draw and loss
//! follow the World Xiangqi Federation (Art. 5).
//!
//! - [`Position`]: the 9x10 points, the side to move and the counters; legal
//!   moves, check, mate and stalemate (both lose for the side without a move,
//!   Art. 16), FEN read and write.
//! - [`notation`]: ICCS / UCCI ids (`h2e2`) and WXF (`C2.5`, `H2+3`, `R+.4`).
//! - [`repetition`]: repeated positions, perpetual check and chase, the
//!   ruling the rules give (Art. 16, 17), the event's move limit (Art. 6, 17).
//! - [`pgn`]: a PGN record with `[Variant "xiangqi"]` and WXF movetext
//!   (or ICCS movetext, which the `cchess` reader reads).
//! - [`illegal`]: what a move seen on the board breaks (Art. 16, 20, 4),
//!   and the illegal moves players plausibly make.
//!
//! Design: written by hand. The one crate with xiangqi rules and repetition
//! verdicts, `rsffish`, wraps Fairy-Stockfish through a C++ build (GPL, cxx)
//! and gives verdicts, not the evidence an arbiter needs (which piece chased
//! which); the other crates are apps or position models without movegen. The
//! board is a plain 90-point array: xiangqi positions are small and the
//! arbiter needs clarity, not engine speed. Pure: no I/O, no clock, no logs.

pub mod illegal;
pub mod notation;
pub mod pgn;
pub mod repetition;

use std::fmt;

/// The two sides; Red moves first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// Red (upper-case FEN letters, ranks 0-4 its half).
    Red,
    /// Black (lower-case FEN letters).
    Black,
}

impl Side {
    /// The other side.
    pub fn other(self) -> Side {
        match self {
            Side::Red => Side::Black,
            Side::Black => Side::Red,
        }
    }

    /// The name events use (`red`, `black`).
    pub fn name(self) -> &'static str {
        match self {
            Side::Red => "red",
            Side::Black => "black",
        }
    }
}

/// The seven kinds of piece; FEN letters K A B N R C P.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// General (帅/将), FEN `K`.
    General,
    /// Advisor (仕/士), FEN `A`.
    Advisor,
    /// Elephant (相/象), FEN `B` (also read `E`).
    Elephant,
    /// Horse (马), FEN `N` (also read `H`).
    Horse,
    /// Chariot (车), FEN `R`.
    Chariot,
    /// Cannon (炮), FEN `C`.
    Cannon,
    /// Soldier (兵/卒), FEN `P`.
    Soldier,
}

impl Kind {
    /// The FEN letter (upper case).
    pub fn fen_letter(self) -> char {
        match self {
            Kind::General => 'K',
            Kind::Advisor => 'A',
            Kind::Elephant => 'B',
            Kind::Horse => 'N',
            Kind::Chariot => 'R',
            Kind::Cannon => 'C',
            Kind::Soldier => 'P',
        }
    }

    /// The WXF letter (upper case): K A E H R C P.
    pub fn wxf_letter(self) -> char {
        match self {
            Kind::Elephant => 'E',
            Kind::Horse => 'H',
            k => k.fen_letter(),
        }
    }

    /// Reads a FEN or WXF letter (either case): K A B/E N/H R C P.
    pub fn from_letter(c: char) -> Option<Kind> {
        Some(match c.to_ascii_uppercase() {
            'K' => Kind::General,
            'A' => Kind::Advisor,
            'B' | 'E' => Kind::Elephant,
            'N' | 'H' => Kind::Horse,
            'R' => Kind::Chariot,
            'C' => Kind::Cannon,
            'P' => Kind::Soldier,
            _ => return None,
        })
    }

    /// The English name, lower case.
    pub fn name(self) -> &'static str {
        match self {
            Kind::General => "general",
            Kind::Advisor => "advisor",
            Kind::Elephant => "elephant",
            Kind::Horse => "horse",
            Kind::Chariot => "chariot",
            Kind::Cannon => "cannon",
            Kind::Soldier => "soldier",
        }
    }
}

/// A piece: a side and a kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Its side.
    pub side: Side,
    /// Its kind.
    pub kind: Kind,
}

impl Piece {
    /// The FEN letter: upper case for Red, lower case for Black.
    pub fn fen_char(self) -> char {
        let c = self.kind.fen_letter();
        match self.side {
            Side::Red => c,
            Side::Black => c.to_ascii_lowercase(),
        }
    }
}

/// One of the 90 points: `file` 0-8 (a-i, left to right from Red), `rank`
/// 0-9 (from Red's back rank), stored as `rank * 9 + file`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// The point on `file` (0-8) and `rank` (0-9), if on the board.
    pub fn new(file: i8, rank: i8) -> Option<Square> {
        ((0..9).contains(&file) && (0..10).contains(&rank)).then(|| Square((rank * 9 + file) as u8))
    }

    /// The point with index `rank * 9 + file` (0-89).
    pub fn from_index(i: usize) -> Option<Square> {
        (i < 90).then_some(Square(i as u8))
    }

    /// Index 0-89.
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// File 0-8 (a-i).
    pub fn file(self) -> i8 {
        (self.0 % 9) as i8
    }

    /// Rank 0-9.
    pub fn rank(self) -> i8 {
        (self.0 / 9) as i8
    }

    /// The same point seen from a board turned round (180 degrees).
    pub fn rotated(self) -> Square {
        Square(89 - self.0)
    }

    fn offset(self, df: i8, dr: i8) -> Option<Square> {
        Square::new(self.file() + df, self.rank() + dr)
    }

    /// Whether the point is in `side`'s palace (files d-f, its three back
    /// ranks).
    pub fn in_palace(self, side: Side) -> bool {
        (3..=5).contains(&self.file())
            && match side {
                Side::Red => self.rank() <= 2,
                Side::Black => self.rank() >= 7,
            }
    }

    /// Whether the point is on `side`'s own half (before the river).
    pub fn own_half(self, side: Side) -> bool {
        match side {
            Side::Red => self.rank() <= 4,
            Side::Black => self.rank() >= 5,
        }
    }
}

impl fmt::Display for Square {
    /// ICCS coordinates, `a0`-`i9`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file() as u8) as char, self.rank())
    }
}

/// A move from one point to another.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move {
    /// Where the piece stood.
    pub from: Square,
    /// Where it goes (capturing what stood there).
    pub to: Square,
}

impl fmt::Display for Move {
    /// The ICCS / UCCI id, e.g. `h2e2`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from, self.to)
    }
}

/// Errors reading a FEN.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    /// The placement does not have 10 ranks of 9 points.
    #[error("FEN placement must have 10 ranks of 9 points: {0}")]
    Placement(String),
    /// An unknown piece letter.
    #[error("unknown piece letter {0:?}")]
    Letter(char),
    /// The side to move is not `w`, `r` or `b`.
    #[error("side to move must be w, r or b: {0:?}")]
    Side(String),
    /// A counter is not a number.
    #[error("bad move counter {0:?}")]
    Counter(String),
    /// Each side needs exactly one general, in its palace.
    #[error("each side needs one general in its palace")]
    Generals,
}

/// How a game stands for the side to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Moves remain.
    Ongoing,
    /// The side to move is in check and has no legal move: it loses (Art. 16,
    /// 绝杀).
    Checkmate {
        /// The winner.
        winner: Side,
    },
    /// The side to move is not in check and has no legal move: it loses too
    /// (Art. 16, 欠行 / 困毙).
    Stalemate {
        /// The winner.
        winner: Side,
    },
}

/// The start position.
pub const START_FEN: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";

/// A position: the pieces, the side to move and the FEN counters.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Position {
    pub(crate) board: [Option<Piece>; 90],
    pub(crate) turn: Side,
    /// Plies since the last capture (FEN half-move field).
    pub halfmoves: u32,
    /// Move number (FEN full-move field), incremented after Black moves.
    pub fullmoves: u32,
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({})", self.fen())
    }
}

impl Default for Position {
    fn default() -> Self {
        Position::start()
    }
}

const ORTHO: [(i8, i8); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const DIAG: [(i8, i8); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
/// Horse jumps with their leg (the orthogonal neighbour that blocks them).
const HORSE: [((i8, i8), (i8, i8)); 8] = [
    ((1, 2), (0, 1)),
    ((-1, 2), (0, 1)),
    ((1, -2), (0, -1)),
    ((-1, -2), (0, -1)),
    ((2, 1), (1, 0)),
    ((2, -1), (1, 0)),
    ((-2, 1), (-1, 0)),
    ((-2, -1), (-1, 0)),
];

impl Position {
    /// The start position.
    pub fn start() -> Position {
        Position::from_fen(START_FEN).expect("start FEN")
    }

    /// An empty board (no generals: not a legal game position).
    pub fn empty(turn: Side) -> Position {
        Position {
            board: [None; 90],
            turn,
            halfmoves: 0,
            fullmoves: 1,
        }
    }

    /// Reads a FEN: placement from rank 9 (Black's back rank) down, side `w`
    /// (or `r`) for Red, `b` for Black, then optional `- -` and counters.
    /// Letters K A B N R C P, and E, H as WXF writes them.
    pub fn from_fen(fen: &str) -> Result<Position, FenError> {
        let mut parts = fen.split_whitespace();
        let placement = parts
            .next()
            .ok_or_else(|| FenError::Placement(fen.into()))?;
        let ranks: Vec<&str> = placement.split('/').collect();
        if ranks.len() != 10 {
            return Err(FenError::Placement(placement.into()));
        }
        let mut pos = Position::empty(Side::Red);
        for (i, row) in ranks.iter().enumerate() {
            let rank = 9 - i as i8;
            let mut file = 0i8;
            for c in row.chars() {
                if let Some(d) = c.to_digit(10) {
                    file += d as i8;
                } else {
                    let kind = Kind::from_letter(c).ok_or(FenError::Letter(c))?;
                    let side = if c.is_ascii_uppercase() {
                        Side::Red
                    } else {
                        Side::Black
                    };
                    let sq = Square::new(file, rank)
                        .ok_or_else(|| FenError::Placement(placement.into()))?;
                    pos.board[sq.index()] = Some(Piece { side, kind });
                    file += 1;
                }
                if file > 9 {
                    return Err(FenError::Placement(placement.into()));
                }
            }
            if file != 9 {
                return Err(FenError::Placement(placement.into()));
            }
        }
        pos.turn = match parts.next().unwrap_or("w") {
            "w" | "r" | "W" | "R" => Side::Red,
            "b" | "B" => Side::Black,
            s => return Err(FenError::Side(s.into())),
        };
        let rest: Vec<&str> = parts.collect();
        let counters: Vec<&str> = rest.iter().copied().filter(|s| *s != "-").collect();
        if let Some(h) = counters.first() {
            pos.halfmoves = h.parse().map_err(|_| FenError::Counter((*h).into()))?;
        }
        if let Some(f) = counters.get(1) {
            pos.fullmoves = f.parse().map_err(|_| FenError::Counter((*f).into()))?;
        }
        for side in [Side::Red, Side::Black] {
            let gens: Vec<Square> = pos
                .pieces(side)
                .filter(|(_, p)| p.kind == Kind::General)
                .map(|(s, _)| s)
                .collect();
            if gens.len() != 1 || !gens[0].in_palace(side) {
                return Err(FenError::Generals);
            }
        }
        Ok(pos)
    }

    /// The FEN, with `w` for Red to move, e.g. the start position's
    /// [`START_FEN`].
    pub fn fen(&self) -> String {
        format!(
            "{} {} - - {} {}",
            self.placement(),
            if self.turn == Side::Red { 'w' } else { 'b' },
            self.halfmoves,
            self.fullmoves
        )
    }

    /// The placement field of the FEN alone.
    pub fn placement(&self) -> String {
        let mut s = String::new();
        for rank in (0..10).rev() {
            let mut empty = 0;
            for file in 0..9 {
                match self.board[rank * 9 + file] {
                    Some(p) => {
                        if empty > 0 {
                            s.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        s.push(p.fen_char());
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                s.push(char::from(b'0' + empty));
            }
            if rank > 0 {
                s.push('/');
            }
        }
        s
    }

    /// The placement of a board turned round (each piece on the point 180
    /// degrees away; colours and side to move kept): what a sensor grid
    /// reads when the board was set down the wrong way.
    pub fn rotated(&self) -> Position {
        let mut p = self.clone();
        for i in 0..90 {
            p.board[i] = self.board[89 - i];
        }
        p
    }

    /// The side to move.
    pub fn turn(&self) -> Side {
        self.turn
    }

    /// What stands on a point.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.board[sq.index()]
    }

    /// Puts (or removes) a piece, for setting up positions.
    pub fn set(&mut self, sq: Square, piece: Option<Piece>) {
        self.board[sq.index()] = piece;
    }

    /// The pieces of one side with their points.
    pub fn pieces(&self, side: Side) -> impl Iterator<Item = (Square, Piece)> + '_ {
        (0..90).filter_map(move |i| match self.board[i] {
            Some(p) if p.side == side => Some((Square(i as u8), p)),
            _ => None,
        })
    }

    /// Where `side`'s general stands.
    pub fn general(&self, side: Side) -> Option<Square> {
        self.pieces(side)
            .find(|(_, p)| p.kind == Kind::General)
            .map(|(s, _)| s)
    }

    fn count_between(&self, a: Square, b: Square) -> Option<u32> {
        let (df, dr) = (b.file() - a.file(), b.rank() - a.rank());
        if df != 0 && dr != 0 {
            return None;
        }
        let (sf, sr) = (df.signum(), dr.signum());
        let mut n = 0;
        let mut s = a.offset(sf, sr)?;
        while s != b {
            if self.board[s.index()].is_some() {
                n += 1;
            }
            s = s.offset(sf, sr)?;
        }
        Some(n)
    }

    /// Whether the piece on `from` could capture on `to` by its movement
    /// (whatever stands on `to`; own general safety not considered). The
    /// general "attacks" the other general across an open file: the flying
    /// general rule, which forbids any move that leaves them facing.
    pub fn attacks(&self, from: Square, to: Square) -> bool {
        let Some(p) = self.board[from.index()] else {
            return false;
        };
        if from == to {
            return false;
        }
        let (df, dr) = (to.file() - from.file(), to.rank() - from.rank());
        match p.kind {
            Kind::General => {
                if df.abs() + dr.abs() == 1 {
                    return to.in_palace(p.side);
                }
                // Flying general: the other general across an open file.
                df == 0
                    && self.board[to.index()]
                        .is_some_and(|t| t.kind == Kind::General && t.side != p.side)
                    && self.count_between(from, to) == Some(0)
            }
            Kind::Advisor => df.abs() == 1 && dr.abs() == 1 && to.in_palace(p.side),
            Kind::Elephant => {
                df.abs() == 2
                    && dr.abs() == 2
                    && to.own_half(p.side)
                    && from
                        .offset(df / 2, dr / 2)
                        .is_some_and(|eye| self.board[eye.index()].is_none())
            }
            Kind::Horse => HORSE.iter().any(|&((hf, hr), (lf, lr))| {
                hf == df
                    && hr == dr
                    && from
                        .offset(lf, lr)
                        .is_some_and(|leg| self.board[leg.index()].is_none())
            }),
            Kind::Chariot => self.count_between(from, to) == Some(0),
            Kind::Cannon => match self.count_between(from, to) {
                Some(0) => self.board[to.index()].is_none(),
                Some(1) => self.board[to.index()].is_some(),
                _ => false,
            },
            Kind::Soldier => {
                let fwd = if p.side == Side::Red { 1 } else { -1 };
                (df == 0 && dr == fwd) || (dr == 0 && df.abs() == 1 && !from.own_half(p.side))
            }
        }
    }

    /// Moves of the piece on `from` by its movement rules, without looking
    /// at its own general's safety.
    pub fn pseudo_moves_from(&self, from: Square, out: &mut Vec<Move>) {
        let Some(p) = self.board[from.index()] else {
            return;
        };
        let mut push = |to: Square| {
            if self.board[to.index()].is_none_or(|t| t.side != p.side) {
                out.push(Move { from, to });
            }
        };
        match p.kind {
            Kind::General => {
                for (df, dr) in ORTHO {
                    if let Some(to) = from.offset(df, dr).filter(|t| t.in_palace(p.side)) {
                        push(to);
                    }
                }
            }
            Kind::Advisor => {
                for (df, dr) in DIAG {
                    if let Some(to) = from.offset(df, dr).filter(|t| t.in_palace(p.side)) {
                        push(to);
                    }
                }
            }
            Kind::Elephant => {
                for (df, dr) in DIAG {
                    if let Some(to) = from.offset(2 * df, 2 * dr) {
                        let eye = from.offset(df, dr).expect("on board");
                        if to.own_half(p.side) && self.board[eye.index()].is_none() {
                            push(to);
                        }
                    }
                }
            }
            Kind::Horse => {
                for ((hf, hr), (lf, lr)) in HORSE {
                    if let (Some(to), Some(leg)) = (from.offset(hf, hr), from.offset(lf, lr))
                        && self.board[leg.index()].is_none()
                    {
                        push(to);
                    }
                }
            }
            Kind::Chariot | Kind::Cannon => self.line_moves(from, p.kind, &mut push),
            Kind::Soldier => soldier_steps(from, p.side, &mut push),
        }
    }

    /// The points a chariot or cannon on `from` reaches along its four
    /// lines: every empty point up to the first piece, then that piece for
    /// a chariot, or the piece beyond one screen for a cannon.
    fn line_moves(&self, from: Square, kind: Kind, push: &mut impl FnMut(Square)) {
        for (df, dr) in ORTHO {
            let mut screened = false;
            let mut s = from;
            while let Some(to) = s.offset(df, dr) {
                s = to;
                match self.board[to.index()] {
                    None => {
                        if !screened {
                            push(to);
                        }
                    }
                    Some(_) => {
                        if kind == Kind::Chariot || screened {
                            push(to);
                            break;
                        }
                        screened = true;
                    }
                }
            }
        }
    }

    /// Whether any piece of `by` attacks the point `sq`.
    pub fn attacked_by(&self, sq: Square, by: Side) -> bool {
        self.pieces(by).any(|(from, _)| self.attacks(from, sq))
    }

    /// Whether `side`'s general is in check (attacked, or facing the other
    /// general on an open file).
    pub fn in_check_side(&self, side: Side) -> bool {
        match self.general(side) {
            Some(g) => self.attacked_by(g, side.other()),
            None => true,
        }
    }

    /// Whether the side to move is in check.
    pub fn in_check(&self) -> bool {
        self.in_check_side(self.turn)
    }

    /// Plays a move without any check (counters updated), returning what it
    /// captured.
    pub(crate) fn apply(&mut self, m: Move) -> Option<Piece> {
        let moving = self.board[m.from.index()].take();
        let captured = self.board[m.to.index()].replace(moving.expect("a piece on from"));
        self.halfmoves = if captured.is_some() {
            0
        } else {
            self.halfmoves + 1
        };
        if self.turn == Side::Black {
            self.fullmoves += 1;
        }
        self.turn = self.turn.other();
        captured
    }

    /// Whether a move of the side to move is legal: its piece's movement,
    /// and its own general neither attacked nor facing the other after it
    /// (Art. 16 ①: a move that leaves one's general in check loses).
    pub fn is_legal(&self, m: Move) -> bool {
        let Some(p) = self.board[m.from.index()] else {
            return false;
        };
        if p.side != self.turn {
            return false;
        }
        let mut v = Vec::with_capacity(17);
        self.pseudo_moves_from(m.from, &mut v);
        v.contains(&m) && !self.leaves_in_check(m)
    }

    fn leaves_in_check(&self, m: Move) -> bool {
        let mut after = self.clone();
        after.apply(m);
        after.in_check_side(self.turn)
    }

    /// Every legal move of the side to move.
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut v = Vec::with_capacity(64);
        for (from, _) in self.pieces(self.turn) {
            self.pseudo_moves_from(from, &mut v);
        }
        v.retain(|m| !self.leaves_in_check(*m));
        v
    }

    /// Plays a legal move, returning what it captured.
    pub fn play(&mut self, m: Move) -> Result<Option<Piece>, IllegalMove> {
        if !self.is_legal(m) {
            return Err(IllegalMove(m));
        }
        Ok(self.apply(m))
    }

    /// Takes back a move played with [`Position::play`] (give what it
    /// captured and the counters before it).
    pub fn undo(&mut self, m: Move, captured: Option<Piece>, halfmoves: u32) {
        let moving = self.board[m.to.index()].take();
        self.board[m.from.index()] = moving;
        self.board[m.to.index()] = captured;
        self.turn = self.turn.other();
        if self.turn == Side::Black {
            self.fullmoves -= 1;
        }
        self.halfmoves = halfmoves;
    }

    /// The position after a legal move.
    pub fn after(&self, m: Move) -> Result<Position, IllegalMove> {
        let mut p = self.clone();
        p.play(m)?;
        Ok(p)
    }

    /// The position after moving the piece on `m.from` to `m.to` whatever
    /// the rules say (capturing what stood there, the side to move and the
    /// counters updated as by a move): how a board stands after an illegal
    /// move (see [`illegal::irregular_moves`]). `None` when no piece stands
    /// on `m.from` or `m.to` holds a piece of the same side.
    pub fn after_unchecked(&self, m: Move) -> Option<Position> {
        let p = self.board[m.from.index()]?;
        if m.from == m.to || self.board[m.to.index()].is_some_and(|t| t.side == p.side) {
            return None;
        }
        let mut after = self.clone();
        after.apply(m);
        Some(after)
    }

    /// Whether the move gives check.
    pub fn gives_check(&self, m: Move) -> bool {
        let mut p = self.clone();
        p.apply(m);
        p.in_check()
    }

    /// Mate, stalemate (both lose for the side to move) or ongoing.
    pub fn outcome(&self) -> Outcome {
        if !self.legal_moves().is_empty() {
            Outcome::Ongoing
        } else if self.in_check() {
            Outcome::Checkmate {
                winner: self.turn.other(),
            }
        } else {
            Outcome::Stalemate {
                winner: self.turn.other(),
            }
        }
    }

    /// A key of the placement and side to move (what "the same position"
    /// means for repetition).
    pub fn key(&self) -> ([Option<Piece>; 90], Side) {
        (self.board, self.turn)
    }
}

/// The points a soldier of `side` on `from` steps to: forward, and
/// sideways once it has crossed the river.
fn soldier_steps(from: Square, side: Side, push: &mut impl FnMut(Square)) {
    let fwd = if side == Side::Red { 1 } else { -1 };
    if let Some(to) = from.offset(0, fwd) {
        push(to);
    }
    if !from.own_half(side) {
        for df in [-1, 1] {
            if let Some(to) = from.offset(df, 0) {
                push(to);
            }
        }
    }
}

/// A move that is not legal in the position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("illegal move {0}")]
pub struct IllegalMove(pub Move);
