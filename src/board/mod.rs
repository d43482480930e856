//! The reconstructor: one per board, a pure state machine that turns sensor
//! readings into game events.
//!
//! # Driving it
//!
//! Feed every reading with its time ([`Reconstructor::handle_square`],
//! [`Reconstructor::handle_board`]), clock presses when a clock reports them
//! ([`Reconstructor::handle_clock_press`]), and fire timers: after each
//! input, call [`Reconstructor::poll_timeout`]; when the time it returns
//! has come (in capture time for `replay`, wall time for the daemon), call
//! [`Reconstructor::handle_timeout`] with that time. Drain
//! [`Reconstructor::poll_event`] after every call. Times never go backwards.
//! The reconstructor never reads a clock of its own, so a replay with the
//! same inputs gives the same events.
//!
//! # What it does
//!
//! At every reading it asks which short sequence of legal play explains the
//! board ([`search`]); a candidate explanation is published once it settles
//! ([`settle`]). A published move that later readings contradict is
//! withdrawn with a `retract` event; a restored earlier position is a
//! `takeback`.

pub mod search;
pub mod settle;

use std::collections::VecDeque;

use crate::event::{EventKind, Millis, Side};
use crate::rules::{
    Bitboard, Board, Game, Move, Piece, Position, PositionOutcome, Square, detect_start, rotated,
};

pub use search::{Explanation, Limits};
pub use settle::SettleRule;

/// A result token (DGT's "magic pieces") an arbiter may place on a square.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Token {
    /// Draw.
    Draw,
    /// White wins.
    WhiteWins,
    /// Black wins.
    BlackWins,
}

/// What one sensor square holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Cell {
    /// Nothing.
    #[default]
    Empty,
    /// A chess piece.
    Piece(Piece),
    /// A result token.
    Token(Token),
}

/// Tunables of the reconstructor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Config {
    /// When moves are published.
    pub settle: SettleRule,
    /// Search bounds.
    pub limits: Limits,
}

/// Counters for benchmarks and health reporting.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Readings handled.
    pub readings: u64,
    /// Searches run.
    pub searches: u64,
    /// Most positions visited by one search.
    pub max_nodes: usize,
    /// Positions visited in all.
    pub nodes: u64,
}

#[derive(Clone, Debug)]
struct Candidate {
    explanation: Explanation,
    /// The reading that made the board show it.
    since: Millis,
    settle: Millis,
}

impl Candidate {
    fn due(&self) -> Millis {
        self.since + self.settle
    }
}

#[derive(Clone, Debug)]
struct Playing {
    game: Game,
    rotated: bool,
    successors: Vec<(Board, Move)>,
    candidate: Option<Candidate>,
    /// Whether the board shows the candidate right now.
    showing: bool,
    /// A whole-board read has not been explained yet: search deep.
    resync: bool,
    ended: bool,
}

#[derive(Clone, Debug)]
enum Phase {
    /// No game yet: waiting for a start position.
    Waiting,
    /// A game is on the board.
    Playing(Box<Playing>),
}

/// The per-board state machine. See the module documentation.
#[derive(Clone, Debug)]
pub struct Reconstructor {
    config: Config,
    /// Pieces as the sensors see them, in the board's own orientation.
    raw: Board,
    /// Result tokens on the board, own orientation.
    tokens: Bitboard,
    phase: Phase,
    events: VecDeque<(Millis, EventKind)>,
    stats: Stats,
}

impl Reconstructor {
    /// A reconstructor waiting for a start position on an empty board.
    pub fn new(config: Config) -> Reconstructor {
        Reconstructor {
            config,
            raw: Board::empty(),
            tokens: Bitboard::EMPTY,
            phase: Phase::Waiting,
            events: VecDeque::new(),
            stats: Stats::default(),
        }
    }

    /// A square changed, as the sensors see it (board orientation: `sq` is
    /// the square the board would call it if it stood the normal way round).
    pub fn handle_square(&mut self, at: Millis, sq: Square, cell: Cell) {
        self.set_cell(sq, cell);
        self.on_reading(at);
    }

    /// A whole board was read (a board dump), squares in board orientation.
    pub fn handle_board(&mut self, at: Millis, cells: &[Cell; 64]) {
        let before = (self.raw.clone(), self.tokens);
        for (i, cell) in cells.iter().enumerate() {
            self.set_cell(Square::new(i as u32), *cell);
        }
        if let Phase::Playing(p) = &mut self.phase
            && (self.raw.clone(), self.tokens) != before
        {
            p.resync = true;
        }
        self.on_reading(at);
    }

    /// Starts a game from a known position (a game resumed mid-way, or an
    /// operator's correction), as if it had just been set up. `rotated` says
    /// whether the board stands turned round.
    pub fn start_from(&mut self, at: Millis, position: Position, rotated: bool) {
        self.start_game(at, position, rotated);
    }

    /// The player of `side` pressed the clock: their move is complete.
    pub fn handle_clock_press(&mut self, at: Millis, side: Side) {
        let Phase::Playing(p) = &mut self.phase else {
            return;
        };
        let Some(c) = &p.candidate else { return };
        if !p.showing {
            return;
        }
        let mover = last_mover(&p.game, &c.explanation);
        if mover == Some(side) {
            let c = p.candidate.take().expect("checked");
            self.commit(c, at);
        }
    }

    /// Time has reached `now`: publish what has settled.
    pub fn handle_timeout(&mut self, now: Millis) {
        let Phase::Playing(p) = &mut self.phase else {
            return;
        };
        if p.showing && p.candidate.as_ref().is_some_and(|c| c.due() <= now) {
            let c = p.candidate.take().expect("checked");
            self.commit(c, now);
        }
    }

    /// When [`Reconstructor::handle_timeout`] should next be called, if at all.
    pub fn poll_timeout(&self) -> Option<Millis> {
        match &self.phase {
            Phase::Playing(p) if p.showing => p.candidate.as_ref().map(Candidate::due),
            _ => None,
        }
    }

    /// The next event, with the time of the reading that caused it.
    pub fn poll_event(&mut self) -> Option<(Millis, EventKind)> {
        self.events.pop_front()
    }

    /// Counters.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// The game on the board, if one has started.
    pub fn game(&self) -> Option<&Game> {
        match &self.phase {
            Phase::Playing(p) => Some(&p.game),
            Phase::Waiting => None,
        }
    }

    /// Whether the board stands turned round.
    pub fn is_rotated(&self) -> bool {
        matches!(&self.phase, Phase::Playing(p) if p.rotated)
    }

    fn set_cell(&mut self, sq: Square, cell: Cell) {
        self.raw.discard_piece_at(sq);
        self.tokens.discard(sq);
        match cell {
            Cell::Empty => {}
            Cell::Piece(piece) => self.raw.set_piece_at(sq, piece),
            Cell::Token(_) => self.tokens.add(sq),
        }
    }

    fn emit(&mut self, at: Millis, kind: EventKind) {
        self.events.push_back((at, kind));
    }

    fn on_reading(&mut self, at: Millis) {
        self.stats.readings += 1;
        let start = detect_start(&self.raw);
        let playing = match &mut self.phase {
            Phase::Waiting => None,
            Phase::Playing(p) => Some(p),
        };
        let Some(p) = playing else {
            if let Some(start) = start {
                self.start_game(at, start.position, start.rotated);
            }
            return;
        };
        let target = if p.rotated {
            rotated(&self.raw)
        } else {
            self.raw.clone()
        };
        let prefer_back = matches!(
            p.candidate,
            Some(Candidate {
                explanation: Explanation::Back { .. },
                ..
            })
        );
        let out = search::explain(
            &p.game,
            &p.successors,
            &target,
            prefer_back,
            p.resync,
            self.config.limits,
        );
        self.stats.searches += 1;
        self.stats.nodes += out.nodes as u64;
        self.stats.max_nodes = self.stats.max_nodes.max(out.nodes);

        // The start position set up again is a new game, unless the game
        // itself explains it by play.
        if let Some(start) = start {
            let by_play = matches!(
                out.explanation,
                Some(Explanation::Same | Explanation::Forward(_))
            );
            if !by_play && (!p.game.is_empty() || p.ended) {
                self.start_game(at, start.position, start.rotated);
                return;
            }
        }

        if out.explanation.is_some() {
            p.resync = false;
        }
        match out.explanation {
            Some(Explanation::Same) => {
                p.candidate = None;
                p.showing = false;
            }
            None => {
                p.showing = false;
                // The opponent lifting one of their own pieces proves the
                // candidate move finished. (Not a takeback: lifting a piece
                // after restoring a position proves nothing.)
                let confirmed = p.candidate.as_ref().is_some_and(|c| {
                    if !matches!(c.explanation, Explanation::Forward(_)) {
                        return false;
                    }
                    let after = candidate_position(&p.game, &c.explanation);
                    let removed = after.board().occupied() & !target.occupied();
                    search::only_removals(after.board(), &target)
                        && (removed & after.board().by_color(after.turn())).any()
                });
                if confirmed {
                    let c = p.candidate.take().expect("checked");
                    self.commit(c, at);
                }
            }
            Some(explanation) => {
                if p.ended {
                    return;
                }
                // Every ply followed by a ply of the opponent is finished:
                // publish it now and let only the last one settle.
                let explanation = match explanation {
                    Explanation::Forward(mut moves) if moves.len() >= 2 => {
                        let last = moves.pop().expect("two or more");
                        let done = Candidate {
                            explanation: Explanation::Forward(moves),
                            since: at,
                            settle: 0,
                        };
                        p.candidate = None;
                        self.commit(done, at);
                        let Phase::Playing(p) = &mut self.phase else {
                            unreachable!("commit keeps the game")
                        };
                        if p.ended {
                            return;
                        }
                        Explanation::Forward(vec![last])
                    }
                    e => e,
                };
                let Phase::Playing(p) = &mut self.phase else {
                    unreachable!("still playing")
                };
                let same = p
                    .candidate
                    .as_ref()
                    .is_some_and(|c| c.explanation == explanation);
                if !same {
                    let settle = settle_time(&self.config.settle, &p.game, &explanation);
                    p.candidate = Some(Candidate {
                        explanation,
                        since: at,
                        settle,
                    });
                }
                p.showing = true;
                // Back on a candidate that has already stood long enough.
                self.handle_timeout(at);
            }
        }
    }

    fn start_game(&mut self, at: Millis, start: Position, rotated: bool) {
        if let Phase::Playing(p) = &self.phase
            && !p.ended
            && !p.game.is_empty()
        {
            self.emit(
                at,
                EventKind::GameEnd {
                    result: "*".into(),
                    reason: "new game set up".into(),
                },
            );
        }
        self.emit(
            at,
            EventKind::GameStart {
                fen: start.fen(),
                chess960: start.is_chess960(),
                rotated,
            },
        );
        self.phase = Phase::Playing(Box::new(Playing {
            successors: search::successors(&start),
            game: Game::new(start),
            rotated,
            candidate: None,
            showing: false,
            resync: false,
            ended: false,
        }));
    }

    /// Publishes a candidate. `at` is the time of publication; the events
    /// carry the time of the reading that completed the candidate.
    fn commit(&mut self, c: Candidate, _at: Millis) {
        let Phase::Playing(p) = &mut self.phase else {
            return;
        };
        let t = c.since;
        let mut out = Vec::new();
        match c.explanation {
            Explanation::Same => {}
            Explanation::Forward(moves) => {
                for m in moves {
                    out.push(push_move(&mut p.game, m));
                }
            }
            Explanation::Back { plies, then } if then.is_empty() => {
                let to = p.game.len() - plies;
                p.game.truncate(to);
                out.push(EventKind::Takeback {
                    to_ply: to as u32,
                    fen: p.game.position().fen(),
                });
            }
            Explanation::Back { plies, then } => {
                let n = p.game.len();
                for ply in (n - plies + 1..=n).rev() {
                    out.push(EventKind::Retract {
                        ply: ply as u32,
                        uci: p.game.plies()[ply - 1].uci.clone(),
                    });
                }
                p.game.truncate(n - plies);
                for m in then {
                    out.push(push_move(&mut p.game, m));
                }
            }
        }
        p.successors = search::successors(p.game.position());
        p.showing = false;
        if let Some(outcome) = p.game.position().outcome() {
            p.ended = true;
            let (result, reason) = match outcome {
                PositionOutcome::Checkmate { winner } => (
                    if winner == crate::rules::Color::White {
                        "1-0"
                    } else {
                        "0-1"
                    },
                    "checkmate",
                ),
                PositionOutcome::Stalemate => ("1/2-1/2", "stalemate"),
                PositionOutcome::DeadPosition => ("1/2-1/2", "dead position"),
            };
            out.push(EventKind::GameEnd {
                result: result.into(),
                reason: reason.into(),
            });
        }
        for e in out {
            self.emit(t, e);
        }
    }
}

fn push_move(game: &mut Game, m: Move) -> EventKind {
    let ply = game.len() as u32 + 1;
    let side = Side::from(game.position().turn());
    let rec = game.push(m);
    EventKind::Move {
        ply,
        side,
        san: rec.san.clone(),
        uci: rec.uci.clone(),
        fen: rec.after.fen(),
    }
}

/// The position a candidate leads to.
fn candidate_position(game: &Game, e: &Explanation) -> Position {
    let (base, moves) = match e {
        Explanation::Same => return game.position().clone(),
        Explanation::Forward(m) => (game.position(), m.as_slice()),
        Explanation::Back { plies, then } => {
            (game.position_at(game.len() - plies), then.as_slice())
        }
    };
    moves.iter().fold(base.clone(), |p, m| p.play(*m))
}

/// The side that made the last ply of a candidate.
fn last_mover(game: &Game, e: &Explanation) -> Option<Side> {
    let pos = candidate_position(game, e);
    match e {
        Explanation::Same | Explanation::Back { .. } if e.cost() == 0 => None,
        Explanation::Back { then, .. } if then.is_empty() => None,
        _ => Some(Side::from(!pos.turn())),
    }
}

fn settle_time(rule: &SettleRule, game: &Game, e: &Explanation) -> Millis {
    let (base, moves) = match e {
        Explanation::Same => return 0,
        Explanation::Forward(m) => (game.position(), m.as_slice()),
        Explanation::Back { plies, then } => {
            (game.position_at(game.len() - plies), then.as_slice())
        }
    };
    match moves.split_last() {
        None => rule.takeback_ms,
        Some((last, before)) => {
            let pos = before.iter().fold(base.clone(), |p, m| p.play(*m));
            rule.for_move(&pos, *last)
        }
    }
}
