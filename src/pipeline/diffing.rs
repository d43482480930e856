//! How draughts and xiangqi boards are read ([`Sensing`] for [`Draughts`]
//! and [`Xiangqi`]): their boards sense occupancy (or name the piece on
//! the open protocol) and send a whole board first, then the squares that
//! changed; a board that sends no whole board is taken to stand in the
//! start position; a board that names its pieces, first read in the middle
//! of a game, is followed from there once its first move shows whose turn
//! it is.

use boardcast_protocols::reading::{
    Content, Geometry, Reading, Snapshot, SnapshotDiff, SquareChange,
};

use super::PipelineStats;
use super::reader::{Reader, Report, Sensing};
use crate::event::{EventKind, GameId, Millis};
use crate::games::draughts::Draughts;
use crate::games::xiangqi::Xiangqi;
use crate::games::{Game, GamePosition, Placement, SquareSet};
use crate::track::Cell;

/// What a draughts or xiangqi reader keeps of the board.
#[derive(Debug)]
pub struct Diffed<G: Game> {
    /// The board as last read, to tell the squares a whole board changed.
    diff: SnapshotDiff,
    /// Whether any reading came (else the first square reading assumes the
    /// start position).
    seen: bool,
    /// A board first read in the middle of a game, watched until its first
    /// move shows whose turn it is.
    mid: MidGame<G>,
}

impl<G: Game> Default for Diffed<G> {
    fn default() -> Self {
        Diffed {
            diff: SnapshotDiff::new(),
            seen: false,
            mid: MidGame::default(),
        }
    }
}

/// How long a board must stand still before a move from it may start a
/// game followed from the middle (players set pieces up faster).
const MID_GAME_STAND_MS: Millis = 2_000;

/// What a reader knows of a board first read in the middle of a game: the
/// board now (sensor orientation) and since when, the last one that stood
/// still for [`MID_GAME_STAND_MS`], and whether watching is over (a game
/// started).
#[derive(Debug)]
struct MidGame<G: Game> {
    now: Option<G::Board>,
    since: Millis,
    stood: Option<G::Board>,
    done: bool,
}

impl<G: Game> Default for MidGame<G> {
    fn default() -> Self {
        MidGame {
            now: None,
            since: 0,
            stood: None,
            done: false,
        }
    }
}

/// [`Sensing`] for a game whose boards are read by [`Diffed`].
macro_rules! diffed {
    ($game:ty) => {
        impl Sensing for $game {
            type Sensors = Diffed<$game>;

            fn sensors(&self) -> Diffed<$game> {
                Diffed::default()
            }

            fn read(r: &mut Reader<$game>, t: Millis, reading: &Reading, report: Report<'_>) {
                read(r, t, reading, report)
            }

            fn taken_up(r: &mut Reader<$game>) {
                r.sensors.seen = true;
                r.sensors.mid.done = true;
            }
        }
    };
}

diffed!(Draughts);
diffed!(Xiangqi);

/// A reading at `t`: a whole board, or one square's new content.
fn read<G: Sensing<Sensors = Diffed<G>>>(
    r: &mut Reader<G>,
    t: Millis,
    reading: &Reading,
    report: Report<'_>,
) {
    match reading {
        Reading::Snapshot(snapshot) => snapshot_reading(r, t, snapshot, report),
        Reading::Square(change) => change_reading(r, t, *change, report),
        Reading::Clock(_) | Reading::NoClock | Reading::Identity(_) => {}
    }
}

/// A whole board: the first is read whole, later ones square by square.
fn snapshot_reading<G: Sensing<Sensors = Diffed<G>>>(
    r: &mut Reader<G>,
    t: Millis,
    snapshot: &Snapshot,
    report: Report<'_>,
) {
    let mut changes = Vec::new();
    let first = r.sensors.diff.last().is_none();
    r.sensors.diff.update(snapshot, &mut changes);
    if first {
        r.sensors.seen = true;
        whole_board(r, t, snapshot, report.stats);
        return;
    }
    for change in changes {
        square(r, t, change, report.stats);
    }
}

/// One square's new content.
fn change_reading<G: Sensing<Sensors = Diffed<G>>>(
    r: &mut Reader<G>,
    t: Millis,
    change: SquareChange,
    report: Report<'_>,
) {
    if !r.sensors.seen {
        // Design: a board that sends no whole board is taken to stand
        // in the start position (set up before it was read); its
        // pieces are not known, so the orientation stays open.
        r.sensors.seen = true;
        let start = start_snapshot(r.recon.rules());
        let mut none = Vec::new();
        r.sensors.diff.update(&start, &mut none);
        whole_board(r, t, &start, report.stats);
    }
    r.sensors.diff.apply(change);
    square(r, t, change, report.stats);
}

/// The start position as a board without piece identity shows it.
fn start_snapshot<G: Game>(rules: &G) -> Snapshot {
    let geometry = geometry_of(rules.game_id());
    let start = rules.start();
    let mut snap = Snapshot::empty(geometry);
    for i in 0..geometry.len() {
        let sq = geometry.square(i).expect("in range");
        if let Some(s) = rules.sensor_square(sq)
            && Placement::piece_at(start.board(), s).is_some()
        {
            snap.set(sq, Content::Occupied);
        }
    }
    snap
}

/// A whole board, to the reconstructor as one reading.
fn whole_board<G: Sensing<Sensors = Diffed<G>>>(
    r: &mut Reader<G>,
    t: Millis,
    snapshot: &Snapshot,
    stats: &mut PipelineStats,
) {
    let rules = r.recon.rules();
    let mut cells = vec![Cell::Empty; rules.square_count()];
    let geometry = snapshot.geometry();
    for i in 0..geometry.len() {
        let at = geometry.square(i).expect("in range");
        let (Some(sq), Some(cell)) = (
            rules.sensor_square(at),
            snapshot.get(at).and_then(|c| rules.sensor_cell(c)),
        ) else {
            continue;
        };
        cells[rules.index(sq)] = cell;
    }
    stats.square_readings += geometry.len() as u64;
    r.recon.handle_board(t, &cells);
    watch_mid_game(r, t);
}

/// One square's new content, to the reconstructor.
fn square<G: Sensing<Sensors = Diffed<G>>>(
    r: &mut Reader<G>,
    t: Millis,
    change: SquareChange,
    stats: &mut PipelineStats,
) {
    let rules = r.recon.rules();
    let (Some(sq), Some(cell)) = (
        rules.sensor_square(change.square),
        rules.sensor_cell(change.content),
    ) else {
        return;
    };
    stats.square_readings += 1;
    r.recon.handle_square(t, sq, cell);
    watch_mid_game(r, t);
}

/// A board that names its pieces, first read with a game in progress
/// on it (boardcast started late, with no capture to resume from): once
/// a position has stood still and a legal move of one side (the board
/// either way round) turns it into the board now, the game is followed
/// from that position, with a `start_not_seen` notice. Boards without
/// piece identity wait for the start position, as before.
///
/// Design: the side to move cannot be read from a position, and the
/// orientation only sometimes; the first move tells both, and a
/// position being set up never turns into another by one legal move.
fn watch_mid_game<G: Sensing<Sensors = Diffed<G>>>(r: &mut Reader<G>, t: Millis) {
    let mid = &mut r.sensors.mid;
    if mid.done {
        return;
    }
    if r.recon.game().is_some() {
        mid.done = true;
        return;
    }
    let board = r.recon.sensed().clone();
    if mid.now.as_ref() == Some(&board) {
        return;
    }
    if let Some(before) = mid.now.take()
        && t.saturating_sub(mid.since) >= MID_GAME_STAND_MS
    {
        mid.stood = Some(before);
    }
    mid.now = Some(board.clone());
    mid.since = t;
    let Some(stood) = &mid.stood else {
        return;
    };
    let rules = r.recon.rules();
    if rules.nearest_start(stood).is_some() {
        // A set-up under way (the set-up check judges it).
        return;
    }
    let Some((start, rotated, first)) = first_move_between(rules, stood, &board) else {
        return;
    };
    let stood = stood.clone();
    let (before, now) = (cells_of(rules, &stood), cells_of(rules, &board));
    let side = rules.game_id().side(first);
    mid.done = true;
    // The board as it stood, the game from it, then the board now:
    // the reconstructor reads the move as any other.
    r.recon.handle_board(t, &before);
    r.recon.start_from(t, start, rotated);
    let pieces = SquareSet::count(Placement::occupied(&stood));
    r.own.push_back((
        t,
        EventKind::Alert(crate::event::Alert {
            kind: crate::event::AlertKind::StartNotSeen,
            side: None,
            law: None,
            message: format!(
                "The board was first read in the middle of a game: it is followed from the position it showed ({pieces} pieces), {} to move as their first move showed{}; the moves before it are not known.",
                side.name(),
                if rotated {
                    ", the board turned round"
                } else {
                    ""
                }
            ),
            cleared: false,
            evidence: None,
        }),
    ));
    r.recon.handle_board(t, &now);
}

/// The board as whole-board cells, in the reconstructor's square order.
fn cells_of<G: Game>(rules: &G, board: &G::Board) -> Vec<Cell<G::Piece>> {
    (0..rules.square_count())
        .map(|i| Placement::piece_at(board, rules.square(i)).map_or(Cell::Empty, Cell::Piece))
        .collect()
}

/// The position `stood` showed, if one legal move of one side turns it into
/// `now` (each board read either way round): the position with that side
/// to move, whether the board stands turned round, and whether the first
/// player moved.
fn first_move_between<G: Game>(
    rules: &G,
    stood: &G::Board,
    now: &G::Board,
) -> Option<(G::Position, bool, bool)> {
    for rotated in [false, true] {
        let (before, after) = if rotated {
            (stood.rotated(), now.rotated())
        } else {
            (stood.clone(), now.clone())
        };
        for first in [true, false] {
            let Some(pos) = rules.position_with(&before, first) else {
                continue;
            };
            if pos
                .legal_moves()
                .any(|m| pos.board_after(&m).matches(&after))
            {
                return Some((pos, rotated, first));
            }
        }
    }
    None
}

/// The sensor grid of a game, as the open protocol sizes it.
pub fn geometry_of(game: GameId) -> Geometry {
    match game {
        GameId::Xiangqi => Geometry::XIANGQI,
        GameId::Chess | GameId::Draughts => Geometry::CHESS,
    }
}
