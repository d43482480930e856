//! The game a board plays, chosen at run time: [`AnyGame`], one enum over
//! the games' readers, as shakmaty's `VariantPosition` chooses a variant.
//!
//! Every board walks the same corridor (driver → neutral readings →
//! [`super::BoardPipeline`] → the game's reader → the generic
//! [`Reconstructor`] → events); only the last steps depend on the game:
//!
//! - [`ChessReader`]: pieces named by the
//!   sensors, occupancy-only boards followed by a tracker, a DGT board's
//!   memory, the unrecognised-position report.
//! - [`GameReader`]: draughts and xiangqi, whose boards sense occupancy (or
//!   name the piece on the open protocol): a whole board first, then the
//!   squares that changed; a board that sends no whole board is taken to
//!   stand in the start position.
//!
//! The games' records are built from the events, for every game alike
//! ([`crate::sink::record::GameLog`]).

use std::collections::VecDeque;

use boardcast_protocols::reading::{
    Content, MemoryRecord, Reading, Snapshot, SnapshotDiff, SquareChange,
};

use super::chess::ChessReader;
use super::reader::{Report, resolve};
use crate::event::{EventKind, GameId, Millis, Side};
use crate::games::draughts::Draughts;
use crate::games::xiangqi::Xiangqi;
use crate::games::{Game, GameColor, GameOptions, GamePosition};
use crate::track::{Cell, Config, Press, Reconstructor};

/// Counters of a draughts or xiangqi board.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GameStats {
    /// Square readings handed to the reconstructor (a whole board counts
    /// once).
    pub readings: u64,
    /// Moves published.
    pub moves: u64,
}

/// The readings of a board playing a game of `G` (draughts, xiangqi) to its
/// reconstructor, and the games' records.
#[derive(Debug)]
pub struct GameReader<G: Game> {
    recon: Reconstructor<G>,
    diff: SnapshotDiff,
    /// Whether any reading came (else the first square reading assumes the
    /// start position).
    seen: bool,
    stats: GameStats,
    /// A board first read in the middle of a game, watched until its first
    /// move shows whose turn it is.
    mid: MidGame<G>,
    /// This reader's own events, after the reconstructor's.
    own: VecDeque<(Millis, EventKind)>,
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

impl<G: Game> GameReader<G> {
    /// A reader of a game of `rules`.
    pub fn new(config: Config, rules: G) -> GameReader<G> {
        GameReader {
            recon: Reconstructor::for_game(config, rules),
            diff: SnapshotDiff::new(),
            seen: false,
            stats: GameStats::default(),
            mid: MidGame::default(),
            own: VecDeque::new(),
        }
    }

    /// The reconstructor, for state queries.
    pub fn reconstructor(&self) -> &Reconstructor<G> {
        &self.recon
    }

    /// Takes up the game `start` and `ids` record (see
    /// [`AnyGame::take_up`]): the board is taken to show its position; the
    /// next whole board read is compared with it, square by square.
    fn take_up(
        &mut self,
        at: Millis,
        start: &str,
        ids: &[String],
        rotated: bool,
    ) -> Result<(), String> {
        let (position, moves) = resolve(self.recon.rules(), start, ids)?;
        self.recon.take_up(at, position, moves, rotated);
        self.seen = true;
        self.mid.done = true;
        Ok(())
    }

    /// A reading at `t`: a whole board, or one square's new content (other
    /// readings are the pipeline's).
    fn handle_reading(&mut self, t: Millis, reading: &Reading) {
        match reading {
            Reading::Snapshot(snapshot) => self.handle_snapshot(t, snapshot),
            Reading::Square(change) => self.handle_change(t, *change),
            Reading::Clock(_) | Reading::NoClock | Reading::Identity(_) => {}
        }
    }

    fn handle_snapshot(&mut self, t: Millis, snapshot: &Snapshot) {
        let mut changes = Vec::new();
        let first = self.diff.last().is_none();
        self.diff.update(snapshot, &mut changes);
        if first {
            self.seen = true;
            self.whole_board(t, snapshot);
            return;
        }
        for change in changes {
            self.square(t, change);
        }
    }

    fn handle_change(&mut self, t: Millis, change: SquareChange) {
        if !self.seen {
            // Design: a board that sends no whole board is taken to stand
            // in the start position (set up before it was read); its
            // pieces are not known, so the orientation stays open.
            self.seen = true;
            let start = self.start_snapshot();
            let mut none = Vec::new();
            self.diff.update(&start, &mut none);
            self.whole_board(t, &start);
        }
        self.diff.apply(change);
        self.square(t, change);
    }

    /// The start position as a board without piece identity shows it.
    fn start_snapshot(&self) -> Snapshot {
        let rules = self.recon.rules();
        let geometry = geometry_of(rules.game_id());
        let start = rules.start();
        let mut snap = Snapshot::empty(geometry);
        for i in 0..geometry.len() {
            let sq = geometry.square(i).expect("in range");
            if let Some(s) = rules.sensor_square(sq)
                && crate::games::Placement::piece_at(start.board(), s).is_some()
            {
                snap.set(sq, Content::Occupied);
            }
        }
        snap
    }

    fn whole_board(&mut self, t: Millis, snapshot: &Snapshot) {
        let rules = self.recon.rules();
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
        self.stats.readings += 1;
        self.recon.handle_board(t, &cells);
        self.watch_mid_game(t);
    }

    fn square(&mut self, t: Millis, change: SquareChange) {
        let rules = self.recon.rules();
        let (Some(sq), Some(cell)) = (
            rules.sensor_square(change.square),
            rules.sensor_cell(change.content),
        ) else {
            return;
        };
        self.stats.readings += 1;
        self.recon.handle_square(t, sq, cell);
        self.watch_mid_game(t);
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
    fn watch_mid_game(&mut self, t: Millis) {
        if self.mid.done {
            return;
        }
        if self.recon.game().is_some() {
            self.mid.done = true;
            return;
        }
        let board = self.recon.sensed().clone();
        if self.mid.now.as_ref() == Some(&board) {
            return;
        }
        if let Some(before) = self.mid.now.take()
            && t.saturating_sub(self.mid.since) >= MID_GAME_STAND_MS
        {
            self.mid.stood = Some(before);
        }
        self.mid.now = Some(board.clone());
        self.mid.since = t;
        let Some(stood) = &self.mid.stood else {
            return;
        };
        if self.recon.rules().nearest_start(stood).is_some() {
            // A set-up under way (the set-up check judges it).
            return;
        }
        let Some((start, rotated, first)) = first_move_between(self.recon.rules(), stood, &board)
        else {
            return;
        };
        let (stood, rules) = (stood.clone(), self.recon.rules());
        let (before, now) = (cells_of(rules, &stood), cells_of(rules, &board));
        let side = rules.game_id().side(first);
        self.mid.done = true;
        // The board as it stood, the game from it, then the board now:
        // the reconstructor reads the move as any other.
        self.recon.handle_board(t, &before);
        self.recon.start_from(t, start, rotated);
        let pieces = crate::games::SquareSet::count(crate::games::Placement::occupied(&stood));
        self.own.push_back((
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
        self.recon.handle_board(t, &now);
    }

    /// The next event.
    fn poll_event(&mut self) -> Option<(Millis, EventKind)> {
        let Some((t, kind)) = self.recon.poll_event() else {
            return self.own.pop_front();
        };
        if matches!(kind, EventKind::Move { .. }) {
            self.stats.moves += 1;
        }
        Some((t, kind))
    }
}

/// The board as whole-board cells, in the reconstructor's square order.
fn cells_of<G: Game>(rules: &G, board: &G::Board) -> Vec<Cell<G::Piece>> {
    (0..rules.square_count())
        .map(|i| {
            crate::games::Placement::piece_at(board, rules.square(i))
                .map_or(Cell::Empty, Cell::Piece)
        })
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
    use crate::games::Placement;
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
pub fn geometry_of(game: GameId) -> boardcast_protocols::reading::Geometry {
    use boardcast_protocols::reading::Geometry;
    match game {
        GameId::Xiangqi => Geometry::XIANGQI,
        GameId::Chess | GameId::Draughts => Geometry::CHESS,
    }
}

/// The game a board plays, chosen at run time.
#[derive(Debug)]
pub enum AnyGame {
    /// Chess (standard and Chess960, as the options allow).
    Chess(Box<ChessReader>),
    /// English draughts.
    Draughts(Box<GameReader<Draughts>>),
    /// Xiangqi.
    Xiangqi(Box<GameReader<Xiangqi>>),
}

/// `$e` with `$r` bound to the reader of whichever game, and `$recon` to
/// its reconstructor.
macro_rules! each {
    ($self:expr, $r:ident => $e:expr) => {
        match $self {
            AnyGame::Chess($r) => $e,
            AnyGame::Draughts($r) => $e,
            AnyGame::Xiangqi($r) => $e,
        }
    };
}

impl AnyGame {
    /// A reader of `game` under the event's `options`.
    pub fn new(game: GameId, config: Config, options: GameOptions) -> AnyGame {
        match game {
            GameId::Chess => AnyGame::Chess(Box::new(ChessReader::new(config, options.variant))),
            GameId::Draughts => AnyGame::Draughts(Box::new(GameReader::new(config, Draughts))),
            GameId::Xiangqi => AnyGame::Xiangqi(Box::new(GameReader::new(
                config,
                Xiangqi {
                    limit: options.move_limit.unwrap_or_default(),
                },
            ))),
        }
    }

    /// The game played.
    pub fn id(&self) -> GameId {
        match self {
            AnyGame::Chess(_) => GameId::Chess,
            AnyGame::Draughts(_) => GameId::Draughts,
            AnyGame::Xiangqi(_) => GameId::Xiangqi,
        }
    }

    /// The chess reader, on a chess board.
    pub fn chess(&self) -> Option<&ChessReader> {
        match self {
            AnyGame::Chess(c) => Some(c),
            _ => None,
        }
    }

    /// A board's whole grid or one square's new content, at `t`.
    pub(super) fn handle_reading(&mut self, t: Millis, reading: &Reading, report: Report<'_>) {
        match self {
            AnyGame::Chess(c) => c.handle_reading(t, reading, report),
            AnyGame::Draughts(g) => g.handle_reading(t, reading),
            AnyGame::Xiangqi(g) => g.handle_reading(t, reading),
        }
    }

    /// A DGT board's memory (chess only: the other games start afresh from
    /// the board dump that follows).
    pub(super) fn recover_from_memory(
        &mut self,
        t: Millis,
        records: &[MemoryRecord],
        report: Report<'_>,
    ) {
        if let AnyGame::Chess(c) = self {
            c.recover_from_memory(t, records, report);
        }
    }

    /// The next event, in publication order.
    pub(super) fn poll_event(&mut self) -> Option<(Millis, EventKind)> {
        each!(self, r => r.poll_event())
    }

    /// When a timer is next due.
    pub fn poll_timeout(&self) -> Option<Millis> {
        each!(self, r => r.reconstructor().poll_timeout())
    }

    /// Fires the timer due at `due`.
    pub(super) fn handle_timeout(&mut self, due: Millis) {
        each!(self, r => r.recon.handle_timeout(due))
    }

    /// The operator sets the game's result.
    pub(super) fn set_result(&mut self, t: Millis, result: &str, reason: &str) {
        each!(self, r => r.recon.set_result(t, result, reason))
    }

    /// The operator restarts the board's game.
    pub(super) fn restart(&mut self, t: Millis) {
        each!(self, r => r.recon.restart(t))
    }

    /// The board stands the other way round (see
    /// [`crate::track::Reconstructor::turn_round`]).
    pub(super) fn turn_round(&mut self, t: Millis) {
        each!(self, r => r.recon.turn_round(t))
    }

    /// A clock press by `side` at `t` (Law 6.2a: their move is complete).
    pub(super) fn handle_clock_press(&mut self, t: Millis, side: Side) -> Press {
        each!(self, r => r.recon.handle_clock_press(t, side))
    }

    /// The game's ply count and who made the last ply.
    pub fn last_mover(&self) -> (usize, Option<Side>) {
        each!(self, r => r.reconstructor().last_mover())
    }

    /// The game's rule book: its article for a situation, and how it is
    /// cited in a message (`Law 6.9`, `art. 1.30`, `Art. 16`).
    pub fn article(&self, a: crate::games::Article) -> Option<(&'static str, String)> {
        each!(self, r => {
            let rules = r.reconstructor().rules();
            rules.article(a).map(|n| (n, rules.cite(n)))
        })
    }

    /// For a flag alert: the moves `side` has made in the game, and whether
    /// its opponent cannot checkmate by any series of legal moves (chess,
    /// Law 6.9; always `false` in the other games).
    pub fn flag_facts(&self, side: Side) -> (u32, bool) {
        if let AnyGame::Chess(c) = self {
            return c.flag_facts(side);
        }
        let (plies, _) = self.last_mover();
        let first = each!(self, r => r.reconstructor().game().map(|g| g.start().turn().side()));
        let plies = plies as u32;
        let own = match first {
            Some(first) if first == side => plies.div_ceil(2),
            Some(_) => plies / 2,
            None => 0,
        };
        (own, false)
    }

    /// Takes up a game from its record, as a capture slice's header gives
    /// it: `start` (a FEN of the game), the moves' ids played from it, and
    /// whether the board stands turned round. The board is taken to show
    /// the position they reach. The error says which part is wrong.
    pub(super) fn take_up(
        &mut self,
        at: Millis,
        start: &str,
        ids: &[String],
        rotated: bool,
    ) -> Result<(), String> {
        each!(self, r => r.take_up(at, start, ids, rotated))
    }

    /// Whether the board shows the published game exactly (see
    /// [`crate::track::Reconstructor::shows_game`]).
    pub fn shows_game(&self) -> bool {
        each!(self, r => r.reconstructor().shows_game())
    }

    /// Whether a game is on (a start position was recognised).
    pub fn in_game(&self) -> bool {
        each!(self, r => r.reconstructor().game().is_some())
    }

    /// Whether the board stands turned round.
    pub fn is_rotated(&self) -> bool {
        each!(self, r => r.reconstructor().is_rotated())
    }

    /// The pieces as the sensors see them (the board part of the game's
    /// FEN, in the game's orientation).
    pub fn sensed_placement(&self) -> String {
        each!(self, r => r.reconstructor().sensed_placement())
    }

    /// With no game on, the set-up against the game's start when the
    /// board is close to one: the `setup` alert's sentence and the squares
    /// that differ, named as the game names them. `None` with a game on,
    /// or with the board far from every start position.
    pub fn setup_gap(&self) -> Option<(String, Vec<String>)> {
        each!(self, r => {
            let recon = r.reconstructor();
            if recon.game().is_some() {
                return None;
            }
            let (rules, raw) = (recon.rules(), recon.sensed());
            let (intended, differ) = rules.nearest_start(raw)?;
            let turned = rules
                .detect_start(&intended)
                .and_then(|s| s.rotated)
                .unwrap_or(false);
            let squares = differ
                .into_iter()
                .map(|sq| if turned { rules.turn_round(sq) } else { sq }.to_string())
                .collect();
            Some((rules.setup_alert(&intended, raw).message, squares))
        })
    }

    /// How many pieces the sensors see on the board.
    pub fn sensed_pieces(&self) -> usize {
        use crate::games::{Placement, SquareSet};
        each!(self, r => SquareSet::count(Placement::occupied(r.reconstructor().sensed())))
    }

    /// Reconstructor counters.
    pub fn recon_stats(&self) -> crate::track::Stats {
        each!(self, r => r.reconstructor().stats())
    }

    /// Counters of a draughts or xiangqi board (`None` for chess).
    pub fn game_stats(&self) -> Option<GameStats> {
        match self {
            AnyGame::Chess(_) => None,
            AnyGame::Draughts(g) => Some(g.stats),
            AnyGame::Xiangqi(g) => Some(g.stats),
        }
    }
}
