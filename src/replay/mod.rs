//! `boardcast replay`: a capture through the live pipeline, with time taken
//! from the capture. One route for every family and every game: the
//! capture's header declares the board ([`crate::setup::BoardSetup`]), as
//! the configuration does live, and the same [`BoardPipeline`] reads it.

pub mod slice;

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use crate::capture::RESUMED_FROM;
use crate::capture::{self, CaptureError, Chunk, Direction};
use crate::event::{Event, GameId};
use crate::family::Family;
use crate::pipeline::{BoardPipeline, Diagnostic, PipelineStats};
use crate::setup::GAME;
use crate::sink::record::GameLog;
use crate::track::Config;

/// How many captures a chain of resumed sessions may hold.
pub const MAX_CHAIN: usize = 256;

/// Why a replay failed.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The capture could not be opened.
    #[error("{path}: {error}")]
    Open {
        /// The file.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// The capture is malformed.
    #[error("{path}: {error}")]
    Capture {
        /// The file.
        path: PathBuf,
        /// What and where.
        error: CaptureError,
    },
}

/// What a replay produced.
#[derive(Debug, Default)]
pub struct Replay {
    /// Every event, in publication order, with the capture time at which it
    /// was published (after its settle time, say).
    pub events: Vec<(u64, Event)>,
    /// The games as published.
    pub log: GameLog,
    /// Stream diagnostics (garbage skipped, bad frames).
    pub diagnostics: Vec<Diagnostic>,
    /// The capture's last line was cut short (a crash or a full disk while
    /// recording) and left out: its number.
    pub cut_last_line: Option<usize>,
    /// The captures this one resumed (header word `resumed_from`), oldest
    /// first: their games are in `log`, their events are not in `events`
    /// (the earlier sessions published them).
    pub resumed_from: Vec<PathBuf>,
    /// The capture this one resumed, when it is missing (its moves are not
    /// in `log`).
    pub missing_prefix: Option<PathBuf>,
    /// Counters.
    pub stats: PipelineStats,
    /// Reconstructor counters.
    pub recon: crate::track::Stats,
    /// The game played on the board.
    pub game: GameId,
}

impl Replay {
    /// The games' records, one after the other, each in its game's own
    /// format with no roster tags: PGN for chess ([`crate::sink::pgn::render`]),
    /// PDN for draughts, xiangqi's PGN ([`crate::sink::pgn::record_text`]).
    pub fn records(&self) -> String {
        let tags = crate::sink::pgn::Tags::default();
        self.log
            .games()
            .iter()
            .filter_map(|game| match game.game {
                GameId::Chess => Some(crate::sink::pgn::render(game, &tags)),
                _ => crate::sink::pgn::record_text(game),
            })
            .collect()
    }
}

/// A replay seen as what the board published: its events and its games'
/// records, whatever the game (what the games' tests and benches
/// compare).
#[derive(Debug, Default)]
pub struct Played {
    /// The game played.
    pub game: GameId,
    /// Every event, in publication order.
    pub events: Vec<Event>,
    /// The games' records, one after the other (see [`Replay::records`]).
    pub records: String,
    /// The capture's last line was cut short and left out: its number.
    pub cut_last_line: Option<usize>,
    /// Counters (`bad_frames`: lines or frames the driver dropped, unknown
    /// or malformed).
    pub stats: PipelineStats,
}

impl From<Replay> for Played {
    fn from(r: Replay) -> Played {
        Played {
            game: r.game,
            records: r.records(),
            cut_last_line: r.cut_last_line,
            stats: r.stats,
            events: r.events.into_iter().map(|(_, e)| e).collect(),
        }
    }
}

/// Replays a capture held in `text` as a [`Played`]; `path` names it
/// in errors.
pub fn replay_game_text(text: &str, config: Config, path: &Path) -> Result<Played, ReplayError> {
    replay_reader(text.as_bytes(), config, path).map(Played::from)
}

/// Replays a capture file as a [`Played`].
pub fn replay_game_file(path: &Path, config: Config) -> Result<Played, ReplayError> {
    replay_file(path, config).map(Played::from)
}

/// Replays a capture file.
pub fn replay_file(path: &Path, config: Config) -> Result<Replay, ReplayError> {
    let file = File::open(path).map_err(|source| ReplayError::Open {
        path: path.to_owned(),
        error: source,
    })?;
    replay_reader(BufReader::new(file), config, path)
}

/// The capture header key naming a DGT bus board's address.
pub use crate::setup::BUS_UNIT;

/// Replays a capture from any reader; `path` names it in errors.
pub fn replay_reader(
    input: impl BufRead,
    config: Config,
    path: &Path,
) -> Result<Replay, ReplayError> {
    let wrap = |source| ReplayError::Capture {
        path: path.to_owned(),
        error: source,
    };
    let (mut header, mut reader) = capture::Reader::new(input).map_err(wrap)?;
    let mut ahead: Vec<Chunk> = Vec::new();
    resolve_header(&mut header, &mut reader, &mut ahead).map_err(wrap)?;
    let setup = crate::setup::BoardSetup::of_header(&header).map_err(|e| ReplayError::Capture {
        path: path.to_owned(),
        error: CaptureError::Malformed {
            line: 1,
            reason: e.to_string(),
        },
    })?;
    let mut pipeline = BoardPipeline::new(&setup, config);
    let meta = |key: &str| header.word(key).map(str::to_string);
    let mut out = Replay::default();
    if let Some(prev) = meta(RESUMED_FROM).map(|p| sibling(path, &p))
        && !prev.exists()
    {
        out.missing_prefix = Some(prev);
    } else if let Some(prev) = meta(RESUMED_FROM) {
        let prev = sibling(path, &prev);
        let mut log = GameLog::new();
        out.resumed_from = feed_chain(&mut pipeline, &prev, &mut |_, e| log.handle(&e))?;
        out.log = log;
    }
    // A capture slice (`boardcast replay --evidence`) begins with a game
    // in progress, named on its header line.
    let malformed = |reason| ReplayError::Capture {
        path: path.to_owned(),
        error: CaptureError::Malformed { line: 1, reason },
    };
    if let Some(game) =
        crate::setup::GameRecordWords::of_header(&header).map_err(|e| malformed(e.to_string()))?
    {
        pipeline
            .take_up(game.at, &game.start, &game.moves, game.rotated)
            .map_err(|e| malformed(format!("`start=`/`moves=`: {e}")))?;
        collect(&mut pipeline, &mut out);
    }
    for chunk in ahead.into_iter().map(Ok).chain(reader.by_ref()) {
        let chunk = chunk.map_err(wrap)?;
        pipeline.handle_bytes(chunk.t_ms, chunk.dir, &chunk.bytes);
        collect(&mut pipeline, &mut out);
    }
    out.cut_last_line = reader.cut_last_line();
    pipeline.finish();
    collect(&mut pipeline, &mut out);
    out.stats = pipeline.stats();
    out.recon = pipeline.any_game().recon_stats();
    out.game = pipeline.game();
    Ok(out)
}

/// Completes a capture's header from its first chunks, read ahead into
/// `ahead`: a DGT line that is a bus, the bus board's `unit=`, an
/// open-protocol board's game.
pub(crate) fn resolve_header(
    header: &mut capture::Header,
    reader: &mut impl Iterator<Item = Result<Chunk, CaptureError>>,
    ahead: &mut Vec<Chunk>,
) -> Result<(), CaptureError> {
    // Design: interface.md's example header says `protocol=dgt`, so another
    // program may label a DGT bus line `dgt`; its first replies tell (bus
    // replies carry an address and a checksum that single-board frames
    // almost never match).
    if header.protocol == crate::family::Family::Dgt {
        let mut from_board = 0;
        while from_board < SNIFF_CHUNKS {
            match reader.next() {
                Some(Ok(chunk)) => {
                    from_board += usize::from(chunk.dir == crate::capture::Direction::FromBoard);
                    ahead.push(chunk);
                }
                Some(Err(e)) => return Err(e),
                None => break,
            }
        }
        if header.word(BUS_UNIT).is_some() || crate::family::is_dgt_bus_line(board_bytes(ahead)) {
            header.protocol = crate::family::Family::DgtBus;
        }
    }
    // A DGT bus capture holds the whole line: `unit=` names the board.
    // Without it, a line on which one board answers is that board's; the
    // chunks are read ahead to find out.
    if header.protocol == crate::family::Family::DgtBus && header.word(BUS_UNIT).is_none() {
        for chunk in &mut *reader {
            ahead.push(chunk?);
        }
        if let [one] = crate::family::dgt_bus_units(board_bytes(ahead))[..] {
            header.meta.push((BUS_UNIT.to_string(), one.to_string()));
        }
    }
    // An open-protocol capture without `game=` plays the game its board's
    // `hello` names, else the one its lines fit.
    if header.protocol == Family::Open && header.word(GAME).is_none() {
        for chunk in &mut *reader {
            ahead.push(chunk?);
        }
        let bytes: Vec<u8> = board_bytes(ahead).flatten().copied().collect();
        if let Some(game) = crate::family::open_board_game(&bytes) {
            header
                .meta
                .push((GAME.to_string(), game.name().to_string()));
        }
    }
    Ok(())
}

/// The bytes from the board in `chunks`, chunk by chunk.
fn board_bytes(chunks: &[Chunk]) -> impl Iterator<Item = &[u8]> + '_ {
    chunks
        .iter()
        .filter(|c| c.dir == Direction::FromBoard)
        .map(|c| &c.bytes[..])
}

/// How many chunks from the board a `protocol=dgt` capture is read ahead
/// to tell a single board from a bus line.
const SNIFF_CHUNKS: usize = 64;

fn collect(pipeline: &mut BoardPipeline, out: &mut Replay) {
    while let Some((published, e)) = pipeline.poll_published() {
        out.log.handle(&e);
        out.events.push((published, e));
    }
    while let Some(d) = pipeline.poll_diagnostic() {
        out.diagnostics.push(d);
    }
}

/// The file `name` in the folder of `capture` (only a file name is taken:
/// a header cannot point outside the folder).
fn sibling(capture: &Path, name: &str) -> PathBuf {
    let file = Path::new(name)
        .file_name()
        .map_or_else(|| name.into(), |n| n.to_os_string());
    capture.parent().unwrap_or(Path::new(".")).join(file)
}

/// Feeds `capture` into `pipeline` after the captures it resumes (its
/// `resumed_from=` header word, followed back), each one followed by
/// [`BoardPipeline::finish`]: the state a session that resumed `capture`
/// starts from. Every event goes to `on_event` with its publication time.
/// Returns the captures fed, oldest first.
///
/// A capture named by `resumed_from` that is missing ends the chain there
/// (with a warning): what came before it is lost, the rest replays.
pub fn feed_chain(
    pipeline: &mut BoardPipeline,
    capture: &Path,
    on_event: &mut dyn FnMut(u64, Event),
) -> Result<Vec<PathBuf>, ReplayError> {
    // Follow the chain back first.
    let mut chain = vec![capture.to_path_buf()];
    while chain.len() < MAX_CHAIN {
        let last = chain.last().expect("non-empty");
        let file = File::open(last).map_err(|source| ReplayError::Open {
            path: last.clone(),
            error: source,
        })?;
        let (header, _) =
            capture::Reader::new(BufReader::new(file)).map_err(|source| ReplayError::Capture {
                path: last.clone(),
                error: source,
            })?;
        let Some(prev) = header.word(RESUMED_FROM) else {
            break;
        };
        let prev = sibling(last, prev);
        if chain.contains(&prev) {
            tracing::warn!(capture = %last.display(), "resumed_from loops; chain cut");
            break;
        }
        if !prev.exists() {
            tracing::warn!(capture = %last.display(), missing = %prev.display(), "resumed capture missing; earlier moves are lost");
            break;
        }
        chain.push(prev);
    }
    chain.reverse();
    for path in &chain {
        let file = File::open(path).map_err(|source| ReplayError::Open {
            path: path.clone(),
            error: source,
        })?;
        let wrap = |source| ReplayError::Capture {
            path: path.clone(),
            error: source,
        };
        let (_, mut reader) = capture::Reader::new(BufReader::new(file)).map_err(wrap)?;
        for chunk in reader.by_ref() {
            let chunk = chunk.map_err(wrap)?;
            pipeline.handle_bytes(chunk.t_ms, chunk.dir, &chunk.bytes);
            while let Some((t, e)) = pipeline.poll_published() {
                on_event(t, e);
            }
        }
        if let Some(line) = reader.cut_last_line() {
            tracing::warn!(capture = %path.display(), line, "the capture's last line was cut short (a crash or a full disk while recording): left out, everything before it taken up");
        }
        pipeline.finish_unseen();
        while let Some((t, e)) = pipeline.poll_published() {
            on_event(t, e);
        }
        while pipeline.poll_diagnostic().is_some() {}
    }
    Ok(chain)
}

#[cfg(test)]
mod tests {
    use super::*;
    use boardcast_protocols::dgt::bus::{BusBody, BusMessage};

    /// A bus line capture: two boards' whole boards (the start position on
    /// board 7, an empty board on board 9), then board 7's e2-e4.
    fn bus_capture(unit: Option<u16>) -> String {
        // A board's squares as FEN letters from a8 on, as DGT counts its
        // fields ('.' for an empty one).
        let dump = |address: u16, letters: &str| {
            use boardcast_protocols::dgt::PieceCode;
            let mut codes = [PieceCode::Empty; 64];
            for (code, letter) in codes.iter_mut().zip(letters.chars()) {
                *code = PieceCode::from_fen_char(letter).unwrap_or(PieceCode::Empty);
            }
            BusMessage {
                address,
                body: BusBody::BoardDump(Box::new(codes)),
            }
            .to_bytes()
        };
        let start = "rnbqkbnrpppppppp................................PPPPPPPPRNBQKBNR";
        let change = |field: u8, piece| boardcast_protocols::dgt::EeRecord::PieceChange {
            field: boardcast_protocols::dgt::Field::new(field).unwrap(),
            piece,
            rapid: false,
        };
        let e4 = BusMessage {
            address: 7,
            body: BusBody::Changes(vec![
                change(52, boardcast_protocols::dgt::PieceCode::Empty),
                change(36, boardcast_protocols::dgt::PieceCode::WhitePawn),
            ]),
        }
        .to_bytes();
        let hex = |b: &[u8]| {
            b.iter()
                .map(|x| format!("{x:02x}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let unit = unit.map(|u| format!(" unit={u}")).unwrap_or_default();
        format!(
            "# boardcast capture v1 protocol=dgt-bus board=b{unit}\n\
             0 < {}\n10 < {}\n5000 < {}\n",
            hex(&dump(7, start)),
            hex(&dump(9, &".".repeat(64))),
            hex(&e4)
        )
    }

    #[test]
    fn a_bus_capture_replays_the_board_its_header_names() {
        let path = Path::new("bus.capture");
        let seven =
            replay_reader(bus_capture(Some(7)).as_bytes(), Config::default(), path).unwrap();
        assert_eq!(seven.log.current().unwrap().sans, ["e4"]);
        // Board 9's empty board is not board 7's business, nor 7's move 9's.
        let nine = replay_reader(bus_capture(Some(9)).as_bytes(), Config::default(), path).unwrap();
        assert!(nine.log.current().is_none());
        // Without `unit=`, a line with two boards is refused...
        let err = replay_reader(bus_capture(None).as_bytes(), Config::default(), path)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("names its board's address (`unit=N`)"),
            "{err}"
        );
        // ...and a line with one board is that board's.
        let alone: String = bus_capture(None)
            .lines()
            .filter(|l| !l.starts_with("10 <"))
            .map(|l| format!("{l}\n"))
            .collect();
        let seven = replay_reader(alone.as_bytes(), Config::default(), path).unwrap();
        assert_eq!(seven.log.current().unwrap().sans, ["e4"]);
        // A bus line labelled `dgt` (interface.md's example header) is read
        // as the bus line it is.
        let labelled = alone.replacen("protocol=dgt-bus", "protocol=dgt", 1);
        let seven = replay_reader(labelled.as_bytes(), Config::default(), path).unwrap();
        assert_eq!(seven.log.current().unwrap().sans, ["e4"]);
        let labelled = bus_capture(Some(9)).replacen("protocol=dgt-bus", "protocol=dgt", 1);
        let nine = replay_reader(labelled.as_bytes(), Config::default(), path).unwrap();
        assert!(nine.log.current().is_none());
    }
}
