//! The operator's desk on the live page's listener (`/desk`): the round
//! run from a browser (see [`crate::desk`] and docs/operator.md).
//!
//! Its own login: the desk password (`[web] desk_password`, or chosen on the
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
//!
//! Durable or refused: a change of the desk's set-up is kept in the
//! recorder folder before it is answered ([`crate::desk::live`]); one that
//! cannot be kept (a full disk) is answered `507 Insufficient Storage`
//! with one line ("not kept: the disk is full (...)"), which the page
//! shows, and the desk is as it was.
//!
//! [`login`] holds the login and the first run's password, [`view`] what
//! the page reads (the boards, the round, the plan, the live stream);
//! this file the actions.

mod login;
pub(in crate::web) mod view;

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;

use super::tools::{DECISION_WAIT, Refused, dispatch, outcome};
use super::{Views, form_field};
use crate::control::OperatorCommand;
use crate::desk::live::{Act, ChangeError, Desk, LoadError, RoundStart};
use crate::desk::{DeskError, DeskState};
use crate::tournament::Player;
use crate::tournament::trf::Trf;

/// The page, built into the binary.
pub const DESK_PAGE: &str = include_str!("../desk.html");

/// The desk's session cookie.
pub(super) const DESK_COOKIE: &str = "boardcast_desk";

/// The desk's routes.
pub(super) fn routes() -> Router<Arc<Views>> {
    Router::new()
        .route("/desk", get(login::page))
        .route("/desk/login", post(login::login))
        .route("/desk/password", post(login::choose_password))
        .route("/desk/logout", post(login::logout))
        .route("/desk/state", get(view::state))
        .route("/desk/events", get(view::events))
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

/// The desk, once the daemon has set it up.
pub(super) fn desk(views: &Views) -> Option<Arc<Desk>> {
    views.desk.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Whether the request carries a live desk session.
pub(super) fn admitted(views: &Views, headers: &HeaderMap) -> bool {
    views.desk_login.login.admitted(headers)
}

pub(super) fn peer(extensions: &axum::http::Extensions) -> Option<std::net::IpAddr> {
    extensions
        .get::<axum::extract::ConnectInfo<SocketAddr>>()
        .map(|p| p.0.ip())
}

/// What every desk action checks first: a desk, a session, and (for a
/// POST) a request from the page itself.
pub(super) fn gate(views: &Views, headers: &HeaderMap, post: bool) -> Result<Arc<Desk>, Refused> {
    let Some(desk) = desk(views) else {
        return Err(Refused(
            StatusCode::NOT_FOUND,
            "there is no operator's desk here".into(),
        ));
    };
    if post && !crate::web::guard::same_site(headers) {
        return Err(Refused(
            StatusCode::FORBIDDEN,
            crate::web::guard::REFUSED.into(),
        ));
    }
    if !admitted(views, headers) {
        return Err(Refused(
            StatusCode::UNAUTHORIZED,
            "the desk's login is needed".into(),
        ));
    }
    Ok(desk)
}

pub(super) fn fail(code: StatusCode, text: impl std::fmt::Display) -> Response {
    Refused(code, text.to_string()).into_response()
}

/// The status of a change the desk did not keep: `507 Insufficient
/// Storage` (its file or journal line could not be written, the disk is
/// full; the desk is as it was).
pub(super) const NOT_KEPT: StatusCode = StatusCode::INSUFFICIENT_STORAGE;

/// The answer to a pairing file not taken up: 507 when it was not kept,
/// else 400.
fn load_refused(e: &LoadError) -> Response {
    let code = match e {
        LoadError::NotKept(_) => NOT_KEPT,
        _ => StatusCode::BAD_REQUEST,
    };
    fail(code, e)
}

/// The answer to a change the desk did not make: 507 when it was not
/// kept, else `code` (the desk refuses it).
pub(super) fn change_refused<E: std::error::Error + 'static>(
    code: StatusCode,
    e: &ChangeError<E>,
) -> Response {
    match e {
        ChangeError::NotKept(_) => fail(NOT_KEPT, e),
        ChangeError::Refused(_) => fail(code, e),
    }
}

/// Writes `act`'s journal line, which changes nothing the desk keeps (a
/// login, a correction sent to a board): a line that cannot be written is
/// warned about, and the action goes ahead.
pub(super) async fn record(desk: &Arc<Desk>, by: String, action: &'static str, detail: String) {
    let written = on_desk(desk, move |d| d.record(Act { by: &by, action }, &detail)).await;
    if let Err(e) = written {
        tracing::warn!(action, error = %e, "the desk's journal misses this action");
    }
}

pub(super) fn form(body: &[u8]) -> Result<&str, Refused> {
    std::str::from_utf8(body)
        .map_err(|_| Refused(StatusCode::BAD_REQUEST, "the form is not text".into()))
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
    body: axum::body::Body,
) -> Response {
    let desk = match gate(&views, &headers, true) {
        Ok(d) => d,
        Err(r) => return r.into_response(),
    };
    // Read only now, behind the login.
    let body = match crate::listener::read_upload(&extensions, body).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    let name = q
        .name
        .filter(|n| crate::text::check_text("name", Some(n)).is_ok() && !n.is_empty())
        .unwrap_or_else(|| "pairings.trf".into());
    let who = by(&extensions);
    match on_desk(&desk, move |d| d.load_trf(&who, &body, &name)).await {
        Ok(()) => view::state_reply(&views, &desk).await,
        Err(e) => load_refused(&e),
    }
}

/// Runs `f` on the desk off the async workers: the desk writes its files
/// (synced to disk) under its lock.
pub(super) async fn on_desk<T: Send + 'static>(
    desk: &Arc<Desk>,
    f: impl FnOnce(&Desk) -> T + Send + 'static,
) -> T {
    let desk = Arc::clone(desk);
    tokio::task::spawn_blocking(move || f(&desk))
        .await
        .unwrap_or_else(|e| std::panic::resume_unwind(e.into_panic()))
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
    let who = by(&extensions);
    match on_desk(&desk, move |d| d.load_configured(&who)).await {
        Ok(()) => view::state_reply(&views, &desk).await,
        Err(e) => load_refused(&e),
    }
}

/// Why a form's change of the desk's set-up is refused (400).
#[derive(Debug, thiserror::Error)]
enum FormError {
    /// A field is missing or does not read (`field`: what it should be).
    #[error("`{field}`: {what}")]
    Field {
        /// The field.
        field: &'static str,
        /// What it should be.
        what: &'static str,
    },
    /// The desk refuses the change.
    #[error(transparent)]
    Desk(#[from] DeskError),
}

/// What a form asks of the desk's state: made on a copy, it says what it
/// did (the journal line's detail) or why not.
type Edit = Box<dyn FnOnce(&mut DeskState, Option<&Trf>) -> Result<String, FormError> + Send>;

/// A change of the desk's set-up from a form (`read` reads the form, with
/// the sensor boards, into the change): 200 with the new state; 400 saying
/// why not; 507 when it cannot be kept (the desk is as it was). The change
/// is recorded as `action`.
async fn change(
    (views, headers, extensions): (Arc<Views>, HeaderMap, axum::http::Extensions),
    body: axum::body::Bytes,
    action: &'static str,
    read: impl FnOnce(&str, &[String]) -> Result<Edit, FormError>,
) -> Response {
    let desk = match gate(&views, &headers, true) {
        Ok(d) => d,
        Err(r) => return r.into_response(),
    };
    let text = match form(&body) {
        Ok(t) => t,
        Err(r) => return r.into_response(),
    };
    let edit = match read(text, &view::sensors(&views)) {
        Ok(e) => e,
        Err(e) => return fail(StatusCode::BAD_REQUEST, e),
    };
    let who = by(&extensions);
    let act = move |d: &Desk| d.change(Act { by: &who, action }, edit);
    match on_desk(&desk, act).await {
        Ok(_) => view::state_reply(&views, &desk).await,
        Err(e) => change_refused(StatusCode::BAD_REQUEST, &e),
    }
}

/// Field `name` of `form`, a number (`what` says what it is when it is
/// not one).
fn number(form: &str, name: &'static str, what: &'static str) -> Result<u32, FormError> {
    form_field(form, name)
        .and_then(|n| n.trim().parse().ok())
        .ok_or(FormError::Field { field: name, what })
}

/// `POST /desk/round` (field `round`).
async fn choose_round(
    State(views): State<Arc<Views>>,
    headers: HeaderMap,
    extensions: axum::http::Extensions,
    body: axum::body::Bytes,
) -> Response {
    let request = (views, headers, extensions);
    change(request, body, "choose_round", |form, _| {
        let round = number(form, "round", "a round number")?;
        Ok(Box::new(move |state: &mut DeskState, trf: Option<&Trf>| {
            state.choose_round(trf.ok_or(DeskError::NoFile)?, round)?;
            Ok(format!("round {round}"))
        }))
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
    change(request, body, "assign", |form, sensors| {
        let board = form_field(form, "board").unwrap_or_default();
        if !sensors.contains(&board) {
            return Err(DeskError::NoSuchSensor(board).into());
        }
        let number: Option<u32> = match form_field(form, "number").unwrap_or_default().trim() {
            "" => None,
            n => Some(n.parse().map_err(|_| FormError::Field {
                field: "number",
                what: "a pairing board's number",
            })?),
        };
        Ok(Box::new(move |state: &mut DeskState, trf: Option<&Trf>| {
            state.assign(trf, &board, number)?;
            Ok(match number {
                Some(n) => format!("sensor board {board} plays pairing board {n}"),
                None => format!("sensor board {board} plays no pairing board"),
            })
        }))
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
    change(request, body, "type_result", |form, _| {
        let number = number(form, "number", "a pairing board's number")?;
        let result = form_field(form, "result").unwrap_or_default();
        Ok(Box::new(move |state: &mut DeskState, _: Option<&Trf>| {
            state.type_result(number, &result)?;
            Ok(format!("pairing board {number}: {result}"))
        }))
    })
    .await
}

/// Who made a desk correction, for its `correction` event and the capture.
pub(super) fn by(extensions: &axum::http::Extensions) -> String {
    match peer(extensions) {
        Some(ip) => format!("desk: {ip}"),
        None => "desk".into(),
    }
}

/// Sends `command` to sensor board `board` and waits for its answer: `200`
/// applied, `409` refused (the board's words), `504` no answer in time.
async fn send(views: &Views, board: &str, command: OperatorCommand, by: &str) -> Response {
    match dispatch(views, board, command, by, "desk") {
        Ok(answer) => outcome(tokio::time::timeout(DECISION_WAIT, answer).await),
        Err(r) => r.into_response(),
    }
}

/// `POST /desk/start`: the chosen round starts on every assigned board
/// ([`Desk::start_round`]).
async fn start(
    State(views): State<Arc<Views>>,
    headers: HeaderMap,
    extensions: axum::http::Extensions,
) -> Response {
    let desk = match gate(&views, &headers, true) {
        Ok(d) => d,
        Err(r) => return r.into_response(),
    };
    let sensors = view::sensors(&views);
    let who = by(&extensions);
    match desk
        .start_round(&who, sensors, &views.router(), DECISION_WAIT)
        .await
    {
        Ok(s) => started(&s),
        Err(e) => change_refused(StatusCode::CONFLICT, &e),
    }
}

/// The answer to a round's start: the boards that did not start
/// (`failed`), and those whose game goes on (`kept`).
fn started(s: &RoundStart) -> Response {
    let (round, n) = (s.round, s.boards);
    let still = if s.kept.is_empty() {
        String::new()
    } else {
        format!(
            "; still playing their game, which goes on (the round's game starts when the start position stands after it): {}",
            s.kept.join("; ")
        )
    };
    if s.failed.is_empty() {
        (
            StatusCode::OK,
            format!(
                "round {round} started on {n} board{}: each takes up a new game with its players{still}\n",
                if n == 1 { "" } else { "s" }
            ),
        )
            .into_response()
    } else {
        fail(
            StatusCode::CONFLICT,
            format!(
                "round {round} started, but not everywhere: {}{still}",
                s.failed.join("; ")
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
        record(&desk, who.clone(), command.name(), format!("board {board}")).await;
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
