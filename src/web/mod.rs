//! The live page: every board and the arbiter's alerts in a browser,
//! served by the daemon over HTTP (`[web] listen`).
//!
//! The boards feed a [`FanOut`] with the same events and retained state they
//! hand the MQTT outbox (see [`crate::session::BoardSink`]).
//! The fan-out keeps a snapshot (each board's state and last clock, the latest
//! alerts) and fans every change out on a `tokio::sync::broadcast`
//! channel. Each browser gets the page (`GET /`, built into the binary),
//! then a server-sent event stream (`GET /events`): first a `snapshot`,
//! then `state` and `event` messages as they happen.
//!
//! Two audiences: `GET /` is the public view (with `[broadcast] delay`,
//! the games as they were that long ago; no alerts unless `[broadcast]
//! public_alerts` is set: its fan-out refuses them); `GET /arbiter` is
//! the arbiters' view, always live with alerts, open only to holders of
//! the view password (`[web] arbiter_password`; without one there is no
//! arbiter view: the operator secret never opens it). The login form posts it
//! (`POST /arbiter`, field `key`: never in an address); a right one gets
//! a session: a random token in a cookie (`HttpOnly`, `SameSite=Strict`,
//! expiring after `[web] session_s`), which the page and its stream
//! (`/arbiter/events`, `/arbiter/snapshot`) check. Served off loopback, the
//! page warns at start that it has no TLS.
//!
//! Design: a slow browser never blocks a board. Boards only ever write to
//! the broadcast channel, which never waits; a browser that falls behind by
//! more than the channel holds loses its stream, and its `EventSource`
//! reconnects by itself and starts again from a fresh snapshot.

mod audience;
pub mod check;
pub mod config;
pub mod desk;
mod fanout;
mod guard;
pub mod lockout;
mod login;
#[cfg(test)]
mod route_tests;
mod screens;
pub mod select;
#[cfg(test)]
mod stream_tests;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_stream::StreamExt;
use tokio_stream::wrappers::BroadcastStream;
use tracing::info;

mod tools;
use crate::control;
use crate::listener::{Limits, accept_loop};
pub use audience::Audience;
pub use fanout::{BoardFeed, FanOut};

/// The page: HTML, CSS and script in one file, no build step.
pub const PAGE: &str = include_str!("page.html");

/// What the routes share: both views' fan-outs and who may see the
/// arbiters'.
#[derive(Debug)]
struct Views {
    public: Arc<FanOut>,
    arbiter: Arc<FanOut>,
    audience: Audience,
    /// The arbiter view's login.
    arbiter_login: login::ArbiterLogin,
    /// Public live streams served at once.
    streams: Arc<tokio::sync::Semaphore>,
    /// The arbiter view's own live streams: the public cannot take them.
    arbiter_streams: Arc<tokio::sync::Semaphore>,
    /// Where the arbiters' decisions and the desk's corrections go: each
    /// board's command queue (the daemon's boards, or the hub's MQTT edge).
    router: Mutex<control::Router>,
    /// The operator's desk, once the daemon has set it up.
    desk: Mutex<Option<Arc<crate::desk::live::Desk>>>,
    /// The desk's login (apart from the arbiter view's).
    desk_login: login::DeskLogin,
    /// Each board's board check as last published (a state carries it
    /// only until the first move), for the desk.
    desk_checks: Mutex<std::collections::HashMap<String, serde_json::Value>>,
    /// The serial ports with a known board, as last looked at, and when.
    desk_ports: Mutex<Option<(std::time::Instant, desk::view::FoundPorts)>>,
    /// The lichess push's status, when the daemon pushes.
    lichess: Mutex<Option<Arc<crate::lichess::Status>>>,
}

impl Views {
    /// Views of `public` and `arbiter` for `audience`, within `limits`.
    fn new(
        public: Arc<FanOut>,
        arbiter: Arc<FanOut>,
        audience: Audience,
        limits: &Limits,
    ) -> Views {
        Views {
            public,
            arbiter,
            arbiter_login: login::ArbiterLogin::new(audience.arbiter_secret.as_deref()),
            audience,
            streams: Arc::new(tokio::sync::Semaphore::new(limits.max_streams)),
            arbiter_streams: Arc::new(tokio::sync::Semaphore::new(limits.arbiter_streams)),
            router: Mutex::default(),
            desk: Mutex::new(None),
            desk_login: login::DeskLogin::new(desk::DESK_COOKIE),
            desk_checks: Mutex::default(),
            desk_ports: Mutex::new(None),
            lichess: Mutex::new(None),
        }
    }

    /// The command route the views send through.
    fn router(&self) -> control::Router {
        self.router
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

/// The running web server; dropping it stops the server.
#[derive(Debug)]
pub struct WebServer {
    /// The address bound.
    pub addr: SocketAddr,
    /// The fan-out the boards feed with what the public sees.
    pub public: Arc<FanOut>,
    /// The fan-out the boards feed with the live games and alerts.
    pub arbiter: Arc<FanOut>,
    views: Arc<Views>,
    task: JoinHandle<()>,
}

impl WebServer {
    /// Serves the page for the boards `ids` on `addr`, to the public only.
    pub async fn start(addr: SocketAddr, ids: &[String]) -> std::io::Result<WebServer> {
        WebServer::start_for(addr, ids, Audience::default(), Limits::default()).await
    }

    /// Serves the public page and, with a secret, the arbiters' view,
    /// within `limits`.
    pub async fn start_for(
        addr: SocketAddr,
        ids: &[String],
        audience: Audience,
        limits: Limits,
    ) -> std::io::Result<WebServer> {
        let (public, arbiter) = (FanOut::new(ids), FanOut::new(ids));
        public.refuse_alerts(!audience.public_alerts);
        let views = Arc::new(Views::new(
            Arc::clone(&public),
            Arc::clone(&arbiter),
            audience,
            &limits,
        ));
        let (addr, task) = serve_views(addr, Arc::clone(&views), limits).await?;
        Ok(WebServer {
            addr,
            public,
            arbiter,
            views,
            task,
        })
    }

    /// Sends the arbiter view's decisions and the desk's corrections
    /// through `router` from now on (set by the daemon once its boards
    /// run).
    pub fn route_commands(&self, router: control::Router) {
        *self.views.router.lock().unwrap_or_else(|e| e.into_inner()) = router;
    }

    /// The command route the views send through (a hub adds each board's
    /// queue as it learns the board).
    pub fn router(&self) -> control::Router {
        self.views.router()
    }

    /// Serves the operator's desk (`/desk`) from now on.
    pub fn set_desk(&self, desk: Arc<crate::desk::live::Desk>) {
        *self.views.desk.lock().unwrap_or_else(|e| e.into_inner()) = Some(desk);
    }

    /// Shows the lichess push's status on the desk (`/desk/state`'s
    /// `lichess`) from now on.
    pub fn set_lichess(&self, status: Arc<crate::lichess::Status>) {
        *self.views.lichess.lock().unwrap_or_else(|e| e.into_inner()) = Some(status);
    }

    /// The public feed of board `index`.
    pub fn feed(&self, index: usize) -> BoardFeed {
        self.public.feed(index)
    }

    /// The arbiters' (live) feed of board `index`.
    pub fn arbiter_feed(&self, index: usize) -> BoardFeed {
        self.arbiter.feed(index)
    }
}

impl Drop for WebServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Binds `addr` and serves the page and the event stream from `public` until
/// the returned task is aborted. Returns the address bound (useful with
/// port 0).
pub async fn serve(
    addr: SocketAddr,
    public: Arc<FanOut>,
) -> std::io::Result<(SocketAddr, JoinHandle<()>)> {
    let arbiter = FanOut::new(&public.lock().boards.clone());
    let views = Arc::new(Views::new(
        public,
        arbiter,
        Audience::default(),
        &Limits::default(),
    ));
    serve_views(addr, views, Limits::default()).await
}

async fn serve_views(
    addr: SocketAddr,
    views: Arc<Views>,
    limits: Limits,
) -> std::io::Result<(SocketAddr, JoinHandle<()>)> {
    let listener = TcpListener::bind(addr).await?;
    let local = listener.local_addr()?;
    if !local.ip().is_loopback() {
        tracing::warn!(
            %local,
            arbiter_view = views.arbiter_login.token.is_some(),
            "the live page is served off loopback without TLS: its arbiter password and session cookie cross the network in clear; put a TLS reverse proxy in front"
        );
    }
    let app = Router::new()
        .route("/", get(page))
        .route("/events", get(events))
        .route("/snapshot", get(snapshot))
        .route("/boards", get(boards))
        .route("/arbiter", get(arbiter_page).post(arbiter_login))
        .route("/arbiter/events", get(arbiter_events))
        .route("/arbiter/snapshot", get(arbiter_snapshot))
        .route("/evidence/{board}/{seq}", get(tools::evidence))
        .route("/report", get(tools::report_page))
        .route("/report.json", get(tools::report_json))
        .route("/arbiter/decide", axum::routing::post(tools::decide))
        .merge(check::routes())
        .merge(screens::routes())
        .merge(desk::routes())
        .with_state(views);
    info!(url = %format!("http://{local}/"), ?limits, "live page");
    let task = tokio::spawn(accept_loop(listener, app, limits));
    Ok((local, task))
}

/// The page for one audience: the `<body>` says which view it is, how far
/// behind it runs and where its stream is.
/// `alerts`: whether the public page shows the alerts panel (the
/// arbiters' always does).
fn page_for(arbiter: bool, delay_ms: u64, alerts: bool) -> String {
    let (audience, base) = if arbiter {
        ("arbiter", "/arbiter/")
    } else {
        ("public", "/")
    };
    let delay = if arbiter { 0 } else { delay_ms };
    let alerts = if arbiter || alerts { "on" } else { "off" };
    PAGE.replacen(
        "<body>",
        &format!(
            "<body data-audience=\"{audience}\" data-delay-ms=\"{delay}\" data-base=\"{base}\" data-alerts=\"{alerts}\">"
        ),
        1,
    )
}

async fn page(State(views): State<Arc<Views>>) -> Html<String> {
    Html(page_for(
        false,
        views.audience.delay_ms,
        views.audience.public_alerts,
    ))
}

async fn snapshot(State(views): State<Arc<Views>>, RawQuery(q): RawQuery) -> Response {
    match select::Selection::from_query(q.as_deref()) {
        Ok(s) => json_response(views.public.snapshot_for(&s)).into_response(),
        Err(e) => bad_selection(&e),
    }
}

/// `GET /boards`: the public view's boards in the order the pages show
/// them (see [`FanOut::boards_json`]), those `?boards=` names if given.
async fn boards(State(views): State<Arc<Views>>, RawQuery(q): RawQuery) -> Response {
    match select::Selection::from_query(q.as_deref()) {
        Ok(s) => json_response(views.public.boards_json(&s)).into_response(),
        Err(e) => bad_selection(&e),
    }
}

/// A stream's or snapshot's parameters refused: 400, saying why.
fn bad_selection(e: &select::SelectError) -> Response {
    (StatusCode::BAD_REQUEST, format!("{e}\n")).into_response()
}

fn json_response(json: String) -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "application/json")], json)
}

/// Whether the request carries a live session's cookie.
fn admitted(views: &Views, headers: &HeaderMap) -> bool {
    views.arbiter_login.admitted(headers)
}

/// The value of cookie `name` in a request's headers.
fn cookie<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|c| c.trim().split_once('='))
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v)
}

/// The value of field `name` in an `application/x-www-form-urlencoded`
/// body.
fn form_field(body: &str, name: &str) -> Option<String> {
    let raw = body
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == name)?
        .1
        .replace('+', " ");
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

const NO_ARBITER_VIEW: &str = "<!doctype html><title>boardcast</title><p>There is no arbiter view: the daemon has no operator secret (<code>[control] secret</code>).</p>";
const ARBITER_LOGIN: &str = "<!doctype html><title>boardcast: arbiter view</title><form method=post action=/arbiter><p>The arbiter view is live and shows the alerts. <label>Arbiter password <input type=password name=key autocomplete=current-password autofocus></label> <button>Open</button></p></form>";

/// The longest login form read.
const MAX_LOGIN_BODY: usize = 4096;

/// `POST /arbiter` (field `key`): a right password opens a session. An
/// address with too many wrong passwords is refused for a while
/// ([`lockout`]), right password or not.
async fn arbiter_login(
    State(views): State<Arc<Views>>,
    headers: HeaderMap,
    extensions: axum::http::Extensions,
    body: axum::body::Bytes,
) -> Response {
    let Some(token) = &views.arbiter_login.token else {
        return (StatusCode::NOT_FOUND, Html(NO_ARBITER_VIEW)).into_response();
    };
    if !guard::same_site(&headers) {
        return guard::refused();
    }
    // The accept loop ([`crate::listener`]) tells each request its peer.
    let addr = extensions
        .get::<axum::extract::ConnectInfo<SocketAddr>>()
        .map(|p| p.0.ip());
    let login = &views.arbiter_login.login;
    if let Some(locked) = login.refused(addr) {
        return locked;
    }
    let key = (body.len() <= MAX_LOGIN_BODY)
        .then(|| std::str::from_utf8(&body).ok())
        .flatten()
        .and_then(|b| form_field(b, "key"));
    if !key.is_some_and(|k| login::same(&login::arbiter_token(k.trim()), token)) {
        // Guessing costs time, and soon the address.
        login.wrong(addr, "arbiter view").await;
        return (StatusCode::UNAUTHORIZED, Html(ARBITER_LOGIN)).into_response();
    }
    login.right(addr);
    login.open(views.audience.session, "/arbiter")
}

/// `GET /arbiter`: the arbiters' page for a live session, else the login
/// form (a password in the address, `?key=`, is not read).
async fn arbiter_page(State(views): State<Arc<Views>>, headers: HeaderMap) -> Response {
    if views.arbiter_login.token.is_none() {
        return (StatusCode::NOT_FOUND, Html(NO_ARBITER_VIEW)).into_response();
    }
    if !admitted(&views, &headers) {
        return (StatusCode::UNAUTHORIZED, Html(ARBITER_LOGIN)).into_response();
    }
    Html(page_for(true, 0, true)).into_response()
}

async fn arbiter_snapshot(
    State(views): State<Arc<Views>>,
    headers: HeaderMap,
    RawQuery(q): RawQuery,
) -> Response {
    if !admitted(&views, &headers) {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    match select::Selection::from_query(q.as_deref()) {
        Ok(s) => json_response(views.arbiter.snapshot_for(&s)).into_response(),
        Err(e) => bad_selection(&e),
    }
}

async fn arbiter_events(
    State(views): State<Arc<Views>>,
    headers: HeaderMap,
    RawQuery(q): RawQuery,
) -> Response {
    if !admitted(&views, &headers) {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    match select::Selection::from_query(q.as_deref()) {
        Ok(s) => stream_of(&views.arbiter_streams, &views.arbiter, s),
        Err(e) => bad_selection(&e),
    }
}

/// `GET /events`: the public view's stream, of the boards `?boards=`
/// names (every board without it) and the alerts `?alerts=` takes.
async fn events(State(views): State<Arc<Views>>, RawQuery(q): RawQuery) -> Response {
    match select::Selection::from_query(q.as_deref()) {
        Ok(s) => stream_of(&views.streams, &views.public, s),
        Err(e) => bad_selection(&e),
    }
}

/// A live stream of every board of `fanout` (see [`stream_of`]).
fn stream(slots: &Arc<tokio::sync::Semaphore>, fanout: &FanOut) -> Response {
    stream_of(slots, fanout, select::Selection::default())
}

/// A live stream of `fanout`, of what `selection` takes, while `slots` has
/// room (the public's `max_streams`, the arbiter view's own
/// `arbiter_streams`); else 503 (the page's `EventSource` tries again
/// later).
fn stream_of(
    slots: &Arc<tokio::sync::Semaphore>,
    fanout: &FanOut,
    selection: select::Selection,
) -> Response {
    let Ok(permit) = Arc::clone(slots).try_acquire_owned() else {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            [(header::RETRY_AFTER, "5")],
            "too many live streams; try again later\n",
        )
            .into_response();
    };
    // Subscribe before the snapshot, so nothing falls between the two (a
    // change may come twice; states replace and the page drops repeats).
    let rx = fanout.tx.subscribe();
    let first = SseEvent::default()
        .event("snapshot")
        .data(fanout.snapshot_for(&selection));
    let live = BroadcastStream::new(rx)
        // A lagging browser loses its stream (and reconnects).
        .map_while(|m| m.ok())
        // What the page does not show never leaves the server.
        .filter(move |m| selection.passes(m.board.as_deref(), m.alert))
        .map(|m| SseEvent::default().event(m.name).data(&*m.data));
    // The permit lives as long as the stream.
    let stream = tokio_stream::once(first).chain(live).map(move |e| {
        let _held = &permit;
        Ok::<_, Infallible>(e)
    });
    Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Alert, AlertKind, Event, EventKind};

    /// An alert of board `board` at `n` ms, numbered `n` in its message.
    pub(super) fn alert(board: &str, n: u64) -> Event {
        Event {
            board: board.into(),
            t_ms: n,
            game: crate::event::GameId::Chess,
            kind: EventKind::Alert(Alert {
                kind: AlertKind::Misplaced,
                side: None,
                law: Some("7.4".into()),
                message: format!("alert {n}"),
                cleared: false,
                evidence: None,
            }),
        }
    }

    /// One HTTP/1.1 request on a fresh connection: the status line's
    /// code, the headers and the body, as text.
    async fn get(addr: SocketAddr, path: &str, cookie: Option<&str>) -> (u16, String) {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
        let cookie = cookie
            .map(|c| format!("Cookie: {c}\r\n"))
            .unwrap_or_default();
        let req = format!("GET {path} HTTP/1.1\r\nHost: x\r\n{cookie}Connection: close\r\n\r\n");
        s.write_all(req.as_bytes()).await.unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).await.unwrap();
        let code = out[9..12].parse().unwrap();
        (code, out)
    }

    /// One form POST on a fresh connection: the code and the reply.
    async fn post(addr: SocketAddr, path: &str, body: &str) -> (u16, String) {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
        let req = format!(
            "POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        s.write_all(req.as_bytes()).await.unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).await.unwrap();
        (out[9..12].parse().unwrap(), out)
    }

    #[tokio::test]
    async fn the_arbiter_view_is_open_only_to_holders_of_the_secret() {
        let addr: SocketAddr = "127.0.0.1:0".parse().unwrap();
        let audience = Audience {
            delay_ms: 5_000,
            arbiter_secret: Some("s3cret word".into()),
            ..Audience::default()
        };
        let server = WebServer::start_for(addr, &["1".into()], audience, Limits::default())
            .await
            .unwrap();
        let addr = server.addr;
        let (code, page) = get(addr, "/", None).await;
        assert_eq!(code, 200);
        assert!(page.contains(r#"data-audience="public" data-delay-ms="5000""#));
        assert_eq!(get(addr, "/arbiter", None).await.0, 401);
        assert_eq!(get(addr, "/arbiter?key=guess", None).await.0, 401);
        assert_eq!(post(addr, "/arbiter", "key=guess").await.0, 401);
        assert_eq!(get(addr, "/arbiter/snapshot", None).await.0, 401);
        assert_eq!(get(addr, "/arbiter/events", None).await.0, 401);
        // The password in the address opens nothing.
        assert_eq!(get(addr, "/arbiter?key=s3cret%20word", None).await.0, 401);
        let (code, reply) = post(addr, "/arbiter", "key=s3cret+word").await;
        assert_eq!(code, 303, "{reply}");
        let cookie = reply
            .lines()
            .find_map(|l| l.strip_prefix("set-cookie: "))
            .and_then(|c| c.split(';').next())
            .expect("a cookie")
            .to_string();
        assert!(!cookie.contains("s3cret"), "the cookie is not the secret");
        let (code, page) = get(addr, "/arbiter", Some(&cookie)).await;
        assert_eq!(code, 200);
        assert!(
            page.contains(r#"data-audience="arbiter" data-delay-ms="0" data-base="/arbiter/""#)
        );
        server.arbiter_feed(0).event(&alert("1", 7));
        let (code, snap) = get(addr, "/arbiter/snapshot", Some(&cookie)).await;
        assert_eq!(code, 200);
        assert!(snap.contains("alert 7"));
        // The public fan-out never saw it.
        assert!(!get(addr, "/snapshot", None).await.1.contains("alert 7"));
        let wrong = format!(
            "{}={}",
            login::ARBITER_COOKIE,
            login::arbiter_token("s3cret word")
        );
        assert_eq!(get(addr, "/arbiter", Some(&wrong)).await.0, 401);
    }

    #[tokio::test]
    async fn without_a_secret_there_is_no_arbiter_view() {
        let addr: SocketAddr = "127.0.0.1:0".parse().unwrap();
        let server = WebServer::start(addr, &["1".into()]).await.unwrap();
        let (code, page) = get(server.addr, "/arbiter?key=", None).await;
        assert_eq!(code, 404);
        assert!(page.contains("no operator secret"));
        let (_, page) = get(server.addr, "/", None).await;
        assert!(page.contains(r#"data-audience="public" data-delay-ms="0""#));
    }
}
