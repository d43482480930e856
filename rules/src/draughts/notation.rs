//! A move's PDN numeric notation in a position: written short where it
//! is unambiguous, read from its short form or its full path.

use thiserror::Error;

use super::geometry::Square;
use super::moves::Move;
use super::position::Position;

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
    /// PDN numeric short form in `pos` (where it is legal): `11-15`,
    /// `22x15`, `15x31`; the full path (`15x22x31`) only when another legal
    /// move has the same origin and destination.
    #[must_use]
    pub fn notation(&self, pos: &Position) -> String {
        let twin = pos
            .legal_moves()
            .iter()
            .any(|m| m.from() == self.from() && m.to() == self.to() && m.path() != self.path());
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
            .filter(|m| is_subsequence(&squares[1..squares.len() - 1], &m.path()[1..]))
            .collect();
        if let Some(exact) = candidates.iter().find(|m| m.path() == squares) {
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
                    let mut a = m.captured().to_vec();
                    let mut b = one.captured().to_vec();
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
