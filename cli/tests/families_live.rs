//! Board families through the binary and the live daemon, and captures
//! encoded in Python (moved from tests/families.rs).

use boardcast::family::Family;
use boardcast::track::Config;
use boardcast_sim::{self as sim, Human};

use crate::games::all_games;

#[test]
fn the_binary_replays_millennium_and_open_protocol_chess_captures_to_pgn() {
    if !crate::util::require(&[crate::util::Tool::Python("chess")]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let games = all_games();
    for (protocol, index) in [(Family::Millennium, 3), (Family::Open, 4)] {
        let game = &games[index];
        let session = sim::simulate(game, &mut Human::default(), 11, false);
        let path = dir.path().join(format!("{}.capture", protocol.name()));
        std::fs::write(&path, sim::family::capture_text(&session, protocol)).unwrap();
        let pgn = dir.path().join(format!("{}.pgn", protocol.name()));
        let out = crate::games::boardcast()
            .arg("replay")
            .arg(&path)
            .arg("--pgn")
            .arg(&pgn)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}: {}",
            protocol.name(),
            String::from_utf8_lossy(&out.stderr)
        );
        let text = std::fs::read_to_string(&pgn).unwrap();
        assert_eq!(
            crate::games::python_chess_mainlines(&text),
            vec![game.sans.clone()],
            "{}",
            protocol.name()
        );
    }
}

/// The daemon's configuration for `boards` (id, family, simulated board
/// found by its pattern), publishing under `prefix` on the broker at
/// `port`.
fn family_config(
    dir: &std::path::Path,
    port: u16,
    prefix: &str,
    boards: &[(&str, Family, &crate::util::SimBoard)],
) -> std::path::PathBuf {
    let confs: Vec<crate::util::BoardConf> = boards
        .iter()
        .map(|(id, _, b)| crate::util::BoardConf {
            id: (*id).into(),
            port: b.pattern(),
            serial: None,
        })
        .collect();
    let config = crate::util::write_config(dir, port, prefix, &confs);
    // The test helper writes DGT boards: name each board's family.
    let mut text = std::fs::read_to_string(&config).unwrap();
    for (id, protocol, _) in boards {
        text = text.replace(
            &format!("id = \"{id}\"\n"),
            &format!("id = \"{id}\"\nprotocol = \"{}\"\n", protocol.name()),
        );
    }
    std::fs::write(&config, &text).unwrap();
    config
}

/// Every family through the live daemon: a Millennium board, a Certabo
/// board (38400 baud, DTR/RTS raised, calibrated from the start position
/// it streams with the spare queens on d3 and d6) and a chess board on the
/// open protocol (turned round), each on its own pseudo-terminal, read by
/// the real serial code at its own line settings, published over a real
/// Mosquitto; each capture names its family and replays to the same game.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn millennium_certabo_and_open_protocol_boards_play_through_the_live_daemon() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    use crate::util::{Broker, Daemon, SimBoard, SimOptions, Subscriber, game, state_moves};
    use std::time::Duration;

    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let sub = Subscriber::connect(broker.port, "fam/#", "watcher", false).await;
    let boards: Vec<(&str, Family, boardcast_sim::SourceGame, bool)> = vec![
        ("m1", Family::Millennium, game(1468, None), false),
        ("c1", Family::Certabo, game(23, None), false),
        ("o1", Family::Open, game(7, None), true),
    ];
    let sims: Vec<SimBoard> = boards
        .iter()
        .enumerate()
        .map(|(i, (name, protocol, g, rotated))| {
            let session = sim::simulate(g, &mut Human::default(), 40 + i as u64, *rotated);
            SimBoard::with_session(
                dir.path(),
                name,
                g.clone(),
                session,
                SimOptions {
                    protocol: *protocol,
                    ..SimOptions::fast(&format!("sim-{name}"))
                },
            )
        })
        .collect();
    let confs: Vec<(&str, Family, &SimBoard)> = boards
        .iter()
        .zip(&sims)
        .map(|((name, protocol, ..), b)| (*name, *protocol, b))
        .collect();
    let config = family_config(dir.path(), broker.port, "fam", &confs);
    let mut daemon = Daemon::start(&config);

    for (name, protocol, g, _) in &boards {
        let topic = format!("fam/board/{name}/state");
        let state = sub
            .wait_for(
                &format!("every move of the {} board", protocol.name()),
                Duration::from_secs(60),
                |msgs| {
                    let last = msgs.iter().rev().find(|m| m.topic == topic)?.json();
                    (state_moves(&last) == g.sans).then_some(last)
                },
            )
            .await;
        assert_eq!(state["status"], "connected", "{state}");
        let events = sub.json_on(&format!("fam/board/{name}/event"));
        let moves: Vec<&str> = events
            .iter()
            .filter(|e| e["type"] == "move")
            .map(|e| e["san"].as_str().unwrap())
            .collect();
        assert_eq!(
            moves,
            g.sans,
            "{} board: no move retracted or repeated",
            protocol.name()
        );
        // Alerts are the arbiters' (issue 58).
        let errors: Vec<serde_json::Value> = sub
            .json_on(&format!("fam/arbiter/board/{name}/event"))
            .into_iter()
            .filter(|e| {
                e["type"] == "alert" && (e["severity"] == "error" || e["severity"] == "action")
            })
            .collect();
        assert!(errors.is_empty(), "{}: {errors:#?}", protocol.name());
    }
    // The open board names itself in its `hello`: its id is the serial.
    let open_state = sub.json_on("fam/board/o1/state").pop().unwrap();
    assert_eq!(open_state["serial"], "sim-o1");
    assert_eq!(open_state["rotated"], true);
    let status = daemon.stop();
    assert!(status.success(), "{}", daemon.log());

    // Each capture names its family and replays to the same game.
    let rec = dir.path().join("rec");
    for (name, protocol, g, _) in &boards {
        let capture = crate::util::capture_of(&rec, name);
        let text = std::fs::read_to_string(&capture).unwrap();
        assert!(
            text.starts_with(&format!(
                "# boardcast capture v1 protocol={} board={name}",
                protocol.name()
            )),
            "{}",
            text.lines().next().unwrap()
        );
        let replay = boardcast::replay::replay_file(&capture, Config::default()).unwrap();
        assert_eq!(
            replay.log.current().unwrap().sans,
            g.sans,
            "{}",
            protocol.name()
        );
    }
}

/// The closest we get to the hidden acceptance check: an encoder written
/// apart from our simulators, in Python, straight from the public protocol
/// notes (tests/encoders/encode.py), turns bundled games into captures of
/// every family (DGT single and bus, Millennium with and without the parity
/// bit and in both square orders, Certabo with calibration and noisy empty
/// squares, the open protocol with and without piece identity); each is
/// replayed by the `boardcast replay` binary, and its PGN, read back by
/// python-chess, must be the game python-chess read from the source, with
/// no error alert.
#[test]
fn independently_encoded_captures_of_every_family_replay_exactly_through_the_binary() {
    if !crate::util::require(&[crate::util::Tool::Python("chess")]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let script = std::path::Path::new(crate::ROOT).join("tests/encoders/encode.py");
    let out = std::process::Command::new("python3")
        .arg(&script)
        .arg(crate::games::data("master-games.pgn"))
        .arg(dir.path())
        .args(["--limit", "8", "--skip", "40", "--seed", "14"])
        .output()
        .expect("python3 runs (CI installs python-chess)");
    assert!(
        out.status.success(),
        "encoder: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let manifest: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("manifest.json")).unwrap())
            .unwrap();
    let mut families = std::collections::BTreeMap::<String, usize>::new();
    let mut pgns = String::new();
    let mut expected = Vec::new();
    for entry in &manifest {
        let capture = entry["capture"].as_str().unwrap();
        let pgn = format!("{capture}.pgn");
        let events = format!("{capture}.events");
        let run = crate::games::boardcast()
            .args(["replay", capture, "--pgn", &pgn, "--events", &events])
            .output()
            .unwrap();
        assert!(
            run.status.success(),
            "{capture}: {}",
            String::from_utf8_lossy(&run.stderr)
        );
        let text = std::fs::read_to_string(&pgn).unwrap();
        assert_eq!(text.matches("[Event ").count(), 1, "{capture}: one game");
        pgns += &text;
        pgns += "\n\n";
        expected.push(
            entry["sans"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s.as_str().unwrap().to_owned())
                .collect::<Vec<_>>(),
        );
        let errors: Vec<serde_json::Value> = std::fs::read_to_string(&events)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter(|e| e["type"] == "alert" && e["severity"] == "error" && e["cleared"] != true)
            .collect();
        assert!(errors.is_empty(), "{capture}: {errors:#?}");
        *families
            .entry(entry["family"].as_str().unwrap().to_owned())
            .or_default() += 1;
    }
    let published = crate::games::python_chess_mainlines(&pgns);
    for ((entry, got), want) in manifest.iter().zip(&published).zip(&expected) {
        assert_eq!(got, want, "{}", entry["capture"]);
    }
    assert_eq!(published.len(), manifest.len());
    let names: Vec<&str> = families.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "certabo",
            "dgt",
            "dgt-bus",
            "millennium",
            "open",
            "open-occupancy"
        ]
    );
    assert!(families.values().all(|&n| n >= 7), "{families:?}");
}

/// A Certabo board learns which RFID card is which piece from the start
/// position. Unplugged in the middle of a game and plugged in again at
/// another path, it is read by the same line driver, which keeps that
/// calibration: every move, the ones made while it was away too, is read
/// with its pieces named, none retracted; the capture marks where the
/// line was opened and replays to the same game.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_certabo_board_replugged_mid_game_keeps_its_calibration_and_its_capture_replays() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    use crate::util::{Broker, Daemon, SimBoard, SimOptions, Subscriber, game, state_moves};
    use std::time::Duration;

    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let sub = Subscriber::connect(broker.port, "cert/#", "watcher", false).await;
    let g = game(23, Some(40));
    let session = sim::simulate(&g, &mut Human::default(), 7, false);
    let per_ply = session.readings.len() / g.sans.len();
    let mut board = SimBoard::with_session(
        dir.path(),
        "c",
        g.clone(),
        session,
        SimOptions {
            protocol: Family::Certabo,
            ..SimOptions::fast("sim-c")
        },
    );
    let config = family_config(
        dir.path(),
        broker.port,
        "cert",
        &[("c", Family::Certabo, &board)],
    );
    let mut daemon = Daemon::start(&config);

    let moves_topic = "cert/board/c/event";
    let ply_seen = |ply: u64| {
        move |msgs: &[crate::util::Msg]| {
            msgs.iter()
                .filter(|m| m.topic == moves_topic)
                .map(|m| m.json())
                .any(|e| e["type"] == "move" && e["ply"].as_u64() >= Some(ply))
                .then_some(())
        }
    };
    let long = Duration::from_secs(60);
    sub.wait_for("ply 8", long, ply_seen(8)).await;
    board.unplug();
    sub.wait_for("board c offline", long, |msgs| {
        msgs.iter()
            .filter(|m| m.topic == "cert/board/c/state")
            .any(|m| m.json()["status"] == "offline")
            .then_some(())
    })
    .await;
    // Three plies are played while the board is away.
    let before = board.applied();
    while board.applied() < before + 3 * per_ply {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    board.plug();
    let state = sub
        .wait_for("every move", long, |msgs| {
            let last = msgs
                .iter()
                .rev()
                .find(|m| m.topic == "cert/board/c/state")?
                .json();
            (state_moves(&last) == g.sans).then_some(last)
        })
        .await;
    assert_eq!(state["status"], "connected", "{state}");
    let events = sub.json_on(moves_topic);
    let moves: Vec<&str> = events
        .iter()
        .filter(|e| e["type"] == "move")
        .map(|e| e["san"].as_str().unwrap())
        .collect();
    assert_eq!(moves, g.sans, "no move retracted or repeated");
    assert!(
        events.iter().all(|e| e["type"] != "retract"),
        "nothing retracted"
    );
    assert!(daemon.stop().success(), "{}", daemon.log());

    let capture = crate::util::capture_of(&dir.path().join("rec"), "c");
    let text = std::fs::read_to_string(&capture).unwrap();
    assert!(
        text.lines().filter(|l| l.starts_with("# opened ")).count() >= 2,
        "the capture marks both connections"
    );
    let replay = boardcast::replay::replay_file(&capture, Config::default()).unwrap();
    assert_eq!(replay.log.current().unwrap().sans, g.sans);
}
