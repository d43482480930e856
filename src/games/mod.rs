//! The game seam: what the reconstructor ([`crate::track`]) needs to know
//! of a game, and one implementation per game.
//!
//! - [`Game`]: the trait. A value of it is one game's rules as an event
//!   plays them (chess: which start positions count); its associated types
//!   are the game's vocabulary: squares and square sets, colours, pieces,
//!   the placement a sensor board shows ([`Placement`]), positions
//!   ([`GamePosition`]), moves ([`GameMove`]), changes that look like a move
//!   but break the rules ([`Change`]).
//! - [`chess`]: chess, the only user of shakmaty.
//! - [`Record`]: a game as played, start position and plies, for any game.
//! - [`sensing`]: how a game's boards are read, the hooks the one reader
//!   calls ([`sensing::Sensing`]); chess's are in `chess/reading.rs`,
//!   draughts' and xiangqi's in [`diffing`].
//!
//! Design: modelled on shakmaty's own seam (a `Position` trait, one type
//! per variant, an enum to choose at run time): the reconstructor is
//! generic over [`Game`] and monomorphised per game, so chess pays nothing
//! for the seam (its placement stays shakmaty's bitboard `Board`). The
//! small traits on the associated types let the generic code read as the
//! chess code it was written as (`pos.board().occupied()`, `m.from()`).
//! Everything a game does differently is a method of [`Game`]: start
//! positions and set-up alerts, the rule book's verdicts and alerts,
//! notation and events, and the hooks where chess has special handling
//! (castling order and rook-first touch, promotion, en passant in the
//! search's pruning, the kings in the centre as a result signal).

pub mod arbiter;
mod cell;
pub mod chess;
pub mod diffing;
pub mod draughts;
pub mod grid;
mod options;
pub mod position;
mod record;
pub mod sensing;
pub mod settle;
mod touch;
pub mod xiangqi;

use std::fmt::{Debug, Display};
use std::hash::Hash;
use std::ops::{BitAnd, BitOr, Not};

pub use cell::{Cell, Token};
pub use options::GameOptions;
pub use record::{PlyRecord, Record};
pub use touch::{Touch, put_back_touch};

use crate::event::{Alert, EventKind, GameId, Millis, Side};
use arbiter::Completed;
use boardcast_protocols::reading::{Content, ResultToken, Square as Reading};
use settle::SettleRule;

/// A set of squares (a bitboard).
pub trait SquareSet<S>:
    Copy
    + Eq
    + Debug
    + Default
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + Not<Output = Self>
    + IntoIterator<Item = S>
    + From<S>
    + Send
    + Sync
{
    /// Whether `sq` is in the set.
    fn contains(self, sq: S) -> bool;
    /// Adds `sq`.
    fn add(&mut self, sq: S);
    /// Removes `sq`.
    fn discard(&mut self, sq: S);
    /// How many squares.
    fn count(self) -> usize;
    /// Whether the set is empty.
    fn is_empty(self) -> bool;
    /// Whether the set has any square.
    fn any(self) -> bool {
        !self.is_empty()
    }
}

/// A side of a two-player game.
pub trait GameColor: Copy + Eq + Hash + Debug + Send + Sync {
    /// 0 or 1, for per-side counters.
    fn index(self) -> usize;
    /// The other side.
    fn other(self) -> Self;
    /// The side as events name it.
    fn side(self) -> Side;
}

/// A piece as a board shows it.
pub trait GamePiece: Copy + Eq + Hash + Debug + Send + Sync {
    /// The colours of the game.
    type Color: GameColor;
    /// Its colour, `None` for a piece a board without piece identity
    /// reports (only occupied).
    fn color(self) -> Option<Self::Color>;
}

/// The placement of the pieces: what a sensor board shows, and what a
/// position puts on it. Squares are in the game's orientation unless said
/// otherwise.
pub trait Placement: Clone + Eq + Debug + Send + Sync {
    /// A square (a sensor cell).
    type Square: Copy + Eq + Hash + Debug + Display + Send + Sync;
    /// A piece.
    type Piece: GamePiece<Color = Self::Color>;
    /// A colour.
    type Color: GameColor;
    /// A set of squares.
    type Set: SquareSet<Self::Square>;

    /// No piece anywhere.
    fn empty() -> Self;
    /// What stands on `sq`.
    fn piece_at(&self, sq: Self::Square) -> Option<Self::Piece>;
    /// Puts `piece` on `sq`.
    fn set_piece_at(&mut self, sq: Self::Square, piece: Self::Piece);
    /// Empties `sq`.
    fn discard_piece_at(&mut self, sq: Self::Square);
    /// The occupied squares.
    fn occupied(&self) -> Self::Set;
    /// The squares holding a piece of `color` (pieces of unknown colour are
    /// in neither side's set).
    fn by_color(&self, color: Self::Color) -> Self::Set;
    /// The squares on which the two placements disagree as far as a sensor
    /// can tell (chess: any difference; a board without piece identity
    /// agrees with any piece on an occupied square).
    fn diff(&self, other: &Self) -> Self::Set;
    /// Whether the two placements agree (no square in [`Placement::diff`]).
    fn matches(&self, other: &Self) -> bool {
        self.diff(other).is_empty()
    }
    /// Whether a sensor showing `seen` on a square agrees with `expected`.
    fn agrees(expected: Option<Self::Piece>, seen: Option<Self::Piece>) -> bool;
    /// The placement turned round by 180 degrees.
    fn rotated(&self) -> Self;
}

/// A legal move.
pub trait GameMove: Clone + Eq + Hash + Debug + Send + Sync {
    /// A square.
    type Square: Copy + Eq;
    /// A set of squares.
    type Set: SquareSet<Self::Square>;
    /// The square the moving piece leaves (chess castling: the king's).
    fn from(&self) -> Self::Square;
    /// The square the moving piece ends on (chess castling: the king's).
    fn to(&self) -> Self::Square;
    /// Every square whose content the move changes.
    fn touched(&self) -> Self::Set;
    /// Whether the two moves make the same choice beyond their squares
    /// (chess: the same promotion).
    fn same_choice(&self, other: &Self) -> bool;
}

/// A position: placement, side to move and whatever else the rules need.
pub trait GamePosition: Clone + Debug + Send + Sync {
    /// The placement type.
    type Board: Placement;
    /// The move type.
    type Move: GameMove;
    /// The colour type.
    type Color: GameColor;

    /// The placement.
    fn board(&self) -> &Self::Board;
    /// The side to move.
    fn turn(&self) -> Self::Color;
    /// Every legal move.
    fn legal_moves(&self) -> impl Iterator<Item = Self::Move>;
    /// The position after a legal move.
    fn play(&self, m: &Self::Move) -> Self;
    /// The placement after a legal move (may be cheaper than
    /// [`GamePosition::play`]).
    fn board_after(&self, m: &Self::Move) -> Self::Board;
    /// The game's standard notation of a legal move.
    fn notation(&self, m: &Self::Move) -> String;
    /// [`GamePosition::notation`] when this position's legal moves and
    /// the position after the move are known.
    fn notation_known(
        &self,
        m: &Self::Move,
        _legal: &[Self::Move],
        _after: &Self,
        _after_has_moves: bool,
    ) -> String {
        self.notation(m)
    }
    /// The move's id in events (chess: UCI).
    fn id(&self, m: &Self::Move) -> String;
    /// The game's FEN.
    fn fen(&self) -> String;
    /// A key equal for positions the rules count as the same.
    fn key(&self) -> u64;
}

/// A change of the board that looks like one move but that no legal move
/// explains (a move of the wrong side, a piece that cannot go there, a
/// capture not taken).
pub trait Change: Clone + Eq + Debug + Send + Sync {
    /// A square.
    type Square: Copy + Eq;
    /// A piece.
    type Piece: GamePiece<Color = Self::Color>;
    /// A colour.
    type Color: GameColor;
    /// The side whose piece moved.
    fn mover(&self) -> Self::Color;
    /// The piece that moved, as the game had it.
    fn piece(&self) -> Self::Piece;
    /// Where it stood.
    fn from(&self) -> Self::Square;
    /// Where it stands.
    fn to(&self) -> Self::Square;
    /// What stands on `to` (a pawn exchanged, a man crowned).
    fn placed(&self) -> Self::Piece;
    /// Pieces of the other side that left the board, with their squares.
    fn taken(&self) -> Vec<(Self::Square, Self::Piece)>;
    /// Whether a second piece moved with it (chess: castling-like).
    fn compound(&self) -> bool;
}

/// A result token's cell (DGT's result pieces).
pub fn token_cell<P>(token: ResultToken) -> Cell<P> {
    Cell::Token(match token {
        ResultToken::Draw => Token::Draw,
        ResultToken::FirstWins => Token::WhiteWins,
        ResultToken::SecondWins => Token::BlackWins,
    })
}

/// A start position found on a sensor board.
#[derive(Clone, Debug)]
pub struct Start<P> {
    /// The position.
    pub position: P,
    /// How the board stands: `Some(true)` turned round, `None` when the
    /// board cannot tell (a symmetric start on a board without piece
    /// identity: the first move tells).
    pub rotated: Option<bool>,
}

impl<P: GamePosition> Start<P> {
    /// `start` when the sensors show it (`raw`, board orientation) on a
    /// board where it may stand either way round: `rotated` is `None` when
    /// it looks the same both ways (a board without piece identity).
    pub fn either_way(start: P, raw: &P::Board) -> Option<Start<P>> {
        let normal = raw.matches(start.board());
        let turned = raw.matches(&start.board().rotated());
        let rotated = match (normal, turned) {
            (false, false) => return None,
            (true, false) => Some(false),
            (false, true) => Some(true),
            (true, true) => None,
        };
        Some(Start {
            position: start,
            rotated,
        })
    }
}

/// The placement `start` (either way round) that `raw` is closest to, and
/// the squares that differ, when at most six differ and `raw` holds at
/// least `min_pieces` pieces.
pub fn nearest_either_way<B: Placement>(
    start: B,
    raw: &B,
    min_pieces: usize,
) -> Option<(B, B::Set)> {
    [start.rotated(), start]
        .into_iter()
        .map(|c| {
            let d = c.diff(raw);
            (c, d)
        })
        .min_by_key(|(_, d)| d.count())
        .filter(|(_, d)| d.count() <= 6 && raw.occupied().count() >= min_pieces)
}

/// What the rules say after a ply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// An alert for the arbiter (a claimable draw, a repetition).
    Alert(Alert),
    /// The game is over by the rules (no move, mate, a dead position).
    ///
    /// Design: this never freezes the record. A piece knocked onto the
    /// square that ends the game can stand long enough to be published as
    /// the move: when it is set back, the ply is withdrawn and the result
    /// with it, and a dead position may be played on. The record freezes
    /// at a result signal or the operator's result.
    End {
        /// As the game's record writes it.
        result: String,
        /// Why, in words.
        reason: String,
    },
}

/// Situations every rule book has an article for (or not).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Article {
    /// A position no legal play reaches.
    IllegalPosition,
    /// The start position set up wrongly.
    Setup,
    /// Displaced pieces.
    Displaced,
    /// A completed illegal move.
    IllegalMove,
    /// A player's time ran out (a flag fell): the loss on time.
    LostOnTime,
    /// A player pressed the clock without moving.
    ClockPress,
}

/// A game's rules, as the reconstructor needs them. See the module
/// documentation.
pub trait Game: Clone + Debug + Send + Sync + 'static {
    /// A square of the sensor board.
    type Square: Copy + Eq + Hash + Debug + Display + Send + Sync;
    /// A set of squares.
    type Set: SquareSet<Self::Square>;
    /// A side.
    type Color: GameColor;
    /// A piece.
    type Piece: GamePiece<Color = Self::Color>;
    /// A placement.
    type Board: Placement<Square = Self::Square, Piece = Self::Piece, Color = Self::Color, Set = Self::Set>;
    /// A legal move.
    type Move: GameMove<Square = Self::Square, Set = Self::Set>;
    /// A position.
    type Position: GamePosition<Board = Self::Board, Move = Self::Move, Color = Self::Color>;
    /// A change that looks like a move but breaks the rules.
    type Pseudo: Change<Square = Self::Square, Piece = Self::Piece, Color = Self::Color>;
    /// What follows a game for its verdicts (repetitions, move counts).
    type Referee: Clone + Debug + Send + Sync;

    /// The game's name in events.
    fn game_id(&self) -> GameId;
    /// How many squares the sensor board has.
    fn square_count(&self) -> usize;
    /// The square of sensor index `i` (as whole-board reads list them).
    fn square(&self, i: usize) -> Self::Square;
    /// The sensor index of a square ([`Game::square`]'s inverse).
    fn index(&self, sq: Self::Square) -> usize;
    /// The square 180 degrees round.
    fn turn_round(&self, sq: Self::Square) -> Self::Square;

    // Start positions.

    /// The (standard) start position.
    fn start(&self) -> Self::Position;

    /// The start position the sensors show (board orientation), if any.
    fn detect_start(&self, raw: &Self::Board) -> Option<Start<Self::Position>>;
    /// The start position a board seems meant to be, when close to one:
    /// the intended placement (board orientation) and the differing
    /// squares.
    fn nearest_start(&self, raw: &Self::Board) -> Option<(Self::Board, Self::Set)>;
    /// The `setup` alert (`intended` and `raw` in board orientation).
    fn setup_alert(&self, intended: &Self::Board, raw: &Self::Board) -> Alert;

    // Events.

    /// The `game_start` event (`rotated`: whether the board stands turned
    /// round, `None` while that is not known).
    fn start_event(&self, start: &Self::Position, rotated: Option<bool>) -> EventKind {
        EventKind::GameStart {
            position: start.fen(),
            chess960: self.chess960(start),
            rotated: rotated.unwrap_or(false),
        }
    }
    /// Chess: whether a start position is a Chess960 start (`None` in
    /// other games).
    fn chess960(&self, _start: &Self::Position) -> Option<bool> {
        None
    }
    /// The `move` event of ply `ply`, made by `side` (`irregular`: an
    /// illegal move that stood).
    fn move_event(
        &self,
        ply: u32,
        side: Self::Color,
        rec: &PlyRecord<Self>,
        irregular: bool,
    ) -> EventKind {
        EventKind::Move {
            ply,
            side: side.side(),
            notation: rec.notation.clone(),
            id: rec.id.clone(),
            position: rec.after.fen(),
            irregular,
        }
    }
    /// The `retract` event withdrawing `rec`, the ply numbered `ply`.
    fn retract_event(&self, ply: u32, rec: &PlyRecord<Self>) -> EventKind {
        EventKind::Retract {
            ply,
            id: rec.id.clone(),
        }
    }
    /// The `takeback` event restoring `pos` after `to_ply` plies.
    fn takeback_event(&self, to_ply: u32, pos: &Self::Position) -> EventKind {
        EventKind::Takeback {
            to_ply,
            position: pos.fen(),
        }
    }
    /// The result and a name of a result token (DGT's result pieces).
    fn token_result(&self, token: Token) -> (&'static str, &'static str) {
        let [draw, first, second] = self.results();
        match token {
            Token::Draw => (draw, "draw"),
            Token::WhiteWins => (first, self.first_wins()),
            Token::BlackWins => (second, "black-wins"),
        }
    }
    /// The results the game's record writes for a draw, a win of the
    /// first player and a win of the second.
    fn results(&self) -> [&'static str; 3] {
        ["1/2-1/2", "1-0", "0-1"]
    }
    /// The name of the result token that gives the first player the win.
    fn first_wins(&self) -> &'static str {
        "white-wins"
    }
    /// The placement as text (the board part of the game's FEN).
    fn placement_text(&self, board: &Self::Board) -> String;

    // Readings and records.

    /// The square a reading names (the board's own coordinates, rank 0 on
    /// the first player's side), if the game's board has it.
    fn sensor_square(&self, sq: Reading) -> Option<Self::Square>;
    /// The cell a reading's content stands for; `None` for a content the
    /// game cannot use (a chess board must identify pieces).
    fn sensor_cell(&self, content: Content) -> Option<Cell<Self::Piece>>;
    /// The game's record as its own format writes it (draughts PDN,
    /// xiangqi PGN) from the start position's FEN, each ply's id with the
    /// FEN after it, and the result; empty for chess, whose PGN the sinks
    /// write from events (`crate::sink::pgn`).
    /// `comments[i]` (the clock after ply `i`, `[%clk 0:04:58]`) is
    /// written after that ply's move when given.
    fn record_text(
        &self,
        _start: &str,
        _plies: &[(String, String)],
        _comments: &[Option<String>],
        _result: Option<&str>,
    ) -> String {
        String::new()
    }

    // Search and settling.

    /// Whether `plies` legal plies from `pos` can still reach `target`
    /// (a sound pruning rule; `true` when unsure).
    fn feasible(&self, _pos: &Self::Position, _target: &Self::Board, _plies: usize) -> bool {
        true
    }
    /// How long `m`, played in `pos`, stands before it is published.
    fn settle_ms(&self, rule: &SettleRule, pos: &Self::Position, m: &Self::Move) -> Millis;
    /// Whether `m`, played in `pos`, may be the first half of a result
    /// signal ([`Game::result_signal`]; chess: a king stepping into the
    /// centre): a reply seen after it does not publish it at once, as the
    /// other half may be on its way while the players clear a piece.
    fn may_begin_signal(&self, _pos: &Self::Position, _m: &Self::Move) -> bool {
        false
    }
    /// Whether the search ranks the explanations of a board by the squares
    /// the readings touched (see [`crate::track::search`]): games whose
    /// boards may not identify pieces, where a capture can change only its
    /// origin's occupancy and two routes can end alike.
    fn ranks_by_evidence(&self) -> bool {
        false
    }
    /// Squares a move passes and may be set down on without changing them
    /// (a multi-jump's landings): evidence that ranks moves, never
    /// required.
    fn route(&self, _m: &Self::Move) -> Self::Set {
        Self::Set::default()
    }
    /// The squares of [`Game::route`] in the order the piece lands on
    /// them (a multi-jump's landings): a king's circular jump takes the
    /// same men going round either way, and only the order the readings
    /// saw its landings in tells which way it went.
    fn landings(&self, _m: &Self::Move) -> Vec<Self::Square> {
        Vec::new()
    }
    /// Whether a player making the capture `m` may set its piece down on
    /// `sq` before the victims are cleared: next to a victim, or on the
    /// way to it (a landing of a multi-jump, a square a sliding piece
    /// crosses). A victim lifted then is part of the capture, never the
    /// opponent beginning to reply.
    fn short_of_capture(&self, m: &Self::Move, sq: Self::Square) -> bool;
    /// Whether `m`, played in `pos` and leaving its piece short of a
    /// capture, waits [`SettleRule::short_of_capture_ms`] before it is
    /// published (chess, where the capture in three touches was seen on
    /// real boards). Not in games whose pieces stand so close that most
    /// moves end next to a piece they could take: there the wait would hold
    /// most moves, and a quick reply would be read while they wait.
    fn waits_short_of_capture(&self, _pos: &Self::Position, _m: &Self::Move) -> bool {
        false
    }
    /// Whether the game's first move from the start is final on time only
    /// a misplacement delay after its final time (it stays final at once
    /// on the clock or the reply): before it, hands straighten pieces, and
    /// a piece knocked onto one of its first moves' squares stands there
    /// for seconds before it is set back (issue 44). Not in chess, whose
    /// boards run with clocks and whose first move without one would then
    /// be final past the final delay screens are promised.
    fn holds_first_move(&self) -> bool {
        false
    }

    // The rule book's verdicts.

    /// A referee that has seen the game `record` (a game just begun, or
    /// one whose last plies were withdrawn).
    fn referee(&self, record: &Record<Self>) -> Self::Referee;
    /// What holds after the last ply of `record` (just played; the
    /// referee has seen the plies before it). `has_moves`: whether the
    /// position after it has a legal move; `ended`: the game is already
    /// over.
    fn judge(
        &self,
        referee: &mut Self::Referee,
        record: &Record<Self>,
        has_moves: bool,
        ended: bool,
    ) -> Vec<Verdict>;

    // Irregularities and alerts.

    /// The change that turns `pos`'s placement into `target`, if it looks
    /// like one move (of either side).
    fn find_pseudo(&self, pos: &Self::Position, target: &Self::Board) -> Option<Self::Pseudo>;
    /// The placement a pseudo-move makes from `pos` (`target` is the board
    /// it was found on).
    fn pseudo_board(
        &self,
        pos: &Self::Position,
        m: &Self::Pseudo,
        target: &Self::Board,
    ) -> Self::Board;
    /// The move as played (an illegal move has no standard notation) and
    /// its id.
    fn pseudo_text(&self, pos: &Self::Position, m: &Self::Pseudo) -> (String, String);
    /// The `illegal_move` alert for the `count`th illegal move of its side,
    /// made in `before` after `ply` plies.
    fn illegal_move_alert(
        &self,
        before: &Self::Position,
        m: &Self::Pseudo,
        count: u32,
        ply: usize,
        completed: Completed,
    ) -> Alert;
    /// The position an illegal move left on the board (`board`, `turn` to
    /// move), when play can go on from it.
    fn irregular(
        &self,
        before: &Self::Position,
        board: Self::Board,
        turn: Self::Color,
    ) -> Option<Self::Position>;
    /// The `illegal_position` alert, when no legal play reaches `board`.
    fn illegal_position_alert(&self, board: &Self::Board) -> Option<Alert>;
    /// The `misplaced` alert: `board` differs from `pos`.
    fn misplaced_alert(&self, pos: &Self::Position, board: &Self::Board) -> Alert;
    /// Touch-move alerts for `m`, about to be played in `pos`, given the
    /// pieces of either side lifted since the last move.
    fn touch_alerts(
        &self,
        pos: &Self::Position,
        m: &Self::Move,
        touches: &[Touch<Self>],
        touch_ms: Millis,
    ) -> Vec<Alert>;
    /// The rule book's article for a situation.
    fn article(&self, a: Article) -> Option<&'static str>;

    /// Whether players often leave a capture's pieces standing for the
    /// opponent to clear (draughts, where the book's note even has the
    /// opponent crown the man): a board that differs from a capture's only
    /// by its captured pieces still standing is that capture.
    fn captures_left_standing(&self) -> bool {
        false
    }

    /// The position `board` shows (game orientation) with the first player
    /// (`first_to_move`) or the second to move, for a board first read in
    /// the middle of a game; `None` when no game can stand so, or when the
    /// game is not followed from such a board (chess reports it instead:
    /// `unrecognised`).
    fn position_with(&self, _board: &Self::Board, _first_to_move: bool) -> Option<Self::Position> {
        None
    }

    /// The position a FEN of the game writes (the form its events'
    /// `position` takes); `None` when it is no FEN of this game.
    fn parse_position(&self, fen: &str) -> Option<Self::Position>;

    /// How the rule book's articles are cited in messages: `Law 6.9`,
    /// `art. 1.30`, `Art. 16`.
    fn cite(&self, article: &str) -> String;

    // Result signals.

    /// A result the players signal on the board (chess: the kings in the
    /// centre): the plies to withdraw (a king move into the centre
    /// published a moment before) and the result.
    fn result_signal(
        &self,
        _record: &Record<Self>,
        _target: &Self::Board,
    ) -> Option<(usize, &'static str)> {
        None
    }
    /// Whether a move may be the first half of a result signal.
    fn signal_move(&self, _m: &Self::Move) -> bool {
        false
    }
    /// Whether a pseudo-move may be the first half of a result signal.
    fn signal_pseudo(&self, _m: &Self::Pseudo) -> bool {
        false
    }
    /// The pieces a result signal moves (chess: the kings).
    fn signal_pieces(&self, _board: &Self::Board) -> Self::Set {
        Self::Set::default()
    }
}
