//! The open protocol: text lines, any board, 115200 8N1.

use boardcast_protocols::open::{Decoder, Game, HostLine, Line};
use boardcast_protocols::reading::{Reading, SnapshotDiff};
use bytes::BytesMut;

use super::{Driver, DriverEvent, Family, LineSettings, dropped, push_snapshot};
use crate::event::GameId;

/// How often a `board?` resynchronises the host.
const RESYNC_MS: u64 = 10_000;

/// The driver for an open-protocol board.
///
/// Hello: `?` then `board?`. Keepalive: `board?` every 10 s, which also
/// resynchronises after a skipped line. `board` lines go through a snapshot
/// diff (and `up`/`down` update the diff's copy, so a later `board` line
/// reports only what the events did not). `hello` gives the board's
/// identity; `#` diagnostics are not readings and produce no event.
#[derive(Debug)]
pub struct OpenDriver {
    decoder: Decoder,
    /// The game the board is read as, whatever its `hello` says.
    pinned: Option<Game>,
    buf: BytesMut,
    diff: SnapshotDiff,
    next_resync: u64,
}

impl Default for OpenDriver {
    fn default() -> OpenDriver {
        OpenDriver::new()
    }
}

impl OpenDriver {
    /// A driver assuming chess on 8 × 8 until the board's `hello`.
    pub fn new() -> OpenDriver {
        OpenDriver {
            decoder: Decoder::new(),
            pinned: None,
            buf: BytesMut::new(),
            diff: SnapshotDiff::new(),
            next_resync: 0,
        }
    }

    /// A driver reading the board as `game` (its grid and piece letters):
    /// a `hello` naming another game is reported
    /// ([`DriverEvent::OtherGame`]) and the board still read as `game`.
    ///
    /// Design: the configuration decides (see `config::board_game`): the
    /// daemon must know how to read a board before it says anything.
    pub fn for_game(game: Game) -> OpenDriver {
        OpenDriver {
            decoder: Decoder::with_game(game, game.default_geometry()),
            pinned: Some(game),
            ..OpenDriver::new()
        }
    }

    /// The decoder (game and geometry in force, counters).
    pub fn decoder(&self) -> &Decoder {
        &self.decoder
    }
}

impl Driver for OpenDriver {
    fn pending(&self) -> usize {
        self.buf.len()
    }

    fn family(&self) -> Family {
        Family::Open
    }

    fn line(&self) -> LineSettings {
        LineSettings::eight_n_one(115_200)
    }

    fn reopen(&mut self) {
        self.buf.clear();
        self.diff.reset();
    }

    fn hello(&mut self, now_ms: u64) -> Vec<u8> {
        self.next_resync = now_ms + RESYNC_MS;
        [HostLine::Hello.to_bytes(), HostLine::Board.to_bytes()].concat()
    }

    fn tick_ms(&self) -> u64 {
        RESYNC_MS
    }

    fn poll(&mut self, now_ms: u64, _out: &mut Vec<DriverEvent>) -> Vec<u8> {
        if now_ms < self.next_resync {
            return Vec::new();
        }
        self.next_resync = now_ms + RESYNC_MS;
        HostLine::Board.to_bytes().to_vec()
    }

    fn feed(&mut self, _now_ms: u64, bytes: &[u8], out: &mut Vec<DriverEvent>) {
        self.buf.extend_from_slice(bytes);
        loop {
            match self.decoder.decode(&mut self.buf) {
                Ok(None) => break,
                Ok(Some(Line::Board(snapshot))) => push_snapshot(&mut self.diff, 0, snapshot, out),
                Ok(Some(line)) => {
                    if let (Line::Hello(h), Some(pinned)) = (&line, self.pinned)
                        && h.game != Game::Any
                        && h.game != pinned
                    {
                        // The decoder took the hello's game and grid: set
                        // back to the configured game's.
                        self.decoder = Decoder::with_game(pinned, pinned.default_geometry());
                        out.push(DriverEvent::OtherGame {
                            said: h.game.to_string(),
                        });
                    }
                    if let Line::Diagnostic(text) = &line {
                        tracing::debug!(%text, "board diagnostic");
                    }
                    if let Some(reading) = line.reading() {
                        if let Reading::Square(change) = reading {
                            self.diff.apply(change);
                        }
                        out.push(DriverEvent::Reading { unit: 0, reading });
                    }
                }
                Err(e) => out.push(dropped(&e)),
            }
        }
    }
}

/// The game an open-protocol board plays, from the bytes it sent
/// (`from_board`): the one its first `hello` names, else the one its lines
/// fit (`None`: they tell nothing). A capture without `game=` is read so.
pub fn board_game(from_board: &[u8]) -> Option<GameId> {
    let text = String::from_utf8_lossy(from_board);
    let hello = text.lines().find_map(|l| {
        let mut w = l.split_whitespace();
        (w.next() == Some("hello"))
            .then(|| w.next().and_then(Game::from_name))
            .flatten()
    });
    let game = match hello {
        Some(Game::Draughts) => GameId::Draughts,
        Some(Game::Xiangqi) => GameId::Xiangqi,
        Some(_) => GameId::Chess,
        None => fits(&text)?,
    };
    Some(game)
}

/// The game an open-protocol board's lines fit, without a `hello` (a board
/// whose first line was lost).
///
/// Design: a 90-cell `board` line or a point on file `i` or rank 0 is
/// xiangqi; chess pieces other than a king (draughts has men and kings
/// only) are chess; anything else draughts.
fn fits(text: &str) -> Option<GameId> {
    let xiangqi = text.lines().any(|l| {
        let mut w = l.split_whitespace();
        match (w.next(), w.next()) {
            (Some("board"), Some(cells)) => cells.len() == 90,
            (Some("up" | "down"), Some(sq)) => {
                sq.starts_with('i') || (sq.len() == 2 && sq.ends_with('0'))
            }
            _ => false,
        }
    });
    let any = text
        .lines()
        .any(|l| l.starts_with("up ") || l.starts_with("down ") || l.starts_with("board "));
    let chess = text.lines().any(|l| {
        let mut w = l.split_whitespace();
        match (w.next(), w.next(), w.next()) {
            (Some("down"), Some(_), Some(p)) => "QRBNPqrbnp".contains(p),
            (Some("board"), Some(cells), None) => {
                cells.len() == 64 && cells.chars().any(|c| "QRBNPqrbnp".contains(c))
            }
            _ => false,
        }
    });
    any.then_some(if xiangqi {
        GameId::Xiangqi
    } else if chess {
        GameId::Chess
    } else {
        GameId::Draughts
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use boardcast_protocols::reading::{Content, Geometry, Square, SquareChange};

    #[test]
    fn a_xiangqi_board_session() {
        let mut d = OpenDriver::new();
        assert_eq!(d.hello(0), b"?\nboard?\n");
        assert_eq!(d.line().to_string(), "115200 8N1");
        let mut out = Vec::new();
        let board = "rnbakabnr..........c.....c.p.p.p.p.p..................P.P.P.P.P.C.....C..........RNBAKABNR";
        let text = format!(
            "hello xiangqi 9x10 id=XQ-1\r\nboard {board}\r\nup h2\r\ndown e2 C\r\nnonsense\r\nboard {}\r\n",
            board.replacen(".C.....C.", ".C..C....", 1)
        );
        d.feed(5, text.as_bytes(), &mut out);
        assert_eq!(d.decoder().game(), Game::Xiangqi);
        assert_eq!(d.decoder().geometry(), Geometry::XIANGQI);
        assert!(
            matches!(&out[0], DriverEvent::Reading { reading: Reading::Identity(i), .. } if i.serial.as_deref() == Some("XQ-1"))
        );
        assert!(matches!(
            &out[1],
            DriverEvent::Reading {
                reading: Reading::Snapshot(_),
                ..
            }
        ));
        assert_eq!(
            out[2],
            DriverEvent::Reading {
                unit: 0,
                reading: Reading::Square(SquareChange {
                    square: Square::new(7, 2),
                    content: Content::Empty
                })
            }
        );
        assert!(matches!(out[4], DriverEvent::Dropped { .. }));
        // The later board line agrees with the events: nothing new.
        assert_eq!(out.len(), 5, "{out:?}");
        let mut none = Vec::new();
        assert_eq!(d.poll(10_000, &mut none), b"board?\n");
    }
}
