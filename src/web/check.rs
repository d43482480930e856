//! The board check on the live page: every board's readiness before the
//! first move of its game (see [`crate::readiness`]), as a page
//! (`check.html`, built into the binary) and as JSON.
//!
//! The readiness comes with each board's live state (its `readiness`
//! field), which the arbiters' fan-out keeps; the page asks for the JSON every
//! two seconds. Who may see it follows the views: with an arbiter password
//! (`[web] arbiter_password`) the check is the arbiters', at
//! `/arbiter/check` and `/arbiter/check.json` behind their login (`/check`
//! leads there); without one there is no arbiter view and the check is at
//! `/check` and `/check.json` for anyone who reaches the page (it shows no
//! moves, only how the boards stand before them). With a public broadcast
//! delay, that open check is the public's and keeps to the delay: the
//! readiness follows the live board (it goes at the live game's first move
//! and comes back when the board is set up again after the live game
//! ended), so it shows the boards as the delayed view has them, playing or
//! not, and no readiness at all; the arbiters' check stays live.

use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::get;
use serde_json::{Value, json};

use super::{FanOut, Views, admitted, json_response};

/// The page: HTML, CSS and script in one file, no build step.
pub const CHECK_PAGE: &str = include_str!("check.html");

/// The check's routes, on the listener's views.
pub(super) fn routes() -> Router<Arc<Views>> {
    Router::new()
        .route("/check", get(open_page))
        .route("/check.json", get(open_json))
        .route("/arbiter/check", get(arbiter_page))
        .route("/arbiter/check.json", get(arbiter_json))
}

/// Every board's readiness as the arbiters' fan-out has it: `boards` (each
/// `board`, `status`, `number`, `readiness` or `null`, and `in_game` when
/// a game is under way), `ready` (boards ready) and `total`.
pub fn check_json(fanout: &FanOut) -> String {
    board_check(fanout, true)
}

/// The boards as the public's delayed fan-out has them: `status`, `number`,
/// `in_game` (a move or a result is public), `readiness` always `null`,
/// `delayed: true`. Nothing in it changes before the delay releases it.
pub fn delayed_check_json(fanout: &FanOut) -> String {
    board_check(fanout, false)
}

fn board_check(fanout: &FanOut, live: bool) -> String {
    let s = fanout.lock();
    let boards: Vec<Value> = s
        .boards
        .iter()
        .zip(&s.states)
        .map(|(id, state)| {
            let field = |name: &str| {
                state
                    .as_ref()
                    .and_then(|v| v.get(name))
                    .cloned()
                    .unwrap_or(Value::Null)
            };
            let readiness = if live {
                field("readiness")
            } else {
                Value::Null
            };
            let in_game = if live {
                state.is_some() && readiness.is_null()
            } else {
                field("ply").as_u64().is_some_and(|p| p > 0) || !field("result").is_null()
            };
            json!({
                "board": id,
                "status": field("status"),
                "number": field("number"),
                "in_game": in_game,
                "readiness": readiness,
            })
        })
        .collect();
    let ready = boards
        .iter()
        .filter(|b| b["readiness"]["ready"] == true)
        .count();
    let mut out = json!({ "ready": ready, "total": boards.len(), "boards": boards });
    if !live {
        out["delayed"] = Value::Bool(true);
    }
    out.to_string()
}

/// The page for the view whose address starts with `base`.
fn page(base: &str) -> Html<String> {
    Html(CHECK_PAGE.replacen("<body>", &format!("<body data-base=\"{base}\">"), 1))
}

/// `GET /check`: the check for all when there is no arbiter view, else
/// the way to the arbiters' (behind their login).
async fn open_page(State(views): State<Arc<Views>>) -> Response {
    if views.arbiter_login.token.is_some() {
        return Redirect::to("/arbiter/check").into_response();
    }
    page("/").into_response()
}

/// `GET /check.json`: the open check (no arbiter view), live without a
/// broadcast delay, else the delayed view's ([`delayed_check_json`]).
async fn open_json(State(views): State<Arc<Views>>) -> Response {
    if views.arbiter_login.token.is_some() {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    if views.audience.delay_ms > 0 {
        return json_response(delayed_check_json(&views.public)).into_response();
    }
    json_response(check_json(&views.arbiter)).into_response()
}

/// `GET /arbiter/check`: the arbiters' check for a live session, else the
/// login form; without an arbiter view, the open check.
async fn arbiter_page(State(views): State<Arc<Views>>, headers: HeaderMap) -> Response {
    if views.arbiter_login.token.is_none() {
        return Redirect::to("/check").into_response();
    }
    if !admitted(&views, &headers) {
        return (
            StatusCode::UNAUTHORIZED,
            [(header::CACHE_CONTROL, "no-store")],
            Html(super::ARBITER_LOGIN),
        )
            .into_response();
    }
    page("/arbiter/").into_response()
}

async fn arbiter_json(State(views): State<Arc<Views>>, headers: HeaderMap) -> Response {
    if !admitted(&views, &headers) {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    json_response(check_json(&views.arbiter)).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_json_lists_every_board_and_counts_the_ready_ones() {
        let fanout = FanOut::new(&["1".into(), "2".into(), "3".into()]);
        fanout
            .feed(0)
            .state(r#"{"board":"1","status":"connected","number":1,"readiness":{"ready":true}}"#);
        fanout
            .feed(1)
            .state(r#"{"board":"2","status":"offline","number":2,"readiness":{"ready":false}}"#);
        fanout
            .feed(2)
            .state(r#"{"board":"3","status":"connected","number":3,"ply":4}"#);
        let v: Value = serde_json::from_str(&check_json(&fanout)).unwrap();
        assert_eq!(v["ready"], 1);
        assert_eq!(v["total"], 3);
        assert_eq!(v["boards"][0]["readiness"]["ready"], true);
        assert_eq!(v["boards"][1]["status"], "offline");
        assert_eq!(v["boards"][2]["in_game"], true);
        assert_eq!(v["boards"][2]["readiness"], Value::Null);
        assert!(v["boards"][2].get("ply").is_none(), "no moves shown");
    }

    /// One HTTP/1.1 request on a fresh connection: the status code and the
    /// whole reply.
    async fn request(addr: std::net::SocketAddr, req: String) -> (u16, String) {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
        s.write_all(req.as_bytes()).await.unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).await.unwrap();
        (out[9..12].parse().unwrap(), out)
    }

    async fn get(addr: std::net::SocketAddr, path: &str, cookie: &str) -> (u16, String) {
        let req = format!(
            "GET {path} HTTP/1.1\r\nHost: x\r\nCookie: {cookie}\r\nConnection: close\r\n\r\n"
        );
        request(addr, req).await
    }

    #[tokio::test]
    async fn with_an_arbiter_password_the_check_is_the_arbiters() {
        use crate::web::{Audience, WebServer};
        let addr = "127.0.0.1:0".parse().unwrap();
        let audience = Audience {
            arbiter_secret: Some("pw".into()),
            ..Audience::default()
        };
        let server = WebServer::start_for(
            addr,
            &["1".into()],
            audience,
            crate::listener::Limits::default(),
        )
        .await
        .unwrap();
        server
            .arbiter_feed(0)
            .state(r#"{"board":"1","status":"connected","readiness":{"ready":true}}"#);
        let addr = server.addr;
        let (code, reply) = get(addr, "/check", "").await;
        assert_eq!(code, 303, "{reply}");
        assert!(
            reply.to_lowercase().contains("location: /arbiter/check"),
            "{reply}"
        );
        assert_eq!(get(addr, "/check.json", "").await.0, 401);
        assert_eq!(get(addr, "/arbiter/check", "").await.0, 401);
        assert_eq!(get(addr, "/arbiter/check.json", "").await.0, 401);
        let body = "key=pw";
        let (code, reply) = request(
            addr,
            format!(
                "POST /arbiter HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            ),
        )
        .await;
        assert_eq!(code, 303);
        let cookie = reply
            .lines()
            .find_map(|l| l.strip_prefix("set-cookie: "))
            .and_then(|c| c.split(';').next())
            .unwrap()
            .to_string();
        let (code, page) = get(addr, "/arbiter/check", &cookie).await;
        assert_eq!(code, 200);
        assert!(page.contains(r#"<body data-base="/arbiter/">"#));
        let (code, json) = get(addr, "/arbiter/check.json", &cookie).await;
        assert_eq!(code, 200);
        assert!(json.contains(r#""ready":1"#), "{json}");
    }

    /// Issue 42: with a public delay and no arbiter view, the open check
    /// showed the live game's start (`in_game` at the live first move,
    /// the readiness gone) a whole delay early.
    #[tokio::test]
    async fn under_a_delay_the_open_check_shows_nothing_before_the_public_view() {
        use crate::web::{Audience, WebServer};
        let audience = Audience {
            delay_ms: 60_000,
            ..Audience::default()
        };
        let limits = crate::listener::Limits::default();
        let addr = "127.0.0.1:0".parse().unwrap();
        let server = WebServer::start_for(addr, &["1".into(), "2".into()], audience, limits)
            .await
            .unwrap();
        // Board 1's game began live; the public has not seen a move yet.
        server
            .arbiter_feed(0)
            .state(r#"{"board":"1","status":"connected","number":1,"ply":1}"#);
        server
            .feed(0)
            .state(r#"{"board":"1","status":"connected","number":1,"ply":0}"#);
        // Board 2 stands ready, live.
        server
            .arbiter_feed(1)
            .state(r#"{"board":"2","status":"connected","number":2,"readiness":{"ready":true}}"#);
        let (code, reply) = get(server.addr, "/check.json", "").await;
        assert_eq!(code, 200, "{reply}");
        let json = reply.split_once("\r\n\r\n").unwrap().1;
        let v: Value = serde_json::from_str(json).unwrap();
        assert_eq!(v["boards"][0]["in_game"], false, "{v}");
        assert_eq!(v["boards"][0]["status"], "connected");
        assert_eq!(v["boards"][1]["readiness"], Value::Null, "{v}");
        assert_eq!(v["delayed"], true);
        // Once the delay releases the move, the public check says so.
        server
            .feed(0)
            .state(r#"{"board":"1","status":"connected","number":1,"ply":1}"#);
        let (_, reply) = get(server.addr, "/check.json", "").await;
        assert!(reply.contains(r#""in_game":true"#), "{reply}");
    }

    #[tokio::test]
    async fn without_an_arbiter_view_the_check_is_open() {
        let addr = "127.0.0.1:0".parse().unwrap();
        let server = crate::web::WebServer::start(addr, &["1".into()])
            .await
            .unwrap();
        let (code, page) = get(server.addr, "/check", "").await;
        assert_eq!(code, 200);
        assert!(page.contains(r#"<body data-base="/">"#));
        let (code, json) = get(server.addr, "/check.json", "").await;
        assert_eq!(code, 200, "{json}");
        assert!(json.contains(r#""total":1"#), "{json}");
        assert_eq!(get(server.addr, "/arbiter/check", "").await.0, 303);
    }
}
