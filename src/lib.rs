//! boardcast: electronic chess boards to live broadcasts and arbiters.
//!
//! # Layout
//!
//! The data path of one board, top to bottom, and the module that owns
//! each step:
//!
//! ```text
//!  serial line / capture file        port (PortTask over any driver), capture, replay
//!          | bytes + time
//!  family driver, protocol decoder   family, boardcast-protocols
//!          | neutral readings (squares, snapshots, clock, identity, memory)
//!  pipeline -> reconstructor         pipeline, track, games, clock
//!          | events                  event
//!  session: record, state, delay     session (Session, BoardSink), setup (BoardSetup)
//!          | events, state, PGN
//!  sinks                             mqtt, web, livechess, sink (records, PGN folder)
//! ```
//!
//! Edges (tokio) at the top and bottom, a pure core in between. Imports go
//! down this list and never back up: no top-level module imports one that
//! imports it (checked by a unit test, `layering`).
//!
//! - [`port`]: serial I/O only: one task per line ([`port::PortTask`]),
//!   whatever its family (a DGT bus line is the same task with the bus
//!   driver and one unit per board): find, open, hello, identify, keepalive,
//!   read, record, reconnect. It drives [`session::Session`]s and knows no
//!   sink. A line is a serial port (`/dev/ttyUSB0`, `COM5`) or, for a
//!   board simulated in the same process, an in-process line
//!   ([`port::memory`]); [`port::usb`] knows boards by their USB ids.
//! - [`capture`]: capture files, the byte-exact record of a board session.
//! - [`setup`]: what a board is, from the config or a capture header;
//!   [`pipeline::BoardPipeline::new`] builds every board's pipeline from
//!   it.
//! - [`replay`]: a capture through the same pipeline with capture time;
//!   [`replay::slice`] cuts the evidence behind each alert into a capture
//!   that raises it again.
//! - [`report`]: the round's report for the arbiter (games, results,
//!   error and action alerts with their evidence and decisions).
//! - [`family`]: board families behind one seam: a sans-IO driver per wire
//!   protocol, DGT included (line settings, hello, identity, keepalive,
//!   board memory, bytes to neutral readings), used by the port task and
//!   by the pipeline (so `replay` reads bytes as the daemon does); the
//!   families also tell what a capture header leaves out (a `dgt` line
//!   that is a bus, a bus board, an open board's game).
//! - [`pipeline`]: one board's pure pipeline for every family and every
//!   game, bytes in (through its family's driver), events out: the game
//!   chosen at run time ([`pipeline::AnyGame`]: chess, draughts, xiangqi,
//!   each the same [`pipeline::Reader`] in front of the generic
//!   reconstructor, reading the board as the game's
//!   [`games::sensing::Sensing`] hooks say), the clock judge
//!   (`pipeline/judge.rs`),
//!   counters and diagnostics.
//! - [`track`]: the reconstructor (the tracker), generic over the game:
//!   explains readings as legal play, settles and publishes moves,
//!   corrects, raises the arbiter's alerts; its reading rules are named
//!   steps, the evidence they ask is the playing state's methods.
//! - [`games`]: the game seam: the [`games::Game`] trait the reconstructor
//!   is generic over (with default event builders), cells and tokens,
//!   touches, the arbiter's shared sentences, the game record, and one
//!   module per game; [`games::chess`] is the only user of shakmaty
//!   (legality, notation, outcomes, the FIDE Laws articles, the sensors'
//!   neutral readings as chess, occupancy boards).
//! - [`clock`]: time controls, the clock a board reports, presses and flags.
//! - [`readiness`]: the board check before the round, from the pipeline.
//! - [`event`]: the event type every sink consumes.
//! - [`session`]: one board above its line: the pipeline driven with
//!   daemon time, the game record, the link status, the retained state,
//!   the broadcast delay, operator corrections, the arbiter's decisions
//!   and the board's part of the report ([`session::Records`]); it
//!   publishes (`session/publishing.rs`) through the
//!   [`session::BoardSink`] trait the sinks implement.
//! - [`sink`]: game records folded from events, PGN, the PGN folder relay
//!   tools read (below the session, which writes through them).
//! - [`mqtt`]: the MQTT sink: outbox, command intake, connection task.
//! - [`web`]: the live page for screens and arbiters (HTTP, server-sent
//!   events), fed by the same events as MQTT; the hall screens
//!   (`/screen`) and stream overlays (`/overlay/BOARD`); each stream takes
//!   only the boards its page shows (`web::select`).
//! - [`listener`]: the hardened accept loop every HTTP listener runs.
//! - [`text`]: the checks every input from outside passes (config,
//!   pairings, MQTT messages the hub and the LiveChess follower read).
//! - [`delay`]: the broadcast delay: each board's public view, `delay`
//!   behind the arbiters' live view.
//! - [`desk`]: the operator's desk: the round set up from the browser
//!   (pairing file, round, boards assigned, typed results), kept in the
//!   recorder folder; served by [`web`].
//! - [`lichess`]: the round's public PGN pushed to a lichess broadcast
//!   round (its push endpoint, at most once a second, back-off on 429
//!   and errors); its status shown on the desk.
//! - [`livechess`]: an imitation of DGT LiveChess 2's local API (REST and
//!   WebSocket) for the tools that speak to it.
//! - [`tournament`]: event metadata, players and pairings (CSV, TOML,
//!   FIDE TRF read and written back with the round's results).
//! - [`control`]: operator commands: parsing, signing, verification.
//! - [`config`]: the daemon's TOML configuration, raw and validated: it
//!   puts together the sections, each of which lives beside the component
//!   that reads it (`mqtt::config`, `port::config`, `setup::config`, ...)
//!   and shares [`config_file`] with the others (shared with the hub's).
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
//! draughts and xiangqi rules live in `boardcast-rules` (`rules/`).
//! Everything in this crate except the I/O edges ([`port`], [`daemon`],
//! [`mqtt`], [`web`], [`broker`], [`hub`], [`livechess`], [`lichess`]) is
//! synchronous and takes time as an argument, which is what makes replay
//! exact.

#![warn(missing_docs, unreachable_pub, missing_debug_implementations)]

pub mod backoff;
pub mod broker;
pub mod capture;
pub mod clock;
pub mod config;
pub mod config_file;
pub mod control;
pub mod daemon;
pub mod delay;
pub mod desk;
pub mod event;
pub mod family;
pub mod games;
pub mod hub;
#[cfg(test)]
mod layering;
pub mod lichess;
pub mod listener;
pub mod livechess;
pub mod mqtt;
pub mod pipeline;
pub mod port;
pub mod readiness;
pub mod replay;
pub mod report;
pub mod session;
pub mod setup;
pub mod sink;
pub mod text;
pub mod tournament;
pub mod track;
pub mod wall;
pub mod web;
