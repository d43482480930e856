//! The arbiter's vocabulary shared by every game: what completes an
//! illegal move and the alert builders. The reconstructor
//! ([`crate::track`]) decides when an alert is raised; each game words
//! its own.

use crate::event::{Alert, AlertKind, Side};

/// What showed that an illegal move was completed (FIDE Law 6.2a): time
/// alone never does, as a knocked piece stands as long as it stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Completed {
    /// Its player pressed the clock.
    Press,
    /// The opponent began to reply (lifted one of their own pieces).
    Reply,
}

/// Builds an alert.
pub fn alert(kind: AlertKind, side: Option<Side>, law: Option<&str>, message: String) -> Alert {
    Alert {
        kind,
        side,
        law: law.map(str::to_string),
        message,
        cleared: false,
        evidence: None,
    }
}

/// The same alert, marked cleared, with a message saying so.
pub fn cleared(kind: AlertKind, law: Option<&str>, message: String) -> Alert {
    Alert {
        kind,
        side: None,
        law: law.map(str::to_string),
        message,
        cleared: true,
        evidence: None,
    }
}

// The sentences every game's alerts share. `cite` is the rule book's
// article as the game cites it ("Law 4.3a", "art. 1.22"), empty for a book
// without one; it is set in parentheses before the full stop.

/// ` (cite)`, or nothing for an empty citation.
fn cited(cite: &str) -> String {
    if cite.is_empty() {
        String::new()
    } else {
        format!(" ({cite})")
    }
}

/// The side whose pieces were displaced, when only one side's differ
/// (`None` otherwise): `squares` gives, for each square that differs, the
/// colour of the piece the game has there and of the one the board shows.
/// A square counts for the piece standing on it now, else for the one
/// that left it: a piece set down on another's square took it, and the
/// hand that did so is its side's (an illegal capture left standing is
/// the mover's displacement, not both sides').
pub fn displaced_side<C: PartialEq + Copy>(
    squares: impl IntoIterator<Item = (Option<C>, Option<C>)>,
) -> Option<C> {
    let mut colors = squares
        .into_iter()
        .filter_map(|(game, board)| board.or(game));
    let first = colors.next();
    first.filter(|&c| colors.all(|x| x == c))
}

/// The `misplaced` message: the squares that differ (`differences`), the
/// side whose pieces they are when only one side's (`side`, its name),
/// and the last correct position (`fen`).
pub fn displaced_message(
    side: Option<&str>,
    differences: &[String],
    fen: &str,
    cite: &str,
) -> String {
    let whose = match side {
        Some(name) => format!(" ({name}'s pieces)"),
        None => String::new(),
    };
    format!(
        "The board differs from the game{whose}: {}. Last correct position: {fen}{}.",
        differences.join("; "),
        cited(cite)
    )
}

/// The `setup` message: the squares that differ from the start position.
pub fn setup_message(differences: &[String], cite: &str) -> String {
    format!(
        "The initial position is set up wrongly: {}{}.",
        differences.join("; "),
        cited(cite)
    )
}

/// The `touch_move` message: `who` touched `piece` ("the knight") on
/// `sq`, which could move, put it back and played `moved`.
pub fn touch_message(
    who: &str,
    piece: &str,
    sq: impl std::fmt::Display,
    moved: &str,
    cite: &str,
) -> String {
    format!(
        "{who} touched {piece} on {sq}, which could move, put it back and played {moved}{}.",
        cited(cite)
    )
}

/// The start of the `illegal_move` message: `who` played the move
/// numbered `number` (`dots`: "." or "...") written `notation`, an
/// illegal move.
pub fn illegal_move_opening(who: &str, number: usize, dots: &str, notation: &str) -> String {
    format!("{who} played {number}{dots} {notation}, an illegal move")
}

/// What showed the illegal move was made, as the games without a law on
/// it word it: `mover` pressed the clock, or `opponent` began to reply.
pub fn made_evidence(completed: Completed, mover: &str, opponent: &str) -> String {
    match completed {
        Completed::Press => format!("{mover} pressed the clock after it, which completed the move"),
        Completed::Reply => format!("{opponent} began to reply to it, so it was made"),
    }
}
