//! What the arbiter must hear in chess: the wording of every alert of the
//! FIDE Laws, built from what the reconstructor sees
//! ([`crate::track::Reconstructor`] decides when).

use crate::event::{Alert, AlertKind};
use crate::games::GameColor;
use crate::games::arbiter::{
    Completed, displaced_message, displaced_side, illegal_move_opening, setup_message,
    touch_message,
};
use crate::games::chess::irregular::{PseudoMove, color_name, role_name};
use crate::games::chess::laws::Law;
use crate::games::chess::{Bitboard, Board, Color, Piece, Position, Role, Square, diff, rotated};

/// Builds a chess alert.
pub fn alert(kind: AlertKind, side: Option<Color>, law: Option<Law>, message: String) -> Alert {
    crate::games::arbiter::alert(
        kind,
        side.map(GameColor::side),
        law.map(Law::article),
        message,
    )
}

fn ordinal(n: u32) -> &'static str {
    match n {
        1 => "first",
        2 => "second",
        3 => "third",
        _ => "further",
    }
}

/// The `illegal_move` alert for the `count`th illegal move of its mover.
/// `before` is the position the move was made in (the one Law 7.5a
/// restores).
///
/// `completed` says what showed it was completed (Law 6.2a).
pub fn illegal_move(
    before: &Position,
    m: &PseudoMove,
    why: &str,
    count: u32,
    ply: usize,
    completed: Completed,
) -> Alert {
    let mover = m.piece.color;
    let opponent = !mover;
    let consequence = if count == 1 {
        format!(
            "the arbiter adds two minutes to {}'s clock (Law 7.5b)",
            color_name(opponent)
        )
    } else if before.cannot_checkmate(opponent) {
        format!(
            "the game is drawn, as {} cannot checkmate by any legal sequence (Law 7.5b)",
            color_name(opponent)
        )
    } else {
        format!("{} loses the game (Law 7.5b)", color_name(mover))
    };
    let number = ply / 2 + 1;
    let evidence = match completed {
        Completed::Press => format!(
            " {} pressed the clock after it, which completed the move (Law 6.2a).",
            color_name(mover)
        ),
        Completed::Reply => format!(
            " {} began to reply to it, so it was completed.",
            color_name(opponent)
        ),
    };
    let dots = if before.turn() == Color::White {
        "."
    } else {
        "..."
    };
    alert(
        AlertKind::IllegalMove,
        Some(mover),
        Some(Law::IllegalMove),
        format!(
            "{}: {why}.{evidence} It is {}'s {} illegal move in this game: {consequence}; the position before it must be restored (Law 7.5a).",
            illegal_move_opening(color_name(mover), number, dots, &m.notation()),
            color_name(mover),
            ordinal(count),
        ),
    )
}

/// Describes each square where `board` differs from `game` (`e4 should be
/// empty`, `d5 should hold the black pawn`).
pub fn differences(game: &Board, board: &Board) -> Vec<String> {
    diff(game, board)
        .into_iter()
        .map(|sq| match (game.piece_at(sq), board.piece_at(sq)) {
            (Some(p), None) => format!("{sq} is empty, should hold the {}", piece_name(p)),
            (None, Some(q)) => format!("{sq} holds the {}, should be empty", piece_name(q)),
            (Some(p), Some(q)) => format!(
                "{sq} holds the {}, should hold the {}",
                piece_name(q),
                piece_name(p)
            ),
            (None, None) => unreachable!("diff squares differ"),
        })
        .collect()
}

/// "white knight".
pub fn piece_name(p: Piece) -> String {
    format!(
        "{} {}",
        color_name(p.color).to_lowercase(),
        role_name(p.role)
    )
}

/// The `misplaced` alert.
/// The `side` is the side whose pieces were displaced, when only one
/// side's pieces differ.
pub fn misplaced(game: &Position, board: &Board) -> Alert {
    let side = displaced_side(diff(game.board(), board).into_iter().map(|sq| {
        let color = |b: &Board| b.piece_at(sq).map(|p| p.color);
        (color(game.board()), color(board))
    }));
    alert(
        AlertKind::Misplaced,
        side,
        Some(Law::Displaced),
        displaced_message(
            side.map(color_name),
            &differences(game.board(), board),
            &game.fen(),
            "Laws 7.4, 7.6",
        ),
    )
}

/// The `illegal_position` alert.
pub fn illegal_position(problem: &str, board: &Board) -> Alert {
    alert(
        AlertKind::IllegalPosition,
        None,
        Some(Law::IllegalPosition),
        format!(
            "The board shows a position no legal play reaches: {problem} (placement {}).",
            crate::games::chess::board_fen(board)
        ),
    )
}

/// The start position a board seems meant to be, when it is close to one:
/// the standard start (either way round) or, when Chess960 is allowed, the
/// start whose back rank White has set up. Returns the intended placement in
/// the board's own orientation and the differing squares.
pub fn nearest_start(raw: &Board, chess960: bool) -> Option<(Board, Bitboard)> {
    let mut candidates = vec![Board::new(), rotated(&Board::new())];
    if chess960 {
        for turned in [false, true] {
            let b = if turned { rotated(raw) } else { raw.clone() };
            if let Some(start) = start_from_white_rank(&b) {
                candidates.push(if turned { rotated(&start) } else { start });
            }
        }
    }
    candidates
        .into_iter()
        .map(|c| {
            let d = diff(&c, raw);
            (c, d)
        })
        .min_by_key(|(_, d)| d.count())
        .filter(|(_, d)| d.count() <= 8 && raw.occupied().count() >= 24)
}

/// The Chess960 start whose white back rank stands on rank 1 (pieces other
/// than pawns), mirrored for Black, if White's rank is complete.
fn start_from_white_rank(b: &Board) -> Option<Board> {
    let mut start = Board::empty();
    for file in crate::games::chess::File::ALL {
        let sq = Square::from_coords(file, crate::games::chess::Rank::First);
        let p = b.piece_at(sq)?;
        if p.color != Color::White || p.role == Role::Pawn {
            return None;
        }
        start.set_piece_at(sq, p);
        start.set_piece_at(
            Square::from_coords(file, crate::games::chess::Rank::Eighth),
            Piece {
                color: Color::Black,
                role: p.role,
            },
        );
        start.set_piece_at(
            Square::from_coords(file, crate::games::chess::Rank::Second),
            Piece {
                color: Color::White,
                role: Role::Pawn,
            },
        );
        start.set_piece_at(
            Square::from_coords(file, crate::games::chess::Rank::Seventh),
            Piece {
                color: Color::Black,
                role: Role::Pawn,
            },
        );
    }
    Some(start)
}

/// The `setup` alert: `intended` and `raw` are in the board's orientation;
/// squares are named in game orientation.
pub fn setup(intended: &Board, raw: &Board) -> Alert {
    let turned = intended
        .piece_at(Square::A1)
        .is_some_and(|p| p.color == Color::Black);
    let (i, r) = if turned {
        (rotated(intended), rotated(raw))
    } else {
        (intended.clone(), raw.clone())
    };
    alert(
        AlertKind::Setup,
        None,
        Some(Law::Setup),
        setup_message(&differences(&i, &r), "Law 7.2a"),
    )
}

/// The `touch_move` alert for a piece touched, put back, and another moved.
pub fn touch_move(color: Color, touched: Piece, at: Square, moved: &str) -> Alert {
    alert(
        AlertKind::TouchMove,
        Some(color),
        Some(Law::TouchMove),
        touch_message(
            color_name(color),
            &format!("the {}", role_name(touched.role)),
            at,
            moved,
            "Law 4.3a",
        ),
    )
}

/// The `touch_move` alert for castling begun with the rook.
pub fn rook_first(color: Color, rook: Square, moved: &str) -> Alert {
    alert(
        AlertKind::TouchMove,
        Some(color),
        Some(Law::CastlingRookFirst),
        format!(
            "{} began castling ({moved}) by touching the rook on {rook} before the king (Law 4.4b: the rook must then be moved, not castled).",
            color_name(color)
        ),
    )
}
