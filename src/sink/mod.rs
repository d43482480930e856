//! Sinks: everything that consumes events.
//!
//! - [`record`]: folds events into game records (shared by every sink).
//! - [`pgn`]: PGN text of a game record.
//! - [`mqtt`]: the broker connection: events, retained state and PGN.
//! - [`folder`]: the PGN folder relay tools read (LiveChess layout).
//! - [`round`]: the live round: tags from the pairings, corrections, the
//!   folder writer task.

pub mod folder;
pub mod mqtt;
pub mod pgn;
pub mod record;
pub mod round;
