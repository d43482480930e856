//! A board on the open protocol (interface §6) playing any game: its lines
//! to the reconstructor, events out, and the game's records.
//!
//! [`OpenBoard`] is one board of a game `G`; [`AnyOpenBoard`] chooses the
//! game at run time (the board's `hello` or the configuration names it).
//! Both are pure: time is passed in.
//!
//! - `board` lines: the first is handed over whole; later ones as the
//!   squares that changed (a snapshot diff), so that a board sending only
//!   snapshots is followed square by square like one sending `up`/`down`.
//! - A board that sends no `board` line is taken to stand in the start
//!   position (occupancy only) when its first `up` or `down` arrives.
//! - Records: each game's record is rebuilt from the events (as the chess
//!   sinks do), in the game's own format ([`Game::record_text`]).

use std::collections::VecDeque;

use boardcast_protocols::open::Line;
use boardcast_protocols::reading::{Content, Reading, Snapshot, SnapshotDiff, SquareChange};

use super::{Cell, Config, Reconstructor};
use crate::event::{Event, EventKind, GameId, Millis};
use crate::games::draughts::Draughts;
use crate::games::xiangqi::Xiangqi;
use crate::games::{Game, GamePosition};

/// One game as its events tell it, for its record.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Played {
    /// The start position's FEN.
    start: String,
    /// Each published ply's id and the FEN after it.
    plies: Vec<(String, String)>,
    /// The result, once the game ended.
    result: Option<String>,
}

/// Counters of an open-protocol board.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpenStats {
    /// Square readings handed to the reconstructor (a whole board counts
    /// once).
    pub readings: u64,
    /// Moves published.
    pub moves: u64,
}

/// One open-protocol board playing a game of `G`.
#[derive(Debug)]
pub struct OpenBoard<G: Game> {
    board: String,
    recon: Reconstructor<G>,
    diff: SnapshotDiff,
    /// Whether any reading came (else the first square reading assumes the
    /// start position).
    seen: bool,
    games: Vec<Played>,
    events: VecDeque<Event>,
    stats: OpenStats,
}

impl<G: Game> OpenBoard<G> {
    /// Board `board` playing a game of `rules`.
    pub fn new(board: impl Into<String>, config: Config, rules: G) -> OpenBoard<G> {
        OpenBoard {
            board: board.into(),
            recon: Reconstructor::for_game(config, rules),
            diff: SnapshotDiff::new(),
            seen: false,
            games: Vec::new(),
            events: VecDeque::new(),
            stats: OpenStats::default(),
        }
    }

    /// The reconstructor, for state queries.
    pub fn reconstructor(&self) -> &Reconstructor<G> {
        &self.recon
    }

    /// Counters.
    pub fn stats(&self) -> OpenStats {
        self.stats
    }

    /// A line from the board at `t` (fire due timers first:
    /// [`OpenBoard::advance_to`]).
    pub fn handle_line(&mut self, t: Millis, line: &Line) {
        self.advance_to(t);
        match line {
            Line::Board(snapshot) => self.handle_snapshot(t, snapshot),
            Line::Up(square) => self.handle_change(
                t,
                SquareChange {
                    square: *square,
                    content: Content::Empty,
                },
            ),
            Line::Down { square, piece } => self.handle_change(
                t,
                SquareChange {
                    square: *square,
                    content: piece.map_or(Content::Occupied, Content::Piece),
                },
            ),
            Line::Hello(_) | Line::Diagnostic(_) => {}
        }
        self.drain();
    }

    /// A reading from a vendor family's driver at `t` (a board of another
    /// family carrying this game: its whole board, or one square's new
    /// content; other readings are ignored).
    pub fn handle_reading(&mut self, t: Millis, reading: &Reading) {
        self.advance_to(t);
        match reading {
            Reading::Snapshot(snapshot) => self.handle_snapshot(t, snapshot),
            Reading::Square(change) => self.handle_change(t, *change),
            Reading::Clock(_) | Reading::NoClock | Reading::Identity(_) => {}
        }
        self.drain();
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
            // Design: a board that sends no `board` line is taken to stand
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
        let geometry = geometry_of(rules);
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
    }

    /// When a timer is next due.
    pub fn poll_timeout(&self) -> Option<Millis> {
        self.recon.poll_timeout()
    }

    /// Fires every timer due at or before `t`.
    pub fn advance_to(&mut self, t: Millis) {
        while let Some(due) = self.recon.poll_timeout() {
            if due > t {
                break;
            }
            self.recon.handle_timeout(due);
        }
        self.drain();
    }

    /// Fires every pending timer, however far ahead (the end of a replay).
    pub fn finish(&mut self) {
        while let Some(due) = self.recon.poll_timeout() {
            self.recon.handle_timeout(due);
        }
        self.drain();
    }

    /// The next event, in publication order.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// The records of the games seen so far, one after the other (the last
    /// may be in progress).
    pub fn records(&self) -> String {
        let rules = self.recon.rules();
        self.games
            .iter()
            .map(|g| rules.record_text(&g.start, &g.plies, g.result.as_deref()))
            .collect()
    }

    fn drain(&mut self) {
        let game = self.recon.rules().game_id();
        while let Some((t_ms, kind)) = self.recon.poll_event() {
            self.note(&kind);
            self.events.push_back(Event {
                board: self.board.clone(),
                t_ms,
                game,
                kind,
            });
        }
    }

    /// Folds an event into the games' records.
    fn note(&mut self, kind: &EventKind) {
        match kind {
            EventKind::GameStart { position, .. } => self.games.push(Played {
                start: position.clone(),
                ..Played::default()
            }),
            EventKind::Move {
                ply, id, position, ..
            } => {
                self.stats.moves += 1;
                if let Some(g) = self.games.last_mut() {
                    g.plies.truncate((*ply as usize).saturating_sub(1));
                    g.plies.push((id.clone(), position.clone()));
                }
            }
            EventKind::Retract { ply, .. } => {
                if let Some(g) = self.games.last_mut() {
                    g.plies.truncate((*ply as usize).saturating_sub(1));
                }
            }
            EventKind::Takeback { to_ply, .. } => {
                if let Some(g) = self.games.last_mut() {
                    g.plies.truncate(*to_ply as usize);
                    g.result = None;
                }
            }
            EventKind::GameEnd { result, .. } => {
                if let Some(g) = self.games.last_mut() {
                    g.result = Some(result.clone());
                }
            }
            _ => {}
        }
    }
}

/// The sensor grid of a game, as the open protocol sizes it.
fn geometry_of<G: Game>(rules: &G) -> boardcast_protocols::reading::Geometry {
    use boardcast_protocols::reading::Geometry;
    match rules.game_id() {
        GameId::Xiangqi => Geometry::XIANGQI,
        GameId::Chess | GameId::Draughts => Geometry::CHESS,
    }
}

/// An open-protocol board of a game chosen at run time (chess boards go
/// through [`crate::pipeline::BoardPipeline`]).
#[derive(Debug)]
pub enum AnyOpenBoard {
    /// English draughts.
    Draughts(OpenBoard<Draughts>),
    /// Xiangqi.
    Xiangqi(OpenBoard<Xiangqi>),
}

macro_rules! each {
    ($self:expr, $b:ident => $e:expr) => {
        match $self {
            AnyOpenBoard::Draughts($b) => $e,
            AnyOpenBoard::Xiangqi($b) => $e,
        }
    };
}

impl AnyOpenBoard {
    /// Board `board` playing `game` with the event's default rules, if the
    /// game is not chess.
    pub fn new(board: impl Into<String>, config: Config, game: GameId) -> Option<AnyOpenBoard> {
        Some(match game {
            GameId::Draughts => AnyOpenBoard::Draughts(OpenBoard::new(board, config, Draughts)),
            GameId::Xiangqi => {
                AnyOpenBoard::Xiangqi(OpenBoard::new(board, config, Xiangqi::default()))
            }
            GameId::Chess => return None,
        })
    }

    /// Board `board` playing xiangqi under the event's own rules (its move
    /// limit: Art. 6 and 17 leave it to the event).
    pub fn xiangqi(board: impl Into<String>, config: Config, rules: Xiangqi) -> AnyOpenBoard {
        AnyOpenBoard::Xiangqi(OpenBoard::new(board, config, rules))
    }

    /// The game played.
    pub fn game(&self) -> GameId {
        each!(self, b => b.recon.rules().game_id())
    }

    /// See [`OpenBoard::handle_line`].
    pub fn handle_line(&mut self, t: Millis, line: &Line) {
        each!(self, b => b.handle_line(t, line))
    }

    /// See [`OpenBoard::handle_reading`].
    pub fn handle_reading(&mut self, t: Millis, reading: &Reading) {
        each!(self, b => b.handle_reading(t, reading))
    }

    /// See [`OpenBoard::poll_timeout`].
    pub fn poll_timeout(&self) -> Option<Millis> {
        each!(self, b => b.poll_timeout())
    }

    /// See [`OpenBoard::advance_to`].
    pub fn advance_to(&mut self, t: Millis) {
        each!(self, b => b.advance_to(t))
    }

    /// See [`OpenBoard::finish`].
    pub fn finish(&mut self) {
        each!(self, b => b.finish())
    }

    /// See [`OpenBoard::poll_event`].
    pub fn poll_event(&mut self) -> Option<Event> {
        each!(self, b => b.poll_event())
    }

    /// See [`OpenBoard::records`].
    pub fn records(&self) -> String {
        each!(self, b => b.records())
    }

    /// See [`OpenBoard::stats`].
    pub fn stats(&self) -> OpenStats {
        each!(self, b => b.stats())
    }

    /// Whether a game is on (a start position was recognised).
    pub fn in_game(&self) -> bool {
        each!(self, b => b.recon.game().is_some())
    }

    /// Whether the board stands turned round.
    pub fn is_rotated(&self) -> bool {
        each!(self, b => b.recon.is_rotated())
    }

    /// The pieces as the sensors see them (the board part of the game's
    /// FEN, in the game's orientation).
    pub fn sensed_placement(&self) -> String {
        each!(self, b => b.recon.sensed_placement())
    }

    /// The operator sets the game's result.
    pub fn set_result(&mut self, t: Millis, result: &str, reason: &str) {
        each!(self, b => {
            b.recon.set_result(t, result, reason);
            b.drain();
        })
    }

    /// The operator restarts the board's game.
    pub fn restart(&mut self, t: Millis) {
        each!(self, b => {
            b.recon.restart(t);
            b.drain();
        })
    }
}
