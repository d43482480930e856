//! Issue "Beyond one laptop", the event-wide view: several bridges
//! (`boardcast run`) with simulated boards publish to one real Mosquitto;
//! one `boardcast hub` gathers them. Every game in the hub's PGN folder is
//! the bridge's own file byte for byte, the hub's page lists every board,
//! and a bridge killed with SIGKILL (its last will fires) is shown offline.
//! With a delay, the hub's folder lags the live game, then is exact.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::games::python_chess_mainlines;
use crate::util::{
    BoardConf, Broker, Daemon, SimBoard, SimOptions, binary, free_port, game, write_config_with,
};

/// The boardcast binary running `hub --config`.
pub struct HubProc {
    child: Option<Child>,
    log: PathBuf,
}

impl HubProc {
    /// Starts `boardcast hub --config CONFIG` (log next to the file).
    pub fn start(config: &Path) -> HubProc {
        HubProc::start_with(config, &mut Command::new(binary()))
    }

    /// Starts the hub with `cmd` (a prefix such as `ip netns exec NS`, the
    /// binary last).
    pub fn start_with(config: &Path, cmd: &mut Command) -> HubProc {
        let log = config.with_extension("log");
        let child = cmd
            .args(["hub", "--config"])
            .arg(config)
            .env("RUST_LOG", "boardcast=debug,rumqttc=warn,info")
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .expect("boardcast hub runs");
        HubProc {
            child: Some(child),
            log,
        }
    }

    /// The hub's resident memory (KiB) and CPU time so far (ms), from
    /// /proc.
    pub fn usage(&self) -> Option<(u64, u64)> {
        crate::util::proc_usage(self.child.as_ref()?.id())
    }

    /// What the hub logged.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for HubProc {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("---- hub log ----\n{}", self.log());
        }
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// `GET path` on `addr` (HTTP/1.1, closed after): the body, or `None`.
pub fn http_get(addr: &str, path: &str) -> Option<String> {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: hub\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut out = String::new();
    s.read_to_string(&mut out).ok()?;
    let (head, body) = out.split_once("\r\n\r\n")?;
    head.starts_with("HTTP/1.1 200").then(|| body.to_string())
}

/// The hub's page snapshot (`/snapshot`), parsed.
pub fn snapshot(addr: &str) -> Option<serde_json::Value> {
    serde_json::from_str(&http_get(addr, "/snapshot")?).ok()
}

/// One board of a test bridge: id, pty path, number in the round.
pub struct HubBoard {
    pub id: String,
    pub port: String,
    pub number: u32,
}

/// A bridge configuration in `dir`: bridge `name`, brokers `url` (a TOML
/// string or list), `[event]` with round 3 and a PGN folder `dir/pgn`.
pub fn bridge_config(
    dir: &Path,
    name: &str,
    url_toml: &str,
    prefix: &str,
    boards: &[HubBoard],
) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let path = write_config_with(dir, "mqtt://placeholder:1", "", prefix, &[]);
    crate::util::set_brokers(&path, url_toml);
    let mut text = std::fs::read_to_string(&path).unwrap().replacen(
        "name = \"test\"",
        &format!("name = \"{name}\""),
        1,
    );
    text.push_str(&format!(
        "\n[event]\nname = \"Hub Open\"\nsite = \"Hall\"\nround = 3\npgn_dir = \"{}\"\n",
        dir.join("pgn").display()
    ));
    for b in boards {
        text.push_str(&format!(
            "\n[[board]]\nid = \"{}\"\nport = \"{}\"\nnumber = {}\nwhite = \"White, {}\"\nblack = \"Black, {}\"\n",
            b.id, b.port, b.number, b.id, b.id
        ));
    }
    std::fs::write(&path, text).unwrap();
    path
}

/// A hub configuration in `dir` (written as `hub.toml`).
pub fn hub_config(dir: &Path, url_toml: &str, prefix: &str, listen: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let text = format!(
        "[hub]\nname = \"test\"\n\n[mqtt]\nurl = {url_toml}\nprefix = \"{prefix}\"\nkeep_alive_s = 5\nreconnect_min_ms = 100\nreconnect_max_ms = 600\n\n[web]\nlisten = \"{listen}\"\n\n[event]\nname = \"Hub Open\"\nsite = \"Hall\"\npgn_dir = \"{}\"\n",
        dir.join("pgn").display()
    );
    let path = dir.join("hub.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// A hub in `dir/hub` reading `url_toml` under `prefix` that shows a
/// bridge offline after `silence_s` without its heartbeat; and the address
/// its page listens on.
pub fn silent_hub(dir: &Path, url_toml: &str, prefix: &str, silence_s: u32) -> (HubProc, String) {
    let listen = format!("127.0.0.1:{}", crate::util::free_port());
    let hub_file = hub_config(&dir.join("hub"), url_toml, prefix, &listen);
    let text = std::fs::read_to_string(&hub_file).unwrap().replacen(
        "[hub]\n",
        &format!("[hub]\nsilence_s = {silence_s}\n"),
        1,
    );
    std::fs::write(&hub_file, text).unwrap();
    (HubProc::start(&hub_file), listen)
}

/// A bridge configuration in `dir/hall` that heartbeats every second to the
/// brokers `url_toml`, with one board `c1` on a port that does not exist.
pub fn heartbeat_bridge(dir: &Path, url_toml: &str, prefix: &str) -> PathBuf {
    let bdir = dir.join("hall");
    std::fs::create_dir_all(&bdir).unwrap();
    let config = write_config_with(
        &bdir,
        "mqtt://placeholder:1",
        "heartbeat_s = 1",
        prefix,
        &[BoardConf {
            id: "c1".into(),
            port: bdir.join("no-such-tty").to_string_lossy().into_owned(),
            serial: None,
        }],
    );
    crate::util::set_brokers(&config, url_toml);
    config
}

/// From a hub's snapshot: the status of the bridge named `test` and the
/// bridge status shown on board `board`.
pub fn bridge_and_board(s: &serde_json::Value, board: &str) -> (Option<String>, Option<String>) {
    let bridge = s["bridges"]["test"].as_str().map(str::to_string);
    let on_board = s["boards"]
        .as_array()
        .and_then(|b| b.iter().position(|b| b == board))
        .and_then(|i| s["states"][i]["bridge_status"].as_str().map(str::to_string));
    (bridge, on_board)
}

/// Waits (at most `secs`) until `check` gives a value.
pub fn wait_until<T>(what: &str, secs: u64, mut check: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(v) = check() {
            return v;
        }
        assert!(Instant::now() < deadline, "timed out: {what}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The file `round-3/game-{number}.pgn` under `pgn`, if written.
pub fn game_file(pgn: &Path, number: u32) -> Option<String> {
    std::fs::read_to_string(pgn.join(format!("round-3/game-{number}.pgn"))).ok()
}

/// A board of the layout: id, number, game index, plies.
type Seat = (&'static str, u32, usize, usize);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hub_gathers_every_board_of_every_bridge_and_reports_a_dead_bridge() {
    if !crate::util::require(&[
        crate::util::Tool::Mosquitto,
        crate::util::Tool::Python("chess"),
    ]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let url = format!("\"mqtt://127.0.0.1:{}\"", broker.port);
    let listen = format!("127.0.0.1:{}", free_port());
    let hub_dir = dir.path().join("hub");
    let hub = HubProc::start(&hub_config(&hub_dir, &url, "ev", &listen));

    // Three bridges: hall-a with boards 1 and 2, hall-b with 3, hall-c
    // with 4.
    let layout: [(&str, &[Seat]); 3] = [
        ("hall-a", &[("a1", 1, 12, 24), ("a2", 2, 13, 20)]),
        ("hall-b", &[("b1", 3, 14, 22)]),
        ("hall-c", &[("c1", 4, 15, 20)]),
    ];
    let mut sims = Vec::new();
    let mut bridges = Vec::new();
    let mut expected = Vec::new();
    for (name, boards) in layout {
        let bdir = dir.path().join(name);
        std::fs::create_dir_all(&bdir).unwrap();
        let mut conf = Vec::new();
        for &(id, number, index, plies) in boards {
            let g = game(index, Some(plies));
            let serial = format!("7000{number}");
            let sim = SimBoard::new(
                &bdir,
                id,
                g.clone(),
                number as u64,
                SimOptions::fast(&serial),
            );
            conf.push(HubBoard {
                id: id.into(),
                port: sim.path().to_string_lossy().into_owned(),
                number,
            });
            sims.push(sim);
            expected.push((name, id, number, g.sans));
        }
        let config = bridge_config(&bdir, name, &url, "ev", &conf);
        bridges.push((name, bdir, Daemon::start(&config)));
    }

    // Every game at the hub is the bridge's own file, byte for byte, with
    // every move.
    let hub_pgn = hub_dir.join("pgn");
    for (name, id, number, sans) in &expected {
        let bridge_pgn = dir.path().join(name).join("pgn");
        let last = format!(" {} ", sans.last().unwrap());
        let text = wait_until(&format!("board {id}'s game at the hub"), 120, || {
            let ours = game_file(&hub_pgn, *number)?;
            let theirs = game_file(&bridge_pgn, *number)?;
            (ours == theirs && ours.contains(&last)).then_some(ours)
        });
        assert_eq!(
            python_chess_mainlines(&text),
            vec![sans.clone()],
            "board {id}"
        );
        assert!(text.contains(&format!("[White \"White, {id}\"]")), "{text}");
        assert!(text.contains(&format!("[Round \"3.{number}\"]")), "{text}");
    }
    let all = std::fs::read_to_string(hub_pgn.join("round-3/games.pgn")).unwrap();
    let mainlines = python_chess_mainlines(&all);
    assert_eq!(mainlines.len(), 4);
    // In board order.
    let in_order: Vec<Vec<String>> = expected.iter().map(|e| e.3.clone()).collect();
    assert_eq!(mainlines, in_order);

    // The page lists every board, with its whole game, and every bridge.
    let snap = wait_until("the hub's page with every board", 30, || {
        let s = snapshot(&listen)?;
        let boards: Vec<String> = s["boards"]
            .as_array()?
            .iter()
            .filter_map(|b| b.as_str().map(str::to_string))
            .collect();
        let complete = expected.iter().all(|(_, id, _, sans)| {
            boards
                .iter()
                .position(|b| b == id)
                .is_some_and(|i| crate::util::state_moves(&s["states"][i]) == *sans)
        });
        complete.then_some(s)
    });
    for name in ["hall-a", "hall-b", "hall-c"] {
        assert_eq!(snap["bridges"][name], "online", "{snap}");
    }
    let (rss, cpu) = hub.usage().expect("the hub's /proc");
    let plies: usize = expected.iter().map(|e| e.3.len()).sum();
    eprintln!("hub: 4 boards, {plies} plies: {rss} KiB resident, {cpu} ms of CPU in all");

    // hall-b dies without a word: its last will fires, and the hub says so.
    let (_, _, mut dead) = bridges.remove(1);
    dead.crash();
    // The bridge and then each of its boards are marked: wait for both.
    let snap = wait_until("hall-b and its board reported offline", 30, || {
        let s = snapshot(&listen)?;
        let boards = s["boards"].as_array()?;
        let b1 = boards.iter().position(|b| b == "b1")?;
        (s["bridges"]["hall-b"] == "offline" && s["states"][b1]["status"] == "offline").then_some(s)
    });
    let boards = snap["boards"].as_array().unwrap();
    for (i, id) in boards.iter().enumerate() {
        let state = &snap["states"][i];
        if id == "b1" {
            assert_eq!(state["status"], "offline", "{state}");
            assert_eq!(state["bridge_status"], "offline", "{state}");
            assert_eq!(state["bridge"], "hall-b", "{state}");
        } else {
            assert_eq!(state["status"], "connected", "{id}: {state}");
            assert_eq!(state["bridge_status"], "online", "{id}: {state}");
        }
    }
    assert_eq!(snap["bridges"]["hall-a"], "online");
    // The dead bridge's game stays in the folder.
    assert!(game_file(&hub_pgn, 3).is_some_and(|t| t.contains("[Round \"3.3\"]")));
    assert!(hub.log().contains("bridge status"), "{}", hub.log());
    drop(bridges);
    drop(sims);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hub_with_a_delay_writes_its_folder_that_long_behind_and_then_exact() {
    if !crate::util::require(&[
        crate::util::Tool::Mosquitto,
        crate::util::Tool::Python("chess"),
    ]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let url = format!("\"mqtt://127.0.0.1:{}\"", broker.port);
    let listen = format!("127.0.0.1:{}", free_port());
    let hub_dir = dir.path().join("hub");
    let config = hub_config(&hub_dir, &url, "dl", &listen);
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str("\n[broadcast]\ndelay = \"4s\"\n");
    std::fs::write(&config, text).unwrap();
    let _hub = HubProc::start(&config);
    let page = wait_until("the hub's page", 30, || http_get(&listen, "/"));
    assert!(page.contains(r#"data-delay-ms="4000""#));

    let bdir = dir.path().join("hall");
    std::fs::create_dir_all(&bdir).unwrap();
    let g = game(16, Some(20));
    let sim = SimBoard::new(&bdir, "d1", g.clone(), 5, SimOptions::fast("71001"));
    let bridge = bridge_config(
        &bdir,
        "hall",
        &url,
        "dl",
        &[HubBoard {
            id: "d1".into(),
            port: sim.path().to_string_lossy().into_owned(),
            number: 1,
        }],
    );
    let _daemon = Daemon::start(&bridge);
    let last = format!(" {} ", g.sans.last().unwrap());
    let bridge_pgn = bdir.join("pgn");
    let hub_pgn = hub_dir.join("pgn");
    // The bridge (live) has the last move; the hub's public folder not yet.
    wait_until("the whole game in the bridge's folder", 60, || {
        game_file(&bridge_pgn, 1).filter(|t| t.contains(&last))
    });
    let seen = Instant::now();
    assert!(
        !game_file(&hub_pgn, 1).is_some_and(|t| t.contains(&last)),
        "the hub's folder must lag by the delay"
    );
    // The public page does not show it yet either.
    let snap = snapshot(&listen).expect("a snapshot");
    assert!(crate::util::state_moves(&snap["states"][0]).len() < g.sans.len());
    // Then, the delay later, the same file as the bridge's.
    let text = wait_until("the delayed game at the hub", 30, || {
        let ours = game_file(&hub_pgn, 1)?;
        (Some(&ours) == game_file(&bridge_pgn, 1).as_ref()).then_some(ours)
    });
    assert!(
        seen.elapsed() >= Duration::from_secs(2),
        "{:?}",
        seen.elapsed()
    );
    assert_eq!(python_chess_mainlines(&text), vec![g.sans.clone()]);
    let snap = snapshot(&listen).expect("a snapshot");
    assert_eq!(crate::util::state_moves(&snap["states"][0]), g.sans);
}

/// Issue 42, "a forged draughts `position` on the broker hangs every
/// browser on the hub's page": a state and an event whose position is no
/// draughts position (`W:W1-Infinity:B2`) are dropped where they enter the
/// hub, with one warning naming the board; the page keeps the board's last
/// good state, and the forged text never reaches its JSON.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forged_position_on_the_broker_never_reaches_the_hubs_page() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    const START: &str = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12";
    const FORGED: &str = "W:W1-Infinity:B2";
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let url = format!("\"mqtt://127.0.0.1:{}\"", broker.port);
    let listen = format!("127.0.0.1:{}", free_port());
    let hub = HubProc::start(&hub_config(&dir.path().join("hub"), &url, "fp", &listen));
    wait_until("the hub's page", 30, || http_get(&listen, "/"));
    let state = |position: &str| {
        serde_json::json!({"board": "9", "bridge": "hall", "status": "connected", "game": 1,
            "game_type": "draughts", "start_position": START, "position": position,
            "notation": [], "id": [], "round": 3, "number": 9})
        .to_string()
        .into_bytes()
    };
    let topic = "fp/arbiter/board/9/state";
    crate::util::publish(broker.port, topic, state(START), true).await;
    let position_on_page = |snap: &serde_json::Value| {
        let i = snap["boards"].as_array()?.iter().position(|b| b == "9")?;
        snap["states"][i]["position"].as_str().map(str::to_string)
    };
    wait_until("the good state on the page", 20, || {
        position_on_page(&snapshot(&listen)?).filter(|p| p == START)
    });
    // The forged state, retained as a real bridge's would be, and a forged
    // move event; then a good state of another board, the mark that the
    // hub has read past them.
    crate::util::publish(broker.port, topic, state(FORGED), true).await;
    let event = serde_json::json!({"board": "9", "t_ms": 5, "game": "draughts",
        "type": "move", "ply": 1, "side": "black", "notation": "11-15", "id": "11-15",
        "position": FORGED, "seq": 1});
    crate::util::publish(
        broker.port,
        "fp/arbiter/board/9/event",
        event.to_string().into_bytes(),
        false,
    )
    .await;
    let mark = String::from_utf8(state(START))
        .unwrap()
        .replace("\"9\"", "\"10\"");
    crate::util::publish(
        broker.port,
        "fp/arbiter/board/10/state",
        mark.into_bytes(),
        true,
    )
    .await;
    let snap = wait_until("the mark on the page", 20, || {
        snapshot(&listen).filter(|s| s["boards"].as_array().is_some_and(|b| b.len() == 2))
    });
    assert_eq!(position_on_page(&snap).as_deref(), Some(START), "{snap}");
    for path in ["/snapshot", "/"] {
        let body = http_get(&listen, path).unwrap_or_default();
        assert!(
            !body.contains("Infinity"),
            "{path} shows the forged position"
        );
    }
    let log = hub.log();
    let warnings: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("WARN") && l.contains("board/9") && l.contains("draughts"))
        .collect();
    assert_eq!(warnings.len(), 2, "one warning per forged message:\n{log}");
}
