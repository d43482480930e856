//! Rule engines for the games boardcast judges beside chess, written from
//! the rule books the project was made from (no crate does them well).
//!
//! # Layout
//!
//! - [`draughts`]: English draughts (checkers) on the 32 dark squares of an
//!   8x8 board, as the WCDF rules define it.
//! - [`xiangqi`]: xiangqi (Chinese chess) on the 9x10 points, as the
//!   xiangqi association's competition rules define it.
//!
//! Design: like the protocol decoders in `boardcast-protocols`, this crate
//! is pure: no I/O, no clock, no dependency on the daemon. Chess stays
//! behind shakmaty in the daemon crate; the daemon's game seam wraps these
//! types the same way.

#![warn(missing_docs, unreachable_pub, missing_debug_implementations)]

pub mod draughts;
pub mod xiangqi;
