//! Events of games other than chess (interface §7).
//!
//! Design: a parallel event type rather than new variants of
//! [`crate::event::EventKind`]: chess events keep their exact fields and
//! serialisation (`san`, `uci`, `fen` appear only there), and these carry
//! `game`, `notation`, `id` and `position` instead. Serialised as one flat
//! JSON object like chess events: `{"board": "1", "t_ms": 5684, "game":
//! "draughts", "type": "move", "ply": 1, ...}`.

use serde::Serialize;

use crate::event::{Millis, Severity};

/// What an alert of a non-chess game reports. The kinds of interface §4
/// are shared by all games; the draw and repetition kinds are §7's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GameAlertKind {
    /// A move that is not legal was completed on the board (in draughts
    /// also a capture not taken or a multi-jump left unfinished).
    IllegalMove,
    /// The board shows a position no legal play reaches.
    IllegalPosition,
    /// The board disagrees with the game for longer than the delay.
    Misplaced,
    /// The start position is set up wrongly.
    Setup,
    /// A touched piece that could move was put back and another moved.
    TouchMove,
    /// A player may claim a draw (draughts: repetition, 40 moves; xiangqi:
    /// the event's move limit).
    DrawClaimable,
    /// Xiangqi: a side checks perpetually (the arbiter rules).
    PerpetualCheck,
    /// Xiangqi: a side chases perpetually (the arbiter rules).
    PerpetualChase,
    /// Xiangqi: another repetition ruling (mutual, idle).
    Repetition,
}

impl GameAlertKind {
    /// How much this kind asks of the arbiter.
    pub fn severity(self) -> Severity {
        match self {
            GameAlertKind::IllegalMove
            | GameAlertKind::IllegalPosition
            | GameAlertKind::Misplaced
            | GameAlertKind::Setup => Severity::Error,
            GameAlertKind::PerpetualCheck | GameAlertKind::PerpetualChase => Severity::Action,
            _ => Severity::Notice,
        }
    }

    /// Whether this kind is an error: a correctly played game never raises it.
    pub fn is_error(self) -> bool {
        self.severity() == Severity::Error
    }
}

/// An alert of a non-chess game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GameAlert {
    /// What happened.
    pub kind: GameAlertKind,
    /// Who is concerned (the game's colour name), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub side: Option<String>,
    /// The article of the game's own rule book; `null` where it has none.
    pub law: Option<String>,
    /// One human sentence.
    pub message: String,
    /// True when this alert withdraws an earlier one of the same kind.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cleared: bool,
    /// The kind's severity.
    pub severity: Severity,
}

impl GameAlert {
    /// An alert of `kind` with its severity.
    pub fn new(
        kind: GameAlertKind,
        side: Option<&str>,
        law: Option<&str>,
        message: impl Into<String>,
    ) -> GameAlert {
        GameAlert {
            kind,
            side: side.map(str::to_owned),
            law: law.map(str::to_owned),
            message: message.into(),
            cleared: false,
            severity: kind.severity(),
        }
    }
}

/// The payload of a non-chess event, tagged by `type`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum GameEventKind {
    /// A game begins.
    GameStart {
        /// The game's FEN of the start position (draughts PDN FEN, xiangqi
        /// FEN with `w` for Red).
        position: String,
        /// Whether the board stands turned round, once known.
        #[serde(skip_serializing_if = "Option::is_none")]
        rotated: Option<bool>,
    },
    /// A move is recognised and published.
    Move {
        /// 1 = the first player's first move.
        ply: u32,
        /// The mover: `black`/`white` (draughts), `red`/`black` (xiangqi).
        side: String,
        /// The game's standard notation (PDN short form, WXF).
        notation: String,
        /// The move's id (draughts: the full path; xiangqi: ICCS).
        id: String,
        /// The game's FEN after the move.
        position: String,
    },
    /// A published move turns out not to have been played.
    Retract {
        /// The ply withdrawn (and every later one).
        ply: u32,
        /// Its id.
        id: String,
    },
    /// Something an arbiter must know.
    Alert(GameAlert),
    /// The game is over on the board.
    GameEnd {
        /// The winner's colour name, `null` for a draw.
        winner: Option<String>,
        /// As the game's record format writes it.
        result: String,
        /// Why, in words.
        reason: String,
    },
}

/// A non-chess event with its board, time and game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GameEvent {
    /// The board's id.
    pub board: String,
    /// Time of the sensor reading that caused it.
    pub t_ms: Millis,
    /// `draughts` or `xiangqi`.
    pub game: &'static str,
    /// What happened.
    #[serde(flatten)]
    pub kind: GameEventKind,
}

impl GameEvent {
    /// The event as one line of JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("events always serialise")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_event_is_flat_with_game_and_no_chess_fields() {
        let e = GameEvent {
            board: "3".into(),
            t_ms: 10,
            game: "draughts",
            kind: GameEventKind::Move {
                ply: 1,
                side: "black".into(),
                notation: "11-15".into(),
                id: "11-15".into(),
                position: "W:W21,22:B15".into(),
            },
        };
        let v: serde_json::Value = serde_json::from_str(&e.to_json()).unwrap();
        assert_eq!(v["type"], "move");
        assert_eq!(v["game"], "draughts");
        assert_eq!(v["id"], "11-15");
        assert!(v.get("san").is_none() && v.get("uci").is_none() && v.get("fen").is_none());
        let end = GameEvent {
            kind: GameEventKind::GameEnd {
                winner: None,
                result: "1-1".into(),
                reason: "r".into(),
            },
            ..e
        };
        let v: serde_json::Value = serde_json::from_str(&end.to_json()).unwrap();
        assert!(v["winner"].is_null());
    }
}
