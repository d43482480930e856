//! The live page: every board and the arbiter's alerts in a browser,
//! served by the daemon over HTTP (`[web] listen`).
//!
//! The boards feed a [`Hub`] with the same events and retained state they
//! hand the MQTT outbox (see [`crate::port::live::LiveBoard::with_web`]).
//! The hub keeps a snapshot (each board's state and last clock, the latest
//! alerts) and fans every change out on a `tokio::sync::broadcast`
//! channel. Each browser gets the page (`GET /`, built into the binary),
//! then a server-sent event stream (`GET /events`): first a `snapshot`,
//! then `state` and `event` messages as they happen.
//!
//! Design: a slow browser never blocks a board. Boards only ever write to
//! the broadcast channel, which never waits; a browser that falls behind by
//! more than the channel holds loses its stream, and its `EventSource`
//! reconnects by itself and starts again from a fresh snapshot.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};

use axum::Router;
use axum::extract::State;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{Html, IntoResponse};
use axum::routing::get;
use serde::Serialize;
use tokio::net::TcpListener;
use tokio::sync::broadcast;
use tokio::task::JoinHandle;
use tokio_stream::StreamExt;
use tokio_stream::wrappers::BroadcastStream;
use tracing::{debug, info};

use crate::event::{Event, EventKind};

/// The page: HTML, CSS and script in one file, no build step.
pub const PAGE: &str = include_str!("page.html");

/// Alerts kept for browsers that connect later.
const ALERTS_KEPT: usize = 200;
/// Messages a browser may fall behind before it loses its stream.
const CHANNEL: usize = 4096;

/// The live page's limits (`[web]` in the configuration).
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

/// One message to the browsers.
#[derive(Clone, Debug)]
struct Message {
    /// The SSE event name: `state` or `event`.
    name: &'static str,
    /// JSON.
    data: Arc<str>,
}

#[derive(Debug, Default, Serialize)]
struct Snapshot {
    boards: Vec<String>,
    /// Each board's state JSON (as published on MQTT), parsed.
    states: Vec<Option<serde_json::Value>>,
    /// Each board's last clock event.
    clocks: Vec<Option<serde_json::Value>>,
    /// The latest alerts, oldest first.
    alerts: VecDeque<serde_json::Value>,
}

/// The fan-out point between the boards and the browsers.
#[derive(Debug)]
pub struct Hub {
    tx: broadcast::Sender<Message>,
    snapshot: Mutex<Snapshot>,
}

impl Hub {
    /// A hub for the boards `ids` (in configuration order).
    pub fn new(ids: &[String]) -> Arc<Hub> {
        let (tx, _) = broadcast::channel(CHANNEL);
        Arc::new(Hub {
            tx,
            snapshot: Mutex::new(Snapshot {
                boards: ids.to_vec(),
                states: vec![None; ids.len()],
                clocks: vec![None; ids.len()],
                alerts: VecDeque::new(),
            }),
        })
    }

    /// The feed of board `index`.
    pub fn feed(self: &Arc<Self>, index: usize) -> BoardFeed {
        BoardFeed {
            hub: Arc::clone(self),
            index,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Snapshot> {
        self.snapshot.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn snapshot_json(&self) -> String {
        serde_json::to_string(&*self.lock()).expect("snapshots serialise")
    }

    fn send(&self, name: &'static str, data: String) {
        // No receiver is not an error: nobody is watching.
        let _ = self.tx.send(Message {
            name,
            data: data.into(),
        });
    }
}

/// One board's way into the [`Hub`]. Never blocks.
#[derive(Clone, Debug)]
pub struct BoardFeed {
    hub: Arc<Hub>,
    index: usize,
}

impl BoardFeed {
    /// The board's state changed (`json`: the retained state message).
    pub fn state(&self, json: &str) {
        if let Ok(v) = serde_json::from_str(json) {
            self.hub.lock().states[self.index] = Some(v);
        }
        self.hub.send("state", json.to_string());
    }

    /// The board published an event.
    pub fn event(&self, event: &Event) {
        let json = event.to_json();
        match &event.kind {
            EventKind::Clock { .. } => {
                self.hub.lock().clocks[self.index] = serde_json::from_str(&json).ok();
            }
            EventKind::Alert(_) => {
                let mut s = self.hub.lock();
                if s.alerts.len() >= ALERTS_KEPT {
                    s.alerts.pop_front();
                }
                if let Ok(v) = serde_json::from_str(&json) {
                    s.alerts.push_back(v);
                }
            }
            EventKind::GameStart { .. } => self.hub.lock().clocks[self.index] = None,
            _ => {}
        }
        self.hub.send("event", json);
    }
}

/// The running web server; dropping it stops the server.
#[derive(Debug)]
pub struct WebServer {
    /// The address bound.
    pub addr: SocketAddr,
    /// The hub the boards feed.
    pub hub: Arc<Hub>,
    task: JoinHandle<()>,
}

impl WebServer {
    /// Serves the page for the boards `ids` on `addr`.
    pub async fn start(addr: SocketAddr, ids: &[String]) -> std::io::Result<WebServer> {
        WebServer::start_with(addr, ids, Limits::default()).await
    }

    /// [`WebServer::start`] with `limits`.
    pub async fn start_with(
        addr: SocketAddr,
        ids: &[String],
        limits: Limits,
    ) -> std::io::Result<WebServer> {
        let hub = Hub::new(ids);
        let (addr, task) = serve_with(addr, Arc::clone(&hub), limits).await?;
        Ok(WebServer { addr, hub, task })
    }

    /// The feed of board `index`.
    pub fn feed(&self, index: usize) -> BoardFeed {
        self.hub.feed(index)
    }
}

impl Drop for WebServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Binds `addr` and serves the page and the event stream from `hub` until
/// the returned task is aborted. Returns the address bound (useful with
/// port 0).
pub async fn serve(
    addr: SocketAddr,
    hub: Arc<Hub>,
) -> std::io::Result<(SocketAddr, JoinHandle<()>)> {
    serve_with(addr, hub, Limits::default()).await
}

/// [`serve`] with `limits`.
pub async fn serve_with(
    addr: SocketAddr,
    hub: Arc<Hub>,
    limits: Limits,
) -> std::io::Result<(SocketAddr, JoinHandle<()>)> {
    let listener = TcpListener::bind(addr).await?;
    let local = listener.local_addr()?;
    let streams = Arc::new(tokio::sync::Semaphore::new(limits.max_streams));
    let app = Router::new()
        .route("/", get(page))
        .route("/events", get(events))
        .route("/snapshot", get(snapshot))
        .with_state(Served { hub, streams });
    info!(url = %format!("http://{local}/"), ?limits, "live page");
    let task = tokio::spawn(accept_loop(listener, app, limits));
    Ok((local, task))
}

/// Accepts connections up to the cap and serves each with a header
/// timeout.
async fn accept_loop(listener: TcpListener, app: Router, limits: Limits) {
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
                tracing::warn!(max = limits.max_connections, %peer, "live page: too many connections; closing new ones");
                warned = true;
            }
            drop(stream);
            continue;
        };
        warned = false;
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        tokio::spawn(async move {
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(limits.header_timeout)
                .max_buf_size(64 * 1024);
            if let Err(e) = builder
                .serve_connection(TokioIo::new(stream), service)
                .await
            {
                debug!(%peer, error = %e, "live page connection ended");
            }
            drop(slot);
        });
    }
}

/// What the handlers share.
#[derive(Clone, Debug)]
struct Served {
    hub: Arc<Hub>,
    streams: Arc<tokio::sync::Semaphore>,
}

async fn page() -> Html<&'static str> {
    Html(PAGE)
}

async fn snapshot(State(Served { hub, .. }): State<Served>) -> impl IntoResponse {
    (
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        hub.snapshot_json(),
    )
}

async fn events(State(Served { hub, streams }): State<Served>) -> axum::response::Response {
    let Ok(permit) = streams.try_acquire_owned() else {
        return (
            axum::http::StatusCode::SERVICE_UNAVAILABLE,
            [(axum::http::header::RETRY_AFTER, "5")],
            "too many live streams; try again later\n",
        )
            .into_response();
    };
    // Subscribe before the snapshot, so nothing falls between the two (a
    // change may come twice; states replace and the page drops repeats).
    let rx = hub.tx.subscribe();
    let first = SseEvent::default()
        .event("snapshot")
        .data(hub.snapshot_json());
    let live = BroadcastStream::new(rx)
        // A lagging browser loses its stream (and reconnects).
        .map_while(|m| m.ok())
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
    use crate::event::{Alert, AlertKind};

    fn alert(board: &str, n: u64) -> Event {
        Event {
            board: board.into(),
            t_ms: n,
            kind: EventKind::Alert(Alert {
                kind: AlertKind::Misplaced,
                side: None,
                law: Some("7.4".into()),
                message: format!("alert {n}"),
                cleared: false,
            }),
        }
    }

    #[test]
    fn the_snapshot_keeps_states_and_the_latest_alerts() {
        let hub = Hub::new(&["1".into(), "2".into()]);
        let feed = hub.feed(1);
        feed.state(r#"{"board":"2","fen":"x"}"#);
        for n in 0..(ALERTS_KEPT as u64 + 5) {
            feed.event(&alert("2", n));
        }
        let s: serde_json::Value = serde_json::from_str(&hub.snapshot_json()).unwrap();
        assert_eq!(s["states"][0], serde_json::Value::Null);
        assert_eq!(s["states"][1]["fen"], "x");
        let alerts = s["alerts"].as_array().unwrap();
        assert_eq!(alerts.len(), ALERTS_KEPT);
        assert_eq!(alerts[0]["message"], "alert 5");
    }

    #[test]
    fn a_board_never_waits_for_a_browser_that_does_not_read() {
        let hub = Hub::new(&["1".into()]);
        let mut rx = hub.tx.subscribe();
        let feed = hub.feed(0);
        // Far more than the channel holds: every send returns at once.
        for n in 0..(CHANNEL as u64 * 2) {
            feed.event(&alert("1", n));
        }
        assert!(matches!(
            rx.try_recv(),
            Err(broadcast::error::TryRecvError::Lagged(_))
        ));
    }
}
