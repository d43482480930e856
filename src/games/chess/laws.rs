//! The FIDE Laws of Chess articles boardcast cites, in one table, so that an
//! edition change is one edit. The edition is the Laws in force from
//! 1 July 2014, with the arbiters' notes.

/// The edition every article number below refers to.
pub const EDITION: &str = "FIDE Laws of Chess, in force from 1 July 2014";

/// A situation on the board that the Laws make the arbiter's business.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Law {
    /// 3.10c: a position that cannot be reached by legal moves.
    IllegalPosition,
    /// 4.3: a touched piece must be moved.
    TouchMove,
    /// 4.4b: castling begun by touching the rook.
    CastlingRookFirst,
    /// 4.7: a pawn on the last rank must be exchanged (promotion).
    Promotion,
    /// 5.1a: checkmate.
    Checkmate,
    /// 5.2a: stalemate.
    Stalemate,
    /// 5.2b / 9.7: dead position.
    DeadPosition,
    /// 6.2a: a move is completed by pressing the clock.
    ClockPress,
    /// 6.9: flag fall with a position the opponent cannot win.
    FlagFall,
    /// 7.2a: initial position set up wrongly.
    Setup,
    /// 7.4a / 7.6: displaced pieces.
    Displaced,
    /// 7.5a: a completed illegal move.
    IllegalMove,
    /// 9.2: threefold repetition, claimable.
    Threefold,
    /// 9.3: fifty moves without capture or pawn move, claimable.
    FiftyMoves,
    /// 9.6a: fivefold repetition ends the game.
    Fivefold,
    /// 9.6b: seventy-five moves end the game.
    SeventyFiveMoves,
}

impl Law {
    /// The article number as the edition numbers it.
    pub const fn article(self) -> &'static str {
        match self {
            Law::IllegalPosition => "3.10c",
            Law::TouchMove => "4.3",
            Law::CastlingRookFirst => "4.4b",
            Law::Promotion => "4.7",
            Law::Checkmate => "5.1a",
            Law::Stalemate => "5.2a",
            Law::DeadPosition => "9.7",
            Law::ClockPress => "6.2a",
            Law::FlagFall => "6.9",
            Law::Setup => "7.2a",
            Law::Displaced => "7.4",
            Law::IllegalMove => "7.5a",
            Law::Threefold => "9.2",
            Law::FiftyMoves => "9.3",
            Law::Fivefold => "9.6a",
            Law::SeventyFiveMoves => "9.6b",
        }
    }
}
