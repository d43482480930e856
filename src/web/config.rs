//! The `[web]` section: where the live page listens, its limits, and
//! the arbiter's and the desk's logins.

use std::time::Duration;

use serde::Deserialize;
use toml::Spanned;

use crate::config_file::{ConfigError, Source, listen};

/// `[web]` as written.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawWeb {
    /// Address of the live page; empty means off.
    pub listen: Option<Spanned<String>>,
    /// Connections served at once.
    pub max_connections: Option<usize>,
    /// Live streams (`/events`) served at once.
    pub max_streams: Option<usize>,
    /// Seconds a client has to send a request's headers (also how long an
    /// idle connection is kept).
    pub header_timeout_s: Option<u64>,
    /// Connections one peer address may hold at once.
    pub max_connections_per_peer: Option<usize>,
    /// Live streams kept for the arbiter view beside `max_streams`.
    pub arbiter_streams: Option<usize>,
    /// Seconds a client has to send a request's whole body.
    pub body_timeout_s: Option<u64>,
    /// Seconds a write may wait for a peer that reads nothing.
    pub write_timeout_s: Option<u64>,
    /// The arbiter view's own password (not the operator secret).
    pub arbiter_password: Option<String>,
    /// The operator's desk's own password (neither of the others).
    pub desk_password: Option<String>,
    /// How long an arbiter's login lasts, in seconds.
    pub session_s: Option<u64>,
}

/// `[web]`: the arbiter view's login.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WebLogin {
    /// The view password; `None`: the operator secret opens the view, as
    /// before there was one (a warning says so at start).
    pub password: Option<String>,
    /// The operator's desk's password (`[web] desk_password`); `None`:
    /// the one chosen on the desk at first run, kept hashed in the
    /// recorder folder.
    pub desk_password: Option<String>,
    /// How long a login lasts (default 12 h).
    pub session: Duration,
}

impl Default for WebLogin {
    fn default() -> WebLogin {
        WebLogin {
            password: None,
            desk_password: None,
            session: Duration::from_secs(12 * 3600),
        }
    }
}

/// `[web]`: where the live page listens (empty: off) and its limits.
pub fn web(
    raw: Option<RawWeb>,
    defaults: Option<RawWeb>,
    src: &Source,
) -> Result<(Option<std::net::SocketAddr>, crate::listener::Limits), ConfigError> {
    let (rw, dw) = (raw.unwrap_or_default(), defaults.unwrap_or_default());
    let d = crate::listener::Limits::default();
    let secs =
        |r: Option<u64>, d: Option<u64>, default| r.or(d).map_or(default, Duration::from_secs);
    let limits = crate::listener::Limits {
        max_connections: rw
            .max_connections
            .or(dw.max_connections)
            .unwrap_or(d.max_connections),
        max_per_peer: rw
            .max_connections_per_peer
            .or(dw.max_connections_per_peer)
            .unwrap_or(d.max_per_peer),
        max_streams: rw.max_streams.or(dw.max_streams).unwrap_or(d.max_streams),
        arbiter_streams: rw
            .arbiter_streams
            .or(dw.arbiter_streams)
            .unwrap_or(d.arbiter_streams),
        header_timeout: secs(rw.header_timeout_s, dw.header_timeout_s, d.header_timeout),
        body_timeout: secs(rw.body_timeout_s, dw.body_timeout_s, d.body_timeout),
        write_timeout: secs(rw.write_timeout_s, dw.write_timeout_s, d.write_timeout),
        ..d
    };
    if [
        limits.max_connections,
        limits.max_per_peer,
        limits.max_streams,
        limits.arbiter_streams,
    ]
    .contains(&0)
        || [
            limits.header_timeout,
            limits.body_timeout,
            limits.write_timeout,
        ]
        .iter()
        .any(Duration::is_zero)
    {
        return Err(src.invalid(
            None,
            "web: max_connections, max_connections_per_peer, max_streams, arbiter_streams, header_timeout_s, body_timeout_s and write_timeout_s must be at least 1".into(),
        ));
    }
    let addr = listen(rw.listen.or(dw.listen), "web.listen", "127.0.0.1:8080", src)?;
    Ok((addr, limits))
}

/// `[web] arbiter_password` and `session_s`: the arbiter view's login.
pub fn web_login(
    raw: Option<&RawWeb>,
    defaults: Option<&RawWeb>,
    src: &Source,
) -> Result<WebLogin, ConfigError> {
    let pick = |f: fn(&RawWeb) -> Option<&String>| raw.and_then(f).or(defaults.and_then(f));
    let password = pick(|w| w.arbiter_password.as_ref()).filter(|p| !p.is_empty());
    if let Some(p) = password
        && (p.chars().count() < 12 || p.chars().any(char::is_control))
    {
        return Err(src.invalid(
            None,
            "web.arbiter_password: at least 12 characters, no control characters".into(),
        ));
    }
    let desk_password = pick(|w| w.desk_password.as_ref()).filter(|p| !p.is_empty());
    if let Some(p) = desk_password
        && (p.chars().count() < crate::desk::MIN_PASSWORD_CHARS
            || p.chars().any(char::is_control)
            || Some(p) == password)
    {
        return Err(src.invalid(
            None,
            format!(
                "web.desk_password: at least {} characters, no control characters, not the arbiter password",
                crate::desk::MIN_PASSWORD_CHARS
            ),
        ));
    }
    let session_s = raw
        .and_then(|w| w.session_s)
        .or(defaults.and_then(|w| w.session_s));
    let d = WebLogin::default();
    let session = session_s.map_or(d.session, Duration::from_secs);
    if session.is_zero() || session > Duration::from_secs(7 * 24 * 3600) {
        return Err(src.invalid(None, "web.session_s: between 1 and 604800 (a week)".into()));
    }
    Ok(WebLogin {
        password: password.cloned(),
        desk_password: desk_password.cloned(),
        session,
    })
}
