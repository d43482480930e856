//! The desk's login: its password (configured, or chosen at first run from
//! the machine itself), the session cookie, the lockout, log out.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};

use super::{DESK_COOKIE, DESK_PAGE, admitted, by, desk, peer};
use crate::desk::live::PasswordError;
use crate::web::{Views, form_field};

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

/// `GET /desk`: the desk for a live session, else its login (or, at first
/// run, the form that chooses the password).
pub(super) async fn page(State(views): State<Arc<Views>>, headers: HeaderMap) -> Response {
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
    views.desk_login.login.open(views.audience.session, "/desk")
}

/// Why a login POST is not read.
enum NotPosted {
    /// The daemon serves no desk.
    NoDesk,
    /// The POST comes from another site.
    CrossSite,
}

impl IntoResponse for NotPosted {
    fn into_response(self) -> Response {
        match self {
            NotPosted::NoDesk => (StatusCode::NOT_FOUND, Html(NO_DESK)).into_response(),
            NotPosted::CrossSite => crate::web::guard::refused(),
        }
    }
}

/// What the login's POSTs check first: there is a desk, and the request
/// comes from its page.
fn posted(views: &Views, headers: &HeaderMap) -> Result<Arc<crate::desk::live::Desk>, NotPosted> {
    let desk = desk(views).ok_or(NotPosted::NoDesk)?;
    if !crate::web::guard::same_site(headers) {
        return Err(NotPosted::CrossSite);
    }
    Ok(desk)
}

/// `POST /desk/login` (field `key`).
pub(super) async fn login(
    State(views): State<Arc<Views>>,
    headers: HeaderMap,
    extensions: axum::http::Extensions,
    body: axum::body::Bytes,
) -> Response {
    let desk = match posted(&views, &headers) {
        Ok(d) => d,
        Err(r) => return r.into_response(),
    };
    let ip = peer(&extensions);
    let login = &views.desk_login.login;
    if let Some(locked) = login.refused(ip) {
        return locked;
    }
    let key = std::str::from_utf8(&body)
        .ok()
        .and_then(|b| form_field(b, "key"));
    let right = match key {
        Some(k) => {
            // PBKDF2 takes a moment: off the reactor, a few at a time.
            let _turn = views.desk_login.hashing.acquire().await;
            super::on_desk(&desk, move |d| d.verify(&k)).await
        }
        None => false,
    };
    if !right {
        login.wrong(ip, "desk").await;
        return (
            StatusCode::UNAUTHORIZED,
            Html(login_form(&message("That is not the desk password."))),
        )
            .into_response();
    }
    login.right(ip);
    super::record(&desk, by(&extensions), "login", String::new()).await;
    open_session(&views)
}

/// `POST /desk/password` (fields `key`, `again`): the first run's
/// password, chosen from the machine that runs boardcast (a loopback
/// address) only; refused once one is set.
pub(super) async fn choose_password(
    State(views): State<Arc<Views>>,
    headers: HeaderMap,
    extensions: axum::http::Extensions,
    body: axum::body::Bytes,
) -> Response {
    let desk = match posted(&views, &headers) {
        Ok(d) => d,
        Err(r) => return r.into_response(),
    };
    if desk.has_password() {
        return (
            StatusCode::CONFLICT,
            Html(login_form(&message("The desk password is set already."))),
        )
            .into_response();
    }
    if !crate::web::guard::from_this_machine(peer(&extensions), &headers) {
        return (
            StatusCode::FORBIDDEN,
            Html(first_run_form(&message(
                "Choose the desk password on the machine that runs boardcast, at http://127.0.0.1 or http://localhost with this port, not through a proxy; or set [web] desk_password in its configuration.",
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
    let who = by(&extensions);
    let chosen = {
        let _turn = views.desk_login.hashing.acquire().await;
        super::on_desk(&desk, move |d| d.choose_password(&who, &key)).await
    };
    match chosen {
        Ok(()) => open_session(&views),
        Err(e) => {
            // Not kept (a full disk): 507, and the desk still has no password.
            let code = match e {
                PasswordError::NotKept(_) => super::NOT_KEPT,
                PasswordError::Set | PasswordError::Weak(_) => StatusCode::BAD_REQUEST,
            };
            let text = e.to_string();
            (code, Html(first_run_form(&message(&text)))).into_response()
        }
    }
}

/// `POST /desk/logout`.
pub(super) async fn logout(State(views): State<Arc<Views>>, headers: HeaderMap) -> Response {
    if !crate::web::guard::same_site(&headers) {
        return crate::web::guard::refused();
    }
    views.desk_login.login.close(&headers);
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
