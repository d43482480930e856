//! The event type every sink consumes (interface section 4).
//!
//! A board's reconstructor emits [`EventKind`]s with the time of the reading
//! that caused them; the pipeline stamps the board id to make an [`Event`].
//! Serialised as one flat JSON object: `{"type": "move", "board": "1",
//! "t_ms": 5684, "ply": 1, ...}`.

use serde::{Deserialize, Serialize};

/// Milliseconds of capture (or daemon) time.
pub type Millis = u64;

/// A player colour as events name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// White.
    White,
    /// Black.
    Black,
}

impl Side {
    /// The other side.
    pub fn other(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }

    /// "White" or "Black", for messages.
    pub fn name(self) -> &'static str {
        match self {
            Side::White => "White",
            Side::Black => "Black",
        }
    }
}

impl From<crate::rules::Color> for Side {
    fn from(c: crate::rules::Color) -> Side {
        match c {
            crate::rules::Color::White => Side::White,
            crate::rules::Color::Black => Side::Black,
        }
    }
}

/// What kind of thing an alert reports (interface section 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AlertKind {
    /// A completed move that is not legal (Law 7.5).
    IllegalMove,
    /// A position no legal play reaches (Law 3.10c).
    IllegalPosition,
    /// The board disagrees with the game for longer than the delay (Law 7.4/7.6).
    Misplaced,
    /// The initial position is set up wrongly (Law 7.2a).
    Setup,
    /// A touched piece that could move was put back and another moved (Law 4.3/4.4b).
    TouchMove,
    /// Threefold repetition: the game may be claimed drawn (Law 9.2).
    Threefold,
    /// Fifty moves without capture or pawn move: claimable (Law 9.3).
    FiftyMoves,
    /// Fivefold repetition: the game is drawn; the arbiter must step in (Law 9.6a).
    Fivefold,
    /// Seventy-five moves: the game is drawn; the arbiter must step in (Law 9.6b).
    SeventyFiveMoves,
    /// A flag fell (Law 6).
    Flag,
    /// A clock press with no move on the board.
    ClockPress,
    /// The board shows a position in play but no game is known on it (a
    /// game begun before boardcast started, with no capture to resume it
    /// from): its moves are not being published. The arbiter restores the
    /// game or has the start position set up.
    Unrecognised,
}

/// How much an alert asks of the arbiter (`severity` on MQTT and in the
/// events): errors and required actions are acted on; notices are kept
/// for claims (a player may claim under Law 4.3 or 9.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Something was done wrongly on the board (an illegal move, displaced
    /// pieces, an impossible position, a wrong set-up): the arbiter acts.
    Error,
    /// Nothing was done wrongly, but the Laws ask the arbiter to step in
    /// (a flag fell, a fivefold repetition or the 75-move rule ended the
    /// game).
    Action,
    /// For the record: touch-move, a claimable draw, a clock pressed with
    /// no move. Kept so a player's claim can be checked, never sounded.
    Notice,
}

impl AlertKind {
    /// How much this kind asks of the arbiter.
    pub fn severity(self) -> Severity {
        match self {
            k if k.is_error() => Severity::Error,
            AlertKind::Flag
            | AlertKind::Fivefold
            | AlertKind::SeventyFiveMoves
            | AlertKind::Unrecognised => Severity::Action,
            _ => Severity::Notice,
        }
    }

    /// Whether this kind is an error: a correctly played game never raises it.
    pub fn is_error(self) -> bool {
        matches!(
            self,
            AlertKind::IllegalMove
                | AlertKind::IllegalPosition
                | AlertKind::Misplaced
                | AlertKind::Setup
        )
    }
}

/// Something an arbiter must know. Serialised with its kind's
/// [`Severity`] as `severity`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Alert {
    /// What happened.
    pub kind: AlertKind,
    /// Who is concerned, when known.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub side: Option<Side>,
    /// The Laws article (see `rules::laws`), when one applies.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub law: Option<String>,
    /// One human sentence naming squares and pieces.
    pub message: String,
    /// True when this alert withdraws an earlier one of the same kind (the
    /// board was corrected).
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub cleared: bool,
}

/// The payload of an event, tagged by `type`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventKind {
    /// A game begins: the start position is on the board.
    GameStart {
        /// FEN of the start position.
        fen: String,
        /// Whether it is a Chess960 start.
        chess960: bool,
        /// Whether the board stands turned round (Black on ranks 1-2).
        #[serde(default)]
        rotated: bool,
    },
    /// A move is recognised and published.
    Move {
        /// 1 = White's first move.
        ply: u32,
        /// The mover.
        side: Side,
        /// SAN.
        san: String,
        /// UCI.
        uci: String,
        /// FEN after the move.
        fen: String,
        /// True for an illegal move that stood: play went on from the
        /// position it made (Law 7.5a was not applied). `san` then holds
        /// the move in long algebraic notation (`Bc1-h6`).
        #[serde(skip_serializing_if = "std::ops::Not::not", default)]
        irregular: bool,
    },
    /// A published move turns out not to have been played.
    Retract {
        /// The ply withdrawn.
        ply: u32,
        /// Its UCI.
        uci: String,
    },
    /// The players restored an earlier position.
    Takeback {
        /// The ply count after the takeback.
        to_ply: u32,
        /// FEN of the restored position.
        fen: String,
    },
    /// Something an arbiter must know.
    Alert(Alert),
    /// The clock: both players' times, which side runs, presses.
    Clock {
        /// White's seconds, once the clock's faces are matched to colours.
        #[serde(skip_serializing_if = "Option::is_none", default)]
        white: Option<u32>,
        /// Black's seconds, likewise.
        #[serde(skip_serializing_if = "Option::is_none", default)]
        black: Option<u32>,
        /// The left face's seconds (a physical side, not a colour).
        #[serde(skip_serializing_if = "Option::is_none", default)]
        left: Option<u32>,
        /// The right face's seconds.
        #[serde(skip_serializing_if = "Option::is_none", default)]
        right: Option<u32>,
        /// The side whose clock runs, when known.
        #[serde(skip_serializing_if = "Option::is_none", default)]
        running: Option<Side>,
        /// The side that just pressed (completed its move, Law 6.2a).
        #[serde(skip_serializing_if = "Option::is_none", default)]
        pressed: Option<Side>,
        /// Whether a clock is connected to the board.
        connected: bool,
        /// The clock shows a low battery.
        #[serde(skip_serializing_if = "std::ops::Not::not", default)]
        battery_low: bool,
        /// The times are estimated from move times (no clock reports).
        #[serde(skip_serializing_if = "std::ops::Not::not", default)]
        estimated: bool,
    },
    /// An operator's correction (set result, restart, players).
    Correction {
        /// The command (`set_result`, `restart`, `set_players`).
        command: String,
        /// What it did, in words.
        message: String,
    },
    /// The game is over on the board.
    GameEnd {
        /// `1-0`, `0-1` or `1/2-1/2`.
        result: String,
        /// Why, in words (e.g. `checkmate`).
        reason: String,
    },
}

/// An event with its board and time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    /// The board's id.
    pub board: String,
    /// Time of the sensor reading that caused it.
    pub t_ms: Millis,
    /// What happened.
    #[serde(flatten)]
    pub kind: EventKind,
}

impl Event {
    /// The event as one line of JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("events always serialise")
    }
}

impl Serialize for Alert {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Alert", 6)?;
        st.serialize_field("kind", &self.kind)?;
        if let Some(side) = &self.side {
            st.serialize_field("side", side)?;
        }
        if let Some(law) = &self.law {
            st.serialize_field("law", law)?;
        }
        st.serialize_field("message", &self.message)?;
        if self.cleared {
            st.serialize_field("cleared", &true)?;
        }
        st.serialize_field("severity", &self.kind.severity())?;
        st.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_event_serialises_flat_with_type_tag() {
        let e = Event {
            board: "1".into(),
            t_ms: 5684,
            kind: EventKind::Move {
                ply: 1,
                side: Side::White,
                san: "e4".into(),
                uci: "e2e4".into(),
                fen: "x".into(),
                irregular: false,
            },
        };
        let v: serde_json::Value = serde_json::from_str(&e.to_json()).unwrap();
        assert_eq!(v["type"], "move");
        assert_eq!(v["board"], "1");
        assert_eq!(v["t_ms"], 5684);
        assert_eq!(v["side"], "white");
        assert!(v.get("irregular").is_none());
        let back: Event = serde_json::from_value(v).unwrap();
        assert_eq!(back, e);
    }

    #[test]
    fn alert_serialises_kind_law_and_message() {
        let e = Event {
            board: "7".into(),
            t_ms: 1,
            kind: EventKind::Alert(Alert {
                kind: AlertKind::IllegalMove,
                side: Some(Side::Black),
                law: Some("7.5a".into()),
                message: "m".into(),
                cleared: false,
            }),
        };
        let v: serde_json::Value = serde_json::from_str(&e.to_json()).unwrap();
        assert_eq!(v["type"], "alert");
        assert_eq!(v["kind"], "illegal_move");
        assert_eq!(v["law"], "7.5a");
        assert!(v.get("cleared").is_none());
    }
}
