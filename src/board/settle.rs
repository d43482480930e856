//! The settle rule: how long a move must stand on the board before it is
//! published.
//!
//! Design: a move is published when the board has shown it for a settle
//! time with no reading that changes the explanation, or at once when
//! something proves it finished: the opponent lifts one of their own pieces,
//! the opponent's reply lands, or the mover presses the clock. The settle
//! time is short for moves that cannot grow into another move and longer
//! for "extendable" ones, where the hand may still be travelling: a sliding
//! piece that could go further along its line, a rook that may be the first
//! half of castling, a king stepping towards a castling rook. The trade-off
//! is delay against wrong moves shown: every millisecond of settle time is
//! a millisecond of broadcast delay, and a settle time shorter than a
//! player's pause on an intermediate square shows a move that was never
//! played (then retracted). See README section "Settle rule" for the
//! measured figures.

use crate::event::Millis;
use crate::rules::{Move, Position, Role, Square};

/// Settle times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SettleRule {
    /// For moves that cannot be extended.
    pub base_ms: Millis,
    /// For moves that may still be travelling.
    pub extendable_ms: Millis,
    /// For a restored earlier position (a takeback). Longer, because a
    /// piece set down for a moment on a wrong square can recreate an
    /// earlier position of the game, while players restoring a position
    /// take seconds anyway.
    pub takeback_ms: Millis,
    /// For a king move onto d4, d5, e4 or e5: players report a result by
    /// putting both kings there, and the first king must not be shown as
    /// a move while the second is on its way.
    pub king_centre_ms: Millis,
    /// How long both kings must stand in the centre before that is taken
    /// as the players' result signal.
    pub kings_signal_ms: Millis,
}

impl Default for SettleRule {
    fn default() -> Self {
        SettleRule {
            base_ms: 450,
            extendable_ms: 850,
            takeback_ms: 1_500,
            king_centre_ms: 2_500,
            kings_signal_ms: 1_500,
        }
    }
}

impl SettleRule {
    /// The settle time of `m` played in `pos`.
    pub fn for_move(&self, pos: &Position, m: Move) -> Millis {
        let centre = [Square::D4, Square::D5, Square::E4, Square::E5];
        if m.role() == Role::King && !m.is_castle() && centre.contains(&m.to()) {
            self.king_centre_ms
        } else if is_extendable(pos, m) {
            self.extendable_ms
        } else {
            self.base_ms
        }
    }
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
                crate::rules::File::new(file as u32),
                crate::rules::Rank::new(rank as u32),
            ))
        } else {
            None
        }
    }
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
