//! Tracking games other than chess (English draughts, xiangqi) from board
//! readings: squares lifted and set down, whole-board snapshots.
//!
//! - [`TrackedGame`]: what the tracker needs of a game; implemented for
//!   draughts ([`draughts::Draughts`]) and xiangqi ([`xiangqi::Xiangqi`]).
//! - [`Tracker`]: the pure state machine (time passed in) that turns
//!   readings into moves, alerts and game ends ([`event::GameEvent`]).
//! - [`replay`]: `boardcast replay` of an open-protocol capture.
//!
//! Design: the tracker never follows the order of readings to build a
//! move; it explains each board it sees as the position after a short
//! sequence of legal moves (none, one or two plies) from the last
//! confirmed position, exactly as the game's rule engine generates them.
//! So whatever order people handle pieces in (captured pieces removed
//! before, during or after the jumping piece travels, one at a time or
//! swept; a slider set down on squares on its way; a piece knocked and set
//! back) only the boards that really are positions of the game count. A
//! move is committed once the board has shown it for a settle time (the
//! game may ask for longer, e.g. draughts captures), or at once when the
//! next move has started from it (a two-ply explanation), and at the end of
//! a replay. Squares touched since the last confirmed position are the
//! evidence that picks among moves an occupancy-only board cannot tell
//! apart (a capture shows only its origin emptied; a draughts king's route
//! shows only where it was set down): a move with every square of it
//! touched is preferred, and one without that evidence waits longer. The
//! board's orientation is found the same way: while it is unknown both are
//! tried, and the start position (boards that identify pieces) or the first
//! move (the side to move is known) fixes it. The trait speaks the open
//! protocol's geometry ([`Square`], [`Content`]), not a 64-square board, so
//! chess could implement it too.

pub mod draughts;
pub mod event;
pub mod replay;
pub mod xiangqi;

use std::collections::VecDeque;
use std::fmt;

use boardcast_protocols::reading::{Content, Geometry, Snapshot, Square};

use crate::event::Millis;
use event::{GameAlert, GameAlertKind, GameEvent, GameEventKind};

/// What the rules say after a move, as the tracker publishes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// An alert for the arbiter (claimable draw, repetition ...).
    Alert(GameAlert),
    /// The game is over.
    End {
        /// The winner's colour name, `None` for a draw.
        winner: Option<&'static str>,
        /// As the record format writes it.
        result: String,
        /// Why, in words.
        reason: String,
    },
}

/// A game the [`Tracker`] can follow. Squares are the game's own
/// coordinates on the board's [`Geometry`] (rank 0 on the first player's
/// side), as the open protocol names them.
pub trait TrackedGame {
    /// A position.
    type Position: Clone + fmt::Debug;
    /// A move.
    type Move: Clone + PartialEq + fmt::Debug;
    /// What follows a game for its verdicts (draw counters, repetition).
    type Referee: fmt::Debug;

    /// The name events carry in `game`.
    const NAME: &'static str;

    /// The board the game is played on.
    fn geometry() -> Geometry;
    /// The start position.
    fn start() -> Self::Position;
    /// Every legal move.
    fn legal_moves(pos: &Self::Position) -> Vec<Self::Move>;
    /// The position after a legal move.
    fn after(pos: &Self::Position, mv: &Self::Move) -> Self::Position;
    /// What a board that identifies pieces reports on `sq`: the open
    /// protocol's letter (upper case for the first player), `None` if empty.
    fn letter(pos: &Self::Position, sq: Square) -> Option<char>;
    /// Whether a board reporting `seen` on a square agrees with `expected`
    /// there (draughts: same colour; a man and a king look alike until the
    /// crown is stacked).
    fn same_piece(expected: char, seen: char) -> bool {
        expected == seen
    }
    /// The squares whose content the move changes, origin first, then the
    /// destination, then captured pieces: the evidence the tracker
    /// requires (the destination touched no earlier than the origin). Default: none
    /// beyond [`TrackedGame::squares`].
    fn squares(mv: &Self::Move) -> Vec<Square>;
    /// Squares the move may pass and be set down on without changing them
    /// (a multi-jump's intermediate landings): evidence that only ranks
    /// moves the board cannot otherwise tell apart.
    fn route(_mv: &Self::Move) -> Vec<Square> {
        Vec::new()
    }
    /// The event `id` of a move played in `pos`.
    fn id(pos: &Self::Position, mv: &Self::Move) -> String;
    /// The standard notation of a move played in `pos`.
    fn notation(pos: &Self::Position, mv: &Self::Move) -> String;
    /// The game's FEN.
    fn fen(pos: &Self::Position) -> String;
    /// The colour name of the side to move.
    fn side_to_move(pos: &Self::Position) -> &'static str;
    /// How long the board must show `mv` before it is committed, given the
    /// tracker's base settle time.
    fn settle_ms(_pos: &Self::Position, _mv: &Self::Move, base: Millis) -> Millis {
        base
    }
    /// A referee for a game from `start`.
    fn referee(start: &Self::Position) -> Self::Referee;
    /// Plays `mv` (legal in the referee's position) and says what holds now.
    fn judge(referee: &mut Self::Referee, mv: &Self::Move) -> Vec<Verdict>;
    /// The article on displaced pieces in the game's rule book, if any.
    fn displaced_law() -> Option<&'static str> {
        None
    }
    /// Moves the rule book forbids in `pos` but that players make, each
    /// with what is wrong with it (draughts: a plain move, or a capture
    /// stopped early, when a capture was compulsory). The tracker reports
    /// one only on evidence that it was made (see [`Tracker`]). Default:
    /// none.
    fn irregular_moves(_pos: &Self::Position) -> Vec<Irregular<Self::Move>> {
        Vec::new()
    }
    /// What the rule book prescribes after the `count`-th illegal move of
    /// a player (`count` from 1), and whether the opponent's next move
    /// condones it. Default: nothing said.
    fn illegal_consequence(_count: u32) -> String {
        String::new()
    }
    /// The game record (PDN, xiangqi PGN) of one game.
    fn record(start: &Self::Position, moves: &[Self::Move], result: Option<&str>) -> String;
}

/// A move the rule book forbids, as [`TrackedGame::irregular_moves`]
/// offers it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Irregular<M> {
    /// The move as played.
    pub mv: M,
    /// The article it breaks.
    pub law: &'static str,
    /// What is wrong, in words (`"did not capture: 9x18 was compulsory"`).
    pub what: String,
}

/// An irregular move the board shows, not yet reported or completed.
#[derive(Debug, Clone)]
struct Suspect<G: TrackedGame> {
    irregular: Irregular<G::Move>,
    rotated: bool,
    since: Millis,
    /// The alert was raised (the opponent began to reply, or it stood).
    raised: bool,
}

/// Timings of the tracker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrackConfig {
    /// How long the board must show a move before it is committed.
    pub settle_ms: Millis,
    /// How long a move without evidence on every square waits.
    pub weak_settle_ms: Millis,
    /// How long the board may disagree with the game before `misplaced`.
    pub misplaced_ms: Millis,
}

impl Default for TrackConfig {
    fn default() -> TrackConfig {
        TrackConfig {
            settle_ms: 450,
            weak_settle_ms: 3000,
            misplaced_ms: 8000,
        }
    }
}

/// One game as played on the board (for the record).
#[derive(Debug)]
pub struct Played<G: TrackedGame> {
    /// The start position.
    pub start: G::Position,
    /// The moves committed.
    pub moves: Vec<G::Move>,
    /// The result once the rules ended the game.
    pub result: Option<String>,
}

impl<G: TrackedGame> Played<G> {
    /// The game's record.
    pub fn record(&self) -> String {
        G::record(&self.start, &self.moves, self.result.as_deref())
    }
}

#[derive(Debug)]
struct Current<G: TrackedGame> {
    pos: G::Position,
    referee: G::Referee,
    ended: bool,
}

#[derive(Debug, Clone)]
struct Pending<G: TrackedGame> {
    moves: Vec<G::Move>,
    rotated: bool,
    since: Millis,
    settle: Millis,
}

/// Counters of a tracker.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TrackStats {
    /// Readings handled.
    pub readings: u64,
    /// Moves committed.
    pub moves: u64,
    /// Boards explained by two plies (the first committed at once).
    pub two_ply: u64,
}

/// Turns readings of one board into the moves of a game of `G`.
#[derive(Debug)]
pub struct Tracker<G: TrackedGame> {
    board: String,
    config: TrackConfig,
    geometry: Geometry,
    /// What the board shows, in its own coordinates; `None` before any
    /// reading.
    seen: Option<Snapshot>,
    /// Squares (board coordinates) touched since the last confirmed
    /// position: the number of the last reading that touched each, 0 for
    /// none.
    touched: Vec<u64>,
    /// Whether the board identifies pieces (`hello ... pieces=`).
    pieces: Option<bool>,
    rotated: Option<bool>,
    current: Option<Current<G>>,
    games: Vec<Played<G>>,
    pending: Option<Pending<G>>,
    /// The last explanation the board showed (kept while a knock hides it).
    shown: Option<(Vec<G::Move>, bool)>,
    /// Since when the board disagrees with the game unexplained.
    unexplained_since: Option<Millis>,
    misplaced_raised: bool,
    /// The board shows the start position again after moves: since when.
    restart_since: Option<Millis>,
    /// An irregular move the board shows (see [`TrackedGame::irregular_moves`]).
    suspect: Option<Suspect<G>>,
    /// Illegal moves reported per side (by side name).
    illegal_counts: Vec<(&'static str, u32)>,
    out: VecDeque<GameEvent>,
    stats: TrackStats,
}

impl<G: TrackedGame> Tracker<G> {
    /// A tracker for board `board`.
    pub fn new(board: impl Into<String>, config: TrackConfig) -> Tracker<G> {
        let geometry = G::geometry();
        Tracker {
            board: board.into(),
            config,
            geometry,
            seen: None,
            touched: vec![0; geometry.len()],
            pieces: None,
            rotated: None,
            current: None,
            games: Vec::new(),
            pending: None,
            shown: None,
            unexplained_since: None,
            misplaced_raised: false,
            restart_since: None,
            suspect: None,
            illegal_counts: Vec::new(),
            out: VecDeque::new(),
            stats: TrackStats::default(),
        }
    }

    /// The games seen so far (the last one may be in progress).
    pub fn games(&self) -> &[Played<G>] {
        &self.games
    }

    /// Counters.
    pub fn stats(&self) -> TrackStats {
        self.stats
    }

    /// Whether the board was found turned round (`None`: not known yet).
    pub fn rotated(&self) -> Option<bool> {
        self.rotated
    }

    /// The next event, in publication order.
    pub fn poll_event(&mut self) -> Option<GameEvent> {
        self.out.pop_front()
    }

    /// The board said whether it identifies pieces.
    pub fn handle_hello(&mut self, pieces: Option<bool>) {
        self.pieces = pieces;
    }

    /// A piece left `sq` (board coordinates) at `t`.
    pub fn handle_up(&mut self, t: Millis, sq: Square) {
        self.handle_square(t, sq, Content::Empty);
    }

    /// A piece was set down on `sq` at `t` (`Content::Occupied` when the
    /// board does not identify pieces).
    pub fn handle_down(&mut self, t: Millis, sq: Square, content: Content) {
        let content = if content == Content::Empty {
            Content::Occupied
        } else {
            content
        };
        self.handle_square(t, sq, content);
    }

    /// The whole board at `t` (board coordinates).
    pub fn handle_snapshot(&mut self, t: Millis, snap: &Snapshot) {
        self.handle_timeout(t);
        if snap.geometry() != self.geometry {
            return;
        }
        self.stats.readings += 1;
        if let Some(seen) = &self.seen {
            for (i, (a, b)) in seen.cells().iter().zip(snap.cells()).enumerate() {
                if a != b {
                    self.touched[i] = self.stats.readings;
                }
            }
        }
        self.seen = Some(snap.clone());
        self.evaluate(t);
    }

    fn handle_square(&mut self, t: Millis, sq: Square, content: Content) {
        self.handle_timeout(t);
        if !self.geometry.contains(sq) {
            return;
        }
        self.stats.readings += 1;
        if self.seen.is_none() {
            // Design: a board that sends no `board` line is taken to start
            // from the game's start position (set up before it was read);
            // its pieces are not known, so the orientation stays open.
            self.seen = Some(self.start_snapshot());
            self.evaluate(t);
        }
        if let Some(seen) = &mut self.seen {
            seen.set(sq, content);
        }
        if let Some(i) = self.geometry.index(sq) {
            self.touched[i] = self.stats.readings;
        }
        self.evaluate(t);
    }

    fn start_snapshot(&self) -> Snapshot {
        let start = G::start();
        let mut snap = Snapshot::empty(self.geometry);
        for i in 0..self.geometry.len() {
            let sq = self.geometry.square(i).expect("in range");
            if let Some(c) = G::letter(&start, sq) {
                let _ = c;
                snap.set(sq, Content::Occupied);
            }
        }
        snap
    }

    /// When a timer is next due.
    pub fn poll_timeout(&self) -> Option<Millis> {
        let settle = self.pending.as_ref().map(|p| p.since + p.settle);
        let misplaced = match (self.unexplained_since, self.misplaced_raised) {
            // After the game's end people clear the board: no alert.
            (Some(since), false) if self.current.as_ref().is_some_and(|c| !c.ended) => {
                Some(since + self.config.misplaced_ms)
            }
            _ => None,
        };
        let restart = self.restart_since.map(|s| s + self.config.settle_ms);
        let suspect = self
            .suspect
            .as_ref()
            .filter(|s| !s.raised)
            .map(|s| s.since + self.config.misplaced_ms);
        [settle, misplaced, restart, suspect]
            .into_iter()
            .flatten()
            .min()
    }

    /// Fires every timer due at or before `t`.
    pub fn handle_timeout(&mut self, t: Millis) {
        while let Some(due) = self.poll_timeout() {
            if due > t {
                break;
            }
            self.fire(due);
        }
    }

    /// Fires every pending timer (the end of a replay).
    pub fn finish(&mut self) {
        while let Some(due) = self.poll_timeout() {
            self.fire(due);
        }
    }

    fn fire(&mut self, due: Millis) {
        if let Some(p) = &self.pending
            && p.since + p.settle <= due
        {
            let p = self.pending.take().expect("pending");
            self.rotated = Some(p.rotated);
            for mv in &p.moves {
                self.commit(p.since, mv);
            }
            self.evaluate(due);
            return;
        }
        if let Some(s) = &self.suspect
            && !s.raised
            && s.since + self.config.misplaced_ms <= due
        {
            self.raise_suspect(due, "it has stood");
            return;
        }
        if let Some(since) = self.restart_since
            && since + self.config.settle_ms <= due
        {
            self.restart_since = None;
            self.start_game(since);
            self.evaluate(due);
            return;
        }
        if let Some(since) = self.unexplained_since
            && !self.misplaced_raised
            && self.current.as_ref().is_some_and(|c| !c.ended)
            && since + self.config.misplaced_ms <= due
        {
            self.misplaced_raised = true;
            let squares = self.differing_squares();
            self.emit(
                since + self.config.misplaced_ms,
                GameEventKind::Alert(GameAlert::new(
                    GameAlertKind::Misplaced,
                    None,
                    G::displaced_law(),
                    format!(
                        "the board disagrees with the game on {} for {} s",
                        squares.join(", "),
                        self.config.misplaced_ms / 1000
                    ),
                )),
            );
        }
    }

    fn emit(&mut self, t: Millis, kind: GameEventKind) {
        self.out.push_back(GameEvent {
            board: self.board.clone(),
            t_ms: t,
            game: G::NAME,
            kind,
        });
    }

    fn start_game(&mut self, t: Millis) {
        let start = G::start();
        self.current = Some(Current {
            referee: G::referee(&start),
            pos: start.clone(),
            ended: false,
        });
        self.games.push(Played {
            start: start.clone(),
            moves: Vec::new(),
            result: None,
        });
        self.pending = None;
        self.unexplained_since = None;
        self.misplaced_raised = false;
        self.suspect = None;
        self.illegal_counts.clear();
        self.touched.iter_mut().for_each(|t| *t = 0);
        self.emit(
            t,
            GameEventKind::GameStart {
                position: G::fen(&start),
                rotated: self.rotated,
            },
        );
    }

    fn commit(&mut self, t: Millis, mv: &G::Move) {
        let Some(cur) = &mut self.current else {
            return;
        };
        let before = cur.pos.clone();
        let ply = self.games.last().map_or(0, |g| g.moves.len()) as u32 + 1;
        cur.pos = G::after(&before, mv);
        let verdicts = G::judge(&mut cur.referee, mv);
        let position = G::fen(&cur.pos);
        if let Some(g) = self.games.last_mut() {
            g.moves.push(mv.clone());
        }
        self.stats.moves += 1;
        self.emit(
            t,
            GameEventKind::Move {
                ply,
                side: G::side_to_move(&before).to_owned(),
                notation: G::notation(&before, mv),
                id: G::id(&before, mv),
                position,
            },
        );
        for v in verdicts {
            match v {
                Verdict::Alert(a) => self.emit(t, GameEventKind::Alert(a)),
                Verdict::End {
                    winner,
                    result,
                    reason,
                } => {
                    if let Some(cur) = &mut self.current {
                        cur.ended = true;
                    }
                    if let Some(g) = self.games.last_mut() {
                        g.result = Some(result.clone());
                    }
                    self.emit(
                        t,
                        GameEventKind::GameEnd {
                            winner: winner.map(str::to_owned),
                            result,
                            reason,
                        },
                    );
                }
            }
        }
    }

    /// The board in game coordinates, seen with orientation `rotated`.
    fn view(&self, rotated: bool) -> Vec<Content> {
        let Some(seen) = &self.seen else {
            return Vec::new();
        };
        (0..self.geometry.len())
            .map(|i| {
                let sq = self.geometry.square(i).expect("in range");
                let phys = if rotated {
                    self.geometry.rotated(sq)
                } else {
                    sq
                };
                seen.get(phys).unwrap_or(Content::Empty)
            })
            .collect()
    }

    /// The number of the last reading that touched `sq` (game
    /// coordinates), 0 for none.
    fn touched_at(&self, rotated: bool, sq: Square) -> u64 {
        let phys = if rotated {
            self.geometry.rotated(sq)
        } else {
            sq
        };
        self.geometry.index(phys).map_or(0, |i| self.touched[i])
    }

    fn touched_in(&self, rotated: bool, sq: Square) -> bool {
        self.touched_at(rotated, sq) > 0
    }

    fn matches(&self, pos: &G::Position, view: &[Content]) -> bool {
        view.iter().enumerate().all(|(i, c)| {
            let sq = self.geometry.square(i).expect("in range");
            match (G::letter(pos, sq), c) {
                (None, Content::Empty) => true,
                (Some(_), Content::Occupied) => true,
                (Some(e), Content::Piece(p)) => G::same_piece(e, p.letter()),
                _ => false,
            }
        })
    }

    fn orientations(&self) -> Vec<bool> {
        match self.rotated {
            Some(r) => vec![r],
            None => vec![false, true],
        }
    }

    /// How well the touched squares back `moves` up: (all touched, count).
    fn evidence(&self, rotated: bool, pos: &G::Position, moves: &[G::Move]) -> (bool, usize) {
        let mut all = true;
        let mut n = 0;
        let mut before = pos.clone();
        for mv in moves {
            let squares = G::squares(mv);
            for &sq in &squares {
                if self.touched_in(rotated, sq) {
                    n += 1;
                } else {
                    all = false;
                }
            }
            // The piece arrives after it leaves: a piece set down long
            // before another was lifted (a knock beside a finished move)
            // is no capture by the lifted one.
            // Only a capture onto an occupied square needs the order: a
            // sensor may report an empty destination a moment early.
            if let [from, to, ..] = squares[..]
                && G::letter(&before, to).is_some()
                && self.touched_at(rotated, to) < self.touched_at(rotated, from)
            {
                all = false;
            }
            before = G::after(&before, mv);
            n += G::route(mv)
                .into_iter()
                .filter(|&sq| self.touched_in(rotated, sq))
                .count();
        }
        (all, n)
    }

    /// The best explanation of the board as one or two plies from `pos`.
    fn explain(&self, pos: &G::Position) -> Option<(bool, Vec<G::Move>, bool)> {
        #[allow(clippy::type_complexity)]
        let mut best: Option<((bool, usize), bool, Vec<G::Move>)> = None;
        for depth in 1..=2 {
            for rotated in self.orientations() {
                let view = self.view(rotated);
                for m1 in G::legal_moves(pos) {
                    let p1 = G::after(pos, &m1);
                    let mut found = Vec::new();
                    if depth == 1 {
                        if self.matches(&p1, &view) {
                            found.push(vec![m1.clone()]);
                        }
                    } else {
                        for m2 in G::legal_moves(&p1) {
                            let p2 = G::after(&p1, &m2);
                            if self.matches(&p2, &view) {
                                found.push(vec![m1.clone(), m2]);
                            }
                        }
                    }
                    for moves in found {
                        let ev = self.evidence(rotated, pos, &moves);
                        // On a tie the move the board already showed stays
                        // (a knock after a capture can look like another).
                        let shown = self
                            .shown
                            .as_ref()
                            .is_some_and(|(m, r)| *m == moves && *r == rotated);
                        if best
                            .as_ref()
                            .is_none_or(|(b, _, _)| ev > *b || (shown && ev == *b))
                        {
                            best = Some((ev, rotated, moves));
                        }
                    }
                }
            }
            if best.is_some() {
                break;
            }
        }
        best.map(|((all, _), rotated, moves)| (rotated, moves, all))
    }

    fn differing_squares(&self) -> Vec<String> {
        let (Some(cur), Some(_)) = (&self.current, &self.seen) else {
            return Vec::new();
        };
        let rotated = self.rotated.unwrap_or(false);
        let view = self.view(rotated);
        let first = u8::from(G::NAME != "xiangqi");
        (0..self.geometry.len())
            .filter_map(|i| {
                let sq = self.geometry.square(i).expect("in range");
                let ok = match (G::letter(&cur.pos, sq), view[i]) {
                    (None, Content::Empty) | (Some(_), Content::Occupied) => true,
                    (Some(e), Content::Piece(p)) => G::same_piece(e, p.letter()),
                    _ => false,
                };
                (!ok).then(|| sq.name(first))
            })
            .collect()
    }

    /// Explains the board as it now stands and updates what waits.
    fn evaluate(&mut self, t: Millis) {
        let start = G::start();
        let shows_start = self.orientations().into_iter().find(|&r| {
            let view = self.view(r);
            self.matches(&start, &view)
        });
        let Some(cur) = &self.current else {
            if let Some(r) = shows_start {
                if self.pieces != Some(false) && self.has_letters() {
                    self.rotated = Some(r);
                }
                self.start_game(t);
            }
            return;
        };
        let pos = cur.pos.clone();
        let ended = cur.ended;
        let played = self.games.last().is_some_and(|g| !g.moves.is_empty());
        // The board equals the game: nothing waits.
        if self
            .orientations()
            .into_iter()
            .any(|r| self.matches(&pos, &self.view(r)))
        {
            self.pending = None;
            self.shown = None;
            self.restart_since = None;
            self.unexplained_since = None;
            if let Some(s) = self.suspect.take()
                && s.raised
            {
                self.emit(
                    t,
                    GameEventKind::Alert(GameAlert {
                        cleared: true,
                        ..GameAlert::new(
                            GameAlertKind::IllegalMove,
                            None,
                            Some(s.irregular.law),
                            "the position before the illegal move is restored",
                        )
                    }),
                );
            }
            if self.misplaced_raised {
                self.misplaced_raised = false;
                self.emit(
                    t,
                    GameEventKind::Alert(GameAlert {
                        cleared: true,
                        ..GameAlert::new(
                            GameAlertKind::Misplaced,
                            None,
                            G::displaced_law(),
                            "the board agrees with the game again",
                        )
                    }),
                );
            }
            self.touched.iter_mut().for_each(|t| *t = 0);
            return;
        }
        if played && shows_start.is_some() {
            // A new game set up on the board.
            self.pending = None;
            if self.restart_since.is_none() {
                self.restart_since = Some(t);
            }
            return;
        }
        self.restart_since = None;
        // A board that reports squares one by one touches every square of
        // a move it really saw. Without that evidence (a piece knocked off
        // an occupancy board can look like a capture, or like a move and
        // its reply; a capture on an occupancy snapshot changes only its
        // origin) the explanation is accepted only after the longer settle
        // time, so a knock set back within it is no move.
        let explained = if ended { None } else { self.explain(&pos) };
        match explained {
            Some((rotated, moves, evidenced)) => {
                self.unexplained_since = None;
                let mut moves = moves;
                // Without evidence nothing is committed at once: both plies
                // wait the longer settle time together.
                if moves.len() == 2 && evidenced {
                    // The next move started from the first: commit it now,
                    // at the time the board first showed it if it did.
                    let first = moves.remove(0);
                    let at = match &self.pending {
                        Some(p) if p.moves.first() == Some(&first) => p.since,
                        _ => t,
                    };
                    self.stats.two_ply += 1;
                    self.rotated = Some(rotated);
                    self.pending = None;
                    self.commit(at, &first);
                }
                let Some(cur) = &self.current else { return };
                let settle = if evidenced {
                    G::settle_ms(&cur.pos, &moves[0], self.config.settle_ms)
                } else {
                    self.config.weak_settle_ms
                };
                match &mut self.pending {
                    Some(p) if p.moves == moves && p.rotated == rotated => {
                        p.settle = settle;
                    }
                    _ => {
                        self.shown = Some((moves.clone(), rotated));
                        self.pending = Some(Pending {
                            moves,
                            rotated,
                            since: t,
                            settle,
                        })
                    }
                }
            }
            None => {
                self.pending = None;
                if !ended && self.follow_irregular(t, &pos) {
                    self.unexplained_since = None;
                    return;
                }
                if self.unexplained_since.is_none() {
                    self.unexplained_since = Some(t);
                }
            }
        }
    }

    /// The board is not explained by legal play: is it an irregular move
    /// of the side to move (alone, or followed by the opponent's reply)?
    /// Returns whether it was.
    ///
    /// Design: the same evidence rule as chess. An irregular move is
    /// reported once it was made: the opponent began to reply (lifted a
    /// piece the move did not touch), or the board has shown it for the
    /// misplacement delay. A reply completed on it is the opponent's next
    /// move, which (draughts art. 1.25) condones it: the move enters the
    /// record and play goes on from it.
    fn follow_irregular(&mut self, t: Millis, pos: &G::Position) -> bool {
        let irregular = G::irregular_moves(pos);
        if irregular.is_empty() {
            return false;
        }
        for rotated in self.orientations() {
            let view = self.view(rotated);
            for irr in &irregular {
                let p1 = G::after(pos, &irr.mv);
                if self.matches(&p1, &view) {
                    if !self.evidence(rotated, pos, std::slice::from_ref(&irr.mv)).0 {
                        continue;
                    }
                    let same = self
                        .suspect
                        .as_ref()
                        .is_some_and(|s| s.irregular == *irr && s.rotated == rotated);
                    if !same {
                        self.suspect = Some(Suspect {
                            irregular: irr.clone(),
                            rotated,
                            since: t,
                            raised: false,
                        });
                    }
                    return true;
                }
                for m2 in G::legal_moves(&p1) {
                    let p2 = G::after(&p1, &m2);
                    if self.matches(&p2, &view)
                        && self.evidence(rotated, pos, &[irr.mv.clone(), m2.clone()]).0
                    {
                        // Completed and replied to: reported (if not yet),
                        // in the record, and the reply waits as any move.
                        self.suspect = Some(Suspect {
                            irregular: irr.clone(),
                            rotated,
                            since: self.suspect.as_ref().map_or(t, |s| s.since),
                            raised: self.suspect.as_ref().is_some_and(|s| s.raised),
                        });
                        self.raise_suspect(t, "the opponent replied");
                        self.suspect = None;
                        self.rotated = Some(rotated);
                        self.commit(t, &irr.mv);
                        let settle = G::settle_ms(&p1, &m2, self.config.settle_ms);
                        self.shown = Some((vec![m2.clone()], rotated));
                        self.pending = Some(Pending {
                            moves: vec![m2],
                            rotated,
                            since: t,
                            settle,
                        });
                        return true;
                    }
                }
            }
        }
        // The irregular move still stands, with pieces of the opponent
        // lifted: they began to reply, so it was made.
        let Some(s) = &self.suspect else {
            return false;
        };
        let p1 = G::after(pos, &s.irregular.mv);
        let view = self.view(s.rotated);
        let involved = G::squares(&s.irregular.mv);
        let lifted_only = (0..self.geometry.len()).all(|i| {
            let sq = self.geometry.square(i).expect("in range");
            match (G::letter(&p1, sq), view[i]) {
                (None, Content::Empty) | (Some(_), Content::Occupied) => true,
                (Some(e), Content::Piece(p)) => G::same_piece(e, p.letter()),
                (Some(_), Content::Empty) => !involved.contains(&sq),
                _ => false,
            }
        });
        if lifted_only {
            self.raise_suspect(t, "the opponent began to reply");
            return true;
        }
        false
    }

    /// Reports the irregular move the board shows, once.
    fn raise_suspect(&mut self, t: Millis, evidence: &str) {
        let (Some(s), Some(cur)) = (&mut self.suspect, &self.current) else {
            return;
        };
        if s.raised {
            return;
        }
        s.raised = true;
        let side = G::side_to_move(&cur.pos);
        let notation = G::notation(&cur.pos, &s.irregular.mv);
        let law = s.irregular.law;
        let what = s.irregular.what.clone();
        let count = match self.illegal_counts.iter_mut().find(|(n, _)| *n == side) {
            Some((_, c)) => {
                *c += 1;
                *c
            }
            None => {
                self.illegal_counts.push((side, 1));
                1
            }
        };
        let consequence = G::illegal_consequence(count);
        self.emit(
            t,
            GameEventKind::Alert(GameAlert::new(
                GameAlertKind::IllegalMove,
                Some(side),
                Some(law),
                format!("{side} played {notation}, an illegal move: {what} (art. {law}); {evidence}. {consequence}")
                    .trim_end()
                    .to_owned(),
            )),
        );
    }

    fn has_letters(&self) -> bool {
        self.seen
            .as_ref()
            .is_some_and(|s| s.cells().iter().any(|c| matches!(c, Content::Piece(_))))
    }
}
