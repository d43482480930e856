//! Position text from the network, checked where it enters: every
//! position a hub or a LiveChess follower takes from a broker (a board
//! state's start and current position, an event's `position`) is read by
//! its own game's parser before anything keeps or shows it. A forged
//! position is refused with the reason, so that no page is handed text
//! its drawing code was never meant to see (a draughts range such as
//! `W1-Infinity`, say).
//!
//! Pure: no I/O, no logging; callers log the refusal.

use serde_json::Value;

use crate::event::{Event, EventKind, GameId};

/// The longest position text accepted (a full draughts PDN FEN is about
/// 80 characters, a xiangqi FEN about 90, a chess FEN at most about 90).
pub const MAX_POSITION: usize = 256;
/// The longest sensed placement accepted (a board part of a FEN; the
/// largest board, xiangqi's 9 x 10, written without digits is 99).
pub const MAX_PLACEMENT: usize = 128;

/// Why a position from the network was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// Longer than [`MAX_POSITION`] (or [`MAX_PLACEMENT`]).
    #[error("{field}: {len} characters, at most {max}")]
    TooLong {
        /// The field.
        field: String,
        /// Its length.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// The game's parser refused it.
    #[error("{field}: not a {game} position ({reason}): {text:?}")]
    Invalid {
        /// The field.
        field: String,
        /// The game.
        game: &'static str,
        /// The parser's reason.
        reason: String,
        /// The text (at most [`MAX_POSITION`] characters).
        text: String,
    },
    /// A field that must be text is not.
    #[error("{field}: not text")]
    NotText {
        /// The field.
        field: String,
    },
}

/// Checks that `text` is a position of `game` as its own parser reads it:
/// chess FEN by shakmaty, draughts PDN FEN by the draughts parser (squares
/// 1-32, ranges within them), xiangqi FEN by the xiangqi parser. `field`
/// names the text in the error.
pub fn check_position(game: GameId, field: &str, text: &str) -> Result<(), PositionError> {
    if text.len() > MAX_POSITION {
        return Err(PositionError::TooLong {
            field: field.to_string(),
            len: text.len(),
            max: MAX_POSITION,
        });
    }
    let reason = match game {
        GameId::Chess => {
            (!crate::games::chess::notation::is_fen(text)).then(|| "FEN syntax".to_string())
        }
        GameId::Draughts => boardcast_rules::draughts::Position::from_fen(text)
            .err()
            .map(|e| e.to_string()),
        GameId::Xiangqi => boardcast_rules::xiangqi::Position::from_fen(text)
            .err()
            .map(|e| e.to_string()),
    };
    match reason {
        None => Ok(()),
        Some(reason) => Err(PositionError::Invalid {
            field: field.to_string(),
            game: game.name(),
            reason,
            text: text.to_string(),
        }),
    }
}

/// Checks the positions of a board's state (JSON, as bridges publish it):
/// `start_fen` and `fen` (chess) or `start_position` and `position` (the
/// game named by `game_type`), each absent, `null`, empty or a position
/// of that game; and `placement`, short and made of FEN board letters.
pub fn check_state(state: &Value) -> Result<(), PositionError> {
    let game = state["game_type"]
        .as_str()
        .and_then(GameId::from_name)
        .unwrap_or_default();
    for key in ["start_fen", "fen", "start_position", "position"] {
        match &state[key] {
            Value::Null => {}
            Value::String(s) if s.is_empty() => {}
            Value::String(s) => check_position(game, key, s)?,
            _ => {
                return Err(PositionError::NotText {
                    field: key.to_string(),
                });
            }
        }
    }
    match &state["placement"] {
        Value::Null => Ok(()),
        Value::String(s) => check_placement(s),
        _ => Err(PositionError::NotText {
            field: "placement".to_string(),
        }),
    }
}

/// Why a state or event from the network was refused: its text, or a
/// position its game does not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IncomingError {
    /// A text, number or id of the message ([`crate::text`]).
    #[error(transparent)]
    Text(#[from] crate::text::TextError),
    /// A position the message's game does not read.
    #[error(transparent)]
    Position(#[from] PositionError),
}

/// For the callers that still report a plain line: the same text.
impl From<IncomingError> for String {
    fn from(e: IncomingError) -> String {
        e.to_string()
    }
}

/// A board's state from the network as every reader takes it (the hub,
/// the LiveChess-compatible API): its free text checked
/// ([`crate::text::check_state`]), and its positions read by their game's
/// parser ([`check_state`]).
pub fn check_incoming_state(state: &Value) -> Result<(), IncomingError> {
    crate::text::check_state(state)?;
    Ok(check_state(state)?)
}

/// A board's event from the network as every reader takes it: its free
/// text checked ([`crate::text::check_event`]), then read as an
/// [`Event`] whose position is read by its game's parser
/// ([`check_event`]). `None`: an event this version does not read (a
/// newer kind), which readers skip.
pub fn check_incoming_event(event: &Value) -> Result<Option<Event>, IncomingError> {
    crate::text::check_event(event)?;
    let Ok(read) = serde_json::from_value::<Event>(event.clone()) else {
        return Ok(None);
    };
    check_event(&read)?;
    Ok(Some(read))
}

/// Checks a sensed placement: at most [`MAX_PLACEMENT`] characters, each
/// a letter, a digit, `/` or `.`.
fn check_placement(text: &str) -> Result<(), PositionError> {
    if text.len() > MAX_PLACEMENT {
        return Err(PositionError::TooLong {
            field: "placement".to_string(),
            len: text.len(),
            max: MAX_PLACEMENT,
        });
    }
    if let Some(c) = text
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '/' | '.')))
    {
        return Err(PositionError::Invalid {
            field: "placement".to_string(),
            game: "board",
            reason: format!("character {c:?}"),
            text: text.to_string(),
        });
    }
    Ok(())
}

/// Checks the position an event carries (a game start, a move, a
/// takeback), read as a position of the event's game; an empty one (an
/// event that has none) passes.
pub fn check_event(event: &Event) -> Result<(), PositionError> {
    let position = match &event.kind {
        EventKind::GameStart { position, .. }
        | EventKind::Move { position, .. }
        | EventKind::Takeback { position, .. } => position,
        _ => return Ok(()),
    };
    if position.is_empty() {
        return Ok(());
    }
    check_position(event.game, "position", position)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const DRAUGHTS_START: &str =
        "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12";
    const XIANGQI_START: &str =
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";
    const CHESS_START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    #[test]
    fn each_game_reads_its_own_positions() {
        assert_eq!(check_position(GameId::Chess, "fen", CHESS_START), Ok(()));
        assert_eq!(
            check_position(GameId::Draughts, "position", DRAUGHTS_START),
            Ok(())
        );
        assert_eq!(
            check_position(GameId::Draughts, "position", "W:W21-32:BK1-12"),
            Ok(())
        );
        assert_eq!(
            check_position(GameId::Xiangqi, "position", XIANGQI_START),
            Ok(())
        );
        assert!(check_position(GameId::Chess, "fen", DRAUGHTS_START).is_err());
        assert!(check_position(GameId::Xiangqi, "position", CHESS_START).is_err());
    }

    #[test]
    fn a_forged_draughts_range_is_refused() {
        for forged in [
            "W:W1-Infinity:B2",
            "W:W1-4294967296:B2",
            "W:W1-33:B2",
            "W:W0:B2",
            "W:W9-3:B2",
            "W:W1e9:B2",
        ] {
            let e = check_position(GameId::Draughts, "position", forged).unwrap_err();
            assert!(e.to_string().contains("draughts"), "{forged}: {e}");
        }
        let long = format!("W:W1:B{}", "2,".repeat(200));
        assert!(matches!(
            check_position(GameId::Draughts, "position", &long),
            Err(PositionError::TooLong { .. })
        ));
    }

    #[test]
    fn a_state_is_checked_by_its_game_type() {
        let ok = json!({"game_type": "draughts", "start_position": DRAUGHTS_START,
            "position": DRAUGHTS_START, "placement": "8/8/m1m1m1m1/8/8/8/8/8"});
        assert_eq!(check_state(&ok), Ok(()));
        let before_a_game = json!({"game_type": "chess", "start_fen": null, "fen": null});
        assert_eq!(check_state(&before_a_game), Ok(()));
        let forged = json!({"game_type": "draughts", "start_position": DRAUGHTS_START,
            "position": "W:W1-Infinity:B2"});
        assert!(check_state(&forged).is_err());
        let chess = json!({"start_fen": CHESS_START, "fen": "x"});
        assert!(check_state(&chess).is_err());
        let number = json!({"fen": 7});
        assert!(check_state(&number).is_err());
        let placement = json!({"fen": CHESS_START, "placement": "8/8<script>"});
        assert!(check_state(&placement).is_err());
    }

    #[test]
    fn an_event_is_checked_by_its_game() {
        let event = |game, position: &str| Event {
            board: "1".into(),
            t_ms: 0,
            game,
            kind: EventKind::GameStart {
                position: position.into(),
                chess960: None,
                rotated: false,
            },
        };
        assert_eq!(check_event(&event(GameId::Chess, CHESS_START)), Ok(()));
        assert_eq!(check_event(&event(GameId::Chess, "")), Ok(()));
        assert!(check_event(&event(GameId::Draughts, "W:W1-Infinity:B2")).is_err());
        assert!(check_event(&event(GameId::Xiangqi, CHESS_START)).is_err());
    }
}
