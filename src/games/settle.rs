//! Settle times: how long a move must stand on the board before it is
//! published (see [`crate::track::settle`] for the rule).

use crate::event::Millis;

/// Settle times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SettleRule {
    /// For moves that cannot be extended.
    pub base_ms: Millis,
    /// For moves that may still be travelling.
    pub extendable_ms: Millis,
    /// For a restored earlier position (a takeback). Longer, because a
    /// piece set down for a moment on a wrong square can recreate an
    /// earlier position of the game, while players restoring a position
    /// take seconds anyway.
    pub takeback_ms: Millis,
    /// Chess: for a king move onto d4, d5, e4 or e5: players report a
    /// result by putting both kings there, and the first king must not be
    /// shown as a move while the second is on its way.
    pub king_centre_ms: Millis,
    /// Chess: how long both kings must stand in the centre before that is
    /// taken as the players' result signal.
    pub kings_signal_ms: Millis,
    /// For an explanation the readings do not back up on every square it
    /// changes, on a board without piece identity (a knocked piece can
    /// look like a capture there): nothing of it is published before.
    pub unbacked_ms: Millis,
    /// For a move that leaves its piece beside a piece it could have
    /// captured from where it came (or on the way to it): players who
    /// capture in three touches set the piece down there, then lift the
    /// victim, then finish the capture.
    pub short_of_capture_ms: Millis,
    /// Chess: for a move that cannot be extended and whose piece could
    /// land legally on no square beside its own (see
    /// `games::chess::settle::lands_beside_another`): no neighbouring
    /// landing for a hand set down off-centre to be read as. Equal to
    /// `base_ms` (the default) turns the rule off.
    pub sole_landing_ms: Millis,
    /// How long a published move must stand, with nothing else waiting to
    /// be explained, before it is final without other evidence (no clock
    /// press, no reply): longer than the longest stop on the way the real
    /// recordings show (see [`crate::track::finality`]).
    pub final_ms: Millis,
    /// How long a move settling on the board must stand before screens are
    /// shown it as provisional (a debounce: a piece only passing over a
    /// square is not shown).
    pub provisional_ms: Millis,
}

impl Default for SettleRule {
    fn default() -> Self {
        SettleRule {
            base_ms: 450,
            extendable_ms: 850,
            takeback_ms: 1_500,
            king_centre_ms: 2_500,
            kings_signal_ms: 1_500,
            unbacked_ms: 3_000,
            short_of_capture_ms: 1_300,
            sole_landing_ms: 300,
            final_ms: 2_400,
            provisional_ms: 250,
        }
    }
}
