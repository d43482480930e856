//! Text and numbers that enter from outside (the config, pairing files,
//! operator commands): the limits every entry point applies, and the check
//! of a name, event or site. A leaf: it imports nothing of the crate, so
//! every module that validates input can use it.

/// The highest round number accepted (config and pairings).
pub const MAX_ROUND: u32 = 999;
/// The highest board number accepted.
pub const MAX_BOARD_NUMBER: u32 = 9_999;
/// The longest name, event or site accepted, in characters.
pub const MAX_TEXT: usize = 200;

/// Checks a name, event or site where it enters: at most [`MAX_TEXT`]
/// characters and no control characters (a newline in a player's name
/// would otherwise reach PGN tags and capture headers). The error names
/// the key.
pub fn check_text(key: &str, value: Option<&str>) -> Result<(), String> {
    let Some(value) = value else {
        return Ok(());
    };
    if let Some(c) = value.chars().find(|c| c.is_control()) {
        return Err(format!("{key}: control character {:?} is not allowed", c));
    }
    let n = value.chars().count();
    if n > MAX_TEXT {
        return Err(format!("{key}: {n} characters, at most {MAX_TEXT} allowed"));
    }
    Ok(())
}
