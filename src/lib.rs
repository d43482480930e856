//! boardcast: electronic chess boards to live broadcasts and arbiters.
//!
//! # Layout
//!
//! The data path of one board, top to bottom, and the module that owns
//! each step:
//!
//! ```text
//!  serial line / capture file        port (BoardTask, BusTask), capture, replay
//!          | bytes + time
//!  family driver, protocol decoder   family, boardcast-protocols
//!          | readings
//!  pipeline -> reconstructor         pipeline, board, games, clock
//!          | events                  event
//!  session: record, state, delay     session (Session, BoardSetup, BoardSink)
//!          | events, state, PGN
//!  sinks                             mqtt, web, sink::round (PGN folder)
//! ```
//!
//! Edges (tokio) at the top and bottom, a pure core in between.
//!
//! - [`port`]: serial I/O only: one task per board or DGT bus line (find,
//!   open, handshake, reconnect), and the recorder. It drives a
//!   [`session::Session`] and knows no sink.
//! - [`capture`]: capture files, the byte-exact record of a board session.
//! - [`replay`]: a capture through the same pipeline with capture time
//!   (the board read as its header's [`setup::BoardSetup`] declares).
//! - [`family`]: board families behind one seam: a sans-IO driver per wire
//!   protocol (line settings, hello, keepalive, bytes to readings), used by
//!   the port code and `replay`.
//! - [`pipeline`]: one board's pure pipeline, bytes in, events out (a
//!   draughts or xiangqi board's in [`pipeline::open`], shared with
//!   `replay`).
//! - [`board`]: the reconstructor, generic over the game: explains readings
//!   as legal play, settles and publishes moves, corrects, raises the
//!   arbiter's alerts.
//! - [`games`]: the game seam: the [`games::Game`] trait the reconstructor
//!   is generic over, the game record, and one module per game;
//!   [`games::chess`] is the only user of shakmaty (legality, notation,
//!   outcomes, the FIDE Laws articles and their alerts).
//! - [`clock`]: time controls, the clock a board reports, presses and flags.
//! - [`event`]: the event type every sink consumes.
//! - [`session`]: one board above its line: the pipeline driven with
//!   daemon time, the game record, the link status, the retained state,
//!   the broadcast delay, operator corrections; it publishes through the
//!   [`session::BoardSink`] trait the sinks implement.
//! - [`sink`]: consumers of events: the MQTT sink (outbox, command intake,
//!   connection task), game records, PGN, the PGN folder relay tools read.
//! - [`web`]: the live page for screens and arbiters (HTTP, server-sent
//!   events), fed by the same events as MQTT.
//! - [`delay`]: the broadcast delay: each board's public view, `delay`
//!   behind the arbiters' live view.
//! - [`livechess`]: an imitation of DGT LiveChess 2's local API (REST and
//!   WebSocket) for the tools that speak to it.
//! - [`tournament`]: event metadata, players and pairings.
//! - [`control`]: operator commands: parsing, signing, verification.
//! - [`config`]: the daemon's TOML configuration, raw and validated, one
//!   function per section (shared with the hub's).
//! - [`daemon`]: `boardcast run`: services, board tasks, the MQTT task,
//!   shutdown in order.
//! - [`broker`]: the embedded MQTT broker, started when none listens.
//! - [`hub`]: `boardcast hub`: one event-wide view over many bridges (the
//!   live page, the arbiter view, the PGN folder, the delay), fed only by
//!   what the bridges publish on MQTT.
//! - [`backoff`], [`wall`]: capped exponential backoff; wall-clock time
//!   (Unix milliseconds, PGN dates, session stamps).
//!
//! The board simulator (handling models, fault tables, simulated boards on
//! pseudo-terminals) is the `boardcast-sim` crate (`sim/`), and the
//! `boardcast` binary with `boardcast demo` is the `boardcast-cli` package
//! (`cli/`); neither is part of this library.
//!
//! The protocol decoders live in the `boardcast-protocols` crate
//! (`protocols/`); they are sans-IO and never panic on any input. The
//! draughts and xiangqi rules live in `boardcast-games` (`games/`).
//! Everything in this crate except the I/O edges ([`port`], [`daemon`],
//! [`mqtt`], [`web`], [`broker`], [`hub`], [`livechess`]) is
//! synchronous and takes time as an argument, which is what makes replay
//! exact.

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
pub mod event;
pub mod family;
pub mod games;
pub mod hub;
#[cfg(test)]
mod layering;
pub mod listener;
pub mod livechess;
pub mod mqtt;
pub mod pipeline;
pub mod port;
pub mod replay;
pub mod session;
pub mod setup;
pub mod sink;
pub mod text;
pub mod tournament;
pub mod wall;
pub mod web;
