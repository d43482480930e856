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
mod evidence;
pub mod finality;
mod held;
mod ranking;
pub mod search;
pub mod settle;
/// Marks the open touch `open` displaced when its piece was set down on
/// `to`, an empty square of the game (see [`Touch::displaced`]); an illegal
/// move read there makes it a touch again ([`Reconstructor::report_illegal`]).
fn mark_displaced_touch<G: Game>(p: &mut Playing<G>, open: Option<usize>, to: Square<G>) {
    if let Some(i) = open
        && p.game.position().board().piece_at(to).is_none()
    {
        p.touches[i].displaced = true;
    }
}

#[cfg(test)]
mod tests;

use std::collections::VecDeque;
use std::ops::ControlFlow;

use crate::event::{Alert, AlertKind, EventKind, Millis, Side};
use crate::games::chess::Chess;
use crate::games::{
    Article, Change, Game, GameColor, GameMove, GamePiece, GamePosition, Placement, PlyRecord,
    Record, SquareSet, Start, Verdict,
};

/// Readings kept for the order evidence of [`came_back`]: enough for a
/// move, a knock and its set-back, and the opponent's first lifts.
const RECENT: usize = 48;

use capture::*;
use evidence::*;
use finality::Finality;
use held::{Candidate, Held, Irregular};

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

/// The square an opponent's piece left, when `target` is the board the
/// illegal move `x` made with that one piece moved to an empty square
/// (the same piece, as far as the sensors tell: their reply, made).
fn opponent_moved_one<G: Game>(x: &Irregular<G>, target: &Board<G>) -> Option<Square<G>> {
    let left = x.board.occupied() & !target.occupied();
    let came = target.occupied() & !x.board.occupied();
    let (from, to) = (left.into_iter().next()?, came.into_iter().next()?);
    (left.count() == 1
        && came.count() == 1
        && (x.board.diff(target) & !(left | came)).is_empty()
        && x.made.by_color(x.m.mover().other()).contains(from)
        && <Board<G> as Placement>::agrees(x.made.piece_at(from), target.piece_at(to)))
    .then_some(from)
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

/// The per-board state machine for a game of `G` (chess unless said). See
/// the module documentation.
#[derive(Clone, Debug)]
pub struct Reconstructor<G: Game = Chess> {
    config: Config,
    /// The game's rules.
    rules: G,
    /// Pieces as the sensors see them, in the board's own orientation.
    raw: Board<G>,
    /// Result tokens on the board, own orientation.
    tokens: Set<G>,
    phase: Phase<G>,
    events: VecDeque<(Millis, EventKind)>,
    stats: Stats,
    /// Whether the readings backed the last search's explanation up (see
    /// [`search::Outcome::backed`]).
    backed: bool,
    /// Which published moves are final ([`finality`]).
    finality: Finality,
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
            config,
            rules,
            raw: Board::<G>::empty(),
            tokens: Set::<G>::default(),
            phase: Phase::Waiting(Waiting::default()),
            events: VecDeque::new(),
            stats: Stats::default(),
            backed: true,
            finality: Finality::default(),
        }
    }

    /// The board as the sensors show it now (the board's own orientation).
    pub fn sensed(&self) -> &Board<G> {
        &self.raw
    }

    /// The game's rules.
    pub fn rules(&self) -> &G {
        &self.rules
    }

    /// A square changed, as the sensors see it (board orientation: `sq` is
    /// the square the board would call it if it stood the normal way round).
    pub fn handle_square(&mut self, at: Millis, sq: Square<G>, cell: Cell<Piece<G>>) {
        self.note_touch(at, sq, cell);
        self.set_cell(sq, cell);
        if let Cell::Token(token) = cell {
            self.handle_token(at, sq, token);
        }
        self.on_reading(at);
    }

    /// A result piece set on the board (DGT's draw / white-wins /
    /// black-wins tokens) gives the game's result.
    fn handle_token(&mut self, at: Millis, sq: Square<G>, token: Token) {
        let (result, name) = self.rules.token_result(token);
        self.set_result(at, result, &format!("result piece ({name}) on {sq}"));
    }

    /// The game's result, given by the operator, a result piece or the
    /// kings in the centre: the game ends and its record is frozen until a
    /// new game is set up. Does nothing when the result is already known.
    pub fn set_result(&mut self, at: Millis, result: &str, reason: &str) {
        let Phase::Playing(p) = &mut self.phase else {
            return;
        };
        if p.course.frozen() {
            return;
        }
        p.course = Course::Frozen;
        p.held.drop_candidate();
        p.held.drop_illegal();
        p.displaced = None;
        // A displacement reported while the result signal was on its way
        // (a king set early in the centre) is withdrawn.
        if p.unexplained
            .is_some_and(|u| u.raised == Some(AlertKind::Misplaced))
        {
            let a = arbiter::cleared(
                AlertKind::Misplaced,
                self.rules.article(Article::Displaced),
                "The game has ended; the displaced-pieces report is withdrawn.".into(),
            );
            self.emit(at, EventKind::Alert(a));
        }
        let Phase::Playing(p) = &mut self.phase else {
            return;
        };
        p.unexplained = None;
        self.emit(
            at,
            EventKind::GameEnd {
                result: result.into(),
                reason: reason.into(),
                winner: self.rules.game_id().winner(result),
            },
        );
    }

    /// The operator restarts the board's game: the current one ends
    /// unfinished and boardcast waits for a start position.
    pub fn restart(&mut self, at: Millis) {
        if let Phase::Playing(p) = &self.phase
            && !p.course.ended()
        {
            self.emit(
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
        let before = (self.raw.clone(), self.tokens);
        let reading = self.stats.readings + 1;
        for (i, cell) in cells.iter().enumerate().take(self.rules.square_count()) {
            let sq = self.rules.square(i);
            if let Phase::Playing(p) = &mut self.phase
                && self.rules.ranks_by_evidence()
                && self.raw.piece_at(sq) != cell_piece(*cell)
            {
                let game_sq = if p.orientation.is_rotated() {
                    self.rules.turn_round(sq)
                } else {
                    sq
                };
                p.touched_at[self.rules.index(game_sq)] = (reading, at);
            }
            self.set_cell(sq, *cell);
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
    pub fn start_from(&mut self, at: Millis, position: Position<G>, rotated: bool) {
        self.start_game(at, position, Some(rotated));
    }

    /// The player of `side` pressed the clock at `at` (Law 6.2a: their move
    /// is complete). A candidate move of theirs is published at once (its
    /// event keeps the time of the reading that completed it).
    /// The presser's provisional moves become final ([`finality`]).
    pub fn handle_clock_press(&mut self, at: Millis, side: Side) -> Press {
        let press = self.press(at, side);
        if self.finality.pending_mover() == Some(side) {
            self.finality.make_final(&mut self.events);
        }
        press
    }

    fn press(&mut self, at: Millis, side: Side) -> Press {
        debug_assert!(self.events.back().is_none_or(|(t, _)| *t <= at));
        let target = self.target();
        let Phase::Playing(p) = &mut self.phase else {
            return Press::NoGame;
        };
        // The candidate is on the board, or the opponent has already begun
        // to take one of its pieces (a capture begun with the victim).
        if let Some(c) = p.held.candidate()
            && (c.showing
                || search::only_removals(
                    candidate_position(&p.game, &c.explanation).board(),
                    &target,
                ))
            && last_mover(&p.game, &c.explanation) == Some(side)
        {
            let c = p.held.take_candidate().expect("checked");
            self.commit(c);
            let Phase::Playing(p) = &mut self.phase else {
                return Press::NoGame;
            };
            p.completed = p.game.len();
            return Press::Published;
        }
        let turn = p.game.position().turn().side();
        // A piece of the side not to move stands displaced and that side
        // pressed its clock: a move out of turn was completed (Laws 6.2a,
        // 7.5). Without the press it stays a displacement. (Not when the
        // press completes the presser's own provisional move: the press is
        // that move's, and the piece beside it was knocked.)
        if turn != side
            && self.finality.pending_mover() != Some(side)
            && p.held.illegal().is_none()
            && p.displaced
                .as_ref()
                .is_some_and(|d| d.m.mover().side() == side)
            && p.held.candidate().is_none()
        {
            let Phase::Playing(p) = &mut self.phase else {
                return Press::NoGame;
            };
            let d = p.displaced.take().expect("checked");
            let made = self.rules.pseudo_board(p.game.position(), &d.m, &target);
            p.held = Held::Illegal(Irregular {
                m: d.m,
                board: target,
                made,
                reported: None,
                reply_since: None,
                capture_lifted: false,
            });
            self.report_illegal(at, Completed::Press);
            return Press::IllegalMove;
        }
        // The side to move pressed with an illegal move on the board: it
        // is completed.
        if turn == side
            && p.held
                .illegal()
                .is_some_and(|x| x.reported.is_none() && x.m.mover().side() == side)
        {
            self.report_illegal(at, Completed::Press);
            return Press::IllegalMove;
        }
        let Phase::Playing(p) = &mut self.phase else {
            return Press::NoGame;
        };
        if turn != side && !p.game.is_empty() {
            // The presser made the last ply: it is complete.
            p.completed = p.game.len();
        }
        if p.held.candidate().is_none()
            && p.game.position().turn().side() == side
            && p.unexplained.is_none()
        {
            return Press::NoMove;
        }
        Press::Nothing
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
        self.preview(now);
        self.fire_timers(now);
        self.check_finality(now);
    }

    /// Shows the moves of the candidate settling on the board as
    /// provisional once it has stood [`SettleRule::provisional_ms`] (see
    /// [`finality`]): screens that want speed need not wait for the settle
    /// time, which only decides what the reconstructor reads next.
    fn preview(&mut self, now: Millis) {
        let debounce = self.config.settle.provisional_ms;
        let Phase::Playing(p) = &mut self.phase else {
            return;
        };
        let Some(c) = p.held.candidate_mut() else {
            return;
        };
        if !c.showing || c.previewed || now < c.since + debounce {
            return;
        }
        c.previewed = true;
        let (plies, moves) = match &c.explanation {
            Explanation::Forward(moves) => (0, moves),
            Explanation::Back { plies, then } if !then.is_empty() => (*plies, then),
            _ => return,
        };
        let first = p.game.len() - plies;
        let mut record: Record<G> = Record::new(p.game.position_at(first).clone());
        for (i, m) in moves.iter().enumerate() {
            let side = record.position().turn();
            let rec = record.push(m.clone());
            let event = self
                .rules
                .move_event((first + i + 1) as u32, side, rec, false);
            self.finality.preview(c.since, &event, &mut self.events);
        }
    }

    fn fire_timers(&mut self, now: Millis) {
        let board = self.target();
        match &mut self.phase {
            Phase::Waiting(w) => {
                if w.setup_due.is_some_and(|d| d <= now) {
                    w.setup_due = None;
                    if let Some((intended, d)) = self.rules.nearest_start(&self.raw) {
                        w.raised = Some(d);
                        let a = self.rules.setup_alert(&intended, &self.raw);
                        self.emit(now, EventKind::Alert(a));
                    }
                }
            }
            Phase::Playing(p) => {
                if let Some(KingsSignal {
                    due, plies, result, ..
                }) = p.kings
                    && due <= now
                {
                    // Not moves: a king move into the centre published a
                    // moment before is withdrawn.
                    p.kings = None;
                    for e in p.withdraw(&self.rules, plies) {
                        self.emit(now, e);
                    }
                    self.set_result(now, result, "kings in the centre");
                    return;
                }
                if p.held
                    .candidate()
                    .is_some_and(|c| c.showing && c.due() <= now)
                {
                    if p.awaits_reply(&self.rules, self.finality.final_plies(), &board) {
                        self.raise_awaiting_correction(now);
                    } else {
                        let c = p.held.take_candidate().expect("checked");
                        self.commit(c);
                    }
                    return;
                }
                // The victim of an illegal move's piece, set down on
                // another square, has stood its time: the reply, made.
                if Self::reply_due(p, self.config.settle.final_ms).is_some_and(|d| d <= now) {
                    let target = self.target();
                    self.watch_unexplained(now, &target);
                    // (Never due again unless a reading sets it anew.)
                    if let Phase::Playing(p) = &mut self.phase
                        && let Some(x) = p.held.illegal_mut().filter(|x| x.reported.is_none())
                    {
                        x.reply_since = None;
                    }
                    return;
                }
                let Phase::Playing(p) = &mut self.phase else {
                    return;
                };
                // A displacement is re-examined at the misplacement delay
                // even when its alert waits longer (a king displaced onto
                // a centre square): the delay is about the alert, not
                // about which history explains the board.
                let check = self.config.delays.misplaced_ms;
                if let Some(u) = &mut p.unexplained
                    && u.raised.is_none()
                    && !u.reexamined
                    && u.since + check <= now
                    && now < u.due
                {
                    u.reexamined = true;
                    let target = self.target();
                    if self.reexamine(now, &target, true) {
                        return;
                    }
                }
                let Phase::Playing(p) = &mut self.phase else {
                    return;
                };
                if let Some(u) = p.unexplained
                    && u.raised.is_none()
                    && u.due <= now
                {
                    self.raise_unexplained(now);
                }
            }
        }
    }

    /// When the piece an unreported illegal move's piece could capture,
    /// set down on another square, will have stood its time as the
    /// opponent's reply (see [`Reconstructor::watch_unexplained`]).
    fn reply_due(p: &Playing<G>, final_ms: Millis) -> Option<Millis> {
        p.held
            .illegal()
            .filter(|x| x.reported.is_none())
            .and_then(|x| x.reply_since)
            .map(|since| since + final_ms)
    }

    /// When [`Reconstructor::handle_timeout`] should next be called, if at all.
    pub fn poll_timeout(&self) -> Option<Millis> {
        match &self.phase {
            Phase::Waiting(w) => w.setup_due,
            Phase::Playing(p) => {
                // (A correction of a final move waits for the reply once
                // it has been reported as a displacement.)
                let raised = p.unexplained.is_some_and(|u| u.raised.is_some())
                    && p.awaits_reply(&self.rules, self.finality.final_plies(), &self.target());
                let candidate = p
                    .held
                    .candidate()
                    .filter(|c| c.showing && !raised)
                    .map(Candidate::<G>::due);
                let check = self.config.delays.misplaced_ms;
                let unexplained = p
                    .unexplained
                    .filter(|u| u.raised.is_none() && !p.course.ended())
                    .map(|u| {
                        if u.reexamined {
                            u.due
                        } else {
                            u.due.min(u.since + check)
                        }
                    });
                let kings = p.kings.as_ref().map(|k| k.due);
                let reply = Self::reply_due(p, self.config.settle.final_ms);
                let preview = p
                    .held
                    .candidate()
                    .filter(|c| c.showing && !c.previewed)
                    .map(|c| c.since + self.config.settle.provisional_ms);
                // Provisional moves: at their time when nothing else waits
                // (else a reading will tell), at the latest a misplacement
                // delay later.
                let quiet = self.quiet(self.finality.due().unwrap_or(0));
                // (The game's first move: see `check_finality`.)
                let first = self.first_move_pending();
                let finality = self
                    .finality
                    .due()
                    .map(|d| if quiet && !first { d } else { d + check });
                [candidate, unexplained, kings, finality, preview, reply]
                    .into_iter()
                    .flatten()
                    .min()
            }
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
        self.rules.placement_text(&self.target())
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
            || self.tokens.any()
            || self.finality.is_pending()
        {
            return false;
        }
        let expected = p.game.position().board();
        let seen = self.target();
        (0..self.rules.square_count()).all(|i| {
            let sq = self.rules.square(i);
            <Board<G> as Placement>::agrees(expected.piece_at(sq), seen.piece_at(sq))
        })
    }

    /// Takes up a game known from its record (a capture slice's header):
    /// `moves` are played from `start` as published, and the sensors are
    /// taken to show the position they reach (the board turned round when
    /// `rotated`). Publishes the game's start and its moves at `at`.
    pub fn take_up(&mut self, at: Millis, start: Position<G>, moves: Vec<Move<G>>, rotated: bool) {
        self.start_game(at, start, Some(rotated));
        let Phase::Playing(p) = &mut self.phase else {
            return;
        };
        let mut out = Vec::new();
        for m in moves {
            out.push(p.push_move(&self.rules, m));
            out.extend(p.after_move(&self.rules));
        }
        p.orientation = Orientation::of_start(Some(rotated));
        let board = p.game.position().board().clone();
        let shown = if rotated { board.rotated() } else { board };
        for i in 0..self.rules.square_count() {
            let sq = self.rules.square(i);
            self.raw.discard_piece_at(sq);
            self.tokens.discard(sq);
            if let Some(piece) = shown.piece_at(sq) {
                self.raw.set_piece_at(sq, piece);
            }
        }
        // Moves of a game taken up were final before: no provisional
        // event for them.
        let from = self.events.len();
        let final_ms = self.config.settle.final_ms;
        self.finality
            .route_batch(at, out, final_ms, &mut self.events);
        self.finality.make_final(&mut self.events);
        let mut i = 0;
        self.events.retain(|(_, e)| {
            i += 1;
            i <= from || !matches!(e, EventKind::Provisional { .. })
        });
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

    /// Remembers lifts of the side to move, for touch-move (Law 4.3).
    fn note_touch(&mut self, at: Millis, sq: Square<G>, cell: Cell<Piece<G>>) {
        let Phase::Playing(p) = &mut self.phase else {
            return;
        };
        let game_sq = if p.orientation.is_rotated() {
            self.rules.turn_round(sq)
        } else {
            sq
        };
        let turn = p.game.position().turn();
        let seen = match cell {
            Cell::Piece(piece) => Some(Some(piece)),
            Cell::Empty => Some(None),
            Cell::Token(_) => None,
        };
        if let Some(seen) = seen {
            if p.recent.len() == RECENT {
                p.recent.pop_front();
            }
            p.recent.push_back((game_sq, seen, at));
        }
        if self.rules.ranks_by_evidence() {
            // This reading's number (`on_reading` counts it).
            p.touched_at[self.rules.index(game_sq)] = (self.stats.readings + 1, at);
        }
        // A board without piece identity: the piece lifted is the one the
        // game has there.
        let lifted = self.raw.piece_at(sq).and_then(|piece| match piece.color() {
            Some(_) => Some(piece),
            None => p.game.position().board().piece_at(game_sq),
        });
        // The mover's hand finishing its move (a captured piece taken off
        // after the capturing piece was set down, as draughts players
        // clear the men they took, or taken off from beside, where it was
        // set down for a moment: a square the game holds empty) is still
        // the mover's: the grace below counts from it.
        let finishing = p
            .game
            .plies()
            .last()
            .and_then(|x| x.m.as_ref())
            .is_some_and(|m| {
                m.touched().contains(game_sq)
                    && Board::<G>::agrees(
                        p.game.position().board().piece_at(game_sq),
                        seen.flatten(),
                    )
            });
        let stray_off = seen == Some(None) && p.game.position().board().piece_at(game_sq).is_none();
        if p.moved_at.is_some() && seen.is_some() && (finishing || stray_off) {
            p.moved_at = Some(at);
        }
        // Design: a lift this soon after the last move was set down is
        // the hand that made it on its way back (a knock), not the
        // opponent touching a piece: no accusation (see
        // `AlertDelays::touch_grace_ms`).
        let grace = p
            .moved_at
            .is_some_and(|m| at < m + self.config.delays.touch_grace_ms);
        match (lifted, cell) {
            (Some(piece), Cell::Empty)
                if piece.color() == Some(turn) && p.touches.len() < 32 && !grace =>
            {
                p.touches.push(Touch {
                    sq: game_sq,
                    piece,
                    lifted: at,
                    back: None,
                    displaced: false,
                });
            }
            (None, Cell::Piece(piece)) => {
                if let Some(t) = p.touches.iter_mut().rev().find(|t| {
                    t.sq == game_sq
                        && Board::<G>::agrees(Some(t.piece), Some(piece))
                        && t.back.is_none()
                }) {
                    t.back = Some(at);
                } else {
                    let open = p.touches.iter().rposition(|t| {
                        Board::<G>::agrees(Some(t.piece), Some(piece)) && t.back.is_none()
                    });
                    mark_displaced_touch(p, open, game_sq);
                }
            }
            (None, Cell::Token(_)) => {
                // Without piece identity, the piece in the air last lifted
                // is the one set down.
                let open = p.touches.iter().rposition(|t| t.back.is_none());
                mark_displaced_touch(p, open, game_sq);
            }
            _ => {}
        }
    }

    /// Queues an event, through the finality stage ([`finality`]).
    fn emit(&mut self, at: Millis, kind: EventKind) {
        let final_ms = self.config.settle.final_ms;
        self.finality.route(at, kind, final_ms, &mut self.events);
    }

    /// Whether the board is quiet enough for provisional plies to become
    /// final on time at `now`: nothing settling, and every square of the
    /// provisional plies and of the ply before them as those plies left
    /// it, unless what differs there has stood past the misplacement
    /// delay (the re-examination there could still read those plies
    /// otherwise: a piece of theirs in the air, gone on, or pushed; what
    /// stood past it is the arbiter's business, and play goes on around
    /// it). A piece knocked elsewhere changes nothing about those plies.
    fn quiet(&self, now: Millis) -> bool {
        let Phase::Playing(p) = &self.phase else {
            return false;
        };
        // (Not while the victim of a capture the last ply may go on to
        // make is off the board: the capture is under way.)
        if self.capture_under_way() {
            return false;
        }
        let target = self.target();
        let first = self.finality.final_plies().min(p.game.len());
        let touched = |plies: &[PlyRecord<G>]| {
            plies
                .iter()
                .filter_map(|x| x.m.as_ref())
                .fold(Set::<G>::default(), |s, m| s | m.touched())
        };
        let pending = touched(&p.game.plies()[first..]);
        let before = touched(&p.game.plies()[first.saturating_sub(1)..first]);
        let differ = p.game.position().board().diff(&target);
        let check = self.config.delays.misplaced_ms;
        let stood = p.displaced.as_ref().is_some_and(|d| d.since + check <= now)
            || p.unexplained
                .is_some_and(|u| u.raised.is_some() || u.reexamined);
        // The piece of the last (provisional) ply knocked off its square
        // after it, standing where that ply could not have taken it, with
        // nothing else out of place, cannot change the move: a move on
        // would be a candidate, and it is not a piece in the air.
        let last_to = p
            .game
            .plies()
            .last()
            .and_then(|x| x.m.as_ref())
            .map(|m| m.to());
        let knocked = first < p.game.len()
            && p.displaced.as_ref().is_some_and(|d| {
                !d.shadow
                    && d.plies == p.game.len()
                    && Some(d.m.from()) == last_to
                    && put_back(d, &target).is_some_and(|b| p.game.position().board().matches(&b))
            });
        p.held.candidate().is_none()
            && (knocked || !(differ & pending).any() && (stood || !(differ & before).any()))
    }

    /// Whether the game's first move from the initial position is still
    /// provisional, in a game that holds it ([`Game::holds_first_move`]).
    fn first_move_pending(&self) -> bool {
        let Phase::Playing(p) = &self.phase else {
            return false;
        };
        self.rules.holds_first_move()
            && self.finality.final_plies() == 0
            && p.game.start().board() == self.rules.start().board()
    }

    /// Whether a piece the last ply's piece could capture from where it
    /// was set down is off the board, lifted as a capture's victim (see
    /// [`Playing::about_to_capture`]): the capture may go on.
    fn capture_under_way(&self) -> bool {
        let Phase::Playing(p) = &self.phase else {
            return false;
        };
        let Some(m) = p.game.plies().last().and_then(|x| x.m.as_ref()) else {
            return false;
        };
        let before = p.game.position_at(p.game.len() - 1);
        p.about_to_capture(&self.rules, before, m, p.game.position(), &self.target())
    }

    /// Makes the provisional moves final when the board proves them so:
    /// the opponent lifted a piece of their own or their reply stands on
    /// the board, or the moves have stood their time with nothing else
    /// waiting to be explained (see [`finality`]).
    fn check_finality(&mut self, now: Millis) {
        let Some(due) = self.finality.due() else {
            return;
        };
        let Phase::Playing(p) = &self.phase else {
            return;
        };
        let target = self.target();
        let position = p.game.position();
        let mover = self.finality.pending_mover();
        let pending_last = mover == Some(position.turn().other().side());
        // (Not a victim the last ply's piece was set down short of: the
        // capture may go on.)
        let last = p.game.plies().last().and_then(|x| x.m.as_ref());
        let continuing = self.capture_under_way();
        // (Nor while the last ply's own piece is off its square: a victim
        // set down beside and lifted away again is no reply that stands.)
        let stands = last.is_none_or(|m| target.occupied().contains(m.to()));
        // (Nor, after a reply that moved the piece the move before could
        // capture, while that move's piece is off its square: the capture
        // goes on, and the "reply" was its victim on the way off.)
        let resumed = self.finality.pending_plies() >= 2
            && p.capture_held_from(&self.rules)
                .is_some_and(|sq| !target.occupied().contains(sq));
        // (Nor a lift read before the last ply's piece was set down: a
        // victim lifted first, its capture read on the way as a move and
        // a reply taking it.)
        let evidence = evidence_of(p, &self.finality);
        let after_landing = p.lifted_after_landing(&self.rules, &evidence, &target);
        let replied = pending_last
            && (lifted_by_side_to_move::<G>(position, &target)
                && after_landing
                && !continuing
                && stands
                && !resumed
                || p.held.candidate().is_some_and(|c| {
                    matches!(&c.explanation, Explanation::Forward(moves)
                        if !moves.first().is_some_and(|m| p.moves_its_victim(&self.rules, m)))
                }));
        // The game's first move is final on time only a misplacement delay
        // later where the game holds it (see `Game::holds_first_move`).
        let first = self.first_move_pending();
        let settled = !first && now >= due && self.quiet(now);
        let overdue = now >= due + self.config.delays.misplaced_ms;
        if replied || settled || overdue {
            self.finality.make_final(&mut self.events);
        }
    }

    fn on_reading(&mut self, at: Millis) {
        self.stats.readings += 1;
        let start = self.rules.detect_start(&self.raw);
        match &mut self.phase {
            Phase::Waiting(w) => {
                if let Some(start) = start {
                    if w.raised.is_some() {
                        let a = arbiter::cleared(
                            AlertKind::Setup,
                            self.rules.article(Article::Setup),
                            "The initial position is now set up correctly.".into(),
                        );
                        self.emit(at, EventKind::Alert(a));
                    }
                    self.start_at(at, start);
                    return;
                }
                match self.rules.nearest_start(&self.raw) {
                    Some((_, d)) if w.raised != Some(d) => {
                        w.setup_due = Some(at + self.config.delays.setup_ms);
                    }
                    Some(_) => w.setup_due = None,
                    None => {
                        w.setup_due = None;
                    }
                }
            }
            Phase::Playing(_) => {
                self.on_playing_reading(at, start);
                self.preview(at);
                self.check_finality(at);
            }
        }
    }

    fn target(&self) -> Board<G> {
        match &self.phase {
            Phase::Playing(p) if p.orientation.is_rotated() => self.raw.rotated(),
            _ => self.raw.clone(),
        }
    }

    fn search(&mut self, target: &Board<G>) -> Option<Explanation<Move<G>>> {
        let limits = self.config.limits;
        let Phase::Playing(p) = &mut self.phase else {
            return None;
        };
        let prefer_back = matches!(
            p.held,
            Held::Move(Candidate {
                explanation: Explanation::Back { .. },
                ..
            })
        );
        let evidence = self
            .rules
            .ranks_by_evidence()
            .then(|| evidence_of(p, &self.finality));
        let out = search::Query {
            rules: &self.rules,
            game: &p.game,
            successors: &p.successors,
            prefer_back,
            resync: p.resync,
            limits,
            evidence: evidence.as_ref(),
        }
        .explain(target);
        self.stats.searches += 1;
        self.stats.nodes += out.nodes as u64;
        self.stats.max_nodes = self.stats.max_nodes.max(out.nodes);
        self.backed = out.backed;
        let explanation = out.explanation?;
        if self.finality.pending_plies() >= 2
            && let Some(capture) = p.capture_finished(&self.rules, &explanation, target)
        {
            return Some(capture);
        }
        Some(explanation)
    }

    /// A reading while a game is on: its ordered rules, each a named step.
    /// The first steps may explain the board on their own (and end the
    /// reading); then the board is searched, the explanation screened
    /// against what the readings showed, and followed or watched.
    fn on_playing_reading(&mut self, at: Millis, start: Option<Start<Position<G>>>) {
        let target = self.target();
        let Phase::Playing(p) = &self.phase else {
            return;
        };
        if p.course.frozen() {
            // A finished game: only a new start position matters.
            if let Some(start) = start {
                self.start_at(at, start);
            }
            return;
        }
        if self.watch_result_signal(at, &target) {
            return;
        }
        // The piece that just moved came back to a square it stood on
        // before the one its ply was published to (it was knocked on and
        // set back): that square is the move, and the opponent's reply is
        // read from it first, before any other history (play around a
        // displacement, standing or not, a repeated position taken for a
        // takeback).
        if self.correction_came_back() && self.follow_from_correction(at, &target) {
            return;
        }
        self.correction_confirmed_by_reply(at, &target);
        if self.follow_standing_displacement(at, &target) {
            return;
        }
        let (target, explanation) = self.explain_reading(&target);
        let ControlFlow::Continue(mut explanation) =
            self.new_game_or_confirmed(at, start, &target, explanation)
        else {
            return;
        };
        if let (Phase::Playing(p), Some(e)) = (&self.phase, explanation.take()) {
            explanation = Some(p.as_seen(e));
        }
        let contra = match (&self.phase, &explanation) {
            (Phase::Playing(p), Some(e)) => p.contradicted(e, &target),
            _ => false,
        };
        if contra {
            explanation = None;
        }
        let explanation = self.play_on_from_irregular(at, &target, explanation);
        if explanation.is_none() && self.explain_otherwise(at, &target) {
            return;
        }
        let Phase::Playing(p) = &mut self.phase else {
            return;
        };
        match explanation {
            None => {
                if let Some(c) = p.held.candidate_mut() {
                    c.showing = false;
                }
                self.watch_unexplained(at, &target);
            }
            Some(explanation) => {
                // (The correction of a final move reported as a
                // displacement, read again: still displaced.)
                let still = p.awaits_reply(&self.rules, self.finality.final_plies(), &target)
                    && p.held
                        .candidate()
                        .is_some_and(|c| c.explanation == explanation);
                p.resync = false;
                p.held.drop_illegal();
                p.displaced = None;
                if !still {
                    self.clear_unexplained(at);
                }
                self.follow(at, explanation);
            }
        }
    }

    /// Step: players report a result with both kings on the centre
    /// squares; it counts once it has stood a moment (a king set down
    /// briefly on a wrong square can touch the centre too). Returns whether
    /// the board shows the signal (nothing else is read from it).
    fn watch_result_signal(&mut self, at: Millis, target: &Board<G>) -> bool {
        let delay = self.config.settle.kings_signal_ms;
        let Phase::Playing(p) = &mut self.phase else {
            return false;
        };
        match self.rules.result_signal(&p.game, target) {
            Some((plies, result)) => {
                if p.kings.as_ref().is_none_or(|k| k.board != *target) {
                    p.kings = Some(KingsSignal {
                        due: at + delay,
                        plies,
                        result,
                        board: target.clone(),
                    });
                }
                if let Some(c) = p.held.candidate_mut() {
                    c.showing = false;
                }
                true
            }
            None => {
                p.kings = None;
                false
            }
        }
    }

    /// Step: a displaced piece still standing where it was pushed: the rest
    /// of the board is explained around it. (Once it is that side's turn,
    /// it is still not their move: it got there before.) Returns whether
    /// that explained the board.
    fn follow_standing_displacement(&mut self, at: Millis, target: &Board<G>) -> bool {
        let standing = matches!(&self.phase, Phase::Playing(p) if p.displaced
            .as_ref()
            .is_some_and(|d| !d.shadow && put_back(d, target).is_some()));
        standing && self.follow_around_displacement(at, target)
    }

    /// Step: the opponent began to reply (lifted a piece of their own)
    /// while a correction of the last ply was held (its piece travelled
    /// on, see [`Playing::held_correction`]): the correction is the move, published
    /// at once. Players reply to the move as it stands; a knocked piece is
    /// set back before they do. (A correction of a final move waits for
    /// nothing else: see [`Playing::awaits_reply`].)
    fn correction_confirmed_by_reply(&mut self, at: Millis, target: &Board<G>) {
        let Phase::Playing(p) = &mut self.phase else {
            return;
        };
        let last_final = self.finality.final_plies() >= p.game.len();
        // Begun: a piece of theirs lifted, or their reply made (set down
        // before its piece was lifted, the board may never show the lift).
        // (Not a final move's king gone on into the centre: the other
        // king may be coming for the result signal. Nor, for a final
        // move, a corrected piece off its new square: a piece the reply
        // takes, lifted by the opponent's hand and set down beside on its
        // own line for a moment, reads as that piece moved on.)
        // (Not while the corrected piece is off its new square, unless a
        // piece lifted by the opponent could take it there, as its victim
        // lifted first: the piece an opponent's capture takes elsewhere,
        // set down beside for a moment and lifted away, is no move of its
        // own.)
        let confirmed = p.held.candidate().is_some_and(|c| {
            let after = candidate_position(&p.game, &c.explanation);
            let stands = match &c.explanation {
                Explanation::Back { then, .. } => then.last().is_none_or(|m| {
                    target.occupied().contains(m.to())
                        || !last_final && taken_there::<G>(&after, target, m.to())
                }),
                _ => true,
            };
            p.held_correction(&c.explanation)
                && stands
                && !(last_final && signal_into(&self.rules, &c.explanation))
                && (p.lifted_against_correction(&after, target)
                    || after
                        .legal_moves()
                        .any(|m| after.board_after(&m).diff(target).is_empty()))
        });
        if confirmed {
            let c = p.held.take_candidate().expect("checked");
            self.clear_unexplained(at);
            self.commit(c);
        }
    }

    /// The correction of a final move (see [`Playing::awaits_reply`]) has stood the
    /// misplacement delay: the board is reported as displaced, as it would
    /// be had the piece been knocked anywhere else; the reply (or the
    /// piece set back) will tell which it was.
    fn raise_awaiting_correction(&mut self, now: Millis) {
        let target = self.target();
        let Phase::Playing(p) = &mut self.phase else {
            return;
        };
        if p.unexplained.is_some_and(|u| u.raised.is_some()) {
            return;
        }
        let since = p.held.candidate().map_or(now, |c| c.since);
        let alert = self.rules.misplaced_alert(p.game.position(), &target);
        p.unexplained = Some(Unexplained {
            since,
            due: now,
            raised: Some(alert.kind),
            reexamined: true,
        });
        self.emit(now, EventKind::Alert(alert));
    }

    /// Step: the search, with the board turned round while its orientation
    /// is open, and a completed move kept: returns the board in game
    /// orientation and its explanation.
    fn explain_reading(&mut self, target: &Board<G>) -> (Board<G>, Option<Explanation<Move<G>>>) {
        let mut explanation = self.search(target);
        if explanation.is_none() {
            explanation = self.men_left_standing(target);
        }
        // The board's orientation is still open (a symmetric start on a
        // board without piece identity): the first move that explains the
        // board turned round fixes it.
        let target = match self.orient(target, explanation.is_none()) {
            Some((turned, e)) => {
                explanation = Some(e);
                turned
            }
            None => target.clone(),
        };
        // A completed move (its player pressed the clock) does not travel
        // on: a change of that piece is a displacement.
        if let Phase::Playing(p) = &self.phase
            && explanation.as_ref().is_some_and(|e| p.held_correction(e))
            && p.game.len() <= p.completed
        {
            explanation = None;
        }
        (target, explanation)
    }

    /// Step, in games whose captured pieces are often left for the
    /// opponent to clear (draughts): a board that differs from the position
    /// after a legal capture only by its captured men still standing is that
    /// capture; one that differs from the game's position only by the men
    /// its last ply captured is that position. The men are cleared later,
    /// often by the opponent at the start of their turn.
    fn men_left_standing(&self, target: &Board<G>) -> Option<Explanation<Move<G>>> {
        if !self.rules.captures_left_standing() {
            return None;
        }
        let Phase::Playing(p) = &self.phase else {
            return None;
        };
        let pos = p.game.position();
        if let Some(last) = p.game.plies().last().and_then(|x| x.m.as_ref()) {
            let before = p.game.position_at(p.game.len() - 1);
            if standing_only::<G>(before, last, pos.board(), target) {
                return Some(Explanation::Same);
            }
        }
        // Two captures may leave the same men standing (a king's circular
        // jump, either way round): the one whose landings were read in its
        // order is the one made.
        let evidence = evidence_of(p, &self.finality);
        let in_order = |m: &Move<G>| evidence.landings_in_order(&self.rules, m);
        p.successors
            .iter()
            .filter(|(after, m)| standing_only::<G>(pos, m, after, target))
            // (The first found among equals.)
            .rev()
            .max_by_key(|(_, m)| in_order(m))
            .map(|(_, m)| Explanation::Forward(vec![m.clone()]))
    }

    /// Step: the start position set up again is a new game (and the
    /// reading ends), unless the game itself explains it by play; a board
    /// no explanation fits may prove the candidate move finished (it is
    /// then published, and the board searched again).
    fn new_game_or_confirmed(
        &mut self,
        at: Millis,
        start: Option<Start<Position<G>>>,
        target: &Board<G>,
        explanation: Option<Explanation<Move<G>>>,
    ) -> ControlFlow<(), Option<Explanation<Move<G>>>> {
        let Phase::Playing(p) = &mut self.phase else {
            return ControlFlow::Break(());
        };
        if let Some(start) = start {
            let by_play = matches!(
                explanation,
                Some(Explanation::Same | Explanation::Forward(_))
            );
            // The first move or two put back (a piece touched and put
            // back, a knock before the first move read as one): a
            // takeback, not a new game.
            let put_back = !p.course.ended()
                && matches!(&explanation, Some(Explanation::Back { plies, then })
                    if then.is_empty() && *plies == p.game.len() && *plies <= 2);
            // (Nor one piece's step from the game in play: a knock that
            // recreates the start after moves that cancel out, 1. Nc3 h6
            // 2. Nb1 and the pawn knocked back to h7. Players setting up a
            // new game move more than one piece.)
            let knocked =
                !p.course.ended() && search::one_piece_apart(p.game.position().board(), target);
            if !by_play && !put_back && !knocked && (!p.game.is_empty() || p.course.ended()) {
                self.start_at(at, start);
                return ControlFlow::Break(());
            }
        }
        if explanation.is_some() {
            return ControlFlow::Continue(explanation);
        }
        // The opponent lifting one of their own pieces proves the
        // candidate move finished (not a takeback: lifting a piece after
        // restoring a position proves nothing), and so does their reply
        // standing on the board when no legal move explains it.
        if p.confirmed_by_lift(&self.rules, target) || p.confirmed_by_reply(&self.rules, target) {
            let c = p.held.take_candidate().expect("checked");
            self.commit(c);
            return ControlFlow::Continue(self.search(target));
        }
        ControlFlow::Continue(None)
    }

    /// Step: after a reported illegal move, play may have gone on from it.
    /// With no legal explanation, the illegal move and its continuation
    /// are tried; a legal history of two or more plies (a piece sliding
    /// through a square that makes one) is not better evidence than the
    /// completed illegal move and a shorter continuation.
    fn play_on_from_irregular(
        &mut self,
        at: Millis,
        target: &Board<G>,
        explanation: Option<Explanation<Move<G>>>,
    ) -> Option<Explanation<Move<G>>> {
        match &explanation {
            None => self.continue_irregular(at, target, usize::MAX),
            Some(e @ (Explanation::Forward(_) | Explanation::Back { .. })) if e.cost() >= 2 => {
                let cost = e.cost();
                self.continue_irregular(at, target, cost - 1)
                    .or(explanation)
            }
            Some(_) => explanation,
        }
    }

    /// Step: a board legal play does not explain may still be explained
    /// around a displacement, from a held correction, or by re-examining
    /// the last plies. Returns whether one of them did.
    fn explain_otherwise(&mut self, at: Millis, target: &Board<G>) -> bool {
        if self.follow_around_displacement(at, target) {
            return true;
        }
        if self.follow_from_correction(at, target) {
            return true;
        }
        // A displaced piece of the side that moved last has moved on from
        // where it stood (that side played it from there): a history in
        // which its last ply went there explains the board with no
        // irregularity at all.
        let moved_on = matches!(&self.phase, Phase::Playing(p) if p.displaced.as_ref().is_some_and(|d| {
            !d.shadow && !Board::<G>::agrees(Some(d.m.placed()), target.piece_at(d.m.to()))
        }));
        moved_on && self.reexamine(at, target, false)
    }

    /// The board is explained: make the explanation the candidate.
    fn follow(&mut self, at: Millis, explanation: Explanation<Move<G>>) {
        // An explanation the readings do not back up (a knock on a board
        // without piece identity can look like a capture) is held longer,
        // and none of it is published at once.
        let unbacked = !std::mem::replace(&mut self.backed, true);
        let Phase::Playing(p) = &mut self.phase else {
            return;
        };
        if explanation == Explanation::Same {
            p.held.drop_candidate();
            // A move shown before it settled is gone from the board.
            let plies = p.game.len();
            self.finality.unshow(at, plies, &mut self.events);
            return;
        }
        let explanation = self.publish_finished_plies(at, explanation, unbacked);
        let reading = self.stats.readings;
        let Phase::Playing(p) = &mut self.phase else {
            return;
        };
        let rules = &self.rules;
        let same = p
            .held
            .candidate()
            .is_some_and(|c| c.explanation == explanation);
        if !same {
            if let Some(old) = p.held.candidate()
                && p.held_correction(&old.explanation)
                && !p.held_correction(&explanation)
            {
                p.prior_correction = Some(old.clone());
            }
            let settle = p.candidate_settle(rules, &self.config, &explanation, unbacked);
            if p.held_correction(&explanation) {
                // The piece that just moved is on another square: it
                // travelled on after a pause, or it was knocked and will be
                // set back. Only time (or the mover's clock press) tells:
                // it is held as long as a displacement (see
                // `candidate_settle`), and treated as one meanwhile.
                p.displaced = p.shadow_displacement(rules, &explanation, at);
            }
            // A correction a knock can fake, or an explanation the
            // readings do not back up, is not shown before it settles.
            let previewed = unbacked || p.held_correction(&explanation);
            p.held = Held::Move(Candidate {
                explanation,
                since: at,
                settle,
                reading,
                showing: true,
                previewed,
                unbacked,
            });
        } else if let Some(c) = p.held.candidate_mut() {
            c.showing = true;
            let c = p.held.candidate().expect("checked");
            if p.displaced.is_none() && p.held_correction(&c.explanation) {
                // Back on the same correction (the piece travelled on, or
                // was knocked, and a square flickered meanwhile): it still
                // stands for a displacement, seen first when the
                // correction was.
                p.displaced = p.shadow_displacement(rules, &c.explanation, c.since);
            }
        }
        // Back on a candidate that has already stood long enough.
        self.handle_timeout(at);
    }

    /// Every ply of an explanation followed by a ply of the opponent is
    /// finished: it is published now, and only the last one is returned to
    /// settle (unless the readings do not back the explanation up).
    fn publish_finished_plies(
        &mut self,
        at: Millis,
        explanation: Explanation<Move<G>>,
        unbacked: bool,
    ) -> Explanation<Move<G>> {
        let Phase::Playing(p) = &mut self.phase else {
            return explanation;
        };
        // A finished ply that may begin a result signal (a king into the
        // centre) waits with the rest: the reply may be a piece cleared
        // while the other king comes. So does every ply before a last one
        // that may begin it: a piece cleared from the centre and a king
        // set there read as a move onto that square and the king taking
        // it.
        let signal = |moves: &[Move<G>]| {
            let mut pos = p.game.position().clone();
            moves.iter().any(|m| {
                let begins = self.rules.may_begin_signal(&pos, m);
                pos = pos.play(m);
                begins
            })
        };
        match explanation {
            Explanation::Forward(mut moves) if moves.len() >= 2 && !unbacked && !signal(&moves) => {
                let last = moves.pop().expect("two or more");
                // The evidence for the plies after them is in the readings
                // since the board showed them, if it did.
                let explanation = Explanation::Forward(moves);
                let reading = match p.held.take_candidate() {
                    Some(c) if c.explanation == explanation => c.reading,
                    _ => p.evidence_base,
                };
                self.commit(Candidate {
                    explanation,
                    since: at,
                    settle: 0,
                    reading,
                    showing: false,
                    previewed: true,
                    unbacked,
                });
                Explanation::Forward(vec![last])
            }
            e => e,
        }
    }

    /// After an illegal move was reported: if play went on from the
    /// position it made, accept it into the record and explain the rest.
    /// `max_moves`: the most plies after the illegal move that may explain
    /// the board.
    fn continue_irregular(
        &mut self,
        at: Millis,
        target: &Board<G>,
        max_moves: usize,
    ) -> Option<Explanation<Move<G>>> {
        let limits = self.config.limits;
        let Phase::Playing(p) = &mut self.phase else {
            return None;
        };
        let pseudo = p.held.illegal()?;
        let after = pseudo.reported.as_ref()?.as_ref()?;
        let (notation, id) = self.rules.pseudo_text(p.game.position(), &pseudo.m);
        let mut game = p.game.clone();
        game.push_irregular(notation.clone(), id.clone(), after.clone());
        let successors = search::successors(after);
        let evidence = self
            .rules
            .ranks_by_evidence()
            .then(|| evidence_of(p, &self.finality));
        let out = search::Query {
            evidence: evidence.as_ref(),
            ..search::Query::new(&self.rules, &game, &successors, limits)
        }
        .explain(target);
        let Some(Explanation::Forward(moves)) = out.explanation else {
            return None;
        };
        if moves.len() > max_moves {
            return None;
        }
        let pseudo = p.held.take_illegal().expect("checked");
        let after = game.position().clone();
        let ply = p.game.len() as u32 + 1;
        let side = pseudo.m.mover();
        p.game.push_irregular(notation, id, after);
        p.successors = successors;
        p.held.drop_candidate();
        p.touches.clear();
        p.rebuild_referee(&self.rules);
        let event =
            self.rules
                .move_event(ply, side, p.game.plies().last().expect("just pushed"), true);
        self.emit(at, event);
        Some(Explanation::Forward(moves))
    }

    /// The board is not explained by legal play: watch for an illegal move
    /// and for boards that stay wrong.
    fn watch_unexplained(&mut self, at: Millis, target: &Board<G>) {
        let delays = self.config.delays;
        let final_ms = self.config.settle.final_ms;
        let Phase::Playing(p) = &mut self.phase else {
            return;
        };
        let rules = &self.rules;
        let pos = p.game.position().clone();
        // While a legal candidate is pending (a move not yet published, a
        // takeback under way) the board is in motion: no illegal move yet.
        let pseudo = if p.held.candidate().is_some() {
            None
        } else {
            rules.find_pseudo(&pos, target).or_else(|| {
                p.held
                    .illegal()
                    .is_none()
                    .then(|| pushed_beside_hand(rules, &pos, target))
                    .flatten()
            })
        };
        // A move settling, and beside it another piece of its side pushed
        // (a sleeve as the hand comes back, issue 60): a displacement
        // around that move, not the move going on.
        if let Some((m, plies)) = pushed_beside_candidate(rules, p, target) {
            p.note_displacement(m, at, plies);
        }
        match pseudo {
            // A piece of the side not to move changed square: a knock, a
            // push, or a move out of turn. Only a clock press makes it a
            // move (see `handle_clock_press`); until then it is a
            // displacement, and `misplaced` if it stands.
            Some(m) if m.mover() != pos.turn() => {
                let plies = p.game.len();
                p.note_displacement(m, at, plies);
                if p.held.illegal().is_some_and(|x| x.reported.is_none()) {
                    p.held.drop_illegal();
                }
            }
            Some(m) => {
                let same = p
                    .held
                    .illegal()
                    .is_some_and(|x| x.m == m && x.board == *target);
                // Time alone never makes it a move (a knocked piece stands
                // as long as it stands): the press or the reply does.
                // The last ply's piece, lifted again as if to capture this
                // move's piece, set back where it stood: no capture, and the
                // opponent's hand on a piece of their own, so the move was
                // made.
                let set_back = same
                    && p.held
                        .illegal()
                        .is_some_and(|x| x.reported.is_none() && x.capture_lifted);
                if set_back {
                    self.report_illegal(at, Completed::Reply);
                } else if !same && p.held.illegal().is_none_or(|x| x.reported.is_none()) {
                    let made = rules.pseudo_board(&pos, &m, target);
                    p.held = Held::Illegal(Irregular {
                        m,
                        board: target.clone(),
                        made,
                        reported: None,
                        reply_since: None,
                        capture_lifted: false,
                    });
                }
            }
            None => {
                // Pieces lifted from the board the illegal move made: the
                // opponent lifting one of their own proves the move was
                // completed; other lifts (a capture begun with the victim)
                // keep it pending.
                let pending = p.held.illegal().filter(|x| x.reported.is_none());
                let lifted = pending.is_some_and(|x| search::only_removals(&x.board, target));
                // (Not after a king went to the centre: the other king, or
                // a piece cleared out of its way, is the result signal on
                // its way; the reply itself, once on the board, completes
                // the move.)
                // (Nor the pieces a legal capture by the same piece takes:
                // it was set down short of its victim, which is being
                // cleared.)
                // (Nor the capturing piece lifted again when the "illegal
                // move" is its victim set down beside by the capturer's
                // hand: the last ply's piece was set down short of that
                // victim, and the capture goes on.)
                let capture_goes_on = |x: &Irregular<G>, opponents: Set<G>| {
                    let Some(last) = p.game.plies().last().and_then(|r| r.m.as_ref()) else {
                        return false;
                    };
                    let before = p.game.position_at(p.game.len() - 1);
                    opponents == Set::<G>::from(last.to())
                        && victims_of_capture_from(
                            rules,
                            before,
                            last.from(),
                            last.to(),
                            x.m.from().into(),
                        )
                };
                // The opponent's pieces the board lacks.
                let opponents = |x: &Irregular<G>| {
                    let removed = x.board.occupied() & !target.occupied();
                    removed & x.made.by_color(x.m.mover().other())
                };
                let confirmed = lifted
                    && pending.is_some_and(|x| {
                        let opponents = opponents(x);
                        opponents.any()
                            && !capture_goes_on(x, opponents)
                            && !victims_of_capture_from(
                                rules,
                                &pos,
                                x.m.from(),
                                x.m.to(),
                                opponents,
                            )
                            && !rules.signal_pseudo(&x.m)
                    });
                // The piece whose lift read as a capture's victim (the
                // illegal move's piece standing beside it) set down on
                // another square: no capture, but the opponent's reply,
                // made, once it has stood its time (a victim is often set
                // down beside for a moment on its way off the board, and
                // the capture made then).
                let replied = pending.is_some_and(|x| {
                    opponent_moved_one(x, target).is_some_and(|from| {
                        !rules.signal_pseudo(&x.m)
                            && victims_of_capture_from(
                                rules,
                                &pos,
                                x.m.from(),
                                x.m.to(),
                                from.into(),
                            )
                    })
                });
                let capture_lifted =
                    lifted && pending.is_some_and(|x| capture_goes_on(x, opponents(x)));
                let waiting = pending.is_some();
                let stood = match p.held.illegal_mut().filter(|_| waiting) {
                    Some(x) if replied => {
                        let since = *x.reply_since.get_or_insert(at);
                        at >= since + final_ms
                    }
                    Some(x) => {
                        x.reply_since = None;
                        x.capture_lifted |= capture_lifted;
                        false
                    }
                    None => false,
                };
                if confirmed || stood {
                    self.report_illegal(at, Completed::Reply);
                } else if waiting && !lifted && !replied {
                    p.held.drop_illegal();
                }
            }
        }
        let Phase::Playing(p) = &mut self.phase else {
            return;
        };
        let rules = &self.rules;
        let in_hand = {
            let removed = pos.board().occupied() & !target.occupied();
            search::only_removals(pos.board(), target)
                && removed.count() <= 2
                && (removed & !pos.board().by_color(pos.turn())).is_empty()
        };
        let delay = if in_hand {
            delays.in_hand_ms
        } else {
            displacement_delay(rules, &delays, p.displaced.as_ref())
        };
        let u = p.unexplained.get_or_insert(Unexplained {
            since: at,
            due: at + delay,
            raised: None,
            reexamined: false,
        });
        u.due = u.since + delay;
    }

    /// The board is not explained, but a displacement stands: explain it
    /// with the displaced piece put back. The side to move may play on
    /// while it stands (their move is published; the `misplaced` timer
    /// keeps running until the piece is back). Returns whether that
    /// explained the board.
    fn follow_around_displacement(&mut self, at: Millis, target: &Board<G>) -> bool {
        let delays = self.config.delays;
        let Phase::Playing(p) = &mut self.phase else {
            return false;
        };
        let Some(d) = &p.displaced else {
            return false;
        };
        let Some(masked) = put_back::<G>(d, target) else {
            return false;
        };
        let since = d.since;
        match self.search(&masked) {
            Some(Explanation::Same) => {
                let Phase::Playing(p) = &mut self.phase else {
                    return false;
                };
                // A piece of the opponent in the air decides nothing
                // between a knock and a piece that travelled on: a held
                // correction stays, for the reply to decide.
                if !p
                    .held
                    .candidate()
                    .is_some_and(|c| p.held_correction(&c.explanation))
                {
                    p.held.drop_candidate();
                }
                if let Some(c) = p.held.candidate_mut() {
                    c.showing = false;
                }
            }
            Some(e @ Explanation::Forward(_)) => {
                let Phase::Playing(p) = &mut self.phase else {
                    return false;
                };
                p.resync = false;
                // Play went on around it: whatever it stood for, it is now
                // a displacement of its own.
                if let Some(d) = &mut p.displaced {
                    d.shadow = false;
                }
                self.follow(at, e);
            }
            _ => return false,
        }
        let Phase::Playing(p) = &mut self.phase else {
            return false;
        };
        let delay = displacement_delay(&self.rules, &delays, p.displaced.as_ref());
        let u = p.unexplained.get_or_insert(Unexplained {
            since,
            due: since + delay,
            raised: None,
            reexamined: false,
        });
        u.due = u.since + delay;
        true
    }

    /// A correction of the last ply is held (the piece that just moved
    /// stands on another square: it travelled on, or was knocked) and the
    /// board is not explained with the piece put back. If the opponent's
    /// reply on the board is legal play from the corrected position, the
    /// opponent replied to the piece where it stands: the correction is
    /// published (`retract` and the move), then the reply. Returns whether
    /// that explained the board.
    ///
    /// Design: the reply is evidence. Had the piece been knocked from a
    /// square it was really played to, the reply would be legal with it
    /// put back (see `follow_around_displacement`, tried first); a reply
    /// legal only with the piece where it stands says it was played there.
    fn follow_from_correction(&mut self, at: Millis, target: &Board<G>) -> bool {
        let limits = self.config.limits;
        let Phase::Playing(p) = &mut self.phase else {
            return false;
        };
        let Some((c, from_prior)) = p.held_or_prior() else {
            return false;
        };
        if p.game.len() <= p.completed {
            return false;
        }
        let Explanation::Back { then, .. } = &c.explanation else {
            return false;
        };
        let mut game = p.game.clone();
        game.truncate(game.len() - 1);
        game.push(then[0].clone());
        let successors = search::successors(game.position());
        let evidence = self
            .rules
            .ranks_by_evidence()
            .then(|| evidence_of(p, &self.finality));
        let out = search::Query {
            evidence: evidence.as_ref(),
            ..search::Query::new(&self.rules, &game, &successors, limits)
        }
        .explain(target);
        self.stats.searches += 1;
        self.stats.nodes += out.nodes as u64;
        let Some(reply @ Explanation::Forward(_)) = out.explanation else {
            return false;
        };
        let Phase::Playing(p) = &mut self.phase else {
            return false;
        };
        let c = if from_prior {
            p.held.drop_candidate();
            p.prior_correction.take()
        } else {
            p.held.take_candidate()
        }
        .expect("checked");
        p.displaced = None;
        p.held.drop_illegal();
        p.resync = false;
        self.commit(c);
        self.clear_unexplained(at);
        self.follow(at, reply);
        true
    }

    /// Whether the held correction (the candidate, else the one a
    /// passing board replaced: [`Playing::prior_correction`]) is a piece
    /// that came back (see [`came_back`]) rather than one that travelled
    /// on.
    fn correction_came_back(&self) -> bool {
        let Phase::Playing(p) = &self.phase else {
            return false;
        };
        p.held_or_prior()
            .is_some_and(|(c, _)| p.piece_came_back(c, 0))
    }

    /// A displacement of the piece its side moved last has stood past the
    /// delay and no clock press completed that move: re-examine the last
    /// plies for a history that explains the board with no displacement
    /// (the piece travelled on after a pause). Returns whether one did; it
    /// is then published as a correction (`retract` and moves).
    ///
    /// `on_time`: re-examined because the delay ran out, not because the
    /// piece was played on from where it stands. Then a final last ply
    /// with no reply after it is never withdrawn: time alone does not
    /// correct a final move (see [`Playing::awaits_reply`]).
    fn reexamine(&mut self, at: Millis, target: &Board<G>, on_time: bool) -> bool {
        let mut limits = self.config.limits;
        let Phase::Playing(p) = &mut self.phase else {
            return false;
        };
        let Some(d) = &p.displaced else {
            return false;
        };
        // The last ply of that side, among the last four, that set the
        // piece where it was displaced from.
        let n = p.game.len();
        let found = p
            .game
            .plies()
            .iter()
            .enumerate()
            .skip(n.saturating_sub(4))
            .rev()
            .find(|(i, ply)| {
                p.game.position_at(*i).turn() == d.m.mover()
                    && ply.m.as_ref().is_some_and(|m| m.to() == d.m.from())
            });
        let Some((i, _)) = found else {
            return false;
        };
        let back = n - i;
        let displaced_to = d.m.to();
        // Design: the history must withdraw the ply that moved the piece
        // (so the displacement becomes where that ply went), no further
        // than four plies back; the search then plays forward from there
        // as deep as it withdrew, plus one. A ply completed by a clock
        // press is never withdrawn.
        if i < p.completed || i + 1 != d.plies {
            return false;
        }
        if on_time && i + 1 == n && self.finality.final_plies() >= n {
            return false;
        }
        // The withdrawn ply is played again, to where the piece stands;
        // the plies after it are searched from there.
        let withdrawn = p.game.plies()[i].m.clone().expect("checked");
        let mut game = p.game.clone();
        game.truncate(i);
        let Some(first) = game.position().legal_moves().find(|m| {
            m.from() == withdrawn.from() && m.to() == d.m.to() && m.same_choice(&withdrawn)
        }) else {
            return false;
        };
        game.push(first.clone());
        // The plies published after it keep their order (the readings
        // gave it), when they are still legal and give the board.
        let published: Vec<Move<G>> = p.game.plies()[i + 1..]
            .iter()
            .filter_map(|r| r.m.clone())
            .collect();
        let mut replayed = game.position().clone();
        let same_order = published.len() == back - 1
            && published.iter().all(|m| {
                let ok = replayed.legal_moves().any(|l| l == *m);
                if ok {
                    replayed = replayed.play(m);
                }
                ok
            })
            && in_hand_of_mover::<G>(&replayed, target, displaced_to);
        if same_order {
            let then = std::iter::once(first).chain(published).collect();
            self.correct(at, Explanation::Back { plies: back, then });
            return true;
        }
        let successors = search::successors(game.position());
        limits.stream_depth = back;
        limits.back = 0;
        limits.budget = limits.resync_budget;
        let Phase::Playing(p) = &mut self.phase else {
            return false;
        };
        let evidence = (p.touched_at.clone(), p.evidence_base);
        let evidence = self.rules.ranks_by_evidence().then(|| Evidence {
            touched_at: &evidence.0,
            base: evidence.1,
            provisional: 0,
        });
        let out = search::Query {
            evidence: evidence.as_ref(),
            ..search::Query::new(&self.rules, &game, &successors, limits)
        }
        .explain(target);
        self.stats.searches += 1;
        self.stats.nodes += out.nodes as u64;
        let rest = match out.explanation {
            Some(Explanation::Forward(rest)) => rest,
            Some(Explanation::Same) => Vec::new(),
            _ => return false,
        };
        let then = std::iter::once(first).chain(rest).collect();
        self.correct(at, Explanation::Back { plies: back, then });
        true
    }

    /// Publishes a re-examined history at once, the displacement gone (and
    /// a `misplaced` alert raised for it cleared).
    fn correct(&mut self, at: Millis, explanation: Explanation<Move<G>>) {
        self.clear_unexplained(at);
        let Phase::Playing(p) = &mut self.phase else {
            return;
        };
        p.displaced = None;
        p.held.drop_illegal();
        p.held.drop_candidate();
        let reading = self.stats.readings;
        self.commit(Candidate {
            explanation,
            since: at,
            settle: 0,
            reading,
            showing: false,
            previewed: true,
            unbacked: false,
        });
    }

    fn report_illegal(&mut self, at: Millis, completed: Completed) {
        let Phase::Playing(p) = &mut self.phase else {
            return;
        };
        // Reported as displaced pieces while it stood: now it is a move.
        if let Some(u) = &mut p.unexplained
            && u.raised == Some(AlertKind::Misplaced)
        {
            u.raised = Some(AlertKind::IllegalMove);
            let a = arbiter::cleared(
                AlertKind::Misplaced,
                self.rules.article(Article::Displaced),
                "The displaced piece was a move: reported as an illegal move.".into(),
            );
            self.emit(at, EventKind::Alert(a));
        }
        let Phase::Playing(p) = &mut self.phase else {
            return;
        };
        let Some(x) = p.held.illegal_mut() else {
            return;
        };
        let before = p.game.position().clone();
        let color = x.m.mover();
        let count = &mut p.illegal_counts[color.index()];
        *count += 1;
        let alert = self
            .rules
            .illegal_move_alert(&before, &x.m, *count, p.game.len(), completed);
        x.reported = Some(self.rules.irregular(&before, x.made.clone(), color.other()));
        // The piece was moved, not displaced: lifted and later put back,
        // it was touched.
        let from = x.m.from();
        for t in p.touches.iter_mut().filter(|t| t.sq == from) {
            t.displaced = false;
        }
        self.emit(at, EventKind::Alert(alert));
    }

    fn raise_unexplained(&mut self, at: Millis) {
        let target = self.target();
        if self.reexamine(at, &target, true) {
            return;
        }
        let Phase::Playing(p) = &mut self.phase else {
            return;
        };
        if p.course.ended() || p.held.illegal().is_some_and(|x| x.reported.is_some()) {
            // Said already (an illegal move), or the game is over and the
            // pieces are being put away: nothing to add, nothing to clear.
            if let Some(u) = &mut p.unexplained {
                u.raised = Some(AlertKind::IllegalMove);
            }
            return;
        }
        // A move settling beside the displaced piece (the mover played on
        // around it, issue 60): the board is told against that move's
        // position, so that the alert names the displaced piece alone.
        // (The displaced piece, if it still stands where it went, and the
        // board with it put back.)
        let standing = p
            .displaced
            .as_ref()
            .and_then(|d| Some((d, put_back(d, &target)?)));
        let around = p
            .held
            .candidate()
            .filter(|c| matches!(c.explanation, Explanation::Forward(_)))
            .map(|c| candidate_position(&p.game, &c.explanation))
            .filter(|after| {
                standing
                    .as_ref()
                    .is_some_and(|(_, b)| b.matches(after.board()))
            });
        // No displacement kept, but one piece pushed beside legal play (a
        // move made or answered around it): that push, against the
        // position the play leads to.
        let beside = if standing.is_none() {
            pushed_beside_play(&self.rules, p, &target, self.config.limits)
        } else {
            None
        };
        let (around, pushed) = match beside {
            Some((after, m)) => (Some(after), Some(m)),
            None => (around, None),
        };
        let base = around.as_ref().unwrap_or(p.game.position());
        // A displaced piece that still stands where it went is what the
        // alert is about, whatever the mover's hand does meanwhile (a piece
        // of theirs in the air, a touch): told alone, with its side.
        let displaced = standing
            .filter(|(d, _)| !d.shadow)
            .map(|(d, _)| d.m.clone())
            .or(pushed)
            .map(|m| {
                let mut b = base.board().clone();
                b.discard_piece_at(m.from());
                b.set_piece_at(m.to(), m.placed());
                b
            });
        let alert = match self.rules.illegal_position_alert(&target) {
            Some(alert) => alert,
            None => self
                .rules
                .misplaced_alert(base, displaced.as_ref().unwrap_or(&target)),
        };
        if let Some(u) = &mut p.unexplained {
            u.raised = Some(alert.kind);
        }
        self.emit(at, EventKind::Alert(alert));
    }

    fn clear_unexplained(&mut self, at: Millis) {
        let Phase::Playing(p) = &mut self.phase else {
            return;
        };
        let Some(u) = p.unexplained.take() else {
            return;
        };
        let message = match u.raised {
            Some(AlertKind::Misplaced) => Some((
                AlertKind::Misplaced,
                Article::Displaced,
                "The board agrees with the game again.",
            )),
            Some(AlertKind::IllegalPosition) => Some((
                AlertKind::IllegalPosition,
                Article::IllegalPosition,
                "The impossible position is gone; the board agrees with the game again.",
            )),
            _ => None,
        };
        if let Some((kind, law, text)) = message {
            let a: Alert = arbiter::cleared(kind, self.rules.article(law), text.into());
            self.emit(at, EventKind::Alert(a));
        }
    }

    /// While the board's orientation is open and no move was made: when
    /// the board is not explained as it stands, whether it is explained
    /// turned round (the first move, seen from the other side). If so the
    /// orientation is fixed, and the turned board and its explanation are
    /// returned.
    fn orient(
        &mut self,
        target: &Board<G>,
        unexplained: bool,
    ) -> Option<(Board<G>, Explanation<Move<G>>)> {
        let Phase::Playing(p) = &mut self.phase else {
            return None;
        };
        if !(p.orientation == Orientation::Open && unexplained && p.game.is_empty()) {
            return None;
        }
        let turned = target.rotated();
        // The evidence turned round with the board.
        self.turn_evidence();
        // Only an explanation the readings back up fixes the orientation:
        // a piece in the hand or knocked reads, turned round, as a capture
        // whose destination nobody touched.
        let Some(e) = self.search(&turned).filter(|_| self.backed) else {
            self.turn_evidence();
            return None;
        };
        let Phase::Playing(p) = &mut self.phase else {
            return None;
        };
        p.orientation = Orientation::Rotated;
        p.oriented_by_play = true;
        // (The readings' numbers per square were turned for the search.)
        p.turn_readings_round(&self.rules);
        Some((turned, e))
    }

    /// Turns the squares of the evidence (see [`Playing::touched_at`])
    /// round.
    fn turn_evidence(&mut self) {
        if let Phase::Playing(p) = &mut self.phase {
            p.turn_touched_at(&self.rules);
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
            self.emit(
                at,
                EventKind::GameEnd {
                    result: "*".into(),
                    reason: "new game set up".into(),
                    winner: None,
                },
            );
        }
        self.emit(at, self.rules.start_event(&start, rotated));
        let game = Record::new(start);
        self.phase = Phase::Playing(Box::new(Playing {
            successors: search::successors(game.start()),
            referee: self.rules.referee(&game),
            game,
            orientation: Orientation::of_start(rotated),
            oriented_by_play: false,
            held: Held::Nothing,
            prior_correction: None,
            resync: false,
            course: Course::InPlay,
            kings: None,
            illegal_counts: [0; 2],
            displaced: None,
            completed: 0,
            unexplained: None,
            touches: Vec::new(),
            moved_at: None,
            recent: VecDeque::new(),
            touched_at: if self.rules.ranks_by_evidence() {
                vec![(0, 0); self.rules.square_count()]
            } else {
                Vec::new()
            },
            evidence_base: self.stats.readings,
        }));
    }

    /// Publishes a candidate. The events carry the time of the reading that
    /// completed it.
    fn commit(&mut self, c: Candidate<G>) {
        let t = c.since;
        let delays = self.config.delays;
        let Phase::Playing(p) = &mut self.phase else {
            return;
        };
        let rules = &self.rules;
        if p.held_correction(&c.explanation) {
            p.displaced = None;
        }
        p.prior_correction = None;
        p.evidence_base = p.evidence_base.max(c.reading);
        let mut out = Vec::new();
        match c.explanation {
            Explanation::Same => {}
            Explanation::Forward(moves) => {
                for m in moves {
                    // Only lifts before the move was set down: a piece
                    // lifted after it (a knock while the move settled) is
                    // no touch before the move (the move was final once
                    // released).
                    let before: Vec<Touch<G>> =
                        p.touches.iter().filter(|x| x.lifted < t).cloned().collect();
                    if !before.is_empty() {
                        let alerts =
                            rules.touch_alerts(p.game.position(), &m, &before, delays.touch_ms);
                        out.extend(alerts.into_iter().map(EventKind::Alert));
                    }
                    p.touches.clear();
                    // (Or later, when the hand went on finishing it before
                    // the board settled: a man taken off from beside.)
                    p.moved_at = Some(p.moved_at.map_or(t, |m| m.max(t)));
                    if p.moves_its_victim(rules, &m) {
                        self.finality.hold_reply(p.game.len() as u32 + 1);
                    }
                    out.push(p.push_move(rules, m));
                    out.extend(p.after_move(rules));
                }
            }
            Explanation::Back { plies, then } if then.is_empty() => {
                let to = p.game.len() - plies;
                p.game.truncate(to);
                p.successors = search::successors(p.game.position());
                p.rebuild_referee(rules);
                out.push(rules.takeback_event(to as u32, p.game.position()));
                p.course = Course::InPlay;
                if to == 0 && p.oriented_by_play {
                    // The move that turned the board round is taken back
                    // (a knock read as the first move): its orientation
                    // goes with it.
                    p.oriented_by_play = false;
                    p.orientation = Orientation::Open;
                    p.turn_squares_round(rules);
                }
            }
            Explanation::Back { plies, then } => {
                out.extend(p.withdraw(rules, plies));
                p.course = Course::InPlay;
                for m in then {
                    if p.moves_its_victim(rules, &m) {
                        self.finality.hold_reply(p.game.len() as u32 + 1);
                    }
                    out.push(p.push_move(rules, m));
                    out.extend(p.after_move(rules));
                }
            }
        }
        p.touches.clear();
        let final_ms = self.config.settle.final_ms;
        self.finality
            .route_batch(t, out, final_ms, &mut self.events);
    }
}

/// While a move settles (a forward candidate), a piece of the mover's side
/// other than the ones the move takes changed square: the displacement
/// that makes, as a change of that piece (its squares are the same in the
/// game), with the plies the game will have once the move is published.
fn pushed_beside_candidate<G: Game>(
    rules: &G,
    p: &Playing<G>,
    target: &Board<G>,
) -> Option<(Pseudo<G>, usize)> {
    let c = p.held.candidate()?;
    let Explanation::Forward(moves) = &c.explanation else {
        return None;
    };
    let after = candidate_position(&p.game, &c.explanation);
    let m = rules.find_pseudo(&after, target)?;
    let touched = |sq| moves.iter().any(|x| x.from() == sq || x.to() == sq);
    (m.mover() != after.turn() && !touched(m.from()) && !touched(m.to()))
        .then_some((m, p.game.len() + moves.len()))
}

/// The mover's hand holds pieces of their own (lifted, not set down yet)
/// while a piece of the other side is pushed (issue 60): that push, found
/// on the board with the lifted pieces back where the game has them.
fn pushed_beside_hand<G: Game>(
    rules: &G,
    pos: &Position<G>,
    target: &Board<G>,
) -> Option<Pseudo<G>> {
    let lifted = lifted_of_side_to_move::<G>(pos, target);
    if lifted.is_empty() {
        return None;
    }
    let mut restored = target.clone();
    for sq in lifted {
        if let Some(piece) = pos.board().piece_at(sq) {
            restored.set_piece_at(sq, piece);
        }
    }
    // Only that: one piece of the other side onto a free square, nothing
    // of the mover's set down anywhere (an illegal move, a capture under
    // way are read otherwise).
    if restored.diff(pos.board()).count() != 2 {
        return None;
    }
    rules
        .find_pseudo(pos, &restored)
        .filter(|m| m.mover() != pos.turn() && pos.board().piece_at(m.to()).is_none())
}

impl<G: Game> Playing<G> {
    /// A piece displaced as `m` (first seen at `at`, with `plies` in the
    /// game then): kept as the displacement unless it is the one already
    /// kept; one that changed keeps when the first was seen.
    fn note_displacement(&mut self, m: Pseudo<G>, at: Millis, plies: usize) {
        if self.displaced.as_ref().is_some_and(|d| d.m == m) {
            return;
        }
        let (since, plies) = self
            .displaced
            .as_ref()
            .map_or((at, plies), |d| (d.since, d.plies));
        self.displaced = Some(Displacement {
            m,
            since,
            plies,
            shadow: false,
        });
    }
}
