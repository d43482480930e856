//! What the desk page reads: the boards (their live state and last board
//! check, the ports with a board no board reads), the round and its plan
//! (`GET /desk/state`), and the live stream (`GET /desk/events`).

use std::sync::Arc;

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};

use super::gate;
use crate::desk::live::Desk;
use crate::web::{Views, json_response};

/// `GET /desk/state`: the boards, the round and its plan (JSON; see
/// docs/operator.md).
pub(super) async fn state(State(views): State<Arc<Views>>, headers: HeaderMap) -> Response {
    match gate(&views, &headers, false) {
        Ok(desk) => state_reply(&views, &desk).await,
        Err(r) => r.into_response(),
    }
}

/// The boards the desk runs: the daemon's, or every bridge's on a hub.
pub(super) fn sensors(views: &Views) -> Vec<String> {
    views.arbiter.lock().boards.clone()
}

/// The desk's state as the answer to a request (JSON).
pub(super) async fn state_reply(views: &Views, desk: &Desk) -> Response {
    let found = found_ports_cached(views).await;
    json_response(state_json(views, desk, found).to_string()).into_response()
}

/// The serial ports with a known board: each port's path and what the
/// desk says of it.
pub(in crate::web) type FoundPorts = Vec<(String, serde_json::Value)>;

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

/// Nothing, to lend where a state has no value.
static NULL: serde_json::Value = serde_json::Value::Null;

fn state_json(views: &Views, desk: &Desk, found: FoundPorts) -> serde_json::Value {
    let (state, file, plan) = desk.view(&sensors(views));
    let snapshot = views.arbiter.lock();
    let mut checks = views.desk_checks.lock().unwrap_or_else(|e| e.into_inner());
    let boards: Vec<serde_json::Value> = snapshot
        .boards
        .iter()
        .zip(&snapshot.states)
        .map(|(id, s)| {
            // The board check describes the board only while the state
            // carries it (before a game's first move); what the last one
            // said of the board's identity stays, for a board whose state
            // names no model (a bridge of an older version).
            let check = s.as_ref().map_or(&NULL, |s| &s["readiness"]);
            let identity = if check.is_object() {
                checks.insert(id.clone(), check["identity"]["message"].clone());
                check["identity"]["message"].clone()
            } else {
                checks.get(id).cloned().unwrap_or_default()
            };
            let mut board = board_json(id, s.as_ref(), check, state.assigned.get(id).copied());
            board["identity"] = identity;
            board
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
        "progress": plan.progress,
        "warnings": plan.warnings,
        "differences": plan.differences,
        "lichess": views
            .lichess
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .map(|s| s.json()),
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

/// How a board stands now, for its badge: `label` (`offline`, `ready`,
/// `not ready`, `game over`, `playing`), `status` (`ok`, `warn`, `fail`)
/// and `details` (each `status` and `message`: what is wrong or worth a
/// look), from its live state `s` and the board check `check` that state
/// carries (`null` once a game's first move is played).
///
/// Design: the board check is made before a game's first move; the desk
/// never shows one from before (a board 19 half-moves into its game is
/// `playing`, not "not ready" for a game long over). A game over whose
/// board still shows its last position is `game over` (a warning, not a
/// fault: setting up for the next game is the next step).
pub(in crate::web) fn now(s: &serde_json::Value, check: &serde_json::Value) -> serde_json::Value {
    let item =
        |status: &str, message: &str| serde_json::json!({"status": status, "message": message});
    let badge = |label: &str, status: &str, details: Vec<serde_json::Value>| serde_json::json!({"label": label, "status": status, "details": details});
    if s["status"].as_str().is_none_or(|st| st == "offline") {
        let why = "Not connected: no board answers on its line.";
        return badge("offline", "fail", vec![item("fail", why)]);
    }
    let Some(items) = check.as_object() else {
        let mut details = Vec::new();
        if s["recognised"] == false {
            let why = "The board does not agree with the game: see the arbiter view's alerts.";
            details.push(item("warn", why));
        }
        if s["irregular"] == true {
            details.push(item("warn", "An alert was raised in this game."));
        }
        let status = if details.is_empty() { "ok" } else { "warn" };
        return badge("playing", status, details);
    };
    let of = |wanted: &str| -> Vec<serde_json::Value> {
        items
            .values()
            .filter(|v| v["status"] == wanted)
            .map(|v| item(wanted, v["message"].as_str().unwrap_or_default()))
            .collect()
    };
    let (fails, warns) = (of("fail"), of("warn"));
    let over = s["result"].as_str().is_some_and(|r| r != "*") && s["ply"].as_u64() > Some(0);
    match check["ready"].as_bool() {
        Some(true) => badge("ready", "ok", warns),
        _ if over => badge("game over", "warn", fails),
        _ => badge("not ready", "fail", fails),
    }
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
        "model": s["model"],
        "firmware": s["firmware"],
        "rotated": s["rotated"].as_bool().unwrap_or(false),
        "ready": check["ready"],
        "readiness": readiness,
        "now": now(s, check),
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

/// `GET /desk/events`: the live stream of the arbiters' fan-out (states with
/// the sensed pieces, which "Identify" watches).
pub(super) async fn events(State(views): State<Arc<Views>>, headers: HeaderMap) -> Response {
    if let Err(r) = gate(&views, &headers, false) {
        return r.into_response();
    }
    crate::web::stream(&views.arbiter_streams, &views.arbiter)
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::now;

    fn check(ready: bool, setup: (&str, &str)) -> Value {
        json!({
            "ready": ready,
            "connected": {"status": "ok", "message": "Connected."},
            "clock": {"status": "warn", "message": "No clock."},
            "setup": {"status": setup.0, "message": setup.1},
        })
    }

    #[test]
    fn a_board_in_its_game_is_playing_whatever_an_old_check_said() {
        let s = json!({"status": "connected", "recognised": true, "irregular": false, "ply": 19});
        let n = now(&s, &Value::Null);
        assert_eq!(n["label"], "playing", "{n}");
        assert_eq!(n["status"], "ok", "{n}");
        assert_eq!(n["details"], json!([]));
        let s = json!({"status": "connected", "recognised": false, "irregular": true, "ply": 19});
        let n = now(&s, &Value::Null);
        assert_eq!(
            (n["label"].as_str(), n["status"].as_str()),
            (Some("playing"), Some("warn"))
        );
        assert_eq!(n["details"].as_array().map(Vec::len), Some(2), "{n}");
    }

    #[test]
    fn before_a_game_the_check_of_now_decides() {
        let s = json!({"status": "connected", "ply": 0, "result": null});
        let ready = now(&s, &check(true, ("ok", "The start position stands.")));
        assert_eq!(ready["label"], "ready");
        assert_eq!(ready["details"][0]["message"], "No clock.", "{ready}");
        let bad = "The board is empty: set up the start position.";
        let not = now(&s, &check(false, ("fail", bad)));
        assert_eq!(
            (not["label"].as_str(), not["status"].as_str()),
            (Some("not ready"), Some("fail"))
        );
        assert_eq!(not["details"], json!([{"status": "fail", "message": bad}]));
        // A game just over, its position still on the board.
        let s = json!({"status": "connected", "ply": 77, "result": "1-0"});
        let on =
            "A game is on the board (77 plies played): set up the start position for the next one.";
        let over = now(&s, &check(false, ("fail", on)));
        assert_eq!(
            (over["label"].as_str(), over["status"].as_str()),
            (Some("game over"), Some("warn"))
        );
        assert_eq!(over["details"][0]["message"], on);
    }

    #[test]
    fn a_board_without_a_line_is_offline() {
        let n = now(&json!({"status": "offline"}), &Value::Null);
        assert_eq!(
            (n["label"].as_str(), n["status"].as_str()),
            (Some("offline"), Some("fail"))
        );
        assert_eq!(now(&Value::Null, &Value::Null)["label"], "offline");
    }
}
