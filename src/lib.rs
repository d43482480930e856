//! boardcast: electronic chess boards to live broadcasts and arbiters.
//!
//! # Layout
//!
//! The data path, from the serial line to the sinks:
//!
//! ```text
//! serial bytes --> protocol decoder --> square readings --> reconstructor --> events --> sinks
//!   (capture)      (boardcast-protocols)   (pipeline)        (board, rules)   (event)   (sink)
//! ```
//!
//! - [`capture`]: capture files, the byte-exact record of a board session.
//! - [`pipeline`]: one board's pure pipeline, bytes in, events out.
//! - [`board`]: the reconstructor: explains readings as legal play, settles
//!   and publishes moves.
//! - [`rules`]: the only user of shakmaty: legality, notation, outcomes and
//!   the table of FIDE Laws articles.
//! - [`clock`]: time controls, the clock a board reports, presses and flags.
//! - [`event`]: the event type every sink consumes.
//! - [`sink`]: game records, PGN, the PGN folder relay tools read.
//! - [`tournament`]: event metadata, players and pairings.
//! - [`track`]: draughts and xiangqi boards: readings to moves of those
//!   games, their events and records (open protocol).
//! - [`sim`]: the board simulator (clean and human handling profiles).
//! - [`replay`]: a capture through the pipeline with capture time.
//! - [`family`]: board families behind one seam: a sans-IO driver per wire
//!   protocol (line settings, hello, keepalive, bytes to readings), used by
//!   the port code and `replay`.
//! - [`config`]: the daemon's TOML configuration, raw and validated.
//! - [`control`]: operator commands: parsing, signing, verification.
//! - [`port`]: serial I/O: one task per board (find, open, handshake,
//!   reconnect) and the recorder.
//! - [`daemon`]: `boardcast run`: board tasks, the MQTT task, shutdown.
//! - [`delay`]: the broadcast delay: each board's public view, `delay`
//!   behind the arbiters' live view.
//! - [`backoff`]: capped exponential backoff for reconnection loops.
//! - [`broker`]: the embedded MQTT broker, started when none listens.
//! - [`web`]: the live page for screens and arbiters (HTTP, server-sent
//!   events), fed by the same events as MQTT.
//! - [`livechess`]: an imitation of DGT LiveChess 2's local API (REST and
//!   WebSocket) for the tools that speak to it.
//! - [`hub`]: `boardcast hub`: one event-wide view over many bridges (the
//!   live page, the arbiter view, the PGN folder, the delay), fed only by
//!   what the bridges publish on MQTT.
//! - [`demo`]: `boardcast demo`: simulated boards on pseudo-terminals
//!   through the real daemon, the embedded broker and the live page.
//!
//! The protocol decoders live in the `boardcast-protocols` crate
//! (`protocols/`); they are sans-IO and never panic on any input.
//! Everything in this crate except the I/O edges ([`port`], [`daemon`],
//! [`sink::mqtt`]) is synchronous and takes time as an argument, which is
//! what makes replay exact.

#![warn(missing_docs, unreachable_pub, missing_debug_implementations)]

pub mod backoff;
pub mod board;
pub mod broker;
pub mod capture;
pub mod clock;
pub mod config;
pub mod control;
pub mod daemon;
pub mod delay;
pub mod demo;
pub mod event;
pub mod family;
pub mod hub;
pub mod livechess;
pub mod pipeline;
pub mod port;
pub mod replay;
pub mod rules;
pub mod session;
pub mod sim;
pub mod sink;
pub mod tournament;
pub mod track;
pub mod wall;
pub mod web;
