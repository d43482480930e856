//! The `[web]`, `[broadcast]` and `[livechess]` sections: the live
//! page, the arbiter's and the desk's logins, the public delay, and the
//! LiveChess-compatible API.

use super::*;

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

/// `[broadcast]` as written.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawBroadcast {
    /// How far the public outputs lag the live game (`"15m"`, `"90s"`,
    /// `"0"`).
    pub delay: Option<Spanned<String>>,
}

/// `[livechess]` as written.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawLiveChess {
    /// Address of the LiveChess-compatible API; empty means off.
    pub listen: Option<Spanned<String>>,
    /// Connections (and WebSockets) served at once.
    pub max_connections: Option<usize>,
    /// Seconds a client has to send a request's headers.
    pub header_timeout_s: Option<u64>,
    /// Feeds one WebSocket may subscribe to.
    pub max_subscriptions: Option<usize>,
    /// Seconds a WebSocket may stay silent (no frame, no answer to the
    /// server's pings) before it is closed.
    pub idle_timeout_s: Option<u64>,
    /// Browser origins the WebSocket lets in.
    pub origins: Option<Vec<String>>,
    /// Connections one peer address may hold at once.
    pub max_connections_per_peer: Option<usize>,
    /// Feeds of one WebSocket that may carry a `setup`.
    pub max_setups: Option<usize>,
    /// Host names the API answers to beside loopback and its address.
    pub hosts: Option<Vec<String>>,
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

/// `[broadcast]`: what the public sees, and when.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Broadcast {
    /// How long the public outputs (the `{prefix}/board/...` topics, the
    /// PGN folder, the live page) lag the live game, in milliseconds; 0
    /// shows the public everything live, as the arbiters see it.
    pub delay_ms: u64,
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

/// `[livechess]`: where the LiveChess-compatible API listens (empty: off).
pub fn livechess(
    raw: Option<RawLiveChess>,
    defaults: Option<RawLiveChess>,
    src: &Source,
) -> Result<Option<std::net::SocketAddr>, ConfigError> {
    let listen_at = raw.and_then(|w| w.listen);
    let listen_at = listen_at.or(defaults.and_then(|w| w.listen));
    listen(listen_at, "livechess.listen", "127.0.0.1:1982", src)
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

/// `[livechess]` limits: connections, header timeout, subscriptions per
/// socket, the browser origins let in.
pub fn livechess_limits(
    raw: Option<&RawLiveChess>,
    defaults: Option<&RawLiveChess>,
    src: &Source,
) -> Result<(crate::listener::Limits, crate::listener::SocketLimits), ConfigError> {
    let (d, ds) = (
        crate::listener::Limits::default(),
        crate::listener::SocketLimits::default(),
    );
    let num = |f: fn(&RawLiveChess) -> Option<usize>| raw.and_then(f).or(defaults.and_then(f));
    let limits = crate::listener::Limits {
        max_connections: num(|l| l.max_connections).unwrap_or(d.max_connections),
        max_per_peer: num(|l| l.max_connections_per_peer).unwrap_or(d.max_per_peer),
        header_timeout: raw
            .and_then(|l| l.header_timeout_s)
            .or(defaults.and_then(|l| l.header_timeout_s))
            .map_or(d.header_timeout, Duration::from_secs),
        ..d
    };
    let socket = crate::listener::SocketLimits {
        max_subscriptions: num(|l| l.max_subscriptions).unwrap_or(ds.max_subscriptions),
        idle_timeout: raw
            .and_then(|l| l.idle_timeout_s)
            .or(defaults.and_then(|l| l.idle_timeout_s))
            .map_or(ds.idle_timeout, Duration::from_secs),
        origins: raw
            .and_then(|l| l.origins.clone())
            .or(defaults.and_then(|l| l.origins.clone()))
            .unwrap_or(ds.origins),
        max_setups: num(|l| l.max_setups).unwrap_or(ds.max_setups),
        hosts: raw
            .and_then(|l| l.hosts.clone())
            .or(defaults.and_then(|l| l.hosts.clone()))
            .unwrap_or(ds.hosts),
        ..ds
    };
    if limits.max_connections == 0
        || limits.max_per_peer == 0
        || limits.header_timeout.is_zero()
        || socket.max_subscriptions == 0
        || socket.idle_timeout.is_zero()
    {
        return Err(src.invalid(
            None,
            "livechess: max_connections, max_connections_per_peer, header_timeout_s, max_subscriptions and idle_timeout_s must be at least 1"
                .into(),
        ));
    }
    if let Some(o) = socket
        .origins
        .iter()
        .find(|o| !o.contains("://") || o.chars().any(char::is_control))
    {
        return Err(src.invalid(
            None,
            format!("livechess.origins: {o:?} is not an origin such as https://lichess.org"),
        ));
    }
    Ok((limits, socket))
}

/// A `listen` address (`key`); empty means off.
fn listen(
    value: Option<Spanned<String>>,
    key: &str,
    example: &str,
    src: &Source,
) -> Result<Option<std::net::SocketAddr>, ConfigError> {
    match value {
        Some(l) if !l.get_ref().is_empty() => {
            let addr = l.get_ref().parse().map_err(|_| {
                let m = format!(
                    "{key}: `{}` is not an address such as {example}",
                    l.get_ref()
                );
                src.invalid(Some(l.span()), m)
            })?;
            Ok(Some(addr))
        }
        _ => Ok(None),
    }
}

/// `[broadcast]`: the public delay (`"15m"`, `"90s"`, `"0"`), at most an
/// hour.
pub fn broadcast(
    raw: Option<RawBroadcast>,
    defaults: Option<RawBroadcast>,
    src: &Source,
) -> Result<Broadcast, ConfigError> {
    let delay = raw.and_then(|b| b.delay);
    let Some(d) = delay.or(defaults.and_then(|b| b.delay)) else {
        return Ok(Broadcast::default());
    };
    let ms = parse_duration(d.get_ref()).ok_or_else(|| {
        let m = format!(
            "broadcast.delay: `{}` is not a duration such as \"15m\", \"90s\" or \"0\"",
            d.get_ref()
        );
        src.invalid(Some(d.span()), m)
    })?;
    if ms > crate::delay::MAX_DELAY_MS {
        let m = format!(
            "broadcast.delay: `{}` is longer than the 1 h allowed",
            d.get_ref()
        );
        return Err(src.invalid(Some(d.span()), m));
    }
    Ok(Broadcast { delay_ms: ms })
}
