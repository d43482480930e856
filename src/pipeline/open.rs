//! The pure pipeline of a draughts or xiangqi board on the open protocol:
//! bytes in, the open-protocol decoder, the generic reconstructor
//! ([`AnyOpenBoard`]), events out.
//!
//! `boardcast run` drives it inside a [`super::BoardPipeline`] (the session
//! and its sinks are the chess boards'); `boardcast replay` drives it
//! straight from a capture ([`crate::replay::open`]). Both hand it the
//! same bytes at the same times, so a live capture replays to the same
//! events.

use std::collections::VecDeque;

use boardcast_protocols::open::{Decoder, Game, Line};
use bytes::BytesMut;

use super::Diagnostic;
use crate::board::Config;
use crate::board::open::{AnyOpenBoard, OpenStats};
use crate::capture::Direction;
use crate::event::{Event, GameId, Millis};

/// One open-protocol board of a game other than chess.
///
/// Driving order as for [`super::BoardPipeline`]: bytes at `t` (timers
/// due by `t` fire first), [`OpenPipeline::advance_to`] when a timer is
/// due, [`OpenPipeline::finish`] at the end; events come out of
/// [`OpenPipeline::poll_event`] in publication order.
#[derive(Debug)]
pub struct OpenPipeline {
    game: GameId,
    decoder: Decoder,
    buf: BytesMut,
    board: AnyOpenBoard,
    diagnostics: VecDeque<Diagnostic>,
    /// Lines the decoder skipped (unknown or malformed).
    skipped: u64,
}

/// The open protocol's name of a game.
fn wire_game(game: GameId) -> Game {
    match game {
        GameId::Chess => Game::Chess,
        GameId::Draughts => Game::Draughts,
        GameId::Xiangqi => Game::Xiangqi,
    }
}

impl OpenPipeline {
    /// Board `board` playing `game` (`None` for chess, which the chess
    /// pipeline reads).
    pub fn new(board: impl Into<String>, config: Config, game: GameId) -> Option<OpenPipeline> {
        let board = AnyOpenBoard::new(board, config, game)?;
        let wire = wire_game(game);
        Some(OpenPipeline {
            game,
            decoder: Decoder::with_game(wire, wire.default_geometry()),
            buf: BytesMut::new(),
            board,
            diagnostics: VecDeque::new(),
            skipped: 0,
        })
    }

    /// The game played.
    pub fn game(&self) -> GameId {
        self.game
    }

    /// The reconstructor's board, for state queries.
    pub fn board(&self) -> &AnyOpenBoard {
        &self.board
    }

    /// Counters.
    pub fn stats(&self) -> OpenStats {
        self.board.stats()
    }

    /// Lines the decoder skipped.
    pub fn skipped_lines(&self) -> u64 {
        self.skipped
    }

    /// The games' records so far (PDN or xiangqi PGN).
    pub fn records(&self) -> String {
        self.board.records()
    }

    /// Bytes seen on the line at `t` (what the host wrote only moves time
    /// on).
    pub fn handle_bytes(&mut self, t: Millis, dir: Direction, bytes: &[u8]) {
        self.board.advance_to(t);
        if dir == Direction::ToBoard {
            return;
        }
        self.buf.extend_from_slice(bytes);
        loop {
            match self.decoder.decode(&mut self.buf) {
                Ok(Some(line)) => {
                    match &line {
                        Line::Hello(h) => {
                            if h.game != Game::Any && h.game != wire_game(self.game) {
                                self.diagnostics.push_back(Diagnostic::OtherGame {
                                    t_ms: t,
                                    said: h.game.to_string(),
                                    read_as: self.game,
                                });
                            }
                            if let Some(serial) = &h.id {
                                self.diagnostics.push_back(Diagnostic::Serial {
                                    t_ms: t,
                                    serial: serial.clone(),
                                });
                            }
                        }
                        Line::Diagnostic(text) => tracing::debug!(%text, "board diagnostic"),
                        _ => {}
                    }
                    self.board.handle_line(t, &line);
                }
                Ok(None) => break,
                Err(e) => {
                    self.skipped += 1;
                    self.diagnostics.push_back(Diagnostic::BadFrame {
                        t_ms: t,
                        reason: e.to_string(),
                    });
                }
            }
        }
    }

    /// When a timer is next due.
    pub fn poll_timeout(&self) -> Option<Millis> {
        self.board.poll_timeout()
    }

    /// Fires every timer due at or before `t`.
    pub fn advance_to(&mut self, t: Millis) {
        self.board.advance_to(t);
    }

    /// Fires every pending timer, however far ahead.
    pub fn finish(&mut self) {
        self.board.finish();
    }

    /// The next event, in publication order.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.board.poll_event()
    }

    /// The next diagnostic (not an event).
    pub fn poll_diagnostic(&mut self) -> Option<Diagnostic> {
        self.diagnostics.pop_front()
    }

    /// The operator sets the game's result.
    pub fn set_result(&mut self, t: Millis, result: &str, reason: &str) {
        self.board.set_result(t, result, reason);
    }

    /// The operator restarts the board's game.
    pub fn restart(&mut self, t: Millis) {
        self.board.restart(t);
    }
}
