//! The hardened accept loop every HTTP listener runs (the live page, the
//! hub's page and the LiveChess API): a cap on connections, a timeout for
//! request headers and idle keep-alive connections, a bound on buffered
//! request bytes; and the WebSocket limits ([`SocketLimits`]): message
//! size, subscriptions per socket, the browser origins let in.
//!
//! An edge module (tokio, hyper); it knows nothing of boards or games.

use std::sync::Arc;

use axum::Router;
use tokio::net::TcpListener;
use tracing::debug;

/// A listener's limits (the live page's: `[web]` in the configuration).
///
/// Design: every connection holds a file descriptor and a task; a client
/// that opens connections and never finishes its request must not starve
/// the boards' files and broker connection. Past `max_connections` new
/// connections are closed at once; a client has `header_timeout` to send
/// a request's headers (a kept-alive idle connection is closed after the
/// same time); past `max_streams` live streams `/events` answers 503 and
/// the page's `EventSource` tries again later.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Connections served at once (default 256).
    pub max_connections: usize,
    /// Live streams served at once (default 128).
    pub max_streams: usize,
    /// Time to send a request's headers, and to keep an idle connection
    /// (default 10 s).
    pub header_timeout: std::time::Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_connections: 256,
            max_streams: 128,
            header_timeout: std::time::Duration::from_secs(10),
        }
    }
}

/// What a WebSocket may do (the LiveChess API's: `[livechess]`).
///
/// Design: only browsers send `Origin`, and the attack they carry is a web
/// page of any site using a WebSocket on loopback; a tool that sends none
/// (a Python client, a relay script) is let in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SocketLimits {
    /// The largest message read, in bytes (default 64 KiB); a larger one
    /// closes the socket.
    pub max_message: usize,
    /// Feeds one socket may subscribe to (default 256).
    pub max_subscriptions: usize,
    /// A socket that sends nothing for this long (no message, no answer to
    /// the pings the server sends every third of it) is closed: a peer gone
    /// without a word (a laptop closed, a half-open connection) gives its
    /// descriptor and its task back (default 60 s).
    pub idle_timeout: std::time::Duration,
    /// Browser origins let in: `https://lichess.org`, `https://*.chess.com`
    /// (any subdomain), `chrome-extension://*` (any extension).
    pub origins: Vec<String>,
}

/// The origins the LiveChess WebSocket lets in by default: lichess.org,
/// chess.com and browser extensions (DgtAngel).
pub const DEFAULT_ORIGINS: [&str; 6] = [
    "https://lichess.org",
    "https://*.lichess.org",
    "https://chess.com",
    "https://*.chess.com",
    "chrome-extension://*",
    "moz-extension://*",
];

impl Default for SocketLimits {
    fn default() -> SocketLimits {
        SocketLimits {
            max_message: 64 * 1024,
            max_subscriptions: 256,
            idle_timeout: std::time::Duration::from_secs(60),
            origins: DEFAULT_ORIGINS.iter().map(|o| o.to_string()).collect(),
        }
    }
}

impl SocketLimits {
    /// Whether a request to `host` (its `Host` header) with `origin` is
    /// let in: an allowed origin, or the same origin as the listener
    /// (`http://{host}`, which WebSocket libraries send by default; the
    /// listener serves no page that could run there).
    pub fn allows_at(&self, origin: Option<&str>, host: Option<&str>) -> bool {
        let same = |o: &str| {
            host.is_some_and(|h| {
                let o = o.trim().trim_end_matches('/').to_ascii_lowercase();
                let h = h.trim().to_ascii_lowercase();
                o == format!("http://{h}") || o == format!("https://{h}")
            })
        };
        origin.is_none_or(|o| same(o) || self.allows(Some(o)))
    }

    /// Whether a request with `origin` (its `Origin` header, if any) is
    /// let in.
    pub fn allows(&self, origin: Option<&str>) -> bool {
        let Some(origin) = origin else {
            return true;
        };
        let origin = origin.trim().trim_end_matches('/').to_ascii_lowercase();
        self.origins.iter().any(|pattern| {
            let pattern = pattern.trim_end_matches('/').to_ascii_lowercase();
            match pattern.split_once("://") {
                Some((scheme, "*")) => origin
                    .strip_prefix(scheme)
                    .and_then(|o| o.strip_prefix("://"))
                    .is_some_and(|host| !host.is_empty()),
                Some((scheme, host)) if host.starts_with("*.") => origin
                    .strip_prefix(scheme)
                    .and_then(|o| o.strip_prefix("://"))
                    .is_some_and(|h| h.ends_with(&host[1..]) && h.len() > host.len() - 1),
                _ => origin == pattern,
            }
        })
    }
}

/// Accepts connections up to the cap and serves each with a header
/// timeout (the live page's loop).
pub async fn accept_loop(listener: TcpListener, app: Router, limits: Limits) {
    serve_limited(listener, app, limits, "live page").await
}

/// Accepts connections up to the cap and serves each with a header
/// timeout; `name` says which listener in the logs. WebSocket upgrades
/// are served (hyper's upgrades are on).
pub async fn serve_limited(listener: TcpListener, app: Router, limits: Limits, name: &'static str) {
    use hyper_util::rt::{TokioIo, TokioTimer};
    let slots = Arc::new(tokio::sync::Semaphore::new(limits.max_connections));
    let mut warned = false;
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(c) => c,
            Err(e) => {
                // Out of descriptors, say: wait instead of spinning.
                debug!(error = %e, "accept failed");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(slot) = Arc::clone(&slots).try_acquire_owned() else {
            if !warned {
                tracing::warn!(max = limits.max_connections, %peer, listener = name, "too many connections; closing new ones");
                warned = true;
            }
            drop(stream);
            continue;
        };
        warned = false;
        // Each request knows its peer (`ConnectInfo`): the arbiter login
        // counts failures per address.
        let app = app
            .clone()
            .layer(axum::Extension(axum::extract::ConnectInfo(peer)));
        let service = hyper_util::service::TowerToHyperService::new(app);
        tokio::spawn(async move {
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(limits.header_timeout)
                .max_buf_size(64 * 1024);
            if let Err(e) = builder
                .serve_connection(TokioIo::new(stream), service)
                .with_upgrades()
                .await
            {
                debug!(%peer, error = %e, listener = name, "connection ended");
            }
            drop(slot);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_are_matched_exactly_or_by_subdomain_or_scheme() {
        let l = SocketLimits::default();
        assert!(l.allows(None), "a tool that sends no Origin");
        for o in [
            "https://lichess.org",
            "https://www.chess.com",
            "https://chess.com/",
            "chrome-extension://abcdefghijklmnop",
        ] {
            assert!(l.allows(Some(o)), "{o}");
        }
        for o in [
            "https://evil.example",
            "https://lichess.org.evil.example",
            "https://evilchess.com",
            "http://lichess.org",
            "null",
            "chrome-extension://",
        ] {
            assert!(!l.allows(Some(o)), "{o}");
        }
        assert!(l.allows_at(Some("http://127.0.0.1:1982"), Some("127.0.0.1:1982")));
        assert!(!l.allows_at(Some("http://127.0.0.1:8000"), Some("127.0.0.1:1982")));
        assert!(!l.allows_at(Some("https://evil.example"), Some("127.0.0.1:1982")));
    }
}
