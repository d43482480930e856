//! The arbiters' tools on the live page's listener, all behind the arbiter
//! view's login: the readings behind an alert (`GET
//! /evidence/{board}/{seq}`, which the page's "replay" steps through), the
//! round's report (`GET /report`, `/report.json`), and decisions about
//! alerts (`POST /arbiter/decide`, handed to the board as a command; the
//! answer is the board's: `200` applied, `409` refused, `504` when the
//! board has not answered within [`DECISION_WAIT`]).

use std::collections::VecDeque;
use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use serde::{Deserialize, Serialize};

use super::{Views, admitted, form_field, json_response};
use crate::control::{Ack, Answer, DispatchError, OperatorCommand, RouteError};
use crate::event::{Decision, Millis};
use crate::report::{BoardReport, RoundReport};

/// Readings kept per board for the evidence replay: hours of play (a move
/// makes two to four).
const READINGS_KEPT: usize = 8_000;

/// What the tools remember of one board.
#[derive(Clone, Debug, Default)]
pub(super) struct Kept {
    /// The sensors' readings, oldest first: time and placement.
    readings: VecDeque<(Millis, Arc<str>)>,
    /// Readings dropped to stay within [`READINGS_KEPT`].
    dropped_before: Option<Millis>,
    /// The board's part of the report (JSON), as last published.
    pub(super) report: Option<String>,
}

impl Kept {
    /// A new reading.
    pub(super) fn reading(&mut self, t_ms: Millis, placement: &str) {
        if self.readings.len() >= READINGS_KEPT
            && let Some((t, _)) = self.readings.pop_front()
        {
            self.dropped_before = Some(t);
        }
        self.readings.push_back((t_ms, placement.into()));
    }
}

/// How long `POST /arbiter/decide` waits for the board's answer.
pub(super) const DECISION_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// One reading of an alert's evidence.
#[derive(Debug, Serialize)]
struct Step {
    t_ms: Millis,
    /// The pieces, rank by rank from the far side, `/` between ranks, one
    /// character a square (`.` empty, else the game's letter for the
    /// piece as its FEN or the open protocol's `board` line writes it).
    placement: String,
    /// The squares that changed since the step before.
    changed: Vec<String>,
}

/// `GET /evidence/{board}/{seq}`: the alert and the readings behind it.
pub(super) async fn evidence(
    State(views): State<Arc<Views>>,
    headers: HeaderMap,
    Path((board, seq)): Path<(String, u64)>,
) -> Response {
    if !admitted(&views, &headers) {
        return forbidden();
    }
    let s = views.arbiter.lock();
    let Some(index) = s.boards.iter().position(|b| *b == board) else {
        return not_found("no such board");
    };
    let alert = s.alerts.iter().find(|a| {
        a["board"].as_str() == Some(board.as_str()) && a["evidence"]["seq"].as_u64() == Some(seq)
    });
    let Some(alert) = alert else {
        return not_found("no alert with that number on this board (the page keeps the latest)");
    };
    let from = alert["evidence"]["from_t_ms"].as_u64().unwrap_or(0);
    let to = alert["evidence"]["to_t_ms"].as_u64().unwrap_or(u64::MAX);
    let kept = &s.kept[index];
    // The board as it stood at the start, then every reading up to the end.
    let start = kept.readings.partition_point(|(t, _)| *t <= from);
    let first = start.saturating_sub(1);
    let mut steps: Vec<Step> = Vec::new();
    for (t, placement) in kept.readings.range(first..).take_while(|(t, _)| *t <= to) {
        let changed = steps
            .last()
            .map(|p| changed_squares(&p.placement, placement))
            .unwrap_or_default();
        steps.push(Step {
            t_ms: *t,
            placement: grid(placement)
                .iter()
                .map(|row| row.iter().map(|c| c.unwrap_or('.')).collect::<String>())
                .collect::<Vec<_>>()
                .join("/"),
            changed,
        });
    }
    let complete = kept.dropped_before.is_none_or(|d| d < from) && start > 0;
    let body = serde_json::json!({
        "board": board,
        "seq": seq,
        "alert": alert,
        "from_t_ms": from,
        "to_t_ms": to,
        "complete": complete,
        "readings": steps,
    });
    json_response(body.to_string()).into_response()
}

/// The squares whose content differs between two placements (ranks from
/// the far side, `/` between them, digits for runs of empty squares),
/// named by file letter and rank number (rank 1 nearest the first
/// player; xiangqi counts from 0, as its notation does).
pub(super) fn changed_squares(before: &str, after: &str) -> Vec<String> {
    let (a, b) = (grid(before), grid(after));
    let ranks = a.len().max(b.len());
    let base = if ranks == 10 { 0 } else { 1 };
    let mut out = Vec::new();
    for r in 0..ranks {
        let (ra, rb) = (
            a.get(r).cloned().unwrap_or_default(),
            b.get(r).cloned().unwrap_or_default(),
        );
        for f in 0..ra.len().max(rb.len()) {
            if ra.get(f) != rb.get(f) {
                let file = (b'a' + f as u8) as char;
                out.push(format!("{file}{}", ranks - 1 - r + base));
            }
        }
    }
    out
}

/// A placement as rows of cells (`None`: empty), far rank first: a FEN's
/// board part, or a board's cells in one run (64 or 90 characters, far
/// rank first, `.` empty).
fn grid(placement: &str) -> Vec<Vec<Option<char>>> {
    if !placement.contains('/') {
        let files = if placement.chars().count() == 90 {
            9
        } else {
            8
        };
        let cells: Vec<Option<char>> = placement.chars().map(|c| (c != '.').then_some(c)).collect();
        return cells.chunks(files).map(<[Option<char>]>::to_vec).collect();
    }
    placement
        .split('/')
        .map(|row| {
            let mut cells = Vec::new();
            let mut run = 0u32;
            for c in row.chars() {
                if let Some(d) = c.to_digit(10) {
                    run = run * 10 + d;
                    continue;
                }
                cells.extend(std::iter::repeat_n(None, run as usize));
                run = 0;
                cells.push((c != '.').then_some(c));
            }
            cells.extend(std::iter::repeat_n(None, run as usize));
            cells
        })
        .collect()
}

/// Which round a report is asked for (`?round=N`; the latest by default).
#[derive(Debug, Deserialize)]
pub(super) struct RoundQuery {
    round: Option<u32>,
}

pub(super) fn round_report(views: &Views, round: Option<u32>) -> RoundReport {
    let parts: Vec<BoardReport> = views
        .arbiter
        .lock()
        .kept
        .iter()
        .filter_map(|k| k.report.as_deref())
        .filter_map(|j| serde_json::from_str(j).ok())
        .collect();
    let latest = parts
        .iter()
        .flat_map(|p| p.games.iter().map(|g| g.round))
        .max()
        .unwrap_or(1);
    let event = parts
        .iter()
        .find_map(|p| p.event.clone())
        .unwrap_or_else(|| "boardcast".into());
    RoundReport::of_round(&event, round.unwrap_or(latest), parts)
}

/// `GET /report`: the round's report as a printable page.
pub(super) async fn report_page(
    State(views): State<Arc<Views>>,
    headers: HeaderMap,
    Query(q): Query<RoundQuery>,
) -> Response {
    if !admitted(&views, &headers) {
        return forbidden();
    }
    Html(round_report(&views, q.round).to_html()).into_response()
}

/// `GET /report.json`: the round's report as JSON.
pub(super) async fn report_json(
    State(views): State<Arc<Views>>,
    headers: HeaderMap,
    Query(q): Query<RoundQuery>,
) -> Response {
    if !admitted(&views, &headers) {
        return forbidden();
    }
    json_response(round_report(&views, q.round).to_json()).into_response()
}

/// The longest decision form read.
const MAX_DECISION_BODY: usize = 2048;

/// `POST /arbiter/decide` (form fields `board`, `alert`, `decision`,
/// optional `note`): the decision goes to the board as a command, as a
/// signed one would, and its answer comes back.
pub(super) async fn decide(
    State(views): State<Arc<Views>>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    if !admitted(&views, &headers) {
        return forbidden();
    }
    if !super::guard::same_site(&headers) {
        return super::guard::refused();
    }
    let Some(form) = (body.len() <= MAX_DECISION_BODY)
        .then(|| std::str::from_utf8(&body).ok())
        .flatten()
    else {
        return bad("the form is too long or not text");
    };
    let board = form_field(form, "board").unwrap_or_default();
    let Some(alert) = form_field(form, "alert").and_then(|a| a.parse::<u64>().ok()) else {
        return bad("`alert`: the alert's number");
    };
    let decision = match form_field(form, "decision").as_deref() {
        Some("confirmed") => Decision::Confirmed,
        Some("dismissed") => Decision::Dismissed,
        Some("handled") => Decision::Handled,
        _ => return bad("`decision`: confirmed, dismissed or handled"),
    };
    let note = form_field(form, "note").filter(|n| !n.trim().is_empty());
    let command = OperatorCommand::Decide {
        alert,
        decision,
        note,
    };
    match dispatch(&views, &board, command, "arbiter view", "arbiter-view") {
        Ok(answer) => outcome(tokio::time::timeout(DECISION_WAIT, answer).await),
        Err(r) => r.into_response(),
    }
}

/// Hands `command` to board `board` through the command route
/// ([`crate::control::Router::dispatch`], a nonce starting `prefix`), sent
/// by `by`: the receiver gets the board's answer, on the request's own
/// reply channel.
pub(super) fn dispatch(
    views: &Views,
    board: &str,
    command: OperatorCommand,
    by: &str,
    prefix: &str,
) -> Result<Answer, Refused> {
    views
        .router()
        .dispatch(board, command, by, prefix)
        .map_err(|e| match e {
            DispatchError::Invalid(e) => Refused(StatusCode::BAD_REQUEST, e.to_string()),
            DispatchError::Route(RouteError::NoSuchBoard(_)) => {
                Refused(StatusCode::NOT_FOUND, "no such board".into())
            }
            DispatchError::Route(RouteError::Busy(_)) => Refused(
                StatusCode::SERVICE_UNAVAILABLE,
                "the board is busy; try again".into(),
            ),
        })
}

/// A refusal: its status and one line saying why.
#[derive(Debug)]
pub(super) struct Refused(pub(super) StatusCode, pub(super) String);

impl IntoResponse for Refused {
    fn into_response(self) -> Response {
        (self.0, format!("{}\n", self.1)).into_response()
    }
}

/// The answer to a decision: the board's outcome, or `504`.
pub(super) fn outcome(
    answer: Result<
        Result<Ack, tokio::sync::oneshot::error::RecvError>,
        tokio::time::error::Elapsed,
    >,
) -> Response {
    match answer {
        Ok(Ok(ack)) if ack.accepted => (StatusCode::OK, format!("{}\n", ack.message)).into_response(),
        Ok(Ok(ack)) => (StatusCode::CONFLICT, format!("{}\n", ack.message)).into_response(),
        _ => (
            StatusCode::GATEWAY_TIMEOUT,
            format!(
                "the board did not answer within {} s; the decision may still be applied: the alert shows it when it is\n",
                DECISION_WAIT.as_secs()
            ),
        )
            .into_response(),
    }
}

fn forbidden() -> Response {
    (
        StatusCode::FORBIDDEN,
        "the arbiter view's login is needed\n",
    )
        .into_response()
}

fn not_found(what: &str) -> Response {
    (StatusCode::NOT_FOUND, format!("{what}\n")).into_response()
}

fn bad(what: &str) -> Response {
    (StatusCode::BAD_REQUEST, format!("{what}\n")).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(accepted: bool) -> Ack {
        Ack {
            nonce: Some("n".into()),
            board: "1".into(),
            accepted,
            changed: accepted,
            message: if accepted {
                "applied"
            } else {
                "refused: no alert"
            }
            .into(),
            code: (!accepted).then(|| "no_alert".into()),
        }
    }

    #[tokio::test]
    async fn a_decision_is_answered_with_the_boards_outcome_or_504_when_it_never_answers() {
        let ok = |a: Ack| Ok(Ok(a));
        assert_eq!(outcome(ok(ack(true))).status(), StatusCode::OK);
        assert_eq!(outcome(ok(ack(false))).status(), StatusCode::CONFLICT);
        // The board never answered within the wait.
        let never = std::future::pending::<Result<Ack, tokio::sync::oneshot::error::RecvError>>();
        let waited = tokio::time::timeout(std::time::Duration::ZERO, never).await;
        assert_eq!(outcome(waited).status(), StatusCode::GATEWAY_TIMEOUT);
        // The board's task went away without answering.
        let (tx, rx) = tokio::sync::oneshot::channel::<Ack>();
        drop(tx);
        let gone = tokio::time::timeout(std::time::Duration::from_secs(1), rx).await;
        assert_eq!(outcome(gone).status(), StatusCode::GATEWAY_TIMEOUT);
    }

    #[test]
    fn changed_squares_are_named_for_chess_and_xiangqi_placements() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
        let lifted = "rnbqkbnr/pppppppp/8/8/8/8/PPPP1PPP/RNBQKBNR";
        let moved = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR";
        assert_eq!(changed_squares(start, lifted), ["e2"]);
        assert_eq!(changed_squares(lifted, moved), ["e4"]);
        let x0 = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR";
        let x1 = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR";
        assert_eq!(changed_squares(x0, x1), ["e2", "h2"]);
        let mut d0 = ".m.m.m.m".repeat(8);
        let d1 = d0.clone();
        d0.replace_range(56..57, "M");
        assert_eq!(changed_squares(&d1, &d0), ["a1"]);
    }
}
