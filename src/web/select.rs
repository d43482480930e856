//! What one browser's stream takes (issue 61, item 5): the boards it shows
//! and whether alerts, from the address (`/events?boards=1,2,3&alerts=off`).
//!
//! Every board's messages still pass through the one broadcast channel
//! (a board never waits for a browser); each stream drops, before anything
//! is written to its socket, what its page does not show. A stream without
//! a `boards` parameter takes every board, as before.

use std::collections::HashSet;
use std::sync::Arc;

/// The most board ids one stream may name (more than any page shows).
pub const MAX_BOARDS: usize = 1_000;

/// Why a stream's parameters were refused (answered 400).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SelectError {
    /// More ids than [`MAX_BOARDS`].
    #[error("boards: at most {MAX_BOARDS} board ids")]
    TooMany,
    /// An `alerts` value other than `off`, `boards` or `all`.
    #[error("alerts: `off`, `boards` or `all`, not `{0}`")]
    Alerts(String),
}

/// Which alerts (and the arbiters' decisions) a stream takes, of those its
/// fan-out passes at all (the public's none, unless `[broadcast]
/// public_alerts`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AlertsTaken {
    /// None (`alerts=off`): the hall screens and stream overlays.
    Off,
    /// Those of the boards taken (`alerts=boards`, the default).
    Boards,
    /// Every board's, whichever boards are taken (`alerts=all`): a paged
    /// live page whose alerts panel lists the whole round.
    All,
}

/// What one stream (or snapshot) takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection {
    /// The board ids taken; `None`: every board.
    pub boards: Option<HashSet<Arc<str>>>,
    /// Which alerts.
    pub alerts: AlertsTaken,
}

impl Default for Selection {
    fn default() -> Selection {
        Selection {
            boards: None,
            alerts: AlertsTaken::Boards,
        }
    }
}

impl Selection {
    /// The selection a request's query string (`boards=1,2,3` with the ids
    /// percent-encoded, `alerts=off|boards|all`) asks for; unknown
    /// parameters are ignored (the pages' own, such as `per_page`).
    pub fn from_query(query: Option<&str>) -> Result<Selection, SelectError> {
        let mut s = Selection::default();
        let Some(q) = query else {
            return Ok(s);
        };
        if let Some(list) = super::form_field(q, "boards") {
            let ids: HashSet<Arc<str>> = list
                .split(',')
                .map(str::trim)
                .filter(|id| !id.is_empty())
                .map(Arc::from)
                .collect();
            if ids.len() > MAX_BOARDS {
                return Err(SelectError::TooMany);
            }
            s.boards = Some(ids);
        }
        if let Some(a) = super::form_field(q, "alerts") {
            s.alerts = match a.as_str() {
                "off" | "0" => AlertsTaken::Off,
                "boards" | "" => AlertsTaken::Boards,
                "all" | "1" => AlertsTaken::All,
                _ => return Err(SelectError::Alerts(a)),
            };
        }
        Ok(s)
    }

    /// Whether board `id` is taken.
    pub fn board(&self, id: &str) -> bool {
        self.boards.as_ref().is_none_or(|b| b.contains(id))
    }

    /// Whether a message about board `board` (`None`: about no board, a
    /// bridge's status) passes; `alert`: it is an alert or a decision.
    pub fn passes(&self, board: Option<&str>, alert: bool) -> bool {
        match (alert, self.alerts) {
            (true, AlertsTaken::Off) => false,
            (true, AlertsTaken::All) => true,
            _ => board.is_none_or(|b| self.board(b)),
        }
    }

    /// Whether an alert of board `board` passes into a snapshot.
    pub fn alert(&self, board: Option<&str>) -> bool {
        self.passes(board, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_names_the_boards_and_the_alerts() {
        let s = Selection::from_query(Some("per_page=12&boards=1,x%2Dy%20,7&alerts=off")).unwrap();
        assert!(s.board("1") && s.board("7") && s.board("x-y") && !s.board("2"));
        assert!(!s.passes(Some("1"), true), "alerts off");
        assert!(s.passes(Some("1"), false) && !s.passes(Some("2"), false));
        assert!(s.passes(None, false), "a bridge's status passes");
        let all = Selection::from_query(Some("boards=3&alerts=all")).unwrap();
        assert!(all.passes(Some("9"), true) && !all.passes(Some("9"), false));
        let every = Selection::from_query(None).unwrap();
        assert!(every.passes(Some("x"), true) && every.passes(Some("x"), false));
        assert_eq!(
            Selection::from_query(Some("alerts=loud")),
            Err(SelectError::Alerts("loud".into()))
        );
        let many: Vec<String> = (0..=MAX_BOARDS).map(|i| i.to_string()).collect();
        assert_eq!(
            Selection::from_query(Some(&format!("boards={}", many.join(",")))),
            Err(SelectError::TooMany)
        );
    }
}
