//! Simulated open-protocol boards for draughts and xiangqi: a game played
//! by hands on a board that reports what its sensors see (`hello`, a
//! `board` line, then `up`/`down` per square change), written as a capture.
//!
//! Design: written from how people handle pieces, not from what the
//! tracker expects. The clean profile lifts and sets down each piece once
//! (captured pieces removed after the move, a crown stacked). The human
//! profile adds the habits of club play: captured pieces removed before,
//! during or after the jumping piece travels, one at a time or swept
//! together; a multi-jump set down on each landing square or carried over
//! them; a xiangqi capture with the victim lifted first or the mover lifted
//! first; sliders set down on squares on their way; crowning by turning the
//! man over; pieces knocked and set back a moment later; lines split across
//! capture chunks.

mod capture;
mod draughts;
mod hands;
mod xiangqi;

use boardcast_protocols::reading::{Geometry, Square};

pub use capture::{capture_text, draughts_on_a_vendor_board, tabutronic_capture_text};
pub(crate) use draughts::{draughts_hands, dsq, play_draughts};
pub use draughts::{simulate_draughts, simulate_draughts_with};
pub(crate) use hands::Hands;
pub(crate) use xiangqi::{play_xiangqi, xiangqi_hands, xsq};
pub use xiangqi::{read_xiangqi_games, simulate_xiangqi, simulate_xiangqi_with};

use boardcast::event::Millis;

/// The game a simulated board plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OtherGame {
    /// English draughts on 8x8.
    Draughts,
    /// Xiangqi on 9x10.
    Xiangqi,
}

impl OtherGame {
    /// The name in `hello` lines.
    pub fn name(self) -> &'static str {
        match self {
            OtherGame::Draughts => "draughts",
            OtherGame::Xiangqi => "xiangqi",
        }
    }

    /// The open protocol's name for the game (square names, letters).
    pub fn protocol(self) -> boardcast_protocols::open::Game {
        match self {
            OtherGame::Draughts => boardcast_protocols::open::Game::Draughts,
            OtherGame::Xiangqi => boardcast_protocols::open::Game::Xiangqi,
        }
    }

    fn geometry(self) -> Geometry {
        match self {
            OtherGame::Draughts => Geometry::CHESS,
            OtherGame::Xiangqi => Geometry::XIANGQI,
        }
    }

    /// The snapshot index of a square (game coordinates).
    pub(crate) fn index_of(self, sq: Square) -> usize {
        self.geometry().index(sq).expect("on the board")
    }

    fn first_rank(self) -> u8 {
        match self {
            OtherGame::Draughts => 1,
            OtherGame::Xiangqi => 0,
        }
    }
}

/// How the simulated players handle the pieces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OtherGameProfile {
    /// Human habits (else clean handling).
    pub human: bool,
    /// Whether the board identifies pieces (`pieces=yes`).
    pub pieces: bool,
    /// The board stands turned round.
    pub rotated: bool,
    /// With `human`, the habits of the real recordings too (see
    /// [`crate::Real`]): a piece set down on another square it could go to
    /// on its way (about one move in twenty-five, for a third of a second
    /// with a tail of up to two seconds); a captured piece set down beside
    /// for a moment before it leaves the board; a xiangqi chariot or cannon
    /// set down short of its victim, the victim lifted, then the capture.
    pub real: bool,
}

/// A simulated session: the board's lines with their times.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OtherGameSession {
    /// `(t_ms, line without its line end)`.
    pub lines: Vec<(Millis, String)>,
    /// When each ply was completed (its last `down`), for a clock beside
    /// the board ([`crate::clock::add_open_clock`]); empty for sessions
    /// with takebacks or faults.
    pub plies: Vec<Millis>,
}

/// (issue 44).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Habits {
    /// Draughts: how often a capture's men, and a crowning, are left for
    /// the opponent: the captured men cleared and the man crowned by the
    /// opponent at the start of their turn, as the rule book's note on
    /// crowning (the opponent crowns) and many clubs do.
    pub left_for_opponent: f64,
    /// How often, before the game's first move, a piece is knocked onto a
    /// square one of its first moves goes to, stands there 1 to 4 s, and
    /// is set back; the real first move follows.
    pub first_move_knock: f64,
    /// How often, before the game's first move, a piece of the side that
    /// moves second is pushed forward onto the square the mirror of a
    /// first move reaches (turned round, the board then reads as that
    /// first move), stands there 1 to 4 s, and is set back; the real
    /// first move follows, half the time at once (0.15 to 1.5 s after the
    /// piece is back; a sleeve or a knock while the players sit down,
    /// issue 60).
    pub second_mover_knock: f64,
    /// Xiangqi: how often a chariot's or cannon's capture along a line is
    /// made victim first, the piece then slid to the victim's point
    /// touching every empty point on its way for a moment each (a horse:
    /// its leg's point); on a board that senses occupancy only, the last
    /// point touched is not the landing.
    pub capture_slide: f64,
}
