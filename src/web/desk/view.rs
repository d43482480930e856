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
pub(super) async fn events(State(views): State<Arc<Views>>, headers: HeaderMap) -> Response {
    if let Err(r) = gate(&views, &headers, false) {
        return r.into_response();
    }
    crate::web::stream(&views.arbiter_streams, &views.arbiter)
}
