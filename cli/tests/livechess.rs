//! The LiveChess 2 imitation against the request sequences of public
//! clients: `boardcast demo` runs as a child process (simulated boards on
//! pseudo-terminals through the real daemon, its embedded broker, the
//! LiveChess API on a free port, never 1982), and
//! `tests/data/livechess_clients.py` replays what lichess's DGT page,
//! chess.com's page, DgtAngel, livechess-go / the Java client and the PyPI
//! `livechess` package send, over a real WebSocket client
//! (`websocket-client`) and HTTP. Every frame comes back with its shape
//! (keys in the order sent, JSON types), checked here.

use std::fs;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use serde_json::Value;
use shakmaty::san::San;
use shakmaty::{Chess, Position};

use crate::util::{binary, free_port};

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const EBOARD_KEYS: [&str; 8] = [
    "serialnr", "source", "state", "battery", "comment", "board", "flipped", "clock",
];
const ENVELOPE: [&str; 4] = ["response", "id", "param", "time"];
const FEED_ORDER: [&str; 7] = [
    "serialnr", "flipped", "board", "clock", "start", "san", "match",
];

/// `boardcast demo`, killed when the test ends.
struct Demo {
    child: Option<Child>,
    log: PathBuf,
    port: u16,
    _dir: tempfile::TempDir,
}

impl Drop for Demo {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
        if std::thread::panicking() {
            let log = fs::read_to_string(&self.log).unwrap_or_default();
            let tail: Vec<&str> = log.lines().rev().take(30).collect();
            eprintln!("---- demo log, newest first ----\n{}", tail.join("\n"));
        }
    }
}

/// A plain HTTP GET on loopback: status and body.
fn get(port: u16, path: &str) -> Option<(u16, String)> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut text = String::new();
    s.read_to_string(&mut text).ok()?;
    let status = text.split(' ').nth(1)?.parse().ok()?;
    let (_, body) = text.split_once("\r\n\r\n")?;
    Some((status, body.to_string()))
}

/// Starts the demo with two boards and waits until both are ACTIVE.
fn demo() -> Demo {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let log = dir.path().join("demo.log");
    let child = Command::new(binary())
        .args(["demo", "--boards", "2", "--speed", "12"])
        .arg("--web")
        .arg(format!("127.0.0.1:{}", free_port()))
        .arg("--broker")
        .arg(format!("127.0.0.1:{}", free_port()))
        .arg("--livechess")
        .arg(format!("127.0.0.1:{port}"))
        .env("RUST_LOG", "info,rumqttd=off")
        .stdout(fs::File::create(dir.path().join("demo.out")).unwrap())
        .stderr(fs::File::create(&log).unwrap())
        .spawn()
        .expect("boardcast demo runs");
    let demo = Demo {
        child: Some(child),
        log,
        port,
        _dir: dir,
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some((200, body)) = get(port, "/api/v1.0/eboards") {
            let boards: Value = serde_json::from_str(&body).unwrap();
            let active = boards
                .as_array()
                .unwrap()
                .iter()
                .filter(|b| b["state"] == "ACTIVE" && b["board"] != "8/8/8/8/8/8/8/8")
                .count();
            if active == 2 {
                return demo;
            }
        }
        assert!(
            Instant::now() < deadline,
            "the demo's boards did not become ACTIVE on the LiveChess API"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Runs one client mode of the Python script; its frames, in order.
fn client(mode: &str, port: u16, seconds: f64) -> Vec<Value> {
    let script = Path::new(crate::ROOT).join("tests/data/livechess_clients.py");
    let out = Command::new("python3")
        .arg(script)
        .args([mode, "127.0.0.1", &port.to_string(), &seconds.to_string()])
        .output()
        .expect("python3 runs (scripts/test installs websocket-client and livechess)");
    assert!(
        out.status.success(),
        "{mode} client failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The keys of an object shape, in the order sent.
fn keys(shape: &Value) -> Vec<&str> {
    shape
        .as_array()
        .unwrap_or_else(|| panic!("not an object: {shape}"))
        .iter()
        .map(|p| p[0].as_str().unwrap())
        .collect()
}

/// The shape of `key` in an object shape.
fn field<'a>(shape: &'a Value, key: &str) -> &'a Value {
    shape
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p[0] == key)
        .map(|p| &p[1])
        .unwrap_or_else(|| panic!("no key {key} in {shape}"))
}

fn items(shape: &Value) -> &Vec<Value> {
    shape["list"]
        .as_array()
        .unwrap_or_else(|| panic!("not an array: {shape}"))
}

fn frame(f: &Value) -> Value {
    serde_json::from_str(f["raw"].as_str().unwrap()).unwrap()
}

fn step<'a>(frames: &'a [Value], name: &str) -> &'a Value {
    frames
        .iter()
        .find(|f| f["step"] == name)
        .unwrap_or_else(|| panic!("no {name} frame in {frames:#?}"))
}

/// A clock is `null` or `{white, black, run, time}`.
fn check_clock(shape: &Value) {
    if shape != "null" {
        assert_eq!(keys(shape), ["white", "black", "run", "time"]);
        assert_eq!(field(shape, "white"), "int");
        assert_eq!(field(shape, "black"), "int");
        assert!(["bool", "null"].contains(&field(shape, "run").as_str().unwrap()));
        assert_eq!(field(shape, "time"), "int");
    }
}

fn check_eboard(shape: &Value) {
    assert_eq!(keys(shape), EBOARD_KEYS);
    for (k, t) in [
        ("serialnr", "str"),
        ("state", "str"),
        ("battery", "null"),
        ("comment", "null"),
        ("board", "str"),
        ("flipped", "bool"),
    ] {
        assert_eq!(field(shape, k), t, "{k}");
    }
    assert!(["str", "null"].contains(&field(shape, "source").as_str().unwrap()));
    check_clock(field(shape, "clock"));
}

/// A call reply with this id; its param's shape.
fn check_reply(f: &Value, id: i64) -> &Value {
    assert_eq!(keys(&f["shape"]), ENVELOPE, "{}", f["raw"]);
    let v = frame(f);
    assert_eq!(v["response"], "call", "{}", f["raw"]);
    assert_eq!(v["id"], id);
    assert_eq!(field(&f["shape"], "time"), "int");
    field(&f["shape"], "param")
}

fn check_error(f: &Value, id: Value) {
    assert_eq!(keys(&f["shape"]), ENVELOPE, "{}", f["raw"]);
    let v = frame(f);
    assert_eq!(v["response"], "error", "{}", f["raw"]);
    assert_eq!(v["id"], id);
    assert_eq!(keys(field(&f["shape"], "param")), ["message", "stacktrace"]);
    assert!(!v["param"]["message"].as_str().unwrap().is_empty());
}

/// A feed frame of feed `id`: envelope, key order, types.
fn check_feed(f: &Value, id: i64) -> Value {
    assert_eq!(keys(&f["shape"]), ENVELOPE, "{}", f["raw"]);
    let v = frame(f);
    assert_eq!(v["response"], "feed");
    assert_eq!(v["id"], id);
    let p = field(&f["shape"], "param");
    let ks = keys(p);
    assert_eq!(&ks[..2], ["serialnr", "flipped"], "{}", f["raw"]);
    let order: Vec<usize> = ks
        .iter()
        .map(|k| FEED_ORDER.iter().position(|o| o == k).expect("a known key"))
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{}", f["raw"]);
    if ks.contains(&"clock") {
        check_clock(field(p, "clock"));
    }
    if ks.contains(&"board") {
        assert_eq!(field(p, "board"), "str");
        let board = v["param"]["board"].as_str().unwrap();
        assert!(
            board.parse::<shakmaty::Board>().is_ok(),
            "not a placement: {board}"
        );
    }
    v["param"].clone()
}

fn feeds<'a>(frames: &'a [Value], after: &str) -> Vec<&'a Value> {
    let at = frames.iter().position(|f| f["step"] == after).unwrap();
    frames[at + 1..]
        .iter()
        .filter(|f| f["step"] == "feed")
        .collect()
}

#[test]
fn lichess_chesscom_and_dgtangel_sequences_get_livechess_replies_and_feeds() {
    if !crate::util::require(&[crate::util::Tool::Python("websocket")]) {
        return;
    }
    let demo = demo();

    // lichess's DGT page: eboards id 1, subscribe id 2 / feed 1, setup id 3.
    let frames = client("lichess", demo.port, 40.0);
    let boards = check_reply(step(&frames, "eboards"), 1);
    assert_eq!(items(boards).len(), 2);
    items(boards).iter().for_each(check_eboard);
    let first_board = &frame(step(&frames, "eboards"))["param"][0];
    assert_eq!(first_board["state"], "ACTIVE");
    assert_eq!(check_reply(step(&frames, "ack"), 2), "null");
    // Right after the ack: the whole board, `clock` included.
    let first = check_feed(step(&frames, "first"), 1);
    assert_eq!(
        keys(field(&step(&frames, "first")["shape"], "param")),
        FEED_ORDER[..4]
    );
    assert_eq!(first["serialnr"], first_board["serialnr"]);
    assert_eq!(check_reply(step(&frames, "setup"), 3), "null");
    // After the setup every frame carries start, san and match; the moves
    // are legal from the start and grow to four.
    let after = feeds(&frames, "setup");
    assert!(!after.is_empty(), "no feed frame after the setup");
    let mut last: Option<Value> = None;
    let mut grown = 0;
    for f in &after {
        let p = check_feed(f, 1);
        assert_eq!(p["start"], START);
        assert!(p["match"].is_boolean());
        let san: Vec<&str> = p["san"]
            .as_array()
            .expect("san is a list")
            .iter()
            .map(|s| s.as_str().unwrap())
            .collect();
        let mut pos = Chess::default();
        for s in &san {
            let m = s
                .parse::<San>()
                .unwrap_or_else(|_| panic!("bad SAN {s}"))
                .to_move(&pos)
                .unwrap_or_else(|_| panic!("{s} is illegal after {san:?}"));
            pos.play_unchecked(m);
        }
        // A move played live: the previous list plus one move.
        if let Some(prev) = last.as_ref().and_then(|l| l["san"].as_array())
            && san.len() == prev.len() + 1
            && san.iter().zip(prev).all(|(a, b)| b == *a)
        {
            grown += 1;
        }
        // One frame per change: never the same frame twice in a row.
        assert_ne!(last.as_ref(), Some(&p), "a repeated frame");
        last = Some(p);
    }
    assert!(
        grown >= 2,
        "the feed did not follow two moves live: {after:#?}"
    );
    // A piece in the air: as LiveChess does, a frame shows the board with
    // the lifted piece missing, and the next board shows it set down again
    // (one piece fewer, then as many again: no capture in between).
    let pieces = |board: &str| board.chars().filter(char::is_ascii_alphabetic).count();
    let boards: Vec<usize> = after
        .iter()
        .filter_map(|f| frame(f)["param"]["board"].as_str().map(pieces))
        .collect();
    assert!(
        boards.windows(3).any(|w| w[1] + 1 == w[0] && w[2] == w[0]),
        "no frame with a piece in the air: piece counts {boards:?}"
    );

    // chess.com's page: a foreign Origin, no setup: board frames only.
    let frames = client("chesscom", demo.port, 4.0);
    check_reply(step(&frames, "eboards"), 1);
    check_reply(step(&frames, "ack"), 2);
    let first = check_feed(step(&frames, "first"), 1);
    assert!(first["board"].is_string());
    let moving = feeds(&frames, "first");
    assert!(!moving.is_empty(), "no frame while the boards played");
    for f in moving {
        let p = check_feed(f, 1);
        assert!(p.get("san").is_none() && p.get("start").is_none());
    }

    // DgtAngel: the frame after each call is its reply (call id 999).
    let frames = client("dgtangel", demo.port, 3.0);
    assert_eq!(frames[0]["step"], "eboards");
    items(check_reply(&frames[0], 1))
        .iter()
        .for_each(check_eboard);
    assert_eq!(frames[1]["step"], "ack");
    assert_eq!(check_reply(&frames[1], 999), "null");
    let p = check_feed(&frames[2], 1);
    assert!(p["board"].is_string(), "DgtAngel needs the board first");
    assert!(frames[3..].iter().all(|f| frame(f)["response"] == "feed"));
}

#[test]
fn sources_flip_errors_and_unsubscribe_answer_in_livechess_shapes() {
    if !crate::util::require(&[crate::util::Tool::Python("websocket")]) {
        return;
    }
    let demo = demo();
    let frames = client("extras", demo.port, 3.0);
    let sources = check_reply(step(&frames, "sources"), 1);
    for s in items(sources) {
        assert_eq!(
            keys(s),
            ["type", "device", "name", "present", "active", "status"]
        );
    }
    check_reply(step(&frames, "ack"), 3);
    let first = check_feed(step(&frames, "first"), 7);
    assert_eq!(first["flipped"], false);
    assert_eq!(check_reply(step(&frames, "flip"), 4), "null");
    assert!(
        feeds(&frames, "flip")
            .iter()
            .any(|f| check_feed(f, 7)["flipped"] == true),
        "no flipped frame after flip"
    );
    // livechess-go's flip helper sends method "setup": a clean error.
    check_error(step(&frames, "setup-flip"), 5.into());
    check_error(step(&frames, "unknown"), 6.into());
    check_error(step(&frames, "badjson"), Value::Null);
    check_error(step(&frames, "noboard"), 8.into());
    assert_eq!(check_reply(step(&frames, "unsubscribe"), 9), "null");
    assert!(
        feeds(&frames, "unsubscribe").is_empty(),
        "frames after unsubscribe"
    );
    // Frames did flow while subscribed (so silence afterwards means
    // something): the boards were playing.
    assert!(!feeds(&frames, "first").is_empty());
}

#[test]
fn rest_routes_and_the_pypi_livechess_package_list_boards_and_read_the_games() {
    if !crate::util::require(&[
        crate::util::Tool::Python("websocket"),
        crate::util::Tool::Python("livechess.local"),
        crate::util::Tool::Python("chess"),
    ]) {
        return;
    }
    let demo = demo();
    let frames = client("rest", demo.port, 1.0);
    items(&step(&frames, "eboards")["shape"])
        .iter()
        .for_each(check_eboard);
    let t = &step(&frames, "tournaments")["shape"];
    assert_eq!(keys(&items(t)[0]), ["uuid", "description", "rounds"]);
    let t = &step(&frames, "tournament")["shape"];
    assert_eq!(
        keys(t),
        [
            "uuid",
            "name",
            "description",
            "location",
            "country",
            "rounds",
            "eboards"
        ]
    );
    let r = &step(&frames, "round")["shape"];
    assert_eq!(keys(r), ["nr", "date", "pairings"]);
    let pairing = &items(field(r, "pairings"))[0];
    assert_eq!(
        keys(pairing),
        ["nr", "uuid", "white", "black", "live", "result"]
    );
    assert_eq!(
        keys(field(pairing, "white")),
        [
            "fname",
            "mname",
            "lname",
            "title",
            "federation",
            "gender",
            "fideid"
        ]
    );
    let g = &step(&frames, "game")["shape"];
    assert_eq!(keys(g), ["chess960", "result", "comment", "clock", "moves"]);
    check_clock(field(g, "clock"));
    assert_eq!(frame(step(&frames, "missing"))["status"], 404);

    // Wait until both games have moves, then the PyPI client, unchanged:
    // boards, tournament, rounds, games, and its own checks (events).
    let t = frame(step(&frames, "tournaments"))[0]["uuid"].clone();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (_, body) = get(
            demo.port,
            &format!("/api/v1.0/round/{}/0", t.as_str().unwrap()),
        )
        .unwrap();
        let round: Value = serde_json::from_str(&body).unwrap();
        let moved = round["pairings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| {
                let (_, g) = get(
                    demo.port,
                    &format!("/api/v1.0/game/{}", p["uuid"].as_str().unwrap()),
                )
                .unwrap();
                serde_json::from_str::<Value>(&g).unwrap()["moves"]
                    .as_array()
                    .is_some_and(|m| m.len() >= 2)
            })
            .count();
        if moved == 2 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the games did not get moves: {round}"
        );
        std::thread::sleep(Duration::from_millis(300));
    }
    let frames = client("library", demo.port, 1.0);
    let boards = frame(step(&frames, "eboards"));
    assert_eq!(boards.as_array().unwrap().len(), 2);
    assert!(
        boards
            .as_array()
            .unwrap()
            .iter()
            .all(|b| b["state"] == "ACTIVE")
    );
    let s = frame(step(&frames, "summary"));
    assert_eq!(s["rounds"], 1);
    assert_eq!(s["eboards"], serde_json::json!(["20000", "20001"]));
    let games = s["games"].as_array().unwrap();
    assert_eq!(games.len(), 2, "{s}");
    for g in games {
        let moves = g["moves"].as_array().unwrap();
        assert!(!moves.is_empty(), "no moves read: {g}");
        // python-chess replays every move the package read.
        assert_eq!(g["played"].as_u64().unwrap() as usize, moves.len(), "{g}");
        for m in moves {
            let m = m.as_str().unwrap();
            let mut parts = m.split(' ');
            assert!(parts.next().is_some_and(|san| !san.is_empty()));
            assert!(parts.all(|c| c.parse::<u32>().is_ok()), "{m}");
        }
    }
    assert!(s["events"].is_array());
}

/// GET /api/v1.0/eboards until `done` accepts the list.
fn wait_boards(port: u16, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut last = Value::Null;
    while Instant::now() < deadline {
        if let Some((200, body)) = get(port, "/api/v1.0/eboards") {
            last = serde_json::from_str(&body).unwrap();
            if done(&last) {
                return last;
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("timed out waiting for {what}; last list: {last}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn boardcast_run_serves_livechess_with_a_stable_serial_for_a_board_without_one() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    use crate::util::{BoardConf, Broker, Daemon, SimBoard, SimOptions, game, write_config_with};
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let port = free_port();
    let g = game(1468, None);
    let board = SimBoard::new(dir.path(), "dgt", g.clone(), 7, SimOptions::fast("10001"));
    let config = write_config_with(
        dir.path(),
        &broker.url(),
        &format!("\n[livechess]\nlisten = \"127.0.0.1:{port}\"\n"),
        "lc",
        &[BoardConf {
            id: "1".into(),
            port: board.path().to_string_lossy().into_owned(),
            // No serial configured: the API derives one.
            serial: None,
        }],
    );
    let end = g.moves.iter().fold(g.start.clone(), |p, m| p.play(*m));
    let placement = end.fen().split(' ').next().unwrap().to_string();
    let mut daemon = Daemon::start(&config);
    // The simulated board plays on the runtime: wait off it.
    let boards = tokio::task::spawn_blocking(move || {
        wait_boards(port, "the whole game on the board", |b| {
            b[0]["state"] == "ACTIVE" && b[0]["board"] == placement.as_str()
        })
    })
    .await
    .unwrap();
    let serial = boards[0]["serialnr"].as_str().unwrap().to_string();
    assert!(
        serial.len() == 5 && serial.chars().all(|c| c.is_ascii_digit()),
        "{serial}"
    );
    assert_eq!(boards[0]["source"], board.path().to_string_lossy().as_ref());
    daemon.stop();
    drop(daemon);

    // Another start: the same serial number.
    let _daemon = Daemon::start(&config);
    let again = wait_boards(port, "the board listed again", |b| {
        b[0]["serialnr"].is_string()
    });
    assert_eq!(again[0]["serialnr"], serial.as_str());
}

#[test]
fn the_demo_goes_on_without_the_api_when_its_port_is_taken() {
    // Someone (a real LiveChess, say) holds the port.
    let held = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = held.local_addr().unwrap().port();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("demo.log");
    let web = free_port();
    let child = Command::new(binary())
        .args(["demo", "--boards", "1", "--speed", "12"])
        .arg("--web")
        .arg(format!("127.0.0.1:{web}"))
        .arg("--broker")
        .arg(format!("127.0.0.1:{}", free_port()))
        .arg("--livechess")
        .arg(format!("127.0.0.1:{port}"))
        .env("RUST_LOG", "info,rumqttd=off")
        .stdout(fs::File::create(dir.path().join("demo.out")).unwrap())
        .stderr(fs::File::create(&log).unwrap())
        .spawn()
        .expect("boardcast demo runs");
    let mut demo = Demo {
        child: Some(child),
        log: log.clone(),
        port,
        _dir: dir,
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let text = fs::read_to_string(&log).unwrap_or_default();
        if text.contains("the LiveChess port is taken") && get(web, "/snapshot").is_some() {
            break;
        }
        assert!(
            demo.child.as_mut().unwrap().try_wait().unwrap().is_none(),
            "the demo stopped:\n{text}"
        );
        assert!(
            Instant::now() < deadline,
            "no warning, or no live page:\n{text}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // The page runs; the port still belongs to its holder.
    assert_eq!(held.local_addr().unwrap().port(), demo.port);
    assert!(demo.child.as_mut().unwrap().try_wait().unwrap().is_none());
}

/// Issue 42, "A few LiveChess WebSockets with `setup` feeds stall every
/// board": two sockets, each with 64 feeds of the board set up on a
/// position with seven queens a side (some 8,000 two-ply lines to follow
/// from at every change of the board), open beside a board that plays on
/// a pty. The moves keep coming through the broker as fast as before the
/// sockets opened (median within 300 ms), and none is lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn heavy_setups_on_idle_sockets_never_delay_a_move() {
    use crate::util::{BoardConf, Broker, Daemon, SimBoard, SimOptions, Subscriber, write_config};
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let sub = Subscriber::connect(broker.port, "lat/#", "lat-watch", false).await;
    let g = crate::util::games()
        .into_iter()
        .max_by_key(|g| g.moves.len())
        .unwrap();
    let board = SimBoard::new(dir.path(), "dgt", g, 9, SimOptions::fast("10077"));
    let config = write_config(
        dir.path(),
        broker.port,
        "lat",
        &[BoardConf {
            id: "1".into(),
            port: board.path().to_string_lossy().into_owned(),
            serial: Some("10077".into()),
        }],
    );
    let port = free_port();
    let mut text = fs::read_to_string(&config).unwrap();
    text.push_str(&format!(
        "\n[livechess]\nlisten = \"127.0.0.1:{port}\"\nmax_subscriptions = 256\n"
    ));
    fs::write(&config, text).unwrap();
    let daemon = Daemon::start(&config);
    crate::hardening::wait_port(port, &daemon);
    sub.wait_for("the first move", Duration::from_secs(30), |msgs| {
        msgs.iter()
            .any(|m| m.topic == "lat/board/1/event" && m.json()["type"] == "move")
            .then_some(())
    })
    .await;
    let quiet = tokio::time::Instant::now();
    tokio::time::sleep(Duration::from_secs(8)).await;
    let opened = tokio::time::Instant::now();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let sockets: Vec<_> = (0..2)
        .map(|_| {
            let stop = std::sync::Arc::clone(&stop);
            std::thread::spawn(move || heavy_socket(port, "10077", &stop))
        })
        .collect();
    tokio::time::sleep(Duration::from_secs(10)).await;
    let end = tokio::time::Instant::now();
    tokio::time::sleep(Duration::from_secs(3)).await;
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let frames: Vec<usize> = sockets.into_iter().map(|t| t.join().unwrap()).collect();
    assert!(
        frames.iter().all(|n| *n > 64),
        "the sockets were served: {frames:?}"
    );

    // Each ply's first `move` event against the wall time its completing
    // reading was written to the pty.
    let written = board.written();
    let mut first: std::collections::HashMap<usize, tokio::time::Instant> = Default::default();
    for m in sub.messages() {
        if m.topic != "lat/board/1/event" {
            continue;
        }
        let e = m.json();
        if e["type"] == "move" {
            first
                .entry(e["ply"].as_u64().unwrap() as usize)
                .or_insert(m.at);
        }
    }
    let (mut before, mut with, mut lost) = (Vec::new(), Vec::new(), Vec::new());
    for t in &board.session.truth {
        let boardcast_sim::Truth::Ply { ply, at } = t else {
            continue;
        };
        let Some(i) = board.session.readings.iter().rposition(|(r, _)| r == at) else {
            continue;
        };
        let Some(w) = written[i] else { continue };
        let window = if w >= quiet && w < opened {
            &mut before
        } else if w >= opened && w < end {
            &mut with
        } else {
            continue;
        };
        match first.get(ply) {
            Some(seen) => window.push(seen.saturating_duration_since(w)),
            None => lost.push(*ply),
        }
    }
    drop(daemon);
    before.sort();
    with.sort();
    eprintln!("latency without sockets {before:?}\nwith heavy sockets {with:?}");
    assert!(lost.is_empty(), "plies never published: {lost:?}");
    assert!(before.len() >= 5 && with.len() >= 5, "{before:?} {with:?}");
    let (a, b) = (before[before.len() / 2], with[with.len() / 2]);
    assert!(
        b <= a + Duration::from_millis(300),
        "median move latency {a:?} without the sockets, {b:?} with them"
    );
}

/// A LiveChess socket that subscribes 64 feeds to board `serial`, sets
/// each up on a seven-queens position, then only reads until `stop`:
/// the frames it received.
fn heavy_socket(port: u16, serial: &str, stop: &std::sync::atomic::AtomicBool) -> usize {
    use crate::hardening::{ws_open, ws_recv, ws_send};
    const QUEENS: &str = "6rk/6pp/qqqqqqq1/8/8/1QQQQQQQ/PP6/KR6 w - - 0 1";
    let (code, ws) = ws_open(port, None);
    assert_eq!(code, 101);
    let mut ws = ws.unwrap();
    for n in 1..=64 {
        let sub = serde_json::json!({"id": n, "call": "subscribe",
            "param": {"feed": "eboardevent", "id": n, "param": {"serialnr": serial}}});
        ws_send(&mut ws, sub.to_string().as_bytes()).unwrap();
        let setup = serde_json::json!({"id": 1000 + n, "call": "call",
            "param": {"id": n, "method": "setup", "param": {"fen": QUEENS}}});
        ws_send(&mut ws, setup.to_string().as_bytes()).unwrap();
    }
    ws.set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    let mut frames = 0;
    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
        match ws_recv(&mut ws) {
            Some((8, _)) => break,
            Some(_) => frames += 1,
            None => {}
        }
    }
    frames
}
