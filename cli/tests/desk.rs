//! Issue 45: the operator's desk. A whole round driven in headless
//! Chromium on emulated DGT boards (pseudo-terminals) with Mosquitto: log
//! in, upload the pairing program's TRF file, assign the boards, type the
//! result of a game without a sensor board, start the round, identify a
//! board by lifting a piece, correct a result and swap players, restart
//! the daemon mid-round and find everything as it was, download the PGN
//! and the TRF (whose results are the games'); no sideways scrolling at
//! 1024x768. And the first run: `boardcast run` with no configuration
//! serves the demo's boards on the desk, where a round starts. [`layout`]:
//! the page as an operator reads it (issue 58), and its screenshots.

mod layout;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::check::{dgt_board, start};
use crate::hardening::request;
use crate::util::{Broker, Daemon, Subscriber, binary, free_port};
use crate::web::{open_browser, wait_for};

const PASSWORD: &str = "desk password 45";
/// Eight players; round 1 played, round 2 paired with blank results.
pub(crate) const TRF: &str = "tests/data/trf/desk-round-2.trf";

fn screenshot(name: &str) -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(crate::ROOT).join("target"));
    target.join(name)
}

use boardcast::games::chess::Square;
use boardcast::track::Cell;

/// Leaves a screenshot of the page in the target folder.
async fn snap(client: &fantoccini::Client, name: &str) {
    std::fs::write(screenshot(name), client.screenshot().await.unwrap()).unwrap();
}

/// A white pawn, as the board's sensors read it.
fn white_pawn() -> Cell {
    start()[Square::E2 as usize]
}

/// The desk's state, fetched by the page's own session.
async fn desk_state(client: &fantoccini::Client) -> Value {
    client
        .execute("return fetch('/desk/state').then(r => r.json());", vec![])
        .await
        .expect("the desk's state")
}

/// Text the page fetches from `path` with its session.
async fn fetched(client: &fantoccini::Client, path: &str) -> String {
    let v = client
        .execute(
            "return fetch(arguments[0]).then(r => r.text());",
            vec![Value::String(path.into())],
        )
        .await
        .expect("a download");
    v.as_str().unwrap_or_default().to_string()
}

/// Clicks the element `css` names, brought to the middle of the window
/// first (clear of the desk's sticky header).
async fn click(client: &fantoccini::Client, css: &str) {
    let element = client
        .find(fantoccini::Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("{css}: {e}"));
    client
        .execute(
            "arguments[0].scrollIntoView({block: 'center'}); return true;",
            vec![serde_json::to_value(&element).unwrap()],
        )
        .await
        .unwrap();
    element
        .click()
        .await
        .unwrap_or_else(|e| panic!("{css}: {e}"));
}

/// Chooses `value` in the select `id` as a hand would (a change event).
async fn choose(client: &fantoccini::Client, id: &str, value: &str) {
    client
        .execute(
            "const s = document.getElementById(arguments[0]); s.focus(); s.value = arguments[1]; s.dispatchEvent(new Event('change', {bubbles: true})); s.blur(); return s.value;",
            vec![Value::String(id.into()), Value::String(value.into())],
        )
        .await
        .unwrap_or_else(|e| panic!("{id}: {e}"));
}

/// Waits for the message line to say something containing `words`.
async fn message(client: &fantoccini::Client, what: &str, words: &str) -> String {
    let words = words.to_string();
    wait_for(
        client,
        what,
        Duration::from_secs(20),
        "return (document.getElementById('desk-message') || {}).textContent || '';",
        move |v| v.as_str().is_some_and(|t| t.contains(&words)),
    )
    .await
    .as_str()
    .unwrap()
    .to_string()
}

async fn log_in(client: &fantoccini::Client) {
    let key = client
        .find(fantoccini::Locator::Id("desk-key"))
        .await
        .expect("the desk's login form");
    key.send_keys(PASSWORD).await.unwrap();
    click(client, "#desk-login").await;
    wait_for(
        client,
        "the desk's boards",
        Duration::from_secs(20),
        "return document.querySelectorAll('#boards-body .card[data-board]').length;",
        |v| v.as_u64() == Some(3),
    )
    .await;
}

/// The result column (`1`, `0`, `=`, blank) of `name`'s round `round` in
/// a TRF file.
fn trf_result(trf: &str, name: &str, round: usize) -> char {
    let line = trf
        .lines()
        .find(|l| l.starts_with("001") && l.get(14..47).is_some_and(|n| n.trim() == name))
        .unwrap_or_else(|| panic!("{name} in\n{trf}"));
    line.chars().nth(91 + 10 * (round - 1) + 7).unwrap_or(' ')
}

/// DGT boards named `names` on pseudo-terminals, standing in the start
/// position with a clock, and a configuration (topics under `prefix`)
/// serving the desk with `password` on a free port: the boards, the
/// configuration's path and the port.
pub(crate) fn desk_boards<const N: usize>(
    dir: &Path,
    broker: &Broker,
    prefix: &str,
    names: [&str; N],
    password: &str,
) -> (Vec<crate::util::SimBoard>, PathBuf, u16) {
    let boards: Vec<_> = names
        .iter()
        .enumerate()
        .map(|(i, name)| dgt_board(dir, (name, &format!("4{N}{i:03}")), start(), (5400, 5400)))
        .collect();
    let confs: Vec<crate::util::BoardConf> = names
        .iter()
        .zip(&boards)
        .map(|(id, b)| crate::util::BoardConf {
            id: (*id).into(),
            port: b.pattern(),
            serial: None,
        })
        .collect();
    let config = crate::util::write_config(dir, broker.port, prefix, &confs);
    let web = free_port();
    let text = std::fs::read_to_string(&config).unwrap().replacen(
        "[serial]",
        &format!("[web]\nlisten = \"127.0.0.1:{web}\"\ndesk_password = \"{password}\"\n\n[serial]"),
        1,
    );
    std::fs::write(&config, text).unwrap();
    (boards, config, web)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_round_run_from_the_desk_in_chromium_across_a_restart() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto, crate::util::Tool::Chromium]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let sub = Subscriber::connect(broker.port, "desk/#", "watcher", false).await;
    // Three boards standing in the start position between rounds.
    let (boards, config, web) =
        desk_boards(dir.path(), &broker, "desk", ["d1", "d2", "d3"], PASSWORD);
    let mut daemon = Daemon::start(&config);
    crate::hardening::wait_port(web, &daemon);

    let (_driver, client) = open_browser(dir.path()).await;
    client.set_window_size(1440, 900).await.unwrap();
    let base = format!("http://127.0.0.1:{web}");
    client.goto(&format!("{base}/desk")).await.unwrap();
    snap(&client, "desk-login.png").await;
    log_in(&client).await;

    // The round: the pairing program's file, uploaded.
    let trf_path = Path::new(crate::ROOT).join(TRF).canonicalize().unwrap();
    client
        .find(fantoccini::Locator::Id("trf-file"))
        .await
        .unwrap()
        .send_keys(&trf_path.display().to_string())
        .await
        .unwrap();
    click(&client, "#trf-upload").await;
    wait_for(
        &client,
        "round 2's pairings",
        Duration::from_secs(20),
        "return document.querySelectorAll('#pairings-body tr[data-number]').length;",
        |v| v.as_u64() == Some(4),
    )
    .await;
    choose(&client, "round-select", "2").await;
    let state = desk_state(&client).await;
    assert_eq!(state["round"], 2, "{state}");
    let pairing = |s: &Value, n: u64| -> Value {
        s["pairings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["board"] == n)
            .cloned()
            .unwrap_or_else(|| panic!("pairing board {n} in {s}"))
    };
    // Sensor boards d1..d3 play pairing boards 1..3; board 4 has none.
    for (sensor, number) in [("d1", "1"), ("d2", "2"), ("d3", "3")] {
        choose(&client, &format!("assign-{sensor}"), number).await;
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let state = desk_state(&client).await;
    for (sensor, number) in [("d1", 1), ("d2", 2), ("d3", 3)] {
        assert_eq!(pairing(&state, number)["sensor"], sensor, "{state}");
    }
    let warnings = state["warnings"].to_string();
    assert!(
        warnings.contains("pairing board 4 has no sensor board"),
        "{warnings}"
    );
    choose(&client, "typed-4", "1/2-1/2").await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(pairing(&desk_state(&client).await, 4)["typed"], "1/2-1/2");
    client
        .execute(
            "document.getElementById('round').scrollIntoView(); return true;",
            vec![],
        )
        .await
        .unwrap();
    snap(&client, "desk-round.png").await;

    // Start the round: each board takes up a new game with its players.
    client
        .execute("window.confirm = () => true; return true;", vec![])
        .await
        .unwrap();
    click(&client, "#start-round").await;
    message(&client, "the round's start", "started on 3 boards").await;
    let started = wait_for(
        &client,
        "every board on its pairing board of round 2",
        Duration::from_secs(30),
        "return fetch('/desk/state').then(r => r.json());",
        |s| {
            s["boards"].as_array().is_some_and(|b| {
                b.iter()
                    .all(|b| b["round"] == 2 && Some(&b["number"]) == b.get("assigned"))
            })
        },
    )
    .await;
    let board_of = |s: &Value, id: &str| -> Value {
        s["boards"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["id"] == id)
            .cloned()
            .unwrap()
    };
    let p1 = pairing(&started, 1);
    assert_eq!(board_of(&started, "d1")["white"], p1["white"]["name"]);
    assert_eq!(board_of(&started, "d1")["black"], p1["black"]["name"]);

    // Identify: a piece lifted on d2 (and set back) marks d2.
    click(&client, "#identify").await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    boards[1].hand(Square::E2, Cell::Empty);
    tokio::time::sleep(Duration::from_millis(400)).await;
    boards[1].hand(Square::E2, white_pawn());
    wait_for(
        &client,
        "d2 identified",
        Duration::from_secs(15),
        "return (document.getElementById('identify-result') || {}).textContent || '';",
        |v| v.as_str().is_some_and(|t| t.contains("d2")),
    )
    .await;
    let marked = client
        .execute(
            "return Array.from(document.querySelectorAll('#boards-body .card.identified')).map(r => r.dataset.board);",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(marked, serde_json::json!(["d2"]));
    click(&client, "#identify").await;

    // A move on d1, then its result set from the desk.
    boards[0].hand(Square::E2, Cell::Empty);
    tokio::time::sleep(Duration::from_millis(300)).await;
    boards[0].hand(Square::E4, white_pawn());
    wait_for(
        &client,
        "e4 on d1",
        Duration::from_secs(20),
        "return fetch('/desk/state').then(r => r.json());",
        |s| {
            s["boards"]
                .as_array()
                .is_some_and(|b| b.iter().any(|b| b["id"] == "d1" && b["ply"] == 1))
        },
    )
    .await;
    click(&client, "button.correct[data-board=\"d1\"]").await;
    snap(&client, "desk-correct.png").await;
    click(
        &client,
        "button[data-command=\"set_result\"][data-result=\"1-0\"]",
    )
    .await;
    message(&client, "the result set", "1-0").await;
    click(&client, "#correct-close").await;
    click(&client, "button.correct[data-board=\"d2\"]").await;
    click(&client, "button[data-command=\"swap_players\"]").await;
    message(&client, "the players swapped", "players set").await;
    click(&client, "#correct-close").await;
    let p2 = pairing(&started, 2);

    // Corrections are events naming the desk.
    let corrections = sub
        .wait_for("the desk's corrections", Duration::from_secs(10), |msgs| {
            let c: Vec<Value> = msgs
                .iter()
                .filter(|m| m.topic.ends_with("/event"))
                .map(|m| m.json())
                .filter(|e| e["type"] == "correction")
                .collect();
            (c.iter().filter(|e| e["command"] != "start_game").count() >= 2).then_some(c)
        })
        .await;
    for c in &corrections {
        assert!(
            c["by"].as_str().is_some_and(|b| b.starts_with("desk")),
            "a desk correction names the desk: {c}"
        );
    }

    // A 1024x768 tablet: no sideways scrolling.
    client.set_window_size(1024, 768).await.unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let wide = client
        .execute(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth;",
            vec![],
        )
        .await
        .unwrap();
    assert!(
        wide.as_i64().is_some_and(|w| w <= 0),
        "sideways scroll at 1024: {wide}"
    );

    // A restart mid-round: everything as it was.
    assert!(daemon.stop().success(), "{}", daemon.log());
    let daemon = Daemon::start(&config);
    crate::hardening::wait_port(web, &daemon);
    client.goto(&format!("{base}/desk")).await.unwrap();
    log_in(&client).await;
    let after = wait_for(
        &client,
        "the round as it was",
        Duration::from_secs(30),
        "return fetch('/desk/state').then(r => r.json());",
        |s| {
            s["boards"].as_array().is_some_and(|b| {
                b.iter()
                    .all(|b| b["round"] == 2 && b["status"] != "offline")
            })
        },
    )
    .await;
    assert_eq!(after["started"], 2, "{after}");
    assert_eq!(after["round"], 2, "{after}");
    assert_eq!(board_of(&after, "d1")["result"], "1-0", "{after}");
    assert_eq!(board_of(&after, "d1")["ply"], 1, "{after}");
    assert_eq!(
        board_of(&after, "d2")["white"],
        p2["black"]["name"],
        "{after}"
    );
    assert_eq!(
        board_of(&after, "d2")["black"],
        p2["white"]["name"],
        "{after}"
    );
    for (sensor, number) in [("d1", 1), ("d2", 2), ("d3", 3)] {
        assert_eq!(board_of(&after, sensor)["assigned"], number, "{after}");
        assert_eq!(board_of(&after, sensor)["number"], number, "{after}");
    }
    assert_eq!(pairing(&after, 4)["typed"], "1/2-1/2", "{after}");

    // Out: the round's PGN and the TRF with its results.
    let pgn = fetched(&client, "/desk/round.pgn").await;
    assert!(pgn.contains("[Round \"2.1\"]"), "{pgn}");
    assert!(pgn.contains("1. e4"), "{pgn}");
    assert!(pgn.contains("[Result \"1-0\"]"), "{pgn}");
    let trf = fetched(&client, "/desk/results.trf").await;
    let name = |p: &Value, side: &str| p[side]["name"].as_str().unwrap().to_string();
    assert_eq!(trf_result(&trf, &name(&p1, "white"), 2), '1', "{trf}");
    assert_eq!(trf_result(&trf, &name(&p1, "black"), 2), '0', "{trf}");
    let p4 = pairing(&after, 4);
    assert_eq!(trf_result(&trf, &name(&p4, "white"), 2), '=', "{trf}");
    assert_eq!(trf_result(&trf, &name(&p4, "black"), 2), '=', "{trf}");
    // Games still going have no result in the file yet.
    assert_eq!(trf_result(&trf, &name(&p2, "white"), 2), ' ', "{trf}");
    // Round 1's results are as the file had them.
    assert_eq!(trf_result(&trf, "Ashdown, Alice", 1), '1', "{trf}");
    drop(boards);
}

/// A form POST to the page at `port` from the page itself (its `Origin`),
/// with the session `cookie`: the status and the reply.
pub(crate) fn post_form(port: u16, path: &str, body: &str, cookie: &str) -> (u16, String) {
    request(
        port,
        &format!(
            "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: http://127.0.0.1:{port}\r\nCookie: {cookie}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ),
    )
}

/// A GET with the session `cookie`.
pub(crate) fn get_with(port: u16, path: &str, cookie: &str) -> (u16, String) {
    request(
        port,
        &format!("GET {path} HTTP/1.1\r\nHost: x\r\nCookie: {cookie}\r\nConnection: close\r\n\r\n"),
    )
}

/// The session a login's reply sets (`name=value`).
pub(crate) fn session_cookie(reply: &str) -> String {
    reply
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("set-cookie: ")
                .map(|c| c.to_string())
        })
        .and_then(|c| c.split(';').next().map(str::to_string))
        .unwrap_or_else(|| panic!("a session cookie in {reply}"))
}

/// The first run: no configuration file; the demo's boards are on the desk
/// and a round starts from it.
#[test]
fn the_first_run_without_a_configuration_serves_the_demo_boards_on_the_desk() {
    let dir = tempfile::tempdir().unwrap();
    let (web, broker) = (free_port(), free_port());
    let data = dir.path().join("data");
    let log = dir.path().join("first-run.log");
    let mut child = Command::new(binary())
        .args(["run", "--web", &format!("127.0.0.1:{web}")])
        .args(["--broker", &format!("127.0.0.1:{broker}")])
        .arg("--data")
        .arg(&data)
        // No configuration file where `run` looks, whatever this machine
        // has installed.
        .env("BOARDCAST_CONFIG", dir.path().join("none.toml"))
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", web)).is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "{}",
            std::fs::read_to_string(&log).unwrap()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let post = |path: &str, body: &str, cookie: &str| post_form(web, path, body, cookie);
    // The desk asks for its password first (the page may listen a moment
    // before the desk is set up on it, on a loaded machine).
    let first = || {
        request(
            web,
            "GET /desk HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        )
    };
    let (mut code, mut page) = first();
    while code == 404 && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(100));
        (code, page) = first();
    }
    assert_eq!(code, 401, "{page}");
    assert!(page.contains("first run"), "{page}");
    let (code, reply) = post("/desk/password", "key=first+run+pw&again=first+run+pw", "");
    assert_eq!(code, 303, "{reply}");
    let cookie = session_cookie(&reply);
    let get = |path: &str| get_with(web, path, &cookie);
    let body = |reply: &str| {
        reply
            .split_once("\r\n\r\n")
            .map(|(_, b)| b.to_string())
            .unwrap()
    };
    let (code, state) = get("/desk/state");
    assert_eq!(code, 200, "{state}");
    let state: Value = serde_json::from_str(&body(&state)).unwrap();
    let ids: Vec<&str> = state["boards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["1", "2", "3", "4", "5", "6", "7", "8"], "{state}");
    // A round from the pairing file, started on two demo boards.
    let trf = std::fs::read(Path::new(crate::ROOT).join(TRF)).unwrap();
    let (code, reply) = request(
        web,
        &format!(
            "POST /desk/trf?name=round.trf HTTP/1.1\r\nHost: x\r\nCookie: {cookie}\r\nContent-Type: application/octet-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{}",
            trf.len(),
            String::from_utf8(trf).unwrap()
        ),
    );
    assert_eq!(code, 200, "{reply}");
    assert_eq!(post("/desk/round", "round=2", &cookie).0, 200);
    assert_eq!(post("/desk/assign", "board=1&number=1", &cookie).0, 200);
    assert_eq!(post("/desk/assign", "board=2&number=2", &cookie).0, 200);
    let (code, reply) = post("/desk/start", "", &cookie);
    assert_eq!(code, 200, "{reply}");
    assert!(reply.contains("round 2 started on 2 boards"), "{reply}");
    // Kept in the data folder for the next start.
    let kept: Value =
        serde_json::from_slice(&std::fs::read(data.join("desk/state.json")).unwrap()).unwrap();
    assert_eq!(kept["started"], 2);
    assert_eq!(kept["assigned"]["1"], 1);
    // Every action is in the desk's journal, with who made it.
    let journal = std::fs::read_to_string(data.join("desk/actions.jsonl")).unwrap();
    let actions: Vec<Value> = journal
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let names: Vec<&str> = actions
        .iter()
        .map(|a| a["action"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "choose_password",
            "load_pairings",
            "choose_round",
            "assign",
            "assign",
            "start_round"
        ],
        "{journal}"
    );
    assert!(
        actions.iter().all(|a| a["by"] == "desk: 127.0.0.1"),
        "{journal}"
    );
    // A POST from another site is refused.
    let (code, _) = request(
        web,
        &format!(
            "POST /desk/start HTTP/1.1\r\nHost: 127.0.0.1:{web}\r\nOrigin: https://elsewhere.example\r\nCookie: {cookie}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        ),
    );
    assert_eq!(code, 403);
    let _ = child.kill();
    let _ = child.wait();
}

/// Issue 45, item 6: the hub's desk sets a result on a board of a bridge
/// it does not run, as a signed command over the broker.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hubs_desk_sets_a_result_on_a_board_of_another_bridge() {
    use crate::hub::{HubBoard, HubProc, bridge_config, hub_config, wait_until};
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let sub = Subscriber::connect(broker.port, "hd/#", "watcher", false).await;
    let url = format!("\"mqtt://127.0.0.1:{}\"", broker.port);
    let mut sims = Vec::new();
    let mut bridges = Vec::new();
    for (name, id, number) in [("hall-a", "a1", 1), ("hall-b", "b1", 2)] {
        let bdir = dir.path().join(name);
        std::fs::create_dir_all(&bdir).unwrap();
        let sim = dgt_board(&bdir, (id, &format!("4600{number}")), start(), (5400, 5400));
        let conf = [HubBoard {
            id: id.into(),
            port: sim.pattern(),
            number,
        }];
        sims.push(sim);
        bridges.push(Daemon::start(&bridge_config(
            &bdir, name, &url, "hd", &conf,
        )));
    }
    let web = free_port();
    let hub_file = hub_config(
        &dir.path().join("hub"),
        &url,
        "hd",
        &format!("127.0.0.1:{web}"),
    );
    let text = std::fs::read_to_string(&hub_file).unwrap().replacen(
        "[web]\n",
        &format!(
            "[control]\nsecret = \"{}\"\n\n[web]\ndesk_password = \"{PASSWORD}\"\n",
            crate::util::TEST_SECRET
        ),
        1,
    );
    std::fs::write(&hub_file, text).unwrap();
    let hub = HubProc::start(&hub_file);
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", web)).is_err() {
        assert!(std::time::Instant::now() < deadline, "{}", hub.log());
        std::thread::sleep(Duration::from_millis(100));
    }
    let body = format!("key={}", PASSWORD.replace(' ', "+"));
    let (code, reply) = post_form(web, "/desk/login", &body, "");
    assert_eq!(code, 303, "{reply}\n{}", hub.log());
    let cookie = session_cookie(&reply);
    // Both bridges' boards are on the hub's desk, with their games.
    wait_until("both bridges' boards on the hub's desk", 30, || {
        let (_, reply) = get_with(web, "/desk/state", &cookie);
        let state: Value = serde_json::from_str(reply.split_once("\r\n\r\n")?.1).ok()?;
        let games = state["boards"]
            .as_array()?
            .iter()
            .filter(|b| b["game"].as_u64().is_some_and(|g| g >= 1))
            .count();
        (games == 2).then_some(())
    });
    // The result of hall-b's board, set from the hub.
    let form = "board=b1&command=set_result&result=0-1";
    let (code, reply) = post_form(web, "/desk/command", form, &cookie);
    assert_eq!(code, 200, "{reply}\n{}", hub.log());
    assert!(reply.contains("result set to 0-1"), "{reply}");
    let end = sub
        .wait_for("hall-b's game ended 0-1", Duration::from_secs(10), |msgs| {
            msgs.iter()
                .filter(|m| m.topic == "hd/board/b1/event")
                .map(|m| m.json())
                .find(|e| e["type"] == "game_end" && e["result"] == "0-1")
        })
        .await;
    assert_eq!(end["board"], "b1");
    // The bridge's correction names the hub's desk (signed with the command).
    let correction = sub
        .wait_for("hall-b's correction", Duration::from_secs(10), |msgs| {
            msgs.iter()
                .filter(|m| m.topic == "hd/board/b1/event")
                .map(|m| m.json())
                .find(|e| e["type"] == "correction")
        })
        .await;
    assert_eq!(correction["by"], "hub desk: 127.0.0.1", "{correction}");
    // hall-a's board is untouched.
    assert!(
        !sub.json_on("hd/board/a1/event")
            .iter()
            .any(|e| e["type"] == "correction"),
        "no correction on hall-a"
    );
    drop(bridges);
    drop(sims);
}
