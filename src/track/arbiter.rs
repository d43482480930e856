//! What the arbiter must hear: the delays of the alerts, what completes an
//! illegal move, and the alert builders every game uses. The wording of
//! each game's alerts is the game's own (`crate::games::*`);
//! [`super::Reconstructor`] decides when.

use crate::event::Millis;

pub use crate::games::arbiter::{Completed, alert, cleared};

/// Delays of the arbiter alerts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AlertDelays {
    /// A board that disagrees with the game for this long raises
    /// `misplaced` (FIDE Laws 7.4/7.6). Long enough that a knocked piece
    /// set back within a few seconds stays silent.
    pub misplaced_ms: Millis,
    /// The same when the board only lacks one or two pieces of the side to
    /// move (a player thinking with a piece in the hand).
    pub in_hand_ms: Millis,
    /// A start position set up wrongly stands this long before `setup`.
    pub setup_ms: Millis,
    /// A lift shorter than this is an adjustment (FIDE Law 4.2), not a
    /// touch.
    pub touch_ms: Millis,
    /// A lift that begins within this long of the reading that completed
    /// the last move is not a touch (FIDE Law 4.3, draughts art. 1.22,
    /// xiangqi Art. 13): the hand that made the move knocking a piece on
    /// its way back looks the same on the sensors, and an accusation needs
    /// more than that.
    pub touch_grace_ms: Millis,
}

impl Default for AlertDelays {
    fn default() -> Self {
        AlertDelays {
            misplaced_ms: 6_000,
            in_hand_ms: 30_000,
            setup_ms: 5_000,
            touch_ms: 300,
            touch_grace_ms: 1_500,
        }
    }
}
