//! The rules an event fixes for its games, as one value for every game.

use boardcast_rules::xiangqi::repetition::MoveLimit;

use super::chess::Variant;

/// What an event decides of its games' rules, beyond the rule books: each
/// game reads the part that concerns it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GameOptions {
    /// Chess: which start positions begin a game (`[event] variant`).
    pub variant: Variant,
    /// Xiangqi: the move limit (Art. 6 and 17 leave it to the event;
    /// `None`: 60 moves, 6 checks counted).
    pub move_limit: Option<MoveLimit>,
}
