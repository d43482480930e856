//! Game records and the PGN folder: events folded into games, their PGN,
//! and the folder relay tools read. Below the session (which writes
//! through them); the MQTT sink is [`crate::mqtt`].
//!
//! - [`append`]: append-only line files (journals), opened with a torn
//!   last line cut off.
//! - [`record`]: folds events into game records (shared by every sink).
//! - [`pgn`]: PGN text of a game record.
//! - [`folder`]: the PGN folder relay tools read (LiveChess layout).
//! - [`ledger`]: the round ledger: one game per (round, pairing board);
//!   a game closed with a result is never replaced by another.
//! - [`round`]: the live round: tags from the pairings, corrections, the
//!   folder writer task.

pub mod append;
pub mod folder;
pub mod ledger;
pub mod pgn;
pub mod record;
pub mod round;
