//! The live daemon with real parts: the `boardcast` binary, simulated DGT
//! boards on pseudo-terminals (opened through the real serial code), and a
//! Mosquitto broker of the test's own on a free loopback port.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use crate::util::{
    BoardConf, Broker, Daemon, SimBoard, SimOptions, Subscriber, binary, fold_moves, game,
    state_moves, write_config,
};

const LONG: Duration = Duration::from_secs(40);

/// Waits until the subscriber has seen move `ply` on `board`.
async fn wait_ply(sub: &Subscriber, prefix: &str, board: &str, ply: u64) {
    let topic = format!("{prefix}/board/{board}/event");
    sub.wait_for(&format!("ply {ply} on board {board}"), LONG, |msgs| {
        msgs.iter()
            .filter(|m| m.topic == topic)
            .map(|m| m.json())
            .any(|e| e["type"] == "move" && e["ply"].as_u64() >= Some(ply))
            .then_some(())
    })
    .await
}

/// Waits until the retained state of `board` shows `moves` (and returns it).
async fn wait_state(sub: &Subscriber, prefix: &str, board: &str, moves: &[String]) -> Value {
    let topic = format!("{prefix}/board/{board}/state");
    sub.wait_for(
        &format!("state of board {board} with every move"),
        LONG,
        |msgs| {
            let last = msgs.iter().rev().find(|m| m.topic == topic)?.json();
            (state_moves(&last) == moves).then_some(last)
        },
    )
    .await
}

fn events(sub: &Subscriber, prefix: &str, board: &str) -> Vec<Value> {
    sub.json_on(&format!("{prefix}/board/{board}/event"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_game_arrives_over_mqtt_with_the_right_moves_and_retained_state() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let sub = Subscriber::connect(broker.port, "full/#", "watcher", false).await;
    let g = game(1468, None);
    let board = SimBoard::new(dir.path(), "dgt", g.clone(), 7, SimOptions::fast("10001"));
    let config = write_config(
        dir.path(),
        broker.port,
        "full",
        &[BoardConf {
            id: "1".into(),
            port: board.path().to_string_lossy().into_owned(),
            serial: None,
        }],
    );
    let daemon = Daemon::start(&config);

    let state = wait_state(&sub, "full", "1", &g.sans).await;
    assert_eq!(state["status"], "connected");
    assert_eq!(state["serial"], "10001");
    assert_eq!(state["recognised"], true);
    assert_eq!(state["rotated"], false);
    assert_eq!(state["irregular"], false);
    let uci: Vec<String> = state["uci"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    assert_eq!(uci.len(), g.sans.len());
    let end = g.moves.iter().fold(g.start.clone(), |p, m| p.play(*m));
    assert_eq!(state["fen"], end.fen());
    assert_eq!(state["ply"], g.sans.len());

    let evs = events(&sub, "full", "1");
    assert_eq!(evs[0]["type"], "game_start", "{evs:#?}");
    let moves: Vec<&Value> = evs.iter().filter(|e| e["type"] == "move").collect();
    assert_eq!(moves.len(), g.sans.len(), "no move retracted or repeated");
    for (i, m) in moves.iter().enumerate() {
        assert_eq!(m["ply"], i as u64 + 1);
        assert_eq!(m["san"], g.sans[i]);
        assert_eq!(m["board"], "1");
    }
    // Alerts are the arbiters' (issue 58): none on the public topic, and
    // none of the clean game's on theirs.
    assert!(evs.iter().all(|e| e["type"] != "alert"), "{evs:#?}");
    let arbiters = sub.json_on("full/arbiter/board/1/event");
    assert!(
        arbiters
            .iter()
            .all(|e| e["type"] != "alert" || e["kind"] == "touch_move"),
        "a clean game raises no alert: {arbiters:#?}"
    );
    let pgn = sub.last_on("full/board/1/pgn").unwrap();
    assert!(
        pgn.contains(&format!("1. {} {}", g.sans[0], g.sans[1])),
        "{pgn}"
    );
    assert_eq!(
        sub.last_on("full/bridge/test/status").as_deref(),
        Some("online")
    );
    drop(daemon);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_subscriber_gets_the_retained_state_and_pgn_at_once() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let g = game(62, None);
    let board = SimBoard::new(dir.path(), "dgt", g.clone(), 3, SimOptions::fast("10002"));
    let config = write_config(
        dir.path(),
        broker.port,
        "late",
        &[BoardConf {
            id: "b7".into(),
            port: board.path().to_string_lossy().into_owned(),
            serial: None,
        }],
    );
    let _daemon = Daemon::start(&config);
    let early = Subscriber::connect(broker.port, "late/#", "early", false).await;
    wait_state(&early, "late", "b7", &g.sans).await;

    // A screen that connects after the game: everything retained, no event.
    let late = Subscriber::connect(broker.port, "late/#", "late", false).await;
    let state = late
        .wait_for("retained state", Duration::from_secs(5), |msgs| {
            msgs.iter()
                .find(|m| m.topic == "late/board/b7/state")
                .map(|m| (m.retain, m.json()))
        })
        .await;
    assert!(state.0, "the state is retained");
    assert_eq!(state_moves(&state.1), g.sans);
    let pgn = late
        .wait_for("retained pgn", Duration::from_secs(5), |msgs| {
            msgs.iter()
                .find(|m| m.topic == "late/board/b7/pgn")
                .map(|m| (m.retain, m.text()))
        })
        .await;
    assert!(pgn.0);
    assert!(pgn.1.contains(&g.sans[0]) && pgn.1.contains("[White \"?\"]"));
    let status = late
        .wait_for("bridge status", Duration::from_secs(5), |msgs| {
            msgs.iter()
                .find(|m| m.topic == "late/bridge/test/status")
                .map(|m| (m.retain, m.text()))
        })
        .await;
    assert_eq!(status, (true, "online".to_string()));
    assert!(
        late.messages().iter().all(|m| !m.topic.ends_with("/event")),
        "events are not retained"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_board_unplugged_and_replugged_at_a_new_path_mid_game_loses_no_move() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let sub = Subscriber::connect(broker.port, "plug/#", "watcher", false).await;
    let ga = game(5, Some(30));
    let gb = game(9, Some(30));
    let mut a = SimBoard::new(dir.path(), "a", ga.clone(), 11, SimOptions::fast("20001"));
    let b = SimBoard::new(dir.path(), "b", gb.clone(), 12, SimOptions::fast("20002"));
    let config = write_config(
        dir.path(),
        broker.port,
        "plug",
        &[
            BoardConf {
                id: "a".into(),
                port: a.pattern(),
                serial: None,
            },
            BoardConf {
                id: "b".into(),
                port: b.path().to_string_lossy().into_owned(),
                serial: None,
            },
        ],
    );
    let daemon = Daemon::start(&config);

    wait_ply(&sub, "plug", "a", 8).await;
    let first_path = a.path();
    a.unplug();
    let offline = sub
        .wait_for("board a offline", LONG, |msgs| {
            msgs.iter()
                .filter(|m| m.topic == "plug/board/a/state")
                .map(|m| m.json())
                .find(|s| s["status"] == "offline" && s["ply"].as_u64() >= Some(8))
        })
        .await;
    assert_eq!(offline["port"], first_path.to_string_lossy().as_ref());
    // Moves are made while the board is away: wait for three plies.
    let before = a.applied();
    let per_ply = a.session.readings.len() / ga.sans.len();
    while a.applied() < before + 3 * per_ply {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    a.plug();
    assert_ne!(a.path(), first_path);

    let state = wait_state(&sub, "plug", "a", &ga.sans).await;
    assert_eq!(state["status"], "connected");
    assert_eq!(state["port"], a.path().to_string_lossy().as_ref());
    assert_eq!(state["serial"], "20001");
    assert_eq!(fold_moves(&events(&sub, "plug", "a")), ga.sans);

    // The other board never noticed.
    let sb = wait_state(&sub, "plug", "b", &gb.sans).await;
    assert_eq!(sb["status"], "connected");
    assert!(
        sub.json_on("plug/board/b/state")
            .iter()
            .skip_while(|s| s["status"] != "connected")
            .all(|s| s["status"] == "connected"),
        "board b stayed connected"
    );
    let b_moves: Vec<Value> = events(&sub, "plug", "b")
        .into_iter()
        .filter(|e| e["type"] == "move")
        .collect();
    assert_eq!(b_moves.len(), gb.sans.len());
    assert!(daemon.log().contains("board offline"), "{}", daemon.log());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_broker_killed_and_restarted_mid_game_loses_no_move() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut broker = Broker::start();
    // A persistent session: the broker keeps QoS 1 messages for this
    // subscriber while it is away, as a broadcast screen would ask.
    let sub = Subscriber::connect(broker.port, "outage/#", "screen", true).await;
    let g = game(5, Some(32));
    let board = SimBoard::new(dir.path(), "dgt", g.clone(), 21, SimOptions::fast("30001"));
    let config = write_config(
        dir.path(),
        broker.port,
        "outage",
        &[BoardConf {
            id: "1".into(),
            port: board.path().to_string_lossy().into_owned(),
            serial: None,
        }],
    );
    let daemon = Daemon::start(&config);
    wait_ply(&sub, "outage", "1", 6).await;
    // Let the broker save the subscriber's session, then kill it.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    broker.kill();
    let at_kill = board.applied();
    let per_ply = board.session.readings.len() / g.sans.len();
    while board.applied() < at_kill + 4 * per_ply {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    broker.restart();

    let state = wait_state(&sub, "outage", "1", &g.sans).await;
    assert_eq!(state["status"], "connected");
    let evs = events(&sub, "outage", "1");
    assert_eq!(fold_moves(&evs), g.sans, "every move arrived, in order");
    // No event is missing: the sequence numbers have no gap.
    let mut seqs: Vec<u64> = evs.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    seqs.sort_unstable();
    seqs.dedup();
    assert_eq!(seqs, (1..=seqs.len() as u64).collect::<Vec<_>>());
    assert!(seqs.len() > g.sans.len(), "game_start and every move");

    // After the restart the retained messages are right for a newcomer.
    let late = Subscriber::connect(broker.port, "outage/#", "newcomer", false).await;
    let retained = late
        .wait_for("retained state after the restart", LONG, |msgs| {
            msgs.iter()
                .rev()
                .find(|m| m.topic == "outage/board/1/state")
                .map(|m| m.json())
                .filter(|s| state_moves(s) == g.sans)
        })
        .await;
    assert_eq!(retained["status"], "connected");
    assert_eq!(
        late.wait_for("bridge online", Duration::from_secs(5), |msgs| {
            msgs.iter()
                .find(|m| m.topic == "outage/bridge/test/status")
                .map(|m| m.text())
        })
        .await,
        "online"
    );
    assert!(daemon.log().contains("lost the broker"), "{}", daemon.log());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_bytes_on_the_line_do_not_disturb_the_game() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let sub = Subscriber::connect(broker.port, "noise/#", "watcher", false).await;
    let g = game(62, None);
    let mut opts = SimOptions::fast("40001");
    opts.garbage_every = Some(2);
    let board = SimBoard::new(dir.path(), "dgt", g.clone(), 5, opts);
    // Garbage before the handshake too.
    board.inject(&[0x13, 0x37, 0x99, 0x00, 0xff]);
    let config = write_config(
        dir.path(),
        broker.port,
        "noise",
        &[BoardConf {
            id: "1".into(),
            port: board.path().to_string_lossy().into_owned(),
            serial: None,
        }],
    );
    let daemon = Daemon::start(&config);
    let state = wait_state(&sub, "noise", "1", &g.sans).await;
    assert_eq!(state["irregular"], false);
    let evs = events(&sub, "noise", "1");
    assert_eq!(
        evs.iter().filter(|e| e["type"] == "move").count(),
        g.sans.len()
    );
    assert!(evs.iter().all(|e| e["type"] != "retract"));
    assert!(
        daemon.log().contains("skipped garbage bytes"),
        "the noise was seen: {}",
        daemon.log()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_publishes_offline_flushes_the_capture_and_the_capture_replays_the_session() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let sub = Subscriber::connect(broker.port, "stop/#", "watcher", false).await;
    let g = game(1468, None);
    let board = SimBoard::new(dir.path(), "dgt", g.clone(), 9, SimOptions::fast("50001"));
    let config = write_config(
        dir.path(),
        broker.port,
        "stop",
        &[BoardConf {
            id: "s1".into(),
            port: board.path().to_string_lossy().into_owned(),
            serial: None,
        }],
    );
    let mut daemon = Daemon::start(&config);
    wait_state(&sub, "stop", "s1", &g.sans).await;
    let status = daemon.stop();
    assert!(
        status.success(),
        "exit 0 on SIGTERM: {status:?}\n{}",
        daemon.log()
    );

    sub.wait_for("bridge offline", Duration::from_secs(5), |msgs| {
        msgs.iter()
            .any(|m| m.topic == "stop/bridge/test/status" && m.text() == "offline")
            .then_some(())
    })
    .await;
    let last = sub.json_on("stop/board/s1/state").pop().unwrap();
    assert_eq!(last["status"], "offline");
    assert_eq!(state_moves(&last), g.sans);

    // The recorder kept every byte: replaying the capture gives the same game.
    let rec = dir.path().join("rec");
    let capture = find_file(&rec, "s1-", ".capture");
    let replay = boardcast::replay::replay_file(&capture, boardcast::track::Config::default())
        .expect("the capture replays");
    let replayed = replay.log.current().unwrap().sans.clone();
    assert_eq!(replayed, g.sans);
    // With the daemon's own settle times the replay is the session itself:
    // the very events that went over MQTT, times included.
    let mut config = boardcast::track::Config::default();
    config.settle.base_ms = 50;
    config.settle.extendable_ms = 100;
    config.settle.takeback_ms = 300;
    let exact = boardcast::replay::replay_file(&capture, config).unwrap();
    let replayed: Vec<Value> = exact
        .events
        .iter()
        .map(|(_, e)| serde_json::from_str(&e.to_json()).unwrap())
        .collect();
    let published: Vec<Value> = events(&sub, "stop", "s1")
        .into_iter()
        .map(|mut e| {
            e.as_object_mut().unwrap().remove("seq");
            e
        })
        .collect();
    assert_eq!(replayed, published);
    let text = std::fs::read_to_string(&capture).unwrap();
    assert!(text.starts_with("# boardcast capture v1 protocol=dgt board=s1"));
    assert!(text.contains(" > 40 45\n"), "the handshake is recorded");
    let pgn = std::fs::read_to_string(find_file(&rec, "s1-", ".pgn")).unwrap();
    assert!(pgn.contains(&g.sans[g.sans.len() - 1]), "{pgn}");
}

/// The configured settle times are short; replaying with the daemon's
/// configuration matters for exact timing, but the game must come out the
/// same with the defaults too, which is what the test above checks.
fn find_file(dir: &Path, prefix: &str, suffix: &str) -> std::path::PathBuf {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            n.starts_with(prefix) && n.ends_with(suffix)
        })
        .unwrap_or_else(|| panic!("no {prefix}*{suffix} in {}", dir.display()))
}

#[test]
fn a_config_typo_gives_a_one_line_error_naming_the_key_and_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("typo.toml");
    std::fs::write(
        &path,
        "[mqtt]\nurl = \"mqtt://127.0.0.1:1\"\n\n[[board]]\nid = \"1\"\nport = \"/dev/ttyUSB0\"\nbaudrate = 9600\n",
    )
    .unwrap();
    for args in [vec!["check-config"], vec!["run", "--config"]] {
        let out = std::process::Command::new(binary())
            .args(&args)
            .arg(&path)
            .output()
            .unwrap();
        assert!(!out.status.success(), "{args:?} fails");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "one line: {err}");
        assert!(err.contains("line 7"), "{err}");
        assert!(err.contains("baudrate"), "{err}");
    }
    std::fs::write(&path, "[[board]]\nid = \"1\"\nport = \"/dev/ttyUSB0\"\n").unwrap();
    let out = std::process::Command::new(binary())
        .arg("check-config")
        .arg(&path)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .contains("1 board(s)")
    );
}

#[test]
fn ports_lists_the_serial_ports_and_exits_zero() {
    let out = std::process::Command::new(binary())
        .arg("ports")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(!out.stdout.is_empty());
}

#[test]
fn json_logs_carry_the_board_span_and_a_stop_without_a_broker_is_clean() {
    let dir = tempfile::tempdir().unwrap();
    let port = crate::util::free_port();
    let path = dir.path().join("json.toml");
    std::fs::write(
        &path,
        format!(
            "[mqtt]\nurl = \"mqtt://127.0.0.1:{port}\"\nreconnect_min_ms = 50\n[log]\nformat = \"json\"\n[serial]\nreconnect_min_ms = 50\n[[board]]\nid = \"j1\"\nport = \"{}\"\n",
            dir.path().join("no-such-tty").display()
        ),
    )
    .unwrap();
    let mut daemon = Daemon::start(&path);
    std::thread::sleep(Duration::from_millis(800));
    let status = daemon.stop();
    assert!(status.success(), "{status:?}\n{}", daemon.log());
    let log = daemon.log();
    let lines: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    assert!(lines.iter().any(|l| l["fields"]["message"] == "running"));
    assert!(
        lines
            .iter()
            .any(|l| l["span"]["board"] == "j1"
                && l["fields"]["message"] == "board not found; retrying"),
        "{log}"
    );
}

/// A CA and a certificate for `localhost`/127.0.0.1 signed by it, made
/// with the openssl command (the lichess test uses them too).
pub(crate) fn make_certificates(dir: &Path) {
    let run = |args: &[&str]| {
        let out = std::process::Command::new("openssl")
            .args(args)
            .current_dir(dir)
            .output()
            .expect("openssl runs");
        assert!(out.status.success(), "openssl {args:?}: {out:?}");
    };
    run(&[
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.crt",
        "-days",
        "2",
        "-subj",
        "/CN=boardcast test CA",
    ]);
    run(&[
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "server.key",
        "-out",
        "server.csr",
        "-subj",
        "/CN=localhost",
    ]);
    std::fs::write(
        dir.join("san.ext"),
        "subjectAltName=DNS:localhost,IP:127.0.0.1\n",
    )
    .unwrap();
    run(&[
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "server.crt",
        "-days",
        "2",
        "-extfile",
        "san.ext",
    ]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tls_and_credentials_reach_a_broker_that_requires_them() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto, crate::util::Tool::Openssl]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    make_certificates(d);
    let out = std::process::Command::new("mosquitto_passwd")
        .args(["-b", "-c"])
        .arg(d.join("passwd"))
        .args(["hall", "s3cret"])
        .output()
        .expect("mosquitto_passwd runs");
    assert!(out.status.success(), "{out:?}");
    let tls_port = crate::util::free_port();
    let broker = Broker::start_with(&format!(
        "listener {tls_port} 127.0.0.1\ncafile {0}/ca.crt\ncertfile {0}/server.crt\nkeyfile {0}/server.key\nallow_anonymous false\npassword_file {0}/passwd\n",
        d.display()
    ));
    // The test watches on the plain listener.
    let sub = Subscriber::connect(broker.port, "#", "watcher", false).await;
    let g = game(1468, Some(6));
    let good = SimBoard::new(d, "good", g.clone(), 1, SimOptions::fast("60001"));
    let bad = SimBoard::new(d, "bad", g.clone(), 2, SimOptions::fast("60002"));
    let url = format!("mqtts://localhost:{tls_port}");
    let tls = format!("[mqtt.tls]\nca_file = \"{}\"\n", d.join("ca.crt").display());
    let board = |b: &SimBoard| {
        vec![BoardConf {
            id: "1".into(),
            port: b.path().to_string_lossy().into_owned(),
            serial: None,
        }]
    };
    let dgood = d.join("good");
    let dbad = d.join("bad");
    std::fs::create_dir_all(&dgood).unwrap();
    std::fs::create_dir_all(&dbad).unwrap();
    let good_cfg = crate::util::write_config_with(
        &dgood,
        &url,
        &format!("username = \"hall\"\npassword = \"s3cret\"\n{tls}"),
        "tls",
        &board(&good),
    );
    let bad_cfg = crate::util::write_config_with(
        &dbad,
        &url,
        &format!("username = \"hall\"\npassword = \"wrong\"\n{tls}"),
        "badpw",
        &board(&bad),
    );
    let _good_daemon = Daemon::start(&good_cfg);
    let bad_daemon = Daemon::start(&bad_cfg);

    let state = wait_state(&sub, "tls", "1", &g.sans).await;
    assert_eq!(state["status"], "connected");
    assert_eq!(
        sub.last_on("tls/bridge/test/status").as_deref(),
        Some("online")
    );
    // The daemon with the wrong password got nothing through, and says so.
    assert!(
        sub.messages()
            .iter()
            .all(|m| !m.topic.starts_with("badpw/"))
    );
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !bad_daemon
        .log()
        .contains("the broker refused the connection")
    {
        assert!(std::time::Instant::now() < deadline, "{}", bad_daemon.log());
        std::thread::sleep(Duration::from_millis(50));
    }
}
