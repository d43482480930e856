//! Chess rules: the only module that calls shakmaty.
//!
//! Everything else in boardcast sees chess through the small vocabulary
//! defined here: [`Position`] (a legal position with the castling mode it was
//! set up with), [`Move`], the placement [`Board`], and a few questions
//! (legal moves, SAN, UCI, FEN, outcome, repetition keys). The square, piece
//! and board types are shakmaty's own, re-exported, because they are plain
//! data; the *rule* calls (move generation, validation, notation) stay here.
//! [`Chess`] puts chess behind the game seam ([`crate::games::Game`]).

pub mod arbiter;
pub mod irregular;
pub mod laws;
pub mod notation;
pub mod occupancy;
pub mod reading;
mod seam;
pub mod sensors;
pub mod settle;
mod start;

pub use seam::{Chess, repetitions};
pub use start::{StartPosition, detect_start};

/// A chess game record.
pub type Game = crate::games::Record<Chess>;
/// One ply of a chess game record.
pub type PlyRecord = crate::games::PlyRecord<Chess>;

pub use shakmaty::{Bitboard, Board, Color, File, Piece, Rank, Role, Square};

use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{CastlingMode, EnPassantMode, FromSetup, Position as _, Setup};
use std::ops::Not;

/// Chess: which start positions begin a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Variant {
    /// The standard start and every Chess960 start.
    #[default]
    Auto,
    /// Only the standard start; any other arrangement of the back ranks is
    /// a wrong set-up (Law 7.2a): a king and queen swapped is a `setup`
    /// alert, not a Chess960 game.
    Standard,
    /// Any Chess960 start.
    Chess960,
}

impl Variant {
    /// The name the config and capture headers use.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Auto => "auto",
            Variant::Standard => "standard",
            Variant::Chess960 => "chess960",
        }
    }
}

/// A variant name other than `auto`, `standard` and `chess960`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("expected auto, standard or chess960, not `{0}`")]
pub struct UnknownVariant(pub String);

impl std::str::FromStr for Variant {
    type Err = UnknownVariant;

    fn from_str(s: &str) -> Result<Variant, UnknownVariant> {
        [Variant::Auto, Variant::Standard, Variant::Chess960]
            .into_iter()
            .find(|v| v.name() == s)
            .ok_or_else(|| UnknownVariant(s.to_string()))
    }
}

impl From<Color> for crate::event::Side {
    fn from(c: Color) -> crate::event::Side {
        match c {
            Color::White => crate::event::Side::White,
            Color::Black => crate::event::Side::Black,
        }
    }
}

/// A move in a [`Position`]. Opaque outside this module except for the
/// squares it touches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move(shakmaty::Move);

impl Move {
    /// The square the moving piece (the king, for castling) leaves.
    pub fn from(self) -> Square {
        match self.0 {
            shakmaty::Move::Castle { king, .. } => king,
            m => m.from().expect("chess moves have an origin"),
        }
    }

    /// The square the moving piece arrives on (for castling: the king's
    /// destination, as in standard UCI).
    pub fn to(self) -> Square {
        match self.0 {
            shakmaty::Move::Castle { king, rook } => {
                let side = if rook > king { File::G } else { File::C };
                Square::from_coords(side, king.rank())
            }
            m => m.to(),
        }
    }

    /// The role of the moving piece.
    pub fn role(self) -> Role {
        self.0.role()
    }

    /// Whether this is castling.
    pub fn is_castle(self) -> bool {
        self.0.is_castle()
    }

    /// For castling, the square of the rook that castles.
    pub fn castling_rook(self) -> Option<Square> {
        match self.0 {
            shakmaty::Move::Castle { rook, .. } => Some(rook),
            _ => None,
        }
    }

    /// The piece promoted to, if any.
    pub fn promotion(self) -> Option<Role> {
        self.0.promotion()
    }

    /// Whether the move captures.
    pub fn is_capture(self) -> bool {
        self.0.is_capture()
    }

    /// Every square the move changes: origin and destination, the castling
    /// rook's two squares, the square of a pawn taken en passant.
    pub fn touched(self) -> Bitboard {
        match self.0 {
            shakmaty::Move::Castle { king, rook } => {
                let (k, r) = if rook > king {
                    (File::G, File::F)
                } else {
                    (File::C, File::D)
                };
                Bitboard::from(king)
                    | Bitboard::from(rook)
                    | Bitboard::from(Square::from_coords(k, king.rank()))
                    | Bitboard::from(Square::from_coords(r, king.rank()))
            }
            shakmaty::Move::EnPassant { from, to } => {
                Bitboard::from(from)
                    | Bitboard::from(to)
                    | Bitboard::from(Square::from_coords(to.file(), from.rank()))
            }
            m => {
                Bitboard::from(m.from().expect("chess moves have an origin"))
                    | Bitboard::from(m.to())
            }
        }
    }

    /// Whether the move is an en passant capture.
    pub fn is_en_passant(self) -> bool {
        self.0.is_en_passant()
    }
}

/// The outcome of a game decided by the position itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PositionOutcome {
    /// The side to move is checkmated (Law 5.1a).
    Checkmate {
        /// The side that delivered mate.
        winner: Color,
    },
    /// The side to move has no legal move and is not in check (Law 5.2a).
    Stalemate,
    /// Neither side can checkmate by any legal sequence (Law 5.2b / 9.7).
    DeadPosition,
}

/// A legal chess position together with its castling mode (standard or
/// Chess960).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    chess: shakmaty::Chess,
    chess960: bool,
}

impl Default for Position {
    fn default() -> Self {
        Self::standard()
    }
}

impl Position {
    /// The standard initial position.
    pub fn standard() -> Position {
        Position {
            chess: shakmaty::Chess::new(),
            chess960: false,
        }
    }

    /// Parses a FEN. `chess960` selects Chess960 castling rules.
    pub fn from_fen(fen: &str, chess960: bool) -> Option<Position> {
        let fen: Fen = fen.parse().ok()?;
        let mode = castling_mode(chess960);
        let chess = shakmaty::Chess::from_setup(fen.into_setup(), mode).ok()?;
        Some(Position { chess, chess960 })
    }

    /// A Chess960 (or standard) start position from its back-rank placement,
    /// White to move with all castling rights.
    pub(crate) fn from_start_board(board: Board, chess960: bool) -> Option<Position> {
        let mut setup = Setup::empty();
        setup.board = board;
        setup.castling_rights = setup.board.by_role(Role::Rook)
            & (Bitboard::from_rank(Rank::First) | Bitboard::from_rank(Rank::Eighth));
        let chess = shakmaty::Chess::from_setup(setup, castling_mode(chess960)).ok()?;
        Some(Position { chess, chess960 })
    }

    /// Whether Chess960 castling rules apply.
    pub fn is_chess960(&self) -> bool {
        self.chess960
    }

    /// The placement of the pieces.
    pub fn board(&self) -> &Board {
        self.chess.board()
    }

    /// The side to move.
    pub fn turn(&self) -> Color {
        self.chess.turn()
    }

    /// Every legal move.
    pub fn legal_moves(&self) -> impl Iterator<Item = Move> {
        self.chess.legal_moves().into_iter().map(Move)
    }

    /// Plays a move known to be legal in this position.
    pub fn play(&self, m: Move) -> Position {
        let mut chess = self.chess.clone();
        chess.play_unchecked(m.0);
        Position {
            chess,
            chess960: self.chess960,
        }
    }

    /// SAN of a legal move, with check and mate suffixes.
    pub fn san(&self, m: Move) -> String {
        SanPlus::from_move(self.chess.clone(), m.0).to_string()
    }

    /// The placement after a legal move, computed on the board alone
    /// (cheaper than [`Position::play`], which also updates castling rights,
    /// en passant and counters).
    pub fn board_after(&self, m: Move) -> Board {
        let mut b = self.chess.board().clone();
        match m.0 {
            shakmaty::Move::Normal {
                role,
                from,
                to,
                promotion,
                ..
            } => {
                let color = self.chess.turn();
                b.discard_piece_at(from);
                b.set_piece_at(
                    to,
                    Piece {
                        color,
                        role: promotion.unwrap_or(role),
                    },
                );
            }
            shakmaty::Move::EnPassant { from, to } => {
                let pawn = b.remove_piece_at(from).expect("en passant pawn");
                b.discard_piece_at(Square::from_coords(to.file(), from.rank()));
                b.set_piece_at(to, pawn);
            }
            shakmaty::Move::Castle { king, rook } => {
                let color = self.chess.turn();
                let (k, r) = if rook > king {
                    (File::G, File::F)
                } else {
                    (File::C, File::D)
                };
                b.discard_piece_at(king);
                b.discard_piece_at(rook);
                b.set_piece_at(
                    Square::from_coords(k, king.rank()),
                    Piece {
                        color,
                        role: Role::King,
                    },
                );
                b.set_piece_at(
                    Square::from_coords(r, king.rank()),
                    Piece {
                        color,
                        role: Role::Rook,
                    },
                );
            }
            shakmaty::Move::Put { .. } => unreachable!("no drops in chess"),
        }
        b
    }

    /// SAN of a legal move given this position's legal moves and whether
    /// the position after it has any legal move: the same text as
    /// [`Position::san`] without generating moves again.
    pub fn san_known(
        &self,
        m: Move,
        legal: &[Move],
        after: &Position,
        after_has_moves: bool,
    ) -> String {
        let moves: shakmaty::MoveList = legal.iter().map(|l| l.0).collect();
        let mut text = shakmaty::san::San::disambiguate(m.0, &moves).to_string();
        if after.is_check() {
            text.push(if after_has_moves { '+' } else { '#' });
        }
        text
    }

    /// UCI of a legal move (king-to-rook castling in Chess960, as UCI_Chess960
    /// engines and lichess expect; king two squares in standard chess).
    pub fn uci(&self, m: Move) -> String {
        UciMove::from_move(m.0, castling_mode(self.chess960)).to_string()
    }

    /// Finds the legal move a SAN string names.
    pub fn parse_san(&self, san: &str) -> Option<Move> {
        let san: SanPlus = san.parse().ok()?;
        san.san.to_move(&self.chess).ok().map(Move)
    }

    /// Finds the legal move a UCI string names.
    pub fn parse_uci(&self, uci: &str) -> Option<Move> {
        let uci: UciMove = uci.parse().ok()?;
        uci.to_move(&self.chess).ok().map(Move)
    }

    /// The position as FEN (Shredder-style castling letters are avoided;
    /// X-FEN as lichess writes it).
    pub fn fen(&self) -> String {
        Fen::from_position(&self.chess, EnPassantMode::Legal).to_string()
    }

    /// The rooks of `color` that still have castling rights.
    pub fn castling_rooks(&self, color: Color) -> Bitboard {
        self.chess.castles().castling_rights() & self.chess.board().by_color(color)
    }

    /// Whether any castling right remains.
    pub fn any_castling_rights(&self) -> bool {
        self.chess.castles().any()
    }

    /// Whether the side to move is in check.
    pub fn is_check(&self) -> bool {
        self.chess.is_check()
    }

    /// Half-moves since the last capture or pawn move (Law 9.3 / 9.6b).
    pub fn halfmoves(&self) -> u32 {
        self.chess.halfmoves()
    }

    /// The outcome the position decides by itself, if any.
    pub fn outcome(&self) -> Option<PositionOutcome> {
        self.outcome_known(self.chess.legal_moves().is_empty().not())
    }

    /// [`Position::outcome`] when whether any legal move exists is known.
    pub fn outcome_known(&self, has_moves: bool) -> Option<PositionOutcome> {
        if !has_moves && self.chess.is_check() {
            Some(PositionOutcome::Checkmate {
                winner: !self.chess.turn(),
            })
        } else if !has_moves {
            Some(PositionOutcome::Stalemate)
        } else if self.chess.is_insufficient_material() {
            Some(PositionOutcome::DeadPosition)
        } else {
            None
        }
    }

    /// Whether `color` has no way to checkmate by any legal sequence (the
    /// material test of Laws 6.9 and 7.5b).
    pub fn cannot_checkmate(&self, color: Color) -> bool {
        self.chess.has_insufficient_material(color)
    }

    /// A key that is equal for two positions exactly when they are "the
    /// same" under Law 9.2: same placement, same side to move, same castling
    /// rights and same *legal* en passant possibility.
    pub fn repetition_key(&self) -> u64 {
        let z: Zobrist64 = self.chess.zobrist_hash(EnPassantMode::Legal);
        z.0
    }
}

fn castling_mode(chess960: bool) -> CastlingMode {
    if chess960 {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    }
}

/// The squares on which two placements differ.
pub fn diff(a: &Board, b: &Board) -> Bitboard {
    let mut d = a.occupied() ^ b.occupied();
    for color in Color::ALL {
        d |= a.by_color(color) ^ b.by_color(color);
    }
    for role in Role::ALL {
        d |= a.by_role(role) ^ b.by_role(role);
    }
    d
}

/// The placement rotated by 180 degrees (the board turned round).
pub fn rotated(board: &Board) -> Board {
    let mut b = board.clone();
    b.rotate_180();
    b
}

/// Whether `piece` could go from `from` to `to` in one move on an empty
/// board (a pawn: forward one or two, or one diagonally forward; a king:
/// one square, or two along its rank when castling). Used to tell which
/// piece in the air an occupancy-only board set down.
pub fn can_reach(piece: Piece, from: Square, to: Square) -> bool {
    if from == to {
        return false;
    }
    let (df, dr) = (
        i32::from(to.file()) - i32::from(from.file()),
        i32::from(to.rank()) - i32::from(from.rank()),
    );
    match piece.role {
        Role::Pawn => {
            let ahead = if piece.color == Color::White { dr } else { -dr };
            let home = if piece.color == Color::White {
                Rank::Second
            } else {
                Rank::Seventh
            };
            (df == 0 && (ahead == 1 || (ahead == 2 && from.rank() == home)))
                || (df.abs() == 1 && ahead == 1)
        }
        Role::King => (df.abs() <= 1 && dr.abs() <= 1) || (dr == 0 && df.abs() >= 2),
        role => shakmaty::attacks::attacks(
            from,
            Piece {
                color: piece.color,
                role,
            },
            Bitboard::EMPTY,
        )
        .contains(to),
    }
}

/// The FEN placement field of a board.
pub fn board_fen(board: &Board) -> String {
    board.board_fen().to_string()
}

/// The piece that a legal move would leave on each square it changes,
/// computed by playing it; used to check a move against sensor readings.
pub fn squares_changed(pos: &Position, m: Move) -> Bitboard {
    diff(pos.board(), pos.play(m).board())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_castling_uci_is_king_two_squares() {
        let pos = Position::from_fen("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1", false)
            .unwrap();
        let m = pos.parse_san("O-O").unwrap();
        assert_eq!(pos.uci(m), "e1g1");
        assert_eq!(m.to(), Square::G1);
        assert_eq!(m.castling_rook(), Some(Square::H1));
    }

    #[test]
    fn repetition_key_ignores_unusable_en_passant() {
        // After 1.e4 no black pawn can take en passant, so the position equals
        // the same placement reached without a double step.
        let a = Position::standard().play(Position::standard().parse_san("e4").unwrap());
        let b = Position::from_fen(
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            false,
        )
        .unwrap();
        assert_eq!(a.repetition_key(), b.repetition_key());
    }

    #[test]
    fn board_after_equals_playing_for_every_move_kind() {
        for fen in [
            "r3k2r/pPpp1ppp/8/3Pp3/8/8/P1PP1PPP/R3K2R w KQkq e6 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        ] {
            let pos = Position::from_fen(fen, false).unwrap();
            for m in pos.legal_moves() {
                assert_eq!(&pos.board_after(m), pos.play(m).board(), "{}", pos.san(m));
            }
        }
        // Chess960 castling where the king stays and the rook jumps it.
        let pos = Position::from_fen(
            "nrk2rnb/pppppppp/8/8/8/8/PPPPPPPP/NRK2RNB w KQkq - 0 1",
            true,
        )
        .unwrap();
        assert!(pos.legal_moves().any(|m| m.is_castle()));
        for m in pos.legal_moves() {
            assert_eq!(&pos.board_after(m), pos.play(m).board());
        }
    }

    #[test]
    fn diff_names_both_squares_of_a_move() {
        let pos = Position::standard();
        let m = pos.parse_san("Nf3").unwrap();
        let d = squares_changed(&pos, m);
        assert!(d.contains(Square::G1) && d.contains(Square::F3));
        assert_eq!(d.count(), 2);
    }
}
