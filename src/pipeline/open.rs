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
        Some(OpenPipeline::for_board(AnyOpenBoard::new(
            board, config, game,
        )?))
    }

    /// The pipeline of `board`, made with its event's rules (for example
    /// [`AnyOpenBoard::xiangqi`] with the event's move limit).
    pub fn for_board(board: AnyOpenBoard) -> OpenPipeline {
        let game = board.game();
        let wire = wire_game(game);
        OpenPipeline {
            game,
            decoder: Decoder::with_game(wire, wire.default_geometry()),
            buf: BytesMut::new(),
            board,
            diagnostics: VecDeque::new(),
            skipped: 0,
        }
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
                            let wire = wire_game(self.game);
                            if h.game != Game::Any && h.game != wire {
                                self.diagnostics.push_back(Diagnostic::OtherGame {
                                    t_ms: t,
                                    said: h.game.to_string(),
                                    read_as: self.game,
                                });
                                // Design: the configuration decides (see
                                // `config::board_game`): the decoder took
                                // the hello's game and board size, and is
                                // set back to the configured game's.
                                self.decoder = Decoder::with_game(wire, wire.default_geometry());
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::EventKind;

    /// The draughts start position as a `board` line: ranks 8 down to 1,
    /// men on the dark squares (a1 dark), the first player's (`M`) on
    /// ranks 1-3.
    fn draughts_start() -> String {
        let mut cells = String::new();
        for rank in (0..8).rev() {
            for file in 0..8 {
                let dark = (file + rank) % 2 == 0;
                cells.push(match (dark, rank) {
                    (true, 0..=2) => 'M',
                    (true, 5..=7) => 'm',
                    _ => '.',
                });
            }
        }
        format!("board {cells}\n")
    }

    #[test]
    fn a_hello_naming_another_game_is_reported_and_the_board_read_as_configured() {
        let mut p = OpenPipeline::new("d", Config::default(), GameId::Draughts).unwrap();
        assert!(OpenPipeline::new("c", Config::default(), GameId::Chess).is_none());
        p.handle_bytes(0, Direction::ToBoard, b"?\nboard?\n");
        p.handle_bytes(5, Direction::FromBoard, b"hello xiangqi 9x10 id=Q-1\n");
        p.handle_bytes(9, Direction::FromBoard, draughts_start().as_bytes());
        p.finish();
        let diagnostics: Vec<Diagnostic> = std::iter::from_fn(|| p.poll_diagnostic()).collect();
        assert!(
            matches!(&diagnostics[0], Diagnostic::OtherGame { said, read_as: GameId::Draughts, .. } if said == "xiangqi"),
            "{diagnostics:?}"
        );
        assert!(
            matches!(&diagnostics[1], Diagnostic::Serial { serial, .. } if serial == "Q-1"),
            "{diagnostics:?}"
        );
        assert_eq!(p.skipped_lines(), 0, "the 64-cell board line is read");
        let events: Vec<Event> = std::iter::from_fn(|| p.poll_event()).collect();
        assert!(
            events.iter().any(
                |e| e.game == GameId::Draughts && matches!(e.kind, EventKind::GameStart { .. })
            ),
            "{events:?}"
        );
    }
}
