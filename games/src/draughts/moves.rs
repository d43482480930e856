//! Moves, their `id` (the full path) and PDN numeric notation.

use std::fmt;

use thiserror::Error;

use super::geometry::Square;
use super::position::Position;

/// A move: the path of the moving piece (origin, every landing square) and
/// the squares of the pieces it captures, in jumping order.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Move {
    path: Vec<Square>,
    captured: Vec<Square>,
    crowned: bool,
}

/// A move text that names no legal move, or more than one.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum NotationError {
    /// Not of the form `N-N` or `NxN[xN...]` with squares 1-32.
    #[error("not a draughts move: {0:?}")]
    Syntax(String),
    /// Well formed, but no legal move matches it.
    #[error("no legal move {text:?} in {fen}")]
    Illegal {
        /// The text.
        text: String,
        /// The position it was read in.
        fen: String,
    },
    /// Several legal moves with different results match it.
    #[error("ambiguous move {0:?}: give the landing squares")]
    Ambiguous(String),
}

impl Move {
    /// A move along `path` capturing `captured`; `crowned` when a man ends
    /// the move on its king row.
    #[must_use]
    pub fn new(path: Vec<Square>, captured: Vec<Square>, crowned: bool) -> Move {
        assert!(path.len() >= 2, "a move has at least two squares");
        Move {
            path,
            captured,
            crowned,
        }
    }

    /// Where the piece starts.
    #[must_use]
    pub fn from(&self) -> Square {
        self.path[0]
    }

    /// Where the piece ends.
    #[must_use]
    pub fn to(&self) -> Square {
        *self.path.last().expect("non-empty path")
    }

    /// Origin and every landing square.
    #[must_use]
    pub fn path(&self) -> &[Square] {
        &self.path
    }

    /// Squares of the captured pieces, in jumping order.
    #[must_use]
    pub fn captured(&self) -> &[Square] {
        &self.captured
    }

    /// Whether the move captures.
    #[must_use]
    pub fn is_capture(&self) -> bool {
        !self.captured.is_empty()
    }

    /// Whether a man is crowned by this move (it ends on its king row).
    #[must_use]
    pub fn is_crowning(&self) -> bool {
        self.crowned
    }

    fn sep(&self) -> &'static str {
        if self.is_capture() { "x" } else { "-" }
    }

    /// The event `id` (interface §7): every square of the path joined by
    /// `-` (plain move) or `x` (capture), e.g. `11-15`, `15x22x31`.
    #[must_use]
    pub fn id(&self) -> String {
        self.path
            .iter()
            .map(|s| s.number().to_string())
            .collect::<Vec<_>>()
            .join(self.sep())
    }

    /// PDN numeric short form in `pos` (where it is legal): `11-15`,
    /// `22x15`, `15x31`; the full path (`15x22x31`) only when another legal
    /// move has the same origin and destination.
    #[must_use]
    pub fn notation(&self, pos: &Position) -> String {
        let twin = pos
            .legal_moves()
            .iter()
            .any(|m| m.from() == self.from() && m.to() == self.to() && m.path != self.path);
        if twin {
            self.id()
        } else {
            format!("{}{}{}", self.from(), self.sep(), self.to())
        }
    }

    /// Reads a move in `pos` from its short notation or its full-path id
    /// (`-` and `x` are both accepted as separators; given landing squares
    /// must appear on the path in order).
    pub fn parse(text: &str, pos: &Position) -> Result<Move, NotationError> {
        let t = text.trim();
        let squares = t
            .split(['-', 'x', 'X', ':'])
            .map(|s| s.parse::<Square>())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|_| NotationError::Syntax(t.to_owned()))?;
        if squares.len() < 2 {
            return Err(NotationError::Syntax(t.to_owned()));
        }
        let (first, last) = (squares[0], squares[squares.len() - 1]);
        let candidates: Vec<Move> = pos
            .legal_moves()
            .into_iter()
            .filter(|m| m.from() == first && m.to() == last)
            .filter(|m| is_subsequence(&squares[1..squares.len() - 1], &m.path[1..]))
            .collect();
        if let Some(exact) = candidates.iter().find(|m| m.path == squares) {
            return Ok(exact.clone());
        }
        match candidates.as_slice() {
            [] => Err(NotationError::Illegal {
                text: t.to_owned(),
                fen: pos.fen(),
            }),
            [one] => Ok(one.clone()),
            [one, rest @ ..] => {
                let same = |m: &Move| {
                    let mut a = m.captured.clone();
                    let mut b = one.captured.clone();
                    a.sort();
                    b.sort();
                    a == b
                };
                if rest.iter().all(same) {
                    Ok(one.clone())
                } else {
                    Err(NotationError::Ambiguous(t.to_owned()))
                }
            }
        }
    }
}

fn is_subsequence(needle: &[Square], hay: &[Square]) -> bool {
    let mut it = hay.iter();
    needle.iter().all(|n| it.any(|h| h == n))
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Move({})", self.id())
    }
}

impl fmt::Display for Move {
    /// The full-path id.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.id())
    }
}
