//! An imitation of DGT LiveChess 2's local API (`[livechess] listen`), so
//! the tools venues already use (lichess's and chess.com's DGT pages,
//! DgtAngel, Python and Node clients) read boardcast's boards unchanged.
//! See docs/livechess.md for what is imitated and what is not.
//!
//! The server follows the boards through what the daemon publishes: it is
//! one more MQTT client of the bridge (its own client id), subscribed to
//! each board's retained `state` and its `event` topic, so it sees exactly
//! what every other consumer sees. Each board's [`api::BoardView`] lives in
//! the [`BoardViews`]; a change is fanned out on a `tokio::sync::broadcast`
//! channel to every WebSocket, which sends its feeds' frames (see
//! [`socket`]: worked out off the runtime's workers, changes coalesced, the
//! work per socket bounded). A slow client never blocks the others, nor the
//! boards: one that falls behind recomputes its frames from the current
//! views.
//!
//! Routes: `GET /api/v1.0/eboards`, `/tournaments`, `/tournament/{uuid}`,
//! `/round/{uuid}/{index}`, `/game/{uuid}`, and the WebSocket
//! `/api/v1.0` (calls `eboards`, `sources`, `subscribe`, `unsubscribe`,
//! `call` with `setup` or `flip`).
//!
//! Hardened like the live page ([`crate::listener`], `[livechess]`): a cap
//! on connections (WebSockets included), a header timeout, messages of at
//! most 64 KiB, at most `max_subscriptions` feeds per socket and
//! `max_setups` of them with a setup, a `Host` the listener answers to
//! (no DNS rebinding), and an `Origin` allow-list for the WebSocket
//! (lichess.org and chess.com by default; a browser extension such as
//! DgtAngel by its id; a client that sends no `Origin`, a non-browser
//! tool, is let in). Every message from the broker is checked as the
//! hub checks it ([`crate::games::position::check_incoming_state`],
//! [`crate::games::position::check_incoming_event`]) before it reaches a
//! view; one that fails is dropped and logged (rate limited).

pub mod api;
pub mod config;
mod socket;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{FromRef, Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use rumqttc::{AsyncClient, LastWill, QoS};
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::broadcast;
use tokio::task::JoinHandle;
use tracing::{debug, info, warn};

use crate::games::position::IncomingError;
use crate::listener::{Limits, LocalAddr, SocketLimits};
use crate::mqtt::config::{Bridge, Mqtt};
use crate::mqtt::{self, MqttError, Topics};
use crate::setup::config::Board;
use crate::tournament::EventInfo;
use api::{BoardView, TournamentInfo};

/// What the API serves and follows: the daemon's bridge, broker, event
/// and boards, and its own limits (`[livechess]`).
#[derive(Clone, Copy, Debug)]
pub struct Served<'a> {
    /// This process (`[bridge]`): names the tournament and the serials.
    pub bridge: &'a Bridge,
    /// The broker the boards' events are followed on.
    pub mqtt: &'a Mqtt,
    /// The event around the boards.
    pub event: &'a EventInfo,
    /// The boards, in file order.
    pub boards: &'a [Board],
    /// The API's limits.
    pub limits: &'a (Limits, SocketLimits),
}

/// Changes a client may fall behind before it recomputes all its feeds.
const CHANNEL: usize = 1024;

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Every board's view and the fan-out of their changes.
#[derive(Debug)]
pub struct BoardViews {
    views: Mutex<Vec<BoardView>>,
    info: TournamentInfo,
    tx: broadcast::Sender<usize>,
    /// The rate limit of the log of dropped messages.
    drops: Mutex<crate::text::Drops>,
}

/// A board's event as the hub takes it (the event itself is read again
/// by its view).
fn checked_event(v: &Value) -> Result<(), IncomingError> {
    crate::games::position::check_incoming_event(v).map(|_| ())
}

impl BoardViews {
    /// A hub for `views` (configuration order) in the event `info`.
    pub fn new(views: Vec<BoardView>, info: TournamentInfo) -> Arc<BoardViews> {
        let (tx, _) = broadcast::channel(CHANNEL);
        Arc::new(BoardViews {
            views: Mutex::new(views),
            info,
            tx,
            drops: Mutex::new(crate::text::Drops::default()),
        })
    }

    /// The hub for the boards `served`: serial numbers from the
    /// configuration, else derived from the bridge name and board id.
    pub fn for_boards(served: Served<'_>) -> Arc<BoardViews> {
        let bridge = &served.bridge.name;
        let mut serials: Vec<String> = Vec::new();
        let views = served
            .boards
            .iter()
            .map(|b| {
                let mut serial = api::serial_for(bridge, &b.id, b.serial.as_deref());
                // Two boards never share a serial number.
                let mut n = 0;
                while serials.contains(&serial) {
                    n += 1;
                    serial = api::serial_for(bridge, &format!("{}#{n}", b.id), None);
                }
                serials.push(serial.clone());
                BoardView::new(&b.id, serial, b.number, served.event.round)
            })
            .collect();
        let e = served.event;
        // "?" (unknown) falls back to `[bridge] event`, then "boardcast".
        let name = [e.name.as_str(), served.bridge.event.as_str()]
            .into_iter()
            .find(|n| *n != "?" && !n.is_empty())
            .unwrap_or("boardcast")
            .to_string();
        let date = if e.date.contains('?') {
            crate::wall::pgn_date()
        } else {
            e.date.clone()
        };
        let info = TournamentInfo {
            uuid: api::uuid_for(&format!("{bridge}/{name}")),
            name,
            site: e.site.clone(),
            date,
            round: e.round,
        };
        BoardViews::new(views, info)
    }

    fn lock(&self) -> MutexGuard<'_, Vec<BoardView>> {
        self.views.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A copy of every view.
    pub fn views(&self) -> Vec<BoardView> {
        self.lock().clone()
    }

    /// A copy of the view of board `index`.
    pub fn view(&self, index: usize) -> Option<BoardView> {
        self.lock().get(index).cloned()
    }

    /// Board `id`'s retained state (JSON) arrived.
    pub fn state(&self, id: &str, json: &[u8]) {
        self.apply(
            id,
            json,
            crate::games::position::check_incoming_state,
            |v, j, t| v.apply_state(j, t),
        );
    }

    /// Board `id` published an event (JSON).
    pub fn event(&self, id: &str, json: &[u8]) {
        self.apply(id, json, checked_event, |v, j, t| v.apply_event(j, t));
    }

    /// Logs a dropped message, at most a few lines per window.
    fn dropped(&self, id: &str, why: &str) {
        let mut d = self.drops.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(suppressed) = d.note(now_ms()) {
            warn!(board = ?id, suppressed, "livechess: dropped a message: {why}");
        }
    }

    fn apply(
        &self,
        id: &str,
        json: &[u8],
        check: fn(&Value) -> Result<(), IncomingError>,
        f: impl FnOnce(&mut BoardView, &Value, u64),
    ) {
        if json.len() > crate::text::MAX_MESSAGE {
            return self.dropped(id, &format!("{} bytes", json.len()));
        }
        let Ok(value) = serde_json::from_slice::<Value>(json) else {
            debug!(board = id, "livechess: ignored a message that is not JSON");
            return;
        };
        if let Err(e) = check(&value) {
            return self.dropped(id, &e.to_string());
        }
        // LiveChess speaks chess: a draughts or xiangqi board's states
        // (`game_type`) and events (`game`) are not its business, and the
        // board stays idle in its list.
        let game = value
            .get("game_type")
            .or_else(|| value.get("game"))
            .and_then(Value::as_str);
        if game.is_some_and(|g| g != "chess") {
            return;
        }
        let index = {
            let mut views = self.lock();
            let Some(i) = views.iter().position(|v| v.id == id) else {
                return;
            };
            f(&mut views[i], &value, now_ms());
            i
        };
        let _ = self.tx.send(index);
    }

    fn flip(&self, index: usize, flip: bool) {
        self.lock()[index].flip = flip;
        let _ = self.tx.send(index);
    }
}

/// The running LiveChess imitation; dropping it stops the server and its
/// MQTT follower.
#[derive(Debug)]
pub struct LiveChessServer {
    /// The address bound.
    pub addr: SocketAddr,
    /// The boards' views.
    pub hub: Arc<BoardViews>,
    server: JoinHandle<()>,
    follower: JoinHandle<()>,
}

impl Drop for LiveChessServer {
    fn drop(&mut self) {
        self.server.abort();
        self.follower.abort();
    }
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum LiveChessError {
    /// The address could not be bound.
    #[error("{addr}: {error}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        error: std::io::Error,
    },
    /// The MQTT settings cannot be used.
    #[error("mqtt: {0}")]
    Mqtt(MqttError),
}

impl From<MqttError> for LiveChessError {
    fn from(e: MqttError) -> Self {
        LiveChessError::Mqtt(e)
    }
}

impl LiveChessServer {
    /// Serves the API on `addr` for the boards `served`, following them
    /// on the broker it names.
    pub async fn start(
        addr: SocketAddr,
        served: Served<'_>,
    ) -> Result<LiveChessServer, LiveChessError> {
        let hub = BoardViews::for_boards(served);
        let topics = Topics::new(&served.mqtt.prefix, &served.bridge.name);
        let mut options = mqtt::options(served.mqtt, &topics)?;
        // Design: a random part, so that two processes of one
        // configuration never knock each other's follower off the broker
        // (the clean session needs no stable id).
        let client_id =
            mqtt::link::unique_client_id(&format!("{}-livechess", served.mqtt.client_id));
        options.set_client_id(client_id);
        // Not the bridge's will: this client going away says nothing
        // about the boards.
        options.set_last_will(LastWill::new(
            format!("{}/livechess", topics.bridge_status()),
            "offline",
            QoS::AtMostOnce,
            false,
        ));
        let listener = TcpListener::bind(addr)
            .await
            .map_err(|error| LiveChessError::Bind { addr, error })?;
        let local = listener
            .local_addr()
            .map_err(|error| LiveChessError::Bind { addr, error })?;
        let ids: Vec<String> = served.boards.iter().map(|b| b.id.clone()).collect();
        let backoff = crate::backoff::Backoff::new(served.mqtt.reconnect);
        let follower = tokio::spawn(follow(options, backoff, topics, ids, Arc::clone(&hub)));
        let (limits, socket) = served.limits.clone();
        let api = Api {
            hub: Arc::clone(&hub),
            sockets: Arc::new(tokio::sync::Semaphore::new(limits.max_connections)),
            socket: Arc::new(socket),
        };
        let server = tokio::spawn(serve(listener, api, limits));
        info!(url = %format!("ws://{local}/api/v1.0"), "LiveChess API");
        Ok(LiveChessServer {
            addr: local,
            hub,
            server,
            follower,
        })
    }
}

/// Follows the boards' state and event topics into `hub`, reconnecting
/// forever with capped exponential backoff (reset only after a connection
/// that lasted, see [`mqtt::link::Health`]); an outage, and a broker that
/// keeps closing the session, are warned about (rate limited).
async fn follow(
    options: rumqttc::MqttOptions,
    mut backoff: crate::backoff::Backoff,
    topics: Topics,
    ids: Vec<String>,
    hub: Arc<BoardViews>,
) {
    let client_id = options.client_id();
    let (client, mut events) = AsyncClient::new(options, 64);
    let mut health = mqtt::link::Health::default();
    let routes: Vec<(String, String, String)> = ids
        .iter()
        .map(|id| (id.clone(), topics.state(id), topics.event(id)))
        .collect();
    loop {
        match events.poll().await {
            Ok(rumqttc::Event::Incoming(rumqttc::Packet::ConnAck(_))) => {
                let failures = health.connected(tokio::time::Instant::now());
                debug!(
                    failed_attempts = failures,
                    "livechess: connected to the broker"
                );
                for (_, state, event) in &routes {
                    for t in [state, event] {
                        if let Err(e) = client.try_subscribe(t.clone(), QoS::AtMostOnce) {
                            warn!(error = %e, "livechess: could not subscribe");
                        }
                    }
                }
            }
            Ok(rumqttc::Event::Incoming(rumqttc::Packet::Publish(p))) => {
                for (id, state, event) in &routes {
                    if p.topic == *state {
                        hub.state(id, &p.payload);
                    } else if p.topic == *event {
                        hub.event(id, &p.payload);
                    }
                }
            }
            Ok(_) => {}
            Err(e) => {
                let refused = matches!(e, rumqttc::ConnectionError::ConnectionRefused(_));
                let (reset, report) = health.failed(tokio::time::Instant::now(), refused);
                if reset {
                    backoff.reset();
                }
                report.log("livechess", &client_id, &e, health.failures());
                tokio::time::sleep(backoff.next_delay()).await;
            }
        }
    }
}

/// What the routes share: the views, and the WebSockets' limits.
#[derive(Clone, Debug)]
struct Api {
    hub: Arc<BoardViews>,
    socket: Arc<SocketLimits>,
    /// WebSockets open at once (after the upgrade they no longer hold a
    /// connection slot of the accept loop).
    sockets: Arc<tokio::sync::Semaphore>,
}

impl FromRef<Api> for Arc<BoardViews> {
    fn from_ref(api: &Api) -> Arc<BoardViews> {
        Arc::clone(&api.hub)
    }
}

async fn serve(listener: TcpListener, api: Api, limits: Limits) {
    let app = Router::new()
        .route("/api/v1.0", get(socket))
        .route("/api/v1.0/", get(socket))
        .route("/api/v1.0/eboards", get(eboards))
        .route("/api/v1.0/tournaments", get(tournaments))
        .route("/api/v1.0/tournament/{uuid}", get(tournament))
        .route("/api/v1.0/round/{uuid}/{index}", get(round))
        .route("/api/v1.0/game/{uuid}", get(game))
        .with_state(api);
    crate::listener::serve_limited(listener, app, limits, "LiveChess API").await;
}

fn json(status: StatusCode, body: String) -> Response {
    (
        status,
        [
            (header::CONTENT_TYPE, "application/json"),
            // Browser pages on other sites read it too.
            (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
        ],
        body,
    )
        .into_response()
}

fn ok<T: serde::Serialize>(body: &T) -> Response {
    json(
        StatusCode::OK,
        serde_json::to_string(body).expect("serialises"),
    )
}

fn not_found(what: &str) -> Response {
    json(
        StatusCode::NOT_FOUND,
        serde_json::json!({ "message": format!("no such {what}") }).to_string(),
    )
}

async fn eboards(State(hub): State<Arc<BoardViews>>) -> Response {
    let boards: Vec<_> = hub.views().iter().map(api::eboard).collect();
    ok(&boards)
}

async fn tournaments(State(hub): State<Arc<BoardViews>>) -> Response {
    json(StatusCode::OK, api::tournaments(&hub.info, &hub.views()))
}

async fn tournament(State(hub): State<Arc<BoardViews>>, Path(uuid): Path<String>) -> Response {
    if uuid != hub.info.uuid {
        return not_found("tournament");
    }
    json(StatusCode::OK, api::tournament(&hub.info, &hub.views()))
}

async fn round(
    State(hub): State<Arc<BoardViews>>,
    Path((uuid, index)): Path<(String, u32)>,
) -> Response {
    let views = hub.views();
    if uuid != hub.info.uuid || index >= api::rounds(&hub.info, &views) {
        return not_found("round");
    }
    json(StatusCode::OK, api::round(&hub.info, &views, index))
}

async fn game(State(hub): State<Arc<BoardViews>>, Path(uuid): Path<String>) -> Response {
    match api::game(&hub.info, &hub.views(), &uuid) {
        Some(g) => json(StatusCode::OK, g),
        None => not_found("game"),
    }
}

async fn socket(
    ws: WebSocketUpgrade,
    State(api): State<Api>,
    extensions: axum::http::Extensions,
    headers: HeaderMap,
) -> Response {
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    // The accept loop ([`crate::listener`]) tells each request the address
    // it reached.
    let local = extensions
        .get::<LocalAddr>()
        .map_or(SocketAddr::from(([127, 0, 0, 1], 0)), |l| l.0);
    if !api.socket.answers_to(host, local) {
        let host = host.unwrap_or("(none)");
        api.hub
            .dropped("-", &format!("WebSocket for Host {host:?} refused"));
        return (
            StatusCode::FORBIDDEN,
            format!("Host {host:?} is not a name this listener answers to ([livechess] hosts)\n"),
        )
            .into_response();
    }
    // Every `Origin` (a client may send two) must be let in.
    let refused = headers
        .get_all(header::ORIGIN)
        .iter()
        .map(|o| o.to_str().unwrap_or("?"))
        .find(|o| !api.socket.allows_at(Some(o), host, local));
    if let Some(origin) = refused {
        api.hub
            .dropped("-", &format!("WebSocket from origin {origin:?} refused"));
        return (StatusCode::FORBIDDEN, "origin not allowed\n").into_response();
    }
    let Ok(slot) = Arc::clone(&api.sockets).try_acquire_owned() else {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            [(header::RETRY_AFTER, "5")],
            "too many WebSockets; try again later\n",
        )
            .into_response();
    };
    let max = api.socket.max_message;
    ws.max_message_size(max)
        .max_frame_size(max)
        .on_upgrade(move |ws| async move {
            socket::client(ws, api.hub, api.socket).await;
            drop(slot);
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_forged_move_from_the_broker_never_reaches_a_view() {
        let hub = BoardViews::new(
            vec![BoardView::new("1", "11111".into(), 1, 1)],
            TournamentInfo::default(),
        );
        hub.state(
            "1",
            br#"{"status":"connected","fen":"8/8/8/8/8/8/8/K6k w - - 0 1","game":1,"moves":["e5

[Event "FAKE"]"],"round":4000000000}"#,
        );
        assert_eq!(hub.views()[0], BoardView::new("1", "11111".into(), 1, 1));
    }
}
