//! The hardened accept loop every HTTP listener runs (the live page, the
//! hub's page and the LiveChess API): a cap on connections and on
//! connections per peer address, a timeout for request headers and idle
//! keep-alive connections, a deadline and a size limit for request
//! bodies, a write deadline for peers that stop reading (a stream that is
//! never read), a bound on buffered request bytes; and the WebSocket
//! limits ([`SocketLimits`]): message size, subscriptions per socket, the
//! browser origins and `Host` names let in.
//!
//! An edge module (tokio, hyper); it knows nothing of boards or games.

mod deadline;
mod peers;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use tokio::net::TcpListener;
use tracing::debug;

pub use deadline::WriteDeadline;

/// A listener's limits (the live page's: `[web]` in the configuration).
///
/// Design: every connection holds a file descriptor and a task; a client
/// that opens connections and never finishes its request must not starve
/// the boards' files and broker connection. Past `max_connections` new
/// connections are closed at once, and past `max_per_peer` those of the
/// same address; a client has `header_timeout` to send a request's
/// headers (a kept-alive idle connection is closed after the same time)
/// and `body_timeout` to send its body (at most `max_body` bytes); a
/// write that the peer does not read for `write_timeout` closes the
/// connection; past `max_streams` live streams `/events` answers 503 and
/// the page's `EventSource` tries again later, and the arbiter view has
/// `arbiter_streams` more of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Connections served at once (default 256).
    pub max_connections: usize,
    /// Connections one peer address may hold at once (default 32).
    pub max_per_peer: usize,
    /// Public live streams served at once (default 128).
    pub max_streams: usize,
    /// Live streams kept for the arbiter view beside them (default 16).
    pub arbiter_streams: usize,
    /// Time to send a request's headers, and to keep an idle connection
    /// (default 10 s).
    pub header_timeout: Duration,
    /// Time to send a whole request body once the headers are in
    /// (default 10 s).
    pub body_timeout: Duration,
    /// The largest request body read (64 KiB).
    pub max_body: usize,
    /// How long a write may wait for a peer that reads nothing before the
    /// connection is closed (default 20 s).
    pub write_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_connections: 256,
            max_per_peer: 32,
            max_streams: 128,
            arbiter_streams: 16,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(10),
            max_body: 64 * 1024,
            write_timeout: Duration::from_secs(20),
        }
    }
}

/// The address a connection reached (its local end), in each request's
/// extensions: which `Host` names the listener answers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LocalAddr(pub SocketAddr);

/// What a WebSocket may do (the LiveChess API's: `[livechess]`).
///
/// Design: only browsers send `Origin`, and the attack they carry is a web
/// page of any site using a WebSocket on loopback; a tool that sends none
/// (a Python client, a relay script) is let in. A page whose name its own
/// DNS points at loopback (DNS rebinding) is same-origin with the
/// listener as far as the browser knows, so the `Host` it sends (its own
/// name) must be one the listener answers to ([`SocketLimits::answers_to`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SocketLimits {
    /// The largest message read, in bytes (default 64 KiB); a larger one
    /// closes the socket.
    pub max_message: usize,
    /// Feeds one socket may subscribe to (default 256).
    pub max_subscriptions: usize,
    /// Feeds of one socket that may carry a `setup` (default 16): each
    /// follows its board through its own positions, which costs work at
    /// every change of the board.
    pub max_setups: usize,
    /// A socket that sends nothing for this long (no message, no answer to
    /// the pings the server sends every third of it) is closed: a peer gone
    /// without a word (a laptop closed, a half-open connection) gives its
    /// descriptor and its task back (default 60 s).
    pub idle_timeout: Duration,
    /// Browser origins let in: `https://lichess.org`, `https://*.chess.com`
    /// (any subdomain), `chrome-extension://ID` (one extension),
    /// `chrome-extension://*` (any extension: not a default).
    pub origins: Vec<String>,
    /// Host names the listener answers to beside `localhost`, loopback
    /// addresses and the address a connection reached (a reverse proxy's
    /// public name, a name on the venue's network).
    pub hosts: Vec<String>,
}

/// The origins the LiveChess WebSocket lets in by default: lichess.org
/// and chess.com. No browser extension: DgtAngel's is added by its id
/// (`chrome-extension://ID`, see docs/livechess.md).
pub const DEFAULT_ORIGINS: [&str; 4] = [
    "https://lichess.org",
    "https://*.lichess.org",
    "https://chess.com",
    "https://*.chess.com",
];

impl Default for SocketLimits {
    fn default() -> SocketLimits {
        SocketLimits {
            max_message: 64 * 1024,
            max_subscriptions: 256,
            max_setups: 16,
            idle_timeout: Duration::from_secs(60),
            origins: DEFAULT_ORIGINS.iter().map(|o| o.to_string()).collect(),
            hosts: Vec::new(),
        }
    }
}

/// A `Host` header's name (lower case, no trailing dot, an IPv6 address
/// without its brackets) and port, if it has one.
fn host_parts(host: &str) -> (String, Option<u16>) {
    let host = host.trim().to_ascii_lowercase();
    let (name, port) = match host.strip_prefix('[') {
        Some(rest) => match rest.split_once(']') {
            Some((ip, tail)) => (ip.to_string(), tail.strip_prefix(':')),
            None => (host.clone(), None),
        },
        None => match host.rsplit_once(':') {
            Some((n, p)) if !n.contains(':') => (n.to_string(), Some(p)),
            _ => (host.clone(), None),
        },
    };
    let port = port.map(|p| p.parse().unwrap_or(0));
    (name.trim_end_matches('.').to_string(), port)
}

impl SocketLimits {
    /// Whether `host` (a request's `Host` header) names this listener,
    /// reached at `local`: `localhost`, a loopback address, the address
    /// reached or a configured name (`hosts`), with the port reached when
    /// it has one. A name that merely resolves here (DNS rebinding) is
    /// not one of them; nor is a request without `Host`.
    pub fn answers_to(&self, host: Option<&str>, local: SocketAddr) -> bool {
        let Some(host) = host else {
            return false;
        };
        let (name, port) = host_parts(host);
        if port.is_some_and(|p| p != local.port()) {
            return false;
        }
        let ip = name.parse::<std::net::IpAddr>().ok();
        name == "localhost"
            || name.ends_with(".localhost")
            || ip.is_some_and(|ip| ip.is_loopback() || ip == local.ip())
            || self.hosts.iter().any(|h| host_parts(h).0 == name)
    }

    /// Whether a request to `host` (its `Host` header), reached at
    /// `local`, with `origin` is let in: the host must be one the listener
    /// answers to ([`SocketLimits::answers_to`]), and the origin an
    /// allowed one or the listener's own (`http://{host}`, which WebSocket
    /// libraries send by default; the listener serves no page that could
    /// run there).
    pub fn allows_at(&self, origin: Option<&str>, host: Option<&str>, local: SocketAddr) -> bool {
        if !self.answers_to(host, local) {
            return false;
        }
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

/// Accepts connections up to the caps and serves each within the limits
/// ([`Limits`]); `name` says which listener in the logs. WebSocket
/// upgrades are served (hyper's upgrades are on).
pub async fn serve_limited(listener: TcpListener, app: Router, limits: Limits, name: &'static str) {
    use hyper_util::rt::{TokioIo, TokioTimer};
    let slots = Arc::new(tokio::sync::Semaphore::new(limits.max_connections));
    let peers = Arc::new(peers::Peers::default());
    let app = app.layer(axum::middleware::from_fn_with_state(limits, read_body));
    let mut warned = false;
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(c) => c,
            Err(e) => {
                // Out of descriptors, say: wait instead of spinning.
                debug!(error = %e, "accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
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
        let Some(place) = peers.take(peer.ip(), limits.max_per_peer) else {
            debug!(%peer, max = limits.max_per_peer, listener = name, "too many connections from this address; closed");
            drop(stream);
            continue;
        };
        let local = stream.local_addr().unwrap_or(peer);
        // Each request knows its peer (`ConnectInfo`: the arbiter login
        // counts failures per address) and the address it reached.
        let app = app
            .clone()
            .layer(axum::Extension(axum::extract::ConnectInfo(peer)))
            .layer(axum::Extension(LocalAddr(local)));
        let service = hyper_util::service::TowerToHyperService::new(app);
        let io = TokioIo::new(WriteDeadline::new(stream, limits.write_timeout));
        tokio::spawn(async move {
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(limits.header_timeout)
                .max_buf_size(64 * 1024);
            if let Err(e) = builder.serve_connection(io, service).with_upgrades().await {
                debug!(%peer, error = %e, listener = name, "connection ended");
            }
            drop((slot, place));
        });
    }
}

/// The one route whose body may be larger than `max_body`: the desk's
/// pairing file upload (up to [`crate::tournament::MAX_PAIRINGS_BYTES`]).
/// Its body is not read before the route: the route reads it with
/// [`read_upload`] once the desk's login is checked, so a stranger cannot
/// make the listener hold megabytes.
pub const UPLOAD_PATH: &str = "/desk/trf";

/// How the upload route reads its body: within this time, up to this size.
#[derive(Debug, Clone, Copy)]
struct UploadLimits {
    timeout: Duration,
    max: usize,
}

/// Reads a request's whole body within `body_timeout` and `max_body`
/// before any route sees it: a body trickled byte by byte, or one never
/// finished, gets `408` and the connection closed, a larger one `413`.
async fn read_body(State(limits): State<Limits>, request: Request, next: Next) -> Response {
    let (mut parts, body) = request.into_parts();
    if parts.uri.path() == UPLOAD_PATH {
        parts.extensions.insert(UploadLimits {
            timeout: limits.body_timeout,
            max: limits
                .max_body
                .max(crate::tournament::MAX_PAIRINGS_BYTES as usize),
        });
        return next.run(Request::from_parts(parts, body)).await;
    }
    match read_within(body, limits.body_timeout, limits.max_body).await {
        Ok(bytes) => {
            next.run(Request::from_parts(parts, axum::body::Body::from(bytes)))
                .await
        }
        Err(refused) => refused,
    }
}

/// The upload route's body, read within the listener's limits (the
/// pairing file's size, the body timeout) once the route has checked who
/// sends it; an error answer when it is too large or too slow.
pub async fn read_upload(
    extensions: &axum::http::Extensions,
    body: axum::body::Body,
) -> Result<axum::body::Bytes, Response> {
    let limits = extensions
        .get::<UploadLimits>()
        .copied()
        .unwrap_or(UploadLimits {
            timeout: Limits::default().body_timeout,
            max: crate::tournament::MAX_PAIRINGS_BYTES as usize,
        });
    read_within(body, limits.timeout, limits.max).await
}

async fn read_within(
    body: axum::body::Body,
    timeout: Duration,
    max_body: usize,
) -> Result<axum::body::Bytes, Response> {
    let read = axum::body::to_bytes(body, max_body);
    match tokio::time::timeout(timeout, read).await {
        Ok(Ok(bytes)) => Ok(bytes),
        Ok(Err(_)) => {
            let m = format!("the request body is over {max_body} bytes or broken off\n");
            Err(closing(StatusCode::PAYLOAD_TOO_LARGE, m))
        }
        Err(_) => {
            let s = timeout.as_secs_f32();
            let m = format!("the request body did not arrive within {s} s\n");
            Err(closing(StatusCode::REQUEST_TIMEOUT, m))
        }
    }
}

/// An error answer after which the connection is closed.
fn closing(status: StatusCode, message: String) -> Response {
    (status, [(header::CONNECTION, "close")], message).into_response()
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
            // No extension by default: DgtAngel's is added by its id.
            "chrome-extension://abcdefghijklmnop",
            "moz-extension://0f1e2d3c",
        ] {
            assert!(!l.allows(Some(o)), "{o}");
        }
        let with_angel = SocketLimits {
            origins: vec!["chrome-extension://abcdefghijklmnop".into()],
            ..SocketLimits::default()
        };
        assert!(with_angel.allows(Some("chrome-extension://abcdefghijklmnop")));
        assert!(!with_angel.allows(Some("chrome-extension://another")));
    }

    #[test]
    fn same_origin_is_trusted_only_for_a_host_the_listener_answers_to() {
        let l = SocketLimits::default();
        let at = |a: &str| -> SocketAddr { a.parse().unwrap() };
        let lo = at("127.0.0.1:1982");
        assert!(l.allows_at(Some("http://127.0.0.1:1982"), Some("127.0.0.1:1982"), lo));
        assert!(l.allows_at(Some("http://localhost:1982"), Some("localhost:1982"), lo));
        assert!(l.allows_at(None, Some("127.0.0.1"), lo), "a tool, no port");
        assert!(l.allows_at(Some("https://lichess.org"), Some("localhost:1982"), lo));
        assert!(!l.allows_at(Some("http://127.0.0.1:8000"), Some("127.0.0.1:1982"), lo));
        assert!(!l.allows_at(Some("https://evil.example"), Some("127.0.0.1:1982"), lo));
        // DNS rebinding: evil.example resolves to 127.0.0.1; the page's
        // origin and the Host agree, and neither is the listener's.
        let rebound = Some("evil.example:1982");
        assert!(!l.allows_at(Some("http://evil.example:1982"), rebound, lo));
        assert!(!l.allows_at(None, rebound, lo), "nor without an Origin");
        assert!(!l.allows_at(None, None, lo), "no Host at all");
        assert!(
            !l.allows_at(None, Some("localhost:8080"), lo),
            "another port"
        );
        // Reached on the venue's network, by address or a configured name.
        let lan = at("192.168.1.5:1982");
        assert!(l.allows_at(
            Some("http://192.168.1.5:1982"),
            Some("192.168.1.5:1982"),
            lan
        ));
        assert!(!l.allows_at(None, Some("boards.hall:1982"), lan));
        let named = SocketLimits {
            hosts: vec!["Boards.Hall".into()],
            ..SocketLimits::default()
        };
        assert!(named.allows_at(
            Some("http://boards.hall:1982"),
            Some("boards.hall:1982"),
            lan
        ));
        assert!(named.answers_to(Some("[::1]:1982"), lan));
    }
}
