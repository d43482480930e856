//! Who the page serves: the public (maybe delayed, with or without the
//! alerts) and, with a password, the arbiters.

/// Who the page serves, beside the public.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Audience {
    /// The public broadcast delay (shown on the public page).
    pub delay_ms: u64,
    /// The password that opens the arbiters' live view (`/arbiter`) to
    /// those who know it; without one, there is no arbiter view.
    pub arbiter_secret: Option<String>,
    /// How long a login lasts.
    pub session: std::time::Duration,
    /// Whether the public page shows the alerts (`[broadcast]
    /// public_alerts`); by default only the arbiters' view does.
    pub public_alerts: bool,
}

impl Default for Audience {
    fn default() -> Audience {
        Audience {
            delay_ms: 0,
            arbiter_secret: None,
            session: std::time::Duration::from_secs(12 * 3600),
            public_alerts: false,
        }
    }
}

impl Audience {
    /// The audience of a page `delay_ms` behind, whose arbiter view opens
    /// with `view_password` (`[web] arbiter_password`) and with nothing
    /// else (the operator secret never opens it: a warning says so when
    /// only a secret is set); logins last `session`.
    pub fn new(
        delay_ms: u64,
        view_password: Option<&str>,
        operator_secret: Option<&str>,
        session: std::time::Duration,
    ) -> Audience {
        if view_password.is_none() && operator_secret.is_some() {
            tracing::warn!(
                "no arbiter view: the operator secret does not open it; set [web] arbiter_password"
            );
        }
        Audience {
            delay_ms,
            arbiter_secret: view_password.map(str::to_string),
            session,
            public_alerts: false,
        }
    }

    /// The same audience, the public page showing alerts (`on`) or not.
    pub fn with_public_alerts(mut self, on: bool) -> Audience {
        self.public_alerts = on;
        self
    }
}
