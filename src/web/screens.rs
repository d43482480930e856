//! The public view on a hall's screens and in a stream (issue 61, items 3
//! and 4): `GET /screen`, every board of the round paged to fit a big
//! screen, and `GET /overlay/{board}`, one board on a transparent
//! background for streaming software's browser source. Both read the
//! public stream (`/events`, delayed under `[broadcast] delay`), take only
//! the boards they show (`?boards=`) and never any alert (`alerts=off`:
//! not even when `[broadcast] public_alerts` lets them onto the public
//! page). Their parameters are read in the browser, from the address;
//! docs/broadcast.md lists them.

use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::header;
use axum::response::{Html, IntoResponse};
use axum::routing::get;

use super::Views;

/// The hall screen: HTML, CSS and script, no build step.
const SCREEN: &str = include_str!("screen.html");
/// The stream overlay.
const OVERLAY: &str = include_str!("overlay.html");
/// The boards' drawing (chess, draughts, xiangqi as SVG), shared by both.
const DRAW: &str = include_str!("draw.js");

/// The routes, on the listener's views.
pub(super) fn routes() -> Router<Arc<Views>> {
    Router::new()
        .route("/screen", get(screen))
        .route("/overlay/{board}", get(overlay))
        .route("/draw.js", get(draw))
}

/// `page` with the public delay on its `<body>` (the page says it).
fn with_delay(page: &str, delay_ms: u64) -> String {
    page.replacen("<body>", &format!("<body data-delay-ms=\"{delay_ms}\">"), 1)
}

async fn screen(State(views): State<Arc<Views>>) -> Html<String> {
    Html(with_delay(SCREEN, views.audience.delay_ms))
}

/// The board's id is read by the page from its own address.
async fn overlay(State(views): State<Arc<Views>>) -> Html<String> {
    Html(with_delay(OVERLAY, views.audience.delay_ms))
}

async fn draw() -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, "text/javascript; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        DRAW,
    )
}
