//! The `[livechess]` section: where the LiveChess-compatible API listens,
//! its limits, and the browsers and hosts it lets in.

use std::time::Duration;

use serde::Deserialize;
use toml::Spanned;

use crate::config_file::{ConfigError, Source, listen};
use crate::listener::{Limits, SocketLimits};

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

/// `[livechess]` limits: connections, header timeout, subscriptions per
/// socket, the browser origins let in.
pub fn livechess_limits(
    raw: Option<&RawLiveChess>,
    defaults: Option<&RawLiveChess>,
    src: &Source,
) -> Result<(Limits, SocketLimits), ConfigError> {
    let (d, ds) = (Limits::default(), SocketLimits::default());
    let num = |f: fn(&RawLiveChess) -> Option<usize>| raw.and_then(f).or(defaults.and_then(f));
    let limits = Limits {
        max_connections: num(|l| l.max_connections).unwrap_or(d.max_connections),
        max_per_peer: num(|l| l.max_connections_per_peer).unwrap_or(d.max_per_peer),
        header_timeout: raw
            .and_then(|l| l.header_timeout_s)
            .or(defaults.and_then(|l| l.header_timeout_s))
            .map_or(d.header_timeout, Duration::from_secs),
        ..d
    };
    let socket = SocketLimits {
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
