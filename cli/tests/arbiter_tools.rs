//! Issue "Arbiter tools", items 1 to 3 live: a xiangqi board on the open
//! protocol plays a game with an illegal move; `boardcast run` publishes
//! the alert with its evidence; in headless Chromium the arbiter view
//! replays the readings behind it and records a decision; the decision is
//! an event on MQTT, survives a kill and restart of the daemon, and shows
//! in the round's report (`/report` and `boardcast report`).

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use boardcast_sim::faults::{self, FaultKind};
use boardcast_sim::open::{OtherGame, OtherGameProfile, read_xiangqi_games};
use serde_json::{Value, json};

use crate::live_games::open_boards;
use crate::util::{Broker, Daemon, Pace, Subscriber, binary, free_port};
use crate::web::{log_in, open_browser, wait_for};

fn screenshot(name: &str) -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| std::path::Path::new(crate::ROOT).join("target"));
    target.join(name)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_alert_replayed_decided_and_reported_across_a_restart_in_chromium() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto, crate::util::Tool::Chromium]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let sub = Subscriber::connect(broker.port, "at/#", "watcher", false).await;
    let xq = std::fs::read_to_string(
        std::path::Path::new(crate::ROOT).join("rules/tests/data/xiangqi-random.pgn"),
    )
    .unwrap();
    let profile = OtherGameProfile {
        human: false,
        pieces: true,
        rotated: false,
        real: false,
    };
    let case = read_xiangqi_games(&xq)
        .unwrap()
        .iter()
        .enumerate()
        .skip(4)
        .find_map(|(i, m)| {
            let mut m = m.clone();
            m.truncate(30);
            faults::xiangqi::inject(&m, FaultKind::Movement, profile, i as u64)
        })
        .expect("a game to inject an illegal move into");
    let pace = Pace::Compressed {
        think_ms: 400,
        factor: 10,
    };
    let (_sims, config) = open_boards(
        dir.path(),
        broker.port,
        "at",
        std::iter::once(("x1", OtherGame::Xiangqi, &case.session)),
        pace,
    );
    let web = free_port();
    let password = "tools arbiter password";
    let text = std::fs::read_to_string(&config).unwrap().replacen(
        "[serial]",
        &format!(
            "[web]\nlisten = \"127.0.0.1:{web}\"\narbiter_password = \"{password}\"\n\n[serial]"
        ),
        1,
    );
    std::fs::write(&config, text).unwrap();
    let daemon = Daemon::start(&config);

    // The alert, live, with its evidence.
    let alert = sub
        .wait_for(
            "the illegal move's alert",
            Duration::from_secs(90),
            |msgs| {
                msgs.iter()
                    .filter(|m| m.topic == "at/arbiter/board/x1/event")
                    .map(|m| m.json())
                    .find(|e| {
                        e["type"] == "alert" && e["kind"] == "illegal_move" && e["cleared"] != true
                    })
            },
        )
        .await;
    let evidence = &alert["evidence"];
    let seq = evidence["seq"].as_u64().expect("evidence.seq");
    assert!(
        evidence["from_t_ms"].as_u64() <= alert["t_ms"].as_u64(),
        "{alert}"
    );
    assert!(
        evidence["to_t_ms"].as_u64() > alert["t_ms"].as_u64(),
        "{alert}"
    );

    // The arbiter view: log in, replay the alert's readings, decide.
    let (_driver, client) = open_browser(dir.path()).await;
    let base = format!("http://127.0.0.1:{web}");
    client
        .goto(&format!("{base}/evidence/x1/{seq}"))
        .await
        .unwrap();
    let refused = client.source().await.unwrap();
    assert!(
        refused.contains("login is needed"),
        "evidence without the login: {refused}"
    );
    client.goto(&format!("{base}/arbiter")).await.unwrap();
    log_in(&client, password).await;
    let button = format!("#alerts li[data-seq='{seq}'] button[data-do=replay]");
    wait_for(
        &client,
        "the alert with its replay button",
        Duration::from_secs(15),
        &format!("return !!document.querySelector(\"{button}\");"),
        |v| v == &json!(true),
    )
    .await;
    client
        .find(fantoccini::Locator::Css(&button))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let steps = wait_for(
        &client,
        "the replay dialog",
        Duration::from_secs(10),
        "const d = document.getElementById('replay'); return d.open ? document.getElementById('replay-step').textContent : '';",
        |v| v.as_str().is_some_and(|s| !s.is_empty()),
    )
    .await;
    let total: usize = steps
        .as_str()
        .unwrap()
        .split(['/', ' '])
        .filter_map(|w| w.parse().ok())
        .nth(1)
        .unwrap_or(0);
    assert!(
        total >= 2,
        "the replay has the board before and the readings after: {steps}"
    );
    // Step to the last reading: the squares it changed are marked.
    for _ in 1..total {
        client
            .find(fantoccini::Locator::Id("replay-next"))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
    }
    let marked = client
        .execute(
            "return document.querySelectorAll('#replay .cell.changed').length;",
            vec![],
        )
        .await
        .unwrap();
    let png = client.screenshot().await.unwrap();
    std::fs::write(screenshot("evidence-replay.png"), png).unwrap();
    assert!(
        marked.as_u64() >= Some(1),
        "changed squares marked: {marked}"
    );
    // The JSON behind it: the readings span the evidence.
    let json_text = client
        .execute(
            &format!("return fetch('/evidence/x1/{seq}').then(r => r.text());"),
            vec![],
        )
        .await
        .unwrap();
    let ev: Value = serde_json::from_str(json_text.as_str().unwrap()).unwrap();
    let readings = ev["readings"].as_array().unwrap();
    assert!(readings.len() >= 2, "{ev}");
    assert!(
        readings
            .iter()
            .all(|r| r["t_ms"].as_u64() <= evidence["to_t_ms"].as_u64()),
        "{ev}"
    );
    assert!(
        readings[1..]
            .iter()
            .any(|r| !r["changed"].as_array().unwrap().is_empty()),
        "{ev}"
    );
    client
        .find(fantoccini::Locator::Id("replay-close"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let confirm = format!("#alerts li[data-seq='{seq}'] button[data-do=confirmed]");
    client
        .find(fantoccini::Locator::Css(&confirm))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let decision = sub
        .wait_for("the decision event", Duration::from_secs(15), |msgs| {
            msgs.iter()
                .filter(|m| m.topic == "at/arbiter/board/x1/event")
                .map(|m| m.json())
                .find(|e| e["type"] == "decision")
        })
        .await;
    assert_eq!(decision["alert"], seq, "{decision}");
    assert_eq!(decision["decision"], "confirmed", "{decision}");
    wait_for(
        &client,
        "the decision on the page",
        Duration::from_secs(10),
        &format!("const d = document.querySelector(\"#alerts li[data-seq='{seq}'] .decision\"); return d ? d.textContent : '';"),
        |v| v == "confirmed",
    )
    .await;

    // Killed and started again: the decision is still on record.
    let mut daemon = daemon;
    daemon.crash();
    let daemon = Daemon::start(&config);
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", web)).is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "no page after the restart: {}",
            daemon.log()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // Sessions end with the daemon: log in again.
    client.goto(&format!("{base}/arbiter")).await.unwrap();
    log_in(&client, password).await;
    client.goto(&format!("{base}/report")).await.unwrap();
    let page = wait_for(
        &client,
        "the report with the decision after the restart",
        Duration::from_secs(20),
        "return document.body ? document.body.innerText : '';",
        |v| v.as_str().is_some_and(|t| t.contains("confirmed")),
    )
    .await;
    let page = page.as_str().unwrap().to_string();
    assert!(page.contains("illegal_move"), "{page}");
    let png = client.screenshot().await.unwrap();
    std::fs::write(screenshot("round-report.png"), png).unwrap();
    client.close().await.unwrap();
    drop(daemon);

    // And from the captures alone, as an arbiter files it after the round.
    let out = Command::new(binary())
        .args(["report", "--format", "json", "--config"])
        .arg(&config)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let board = &report["boards"][0];
    assert_eq!(board["board"], "x1", "{report}");
    assert!(board["games"][0]["plies"].as_u64() > Some(0), "{report}");
    let listed = board["alerts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["seq"] == seq)
        .unwrap_or_else(|| panic!("alert {seq} in the report: {report}"));
    assert_eq!(listed["kind"], "illegal_move");
    assert_eq!(listed["decision"]["decision"], "confirmed", "{listed}");
    assert_eq!(listed["decision"]["by"], "arbiter view", "{listed}");
    assert!(listed["move_number"].as_u64() >= Some(1), "{listed}");
    assert!(listed["evidence"]["from_t_ms"].is_u64(), "{listed}");
}
