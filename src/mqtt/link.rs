//! What every broker connection of boardcast shares (the bridge's, the
//! hub's, the LiveChess follower's): a client id nobody else has, and the
//! link's history, which decides when the reconnection backoff may start
//! again from the bottom and which failures are worth a warning.
//!
//! Pure: time is passed in; the connection loops own the clocks.

use std::time::Duration;

use tokio::time::Instant;
use tracing::{debug, warn};

/// A connection must stay up this long before the reconnection backoff
/// starts again from its shortest delay.
pub const STABLE: Duration = Duration::from_secs(10);
/// While the broker stays away, or keeps closing the session, one warning
/// line per this period.
pub const OUTAGE_LOG_EVERY: Duration = Duration::from_secs(30);
/// Connections in a row that end before [`STABLE`] after which the broker
/// is said to keep closing the session.
pub const FLAP_AFTER: u32 = 3;

/// `base` followed by `-` and a random part: a client id that no other
/// process has, so two copies of one configuration (a standby hub, a
/// bridge started twice) never knock each other off the broker, and nobody
/// can do it by guessing the id. Every boardcast connection uses a clean
/// session, so none needs its id to stay the same across restarts.
pub fn unique_client_id(base: &str) -> String {
    format!("{base}-{}", &crate::control::new_nonce()[..12])
}

/// The link's history: when the current connection came up, the failed
/// attempts since, and when each kind of trouble was last logged.
#[derive(Debug, Default)]
pub struct Health {
    /// When the current connection came up (`None` while away).
    connected_at: Option<Instant>,
    /// Failed attempts since the last connection.
    failures: u64,
    /// When an outage was last logged at warn level.
    last_log: Option<Instant>,
    /// Connections in a row that ended before [`STABLE`].
    short_lived: u32,
    /// When the broker closing the session was last logged at warn level.
    last_flap_log: Option<Instant>,
}

/// How to log a connection failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Report {
    /// A working connection was lost.
    Lost,
    /// The broker keeps closing the session soon after accepting it (this
    /// many times in a row): another client with the same id, an ACL, a
    /// message too large to read. Rate limited.
    Flapping(u32),
    /// The broker refused us (credentials): every time.
    Refused,
    /// Still away: one line per [`OUTAGE_LOG_EVERY`], with the count.
    Unreachable,
    /// Nothing new, logged recently: debug only.
    Quiet,
}

impl Report {
    /// Logs a failure `e` of the connection `client_id` of `who` (`bridge`,
    /// `hub`, `livechess`) after `failures` failed attempts.
    pub fn log(self, who: &str, client_id: &str, e: &dyn std::fmt::Display, failures: u64) {
        match self {
            Report::Lost => warn!(who, error = %e, "lost the broker"),
            Report::Flapping(times) => warn!(
                who,
                client_id,
                times,
                error = %e,
                "the broker keeps closing the session soon after accepting it (another client with this client id? an ACL? a message too large to read?); retrying with backoff"
            ),
            Report::Refused => {
                warn!(who, error = %e, failed_attempts = failures, "the broker refused the connection")
            }
            Report::Unreachable => {
                warn!(who, error = %e, failed_attempts = failures, "cannot reach the broker; retrying")
            }
            Report::Quiet => {
                debug!(who, error = %e, failed_attempts = failures, "broker connection failed again")
            }
        }
    }
}

impl Health {
    /// A connection came up at `now`; returns the failed attempts before.
    pub fn connected(&mut self, now: Instant) -> u64 {
        self.connected_at = Some(now);
        self.last_log = None;
        std::mem::take(&mut self.failures)
    }

    /// Whether a connection is up.
    pub fn is_connected(&self) -> bool {
        self.connected_at.is_some()
    }

    /// Failed attempts since the last connection.
    pub fn failures(&self) -> u64 {
        self.failures
    }

    /// The connection (or an attempt) failed at `now`: whether to reset
    /// the backoff (only after a connection that stayed up [`STABLE`], so
    /// a broker that accepts and drops at once is not hammered), and how
    /// to log it (an outage and a session the broker keeps closing stay
    /// visible at warn level, rate limited).
    pub fn failed(&mut self, now: Instant, refused: bool) -> (bool, Report) {
        let uptime = self
            .connected_at
            .take()
            .map(|at| now.saturating_duration_since(at));
        self.failures += 1;
        if let Some(up) = uptime {
            // The loss was logged: the outage's first line is due later.
            self.last_log = Some(now);
            if up >= STABLE {
                self.short_lived = 0;
                return (true, Report::Lost);
            }
            self.short_lived += 1;
            if self.short_lived < FLAP_AFTER {
                return (false, Report::Lost);
            }
            if Self::due(&mut self.last_flap_log, now) {
                return (false, Report::Flapping(self.short_lived));
            }
            return (false, Report::Quiet);
        }
        if refused {
            return (false, Report::Refused);
        }
        if Self::due(&mut self.last_log, now) {
            (false, Report::Unreachable)
        } else {
            (false, Report::Quiet)
        }
    }

    /// Whether a warning last given at `last` may be given again at `now`
    /// (and notes it).
    fn due(last: &mut Option<Instant>, now: Instant) -> bool {
        if last.is_none_or(|at| now.saturating_duration_since(at) >= OUTAGE_LOG_EVERY) {
            *last = Some(now);
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_ids_get_a_random_part_each() {
        let (a, b) = (
            unique_client_id("boardcast-hub-x"),
            unique_client_id("boardcast-hub-x"),
        );
        assert!(a.starts_with("boardcast-hub-x-") && a.len() == "boardcast-hub-x-".len() + 12);
        assert_ne!(a, b);
    }

    #[test]
    fn a_broker_that_keeps_closing_the_session_is_warned_about_rate_limited() {
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        let mut h = Health::default();
        let mut reports = Vec::new();
        // Knocked off 100 ms after every connection, 5 times a second, for
        // a minute.
        for i in 0..300u64 {
            h.connected(t0 + ms(200 * i));
            let (reset, r) = h.failed(t0 + ms(200 * i + 100), false);
            assert!(!reset, "a session that never lasts resets no backoff");
            reports.push(r);
        }
        let flaps = reports
            .iter()
            .filter(|r| matches!(r, Report::Flapping(_)))
            .count();
        assert_eq!(flaps, 2, "one warning per 30 s: {:?}", &reports[..6]);
        assert_eq!(reports[2], Report::Flapping(3));
        assert!(reports[3..].iter().all(|r| *r != Report::Lost));
        // A connection that lasts resets both the backoff and the count.
        h.connected(t0 + ms(70_000));
        assert_eq!(h.failed(t0 + ms(81_000), false), (true, Report::Lost));
        h.connected(t0 + ms(82_000));
        assert_eq!(h.failed(t0 + ms(82_100), false), (false, Report::Lost));
    }
}
