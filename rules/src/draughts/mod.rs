//! English draughts (checkers), written from the project's rule book
//! (`english-draughts-rules.zh.txt`, a translation of the WCDF rules);
//! article numbers cited are that book's (see [`Law`]).
//!
//! Design: no crate does English draughts with the WCDF rules (compulsory
//! capture with free choice, crowning ends the move, the 40-move and
//! repetition draws): `checke-rs` has no captures, `kish` is Turkish
//! draughts. So it is written by hand here: a 32-square mailbox with
//! file/rank geometry and a depth-first capture search, small enough to
//! check by reading, and tested against pydraughts as an independent oracle.
//!
//! - [`geometry`]: [`Square`] (1-32, `a1`-`h8`, 8x8 cells), [`Color`], [`Piece`].
//! - [`position`]: [`Position`] with PDN FEN, legal moves, play/undo.
//! - [`moves`]: [`Move`] with its `id` (full path).
//! - [`notation`]: a move's short PDN notation in a position, read and
//!   written.
//! - [`rules`]: [`Law`] (article numbers), [`Game`] with [`Verdict`]s,
//!   [`classify`] for moves seen on a board, [`Offences`], [`touch`] and
//!   [`moves_toward`] for touch-move (art. 1.22, 1.23, 1.25.2).
//! - [`pdn`]: PDN writer and reader.

pub mod geometry;
pub mod moves;
pub mod notation;
pub mod pdn;
pub mod position;
pub mod rules;

pub use geometry::{Color, Kind, ParseSquareError, Piece, Square};
pub use moves::Move;
pub use notation::NotationError;
pub use pdn::{Outcome, PdnError, PdnGame, read_pdn, write_pdn};
pub use position::{FenError, Position, Undo};
pub use rules::{
    Classification, FORTY_MOVE_PLIES, Game, Law, Offences, Penalty, PseudoMove, Touch, Verdict,
    classify, moves_toward, touch,
};
