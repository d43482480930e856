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
//! half of castling, a king stepping towards a castling rook. Which moves
//! those are is the game's business ([`crate::games::Game::settle_ms`]).
//! The trade-off is delay against wrong moves shown: every millisecond of
//! settle time is a millisecond of broadcast delay, and a settle time
//! shorter than a player's pause on an intermediate square shows a move
//! that was never played (then retracted). See README section "Settle
//! rule" for the measured figures.

pub use crate::games::settle::SettleRule;
