//! Issue 27, part 1, "Nothing public before its time, ever", drilled with
//! real parts: a real Mosquitto, a simulated DGT board on a pty, the daemon
//! killed (`kill -9`) and started again, its delay journal torn. With
//! `[broadcast] delay`, nothing on the public topics or in the PGN folder
//! may show a move before the delay has passed since the arbiters saw it,
//! the public state may only move when the delay releases an event, and
//! the public record must never skip a move.
//!
//! `BOARDCAST_TEST_BIN` runs the drills against another `boardcast`
//! binary (an older build, to see them fail).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::util::{BoardConf, Broker, Daemon, Msg, SimBoard, SimOptions, Subscriber, game};

/// The daemon under test (see the module doc).
fn daemon(config: &Path) -> Daemon {
    let bin =
        std::env::var("BOARDCAST_TEST_BIN").unwrap_or_else(|_| crate::util::binary().to_string());
    Daemon::start_with(config, &mut Command::new(bin))
}

/// A config with the delay, a PGN folder, and `settle_ms` as every settle
/// time.
fn config(
    dir: &Path,
    broker: u16,
    prefix: &str,
    board: &SimBoard,
    delay: &str,
    settle_ms: u64,
) -> PathBuf {
    let extra = format!(
        "\n[broadcast]\ndelay = \"{delay}\"\n\n[event]\nround = 1\npgn_dir = \"{}\"\n",
        dir.join("pgn").display()
    );
    let path = crate::util::write_config_with(
        dir,
        &format!("mqtt://127.0.0.1:{broker}"),
        &extra,
        prefix,
        &[BoardConf {
            id: "1".into(),
            port: board.path().to_string_lossy().into_owned(),
            serial: None,
        }],
    );
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace(
            "settle_base_ms = 50",
            &format!("settle_base_ms = {settle_ms}"),
        )
        .replace(
            "settle_extendable_ms = 100",
            &format!("settle_extendable_ms = {settle_ms}"),
        );
    std::fs::write(&path, text).unwrap();
    path
}

/// A board that thinks `think_ms` before each move.
fn board(
    dir: &Path,
    index: usize,
    plies: usize,
    think_ms: u64,
    serial: &str,
) -> (SimBoard, Vec<String>) {
    let g = game(index, Some(plies));
    let sans = g.sans.clone();
    let options = SimOptions {
        pace: boardcast_sim::pty::Pace::Compressed {
            think_ms,
            factor: 10,
        },
        ..SimOptions::fast(serial)
    };
    (SimBoard::new(dir, "one", g, 7, options), sans)
}

fn moves_on(msgs: &[Msg], topic: &str) -> Vec<Msg> {
    msgs.iter()
        .filter(|m| m.topic == topic && !m.retain && m.json()["type"] == "move")
        .cloned()
        .collect()
}

/// The plies of the mainline of a PGN file's last game (tags, comments,
/// move numbers and the result left out).
fn pgn_plies(text: &str) -> usize {
    let Some(game) = text.split("\n[Event ").last() else {
        return 0;
    };
    let movetext: String = game
        .lines()
        .filter(|l| !l.starts_with('['))
        .collect::<Vec<_>>()
        .join(" ");
    let mut depth = 0;
    let mut plain = String::new();
    for c in movetext.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ if depth == 0 => plain.push(c),
            _ => {}
        }
    }
    plain
        .split_whitespace()
        .filter(|w| !w.ends_with('.') && !["*", "1-0", "0-1", "1/2-1/2"].contains(w))
        .count()
}

/// Every public move came at least `delay` (less a little scheduling)
/// after the same ply first reached the arbiters.
fn assert_nothing_early(msgs: &[Msg], prefix: &str, delay: Duration) {
    let live = moves_on(msgs, &format!("{prefix}/arbiter/board/1/event"));
    for p in moves_on(msgs, &format!("{prefix}/board/1/event")) {
        let ply = p.json()["ply"].clone();
        let Some(first) = live.iter().find(|a| a.json()["ply"] == ply) else {
            continue;
        };
        let lag = p.at.saturating_duration_since(first.at);
        assert!(
            lag + Duration::from_millis(400) >= delay,
            "ply {ply} reached the public {lag:?} after the arbiters (delay {delay:?})"
        );
    }
}

/// The public state never shows more plies than the public events gave.
fn assert_state_behind_events(msgs: &[Msg], prefix: &str) {
    let (events, state) = (
        format!("{prefix}/board/1/event"),
        format!("{prefix}/board/1/state"),
    );
    let mut plies = 0u64;
    for m in msgs.iter().filter(|m| !m.retain) {
        if m.topic == events && m.json()["type"] == "move" {
            plies = m.json()["ply"].as_u64().unwrap();
        }
        if m.topic == state {
            let ply = m.json()["ply"].as_u64().unwrap();
            assert!(
                ply <= plies,
                "the public state shows ply {ply} while the public events gave {plies}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_never_puts_the_live_game_in_the_public_folder() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let sub = Subscriber::connect(broker.port, "dd1/#", "watcher", false).await;
    let (board, _) = board(dir.path(), 24, 30, 700, "40001");
    let config = config(dir.path(), broker.port, "dd1", &board, "20s", 50);
    let live = "dd1/arbiter/board/1/event";
    let mut d = daemon(&config);
    sub.wait_for("eight plies live", Duration::from_secs(60), |msgs| {
        (moves_on(msgs, live).len() >= 8).then_some(())
    })
    .await;
    d.crash();
    let folder = dir.path().join("pgn/round-1/game-1.pgn");
    let before = pgn_plies(&std::fs::read_to_string(&folder).unwrap_or_default());
    assert_eq!(before, 0, "the folder had moves before the delay passed");
    let d = daemon(&config);
    // For ten seconds (half the delay), the folder never shows a move:
    // none has been public yet.
    let until = Instant::now() + Duration::from_secs(10);
    while Instant::now() < until {
        let text = std::fs::read_to_string(&folder).unwrap_or_default();
        assert_eq!(
            pgn_plies(&text),
            0,
            "the public folder shows the live game after the restart:\n{text}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let msgs = sub.messages();
    assert!(moves_on(&msgs, "dd1/board/1/event").is_empty());
    assert_state_behind_events(&msgs, "dd1");
    drop(d);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_torn_journal_never_puts_the_live_game_on_the_public_topics() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let sub = Subscriber::connect(broker.port, "dd2/#", "watcher", false).await;
    let (board, _) = board(dir.path(), 25, 40, 500, "40002");
    let config = config(dir.path(), broker.port, "dd2", &board, "8s", 50);
    let (live, public) = ("dd2/arbiter/board/1/event", "dd2/board/1/event");
    let mut d = daemon(&config);
    // Some moves public, more waiting.
    sub.wait_for(
        "moves public and waiting",
        Duration::from_secs(90),
        |msgs| {
            let (l, p) = (moves_on(msgs, live).len(), moves_on(msgs, public).len());
            (p >= 2 && l >= p + 4).then_some(())
        },
    )
    .await;
    d.crash();
    // A full disk tore a line in the middle of the journal.
    let journal = dir.path().join("rec/1.public.jsonl");
    let text = std::fs::read_to_string(&journal).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    assert!(
        lines.len() >= 2,
        "the journal holds the waiting moves: {text}"
    );
    let torn = &lines[0][..lines[0].len() / 2].to_string();
    lines.insert(1, torn);
    std::fs::write(&journal, lines.join("\n") + "\n").unwrap();
    let d = daemon(&config);
    sub.wait_for("more moves live", Duration::from_secs(60), |msgs| {
        (moves_on(msgs, live).len() >= 16).then_some(())
    })
    .await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let msgs = sub.messages();
    assert_nothing_early(&msgs, "dd2", Duration::from_secs(8));
    assert_state_behind_events(&msgs, "dd2");
    assert!(
        d.log().contains("cannot say what the public has seen"),
        "the daemon says it holds back"
    );
    drop(d);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_public_state_moves_only_when_the_delay_releases_an_event() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let sub = Subscriber::connect(broker.port, "dd3/#", "watcher", false).await;
    let (board, sans) = board(dir.path(), 26, 12, 400, "40003");
    let config = config(dir.path(), broker.port, "dd3", &board, "3s", 50);
    let (events, state) = ("dd3/board/1/event", "dd3/board/1/state");
    let d = daemon(&config);
    sub.wait_for("every move public", Duration::from_secs(60), |msgs| {
        (moves_on(msgs, events).len() == sans.len()).then_some(())
    })
    .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let msgs = sub.messages();
    let public: Vec<&Msg> = msgs
        .iter()
        .filter(|m| !m.retain && (m.topic == events || m.topic == state))
        .collect();
    let first_event = public
        .iter()
        .position(|m| m.topic == events)
        .expect("public events");
    // Before anything was released: the board's start-up and connection
    // only, never a live change.
    assert!(
        first_event <= 2,
        "{first_event} public states before the first public event"
    );
    let mut last_event: Option<&Msg> = None;
    let mut states = 0;
    for m in &public[first_event..] {
        if m.topic == events {
            last_event = Some(m);
            continue;
        }
        states += 1;
        let e = last_event.expect("an event first");
        let gap = m.at.saturating_duration_since(e.at);
        assert!(
            gap < Duration::from_millis(150),
            "a public state {gap:?} after the last public event: a live change showed through: {}",
            m.text()
        );
        let s = m.json();
        assert_eq!(
            s["t_ms"],
            e.json()["t_ms"],
            "the public state carries the time of the last public event"
        );
        assert!(s.get("placement").is_none());
    }
    assert!(states >= sans.len() / 2, "{states} public states");
    drop(d);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_settling_at_a_kill_reaches_the_public_at_its_own_ply() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let sub = Subscriber::connect(broker.port, "dd4/#", "watcher", false).await;
    // Four seconds a move, two and a half to settle: a kill 2.7 s after a
    // move went out live finds the next one on the board, still settling.
    let (board, sans) = board(dir.path(), 27, 14, 4_000, "40004");
    let config = config(dir.path(), broker.port, "dd4", &board, "5s", 2_500);
    let (live, public) = ("dd4/arbiter/board/1/event", "dd4/board/1/event");
    let mut d = daemon(&config);
    let at = sub
        .wait_for("five plies live", Duration::from_secs(90), |msgs| {
            let m = moves_on(msgs, live);
            (m.len() >= 5).then(|| m.last().unwrap().at)
        })
        .await;
    tokio::time::sleep_until(at + Duration::from_millis(2_700)).await;
    let plies_live = moves_on(&sub.messages(), live).len();
    d.crash();
    let d = daemon(&config);
    sub.wait_for("every move public", Duration::from_secs(120), |msgs| {
        let last = moves_on(msgs, public)
            .last()
            .map(|m| m.json()["ply"].clone());
        (last == Some(serde_json::json!(sans.len()))).then_some(())
    })
    .await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let msgs = sub.messages();
    // The public got every ply, in order, each as played (a release being
    // recorded at the instant of the kill may come twice: screens drop it).
    let mut plies: Vec<String> = Vec::new();
    for m in moves_on(&msgs, public) {
        let v = m.json();
        let ply = v["ply"].as_u64().unwrap() as usize;
        if ply == plies.len() {
            continue;
        }
        assert_eq!(
            ply,
            plies.len() + 1,
            "the public skipped a ply after {plies:?} (the kill came after {plies_live} live plies)"
        );
        assert_eq!(v["san"], sans[ply - 1], "ply {ply}");
        plies.push(sans[ply - 1].clone());
    }
    assert_eq!(plies, sans);
    let state = sub.last_on("dd4/board/1/state").unwrap();
    let state: serde_json::Value = serde_json::from_str(&state).unwrap();
    assert_eq!(crate::util::state_moves(&state), sans);
    assert_nothing_early(&msgs, "dd4", Duration::from_secs(5));
    drop(d);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restarted_hub_shows_the_games_in_progress_again_and_nothing_early() {
    use crate::hub::{HubBoard, HubProc, bridge_config, game_file, hub_config, snapshot};
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let bin =
        std::env::var("BOARDCAST_TEST_BIN").unwrap_or_else(|_| crate::util::binary().to_string());
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let url = format!("\"mqtt://127.0.0.1:{}\"", broker.port);
    let listen = format!("127.0.0.1:{}", crate::util::free_port());
    let hub_dir = dir.path().join("hub");
    let config = hub_config(&hub_dir, &url, "dd5", &listen);
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str("\n[broadcast]\ndelay = \"6s\"\n");
    std::fs::write(&config, text).unwrap();
    let hub = HubProc::start_with(&config, &mut Command::new(&bin));
    crate::hub::wait_until("the hub's page", 30, || crate::hub::http_get(&listen, "/"));

    let bdir = dir.path().join("hall");
    std::fs::create_dir_all(&bdir).unwrap();
    let (sim, sans) = board(&bdir, 28, 30, 700, "40005");
    let bridge = bridge_config(
        &bdir,
        "hall",
        &url,
        "dd5",
        &[HubBoard {
            id: "h1".into(),
            port: sim.path().to_string_lossy().into_owned(),
            number: 1,
        }],
    );
    let _daemon = Daemon::start_with(&bridge, &mut Command::new(&bin));
    let public_plies = |listen: &str| {
        snapshot(listen).and_then(|s| s["states"][0]["moves"].as_array().map(Vec::len))
    };
    let shown = crate::hub::wait_until("four plies public at the hub", 90, || {
        public_plies(&listen).filter(|&n| n >= 4)
    });
    // The hub is killed and started again, mid-game.
    drop(hub);
    let hub = HubProc::start_with(&config, &mut Command::new(&bin));
    let back = crate::hub::wait_until("the hub's page again", 30, || {
        crate::hub::http_get(&listen, "/")
    });
    assert!(!back.is_empty());
    // Within two seconds the public sees the game again, at least as far
    // as it had seen it; never further than the live game less the delay.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let again = public_plies(&listen).unwrap_or(0);
    assert!(
        again >= shown,
        "the restarted hub shows {again} public plies, {shown} before the restart"
    );
    let hub_pgn = hub_dir.join("pgn");
    let bridge_pgn = bdir.join("pgn");
    let last = format!(" {} ", sans.last().unwrap());
    crate::hub::wait_until("the whole game live at the bridge", 90, || {
        game_file(&bridge_pgn, 1).filter(|t| t.contains(&last))
    });
    let live_done = Instant::now();
    assert!(
        public_plies(&listen).unwrap_or(0) < sans.len(),
        "the hub's public page showed the last move with the live game"
    );
    // The delay later, the hub's public page and folder have it all.
    crate::hub::wait_until("the whole game public at the hub", 30, || {
        (public_plies(&listen) == Some(sans.len())).then_some(())
    });
    // (The bridge's folder itself lags the live move by its writer's
    // pause, up to a second with the polling.)
    assert!(
        live_done.elapsed() >= Duration::from_secs(4),
        "the last move public {:?} after the bridge's folder had it",
        live_done.elapsed()
    );
    // (Moves made while the hub was down come from the bridge's state,
    // without their clock comments: the same moves, not the same bytes.)
    crate::hub::wait_until("the hub's folder", 10, || {
        let ours = game_file(&hub_pgn, 1)?;
        (pgn_plies(&ours) == sans.len()).then_some(())
    });
    assert!(
        hub_dir.join("test.state/h1.public.jsonl").exists(),
        "the journal beside the hub's config"
    );
    drop(hub);
}
