//! Touch-move evidence: pieces of the side to move lifted since the last
//! move (FIDE Law 4.3, draughts art. 1.22, xiangqi Art. 13).

use super::{Game, GameMove, GamePosition};
use crate::event::Millis;

/// A piece of the side to move lifted since the last move.
#[derive(Clone, Copy, Debug)]
pub struct Touch<G: Game> {
    /// Its square (game orientation).
    pub sq: G::Square,
    /// The piece.
    pub piece: G::Piece,
    /// When it was lifted.
    pub lifted: Millis,
    /// When it was set back on its square, if it was.
    pub back: Option<Millis>,
    /// It was set down on another square before it was set back, and no
    /// move was read there: a piece displaced (knocked, pushed) and set
    /// back, not one its player lifted and put back; no touch-move.
    pub displaced: bool,
}

/// The piece touched, put back and not moved, if one was, when `m` is
/// played in `pos`: a piece lifted for at least `touch_ms` (shorter is an
/// adjustment), set back on its square, that could have moved. `touches`
/// are the mover's.
pub fn put_back_touch<'a, G: Game>(
    pos: &G::Position,
    m: &G::Move,
    touches: &[&'a Touch<G>],
    touch_ms: Millis,
) -> Option<&'a Touch<G>> {
    touches.iter().copied().find(|t| {
        t.sq != m.from()
            && !t.displaced
            && t.back
                .is_some_and(|b| b.saturating_sub(t.lifted) >= touch_ms)
            && pos.legal_moves().any(|l| l.from() == t.sq)
    })
}
