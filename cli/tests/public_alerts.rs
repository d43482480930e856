//! Issue 58, part 6, with real parts: alerts belong to the arbiters. A
//! simulated DGT board on a pty plays a game with an illegal move that
//! stands (an `illegal_move` error alert), no broadcast delay. By default
//! the arbiters' topic carries the alert and the public topic, the public
//! page's event stream and snapshot carry none (and the page is served
//! with its alerts panel off); with `[broadcast] public_alerts = true`
//! they all carry it.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use boardcast_sim::faults::{self, FaultKind};
use serde_json::Value;

use crate::util::{
    BoardConf, Broker, Daemon, SimBoard, SimOptions, Subscriber, free_port, game, write_config_with,
};

/// The body of `GET path` on loopback (whatever the status).
fn get(port: u16, path: &str) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("the page");
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    text.split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default()
}

/// The public page's event stream (`GET /events`), read until `stop`.
fn stream(port: u16, stop: &AtomicBool) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("the page");
    s.set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    write!(
        s,
        "GET /events HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n"
    )
    .unwrap();
    let mut out = Vec::new();
    let mut buf = [0u8; 8192];
    while !stop.load(Ordering::Relaxed) {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(_) => {}
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Plays the game with an illegal move that stands under `prefix`, with
/// `public_alerts` as given: the public topic's events, the page's stream,
/// its snapshot and its HTML, and the arbiters' and the public's last
/// states.
async fn scene(prefix: &str, public_alerts: bool) -> (Vec<Value>, String, Value, String) {
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let sub = Subscriber::connect(broker.port, &format!("{prefix}/#"), "watcher", false).await;
    let g = game(5, Some(30));
    let case = (0..40)
        .find_map(|seed| faults::chess::inject(&g, FaultKind::IllegalStands, seed))
        .expect("an illegal move to inject");
    let board = SimBoard::with_session(
        dir.path(),
        "one",
        g.clone(),
        case.session.clone(),
        SimOptions::fast("30060"),
    );
    let web = free_port();
    let mut extra = format!("\n[web]\nlisten = \"127.0.0.1:{web}\"\n");
    if public_alerts {
        extra.push_str("\n[broadcast]\npublic_alerts = true\n");
    }
    let config = write_config_with(
        dir.path(),
        &broker.url(),
        &extra,
        prefix,
        &[BoardConf {
            id: "1".into(),
            port: board.path().to_string_lossy().into_owned(),
            serial: None,
        }],
    );
    let daemon = Daemon::start(&config);
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(("127.0.0.1", web)).is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "no page: {}",
            daemon.log()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let stop = Arc::new(AtomicBool::new(false));
    let reader = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || stream(web, &stop))
    };
    // The arbiters get the alert, and the whole game.
    let (live, state) = (
        format!("{prefix}/arbiter/board/1/event"),
        format!("{prefix}/arbiter/board/1/state"),
    );
    sub.wait_for(
        "the illegal move's alert, live",
        Duration::from_secs(90),
        |msgs| {
            msgs.iter()
                .filter(|m| m.topic == live)
                .any(|m| m.json()["type"] == "alert" && m.json()["kind"] == "illegal_move")
                .then_some(())
        },
    )
    .await;
    let n = case.record.len();
    let arbiters = sub
        .wait_for("the whole game, live", Duration::from_secs(60), |msgs| {
            let s = msgs.iter().rev().find(|m| m.topic == state)?.json();
            (s["moves"].as_array()?.len() == n).then_some(s)
        })
        .await;
    assert_eq!(arbiters["irregular"], true, "{arbiters}");
    tokio::time::sleep(Duration::from_secs(1)).await;
    stop.store(true, Ordering::Relaxed);
    let events = tokio::task::spawn_blocking(move || reader.join().unwrap())
        .await
        .unwrap();
    let snapshot: Value = serde_json::from_str(&get(web, "/snapshot")).unwrap();
    let page = get(web, "/");
    let public = sub.json_on(&format!("{prefix}/board/1/event"));
    assert!(
        public.iter().any(|e| e["type"] == "move"),
        "the public topic carries the game"
    );
    assert!(
        events.contains("\"type\":\"move\""),
        "the stream carries the game"
    );
    let last = sub
        .last_on(&format!("{prefix}/board/1/state"))
        .expect("a public state");
    let public_state: Value = serde_json::from_str(&last).unwrap();
    drop(daemon);
    (
        public,
        events,
        serde_json::json!({ "snapshot": snapshot, "state": public_state }),
        page,
    )
}

fn alerts(events: &[Value]) -> usize {
    events.iter().filter(|e| e["type"] == "alert").count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn by_default_the_public_page_and_topic_carry_no_alert() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let (public, stream, seen, page) = scene("pa0", false).await;
    assert_eq!(alerts(&public), 0, "{public:#?}");
    assert!(
        !stream.contains("\"type\":\"alert\"") && !stream.contains("\"type\":\"decision\""),
        "{stream}"
    );
    assert_eq!(seen["snapshot"]["alerts"], serde_json::json!([]), "{seen}");
    // Nor what an error alert leaves in the state.
    assert_eq!(seen["state"]["irregular"], false, "{seen}");
    assert!(
        page.contains("data-alerts=\"off\""),
        "the page's panel is off"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_public_alerts_the_public_page_and_topic_carry_them() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let (public, stream, seen, page) = scene("pa1", true).await;
    assert!(
        public
            .iter()
            .any(|e| e["type"] == "alert" && e["kind"] == "illegal_move"),
        "{public:#?}"
    );
    assert!(stream.contains("\"kind\":\"illegal_move\""), "{stream}");
    assert!(
        seen["snapshot"]["alerts"]
            .as_array()
            .is_some_and(|a| !a.is_empty()),
        "{seen}"
    );
    assert_eq!(seen["state"]["irregular"], true, "{seen}");
    assert!(
        page.contains("data-alerts=\"on\""),
        "the page's panel is on"
    );
}
