//! The operator's desk on the live page's listener (`/desk`): the round
//! run from a browser (see [`crate::desk`] and docs/operator.md).
//!
//! Its own login: the desk password (`[desk] password`, or chosen on the
//! desk at first run from the machine itself, kept hashed in the recorder
//! folder); never the operator secret nor the arbiter view's password. A
//! right password gets a session cookie (`boardcast_desk`, `HttpOnly`,
//! `SameSite=Strict`); wrong ones lock the address out for a while, as the
//! arbiter view's do. Every POST must come from the page itself
//! ([`super::guard`]).
//!
//! The desk's corrections go to the boards as operator commands through
//! the same queue as the arbiter view's decisions: the same checks, the
//! same record in the capture (with `by`), the same acknowledgement.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;

use super::tools::{DECISION_WAIT, outcome};
use super::{Views, form_field, json_response};
use crate::control::{OperatorCommand, Request};
use crate::desk::live::Desk;
use crate::tournament::Player;

/// The page, built into the binary.
pub const DESK_PAGE: &str = include_str!("desk.html");
/// The desk's session cookie.
const DESK_COOKIE: &str = "boardcast_desk";

/// The desk's routes.
pub(super) fn routes() -> Router<Arc<Views>> {
    Router::new()
        .route("/desk", get(page))
        .route("/desk/login", post(login))
        .route("/desk/password", post(choose_password))
        .route("/desk/logout", post(logout))
        .route("/desk/state", get(state))
        .route("/desk/events", get(events))
        .route(crate::listener::UPLOAD_PATH, post(upload))
        .route("/desk/trf/configured", post(load_configured))
        .route("/desk/round", post(choose_round))
        .route("/desk/assign", post(assign))
        .route("/desk/typed", post(typed))
        .route("/desk/start", post(start))
        .route("/desk/command", post(command))
        .route("/desk/round.pgn", get(round_pgn))
        .route("/desk/results.trf", get(results_trf))
        .route("/desk/report", get(report))
}

const NO_DESK: &str = "<!doctype html><title>boardcast desk</title><p>There is no operator's desk: the daemon serves it beside its boards (<code>boardcast run</code> with <code>[web] listen</code>).</p>";

fn login_form(message: &str) -> String {
    format!(
        "<!doctype html><meta name=viewport content=\"width=device-width, initial-scale=1\"><title>boardcast desk</title>\
<style>body{{font:16px system-ui,sans-serif;background:#14171c;color:#e8eaed;display:grid;place-items:center;min-height:90vh}}form{{background:#1e232b;padding:1.5rem;border-radius:10px;max-width:28rem}}input,button{{font:inherit;padding:.4rem;margin:.3rem 0}}p.m{{color:#f85149}}</style>\
<form method=post action=/desk/login><h1>boardcast desk</h1><p>The operator's desk runs the round: boards, pairings, corrections, results.</p>{message}\
<label>Desk password<br><input id=desk-key type=password name=key autocomplete=current-password autofocus></label><br><button id=desk-login>Open the desk</button></form>"
    )
}

fn first_run_form(message: &str) -> String {
    format!(
        "<!doctype html><meta name=viewport content=\"width=device-width, initial-scale=1\"><title>boardcast desk: first run</title>\
<style>body{{font:16px system-ui,sans-serif;background:#14171c;color:#e8eaed;display:grid;place-items:center;min-height:90vh}}form{{background:#1e232b;padding:1.5rem;border-radius:10px;max-width:30rem}}input,button{{font:inherit;padding:.4rem;margin:.3rem 0}}p.m{{color:#f85149}}</style>\
<form method=post action=/desk/password><h1>boardcast desk: first run</h1><p>Choose the desk password (at least {} characters). Whoever knows it runs the round from this page; keep it from the players and the public.</p>{message}\
<label>Desk password<br><input id=desk-new type=password name=key autocomplete=new-password autofocus></label><br>\
<label>Once more<br><input id=desk-again type=password name=again autocomplete=new-password></label><br><button id=desk-choose>Choose it and open the desk</button></form>",
        crate::desk::MIN_PASSWORD_CHARS
    )
}

fn message(text: &str) -> String {
    format!("<p class=m>{}</p>", escape(text))
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The desk, once the daemon has set it up.
fn desk(views: &Views) -> Option<Arc<Desk>> {
    views.desk.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Whether the request carries a live desk session.
fn admitted(views: &Views, headers: &HeaderMap) -> bool {
    super::cookie(headers, DESK_COOKIE).is_some_and(|v| views.desk_sessions.valid(v))
}

fn peer(extensions: &axum::http::Extensions) -> Option<std::net::IpAddr> {
    extensions
        .get::<axum::extract::ConnectInfo<SocketAddr>>()
        .map(|p| p.0.ip())
}

/// What every desk action checks first: a desk, a session, and (for a
/// POST) a request from the page itself.
fn gate(views: &Views, headers: &HeaderMap, post: bool) -> Result<Arc<Desk>, Refused> {
    let Some(desk) = desk(views) else {
        return Err(Refused(
            StatusCode::NOT_FOUND,
            "there is no operator's desk here".into(),
        ));
    };
    if post && !super::guard::same_site(headers) {
        return Err(Refused(StatusCode::FORBIDDEN, super::guard::REFUSED.into()));
    }
    if !admitted(views, headers) {
        return Err(Refused(
            StatusCode::UNAUTHORIZED,
            "the desk's login is needed".into(),
        ));
    }
    Ok(desk)
}

/// A refusal: its status and one line saying why.
#[derive(Debug)]
struct Refused(StatusCode, String);

impl IntoResponse for Refused {
    fn into_response(self) -> Response {
        (self.0, format!("{}\n", self.1)).into_response()
    }
}

fn fail(code: StatusCode, text: impl std::fmt::Display) -> Response {
    Refused(code, text.to_string()).into_response()
}

fn form(body: &[u8]) -> Result<&str, Refused> {
    std::str::from_utf8(body)
        .map_err(|_| Refused(StatusCode::BAD_REQUEST, "the form is not text".into()))
}

/// `GET /desk`: the desk for a live session, else its login (or, at first
/// run, the form that chooses the password).
async fn page(State(views): State<Arc<Views>>, headers: HeaderMap) -> Response {
    let Some(desk) = desk(&views) else {
        return (StatusCode::NOT_FOUND, Html(NO_DESK)).into_response();
    };
    if admitted(&views, &headers) {
        return Html(DESK_PAGE).into_response();
    }
    let form = if desk.has_password() {
        login_form("")
    } else {
        first_run_form("")
    };
    (StatusCode::UNAUTHORIZED, Html(form)).into_response()
}

/// A new desk session: the cookie, and back to the desk.
fn open_session(views: &Views) -> Response {
    let ttl = views.audience.session;
    let session = views.desk_sessions.open(ttl);
    let cookie = format!(
        "{DESK_COOKIE}={session}; HttpOnly; SameSite=Strict; Path=/desk; Max-Age={}",
        ttl.as_secs()
    );
    (
        StatusCode::SEE_OTHER,
        [
            (header::SET_COOKIE, cookie),
            (header::LOCATION, "/desk".into()),
        ],
    )
        .into_response()
}

/// `POST /desk/login` (field `key`).
async fn login(
    State(views): State<Arc<Views>>,
    headers: HeaderMap,
    extensions: axum::http::Extensions,
    body: axum::body::Bytes,
) -> Response {
    let Some(desk) = desk(&views) else {
        return (StatusCode::NOT_FOUND, Html(NO_DESK)).into_response();
    };
    if !super::guard::same_site(&headers) {
        return super::guard::refused();
    }
    let ip = peer(&extensions);
    if let Some(ip) = ip
        && let Err(left) = views.desk_lockout().check(ip, std::time::Instant::now())
    {
        return (
            StatusCode::TOO_MANY_REQUESTS,
            [(header::RETRY_AFTER, left.as_secs().max(1).to_string())],
            "too many wrong passwords from this address; try again later\n",
        )
            .into_response();
    }
    let key = std::str::from_utf8(&body)
        .ok()
        .and_then(|b| form_field(b, "key"));
    let right = match key {
        Some(k) => {
            let desk = Arc::clone(&desk);
            // PBKDF2 takes a moment: off the reactor.
            tokio::task::spawn_blocking(move || desk.verify(k.trim()))
                .await
                .unwrap_or(false)
        }
        None => false,
    };
    if !right {
        if let Some(ip) = ip
            && views.desk_lockout().failed(ip, std::time::Instant::now())
        {
            tracing::warn!(%ip, "desk: too many wrong passwords; this address is locked out for a while");
        }
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        tracing::info!("desk: a wrong password");
        return (
            StatusCode::UNAUTHORIZED,
            Html(login_form(&message("That is not the desk password."))),
        )
            .into_response();
    }
    if let Some(ip) = ip {
        views.desk_lockout().succeeded(ip);
    }
    desk.record(&by(&extensions), "login", "");
    open_session(&views)
}

/// `POST /desk/password` (fields `key`, `again`): the first run's
/// password, chosen from the machine that runs boardcast (a loopback
/// address) only; refused once one is set.
async fn choose_password(
    State(views): State<Arc<Views>>,
    headers: HeaderMap,
    extensions: axum::http::Extensions,
    body: axum::body::Bytes,
) -> Response {
    let Some(desk) = desk(&views) else {
        return (StatusCode::NOT_FOUND, Html(NO_DESK)).into_response();
    };
    if !super::guard::same_site(&headers) {
        return super::guard::refused();
    }
    if desk.has_password() {
        return (
            StatusCode::CONFLICT,
            Html(login_form(&message("The desk password is set already."))),
        )
            .into_response();
    }
    if !peer(&extensions).is_some_and(|ip| ip.is_loopback()) {
        return (
            StatusCode::FORBIDDEN,
            Html(first_run_form(&message(
                "Choose the desk password on the machine that runs boardcast (http://127.0.0.1/desk there), or set [desk] password in its configuration.",
            ))),
        )
            .into_response();
    }
    let text = std::str::from_utf8(&body).unwrap_or_default();
    let (key, again) = (form_field(text, "key"), form_field(text, "again"));
    let Some(key) = key.filter(|k| Some(k) == again.as_ref()) else {
        return (
            StatusCode::BAD_REQUEST,
            Html(first_run_form(&message("The two passwords differ."))),
        )
            .into_response();
    };
    let chosen = {
        let desk = Arc::clone(&desk);
        tokio::task::spawn_blocking(move || desk.choose_password(&key))
            .await
            .unwrap_or_else(|_| Err("the password could not be kept".into()))
    };
    match chosen {
        Ok(()) => {
            desk.record(&by(&extensions), "choose_password", "first run");
            open_session(&views)
        }
        Err(e) => (StatusCode::BAD_REQUEST, Html(first_run_form(&message(&e)))).into_response(),
    }
}

/// `POST /desk/logout`.
async fn logout(State(views): State<Arc<Views>>, headers: HeaderMap) -> Response {
    if let Some(token) = super::cookie(&headers, DESK_COOKIE) {
        views.desk_sessions.close(token);
    }
    (
        StatusCode::SEE_OTHER,
        [
            (
                header::SET_COOKIE,
                format!("{DESK_COOKIE}=; HttpOnly; SameSite=Strict; Path=/desk; Max-Age=0"),
            ),
            (header::LOCATION, "/desk".to_string()),
        ],
    )
        .into_response()
}

/// `GET /desk/state`: the boards, the round and its plan (JSON; see
/// docs/operator.md).
async fn state(State(views): State<Arc<Views>>, headers: HeaderMap) -> Response {
    match gate(&views, &headers, false) {
        Ok(desk) => state_reply(&views, &desk).await,
        Err(r) => r.into_response(),
    }
}

/// The boards the desk runs: the daemon's, or every bridge's on a hub.
fn sensors(views: &Views) -> Vec<String> {
    views.arbiter.lock().boards.clone()
}

/// The desk's state as the answer to a request (JSON).
async fn state_reply(views: &Views, desk: &Desk) -> Response {
    let found = found_ports_cached(views).await;
    json_response(state_json(views, desk, found).to_string()).into_response()
}

/// The serial ports with a known board: each port's path and what the
/// desk says of it.
pub(super) type FoundPorts = Vec<(String, serde_json::Value)>;

/// How long a look at the serial ports is shown before the next.
const PORTS_KEPT: std::time::Duration = std::time::Duration::from_secs(5);

/// The ports [`found_ports`] lists, looked at no more than every
/// [`PORTS_KEPT`] and off the async workers (listing ports blocks).
async fn found_ports_cached(views: &Views) -> FoundPorts {
    {
        let kept = views.desk_ports.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((at, ports)) = &*kept
            && at.elapsed() < PORTS_KEPT
        {
            return ports.clone();
        }
    }
    let ports = tokio::task::spawn_blocking(found_ports)
        .await
        .unwrap_or_default();
    *views.desk_ports.lock().unwrap_or_else(|e| e.into_inner()) =
        Some((std::time::Instant::now(), ports.clone()));
    ports
}

fn state_json(views: &Views, desk: &Desk, found: FoundPorts) -> serde_json::Value {
    let (state, file, plan) = desk.view(&sensors(views));
    let snapshot = views.arbiter.lock();
    let mut checks = views.desk_checks.lock().unwrap_or_else(|e| e.into_inner());
    let boards: Vec<serde_json::Value> = snapshot
        .boards
        .iter()
        .zip(&snapshot.states)
        .map(|(id, s)| {
            // The last board check stays on the desk after the first move.
            let check = match s.as_ref().map(|s| &s["readiness"]) {
                Some(r) if r.is_object() => {
                    checks.insert(id.clone(), r.clone());
                    r.clone()
                }
                _ => checks.get(id).cloned().unwrap_or_default(),
            };
            board_json(id, s.as_ref(), &check, state.assigned.get(id).copied())
        })
        .collect();
    drop(checks);
    let event = snapshot
        .states
        .iter()
        .flatten()
        .find_map(|s| s["event"].as_str().map(str::to_string));
    drop(snapshot);
    let read: Vec<String> = boards
        .iter()
        .filter_map(|b| b["port"].as_str().map(str::to_string))
        .collect();
    serde_json::json!({
        "event": event,
        "found_ports": found
            .into_iter()
            .filter(|(port, _)| !read.contains(port))
            .map(|(_, p)| p)
            .collect::<Vec<_>>(),
        "trf": file.map(|(rounds, players)| serde_json::json!({
            "name": state.trf_name,
            "rounds": rounds,
            "players": players,
        })),
        "round": state.round,
        "started": state.started,
        "boards": boards,
        "pairings": plan.pairings,
        "byes": plan.byes,
        "warnings": plan.warnings,
        "differences": plan.differences,
    })
}

/// The serial ports with a board boardcast knows by its USB id
/// ([`crate::port::usb`]), by path; the desk lists those no board reads
/// (plugged in, but not in the configuration).
fn found_ports() -> FoundPorts {
    let Ok(ports) = tokio_serial::available_ports() else {
        return Vec::new();
    };
    ports
        .into_iter()
        .filter_map(|p| {
            let tokio_serial::SerialPortType::UsbPort(usb) = &p.port_type else {
                return None;
            };
            let known = crate::port::usb::identify(usb.vid, usb.pid)?;
            let json = serde_json::json!({
                "port": p.port_name,
                "board": known.name,
                "family": known.family.name(),
                "serial": usb.serial_number,
            });
            Some((p.port_name, json))
        })
        .collect()
}

/// One board as the desk shows it, from its live state.
fn board_json(
    id: &str,
    s: Option<&serde_json::Value>,
    check: &serde_json::Value,
    assigned: Option<u32>,
) -> serde_json::Value {
    let null = serde_json::Value::Null;
    let s = s.unwrap_or(&null);
    let readiness: Vec<serde_json::Value> = check
        .as_object()
        .map(|r| {
            r.iter()
                .filter(|(_, v)| v.is_object())
                .map(|(item, v)| {
                    serde_json::json!({
                        "item": item,
                        "status": v["status"],
                        "message": v["message"],
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    let name = |p: &serde_json::Value| p["name"].as_str().map(str::to_string);
    // Chess states carry `fen`; the other games `position`.
    let fen = s["fen"].as_str().or_else(|| s["position"].as_str());
    serde_json::json!({
        "id": id,
        "status": s["status"].as_str().unwrap_or("offline"),
        "family": s["family"],
        "port": s["port"],
        "serial": s["serial"],
        "identity": check["identity"]["message"],
        "rotated": s["rotated"].as_bool().unwrap_or(false),
        "ready": check["ready"],
        "readiness": readiness,
        "game_type": s["game_type"],
        "number": s["number"],
        "round": s["round"],
        "game": s["game"],
        "ply": s["ply"],
        "white": name(&s["white"]),
        "black": name(&s["black"]),
        "result": s["result"],
        "fen": fen,
        "placement": s["placement"],
        "assigned": assigned,
    })
}

/// `GET /desk/events`: the live stream of the arbiters' hub (states with
/// the sensed pieces, which "Identify" watches).
async fn events(State(views): State<Arc<Views>>, headers: HeaderMap) -> Response {
    if let Err(r) = gate(&views, &headers, false) {
        return r.into_response();
    }
    super::stream(&views.arbiter_streams, &views.arbiter)
}

/// The file's name (`?name=`).
#[derive(Debug, Deserialize)]
struct Name {
    name: Option<String>,
}

/// `POST /desk/trf?name=`: the pairing file's bytes.
async fn upload(
    State(views): State<Arc<Views>>,
    headers: HeaderMap,
    extensions: axum::http::Extensions,
    Query(q): Query<Name>,
    body: axum::body::Bytes,
) -> Response {
    let desk = match gate(&views, &headers, true) {
        Ok(d) => d,
        Err(r) => return r.into_response(),
    };
    let name = q
        .name
        .filter(|n| crate::text::check_text("name", Some(n)).is_ok() && !n.is_empty())
        .unwrap_or_else(|| "pairings.trf".into());
    match desk.load_trf(&body, &name) {
        Ok(()) => {
            desk.record(&by(&extensions), "load_pairings", &name);
            state_reply(&views, &desk).await
        }
        Err(e) => fail(StatusCode::BAD_REQUEST, e),
    }
}

/// `POST /desk/trf/configured`: the configured pairing file.
async fn load_configured(
    State(views): State<Arc<Views>>,
    headers: HeaderMap,
    extensions: axum::http::Extensions,
) -> Response {
    let desk = match gate(&views, &headers, true) {
        Ok(d) => d,
        Err(r) => return r.into_response(),
    };
    match desk.load_configured() {
        Ok(()) => {
            desk.record(&by(&extensions), "load_pairings", "the configured file");
            state_reply(&views, &desk).await
        }
        Err(e) => fail(StatusCode::BAD_REQUEST, e),
    }
}

/// A change of the desk's set-up from a form (`f` says what it did, or why
/// not): 200 with the new state, or 400 saying why not. The change is
/// recorded as `action`.
async fn change(
    (views, headers, extensions): (Arc<Views>, HeaderMap, axum::http::Extensions),
    body: axum::body::Bytes,
    action: &str,
    f: impl FnOnce(
        &str,
        &mut crate::desk::DeskState,
        Option<&crate::tournament::trf::Trf>,
        &[String],
    ) -> Result<String, String>,
) -> Response {
    let desk = match gate(&views, &headers, true) {
        Ok(d) => d,
        Err(r) => return r.into_response(),
    };
    let text = match form(&body) {
        Ok(t) => t,
        Err(r) => return r.into_response(),
    };
    let (mut why, mut what) = (None, String::new());
    let sensors = sensors(&views);
    let done = desk.change(|state, trf| match f(text, state, trf, &sensors) {
        Ok(done) => {
            what = done;
            Ok(())
        }
        Err(e) => {
            why = Some(e);
            Err(crate::desk::DeskError::NoRound)
        }
    });
    match (done, why) {
        (Ok(()), _) => {
            desk.record(&by(&extensions), action, &what);
            state_reply(&views, &desk).await
        }
        (Err(_), Some(why)) => fail(StatusCode::BAD_REQUEST, why),
        (Err(e), None) => fail(StatusCode::BAD_REQUEST, e),
    }
}

/// Field `name` of `form`, a number (`what` says what it is when it is
/// not one).
fn number(form: &str, name: &str, what: &str) -> Result<u32, String> {
    form_field(form, name)
        .and_then(|n| n.trim().parse().ok())
        .ok_or_else(|| format!("`{name}`: {what}"))
}

/// `POST /desk/round` (field `round`).
async fn choose_round(
    State(views): State<Arc<Views>>,
    headers: HeaderMap,
    extensions: axum::http::Extensions,
    body: axum::body::Bytes,
) -> Response {
    let request = (views, headers, extensions);
    change(request, body, "choose_round", |form, state, trf, _| {
        let round = number(form, "round", "a round number")?;
        let trf = trf.ok_or(crate::desk::DeskError::NoFile.to_string())?;
        state.choose_round(trf, round).map_err(|e| e.to_string())?;
        Ok(format!("round {round}"))
    })
    .await
}

/// `POST /desk/assign` (fields `board`: a sensor board, `number`: a
/// pairing board, empty for none).
async fn assign(
    State(views): State<Arc<Views>>,
    headers: HeaderMap,
    extensions: axum::http::Extensions,
    body: axum::body::Bytes,
) -> Response {
    let request = (views, headers, extensions);
    change(request, body, "assign", |form, state, trf, sensors| {
        let board = form_field(form, "board").unwrap_or_default();
        if !sensors.contains(&board) {
            return Err(crate::desk::DeskError::NoSuchSensor(board).to_string());
        }
        let number = match form_field(form, "number").unwrap_or_default().trim() {
            "" => None,
            n => Some(
                n.parse()
                    .map_err(|_| "`number`: a pairing board's number")?,
            ),
        };
        state
            .assign(trf, &board, number)
            .map_err(|e| e.to_string())?;
        Ok(match number {
            Some(n) => format!("sensor board {board} plays pairing board {n}"),
            None => format!("sensor board {board} plays no pairing board"),
        })
    })
    .await
}

/// `POST /desk/typed` (fields `number`, `result`).
async fn typed(
    State(views): State<Arc<Views>>,
    headers: HeaderMap,
    extensions: axum::http::Extensions,
    body: axum::body::Bytes,
) -> Response {
    let request = (views, headers, extensions);
    change(request, body, "type_result", |form, state, _, _| {
        let number = number(form, "number", "a pairing board's number")?;
        let result = form_field(form, "result").unwrap_or_default();
        state
            .type_result(number, &result)
            .map_err(|e| e.to_string())?;
        Ok(format!("pairing board {number}: {result}"))
    })
    .await
}

/// Who made a desk correction, for its `correction` event and the capture.
fn by(extensions: &axum::http::Extensions) -> String {
    match peer(extensions) {
        Some(ip) => format!("desk: {ip}"),
        None => "desk".into(),
    }
}

/// Hands `command` to sensor board `board`; the receiver gets its answer.
fn dispatch(
    views: &Views,
    board: &str,
    command: OperatorCommand,
    by: &str,
) -> Result<tokio::sync::oneshot::Receiver<crate::control::Ack>, Refused> {
    // The same checks as a command from the broker.
    let json = serde_json::to_vec(&command).expect("commands serialise");
    let command = OperatorCommand::parse(&json).map_err(|e| Refused(StatusCode::BAD_REQUEST, e))?;
    let Some(route) = views.commands.route(board) else {
        return Err(Refused(StatusCode::NOT_FOUND, "no such board".into()));
    };
    let nonce = format!("desk-{}", &super::new_session_token()[..24]);
    let answer = views.public.answers.expect(&nonce);
    let request = Request {
        command,
        nonce: Some(nonce),
        by: Some(by.to_string()),
    };
    if route.try_send(request).is_err() {
        return Err(Refused(
            StatusCode::SERVICE_UNAVAILABLE,
            "the board is busy; try again".into(),
        ));
    }
    Ok(answer)
}

/// Sends `command` to sensor board `board` and waits for its answer: `200`
/// applied, `409` refused (the board's words), `504` no answer in time.
async fn send(views: &Views, board: &str, command: OperatorCommand, by: &str) -> Response {
    match dispatch(views, board, command, by) {
        Ok(answer) => outcome(tokio::time::timeout(DECISION_WAIT, answer).await),
        Err(r) => r.into_response(),
    }
}

/// `POST /desk/start`: the chosen round starts on every assigned board.
async fn start(
    State(views): State<Arc<Views>>,
    headers: HeaderMap,
    extensions: axum::http::Extensions,
) -> Response {
    let desk = match gate(&views, &headers, true) {
        Ok(d) => d,
        Err(r) => return r.into_response(),
    };
    let (round, starts) = match desk.start(&sensors(&views)) {
        Ok(s) => s,
        Err(e) => return fail(StatusCode::CONFLICT, e),
    };
    if starts.is_empty() {
        return fail(
            StatusCode::CONFLICT,
            format!("no sensor board is assigned to a pairing board of round {round}"),
        );
    }
    let who = by(&extensions);
    // Every board is told first; then each answer is awaited (the boards
    // answer in parallel).
    let mut waiting = Vec::new();
    for (sensor, pairing) in &starts {
        let command = OperatorCommand::StartGame {
            round,
            board: pairing.board,
            white: Some(pairing.white.clone()),
            black: Some(pairing.black.clone()),
        };
        waiting.push((sensor, dispatch(&views, sensor, command, &who)));
    }
    let deadline = tokio::time::Instant::now() + DECISION_WAIT;
    let mut failed = Vec::new();
    for (sensor, sent) in waiting {
        let answer = match sent {
            Ok(rx) => tokio::time::timeout_at(deadline, rx)
                .await
                .ok()
                .and_then(Result::ok),
            Err(_) => None,
        };
        match answer {
            Some(ack) if ack.accepted => {}
            Some(ack) => failed.push(format!("board {sensor}: {}", ack.message)),
            None => failed.push(format!("board {sensor}: no answer")),
        }
    }
    desk.started(round);
    desk.record(
        &who,
        "start_round",
        &format!(
            "round {round} on {} boards, {} without an answer",
            starts.len(),
            failed.len()
        ),
    );
    tracing::info!(
        round,
        boards = starts.len(),
        failed = failed.len(),
        "desk: round started"
    );
    if failed.is_empty() {
        let n = starts.len();
        (
            StatusCode::OK,
            format!(
                "round {round} started on {n} board{}: each takes up a new game with its players\n",
                if n == 1 { "" } else { "s" }
            ),
        )
            .into_response()
    } else {
        fail(
            StatusCode::CONFLICT,
            format!(
                "round {round} started, but not everywhere: {}",
                failed.join("; ")
            ),
        )
    }
}

/// `POST /desk/command` (fields `board`, `command` and its own).
async fn command(
    State(views): State<Arc<Views>>,
    headers: HeaderMap,
    extensions: axum::http::Extensions,
    body: axum::body::Bytes,
) -> Response {
    if let Err(r) = gate(&views, &headers, true) {
        return r.into_response();
    }
    let text = match form(&body) {
        Ok(t) => t,
        Err(r) => return r.into_response(),
    };
    let board = form_field(text, "board").unwrap_or_default();
    let field = |name: &str| form_field(text, name).map(|v| v.trim().to_string());
    let player = |name: String| Player {
        name,
        ..Player::default()
    };
    let command = match field("command").as_deref() {
        Some("set_result") => OperatorCommand::SetResult {
            result: field("result").unwrap_or_default(),
        },
        Some("clear_result") => OperatorCommand::SetResult { result: "*".into() },
        Some("restart") => OperatorCommand::Restart,
        Some("turn_round") => OperatorCommand::TurnRound,
        Some("take_up") => OperatorCommand::TakeUp {
            fen: field("fen").unwrap_or_default(),
        },
        Some("set_players") => {
            let (Some(white), Some(black)) = (
                field("white").filter(|w| !w.is_empty()),
                field("black").filter(|b| !b.is_empty()),
            ) else {
                return fail(StatusCode::BAD_REQUEST, "both players' names are needed");
            };
            OperatorCommand::SetPlayers {
                white: player(white),
                black: player(black),
            }
        }
        Some("swap_players") => match players_of(&views, &board) {
            Some((white, black)) => OperatorCommand::SetPlayers {
                white: black,
                black: white,
            },
            None => return fail(StatusCode::CONFLICT, "the board has no players to swap"),
        },
        _ => {
            return fail(
                StatusCode::BAD_REQUEST,
                "`command`: set_result, clear_result, restart, set_players, swap_players, turn_round or take_up",
            );
        }
    };
    let who = by(&extensions);
    if let Some(desk) = desk(&views) {
        desk.record(&who, command.name(), &format!("board {board}"));
    }
    send(&views, &board, command, &who).await
}

/// The players a board's live state shows.
fn players_of(views: &Views, board: &str) -> Option<(Player, Player)> {
    let s = views.arbiter.lock();
    let i = s.boards.iter().position(|b| b == board)?;
    let state = s.states.get(i)?.as_ref()?;
    let white = serde_json::from_value(state["white"].clone()).ok()?;
    let black = serde_json::from_value(state["black"].clone()).ok()?;
    Some((white, black))
}

/// `GET /desk/round.pgn`.
async fn round_pgn(State(views): State<Arc<Views>>, headers: HeaderMap) -> Response {
    let desk = match gate(&views, &headers, false) {
        Ok(d) => d,
        Err(r) => return r.into_response(),
    };
    download(desk.round_pgn().map(|pgn| {
        (
            "application/x-chess-pgn",
            "round.pgn".to_string(),
            pgn.into_bytes(),
        )
    }))
}

/// `GET /desk/results.trf`.
async fn results_trf(State(views): State<Arc<Views>>, headers: HeaderMap) -> Response {
    let desk = match gate(&views, &headers, false) {
        Ok(d) => d,
        Err(r) => return r.into_response(),
    };
    download(desk.results_trf().map(|(round, bytes)| {
        (
            "text/plain; charset=utf-8",
            format!("results-round-{round}.trf"),
            bytes,
        )
    }))
}

/// A file to download (its type, name and bytes), or `409` saying why
/// there is none.
fn download(file: Result<(&'static str, String, Vec<u8>), crate::desk::DeskError>) -> Response {
    match file {
        Ok((kind, name, bytes)) => (
            [
                (header::CONTENT_TYPE, kind.to_string()),
                (
                    header::CONTENT_DISPOSITION,
                    format!("attachment; filename=\"{name}\""),
                ),
            ],
            bytes,
        )
            .into_response(),
        Err(e) => fail(StatusCode::CONFLICT, e),
    }
}

/// `GET /desk/report`: the chosen round's report.
async fn report(State(views): State<Arc<Views>>, headers: HeaderMap) -> Response {
    let desk = match gate(&views, &headers, false) {
        Ok(d) => d,
        Err(r) => return r.into_response(),
    };
    let round = desk.view(&[]).0.round;
    Html(super::tools::round_report(&views, round).to_html()).into_response()
}
