//! The evidence behind each alert, as capture slices: `boardcast replay
//! CAPTURE --evidence DIR` writes, for every error or action alert, the
//! readings that raised it as a capture of their own, which `boardcast
//! replay` reads like any other and which raises the same alert.
//!
//! A slice starts where the alert's evidence starts (the last moment the
//! board showed the game exactly): its header line names the game so far
//! (`start=`, the start position's FEN, and `moves=`, the ids played since,
//! so repetitions and move counts are as they were; `rotated=yes` for a
//! board turned round; `at=`, the time it is taken up), and the board is
//! taken to show the position they reach. Its lines are the capture's from
//! there to the end of the evidence (the reading that raised the alert and
//! [`crate::pipeline::EVIDENCE_MARGIN_MS`] after).
//!
//! Design: the slice is checked before it is written: it is replayed, and
//! when it does not raise the alert (state the header cannot carry: a clock
//! whose faces were matched to colours long before, an occupancy board's
//! tracker, an illegal move that stood and has no id to replay), a longer
//! one is tried: from the start of the alert's game, then from the start of
//! the capture. The file's first comment says which.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::capture::{self, CaptureError, Chunk, Header, RESUMED_FROM};
use crate::event::{Alert, Event, EventKind, Millis, Severity};
use crate::setup::{AT, GameRecordWords, MOVES, ROTATED, START};
use crate::sink::record::GameLog;
use crate::track::Config;

use super::{ReplayError, resolve_header};

/// One slice written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slice {
    /// The board's id.
    pub board: String,
    /// The alert's `evidence.seq`.
    pub seq: u64,
    /// The file written (`DIR/{board}-{seq}.capture`).
    pub path: PathBuf,
    /// Where it starts.
    pub from: SliceStart,
    /// Whether replaying it raised the same alert (kind and side).
    pub reproduced: bool,
}

/// Where a slice starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SliceStart {
    /// At the alert's evidence: the position before.
    Evidence,
    /// At the start of the alert's game.
    GameStart,
    /// At the start of the capture.
    Capture,
}

impl SliceStart {
    fn words(self) -> &'static str {
        match self {
            SliceStart::Evidence => "from the position before the alert",
            SliceStart::GameStart => "from the start of the alert's game",
            SliceStart::Capture => "from the start of the capture",
        }
    }
}

/// A moment to start a slice from: the next chunk to feed and the game
/// the board showed exactly then (`None`: no game, the capture's start).
#[derive(Clone, Debug)]
struct Checkpoint {
    chunk: usize,
    game: Option<Arc<GameRecordWords>>,
}

/// An alert to slice for, with the checkpoints it may start from.
struct Wanted {
    alert: Alert,
    seq: u64,
    to_t_ms: Millis,
    before: Checkpoint,
    game_start: Option<Checkpoint>,
}

/// Writes a slice for every error or action alert of `capture` that was
/// not withdrawn into `dir` (made if missing). Returns the slices in alert
/// order.
pub fn write_slices(capture: &Path, config: Config, dir: &Path) -> Result<Vec<Slice>, ReplayError> {
    write_slices_where(capture, config, dir, |a| {
        matches!(a.kind.severity(), Severity::Error | Severity::Action)
    })
}

/// [`write_slices`] for the alerts `wanted` picks (withdrawals aside),
/// notices included if it says so.
pub fn write_slices_where(
    capture: &Path,
    config: Config,
    dir: &Path,
    wanted: impl Fn(&Alert) -> bool,
) -> Result<Vec<Slice>, ReplayError> {
    let file = std::fs::File::open(capture).map_err(|source| ReplayError::Open {
        path: capture.to_owned(),
        error: source,
    })?;
    let wrap = |source| ReplayError::Capture {
        path: capture.to_owned(),
        error: source,
    };
    let (mut header, mut reader) =
        capture::Reader::new(std::io::BufReader::new(file)).map_err(wrap)?;
    let mut chunks = Vec::new();
    resolve_header(&mut header, &mut reader, &mut chunks).map_err(wrap)?;
    for chunk in reader {
        chunks.push(chunk.map_err(wrap)?);
    }
    // A capture that itself takes a game up (a slice of a slice) starts
    // from that game.
    let own = GameRecordWords::of_header(&header)
        .map_err(|e| {
            wrap(CaptureError::Malformed {
                line: 1,
                reason: e.to_string(),
            })
        })?
        .map(Arc::new);
    let start = Checkpoint {
        chunk: 0,
        game: own,
    };
    let wanted = find_alerts(&header, &chunks, config, capture, &start, &wanted)?;
    std::fs::create_dir_all(dir).map_err(|source| ReplayError::Open {
        path: dir.to_owned(),
        error: source,
    })?;
    let board = header.word(crate::setup::BOARD).unwrap_or("1").to_string();
    let mut out = Vec::with_capacity(wanted.len());
    for w in &wanted {
        let path = dir.join(format!("{}-{}.capture", file_safe(&board), w.seq));
        let tries = [
            Some((SliceStart::Evidence, &w.before)),
            w.game_start.as_ref().map(|c| (SliceStart::GameStart, c)),
            Some((SliceStart::Capture, &start)),
        ];
        let mut written = None;
        for (from, cp) in tries.into_iter().flatten() {
            let text = slice_text(&header, &chunks, cp, w, from, capture);
            let reproduced = raises(&text, config, &w.alert);
            written = Some((from, text, reproduced));
            if reproduced {
                break;
            }
        }
        let (from, text, reproduced) = written.expect("the capture's start is always tried");
        if !reproduced {
            tracing::warn!(board = %board, seq = w.seq, "an alert's slice does not raise it again, even from the capture's start");
        }
        std::fs::write(&path, text).map_err(|source| ReplayError::Open {
            path: path.clone(),
            error: source,
        })?;
        out.push(Slice {
            board: board.clone(),
            seq: w.seq,
            path,
            from,
            reproduced,
        });
    }
    Ok(out)
}

/// A board id as part of a file name.
fn file_safe(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The error and action alerts of a capture, each with the moment the
/// board last showed the game before it and the start of its game.
fn find_alerts(
    header: &Header,
    chunks: &[Chunk],
    config: Config,
    path: &Path,
    start: &Checkpoint,
    pick: &dyn Fn(&Alert) -> bool,
) -> Result<Vec<Wanted>, ReplayError> {
    let setup = crate::setup::BoardSetup::of_header(header).map_err(|e| ReplayError::Capture {
        path: path.to_owned(),
        error: CaptureError::Malformed {
            line: 1,
            reason: e.to_string(),
        },
    })?;
    let mut pipeline = crate::pipeline::BoardPipeline::new(&setup, config);
    let mut log = GameLog::new();
    let mut last = start.clone();
    let mut game_start: Option<Checkpoint> = None;
    let mut wanted = Vec::new();
    let take = |pipeline: &mut crate::pipeline::BoardPipeline,
                log: &mut GameLog,
                last: &Checkpoint,
                game_start: &mut Option<Checkpoint>,
                wanted: &mut Vec<Wanted>| {
        while let Some(e) = pipeline.poll_event() {
            log.handle(&e);
            match &e.kind {
                EventKind::GameStart { .. } => *game_start = None,
                EventKind::Alert(a) if pick(a) => {
                    if let Some(w) = wanted_for(a, last, game_start) {
                        wanted.push(w);
                    }
                }
                _ => {}
            }
        }
    };
    if let Some(game) = &start.game {
        pipeline
            .take_up(game.at, &game.start, &game.moves, game.rotated)
            .map_err(|e| ReplayError::Capture {
                path: path.to_owned(),
                error: CaptureError::Malformed {
                    line: 1,
                    reason: format!("`start=`/`moves=`: {e}"),
                },
            })?;
        take(&mut pipeline, &mut log, &last, &mut game_start, &mut wanted);
    }
    for (i, chunk) in chunks.iter().enumerate() {
        pipeline.handle_bytes(chunk.t_ms, chunk.dir, &chunk.bytes);
        take(&mut pipeline, &mut log, &last, &mut game_start, &mut wanted);
        if pipeline.shows_game() && pipeline.between_frames() {
            let game = record_words(&log, &pipeline, chunk.t_ms, last.game.as_ref());
            last = Checkpoint {
                chunk: i + 1,
                game: Some(game),
            };
            if game_start.is_none() {
                game_start = Some(last.clone());
            }
        }
    }
    pipeline.finish();
    take(&mut pipeline, &mut log, &last, &mut game_start, &mut wanted);
    Ok(wanted)
}

/// What to slice for `alert`, unless it withdraws an earlier one.
fn wanted_for(alert: &Alert, last: &Checkpoint, game_start: &Option<Checkpoint>) -> Option<Wanted> {
    let evidence = alert.evidence?;
    (!alert.cleared).then(|| Wanted {
        alert: alert.clone(),
        seq: evidence.seq,
        to_t_ms: evidence.to_t_ms,
        before: last.clone(),
        game_start: game_start.clone(),
    })
}

/// The game the board shows now, as header words (shared with the last
/// checkpoint's when the game has not changed since).
fn record_words(
    log: &GameLog,
    pipeline: &crate::pipeline::BoardPipeline,
    t: Millis,
    previous: Option<&Arc<GameRecordWords>>,
) -> Arc<GameRecordWords> {
    let (start, moves) = log
        .current()
        .map(|g| (g.start_fen.clone(), g.ucis.clone()))
        .unwrap_or_default();
    let rotated = pipeline.is_rotated();
    if let Some(p) = previous
        && p.start == start
        && p.moves == moves
        && p.rotated == rotated
    {
        return Arc::new(GameRecordWords {
            at: t,
            ..(**p).clone()
        });
    }
    Arc::new(GameRecordWords {
        start,
        moves,
        rotated,
        at: t,
    })
}

/// The slice's text: the capture's header (the game taken up, when the
/// slice starts mid-capture) and its chunks from the checkpoint to the end
/// of the evidence.
fn slice_text(
    header: &Header,
    chunks: &[Chunk],
    from: &Checkpoint,
    wanted: &Wanted,
    start: SliceStart,
    capture: &Path,
) -> String {
    let mut meta: Vec<(String, String)> = header
        .meta
        .iter()
        .filter(|(k, _)| ![START, MOVES, ROTATED, AT, RESUMED_FROM].contains(&k.as_str()))
        .cloned()
        .collect();
    match &from.game {
        Some(game) => meta.extend(game.header_words()),
        // From the capture's start: the captures it resumed come first
        // (named by their full path, as the slice is written elsewhere).
        None => {
            if let Some(prev) = header.word(RESUMED_FROM) {
                let folder = capture.parent().unwrap_or(Path::new("."));
                let full =
                    std::path::absolute(folder.join(prev)).unwrap_or_else(|_| folder.join(prev));
                meta.push((RESUMED_FROM.to_string(), full.display().to_string()));
            }
        }
    }
    let header = Header {
        protocol: header.protocol,
        meta,
    };
    let mut w = capture::Writer::new(Vec::new(), &header).expect("writing to memory");
    let _ = w.write_comment(&format!(
        "evidence of alert {} ({:?}), {}",
        wanted.seq,
        wanted.alert.kind,
        start.words()
    ));
    for c in chunks[from.chunk.min(chunks.len())..]
        .iter()
        .take_while(|c| c.t_ms <= wanted.to_t_ms)
    {
        let _ = w.write_chunk(c.t_ms, c.dir, &c.bytes);
    }
    String::from_utf8(w.into_inner()).expect("captures are text")
}

/// Whether replaying `text` raises an alert of `alert`'s kind for its side.
fn raises(text: &str, config: Config, alert: &Alert) -> bool {
    let Ok(replay) = super::replay_reader(
        std::io::Cursor::new(text.as_bytes()),
        config,
        Path::new("slice"),
    ) else {
        return false;
    };
    replay.events.iter().any(|(_, e): &(u64, Event)| {
        matches!(&e.kind, EventKind::Alert(a) if a.kind == alert.kind && a.side == alert.side && !a.cleared)
    })
}
