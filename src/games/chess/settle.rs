//! Chess's settle times ([`crate::track::settle::SettleRule`]): which
//! moves may still be travelling (a sliding piece that could go further
//! along its line, a rook that may be the first half of castling, a king
//! stepping towards a castling rook) and the king stepping into the centre
//! that may be the first half of the kings-in-the-centre result signal.

use crate::event::Millis;
use crate::games::chess::{Move, Position, Role, Square};
use crate::games::settle::SettleRule;

impl SettleRule {
    /// The settle time of chess move `m` played in `pos`.
    pub fn for_move(&self, pos: &Position, m: Move) -> Millis {
        if steps_into_centre(m) {
            self.king_centre_ms
        } else if is_extendable(pos, m) {
            self.extendable_ms
        } else if self.sole_landing_ms < self.base_ms && !lands_beside_another(pos, m) {
            self.sole_landing_ms
        } else {
            self.base_ms
        }
    }
}

/// Whether `m` is a king stepping onto d4, d5, e4 or e5: the first half of
/// the kings-in-the-centre result signal, perhaps.
pub fn steps_into_centre(m: Move) -> bool {
    let centre = [Square::D4, Square::D5, Square::E4, Square::E5];
    m.role() == Role::King && !m.is_castle() && centre.contains(&m.to())
}

/// Whether the hand that made `m` may still be travelling to another
/// square, so that the board will soon show a different move.
pub fn is_extendable(pos: &Position, m: Move) -> bool {
    if m.is_castle() {
        return false;
    }
    let mover = pos.turn();
    let (from, to) = (m.from(), m.to());
    let rooks = pos.castling_rooks(mover);
    match m.role() {
        Role::Bishop | Role::Rook | Role::Queen => {
            if m.role() == Role::Rook && rooks.contains(from) {
                return true;
            }
            let df = (to.file() as i32 - from.file() as i32).signum();
            let dr = (to.rank() as i32 - from.rank() as i32).signum();
            let next = Square::try_from_coords_i32(to.file() as i32 + df, to.rank() as i32 + dr);
            match next {
                Some(sq) => pos.board().color_at(sq) != Some(mover),
                None => false,
            }
        }
        Role::King => {
            // A king sliding towards a rook it may castle with.
            rooks.any() && from.rank() == to.rank() && from.distance(to) == 1
        }
        _ => false,
    }
}

trait SquareExt {
    fn try_from_coords_i32(file: i32, rank: i32) -> Option<Square>;
}

impl SquareExt for Square {
    fn try_from_coords_i32(file: i32, rank: i32) -> Option<Square> {
        if (0..8).contains(&file) && (0..8).contains(&rank) {
            Some(Square::from_coords(
                crate::games::chess::File::new(file as u32),
                crate::games::chess::Rank::new(rank as u32),
            ))
        } else {
            None
        }
    }
}

/// Whether the piece of `m` could also land, legally, on a square beside
/// `m`'s (a pawn's single and double step, a knight's two landings side by
/// side, a king's): a hand that sets it down off the centre of its square
/// reads as that other move for a moment, so the move waits the base time.
pub fn lands_beside_another(pos: &Position, m: Move) -> bool {
    let (from, to) = (m.from(), m.to());
    pos.legal_moves()
        .any(|o| o.from() == from && o.to() != to && o.to().distance(to) == 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(fen: &str, san: &str) -> (Position, Move) {
        let pos = Position::from_fen(fen, false).unwrap();
        let m = pos.parse_san(san).unwrap();
        (pos, m)
    }

    #[test]
    fn a_rook_that_could_slide_on_is_extendable() {
        let (p, m) = mv("4k3/8/8/8/8/8/8/R3K3 w - - 0 1", "Ra3");
        assert!(is_extendable(&p, m));
    }

    #[test]
    fn a_rook_against_its_own_piece_is_not() {
        let (p, m) = mv("4k3/8/8/8/P7/8/8/R3K3 w - - 0 1", "Ra3");
        assert!(!is_extendable(&p, m));
    }

    #[test]
    fn a_knight_move_is_not_extendable() {
        let (p, m) = mv(
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "Nf3",
        );
        assert!(!is_extendable(&p, m));
    }

    #[test]
    fn a_rook_with_castling_rights_may_be_castling_rook_first() {
        let (p, m) = mv("4k3/8/8/8/8/8/7P/4K2R w K - 0 1", "Rf1");
        assert!(is_extendable(&p, m));
    }
}
