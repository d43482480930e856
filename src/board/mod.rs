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

pub mod arbiter;
pub mod occupancy;
pub mod search;
pub mod settle;

use std::collections::VecDeque;

use crate::event::{Alert, AlertKind, EventKind, Millis, Side};
use crate::rules::irregular::{PseudoMove, find_pseudo_move, illegality, impossibility};
use crate::rules::laws::Law;
use crate::rules::{
    Bitboard, Board, Color, Game, Move, Piece, Position, PositionOutcome, Square, detect_start,
    rotated,
};

/// Readings kept for the order evidence of [`came_back`]: enough for a
/// move, a knock and its set-back, and the opponent's first lifts.
const RECENT: usize = 48;

pub use arbiter::{AlertDelays, Completed};
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

/// Which start positions begin a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Variant {
    /// The standard start and every Chess960 start.
    #[default]
    Auto,
    /// Only the standard start; any other arrangement of the back ranks is
    /// a wrong set-up (Law 7.2a): a king and queen swapped is a `setup`
    /// alert, not a Chess960 game.
    Standard,
    /// Any Chess960 start.
    Chess960,
}

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
    /// Which start positions begin a game.
    pub variant: Variant,
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

/// A board that looks like an illegal move of the side to move. It is
/// reported only once completed (Law 6.2a: the clock pressed, or the
/// opponent begins to reply); until then it is a displacement.
#[derive(Clone, Debug)]
struct Pseudo {
    m: PseudoMove,
    /// The board it made (game orientation).
    board: Board,
    /// The alert has been raised; the position it made, when play can go
    /// on from it.
    reported: Option<Option<Position>>,
}

/// A piece moved by the side *not* to move (or left standing after a
/// knock): not a move, and not an accusation, until evidence says so.
#[derive(Clone, Debug)]
struct Displacement {
    /// The change, as a move of that piece (`from` is its square in the
    /// game).
    m: PseudoMove,
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

/// A piece of the side to move lifted since the last move.
#[derive(Clone, Copy, Debug)]
struct Touch {
    sq: Square,
    piece: Piece,
    lifted: Millis,
    back: Option<Millis>,
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
    /// The result is known (checkmate, stalemate, a result piece, the kings
    /// in the centre, the operator): the record is frozen until a new game.
    frozen: bool,
    /// The kings stand in the centre: when that becomes the result, the
    /// plies to withdraw, the result, and the board that showed it.
    kings: Option<(Millis, usize, &'static str, Board)>,
    illegal_counts: [u32; 2],
    pseudo: Option<Pseudo>,
    /// A displaced piece standing on the board (see [`Displacement`]).
    displaced: Option<Displacement>,
    /// Plies known to be completed: the mover pressed the clock after
    /// them (Law 6.2a). A completed move is never re-read as a piece that
    /// travelled on.
    completed: usize,
    unexplained: Option<Unexplained>,
    touches: Vec<Touch>,
    /// The last readings in game orientation (a piece set down, or a
    /// square emptied), newest last, for the order evidence of
    /// [`came_back`].
    recent: VecDeque<(Square, Option<Piece>)>,
}

#[derive(Clone, Debug, Default)]
struct Waiting {
    /// The set-up looks wrong: when to say so, and what was said.
    setup_due: Option<Millis>,
    raised: Option<Bitboard>,
}

#[derive(Clone, Debug)]
enum Phase {
    /// No game yet: waiting for a start position.
    Waiting(Waiting),
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
            phase: Phase::Waiting(Waiting::default()),
            events: VecDeque::new(),
            stats: Stats::default(),
        }
    }

    /// A square changed, as the sensors see it (board orientation: `sq` is
    /// the square the board would call it if it stood the normal way round).
    pub fn handle_square(&mut self, at: Millis, sq: Square, cell: Cell) {
        self.note_touch(at, sq, cell);
        self.set_cell(sq, cell);
        if let Cell::Token(token) = cell {
            self.handle_token(at, sq, token);
        }
        self.on_reading(at);
    }

    /// A result piece set on the board (DGT's draw / white-wins /
    /// black-wins tokens) gives the game's result.
    fn handle_token(&mut self, at: Millis, sq: Square, token: Token) {
        let (result, name) = match token {
            Token::Draw => ("1/2-1/2", "draw"),
            Token::WhiteWins => ("1-0", "white-wins"),
            Token::BlackWins => ("0-1", "black-wins"),
        };
        self.set_result(at, result, &format!("result piece ({name}) on {sq}"));
    }

    /// The game's result, given by the operator, a result piece or the
    /// kings in the centre: the game ends and its record is frozen until a
    /// new game is set up. Does nothing when the result is already known.
    pub fn set_result(&mut self, at: Millis, result: &str, reason: &str) {
        let Phase::Playing(p) = &mut self.phase else {
            return;
        };
        if p.frozen {
            return;
        }
        p.frozen = true;
        p.ended = true;
        p.candidate = None;
        p.showing = false;
        p.pseudo = None;
        p.displaced = None;
        // A displacement reported while the result signal was on its way
        // (a king set early in the centre) is withdrawn.
        if p.unexplained
            .is_some_and(|u| u.raised == Some(AlertKind::Misplaced))
        {
            let a = arbiter::cleared(
                AlertKind::Misplaced,
                Some(Law::Displaced),
                "The game has ended; the displaced-pieces report is withdrawn.".into(),
            );
            self.emit(at, EventKind::Alert(a));
        }
        let p = self.playing();
        p.unexplained = None;
        self.emit(
            at,
            EventKind::GameEnd {
                result: result.into(),
                reason: reason.into(),
            },
        );
    }

    /// The operator restarts the board's game: the current one ends
    /// unfinished and boardcast waits for a start position.
    pub fn restart(&mut self, at: Millis) {
        if let Phase::Playing(p) = &self.phase
            && !p.ended
        {
            self.emit(
                at,
                EventKind::GameEnd {
                    result: "*".into(),
                    reason: "restarted by the operator".into(),
                },
            );
        }
        self.phase = Phase::Waiting(Waiting::default());
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

    /// The player of `side` pressed the clock at `at` (Law 6.2a: their move
    /// is complete). A candidate move of theirs is published at once (its
    /// event keeps the time of the reading that completed it).
    pub fn handle_clock_press(&mut self, at: Millis, side: Side) -> Press {
        debug_assert!(self.events.back().is_none_or(|(t, _)| *t <= at));
        let target = self.target();
        let Phase::Playing(p) = &mut self.phase else {
            return Press::NoGame;
        };
        // The candidate is on the board, or the opponent has already begun
        // to take one of its pieces (a capture begun with the victim).
        if let Some(c) = &p.candidate
            && (p.showing
                || search::only_removals(
                    candidate_position(&p.game, &c.explanation).board(),
                    &target,
                ))
            && last_mover(&p.game, &c.explanation) == Some(side)
        {
            let c = p.candidate.take().expect("checked");
            self.commit(c);
            let p = self.playing();
            p.completed = p.game.len();
            return Press::Published;
        }
        let turn = Side::from(p.game.position().turn());
        // A piece of the side not to move stands displaced and that side
        // pressed its clock: a move out of turn was completed (Laws 6.2a,
        // 7.5). Without the press it stays a displacement.
        if turn != side
            && p.pseudo.is_none()
            && p.displaced
                .as_ref()
                .is_some_and(|d| Side::from(d.m.piece.color) == side)
            && p.candidate.is_none()
        {
            let p = self.playing();
            let d = p.displaced.take().expect("checked");
            p.pseudo = Some(Pseudo {
                m: d.m,
                board: target,
                reported: None,
            });
            self.report_illegal(at, Completed::Press);
            return Press::IllegalMove;
        }
        // The side to move pressed with an illegal move on the board: it
        // is completed.
        if turn == side
            && p.pseudo
                .as_ref()
                .is_some_and(|x| x.reported.is_none() && Side::from(x.m.piece.color) == side)
        {
            self.report_illegal(at, Completed::Press);
            return Press::IllegalMove;
        }
        let p = self.playing();
        if turn != side && !p.game.is_empty() {
            // The presser made the last ply: it is complete.
            p.completed = p.game.len();
        }
        if p.candidate.is_none()
            && Side::from(p.game.position().turn()) == side
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
            Phase::Playing(p) => match &p.candidate {
                Some(c) => (
                    p.game.len() + c.explanation.cost(),
                    last_mover(&p.game, &c.explanation),
                ),
                None => (
                    p.game.len(),
                    (!p.game.is_empty()).then(|| Side::from(!p.game.position().turn())),
                ),
            },
        }
    }

    /// Time has reached `now`: publish what has settled, raise what has
    /// stood long enough.
    pub fn handle_timeout(&mut self, now: Millis) {
        match &mut self.phase {
            Phase::Waiting(w) => {
                if w.setup_due.is_some_and(|d| d <= now) {
                    w.setup_due = None;
                    if let Some((intended, d)) =
                        arbiter::nearest_start(&self.raw, self.config.variant != Variant::Standard)
                    {
                        w.raised = Some(d);
                        let a = arbiter::setup(&intended, &self.raw);
                        self.emit(now, EventKind::Alert(a));
                    }
                }
            }
            Phase::Playing(p) => {
                if let Some((due, plies, result, _)) = p.kings
                    && due <= now
                {
                    // Not moves: a king move into the centre published a
                    // moment before is withdrawn.
                    p.kings = None;
                    for e in withdraw(p, plies) {
                        self.emit(now, e);
                    }
                    self.set_result(now, result, "kings in the centre");
                    return;
                }
                if p.showing && p.candidate.as_ref().is_some_and(|c| c.due() <= now) {
                    let c = p.candidate.take().expect("checked");
                    self.commit(c);
                    return;
                }
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
                    if self.reexamine(now, &target) {
                        return;
                    }
                }
                let p = self.playing();
                if let Some(u) = p.unexplained
                    && u.raised.is_none()
                    && u.due <= now
                {
                    self.raise_unexplained(now);
                }
            }
        }
    }

    /// When [`Reconstructor::handle_timeout`] should next be called, if at all.
    pub fn poll_timeout(&self) -> Option<Millis> {
        match &self.phase {
            Phase::Waiting(w) => w.setup_due,
            Phase::Playing(p) => {
                let candidate = p
                    .candidate
                    .as_ref()
                    .filter(|_| p.showing)
                    .map(Candidate::due);
                let check = self.config.delays.misplaced_ms;
                let unexplained = p
                    .unexplained
                    .filter(|u| u.raised.is_none() && !p.ended)
                    .map(|u| {
                        if u.reexamined {
                            u.due
                        } else {
                            u.due.min(u.since + check)
                        }
                    });
                let kings = p.kings.as_ref().map(|k| k.0);
                [candidate, unexplained, kings].into_iter().flatten().min()
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
    pub fn game(&self) -> Option<&Game> {
        match &self.phase {
            Phase::Playing(p) => Some(&p.game),
            Phase::Waiting(_) => None,
        }
    }

    /// Whether the board stands turned round.
    pub fn is_rotated(&self) -> bool {
        matches!(&self.phase, Phase::Playing(p) if p.rotated)
    }

    /// The pieces as the sensors see them, in the game's orientation (the
    /// board part of a FEN; result tokens left out).
    pub fn sensed_placement(&self) -> String {
        crate::rules::board_fen(&self.target())
    }

    /// Whether the board agrees with the published game right now.
    pub fn in_sync(&self) -> bool {
        match &self.phase {
            Phase::Playing(p) => p.unexplained.is_none() && p.candidate.is_none(),
            Phase::Waiting(_) => false,
        }
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

    /// Remembers lifts of the side to move, for touch-move (Law 4.3).
    fn note_touch(&mut self, at: Millis, sq: Square, cell: Cell) {
        let Phase::Playing(p) = &mut self.phase else {
            return;
        };
        let game_sq = if p.rotated {
            sq.flip_vertical().flip_horizontal()
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
            p.recent.push_back((game_sq, seen));
        }
        match (self.raw.piece_at(sq), cell) {
            (Some(piece), Cell::Empty) if piece.color == turn && p.touches.len() < 32 => {
                p.touches.push(Touch {
                    sq: game_sq,
                    piece,
                    lifted: at,
                    back: None,
                });
            }
            (None, Cell::Piece(piece)) => {
                if let Some(t) = p
                    .touches
                    .iter_mut()
                    .rev()
                    .find(|t| t.sq == game_sq && t.piece == piece && t.back.is_none())
                {
                    t.back = Some(at);
                }
            }
            _ => {}
        }
    }

    fn emit(&mut self, at: Millis, kind: EventKind) {
        self.events.push_back((at, kind));
    }

    fn playing(&mut self) -> &mut Playing {
        match &mut self.phase {
            Phase::Playing(p) => p,
            Phase::Waiting(_) => unreachable!("called while a game is on"),
        }
    }

    fn on_reading(&mut self, at: Millis) {
        self.stats.readings += 1;
        let start = detect_start(&self.raw).filter(|s| match self.config.variant {
            Variant::Auto | Variant::Chess960 => true,
            Variant::Standard => !s.position.is_chess960(),
        });
        match &mut self.phase {
            Phase::Waiting(w) => {
                if let Some(start) = start {
                    if w.raised.is_some() {
                        let a = arbiter::cleared(
                            AlertKind::Setup,
                            Some(Law::Setup),
                            "The initial position is now set up correctly.".into(),
                        );
                        self.emit(at, EventKind::Alert(a));
                    }
                    self.start_game(at, start.position, start.rotated);
                    return;
                }
                let chess960 = self.config.variant != Variant::Standard;
                match arbiter::nearest_start(&self.raw, chess960) {
                    Some((_, d)) if w.raised != Some(d) => {
                        w.setup_due = Some(at + self.config.delays.setup_ms);
                    }
                    Some(_) => w.setup_due = None,
                    None => {
                        w.setup_due = None;
                    }
                }
            }
            Phase::Playing(_) => self.on_playing_reading(at, start),
        }
    }

    fn target(&self) -> Board {
        match &self.phase {
            Phase::Playing(p) if p.rotated => rotated(&self.raw),
            _ => self.raw.clone(),
        }
    }

    fn search(&mut self, target: &Board) -> Option<Explanation> {
        let limits = self.config.limits;
        let p = self.playing();
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
            target,
            prefer_back,
            p.resync,
            limits,
        );
        self.stats.searches += 1;
        self.stats.nodes += out.nodes as u64;
        self.stats.max_nodes = self.stats.max_nodes.max(out.nodes);
        out.explanation
    }

    fn on_playing_reading(&mut self, at: Millis, start: Option<crate::rules::StartPosition>) {
        let target = self.target();
        let p = self.playing();
        if p.frozen {
            // A finished game: only a new start position matters.
            if let Some(start) = start {
                self.start_game(at, start.position, start.rotated);
            }
            return;
        }
        // Players report a result with both kings on the centre squares;
        // it counts once it has stood a moment (a king set down briefly on
        // a wrong square can touch the centre too).
        let delay = self.config.settle.kings_signal_ms;
        let p = self.playing();
        match kings_in_the_centre(&p.game, &target) {
            Some((plies, result)) => {
                if p.kings.as_ref().is_none_or(|k| k.3 != target) {
                    p.kings = Some((at + delay, plies, result, target.clone()));
                }
                p.showing = false;
                return;
            }
            None => p.kings = None,
        }
        // A displaced piece still standing where it was pushed: the rest of
        // the board is explained around it. (Once it is that side's turn,
        // it is still not their move: it got there before.)
        let standing = {
            let p = self.playing();
            p.displaced
                .as_ref()
                .is_some_and(|d| !d.shadow && put_back(d, &target).is_some())
        };
        if standing && self.follow_around_displacement(at, &target) {
            return;
        }
        // The piece that just moved came back to a square it stood on
        // before the one its ply was published to (it was knocked on and
        // set back): that square is the move, and the opponent's reply is
        // read from it first, before any other history (play around a
        // displacement, a repeated position taken for a takeback).
        if self.candidate_came_back() && self.follow_from_correction(at, &target) {
            return;
        }
        let mut explanation = self.search(&target);
        // A completed move (its player pressed the clock) does not travel
        // on: a change of that piece is a displacement.
        {
            let p = self.playing();
            if explanation
                .as_ref()
                .is_some_and(|e| held_correction(&p.game, e))
                && p.game.len() <= p.completed
            {
                explanation = None;
            }
        }

        // The start position set up again is a new game, unless the game
        // itself explains it by play.
        if let Some(start) = start {
            let p = self.playing();
            let by_play = matches!(
                explanation,
                Some(Explanation::Same | Explanation::Forward(_))
            );
            if !by_play && (!p.game.is_empty() || p.ended) {
                self.start_game(at, start.position, start.rotated);
                return;
            }
        }

        if explanation.is_none() {
            // The opponent lifting one of their own pieces proves the
            // candidate move finished. (Not a takeback: lifting a piece
            // after restoring a position proves nothing.)
            let p = self.playing();
            // (Not when a king went to the centre and the other king is
            // lifted: that is the kings-in-the-centre result signal.)
            let confirmed = p.candidate.as_ref().is_some_and(|c| {
                let after = candidate_position(&p.game, &c.explanation);
                matches!(c.explanation, Explanation::Forward(_))
                    && lifted_by_side_to_move(&after, &target)
                    && !(king_into_centre(&c.explanation)
                        && (after.board().by_role(crate::rules::Role::King) & !target.occupied())
                            .any())
            });
            if confirmed {
                let c = p.candidate.take().expect("checked");
                self.commit(c);
                explanation = self.search(&target);
            }
        }
        // A takeback under way (one ply restored, the board now lacking
        // only pieces of the position before it): the players are taking
        // back another ply, not making two new ones.
        {
            let p = self.playing();
            if let (
                Some(Candidate {
                    explanation: Explanation::Back { plies, then },
                    ..
                }),
                Some(Explanation::Forward(moves)),
            ) = (&p.candidate, &explanation)
                && then.is_empty()
                && moves.len() >= 2
                && p.game.len() > *plies
                && search::only_removals(
                    p.game.position_at(p.game.len() - plies - 1).board(),
                    &target,
                )
            {
                explanation = None;
            }
        }
        // A displacement was seen before the rest changed: a history that
        // plays it as a later ply (the reply to a move made after it)
        // contradicts the order of the readings.
        {
            let p = self.playing();
            if let (Some(d), Some(Explanation::Forward(moves))) = (&p.displaced, &explanation)
                && moves.iter().enumerate().any(|(k, m)| {
                    // (As the first ply too, once plies were published
                    // around it: it was seen before them.)
                    (k >= 1 || p.game.len() > d.plies) && m.from() == d.m.from && m.to() == d.m.to
                })
            {
                explanation = None;
            }
        }
        // After a reported illegal move, its piece was seen on the square
        // it went to: a history of two or more plies that moves it from
        // its old square to another one contradicts the readings (a
        // capture of it under way, a piece sliding through). (To the same
        // square is the arbiter's correction: a pawn left unpromoted is
        // exchanged for a queen.)
        {
            let p = self.playing();
            if let (Some(x), Some(Explanation::Forward(moves))) = (&p.pseudo, &explanation)
                && x.reported.is_some()
                && moves.len() >= 2
                && moves[0].from() == x.m.from
                && moves[0].to() != x.m.to
            {
                explanation = None;
            }
        }
        match &explanation {
            None => explanation = self.continue_irregular(at, &target, usize::MAX),
            // An illegal move was reported and play may be going on from
            // it: a legal history of as many plies (a piece sliding through
            // a square that makes one) is not better evidence than the
            // completed illegal move and its continuation.
            Some(e @ (Explanation::Forward(_) | Explanation::Back { .. })) if e.cost() >= 2 => {
                let cost = e.cost();
                if let Some(e) = self.continue_irregular(at, &target, cost - 1) {
                    explanation = Some(e);
                }
            }
            Some(_) => {}
        }
        if explanation.is_none() && self.follow_around_displacement(at, &target) {
            return;
        }
        if explanation.is_none() && self.follow_from_correction(at, &target) {
            return;
        }
        // A displaced piece of the side that moved last has moved on from
        // where it stood (that side played it from there): a history in
        // which its last ply went there explains the board with no
        // irregularity at all.
        if explanation.is_none()
            && self
                .playing()
                .displaced
                .as_ref()
                .is_some_and(|d| !d.shadow && target.piece_at(d.m.to) != Some(d.m.placed))
            && self.reexamine(at, &target)
        {
            return;
        }

        let p = self.playing();
        match explanation {
            None => {
                p.showing = false;
                self.watch_unexplained(at, &target);
            }
            Some(explanation) => {
                p.resync = false;
                p.pseudo = None;
                p.displaced = None;
                self.clear_unexplained(at);
                self.follow(at, explanation);
            }
        }
    }

    /// The board is explained: make the explanation the candidate.
    fn follow(&mut self, at: Millis, explanation: Explanation) {
        let p = self.playing();
        if explanation == Explanation::Same {
            p.candidate = None;
            p.showing = false;
            return;
        }
        // Every ply followed by a ply of the opponent is finished: publish
        // it now and let only the last one settle.
        let explanation = match explanation {
            Explanation::Forward(mut moves) if moves.len() >= 2 => {
                let last = moves.pop().expect("two or more");
                p.candidate = None;
                self.commit(Candidate {
                    explanation: Explanation::Forward(moves),
                    since: at,
                    settle: 0,
                });
                Explanation::Forward(vec![last])
            }
            e => e,
        };
        let settle = self.config.settle;
        let hold = self.config.delays.misplaced_ms;
        let p = self.playing();
        let same = p
            .candidate
            .as_ref()
            .is_some_and(|c| c.explanation == explanation);
        if !same {
            let mut settle = settle_time(&settle, &p.game, &explanation);
            // A takeback of several plies that one piece's change makes (a
            // repeated position, a knocked piece landing where it stood
            // earlier) is held as long as a displacement: players restoring
            // several plies move more than one piece. The change counts
            // from the game and from a move not yet published (the knock
            // can come before its settle time ran out); not from a
            // takeback not yet published (players restore one ply after
            // the other).
            if let Explanation::Back { plies, then } = &explanation
                && *plies > 1
                && then.is_empty()
            {
                let earlier = p.game.position_at(p.game.len() - plies);
                let one_piece =
                    |board: &Board| crate::rules::diff(board, earlier.board()).count() <= 2;
                let pending = p
                    .candidate
                    .as_ref()
                    .filter(|c| matches!(c.explanation, Explanation::Forward(_)))
                    .map(|c| candidate_position(&p.game, &c.explanation));
                if one_piece(p.game.position().board())
                    || pending.is_some_and(|c| one_piece(c.board()))
                {
                    settle = settle.max(hold);
                }
            }
            if held_correction(&p.game, &explanation) {
                // The piece that just moved is on another square: it
                // travelled on after a pause, or it was knocked and will be
                // set back. Only time (or the mover's clock press) tells:
                // hold the correction as long as a displacement, and treat
                // the change as one meanwhile.
                settle = settle.max(hold);
                let after = candidate_position(&p.game, &explanation);
                p.displaced =
                    find_pseudo_move(p.game.position(), after.board()).map(|m| Displacement {
                        m,
                        since: at,
                        plies: p.game.len(),
                        shadow: true,
                    });
            }
            p.candidate = Some(Candidate {
                explanation,
                since: at,
                settle,
            });
        } else if p.displaced.is_none()
            && let Some(c) = &p.candidate
            && held_correction(&p.game, &c.explanation)
        {
            // Back on the same correction (the piece travelled on, or was
            // knocked, and a square flickered meanwhile): it still stands
            // for a displacement, seen first when the correction was.
            let after = candidate_position(&p.game, &c.explanation);
            p.displaced =
                find_pseudo_move(p.game.position(), after.board()).map(|m| Displacement {
                    m,
                    since: c.since,
                    plies: p.game.len(),
                    shadow: true,
                });
        }
        p.showing = true;
        // Back on a candidate that has already stood long enough.
        self.handle_timeout(at);
    }

    /// After an illegal move was reported: if play went on from the
    /// position it made, accept it into the record and explain the rest.
    /// `max_moves`: the most plies after the illegal move that may explain
    /// the board.
    fn continue_irregular(
        &mut self,
        at: Millis,
        target: &Board,
        max_moves: usize,
    ) -> Option<Explanation> {
        let limits = self.config.limits;
        let p = self.playing();
        let pseudo = p.pseudo.as_ref()?;
        let after = pseudo.reported.as_ref()?.as_ref()?;
        let mut game = p.game.clone();
        game.push_irregular(pseudo.m.notation(), pseudo.m.uci(), after.clone());
        let successors = search::successors(after);
        let out = search::explain(&game, &successors, target, false, false, limits);
        let Some(Explanation::Forward(moves)) = out.explanation else {
            return None;
        };
        if moves.len() > max_moves {
            return None;
        }
        let pseudo = p.pseudo.take().expect("checked");
        let after = game.position().clone();
        let ply = p.game.len() as u32 + 1;
        let side = Side::from(pseudo.m.piece.color);
        p.game
            .push_irregular(pseudo.m.notation(), pseudo.m.uci(), after.clone());
        p.successors = successors;
        p.candidate = None;
        p.touches.clear();
        self.emit(
            at,
            EventKind::Move {
                ply,
                side,
                san: pseudo.m.notation(),
                uci: pseudo.m.uci(),
                fen: after.fen(),
                irregular: true,
            },
        );
        Some(Explanation::Forward(moves))
    }

    /// The board is not explained by legal play: watch for an illegal move
    /// and for boards that stay wrong.
    fn watch_unexplained(&mut self, at: Millis, target: &Board) {
        let delays = self.config.delays;
        let p = self.playing();
        let pos = p.game.position().clone();
        // While a legal candidate is pending (a move not yet published, a
        // takeback under way) the board is in motion: no illegal move yet.
        let pseudo = if p.candidate.is_some() {
            None
        } else {
            find_pseudo_move(&pos, target)
        };
        match pseudo {
            // A piece of the side not to move changed square: a knock, a
            // push, or a move out of turn. Only a clock press makes it a
            // move (see `handle_clock_press`); until then it is a
            // displacement, and `misplaced` if it stands.
            Some(m) if m.piece.color != pos.turn() => {
                if p.displaced.as_ref().is_none_or(|d| d.m != m) {
                    let (since, plies) = p
                        .displaced
                        .as_ref()
                        .map_or((at, p.game.len()), |d| (d.since, d.plies));
                    p.displaced = Some(Displacement {
                        m,
                        since,
                        plies,
                        shadow: false,
                    });
                }
                if p.pseudo.as_ref().is_some_and(|x| x.reported.is_none()) {
                    p.pseudo = None;
                }
            }
            Some(m) => {
                let same = p
                    .pseudo
                    .as_ref()
                    .is_some_and(|x| x.m == m && x.board == *target);
                // Time alone never makes it a move (a knocked piece stands
                // as long as it stands): the press or the reply does.
                if !same && p.pseudo.as_ref().is_none_or(|x| x.reported.is_none()) {
                    p.pseudo = Some(Pseudo {
                        m,
                        board: target.clone(),
                        reported: None,
                    });
                }
            }
            None => {
                // Pieces lifted from the board the illegal move made: the
                // opponent lifting one of their own proves the move was
                // completed; other lifts (a capture begun with the victim)
                // keep it pending.
                let pending = p.pseudo.as_ref().filter(|x| x.reported.is_none());
                let lifted = pending.is_some_and(|x| search::only_removals(&x.board, target));
                // (Not the other king after a king went to the centre: that
                // is the result signal on its way.)
                let confirmed = lifted
                    && pending.is_some_and(|x| {
                        let removed = x.board.occupied() & !target.occupied();
                        let opponents = removed & x.board.by_color(!x.m.piece.color);
                        opponents.any()
                            && !(is_king_to_centre(&x.m)
                                && (opponents & x.board.by_role(crate::rules::Role::King)).any())
                    });
                if confirmed {
                    self.report_illegal(at, Completed::Reply);
                } else if pending.is_some() && !lifted {
                    p.pseudo = None;
                }
            }
        }
        let p = self.playing();
        let in_hand = {
            let removed = pos.board().occupied() & !target.occupied();
            search::only_removals(pos.board(), target)
                && removed.count() <= 2
                && (removed & !pos.board().by_color(pos.turn())).is_empty()
        };
        let delay = if in_hand {
            delays.in_hand_ms
        } else {
            displacement_delay(&delays, p.displaced.as_ref())
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
    fn follow_around_displacement(&mut self, at: Millis, target: &Board) -> bool {
        let delays = self.config.delays;
        let p = self.playing();
        let Some(d) = &p.displaced else {
            return false;
        };
        let Some(masked) = put_back(d, target) else {
            return false;
        };
        let since = d.since;
        match self.search(&masked) {
            Some(Explanation::Same) => {
                let p = self.playing();
                // A piece of the opponent in the air decides nothing
                // between a knock and a piece that travelled on: a held
                // correction stays, for the reply to decide.
                if !p
                    .candidate
                    .as_ref()
                    .is_some_and(|c| held_correction(&p.game, &c.explanation))
                {
                    p.candidate = None;
                }
                p.showing = false;
            }
            Some(e @ Explanation::Forward(_)) => {
                let p = self.playing();
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
        let p = self.playing();
        let delay = displacement_delay(&delays, p.displaced.as_ref());
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
    fn follow_from_correction(&mut self, at: Millis, target: &Board) -> bool {
        let limits = self.config.limits;
        let p = self.playing();
        let Some(c) = &p.candidate else {
            return false;
        };
        if !held_correction(&p.game, &c.explanation) || p.game.len() <= p.completed {
            return false;
        }
        let Explanation::Back { then, .. } = &c.explanation else {
            return false;
        };
        let mut game = p.game.clone();
        game.truncate(game.len() - 1);
        game.push(then[0]);
        let successors = search::successors(game.position());
        let out = search::explain(&game, &successors, target, false, false, limits);
        self.stats.searches += 1;
        self.stats.nodes += out.nodes as u64;
        let Some(reply @ Explanation::Forward(_)) = out.explanation else {
            return false;
        };
        let p = self.playing();
        let c = p.candidate.take().expect("checked");
        p.displaced = None;
        p.pseudo = None;
        p.resync = false;
        self.commit(c);
        self.clear_unexplained(at);
        self.follow(at, reply);
        true
    }

    /// Whether the held correction is a piece that came back (see
    /// [`came_back`]) rather than one that travelled on.
    fn candidate_came_back(&self) -> bool {
        let Phase::Playing(p) = &self.phase else {
            return false;
        };
        let Some(Candidate {
            explanation: e @ Explanation::Back { then, .. },
            ..
        }) = &p.candidate
        else {
            return false;
        };
        if !travels_on(&p.game, e) {
            return false;
        }
        let Some(last) = p.game.plies().last().and_then(|r| r.m) else {
            return false;
        };
        came_back(&p.recent, last, !p.game.position().turn(), then[0].to())
    }

    /// A displacement of the piece its side moved last has stood past the
    /// delay and no clock press completed that move: re-examine the last
    /// plies for a history that explains the board with no displacement
    /// (the piece travelled on after a pause). Returns whether one did; it
    /// is then published as a correction (`retract` and moves).
    fn reexamine(&mut self, at: Millis, target: &Board) -> bool {
        let mut limits = self.config.limits;
        let p = self.playing();
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
                p.game.position_at(*i).turn() == d.m.piece.color
                    && ply.m.is_some_and(|m| m.to() == d.m.from)
            });
        let Some((i, _)) = found else {
            return false;
        };
        let back = n - i;
        let displaced_to = d.m.to;
        // Design: the history must withdraw the ply that moved the piece
        // (so the displacement becomes where that ply went), no further
        // than four plies back; the search then plays forward from there
        // as deep as it withdrew, plus one. A ply completed by a clock
        // press is never withdrawn.
        if i < p.completed || i + 1 != d.plies {
            return false;
        }
        // The withdrawn ply is played again, to where the piece stands;
        // the plies after it are searched from there.
        let withdrawn = p.game.plies()[i].m.expect("checked");
        let mut game = p.game.clone();
        game.truncate(i);
        let Some(first) = game.position().legal_moves().find(|m| {
            m.from() == withdrawn.from()
                && m.to() == d.m.to
                && m.promotion() == withdrawn.promotion()
        }) else {
            return false;
        };
        game.push(first);
        // The plies published after it keep their order (the readings
        // gave it), when they are still legal and give the board.
        let published: Vec<Move> = p.game.plies()[i + 1..].iter().filter_map(|r| r.m).collect();
        let mut replayed = game.position().clone();
        let same_order = published.len() == back - 1
            && published.iter().all(|m| {
                let ok = replayed.legal_moves().any(|l| l == *m);
                if ok {
                    replayed = replayed.play(*m);
                }
                ok
            })
            && in_hand_of_mover(&replayed, target, displaced_to);
        if same_order {
            let then = std::iter::once(first).chain(published).collect();
            self.correct(at, Explanation::Back { plies: back, then });
            return true;
        }
        let successors = search::successors(game.position());
        limits.stream_depth = back;
        limits.back = 0;
        limits.budget = limits.resync_budget;
        let out = search::explain(&game, &successors, target, false, false, limits);
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
    fn correct(&mut self, at: Millis, explanation: Explanation) {
        self.clear_unexplained(at);
        let p = self.playing();
        p.displaced = None;
        p.pseudo = None;
        p.candidate = None;
        self.commit(Candidate {
            explanation,
            since: at,
            settle: 0,
        });
    }

    fn report_illegal(&mut self, at: Millis, completed: Completed) {
        let p = self.playing();
        // Reported as displaced pieces while it stood: now it is a move.
        if let Some(u) = &mut p.unexplained
            && u.raised == Some(AlertKind::Misplaced)
        {
            u.raised = Some(AlertKind::IllegalMove);
            let a = arbiter::cleared(
                AlertKind::Misplaced,
                Some(Law::Displaced),
                "The displaced piece was a move: reported as an illegal move.".into(),
            );
            self.emit(at, EventKind::Alert(a));
        }
        let p = self.playing();
        let Some(x) = p.pseudo.as_mut() else { return };
        let before = p.game.position().clone();
        let color = x.m.piece.color;
        let count = &mut p.illegal_counts[color as usize];
        *count += 1;
        let why = illegality(&before, &x.m);
        let alert = arbiter::illegal_move(&before, &x.m, &why, *count, p.game.len(), completed);
        x.reported = Some(before.irregular(x.board.clone(), !color));
        self.emit(at, EventKind::Alert(alert));
    }

    fn raise_unexplained(&mut self, at: Millis) {
        let target = self.target();
        if self.reexamine(at, &target) {
            return;
        }
        let p = self.playing();
        if p.ended || p.pseudo.as_ref().is_some_and(|x| x.reported.is_some()) {
            // Said already (an illegal move), or the game is over and the
            // pieces are being put away: nothing to add, nothing to clear.
            if let Some(u) = &mut p.unexplained {
                u.raised = Some(AlertKind::IllegalMove);
            }
            return;
        }
        let alert = match impossibility(&target) {
            Some(problem) => arbiter::illegal_position(&problem, &target),
            None => arbiter::misplaced(p.game.position(), &target),
        };
        if let Some(u) = &mut p.unexplained {
            u.raised = Some(alert.kind);
        }
        self.emit(at, EventKind::Alert(alert));
    }

    fn clear_unexplained(&mut self, at: Millis) {
        let p = self.playing();
        let Some(u) = p.unexplained.take() else {
            return;
        };
        let message = match u.raised {
            Some(AlertKind::Misplaced) => Some((
                AlertKind::Misplaced,
                Law::Displaced,
                "The board agrees with the game again.",
            )),
            Some(AlertKind::IllegalPosition) => Some((
                AlertKind::IllegalPosition,
                Law::IllegalPosition,
                "The impossible position is gone; the board agrees with the game again.",
            )),
            _ => None,
        };
        if let Some((kind, law, text)) = message {
            let a: Alert = arbiter::cleared(kind, Some(law), text.into());
            self.emit(at, EventKind::Alert(a));
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
            frozen: false,
            kings: None,
            illegal_counts: [0; 2],
            pseudo: None,
            displaced: None,
            completed: 0,
            unexplained: None,
            touches: Vec::new(),
            recent: VecDeque::new(),
        }));
    }

    /// Publishes a candidate. The events carry the time of the reading that
    /// completed it.
    fn commit(&mut self, c: Candidate) {
        let t = c.since;
        let delays = self.config.delays;
        let p = self.playing();
        if held_correction(&p.game, &c.explanation) {
            p.displaced = None;
        }
        let mut out = Vec::new();
        match c.explanation {
            Explanation::Same => {}
            Explanation::Forward(moves) => {
                for m in moves {
                    out.extend(touch_alerts(p, m, delays.touch_ms));
                    p.touches.clear();
                    out.push(push_move(p, m));
                    out.extend(after_move(p));
                }
            }
            Explanation::Back { plies, then } if then.is_empty() => {
                let to = p.game.len() - plies;
                p.game.truncate(to);
                p.successors = search::successors(p.game.position());
                out.push(EventKind::Takeback {
                    to_ply: to as u32,
                    fen: p.game.position().fen(),
                });
                p.ended = false;
            }
            Explanation::Back { plies, then } => {
                out.extend(withdraw(p, plies));
                p.ended = false;
                for m in then {
                    out.push(push_move(p, m));
                    out.extend(after_move(p));
                }
            }
        }
        p.touches.clear();
        p.showing = false;
        for e in out {
            self.emit(t, e);
        }
    }
}

/// Withdraws the last `plies` published plies: `retract` events, newest
/// first, and the game truncated.
fn withdraw(p: &mut Playing, plies: usize) -> Vec<EventKind> {
    let n = p.game.len();
    let out = (n - plies + 1..=n)
        .rev()
        .map(|ply| EventKind::Retract {
            ply: ply as u32,
            uci: p.game.plies()[ply - 1].uci.clone(),
        })
        .collect();
    p.game.truncate(n - plies);
    p.successors = search::successors(p.game.position());
    out
}

/// Whether a candidate ends with a king stepping onto a centre square.
fn king_into_centre(e: &Explanation) -> bool {
    let moves = match e {
        Explanation::Forward(m) | Explanation::Back { then: m, .. } => m,
        Explanation::Same => return false,
    };
    moves.last().is_some_and(|m| {
        m.role() == crate::rules::Role::King
            && !m.is_castle()
            && [Square::D4, Square::D5, Square::E4, Square::E5].contains(&m.to())
    })
}

/// The kings-in-the-centre result signal: both kings on d4, d5, e4 or e5
/// and every other piece where the game (or the game less its last one or
/// two plies, when a king move into the centre was published) has it.
/// Both kings on light squares: White wins; both on dark squares: Black
/// wins; one of each: a draw. Returns the plies to withdraw and the result.
fn kings_in_the_centre(game: &Game, target: &Board) -> Option<(usize, &'static str)> {
    let kings = target.by_role(crate::rules::Role::King);
    let centre = Bitboard::from(Square::D4)
        | Bitboard::from(Square::D5)
        | Bitboard::from(Square::E4)
        | Bitboard::from(Square::E5);
    if kings.count() != 2 || !(kings & !centre).is_empty() {
        return None;
    }
    let without_kings = |b: &Board| {
        let mut b = b.clone();
        for sq in b.by_role(crate::rules::Role::King) {
            b.discard_piece_at(sq);
        }
        b
    };
    let rest = without_kings(target);
    let plies = (0..=game.len().min(2)).find(|&back| {
        let pos = game.position_at(game.len() - back);
        without_kings(pos.board()) == rest
            && (back == 0
                || game.plies()[game.len() - back..]
                    .iter()
                    .all(|p| p.m.is_some_and(|m| m.role() == crate::rules::Role::King)))
    })?;
    let light = kings.into_iter().filter(|s| s.is_light()).count();
    let result = match light {
        2 => "1-0",
        0 => "0-1",
        _ => "1/2-1/2",
    };
    Some((plies, result))
}

/// Whether `target` is `after`'s board with one or more pieces of the side
/// to move lifted.
fn lifted_by_side_to_move(after: &Position, target: &Board) -> bool {
    let removed = after.board().occupied() & !target.occupied();
    search::only_removals(after.board(), target)
        && (removed & after.board().by_color(after.turn())).any()
}

/// Touch-move alerts for move `m`, about to be played in the game's
/// position (Laws 4.3a and 4.4b).
fn touch_alerts(p: &Playing, m: Move, touch_ms: Millis) -> Vec<EventKind> {
    let mut out = Vec::new();
    if p.touches.is_empty() {
        return out;
    }
    let pos = p.game.position();
    let mover = pos.turn();
    let touches: Vec<&Touch> = p
        .touches
        .iter()
        .filter(|t| t.piece.color == mover)
        .collect();
    if let Some(rook) = m.castling_rook() {
        let first = touches.iter().find(|t| t.sq == rook || t.sq == m.from());
        if first.is_some_and(|t| t.sq == rook) {
            out.push(EventKind::Alert(arbiter::rook_first(
                mover,
                rook,
                &pos.san(m),
            )));
        }
        return out;
    }
    let put_back = touches.iter().find(|t| {
        t.sq != m.from()
            && t.back
                .is_some_and(|b| b.saturating_sub(t.lifted) >= touch_ms)
            && pos.legal_moves().any(|l| l.from() == t.sq)
    });
    if let Some(t) = put_back {
        out.push(EventKind::Alert(arbiter::touch_move(
            mover,
            t.piece,
            t.sq,
            &pos.san(m),
        )));
    }
    out
}

/// Game-end and draw reports after a ply (Laws 5.1, 5.2, 9.2, 9.3, 9.6).
fn after_move(p: &mut Playing) -> Vec<EventKind> {
    let mut out = Vec::new();
    let pos = p.game.position();
    let end = |result: &str, reason: &str| EventKind::GameEnd {
        result: result.into(),
        reason: reason.into(),
    };
    if let Some(outcome) = pos.outcome_known(!p.successors.is_empty()) {
        if !p.ended {
            p.ended = true;
            // Nothing legal follows mate or stalemate; a dead position may
            // still be played on, and is.
            p.frozen = !matches!(outcome, PositionOutcome::DeadPosition);
            out.push(match outcome {
                PositionOutcome::Checkmate { winner } => end(
                    if winner == Color::White { "1-0" } else { "0-1" },
                    "checkmate",
                ),
                PositionOutcome::Stalemate => end("1/2-1/2", "stalemate"),
                PositionOutcome::DeadPosition => end("1/2-1/2", "dead position"),
            });
        }
        return out;
    }
    let reps = p.game.repetitions();
    let halfmoves = pos.halfmoves();
    let info = |kind, law: Law, message: String| {
        EventKind::Alert(arbiter::alert(kind, None, Some(law), message))
    };
    if reps >= 5 && !p.ended {
        p.ended = true;
        out.push(info(
            AlertKind::Fivefold,
            Law::Fivefold,
            "The same position has now stood five times: the game is drawn (Law 9.6a). The arbiter must step in.".into(),
        ));
        out.push(end("1/2-1/2", "fivefold repetition"));
    } else if halfmoves >= 150 && !p.ended {
        p.ended = true;
        out.push(info(
            AlertKind::SeventyFiveMoves,
            Law::SeventyFiveMoves,
            "Seventy-five moves by each player without a capture or pawn move: the game is drawn (Law 9.6b). The arbiter must step in.".into(),
        ));
        out.push(end("1/2-1/2", "75-move rule"));
    } else {
        if reps == 3 {
            out.push(info(
                AlertKind::Threefold,
                Law::Threefold,
                format!(
                    "The same position has stood three times ({}): a draw may be claimed (Law 9.2).",
                    pos.fen()
                ),
            ));
        }
        if halfmoves == 100 {
            out.push(info(
                AlertKind::FiftyMoves,
                Law::FiftyMoves,
                "Fifty moves by each player without a capture or pawn move: a draw may be claimed (Law 9.3).".into(),
            ));
        }
    }
    out
}

/// Plays `m` in the game (whose successors `p.successors` are current) and
/// returns its event; the successors of the new position replace them.
fn push_move(p: &mut Playing, m: Move) -> EventKind {
    let ply = p.game.len() as u32 + 1;
    let side = Side::from(p.game.position().turn());
    let (rec, next) = p.game.push_known(m, &p.successors);
    let event = EventKind::Move {
        ply,
        side,
        san: rec.san.clone(),
        uci: rec.uci.clone(),
        fen: rec.after.fen(),
        irregular: false,
    };
    p.successors = next;
    event
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

/// The side that made the last ply of a candidate (none for a takeback).
fn last_mover(game: &Game, e: &Explanation) -> Option<Side> {
    match e {
        Explanation::Same => None,
        Explanation::Back { then, .. } if then.is_empty() => None,
        _ => Some(Side::from(!candidate_position(game, e).turn())),
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

/// Whether a pseudo-move sets a king on a centre square (d4, d5, e4, e5):
/// perhaps the first half of the kings-in-the-centre result signal.
fn is_king_to_centre(m: &PseudoMove) -> bool {
    m.piece.role == crate::rules::Role::King
        && m.rook.is_none()
        && [Square::D4, Square::D5, Square::E4, Square::E5].contains(&m.to)
}

/// How long a displacement stands before `misplaced`: a king displaced onto
/// a centre square waits twice as long, as players reporting a result set
/// the kings there one after the other.
fn displacement_delay(delays: &AlertDelays, d: Option<&Displacement>) -> Millis {
    if d.is_some_and(|d| is_king_to_centre(&d.m)) {
        delays.misplaced_ms * 2
    } else {
        delays.misplaced_ms
    }
}

/// `target` with the displaced piece put back where the game has it, if it
/// still stands where it was displaced to.
fn put_back(d: &Displacement, target: &Board) -> Option<Board> {
    if d.m.rook.is_some()
        || target.piece_at(d.m.to) != Some(d.m.placed)
        || target.piece_at(d.m.from).is_some()
    {
        return None;
    }
    let mut b = target.clone();
    b.discard_piece_at(d.m.to);
    if let Some((sq, piece)) = d.m.captured {
        b.set_piece_at(sq, piece);
    }
    b.set_piece_at(d.m.from, d.m.piece);
    Some(b)
}

/// Whether `target` is `pos`'s board, or that board with at most two pieces
/// of the side to move lifted (a move under way), none of them the one on
/// `kept` (a displaced piece lifted may be on its way back).
fn in_hand_of_mover(pos: &Position, target: &Board, kept: Square) -> bool {
    let board = pos.board();
    if board == target {
        return true;
    }
    let removed = board.occupied() & !target.occupied();
    search::only_removals(board, target)
        && removed.count() <= 2
        && !removed.contains(kept)
        && (removed & !board.by_color(pos.turn())).is_empty()
}

/// Whether the piece that made `last` was set down on `to` after it left
/// its square and before it was last set on the square `last` went to: it
/// stood on `to`, went on to where the ply was published, and is on `to`
/// again.
///
/// Design: this is the order of readings a knock leaves (a piece pushed
/// off the square it was played to and set back there), not the order a
/// piece travelling on leaves (it goes on from the published square to a
/// new one). The evidence is in the order of the readings, not in any
/// game's rules.
fn came_back(
    recent: &VecDeque<(Square, Option<Piece>)>,
    last: Move,
    color: Color,
    to: Square,
) -> bool {
    let placed = Some(Piece {
        color,
        role: last.promotion().unwrap_or(last.role()),
    });
    let mut older = recent.iter().rev();
    if !older.any(|&(sq, seen)| sq == last.to() && seen == placed) {
        return false;
    }
    for &(sq, seen) in older {
        if sq == last.from() && seen.is_none() {
            return false;
        }
        if sq == to && seen == placed {
            return true;
        }
    }
    false
}

/// Whether an explanation re-reads the last ply in a way a knock can fake,
/// so that it is held as long as a displacement before it is published:
/// the piece that just moved travelled on (see [`travels_on`]), or another
/// piece of the same side changed square and the board now reads as that
/// piece's move instead (a knocked knight landing where the other knight
/// came from).
///
/// Design: a player who changes their published move lifts the piece they
/// played first, so the board passes through the position before it (a
/// takeback); a single piece changing square without that passage is what
/// a knock does. Publishing such a re-reading after 450 ms made a knock of
/// the side not to move look like a different move and shifted the record.
fn held_correction(game: &Game, e: &Explanation) -> bool {
    if travels_on(game, e) {
        return true;
    }
    let Explanation::Back { plies: 1, then } = e else {
        return false;
    };
    let [next] = then.as_slice() else {
        return false;
    };
    let before = game.position_at(game.len() - 1);
    let after = before.play(*next);
    let changed = crate::rules::diff(game.position().board(), after.board());
    changed.count() <= 2 && (changed & game.position().board().by_color(before.turn())).any()
}

/// Whether an explanation says the piece of the last ply travelled on: the
/// last ply withdrawn and the same piece, from the same square, played to
/// another square.
///
/// Design: this is the shape a knock of the piece that has just moved
/// takes too; the reconstructor holds such a correction as long as a
/// displacement (see `follow`) instead of trusting the first reading.
fn travels_on(game: &Game, e: &Explanation) -> bool {
    let Explanation::Back { plies: 1, then } = e else {
        return false;
    };
    let [next] = then.as_slice() else {
        return false;
    };
    game.plies()
        .last()
        .and_then(|p| p.m)
        .is_some_and(|last| last.from() == next.from() && last.role() == next.role())
}
