//! The arbiter's vocabulary shared by every game: what completes an
//! illegal move and the alert builders. The reconstructor
//! ([`crate::board`]) decides when an alert is raised; each game words
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
    }
}
