//! Text and numbers that enter from outside (the config, pairing files,
//! operator commands, and the MQTT messages the hub and the LiveChess
//! follower read): the limits every entry point applies, and the checks of
//! a name, a round, a board number, an id, a move, a result, and of a whole
//! state or event message. A leaf: it imports nothing of the crate, so
//! every module that validates input can use it.

/// The highest round number accepted (config and pairings).
pub const MAX_ROUND: u32 = 999;
/// The highest board number accepted.
pub const MAX_BOARD_NUMBER: u32 = 9_999;
/// The longest name, event or site accepted, in characters.
pub const MAX_TEXT: usize = 200;

/// Why a text, number or message from outside was refused: one line that
/// names the key and shows the text escaped ([`shown`]), never a control
/// character of its own.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TextError {
    /// A name, event or site holds a control character.
    #[error("{key}: control character {found:?} is not allowed (in \"{text}\")")]
    ControlInText {
        /// The key.
        key: String,
        /// The first control character.
        found: char,
        /// The text (its first [`MAX_TEXT`] characters), shown escaped.
        text: String,
    },
    /// Free text inside a network message holds a control character.
    #[error("{key}: control character {found:?} is not allowed")]
    ControlInField {
        /// The key.
        key: String,
        /// The first control character.
        found: char,
    },
    /// A text is longer than its limit.
    #[error("{key}: {count} characters, at most {max} allowed")]
    TooLong {
        /// The key.
        key: String,
        /// Its length, in characters.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// A round number is 0 or above [`MAX_ROUND`].
    #[error("{key}: round {round} is not between 1 and {MAX_ROUND}")]
    Round {
        /// The key.
        key: String,
        /// The number given.
        round: u64,
    },
    /// A board number is 0 or above [`MAX_BOARD_NUMBER`].
    #[error("{key}: board number {number} is not between 1 and {MAX_BOARD_NUMBER}")]
    BoardNumber {
        /// The key.
        key: String,
        /// The number given.
        number: u64,
    },
    /// Not an id (see [`check_id`]).
    #[error("{key}: {text:?} is not an id (1 to {MAX_ID} letters, digits, '-', '_', '.', ':')")]
    Id {
        /// The key.
        key: String,
        /// The text (its first [`MAX_ID`] characters).
        text: String,
    },
    /// Not a move's text (see [`check_move`]).
    #[error("{key}: {text:?} is not a move")]
    Move {
        /// The key.
        key: String,
        /// The text (its first [`MAX_MOVE`] characters).
        text: String,
    },
    /// Not a game result (see [`check_result`]).
    #[error("{key}: {text:?} is not a result")]
    Result {
        /// The key.
        key: String,
        /// The text (its first 16 characters).
        text: String,
    },
    /// A message that is not a JSON object.
    #[error("not a JSON object")]
    NotAnObject,
    /// A round or board number that is not a number.
    #[error("{key}: {value} is not a number")]
    NotANumber {
        /// The key.
        key: String,
        /// The value, as JSON.
        value: String,
    },
    /// A list longer than [`MAX_PLIES`].
    #[error("{key}: {count} items, at most {MAX_PLIES} allowed")]
    TooManyItems {
        /// The key.
        key: String,
        /// Its length.
        count: usize,
    },
    /// A ply above [`MAX_PLIES`].
    #[error("{key}: {ply}, at most {MAX_PLIES}")]
    Ply {
        /// The key.
        key: String,
        /// The ply given.
        ply: u64,
    },
}

/// For the callers that still report a plain line: the same text.
impl From<TextError> for String {
    fn from(e: TextError) -> String {
        e.to_string()
    }
}

/// Text read from outside as an error or a log line shows it: control
/// characters escaped (`\0`, `\n`, `\u{1b}`), everything else as it is
/// (names in any script stay readable). So no field of a file (an escape
/// sequence in a player's name, a NUL, a newline) can move the
/// terminal's cursor, change its colours or start a forged line.
pub fn shown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    out
}

/// Checks a name, event or site where it enters: at most [`MAX_TEXT`]
/// characters and no control characters (a newline in a player's name
/// would otherwise reach PGN tags and capture headers). The error names
/// the key and shows the text escaped ([`shown`]).
pub fn check_text(key: &str, value: Option<&str>) -> Result<(), TextError> {
    let Some(value) = value else {
        return Ok(());
    };
    if let Some(c) = value.chars().find(|c| c.is_control()) {
        let value: String = value.chars().take(MAX_TEXT).collect();
        return Err(TextError::ControlInText {
            key: key.to_string(),
            found: c,
            text: shown(&value),
        });
    }
    check_length(key, value, MAX_TEXT)
}

/// At most `max` characters.
fn check_length(key: &str, value: &str, max: usize) -> Result<(), TextError> {
    let count = value.chars().count();
    if count > max {
        return Err(TextError::TooLong {
            key: key.to_string(),
            count,
            max,
        });
    }
    Ok(())
}

/// The most plies a game from the network may hold (a state's move list,
/// a move's ply).
pub const MAX_PLIES: usize = 2_000;
/// The longest move text (SAN or UCI, any game's notation), in bytes.
pub const MAX_MOVE: usize = 64;
/// The longest id (a board id, a bridge name, an instance id), in bytes.
pub const MAX_ID: usize = 64;
/// The longest free text inside a network message (a position, an alert's
/// sentence), in characters.
pub const MAX_FIELD: usize = 512;

/// Checks a round number from the network: 1 to [`MAX_ROUND`].
pub fn check_round(key: &str, round: u64) -> Result<(), TextError> {
    if round == 0 || round > u64::from(MAX_ROUND) {
        return Err(TextError::Round {
            key: key.to_string(),
            round,
        });
    }
    Ok(())
}

/// Checks a board number from the network: 1 to [`MAX_BOARD_NUMBER`].
pub fn check_board_number(key: &str, number: u64) -> Result<(), TextError> {
    if number == 0 || number > u64::from(MAX_BOARD_NUMBER) {
        return Err(TextError::BoardNumber {
            key: key.to_string(),
            number,
        });
    }
    Ok(())
}

/// Checks an id (a board id, a bridge name, an instance id): 1 to
/// [`MAX_ID`] letters, digits, `-`, `_`, `.` or `:`. The error shows the id
/// escaped, so a forged one cannot forge a log line.
pub fn check_id(key: &str, id: &str) -> Result<(), TextError> {
    let ok = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':');
    if id.is_empty() || id.len() > MAX_ID || !id.chars().all(ok) {
        return Err(TextError::Id {
            key: key.to_string(),
            text: id.chars().take(MAX_ID).collect(),
        });
    }
    Ok(())
}

/// Text a board supplies about itself (a serial number, a version, a
/// name), made safe to log, record and publish: control characters
/// (a newline, an escape) become `?`, surrounding whitespace goes, and
/// it is cut to [`MAX_ID`] characters. A board is not trusted to name
/// itself sensibly (a firmware fault, a forged device).
pub fn board_text(text: &str) -> String {
    text.trim()
        .chars()
        .take(MAX_ID)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

/// Checks a move's text, SAN or UCI in any game's notation (`e4`,
/// `exd8=Q+`, `O-O-O`, `e2e4`, `32x23`, `C2.5`): 1 to [`MAX_MOVE`]
/// printable ASCII characters, none of the PGN's own (`[ ] { } ; " \ %`,
/// spaces), so a forged move cannot end a PGN token.
pub fn check_move(key: &str, text: &str) -> Result<(), TextError> {
    let ok = |c: char| c.is_ascii_graphic() && !"[]{}();\"\\%<>".contains(c);
    if text.is_empty() || text.len() > MAX_MOVE || !text.chars().all(ok) {
        return Err(TextError::Move {
            key: key.to_string(),
            text: text.chars().take(MAX_MOVE).collect(),
        });
    }
    Ok(())
}

/// Checks a game result: `*`, or a score such as `1-0`, `0-1`, `1/2-1/2`,
/// `2-0` (draughts).
pub fn check_result(key: &str, result: &str) -> Result<(), TextError> {
    let score = |s: &str| matches!(s, "0" | "1" | "2" | "1/2");
    let ok = result == "*"
        || result
            .split_once('-')
            .is_some_and(|(a, b)| score(a) && score(b));
    if !ok {
        return Err(TextError::Result {
            key: key.to_string(),
            text: result.chars().take(16).collect(),
        });
    }
    Ok(())
}

/// Checks free text inside a network message: at most [`MAX_FIELD`]
/// characters, no control characters.
pub fn check_field(key: &str, value: &str) -> Result<(), TextError> {
    if let Some(c) = value.chars().find(|c| c.is_control()) {
        return Err(TextError::ControlInField {
            key: key.to_string(),
            found: c,
        });
    }
    check_length(key, value, MAX_FIELD)
}

/// The largest state or event message read from the network, in bytes
/// (a state of a [`MAX_PLIES`]-ply game is far smaller).
pub const MAX_MESSAGE: usize = 256 * 1024;

/// Every string in `value` is a [`check_field`]; no array is longer than
/// [`MAX_PLIES`].
fn check_strings(key: &str, value: &serde_json::Value) -> Result<(), TextError> {
    use serde_json::Value;
    match value {
        Value::String(s) => check_field(key, s),
        Value::Array(a) if a.len() > MAX_PLIES => Err(TextError::TooManyItems {
            key: key.to_string(),
            count: a.len(),
        }),
        Value::Array(a) => a.iter().try_for_each(|v| check_strings(key, v)),
        Value::Object(o) => o.iter().try_for_each(|(k, v)| {
            check_field("key", k)?;
            check_strings(k, v)
        }),
        _ => Ok(()),
    }
}

/// The checks a state and an event share: sizes, text, round, board
/// number, ids, result.
fn check_common(v: &serde_json::Value) -> Result<(), TextError> {
    if !v.is_object() {
        return Err(TextError::NotAnObject);
    }
    check_strings("message", v)?;
    for (key, check) in [
        (
            "round",
            check_round as fn(&str, u64) -> Result<(), TextError>,
        ),
        ("number", check_board_number),
    ] {
        match &v[key] {
            serde_json::Value::Null => {}
            n => check(
                key,
                n.as_u64().ok_or_else(|| TextError::NotANumber {
                    key: key.to_string(),
                    value: n.to_string(),
                })?,
            )?,
        }
    }
    for key in ["board", "bridge"] {
        if let Some(id) = v[key].as_str() {
            check_id(key, id)?;
        }
    }
    if let Some(r) = v["result"].as_str() {
        check_result("result", r)?;
    }
    Ok(())
}

/// Checks a board's retained state (JSON) from the network: the checks
/// above, players' names ([`check_text`]), every move of `moves`, `uci`,
/// `notation` and `id` ([`check_move`]).
pub fn check_state(v: &serde_json::Value) -> Result<(), TextError> {
    check_common(v)?;
    for side in ["white", "black"] {
        check_text(side, v[side]["name"].as_str())?;
    }
    // Chess states name their lists `moves` and `uci`; draughts and
    // xiangqi states `notation` and `id`.
    for key in ["moves", "uci", "notation", "id"] {
        for m in v[key].as_array().into_iter().flatten() {
            check_move(key, m.as_str().unwrap_or("?"))?;
        }
    }
    Ok(())
}

/// Checks an event (JSON) from the network: the checks above, a move's
/// text and ply.
pub fn check_event(v: &serde_json::Value) -> Result<(), TextError> {
    check_common(v)?;
    // `san` and `uci`: the chess names an older event gives them by.
    for key in ["notation", "id", "san", "uci"] {
        match v[key].as_str() {
            Some(m) if !m.is_empty() => check_move(key, m)?,
            _ => {}
        }
    }
    for key in ["ply", "to_ply"] {
        if let Some(n) = v[key].as_u64()
            && n > MAX_PLIES as u64
        {
            return Err(TextError::Ply {
                key: key.to_string(),
                ply: n,
            });
        }
    }
    Ok(())
}

/// A log's rate limit for dropped network messages: at most
/// [`Drops::BURST`] lines per [`Drops::WINDOW_MS`], then one line saying how
/// many were not logged. Pure: the caller passes the time and logs.
#[derive(Clone, Debug, Default)]
pub struct Drops {
    window_start: u64,
    logged: u32,
    suppressed: u64,
}

impl Drops {
    /// Lines logged per window.
    pub const BURST: u32 = 5;
    /// The window, in milliseconds.
    pub const WINDOW_MS: u64 = 10_000;

    /// A message was dropped at `now_ms`: `Some(n)` when this one is to be
    /// logged (`n` earlier drops were not), `None` when it is not.
    pub fn note(&mut self, now_ms: u64) -> Option<u64> {
        if now_ms.saturating_sub(self.window_start) >= Self::WINDOW_MS {
            self.window_start = now_ms;
            self.logged = 0;
        }
        if self.logged < Self::BURST {
            self.logged += 1;
            return Some(std::mem::take(&mut self.suppressed));
        }
        self.suppressed += 1;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn board_supplied_text_cannot_break_a_line_or_grow_without_bound() {
        assert_eq!(board_text(" 04215\r\n"), "04215");
        assert_eq!(
            board_text("12\n[Event \"X\"]\u{1b}[2J"),
            "12?[Event \"X\"]?[2J"
        );
        assert_eq!(board_text(&"9".repeat(1000)).len(), MAX_ID);
    }

    #[test]
    fn text_from_outside_is_shown_with_its_control_characters_escaped() {
        assert_eq!(shown("Müller, Jörg"), "Müller, Jörg");
        assert_eq!(shown("Smith\u{1b}[2J, J\0x\n"), "Smith\\u{1b}[2J, J\\0x\\n");
        let e = check_text("name", Some("Ba\u{1b}[31mker"))
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "name: control character '\\u{1b}' is not allowed (in \"Ba\\u{1b}[31mker\")"
        );
        assert!(!e.contains('\u{1b}'), "{e}");
    }

    #[test]
    fn network_input_is_checked_with_one_line_errors() {
        assert!(check_round("round", 3).is_ok());
        assert!(check_round("round", 4_000_000_000).is_err());
        assert!(check_board_number("number", 0).is_err());
        for m in ["e4", "exd8=Q+", "O-O-O", "e2e4", "32x23", "Nbd7#"] {
            assert!(check_move("san", m).is_ok(), "{m}");
        }
        for m in [
            "",
            "e5\n\n[Event \"FAKE\"]",
            "e5 e6",
            "{x}",
            &"a".repeat(70),
        ] {
            let e = check_move("san", m).unwrap_err().to_string();
            assert!(!e.contains('\n'), "{e}");
        }
        for r in ["1-0", "0-1", "1/2-1/2", "*", "2-0", "1-1"] {
            assert!(check_result("result", r).is_ok(), "{r}");
        }
        assert!(check_result("result", "1-0\n[Event").is_err());
        assert!(check_id("board", "hall-a_1").is_ok());
        let e = check_id("board", "a\nERROR forged")
            .unwrap_err()
            .to_string();
        assert!(!e.contains('\n'), "{e}");
        assert!(check_field("message", "two\nlines").is_err());
        assert_eq!(
            check_field("message", &"x".repeat(MAX_FIELD + 1))
                .unwrap_err()
                .to_string(),
            "message: 513 characters, at most 512 allowed"
        );
        assert_eq!(
            check_round("round", 0).unwrap_err().to_string(),
            "round: round 0 is not between 1 and 999"
        );
        assert_eq!(
            check_id("board", "").unwrap_err().to_string(),
            "board: \"\" is not an id (1 to 64 letters, digits, '-', '_', '.', ':')"
        );
    }

    #[test]
    fn drops_are_logged_at_most_a_burst_per_window() {
        let mut d = Drops::default();
        let logged = (0..100).filter(|_| d.note(1).is_some()).count();
        assert_eq!(logged, Drops::BURST as usize);
        assert_eq!(d.note(1 + Drops::WINDOW_MS), Some(95));
    }
}
