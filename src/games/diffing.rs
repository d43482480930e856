//! How draughts and xiangqi boards are read ([`Diffed`], the
//! [`Sensing`](super::sensing::Sensing) of
//! [`Draughts`](super::draughts::Draughts) and
//! [`Xiangqi`](super::xiangqi::Xiangqi), given by the `diffed!` macro in
//! each game's file): their boards sense occupancy (or name the piece on
//! the open protocol) and send a whole board first, then the squares that
//! changed; a board that sends no whole board is taken to stand in the
//! start position; a board that names its pieces, first read in the middle
//! of a game, is followed from there once its first move shows whose turn
//! it is.

use boardcast_protocols::reading::{
    Content, Geometry, Reading, Snapshot, SnapshotDiff, SquareChange,
};

use super::sensing::{Heard, Tracker};
use super::{Cell, Game, GamePosition, Placement, SquareSet};
use crate::event::{EventKind, GameId, Millis};

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

/// [`Sensing`](super::sensing::Sensing) for a game whose boards are read
/// by [`Diffed`] (invoked in the game's own file).
macro_rules! diffed {
    ($game:ty) => {
        impl $crate::games::sensing::Sensing for $game {
            type Sensors = $crate::games::diffing::Diffed<$game>;

            fn sensors(&self) -> Self::Sensors {
                Default::default()
            }

            fn read(
                sensors: &mut Self::Sensors,
                tracker: &mut impl $crate::games::sensing::Tracker<$game>,
                t: $crate::event::Millis,
                reading: &boardcast_protocols::reading::Reading,
                heard: &mut $crate::games::sensing::Heard,
            ) {
                sensors.read(tracker, t, reading, heard)
            }

            fn taken_up(
                sensors: &mut Self::Sensors,
                _: &impl $crate::games::sensing::Tracker<$game>,
            ) {
                sensors.taken_up()
            }
        }
    };
}
pub(crate) use diffed;

impl<G: Game> Diffed<G> {
    /// A reading at `t`: a whole board, or one square's new content.
    pub fn read(
        &mut self,
        tracker: &mut impl Tracker<G>,
        t: Millis,
        reading: &Reading,
        heard: &mut Heard,
    ) {
        let mut r = Read {
            s: self,
            tracker,
            heard,
        };
        match reading {
            Reading::Snapshot(snapshot) => snapshot_reading(&mut r, t, snapshot),
            Reading::Square(change) => change_reading(&mut r, t, *change),
            Reading::Clock(_) | Reading::NoClock | Reading::Identity(_) => {}
        }
    }

    /// A game was taken up from its record: the board is known, and no
    /// game is to be followed from the middle.
    pub fn taken_up(&mut self) {
        self.seen = true;
        self.mid.done = true;
    }
}

/// One reading's parts: what the reader keeps, the tracker, and what the
/// reading came to.
struct Read<'a, G: Game, T: Tracker<G>> {
    s: &'a mut Diffed<G>,
    tracker: &'a mut T,
    heard: &'a mut Heard,
}

/// A whole board: the first is read whole, later ones square by square.
fn snapshot_reading<G: Game, T: Tracker<G>>(
    r: &mut Read<'_, G, T>,
    t: Millis,
    snapshot: &Snapshot,
) {
    let mut changes = Vec::new();
    let first = r.s.diff.last().is_none();
    r.s.diff.update(snapshot, &mut changes);
    if first {
        r.s.seen = true;
        whole_board(r, t, snapshot);
        return;
    }
    for change in changes {
        square(r, t, change);
    }
}

/// One square's new content.
fn change_reading<G: Game, T: Tracker<G>>(r: &mut Read<'_, G, T>, t: Millis, change: SquareChange) {
    if !r.s.seen {
        // Design: a board that sends no whole board is taken to stand
        // in the start position (set up before it was read); its
        // pieces are not known, so the orientation stays open.
        r.s.seen = true;
        let start = start_snapshot(r.tracker.rules());
        let mut none = Vec::new();
        r.s.diff.update(&start, &mut none);
        whole_board(r, t, &start);
    }
    r.s.diff.apply(change);
    square(r, t, change);
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
fn whole_board<G: Game, T: Tracker<G>>(r: &mut Read<'_, G, T>, t: Millis, snapshot: &Snapshot) {
    let rules = r.tracker.rules();
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
    r.heard.square_readings += geometry.len() as u64;
    r.tracker.handle_board(t, &cells);
    watch_mid_game(r, t);
}

/// One square's new content, to the reconstructor.
fn square<G: Game, T: Tracker<G>>(r: &mut Read<'_, G, T>, t: Millis, change: SquareChange) {
    let rules = r.tracker.rules();
    let (Some(sq), Some(cell)) = (
        rules.sensor_square(change.square),
        rules.sensor_cell(change.content),
    ) else {
        return;
    };
    r.heard.square_readings += 1;
    r.tracker.handle_square(t, sq, cell);
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
fn watch_mid_game<G: Game, T: Tracker<G>>(r: &mut Read<'_, G, T>, t: Millis) {
    let mid = &mut r.s.mid;
    if mid.done {
        return;
    }
    if r.tracker.game().is_some() {
        mid.done = true;
        return;
    }
    let board = r.tracker.sensed().clone();
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
    let rules = r.tracker.rules();
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
    r.tracker.handle_board(t, &before);
    r.tracker.start_from(t, start, rotated);
    let pieces = SquareSet::count(Placement::occupied(&stood));
    r.heard.events.push_back((
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
    r.tracker.handle_board(t, &now);
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
