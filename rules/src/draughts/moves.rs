//! Moves and their `id` (the full path); their PDN notation in a
//! position is [`super::notation`]'s.

use std::fmt;

use super::geometry::Square;

/// A move: the path of the moving piece (origin, every landing square) and
/// the squares of the pieces it captures, in jumping order.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Move {
    path: Vec<Square>,
    captured: Vec<Square>,
    crowned: bool,
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

    pub(crate) fn sep(&self) -> &'static str {
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
