use crate::event::Millis;
use crate::games::{Game, GameMove, GamePiece, GamePosition, Placement, SquareSet};

use super::{Board, Cell, Context, Piece, Playing, RECENT, Square, Touch};

impl<G: Game> Playing<G> {
    /// Remembers lifts of the side to move, for touch-move (Law 4.3).
    pub(super) fn note_touch(
        &mut self,
        cx: &Context<G>,
        at: Millis,
        sq: Square<G>,
        cell: Cell<Piece<G>>,
    ) {
        let game_sq = if self.orientation.is_rotated() {
            cx.rules.turn_round(sq)
        } else {
            sq
        };
        let turn = self.game.position().turn();
        let seen = match cell {
            Cell::Piece(piece) => Some(Some(piece)),
            Cell::Empty => Some(None),
            Cell::Token(_) => None,
        };
        self.note_reading(cx, at, game_sq, seen);
        // A board without piece identity: the piece lifted is the one the
        // game has there.
        let lifted = cx.raw.piece_at(sq).and_then(|piece| match piece.color() {
            Some(_) => Some(piece),
            None => self.game.position().board().piece_at(game_sq),
        });
        // The mover's hand finishing its move (a captured piece taken off
        // after the capturing piece was set down, as draughts players
        // clear the men they took, or taken off from beside, where it was
        // set down for a moment: a square the game holds empty) is still
        // the mover's: the grace below counts from it.
        let finishing = self
            .game
            .plies()
            .last()
            .and_then(|x| x.m.as_ref())
            .is_some_and(|m| {
                m.touched().contains(game_sq)
                    && Board::<G>::agrees(
                        self.game.position().board().piece_at(game_sq),
                        seen.flatten(),
                    )
            });
        let stray_off =
            seen == Some(None) && self.game.position().board().piece_at(game_sq).is_none();
        if self.moved_at.is_some() && seen.is_some() && (finishing || stray_off) {
            self.moved_at = Some(at);
        }
        // Design: a lift this soon after the last move was set down is
        // the hand that made it on its way back (a knock), not the
        // opponent touching a piece: no accusation (see
        // `AlertDelays::touch_grace_ms`).
        let grace = self
            .moved_at
            .is_some_and(|m| at < m + cx.config.delays.touch_grace_ms);
        self.note_lift(at, game_sq, lifted, cell, turn, grace);
    }

    /// The reading's square and what it showed, kept for the order
    /// evidence (see [`Playing::recent`]) and, in games that rank by
    /// evidence, as the square's last touch.
    fn note_reading(
        &mut self,
        cx: &Context<G>,
        at: Millis,
        game_sq: Square<G>,
        seen: Option<Option<Piece<G>>>,
    ) {
        if let Some(seen) = seen {
            if self.recent.len() == RECENT {
                self.recent.pop_front();
            }
            self.recent.push_back((game_sq, seen, at));
        }
        if cx.rules.ranks_by_evidence() {
            // This reading's number (`on_reading` counts it).
            self.touched_at[cx.rules.index(game_sq)] = (cx.stats.readings + 1, at);
        }
    }

    /// A piece of the side to move lifted (`lifted`, from `game_sq`) is a
    /// touch, unless within the grace after the last move; one set down
    /// ends the touch of its piece, or marks it displaced.
    fn note_lift(
        &mut self,
        at: Millis,
        game_sq: Square<G>,
        lifted: Option<Piece<G>>,
        cell: Cell<Piece<G>>,
        turn: <G as Game>::Color,
        grace: bool,
    ) {
        match (lifted, cell) {
            (Some(piece), Cell::Empty)
                if piece.color() == Some(turn) && self.touches.len() < 32 && !grace =>
            {
                self.touches.push(Touch {
                    sq: game_sq,
                    piece,
                    lifted: at,
                    back: None,
                    displaced: false,
                });
            }
            (None, Cell::Piece(piece)) => {
                if let Some(t) = self.touches.iter_mut().rev().find(|t| {
                    t.sq == game_sq
                        && Board::<G>::agrees(Some(t.piece), Some(piece))
                        && t.back.is_none()
                }) {
                    t.back = Some(at);
                } else {
                    let open = self.touches.iter().rposition(|t| {
                        Board::<G>::agrees(Some(t.piece), Some(piece)) && t.back.is_none()
                    });
                    mark_displaced_touch(self, open, game_sq);
                }
            }
            (None, Cell::Token(_)) => {
                // Without piece identity, the piece in the air last lifted
                // is the one set down.
                let open = self.touches.iter().rposition(|t| t.back.is_none());
                mark_displaced_touch(self, open, game_sq);
            }
            _ => {}
        }
    }
}

/// Marks the open touch `open` displaced when its piece was set down on
/// `to`, an empty square of the game (see [`Touch::displaced`]); an illegal
/// move read there makes it a touch again ([`Playing::report_illegal`]).
fn mark_displaced_touch<G: Game>(p: &mut Playing<G>, open: Option<usize>, to: Square<G>) {
    if let Some(i) = open
        && p.game.position().board().piece_at(to).is_none()
    {
        p.touches[i].displaced = true;
    }
}
