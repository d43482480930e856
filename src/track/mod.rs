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
//! `takeback`. What the board shows outside legal play becomes an arbiter
//! alert ([`arbiter`]): a completed illegal move, displaced pieces, an
//! impossible position, a wrong set-up; touch-move and draw conditions are
//! reported for information.
//!
//! # Its state
//!
//! A board is waiting for a start position, or playing a game. While a
//! game is played, what can be only one thing at a time is named: the
//! game's course (`Course`: in play, ended by the rules, frozen by a
//! result) and what is held back from the record while the board is in
//! motion (`Held`: a legal explanation waiting to settle, or an
//! illegal move waiting to be completed, never both).

pub mod arbiter;
mod capture;
pub mod config;
mod displaced;
mod evidence;
pub mod finality;
mod finalize;
mod follow;
mod held;
mod illegal;
mod ranking;
pub mod search;
pub mod settle;
mod start;
#[cfg(test)]
mod tests;
mod timers;
mod touch;

use std::collections::VecDeque;

use crate::event::{AlertKind, EventKind, Millis, Side};
use crate::games::chess::Chess;
use crate::games::{
    Article, Change, Game, GameColor, GameMove, GamePiece, GamePosition, Placement, Record,
    SquareSet, Start, Verdict,
};

/// Readings kept for the order evidence of [`came_back`]: enough for a
/// move, a knock and its set-back, and the opponent's first lifts.
const RECENT: usize = 48;

use capture::*;
use evidence::*;
use finality::Finality;
use held::{Candidate, Held};

pub use crate::games::chess::Variant;
pub use crate::games::{Cell, Token, Touch, put_back_touch};
pub use arbiter::{AlertDelays, Completed};
pub use search::{Evidence, Explanation, Limits};
pub use settle::SettleRule;

/// The pieces, squares, sets, moves and positions of a game `G`.
type Board<G> = <G as Game>::Board;
type Square<G> = <G as Game>::Square;
type Piece<G> = <G as Game>::Piece;
type Set<G> = <G as Game>::Set;
type Move<G> = <G as Game>::Move;
type Position<G> = <G as Game>::Position;
type Pseudo<G> = <G as Game>::Pseudo;

/// What a clock press did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Press {
    /// The presser's move was waiting to settle and is now published.
    Published,
    /// The side to move pressed with no move on the board.
    NoMove,
    /// A move out of turn stood on the board and its player pressed the
    /// clock: it was completed, and reported as an illegal move.
    IllegalMove,
    /// Nothing to do (the move was already published, say).
    Nothing,
    /// No game on the board yet.
    NoGame,
}

/// Tunables of the reconstructor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Config {
    /// When moves are published.
    pub settle: SettleRule,
    /// Search bounds.
    pub limits: Limits,
    /// Delays of arbiter alerts.
    pub delays: AlertDelays,
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

/// Readings kept for their order (see [`Playing::recent`]): the square, what
/// it showed (a piece, or empty) and when.
type Recent<G> = VecDeque<(Square<G>, Option<Piece<G>>, Millis)>;

/// What the readings of the game on `p` touched, for ranking explanations,
/// with the plies `finality` still holds provisional.
fn evidence_of<'a, G: Game>(p: &'a Playing<G>, finality: &Finality) -> Evidence<'a> {
    Evidence {
        touched_at: &p.touched_at,
        base: p.evidence_base,
        provisional: p.game.len().saturating_sub(finality.final_plies()),
    }
}

/// A piece moved by the side *not* to move (or left standing after a
/// knock): not a move, and not an accusation, until evidence says so.
#[derive(Clone, Debug)]
struct Displacement<G: Game> {
    /// The change, as a move of that piece (`from` is its square in the
    /// game).
    m: Pseudo<G>,
    /// When it was first seen.
    since: Millis,
    /// Plies in the game when it was first seen: only the ply that made
    /// the last of them can have travelled on to it.
    plies: usize,
    /// Stands for a correction that may yet be right (the piece that just
    /// moved travelled on, or was knocked): the board is still explained
    /// first as it is.
    shadow: bool,
}

/// A board no explanation fits.
#[derive(Clone, Copy, Debug)]
struct Unexplained {
    since: Millis,
    due: Millis,
    raised: Option<AlertKind>,
    /// The history has been re-examined at the misplacement delay (see
    /// `reexamine`), before a longer alert delay ran out.
    reexamined: bool,
}

/// How the board stands, seen from the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Orientation {
    /// Not known yet (a symmetric start on a board without piece
    /// identity): the first move tells. Read as it stands meanwhile.
    Open,
    /// The normal way round.
    Normal,
    /// Turned round by 180 degrees.
    Rotated,
}

impl Orientation {
    /// As a start position found on the board says (`None`: not known).
    fn of_start(rotated: Option<bool>) -> Orientation {
        match rotated {
            None => Orientation::Open,
            Some(false) => Orientation::Normal,
            Some(true) => Orientation::Rotated,
        }
    }

    fn is_rotated(self) -> bool {
        matches!(self, Orientation::Rotated)
    }
}

/// The kings stand in the centre: the players' result signal, once it has
/// stood until `due`.
#[derive(Clone, Debug)]
struct KingsSignal<G: Game> {
    due: Millis,
    /// The plies to withdraw (a king move into the centre published a
    /// moment before).
    plies: usize,
    result: &'static str,
    /// The board that showed it.
    board: Board<G>,
}

#[derive(Clone, Debug)]
struct Playing<G: Game> {
    game: Record<G>,
    referee: G::Referee,
    /// How the board stands.
    orientation: Orientation,
    /// The orientation was fixed by the first move (read turned round),
    /// not by the start position.
    oriented_by_play: bool,
    successors: Vec<(Board<G>, Move<G>)>,
    /// What the board shows beyond the published game, held back: a legal
    /// explanation waiting to settle, or an illegal move waiting to be
    /// completed.
    held: Held<G>,
    /// A held correction (see `Playing::held_correction`) that another
    /// explanation replaced before it was published: the opponent's
    /// reply, on its way, made a board that the published game explains
    /// for a moment (a rook sliding through the square the knocked piece
    /// stood on). The finished reply may still be legal only from it (see
    /// [`Reconstructor::follow_from_correction`]). Cleared when a ply is
    /// published.
    prior_correction: Option<Candidate<G>>,
    /// A whole-board read has not been explained yet: search deep.
    resync: bool,
    /// Whether the game goes on, has ended, or is frozen.
    course: Course,
    /// The kings stand in the centre (see [`KingsSignal`]).
    kings: Option<KingsSignal<G>>,
    illegal_counts: [u32; 2],
    /// A displaced piece standing on the board (see [`Displacement`]).
    displaced: Option<Displacement<G>>,
    /// Plies known to be completed: the mover pressed the clock after
    /// them (Law 6.2a). A completed move is never re-read as a piece that
    /// travelled on.
    completed: usize,
    unexplained: Option<Unexplained>,
    touches: Vec<Touch<G>>,
    /// The time of the reading that completed the last move published
    /// (see [`AlertDelays::touch_grace_ms`]).
    moved_at: Option<Millis>,
    /// The last readings in game orientation (a piece set down, or a
    /// square emptied) with their times, newest last, for the order
    /// evidence of [`came_back`].
    recent: Recent<G>,
    /// Games that rank explanations by evidence ([`Game::ranks_by_evidence`]):
    /// for each square (game orientation, by [`Game::index`]), the number
    /// and the time of the last reading that touched it.
    touched_at: Vec<(u64, Millis)>,
    /// Readings numbered up to this one belong to the plies that made the
    /// current position: the evidence for what follows is in later ones.
    evidence_base: u64,
}

/// Where a game stands in its course.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Course {
    /// Play goes on.
    InPlay,
    /// The rules ended it (a position with no move, say), but a takeback
    /// can still reopen it.
    Ended,
    /// The result is known (checkmate, stalemate, a result piece, the
    /// kings in the centre, the operator): the record is frozen until a
    /// new game.
    Frozen,
}

impl Course {
    /// Whether the game has ended (frozen or not).
    fn ended(self) -> bool {
        self != Course::InPlay
    }

    /// Whether the record is frozen until a new game.
    fn frozen(self) -> bool {
        self == Course::Frozen
    }
}

#[derive(Clone, Debug)]
struct Waiting<G: Game> {
    /// The set-up looks wrong: when to say so, and what was said.
    setup_due: Option<Millis>,
    raised: Option<Set<G>>,
}

impl<G: Game> Default for Waiting<G> {
    fn default() -> Self {
        Waiting {
            setup_due: None,
            raised: None,
        }
    }
}

#[derive(Clone, Debug)]
enum Phase<G: Game> {
    /// No game yet: waiting for a start position.
    Waiting(Waiting<G>),
    /// A game is on the board.
    Playing(Box<Playing<G>>),
}

/// What every step of the board's states shares: the game's rules and the
/// tunables, the board as the sensors show it, the counters, and the queue
/// of events out (through the finality stage).
#[derive(Clone, Debug)]
struct Context<G: Game> {
    config: Config,
    /// The game's rules.
    rules: G,
    /// Pieces as the sensors see them, in the board's own orientation.
    raw: Board<G>,
    /// Result tokens on the board, own orientation.
    tokens: Set<G>,
    events: VecDeque<(Millis, EventKind)>,
    stats: Stats,
    /// Whether the readings backed the last search's explanation up (see
    /// [`search::Outcome::backed`]).
    backed: bool,
    /// Which published moves are final ([`finality`]).
    finality: Finality,
}

impl<G: Game> Context<G> {
    /// Queues an event, through the finality stage ([`finality`]).
    fn emit(&mut self, at: Millis, kind: EventKind) {
        let final_ms = self.config.settle.final_ms;
        self.finality.route(at, kind, final_ms, &mut self.events);
    }

    /// Queues the alert that clears one of `kind` raised before (see
    /// [`arbiter::cleared`]), citing `article`.
    fn emit_cleared(&mut self, at: Millis, kind: AlertKind, article: Article, text: &str) {
        let a = arbiter::cleared(kind, self.rules.article(article), text.into());
        self.emit(at, EventKind::Alert(a));
    }

    fn set_cell(&mut self, sq: Square<G>, cell: Cell<Piece<G>>) {
        self.raw.discard_piece_at(sq);
        self.tokens.discard(sq);
        match cell {
            Cell::Empty => {}
            Cell::Piece(piece) => self.raw.set_piece_at(sq, piece),
            Cell::Token(_) => self.tokens.add(sq),
        }
    }
}

/// The per-board state machine for a game of `G` (chess unless said). See
/// the module documentation.
#[derive(Clone, Debug)]
pub struct Reconstructor<G: Game = Chess> {
    cx: Context<G>,
    phase: Phase<G>,
}

impl Reconstructor<Chess> {
    /// A chess reconstructor waiting for a start position on an empty
    /// board (every start position: [`Variant::Auto`]).
    pub fn new(config: Config) -> Reconstructor<Chess> {
        Reconstructor::for_game(config, Chess::new(Variant::Auto))
    }
}

impl<G: Game> Reconstructor<G> {
    /// A reconstructor of a game of `rules`, waiting for a start position
    /// on an empty board.
    pub fn for_game(config: Config, rules: G) -> Reconstructor<G> {
        Reconstructor {
            cx: Context {
                config,
                rules,
                raw: Board::<G>::empty(),
                tokens: Set::<G>::default(),
                events: VecDeque::new(),
                stats: Stats::default(),
                backed: true,
                finality: Finality::default(),
            },
            phase: Phase::Waiting(Waiting::default()),
        }
    }

    /// The board as the sensors show it now (the board's own orientation).
    pub fn sensed(&self) -> &Board<G> {
        &self.cx.raw
    }

    /// The game's rules.
    pub fn rules(&self) -> &G {
        &self.cx.rules
    }

    /// A square changed, as the sensors see it (board orientation: `sq` is
    /// the square the board would call it if it stood the normal way round).
    pub fn handle_square(&mut self, at: Millis, sq: Square<G>, cell: Cell<Piece<G>>) {
        if let Phase::Playing(p) = &mut self.phase {
            p.note_touch(&self.cx, at, sq, cell);
        }
        self.cx.set_cell(sq, cell);
        if let Cell::Token(token) = cell {
            self.handle_token(at, sq, token);
        }
        self.on_reading(at);
    }

    /// A result piece set on the board (DGT's draw / white-wins /
    /// black-wins tokens) gives the game's result.
    fn handle_token(&mut self, at: Millis, sq: Square<G>, token: Token) {
        let (result, name) = self.cx.rules.token_result(token);
        self.set_result(at, result, &format!("result piece ({name}) on {sq}"));
    }

    /// The game's result, given by the operator, a result piece or the
    /// kings in the centre: the game ends and its record is frozen until a
    /// new game is set up. Does nothing when the result is already known.
    pub fn set_result(&mut self, at: Millis, result: &str, reason: &str) {
        if let Phase::Playing(p) = &mut self.phase {
            p.set_result(&mut self.cx, at, result, reason);
        }
    }

    /// The operator restarts the board's game: the current one ends
    /// unfinished and boardcast waits for a start position.
    pub fn restart(&mut self, at: Millis) {
        if let Phase::Playing(p) = &self.phase
            && !p.course.ended()
        {
            self.cx.emit(
                at,
                EventKind::GameEnd {
                    result: "*".into(),
                    reason: "restarted by the operator".into(),
                    winner: None,
                },
            );
        }
        self.phase = Phase::Waiting(Waiting::default());
        self.on_reading(at);
    }

    /// The operator says the board stands the other way round from how it
    /// is read: the game goes on, its squares read turned from now on (the
    /// sensors' squares are the board's; only their reading changes).
    pub fn turn_round(&mut self, at: Millis) {
        if let Phase::Playing(p) = &mut self.phase {
            p.orientation = Orientation::of_start(Some(!p.orientation.is_rotated()));
        }
        self.on_reading(at);
    }

    /// A whole board was read (a board dump), squares in board orientation.
    pub fn handle_board(&mut self, at: Millis, cells: &[Cell<Piece<G>>]) {
        let before = (self.cx.raw.clone(), self.cx.tokens);
        let reading = self.cx.stats.readings + 1;
        for (i, cell) in cells.iter().enumerate().take(self.cx.rules.square_count()) {
            let sq = self.cx.rules.square(i);
            if let Phase::Playing(p) = &mut self.phase
                && self.cx.rules.ranks_by_evidence()
                && self.cx.raw.piece_at(sq) != cell_piece(*cell)
            {
                let game_sq = if p.orientation.is_rotated() {
                    self.cx.rules.turn_round(sq)
                } else {
                    sq
                };
                p.touched_at[self.cx.rules.index(game_sq)] = (reading, at);
            }
            self.cx.set_cell(sq, *cell);
        }
        if let Phase::Playing(p) = &mut self.phase
            && (self.cx.raw.clone(), self.cx.tokens) != before
        {
            p.resync = true;
        }
        self.on_reading(at);
    }

    /// Starts a game from a known position (a game resumed mid-way, or an
    /// operator's correction), as if it had just been set up. `rotated` says
    /// whether the board stands turned round.
    pub fn start_from(&mut self, at: Millis, position: Position<G>, rotated: bool) {
        self.start_game(at, position, Some(rotated));
    }

    /// The player of `side` pressed the clock at `at` (Law 6.2a: their move
    /// is complete). A candidate move of theirs is published at once (its
    /// event keeps the time of the reading that completed it).
    /// The presser's provisional moves become final ([`finality`]).
    pub fn handle_clock_press(&mut self, at: Millis, side: Side) -> Press {
        let press = match &mut self.phase {
            Phase::Playing(p) => p.press(&mut self.cx, at, side),
            Phase::Waiting(_) => Press::NoGame,
        };
        if self.cx.finality.pending_mover() == Some(side) {
            self.cx.finality.make_final(&mut self.cx.events);
        }
        press
    }

    /// The game's ply count and who made the last ply, a move still
    /// settling included.
    pub fn last_mover(&self) -> (usize, Option<Side>) {
        match &self.phase {
            Phase::Waiting(_) => (0, None),
            Phase::Playing(p) => match p.held.candidate() {
                Some(c) => (
                    p.game.len() + c.explanation.cost(),
                    last_mover(&p.game, &c.explanation),
                ),
                None => (
                    p.game.len(),
                    (!p.game.is_empty()).then(|| p.game.position().turn().other().side()),
                ),
            },
        }
    }

    /// Time has reached `now`: publish what has settled, make final what
    /// has stood its time, raise what has stood long enough.
    pub fn handle_timeout(&mut self, now: Millis) {
        match &mut self.phase {
            Phase::Waiting(w) => w.handle_timeout(&mut self.cx, now),
            Phase::Playing(p) => p.handle_timeout(&mut self.cx, now),
        }
    }

    /// When [`Reconstructor::handle_timeout`] should next be called, if at all.
    pub fn poll_timeout(&self) -> Option<Millis> {
        match &self.phase {
            Phase::Waiting(w) => w.setup_due,
            Phase::Playing(p) => p.poll_timeout(&self.cx),
        }
    }

    /// The next event, with the time of the reading that caused it.
    pub fn poll_event(&mut self) -> Option<(Millis, EventKind)> {
        self.cx.events.pop_front()
    }

    /// Counters.
    pub fn stats(&self) -> Stats {
        self.cx.stats
    }

    /// The game on the board, if one has started.
    pub fn game(&self) -> Option<&Record<G>> {
        match &self.phase {
            Phase::Playing(p) => Some(&p.game),
            Phase::Waiting(_) => None,
        }
    }

    /// Whether the board stands turned round.
    pub fn is_rotated(&self) -> bool {
        matches!(&self.phase, Phase::Playing(p) if p.orientation.is_rotated())
    }

    /// The pieces as the sensors see them, in the game's orientation (the
    /// board part of a FEN; result tokens left out).
    pub fn sensed_placement(&self) -> String {
        self.cx.rules.placement_text(&self.target())
    }

    /// Whether the board agrees with the published game right now.
    pub fn in_sync(&self) -> bool {
        match &self.phase {
            Phase::Playing(p) => p.unexplained.is_none() && p.held.candidate().is_none(),
            Phase::Waiting(_) => false,
        }
    }

    /// Whether the board shows the published game exactly: a game on the
    /// board, nothing waiting to be published or explained, no result
    /// piece, and every square as the game's position has it (as far as
    /// the sensors tell pieces apart). A moment the evidence behind a later
    /// alert starts from.
    pub fn shows_game(&self) -> bool {
        let Phase::Playing(p) = &self.phase else {
            return false;
        };
        // (Nor while a move is provisional: the records hold final moves.)
        if p.unexplained.is_some()
            || p.held.candidate().is_some()
            || self.cx.tokens.any()
            || self.cx.finality.is_pending()
        {
            return false;
        }
        let expected = p.game.position().board();
        let seen = self.target();
        (0..self.cx.rules.square_count()).all(|i| {
            let sq = self.cx.rules.square(i);
            <Board<G> as Placement>::agrees(expected.piece_at(sq), seen.piece_at(sq))
        })
    }

    /// Takes up a game known from its record (a capture slice's header):
    /// `moves` are played from `start` as published, and the sensors are
    /// taken to show the position they reach (the board turned round when
    /// `rotated`). Publishes the game's start and its moves at `at`.
    pub fn take_up(&mut self, at: Millis, start: Position<G>, moves: Vec<Move<G>>, rotated: bool) {
        self.start_game(at, start, Some(rotated));
        if let Phase::Playing(p) = &mut self.phase {
            p.take_up(&mut self.cx, at, moves, rotated);
        }
    }

    fn on_reading(&mut self, at: Millis) {
        self.cx.stats.readings += 1;
        let start = self.cx.rules.detect_start(&self.cx.raw);
        let new_game = match &mut self.phase {
            Phase::Waiting(w) => {
                let new_game = w.on_reading(&mut self.cx, at, start);
                if let Some(start) = new_game {
                    self.start_at(at, start);
                }
                return;
            }
            Phase::Playing(p) => p.on_reading(&mut self.cx, at, start),
        };
        if let Some(start) = new_game {
            self.start_at(at, start);
        }
        if let Phase::Playing(p) = &mut self.phase {
            p.preview(&mut self.cx, at);
            p.check_finality(&mut self.cx, at);
        }
    }

    /// The board as the sensors show it, in the game's orientation.
    fn target(&self) -> Board<G> {
        match &self.phase {
            Phase::Playing(p) => p.target(&self.cx),
            Phase::Waiting(_) => self.cx.raw.clone(),
        }
    }

    fn start_at(&mut self, at: Millis, start: Start<Position<G>>) {
        self.start_game(at, start.position, start.rotated);
    }

    fn start_game(&mut self, at: Millis, start: Position<G>, rotated: Option<bool>) {
        if let Phase::Playing(p) = &self.phase
            && !p.course.ended()
            && !p.game.is_empty()
        {
            self.cx.emit(
                at,
                EventKind::GameEnd {
                    result: "*".into(),
                    reason: "new game set up".into(),
                    winner: None,
                },
            );
        }
        self.cx.emit(at, self.cx.rules.start_event(&start, rotated));
        self.phase = Phase::Playing(Box::new(Playing::new(&self.cx, start, rotated)));
    }
}
