//! `boardcast replay` of an open-protocol capture of a draughts or xiangqi
//! board: the open-protocol decoder, the generic reconstructor
//! ([`crate::board::open::AnyOpenBoard`]) in the live daemon's
//! [`OpenPipeline`], the events and the game's own record (PDN, xiangqi
//! PGN).

use std::io::{BufRead, Cursor};
use std::path::Path;

use boardcast_protocols::open::Game;

use crate::board::Config;
use crate::board::open::{AnyOpenBoard, OpenStats};
use crate::capture::{self, CaptureError, Chunk, Direction};
use crate::event::{Event, GameId};
use crate::games::xiangqi::Xiangqi;
use crate::pipeline::open::OpenPipeline;
use crate::replay::ReplayError;
use boardcast_games::xiangqi::repetition::MoveLimit;

/// What an open-protocol replay produced.
#[derive(Debug, Default)]
pub struct OpenReplay {
    /// The game played.
    pub game: GameId,
    /// Every event, in publication order.
    pub events: Vec<Event>,
    /// The games' records, one after the other (PDN or xiangqi PGN).
    pub records: String,
    /// Lines the decoder skipped (unknown or malformed).
    pub skipped_lines: u64,
    /// The capture's last line was cut short and left out: its number.
    pub cut_last_line: Option<usize>,
    /// Counters.
    pub stats: OpenStats,
}

/// Whether the capture at `path` names `protocol=open` on its header line
/// (`false` when it cannot be read: the normal route reports that).
pub fn is_open_capture(path: &Path) -> bool {
    std::fs::File::open(path)
        .ok()
        .and_then(|f| {
            std::io::BufReader::new(f)
                .lines()
                .map_while(Result::ok)
                .find(|l| !l.trim().is_empty())
        })
        .is_some_and(|l| header_words(&l).any(|(k, v)| k == "protocol" && v == "open"))
}

/// The game an open-protocol capture at `path` plays: `game=` on its
/// header, else the board's `hello`, else what its lines fit (`None` when
/// it cannot be read or tells nothing). Chess captures go through the chess
/// pipeline, the others through [`replay_open_file`].
pub fn open_capture_game(path: &Path) -> Option<Game> {
    let text = std::fs::read_to_string(path).ok()?;
    let header = text.lines().find(|l| !l.trim().is_empty())?;
    if let Some((_, g)) = header_words(header).find(|(k, _)| *k == "game") {
        return Game::from_name(g);
    }
    let (_, reader) = capture::Reader::new(Cursor::new(text.as_bytes())).ok()?;
    let chunks: Vec<Chunk> = reader.map_while(Result::ok).collect();
    hello_game(&chunks)
}

fn header_words(line: &str) -> impl Iterator<Item = (&str, &str)> {
    line.split_whitespace().filter_map(|w| w.split_once('='))
}

/// Replays an open-protocol capture file.
pub fn replay_open_file(path: &Path, config: Config) -> Result<OpenReplay, ReplayError> {
    let text = std::fs::read_to_string(path).map_err(|source| ReplayError::Open {
        path: path.to_owned(),
        source,
    })?;
    replay_open_text(&text, config, path)
}

/// Replays an open-protocol capture held in `text`; `path` names it in
/// errors.
pub fn replay_open_text(
    text: &str,
    config: Config,
    path: &Path,
) -> Result<OpenReplay, ReplayError> {
    let wrap = |source| ReplayError::Capture {
        path: path.to_owned(),
        source,
    };
    // Design: the capture reader (src/capture.rs) knows the DGT protocol
    // only; its line format is the same for every protocol, so the header
    // is read here and handed to it as a DGT header on the same line, which
    // keeps its line numbers in errors.
    let header_at = text
        .lines()
        .position(|l| !l.trim().is_empty())
        .ok_or_else(|| wrap(CaptureError::MissingHeader { line: 1 }))?;
    let header = text.lines().nth(header_at).unwrap_or("");
    if !header
        .split_whitespace()
        .take(4)
        .eq(["#", "boardcast", "capture", "v1"])
    {
        return Err(wrap(CaptureError::MissingHeader {
            line: header_at + 1,
        }));
    }
    let meta: Vec<(String, String)> = header_words(header)
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
    let word = |key: &str| meta.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
    if let Some(protocol) = word("protocol").filter(|p| p != "open") {
        return replay_family(text, &protocol, &meta, config, path);
    }
    let rest_at = text
        .match_indices('\n')
        .nth(header_at)
        .map_or(text.len(), |(i, _)| i);
    let shown = format!(
        "{}# boardcast capture v1 protocol=dgt{}",
        "\n".repeat(header_at),
        &text[rest_at..]
    );
    let (_, mut reader) = capture::Reader::new(Cursor::new(shown)).map_err(wrap)?;
    let mut chunks = Vec::new();
    for chunk in reader.by_ref() {
        chunks.push(chunk.map_err(wrap)?);
    }
    let game = match word("game") {
        Some(name) => Game::from_name(&name),
        None => hello_game(&chunks),
    };
    let board = word("board").unwrap_or_else(|| "1".into());
    // The event's move limit (xiangqi Art. 6: the event fixes it), as the
    // recorder writes it from the configuration: `move_limit=60/6`, `none`.
    let limit = match word("move_limit") {
        Some(text) => Some(text.parse::<MoveLimit>().map_err(|e| {
            wrap(CaptureError::Malformed {
                line: header_at + 1,
                reason: format!("move_limit: {e}"),
            })
        })?),
        None => None,
    };
    let mut out = match game {
        Some(Game::Draughts) => drive(
            &chunks,
            AnyOpenBoard::new(board, config, GameId::Draughts).expect("not chess"),
        ),
        Some(Game::Xiangqi) => {
            let rules = Xiangqi {
                limit: limit.unwrap_or_default(),
            };
            drive(&chunks, AnyOpenBoard::xiangqi(board, config, rules))
        }
        other => {
            return Err(wrap(CaptureError::Malformed {
                line: header_at + 1,
                reason: match other {
                    Some(g) => format!(
                        "open-protocol replay follows draughts and xiangqi; this board plays {g}"
                    ),
                    None => {
                        "no `hello <game>` line and no `game=` on the header: which game?".into()
                    }
                },
            }));
        }
    };
    out.cut_last_line = reader.cut_last_line();
    Ok(out)
}

/// Whether the capture at `path` is one for [`replay_open_file`]: an
/// open-protocol capture of a game other than chess, or a vendor family's
/// capture whose header names such a game (`game=draughts`).
pub fn is_game_capture(path: &Path) -> bool {
    if is_open_capture(path) {
        return open_capture_game(path) != Some(Game::Chess);
    }
    std::fs::File::open(path)
        .ok()
        .and_then(|f| {
            std::io::BufReader::new(f)
                .lines()
                .map_while(Result::ok)
                .find(|l| !l.trim().is_empty())
        })
        .is_some_and(|l| {
            header_words(&l).any(|(k, v)| k == "game" && matches!(v, "draughts" | "xiangqi"))
        })
}

/// A vendor family's capture of a draughts board (`game=draughts` on the
/// header): the family's driver reads the squares' occupancy (a Certabo
/// board in occupancy mode with `occupancy=yes`, Millennium, DGT), and the
/// draughts reconstructor follows the 32 playing squares.
fn replay_family(
    text: &str,
    protocol: &str,
    meta: &[(String, String)],
    config: Config,
    path: &Path,
) -> Result<OpenReplay, ReplayError> {
    use crate::family::{DriverEvent, DriverOptions, Family, for_family};
    let wrap = |source| ReplayError::Capture {
        path: path.to_owned(),
        source,
    };
    let word = |key: &str| meta.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str());
    let game = word("game").and_then(Game::from_name);
    let family: Option<Family> = protocol.parse().ok();
    let (Some(Game::Draughts), Some(family @ (Family::Certabo | Family::Millennium | Family::Dgt))) =
        (game, family)
    else {
        return Err(wrap(CaptureError::Malformed {
            line: 1,
            reason: format!(
                "a {protocol} capture is replayed as chess, or as draughts with `game=draughts` (this one says game={})",
                word("game").unwrap_or("nothing")
            ),
        }));
    };
    let (_, mut reader) = capture::Reader::new(Cursor::new(text.as_bytes())).map_err(wrap)?;
    let mut chunks = Vec::new();
    for chunk in reader.by_ref() {
        chunks.push(chunk.map_err(wrap)?);
    }
    let options = DriverOptions {
        certabo_occupancy: word("occupancy") == Some("yes"),
        ..DriverOptions::default()
    };
    let mut driver = for_family(family, &options);
    let board = word("board").unwrap_or("1").to_owned();
    let mut open = AnyOpenBoard::new(board, config, GameId::Draughts).expect("not chess");
    let mut events = Vec::new();
    let mut out = Vec::new();
    let mut dropped = 0;
    for chunk in &chunks {
        open.advance_to(chunk.t_ms);
        if chunk.dir == Direction::ToBoard {
            continue;
        }
        driver.feed(chunk.t_ms, &chunk.bytes, &mut out);
        for e in out.drain(..) {
            match e {
                DriverEvent::Reading { unit: 0, reading } => {
                    open.handle_reading(chunk.t_ms, &reading)
                }
                DriverEvent::Dropped { reason, .. } => {
                    dropped += 1;
                    tracing::debug!(%reason, "input dropped");
                }
                _ => {}
            }
        }
        while let Some(e) = open.poll_event() {
            events.push(e);
        }
    }
    open.finish();
    while let Some(e) = open.poll_event() {
        events.push(e);
    }
    Ok(OpenReplay {
        game: GameId::Draughts,
        events,
        records: open.records(),
        skipped_lines: dropped,
        cut_last_line: reader.cut_last_line(),
        stats: open.stats(),
    })
}

/// The game named by the first `hello` line the board sent, else the one
/// its lines fit.
fn hello_game(chunks: &[Chunk]) -> Option<Game> {
    let bytes: Vec<u8> = chunks
        .iter()
        .filter(|c| c.dir == Direction::FromBoard)
        .flat_map(|c| c.bytes.iter().copied())
        .collect();
    let text = String::from_utf8_lossy(&bytes);
    let hello = text.lines().find_map(|l| {
        let mut w = l.split_whitespace();
        (w.next() == Some("hello"))
            .then(|| w.next().and_then(Game::from_name))
            .flatten()
    });
    // Design: without a `hello` (a board whose first line was lost) the
    // lines themselves tell: a 90-cell `board` line or a point on file `i`
    // or rank 0 is xiangqi, anything else draughts (chess boards are not
    // routed here).
    hello.or_else(|| {
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
        // Chess pieces other than a king (draughts has men and kings
        // only): a chess board.
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
            Game::Xiangqi
        } else if chess {
            Game::Chess
        } else {
            Game::Draughts
        })
    })
}

fn drive(chunks: &[Chunk], open: AnyOpenBoard) -> OpenReplay {
    let id = open.game();
    // The live daemon's pipeline for such a board (src/pipeline/open.rs),
    // driven with the capture's times.
    let mut open = OpenPipeline::for_board(open);
    let mut events = Vec::new();
    for chunk in chunks {
        open.handle_bytes(chunk.t_ms, chunk.dir, &chunk.bytes);
        while let Some(d) = open.poll_diagnostic() {
            tracing::debug!(diagnostic = ?d, "open protocol");
        }
        while let Some(e) = open.poll_event() {
            events.push(e);
        }
    }
    open.finish();
    while let Some(e) = open.poll_event() {
        events.push(e);
    }
    OpenReplay {
        game: id,
        events,
        records: open.records(),
        skipped_lines: open.skipped_lines(),
        cut_last_line: None,
        stats: open.stats(),
    }
}
