//! Sinks: everything that consumes events.
//!
//! - [`record`]: folds events into game records (shared by every sink).
//! - [`pgn`]: PGN text of a game record.

pub mod pgn;
pub mod record;
