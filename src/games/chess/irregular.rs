//! Moves and positions outside the rules: what an arbiter must hear about.
//!
//! A *pseudo-move* is a change of the board that looks like one move (one
//! piece of one colour left a square and stands on another, perhaps taking a
//! piece, perhaps with its rook as in castling) but that no legal move
//! explains. [`find_pseudo_move`] recognises one; [`illegality`] says in
//! words why it breaks the Laws; [`Position::irregular`] builds the position
//! that stands on the board afterwards, so that play can go on from it when
//! nobody noticed.

use shakmaty::Position as _;
use shakmaty::attacks;
use shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, FromSetup, Piece, Rank, Role, Setup, Square,
};

use super::{Position, diff};

/// A change of the board that looks like one move by one side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PseudoMove {
    /// The piece that moved (the king, for castling).
    pub piece: Piece,
    /// Where it stood.
    pub from: Square,
    /// Where it stands now.
    pub to: Square,
    /// What stands on `to` (differs from `piece` when a pawn was exchanged).
    pub placed: Piece,
    /// A piece of the other side that left the board, and its square.
    pub captured: Option<(Square, Piece)>,
    /// For a castling-like change: the rook's squares.
    pub rook: Option<(Square, Square)>,
}

impl PseudoMove {
    /// The move as played, in long algebraic notation (`Bc1-h6`, `Nf3xe5`,
    /// `e7-e8`, `Ke1-g1`): an illegal move has no SAN.
    pub fn notation(&self) -> String {
        let letter = match self.piece.role {
            Role::Pawn => "",
            r => match r {
                Role::Knight => "N",
                Role::Bishop => "B",
                Role::Rook => "R",
                Role::Queen => "Q",
                _ => "K",
            },
        };
        let sep = if self.captured.is_some() { "x" } else { "-" };
        let promo = match (self.piece.role, self.placed.role) {
            (Role::Pawn, Role::Pawn) => String::new(),
            (Role::Pawn, r) => format!("={}", r.upper_char()),
            _ => String::new(),
        };
        format!("{letter}{}{sep}{}{promo}", self.from, self.to)
    }

    /// The move in UCI-like form (`c1h6`).
    pub fn uci(&self) -> String {
        let promo = match (self.piece.role, self.placed.role) {
            (Role::Pawn, r) if r != Role::Pawn => r.char().to_string(),
            _ => String::new(),
        };
        format!("{}{}{promo}", self.from, self.to)
    }
}

/// Finds the pseudo-move that turns `pos` into `target`, if the difference
/// looks like one move.
pub fn find_pseudo_move(pos: &Position, target: &Board) -> Option<PseudoMove> {
    let before = pos.board();
    let d = diff(before, target);
    let departures: Vec<(Square, Piece)> = (d & !target.occupied())
        .into_iter()
        .filter_map(|s| before.piece_at(s).map(|p| (s, p)))
        .collect();
    let arrivals: Vec<(Square, Piece)> = (d & target.occupied())
        .into_iter()
        .filter_map(|s| target.piece_at(s).map(|p| (s, p)))
        .collect();
    match (departures.as_slice(), arrivals.as_slice()) {
        ([departure], [arrival]) => one_piece_moved(before, *departure, *arrival),
        ([a, b], [arrival]) => en_passant_like(before, *a, *b, *arrival),
        ([a, b], [c, e]) => castling_like([*a, *b], [*c, *e]),
        _ => None,
    }
}

/// One piece moved (perhaps taking a piece on its destination, perhaps a
/// pawn exchanged on the last rank).
fn one_piece_moved(
    before: &Board,
    (from, piece): (Square, Piece),
    (to, placed): (Square, Piece),
) -> Option<PseudoMove> {
    let same = placed == piece || (piece.role == Role::Pawn && placed.color == piece.color);
    if !same {
        return None;
    }
    let captured = before.piece_at(to).map(|p| (to, p));
    if captured.is_some_and(|(_, p)| p.color == piece.color) {
        return None;
    }
    Some(PseudoMove {
        piece,
        from,
        to,
        placed,
        captured,
        rook: None,
    })
}

/// A pawn took a pawn beside it the en passant way (`a` and `b` left the
/// board, one piece arrived), when en passant was not allowed.
fn en_passant_like(
    before: &Board,
    a: (Square, Piece),
    b: (Square, Piece),
    (to, placed): (Square, Piece),
) -> Option<PseudoMove> {
    let (mover, victim) = if a.1 == placed { (a, b) } else { (b, a) };
    let en_passant_shape = mover.1.role == Role::Pawn
        && victim.1.role == Role::Pawn
        && victim.0 == Square::from_coords(to.file(), mover.0.rank())
        && mover.0.file().distance(to.file()) == 1;
    if mover.1 != placed
        || victim.1.color == placed.color
        || before.piece_at(to).is_some()
        || !en_passant_shape
    {
        return None;
    }
    Some(PseudoMove {
        piece: mover.1,
        from: mover.0,
        to,
        placed,
        captured: Some(victim),
        rook: None,
    })
}

/// King and rook of one side both moved: castling-like.
fn castling_like(
    departures: [(Square, Piece); 2],
    arrivals: [(Square, Piece); 2],
) -> Option<PseudoMove> {
    let color = departures[0].1.color;
    if [departures[1], arrivals[0], arrivals[1]]
        .iter()
        .any(|(_, p)| p.color != color)
    {
        return None;
    }
    let find = |list: &[(Square, Piece)], role| list.iter().find(|(_, p)| p.role == role).copied();
    let (kf, rf) = (
        find(&departures, Role::King)?,
        find(&departures, Role::Rook)?,
    );
    let (kt, rt) = (find(&arrivals, Role::King)?, find(&arrivals, Role::Rook)?);
    Some(PseudoMove {
        piece: kf.1,
        from: kf.0,
        to: kt.0,
        placed: kt.1,
        captured: None,
        rook: Some((rf.0, rt.0)),
    })
}

/// Why a pseudo-move is not legal in `pos`, as a phrase ("the bishop cannot
/// move from c1 to h5").
pub fn illegality(pos: &Position, m: &PseudoMove) -> String {
    let turn = pos.turn();
    let color = m.piece.color;
    let name = role_name(m.piece.role);
    if color != turn {
        return format!("it was {}'s move", color_name(turn));
    }
    let last_rank = if color == Color::White {
        Rank::Eighth
    } else {
        Rank::First
    };
    if m.piece.role == Role::Pawn && m.placed.role == Role::Pawn && m.to.rank() == last_rank {
        return "the pawn reached the last rank and was not exchanged (Law 4.7)".into();
    }
    if m.rook.is_some() {
        if !pos.castling_rooks(color).any() {
            return "castling after the king or that rook had moved".into();
        }
        if pos.is_check() {
            return "castling out of check".into();
        }
        return "castling through or into check, or with pieces in between".into();
    }
    let occupied = pos.board().occupied();
    let reach = match m.piece.role {
        Role::Pawn => pawn_reach(color, m.from, occupied, pos.board().by_color(!color)),
        _ => attacks::attacks(m.from, m.piece, occupied),
    };
    let lands = reach.contains(m.to)
        && (m.piece.role != Role::Pawn || m.captured.is_none_or(|(sq, _)| sq == m.to));
    if !lands {
        return format!("a {name} cannot move from {} to {}", m.from, m.to);
    }
    if pos.is_check() {
        return format!(
            "the {} king is in check and stays in check",
            color_name(color)
        );
    }
    format!("it puts the {} king in check", color_name(color))
}

/// Squares a pawn can reach from `from`: pushes onto empty squares, and
/// captures.
fn pawn_reach(color: Color, from: Square, occupied: Bitboard, enemies: Bitboard) -> Bitboard {
    let (step, start): (i32, Rank) = if color == Color::White {
        (8, Rank::Second)
    } else {
        (-8, Rank::Seventh)
    };
    let mut reach = attacks::pawn_attacks(color, from) & enemies;
    let one = from as i32 + step;
    if (0..64).contains(&one) && !occupied.contains(Square::new(one as u32)) {
        reach.add(Square::new(one as u32));
        let two = one + step;
        if from.rank() == start && !occupied.contains(Square::new(two as u32)) {
            reach.add(Square::new(two as u32));
        }
    }
    reach
}

/// "white"/"black".
pub fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// The English name of a role.
pub fn role_name(r: Role) -> &'static str {
    match r {
        Role::Pawn => "pawn",
        Role::Knight => "knight",
        Role::Bishop => "bishop",
        Role::Rook => "rook",
        Role::Queen => "queen",
        Role::King => "king",
    }
}

/// What is wrong with a position that no legal play reaches, if anything.
pub fn impossibility(board: &Board) -> Option<String> {
    let mut problems = Vec::new();
    for color in Color::ALL {
        let kings = (board.by_role(Role::King) & board.by_color(color)).count();
        if kings != 1 {
            problems.push(format!("{} has {kings} kings", color_name(color)));
        }
        let pieces = board.by_color(color).count();
        if pieces > 16 {
            problems.push(format!("{} has {pieces} pieces", color_name(color)));
        }
        let pawns = (board.by_role(Role::Pawn) & board.by_color(color)).count();
        if pawns > 8 {
            problems.push(format!("{} has {pawns} pawns", color_name(color)));
        }
    }
    let back = board.by_role(Role::Pawn)
        & (Bitboard::from_rank(Rank::First) | Bitboard::from_rank(Rank::Eighth));
    for sq in back {
        problems.push(format!("a pawn stands on {sq}"));
    }
    (!problems.is_empty()).then(|| problems.join(", "))
}

impl Position {
    /// The position on the board after an irregular change: `board` with
    /// `turn` to move, castling rights kept where king and rook still stand,
    /// no en passant. `None` when no play can continue from it (a side
    /// without exactly one king, a pawn on the last rank, the side not to
    /// move in check).
    #[allow(
        clippy::result_large_err,
        reason = "shakmaty's PositionError carries the position; it is dropped here"
    )]
    pub fn irregular(&self, board: Board, turn: Color) -> Option<Position> {
        let mut setup: Setup = self.chess.to_setup(shakmaty::EnPassantMode::Legal);
        setup.board = board;
        setup.turn = turn;
        setup.ep_square = None;
        if turn == Color::White {
            setup.fullmoves = setup.fullmoves.saturating_add(1);
        }
        setup.halfmoves = setup.halfmoves.saturating_add(1);
        let mode = if self.chess960 {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        };
        let chess = Chess::from_setup(setup, mode)
            .or_else(|e| e.ignore_invalid_castling_rights())
            .or_else(|e| e.ignore_too_much_material())
            .or_else(|e| e.ignore_impossible_check())
            .ok()?;
        Some(Position {
            chess,
            chess960: self.chess960,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(fen: &str) -> Position {
        Position::from_fen(fen, false).unwrap()
    }

    fn moved(p: &Position, from: Square, to: Square) -> Board {
        let mut b = p.board().clone();
        let piece = b.remove_piece_at(from).unwrap();
        b.set_piece_at(to, piece);
        b
    }

    #[test]
    fn a_bishop_jumping_is_named_with_its_squares() {
        let p = Position::standard();
        let m = find_pseudo_move(&p, &moved(&p, Square::C1, Square::H6)).unwrap();
        assert_eq!(m.notation(), "Bc1-h6");
        assert_eq!(illegality(&p, &m), "a bishop cannot move from c1 to h6");
    }

    #[test]
    fn moving_into_check_is_recognised() {
        let p = pos("4k3/8/8/8/8/8/3r4/4K3 w - - 0 1");
        let m = find_pseudo_move(&p, &moved(&p, Square::E1, Square::D1)).unwrap();
        assert_eq!(illegality(&p, &m), "it puts the White king in check");
    }

    #[test]
    fn a_move_by_the_side_not_to_move_is_named() {
        let p = Position::standard();
        let m = find_pseudo_move(&p, &moved(&p, Square::E7, Square::E5)).unwrap();
        assert_eq!(illegality(&p, &m), "it was White's move");
        assert_eq!(m.notation(), "e7-e5");
    }

    #[test]
    fn an_unexchanged_pawn_on_the_last_rank_is_named() {
        let p = pos("8/4P3/8/8/8/8/8/k3K3 w - - 0 1");
        let m = find_pseudo_move(&p, &moved(&p, Square::E7, Square::E8)).unwrap();
        assert!(illegality(&p, &m).contains("not exchanged"));
        assert!(impossibility(&moved(&p, Square::E7, Square::E8)).is_some());
    }

    #[test]
    fn castling_after_the_king_moved_is_named() {
        let p = pos("4k3/8/8/8/8/8/8/4K2R w - - 0 1");
        let mut b = p.board().clone();
        b.discard_piece_at(Square::E1);
        b.discard_piece_at(Square::H1);
        b.set_piece_at(
            Square::G1,
            Piece {
                color: Color::White,
                role: Role::King,
            },
        );
        b.set_piece_at(
            Square::F1,
            Piece {
                color: Color::White,
                role: Role::Rook,
            },
        );
        let m = find_pseudo_move(&p, &b).unwrap();
        assert_eq!(m.rook, Some((Square::H1, Square::F1)));
        assert_eq!(
            illegality(&p, &m),
            "castling after the king or that rook had moved"
        );
    }

    #[test]
    fn play_goes_on_from_an_irregular_position() {
        let p = Position::standard();
        let b = moved(&p, Square::C1, Square::H6);
        let irregular = p.irregular(b, Color::Black).unwrap();
        assert!(irregular.legal_moves().any(|m| irregular.san(m) == "gxh6"));
        // Two white kings: nothing can go on.
        let mut two = p.board().clone();
        two.set_piece_at(
            Square::E4,
            Piece {
                color: Color::White,
                role: Role::King,
            },
        );
        assert!(p.irregular(two.clone(), Color::Black).is_none());
        assert_eq!(
            impossibility(&two).unwrap(),
            "White has 2 kings, White has 17 pieces"
        );
    }
}
