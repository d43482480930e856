//! What a sensor square holds: a piece, nothing, or a result token.
//!
//! Design: the vocabulary of readings every game and the reconstructor
//! share lives with the games, so that the games need nothing from
//! [`crate::track`] (which re-exports it).

/// A result token (DGT's "magic pieces") an arbiter may place on a square.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Token {
    /// Draw.
    Draw,
    /// White wins.
    WhiteWins,
    /// Black wins.
    BlackWins,
}

/// What one sensor square holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Cell<P = crate::games::chess::Piece> {
    /// Nothing.
    #[default]
    Empty,
    /// A piece (for a board without piece identity, the game's piece of
    /// unknown colour).
    Piece(P),
    /// A result token.
    Token(Token),
}
