//! The rule book's verdicts: wins, claimable draws, and what an arbiter
//! checks when a move is seen on the board.
//!
//! Article numbers are those of `english-draughts-rules.zh.txt` (the
//! project's rule book, a Chinese translation of the WCDF rules), which
//! number most articles from 1.14 on one lower than the English WCDF text.
//! All of them live in [`Law::article`], so an edition change is one edit.

use std::collections::HashMap;

use super::geometry::{Color, Kind, Square};
use super::moves::Move;
use super::position::{Position, Undo};

/// The articles of the rule book that boardcast cites.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Law {
    /// Setting up: Black (red) on 1-12, White on 21-32.
    SetUp,
    /// Black (red) moves first, then the players alternate.
    FirstMove,
    /// A man moves one square diagonally forward.
    ManMove,
    /// A man reaching the king row is crowned and the move ends.
    Crowning,
    /// A king moves one square diagonally forward or backward.
    KingMove,
    /// Capturing by jumping an adjacent opponent piece.
    Capture,
    /// Multi-jumps continue to the end; a man crowned by a jump stops.
    MultiJump,
    /// Captures are compulsory, free choice, completed, a piece jumped once.
    CompulsoryCapture,
    /// Kings capture forward and backward.
    KingCapture,
    /// Adjusting pieces after notice.
    Adjust,
    /// A touched piece must be moved.
    TouchMove,
    /// A piece moved past the angle of its square must go that way.
    TouchDirection,
    /// Illegal moves: first offence warning and position restored, second forfeit.
    IllegalMove,
    /// Failing to capture or to complete a multi-jump.
    FailToCapture,
    /// Touching a piece that cannot move.
    UnmovablePiece,
    /// Moving a piece to a wrong square.
    WrongSquare,
    /// Moving an uncrowned man backwards.
    ManBackwards,
    /// Removing pieces that were not captured.
    WrongRemoval,
    /// Adding pieces to the board.
    AddedPiece,
    /// A man jumping on after reaching the king row.
    PastKingRow,
    /// Moving out of turn.
    OutOfTurn,
    /// The illegal move stands once the opponent moves.
    Condonation,
    /// Pieces displaced accidentally are replaced without penalty.
    Displaced,
    /// Win: the opponent, to move, has no move.
    NoLegalMove,
    /// Win by resignation, forfeit or time.
    OtherWin,
    /// Draw by agreement.
    DrawAgreed,
    /// Draw: the same position for the third time.
    Repetition,
    /// Draw: 40 moves each with no man advanced and no piece removed.
    FortyMoves,
}

impl Law {
    /// The article number as the rule book prints it.
    #[must_use]
    pub fn article(self) -> &'static str {
        match self {
            Law::SetUp => "1.11",
            Law::FirstMove => "1.13",
            Law::ManMove => "1.14",
            Law::Crowning => "1.15",
            Law::KingMove => "1.16",
            Law::Capture => "1.17",
            Law::MultiJump => "1.18",
            Law::CompulsoryCapture => "1.19",
            Law::KingCapture => "1.20",
            Law::Adjust => "1.21",
            Law::TouchMove => "1.22",
            Law::TouchDirection => "1.23",
            Law::IllegalMove => "1.24",
            Law::FailToCapture => "1.25.1",
            Law::UnmovablePiece => "1.25.2",
            Law::WrongSquare => "1.25.3",
            Law::ManBackwards => "1.25.4",
            Law::WrongRemoval => "1.25.5",
            Law::AddedPiece => "1.25.6",
            Law::PastKingRow => "1.25.7",
            Law::OutOfTurn => "1.25.8",
            // The book prints a second, unnumbered-below "1.25" after 1.25.8.
            Law::Condonation => "1.25",
            Law::Displaced => "1.26",
            Law::NoLegalMove => "1.29",
            Law::OtherWin => "1.30",
            Law::DrawAgreed => "1.31",
            Law::Repetition => "1.32.1",
            Law::FortyMoves => "1.32.2",
        }
    }
}

/// Plies without a man move or a capture after which a draw may be claimed
/// (art. 1.32.2: 40 moves of each player).
pub const FORTY_MOVE_PLIES: u32 = 80;

/// What the rules say after a move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The game is over: `winner` made the last move, the opponent has none.
    Win {
        /// The side that wins.
        winner: Color,
        /// The article.
        law: Law,
    },
    /// A player may claim a draw (the game goes on until the arbiter rules).
    DrawClaimable {
        /// [`Law::Repetition`] or [`Law::FortyMoves`].
        law: Law,
    },
}

/// A game in progress: the start position, the moves played and what the
/// draw rules need to know about them.
#[derive(Debug, Clone)]
pub struct Game {
    start: Position,
    position: Position,
    moves: Vec<(Move, Undo, u32)>,
    seen: HashMap<Position, u32>,
    quiet: u32,
}

impl Game {
    /// A game from the standard start.
    #[must_use]
    pub fn new() -> Game {
        Game::from_position(Position::start())
    }

    /// A game from `start`.
    #[must_use]
    pub fn from_position(start: Position) -> Game {
        Game {
            start,
            position: start,
            moves: Vec::new(),
            seen: HashMap::from([(start, 1)]),
            quiet: 0,
        }
    }

    /// The start position.
    #[must_use]
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The current position.
    #[must_use]
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The moves played so far.
    pub fn moves(&self) -> impl ExactSizeIterator<Item = &Move> {
        self.moves.iter().map(|(m, _, _)| m)
    }

    /// Plies since the last man move or capture.
    #[must_use]
    pub fn quiet_plies(&self) -> u32 {
        self.quiet
    }

    /// How often the current position (with the same side to move) has stood.
    #[must_use]
    pub fn repetitions(&self) -> u32 {
        self.seen.get(&self.position).copied().unwrap_or(0)
    }

    /// Plays `mv` (which must be legal in the current position) and returns
    /// the verdicts that hold afterwards.
    pub fn play(&mut self, mv: &Move) -> Vec<Verdict> {
        let man = self
            .position
            .piece_at(mv.from())
            .is_some_and(|p| p.kind == Kind::Man);
        let before = self.quiet;
        let undo = self.position.play(mv);
        self.quiet = if man || mv.is_capture() {
            0
        } else {
            before + 1
        };
        *self.seen.entry(self.position).or_insert(0) += 1;
        self.moves.push((mv.clone(), undo, before));
        self.verdicts()
    }

    /// Takes back the last move; `None` at the start.
    pub fn undo(&mut self) -> Option<Move> {
        let (mv, undo, quiet) = self.moves.pop()?;
        if let Some(n) = self.seen.get_mut(&self.position) {
            *n -= 1;
            if *n == 0 {
                self.seen.remove(&self.position);
            }
        }
        self.position.undo(&mv, undo);
        self.quiet = quiet;
        Some(mv)
    }

    /// The verdicts that hold in the current position: a win when the side
    /// to move has no legal move (art. 1.29); a claimable draw when the
    /// position stands for the third time with the same side to move
    /// (art. 1.32.1), or when neither player advanced a man nor removed a
    /// piece in their own previous 40 moves (art. 1.32.2; every man move is
    /// an advance, men only move forward).
    #[must_use]
    pub fn verdicts(&self) -> Vec<Verdict> {
        if self.position.legal_moves().is_empty() {
            return vec![Verdict::Win {
                winner: self.position.turn().opponent(),
                law: Law::NoLegalMove,
            }];
        }
        let mut out = Vec::new();
        if self.repetitions() >= 3 {
            out.push(Verdict::DrawClaimable {
                law: Law::Repetition,
            });
        }
        if self.quiet >= FORTY_MOVE_PLIES {
            out.push(Verdict::DrawClaimable {
                law: Law::FortyMoves,
            });
        }
        out
    }
}

impl Default for Game {
    fn default() -> Game {
        Game::new()
    }
}

/// A change seen on the board, not yet known to be legal: a piece went from
/// `from` to `to`, the pieces on `removed` disappeared, pieces appeared on
/// `added` (besides the one on `to`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PseudoMove {
    /// Where the moving piece was.
    pub from: Square,
    /// Where it was set down.
    pub to: Square,
    /// Other squares emptied.
    pub removed: Vec<Square>,
    /// Squares newly occupied other than `to`.
    pub added: Vec<Square>,
}

/// What an observed [`PseudoMove`] is, by the rule book.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Classification {
    /// A legal move.
    Legal(Move),
    /// A move by the side not to move (art. 1.25.8).
    OutOfTurn,
    /// Nothing of the side to move stood on `from` (art. 1.25.3).
    NoPiece,
    /// A plain move while a capture was compulsory (art. 1.19, 1.25.1).
    MissedCapture {
        /// The captures that were available.
        available: Vec<Move>,
    },
    /// A capture stopped before the sequence was complete (art. 1.19, 1.25.1).
    IncompleteJump {
        /// The complete sequences it could have continued into.
        continuations: Vec<Move>,
    },
    /// An uncrowned man moved backwards (art. 1.25.4).
    ManBackwards,
    /// The piece went where the move is legal, but other pieces were removed
    /// than those it captured (art. 1.25.5).
    WrongRemoval {
        /// The legal move with that origin and destination.
        expected: Move,
    },
    /// Pieces were added to the board (art. 1.25.6).
    AddedPiece,
    /// A man jumped on after reaching the king row (art. 1.25.7).
    PastKingRow,
    /// Any other wrong destination (art. 1.25.3).
    WrongSquare,
}

impl Classification {
    /// The article to cite; `None` for a legal move.
    #[must_use]
    pub fn law(&self) -> Option<Law> {
        Some(match self {
            Classification::Legal(_) => return None,
            Classification::OutOfTurn => Law::OutOfTurn,
            Classification::NoPiece | Classification::WrongSquare => Law::WrongSquare,
            Classification::MissedCapture { .. } | Classification::IncompleteJump { .. } => {
                Law::FailToCapture
            }
            Classification::ManBackwards => Law::ManBackwards,
            Classification::WrongRemoval { .. } => Law::WrongRemoval,
            Classification::AddedPiece => Law::AddedPiece,
            Classification::PastKingRow => Law::PastKingRow,
        })
    }

    /// Whether this is a legal move.
    #[must_use]
    pub fn is_legal(&self) -> bool {
        matches!(self, Classification::Legal(_))
    }

    /// A short English description for alert messages.
    #[must_use]
    pub fn describe(&self) -> String {
        match self {
            Classification::Legal(m) => format!("legal move {}", m.id()),
            Classification::OutOfTurn => "moved out of turn".into(),
            Classification::NoPiece => "no piece of the side to move on that square".into(),
            Classification::MissedCapture { available } => format!(
                "a capture was available and not taken ({})",
                available
                    .iter()
                    .map(Move::id)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Classification::IncompleteJump { continuations } => format!(
                "multi-jump left unfinished (complete: {})",
                continuations
                    .iter()
                    .map(Move::id)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Classification::ManBackwards => "an uncrowned man moved backwards".into(),
            Classification::WrongRemoval { expected } => format!(
                "wrong pieces removed (the move {} captures {})",
                expected.id(),
                expected
                    .captured()
                    .iter()
                    .map(|s| s.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            Classification::AddedPiece => "pieces added to the board".into(),
            Classification::PastKingRow => "a man jumped on past the king row".into(),
            Classification::WrongSquare => "moved to a wrong square".into(),
        }
    }
}

fn same_set(a: &[Square], b: &[Square]) -> bool {
    let mut a = a.to_vec();
    let mut b = b.to_vec();
    a.sort();
    b.sort();
    a == b
}

/// The captures `seen` may be stopped on the way of: captures from its
/// origin with its destination as an intermediate landing square, and
/// only pieces jumped so far removed (none, some or all of them).
fn stopped_captures(legal: &[Move], seen: &PseudoMove) -> Vec<Move> {
    legal
        .iter()
        .filter(|m| m.is_capture() && m.from() == seen.from)
        .filter(|m| {
            m.path()[1..m.path().len() - 1]
                .iter()
                .position(|&s| s == seen.to)
                .is_some_and(|i| {
                    let jumped = &m.captured()[..=i];
                    seen.removed.iter().all(|r| jumped.contains(r))
                })
        })
        .cloned()
        .collect()
}

/// Classifies an observed change against the rules in `pos` (the position
/// before it). Checks, in order: who moved (art. 1.25.8), added pieces
/// (1.25.6), a legal move, a legal destination with a piece removed that
/// the move does not capture (1.25.5), an unfinished capture (1.25.1), a
/// legal destination with fewer pieces removed than captured (1.25.5), a
/// man going backwards (1.25.4), a plain move while a capture was
/// compulsory (1.19/1.25.1), a man jumping past the king row (1.25.7),
/// else a wrong square (1.25.3).
#[must_use]
pub fn classify(pos: &Position, seen: &PseudoMove) -> Classification {
    let Some(piece) = pos.piece_at(seen.from) else {
        return Classification::NoPiece;
    };
    if piece.color != pos.turn() {
        return Classification::OutOfTurn;
    }
    if !seen.added.is_empty() {
        return Classification::AddedPiece;
    }
    let legal = pos.legal_moves();
    let same_ends: Vec<&Move> = legal
        .iter()
        .filter(|m| m.from() == seen.from && m.to() == seen.to)
        .collect();
    if let Some(m) = same_ends
        .iter()
        .find(|m| same_set(m.captured(), &seen.removed))
    {
        return Classification::Legal((*m).clone());
    }
    // The right ends with other removals (art. 1.25.5), unless fewer were
    // removed than captured and the board reads as a capture stopped
    // half-way on a square its path lands on twice (a circular capture):
    // that is the capture stopped (1.25.1).
    let continuations = stopped_captures(&legal, seen);
    let removes_uncaptured = |m: &&Move| !seen.removed.iter().all(|r| m.captured().contains(r));
    if let Some(m) = same_ends.first()
        && (continuations.is_empty() || same_ends.iter().all(removes_uncaptured))
    {
        return Classification::WrongRemoval {
            expected: (*m).clone(),
        };
    }
    if !continuations.is_empty() {
        return Classification::IncompleteJump { continuations };
    }
    let df = seen.to.file() as i8 - seen.from.file() as i8;
    let dr = seen.to.rank() as i8 - seen.from.rank() as i8;
    let backwards = piece.kind == Kind::Man && dr.signum() == -piece.color.forward();
    let plain_step = df.abs() == 1 && dr.abs() == 1 && pos.piece_at(seen.to).is_none();
    if backwards {
        return Classification::ManBackwards;
    }
    if plain_step && seen.removed.is_empty() && pos.has_capture() {
        return Classification::MissedCapture {
            available: pos.captures(),
        };
    }
    let king_rank = piece.color.king_rank();
    if piece.kind == Kind::Man
        && pos.captures_from(seen.from, false).iter().any(|m| {
            m.path()[1..]
                .iter()
                .position(|s| s.rank() == king_rank)
                .is_some_and(|i| m.path()[i + 2..].contains(&seen.to))
        })
    {
        return Classification::PastKingRow;
    }
    Classification::WrongSquare
}

/// The penalty of art. 1.24 for an offence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Penalty {
    /// First offence: warning, position restored.
    Warning,
    /// Second (or later) offence: the game is lost by forfeit.
    Forfeit,
}

/// Counts illegal-move offences per player (art. 1.24).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Offences {
    counts: [u32; 2],
}

impl Offences {
    /// Records an offence by `color` and returns its penalty.
    pub fn record(&mut self, color: Color) -> Penalty {
        let n = &mut self.counts[color.index()];
        *n += 1;
        if *n == 1 {
            Penalty::Warning
        } else {
            Penalty::Forfeit
        }
    }

    /// Offences recorded for `color`.
    #[must_use]
    pub fn count(&self, color: Color) -> u32 {
        self.counts[color.index()]
    }
}

/// What touching a piece commits its player to, on their turn (art. 1.22),
/// unless they first gave notice of adjusting it (art. 1.21).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Touch {
    /// No piece stands there.
    Empty,
    /// A piece of the opponent: touching it commits to nothing.
    Opponent,
    /// An own piece that can move: it must be moved, by one of these moves
    /// (art. 1.22).
    MustMove(Vec<Move>),
    /// An own piece that cannot move (blocked, or another piece must
    /// capture): an offence (art. 1.25.2, with the penalty of art. 1.24).
    Unmovable,
}

impl Touch {
    /// The article that applies: [`Law::TouchMove`] for a playable piece,
    /// [`Law::UnmovablePiece`] for one that cannot move.
    #[must_use]
    pub fn law(&self) -> Option<Law> {
        match self {
            Touch::MustMove(_) => Some(Law::TouchMove),
            Touch::Unmovable => Some(Law::UnmovablePiece),
            Touch::Empty | Touch::Opponent => None,
        }
    }
}

/// What touching the piece on `sq` commits the side to move to (art. 1.22,
/// 1.25.2). Compulsory capture (art. 1.19) counts: when a capture is due,
/// only pieces that can capture are playable.
#[must_use]
pub fn touch(pos: &Position, sq: Square) -> Touch {
    match pos.piece_at(sq) {
        None => Touch::Empty,
        Some(p) if p.color != pos.turn() => Touch::Opponent,
        Some(_) => {
            let moves: Vec<Move> = pos
                .legal_moves()
                .into_iter()
                .filter(|m| m.from() == sq)
                .collect();
            if moves.is_empty() {
                Touch::Unmovable
            } else {
                Touch::MustMove(moves)
            }
        }
    }
}

/// The legal moves of the piece on `from` that leave it toward the
/// diagonal neighbour `toward` (art. 1.23: a playable piece moved past the
/// angle of its square toward one direction must go that way): plain moves
/// to `toward`, and captures whose first jump goes over it.
#[must_use]
pub fn moves_toward(pos: &Position, from: Square, toward: Square) -> Vec<Move> {
    let df = toward.file() as i8 - from.file() as i8;
    let dr = toward.rank() as i8 - from.rank() as i8;
    if df.abs() != 1 || dr.abs() != 1 {
        return Vec::new();
    }
    pos.legal_moves()
        .into_iter()
        .filter(|m| {
            m.from() == from && {
                let first = m.path()[1];
                let (f, r) = (
                    first.file() as i8 - from.file() as i8,
                    first.rank() as i8 - from.rank() as i8,
                );
                f.signum() == df && r.signum() == dr
            }
        })
        .collect()
}
