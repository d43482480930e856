//! Issues 15 and 16, item 5: a draughts board and a xiangqi board on the
//! open protocol, each on its own pseudo-terminal, read by `boardcast run`
//! and published over a real Mosquitto: the move events' ids are the
//! simulated games', the retained state carries the game's position, the
//! records on the `pgn` topic parse (pydraughts for the PDN, the xiangqi
//! PGN reader and cchess for xiangqi), and each capture replays to the
//! same moves.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use boardcast::clock::TimeControl;
use boardcast_rules::draughts;
use boardcast_sim::clock::ClockSetup;
use boardcast_sim::open::{
    OtherGame, OtherGameProfile, OtherGameSession, read_xiangqi_games, simulate_draughts,
    simulate_xiangqi,
};
use boardcast_sim::open_line::OtherGameBoard;

use crate::util::{BoardConf, Broker, Daemon, Pace, Subscriber, write_config};

/// The session with a clock on the board's line (30 minutes a side, the
/// open protocol's `clock` lines).
fn clocked(mut session: OtherGameSession, game: OtherGame) -> OtherGameSession {
    let setup = ClockSetup::new(TimeControl::parse("1800+10").unwrap());
    boardcast_sim::clock::add_open_clock(&mut session, game, &setup, 3);
    session
}

/// Open-protocol boards playing `sessions` on pseudo-terminals at `pace`,
/// and a daemon config (topic prefix `prefix`) reading each as its game.
pub(crate) fn open_boards<'a>(
    dir: &std::path::Path,
    port: u16,
    prefix: &str,
    sessions: impl Iterator<Item = (&'a str, OtherGame, &'a OtherGameSession)>,
    pace: Pace,
) -> (Vec<OtherGameBoard>, PathBuf) {
    let mut sims = Vec::new();
    let mut confs = Vec::new();
    let mut games = Vec::new();
    for (name, game, session) in sessions {
        let b = OtherGameBoard::start(dir, name, game, session.clone(), pace).unwrap();
        confs.push(BoardConf {
            id: name.into(),
            port: b.pattern(),
            serial: None,
        });
        games.push((name, game));
        sims.push(b);
    }
    let config = write_config(dir, port, prefix, &confs);
    let mut text = std::fs::read_to_string(&config).unwrap();
    for (name, game) in games {
        text = text.replace(
            &format!("id = \"{name}\"\n"),
            &format!(
                "id = \"{name}\"\nprotocol = \"open\"\ngame = \"{}\"\n",
                game.name()
            ),
        );
    }
    std::fs::write(&config, text).unwrap();
    (sims, config)
}

fn data(name: &str) -> PathBuf {
    PathBuf::from(crate::ROOT)
        .join("rules/tests/data")
        .join(name)
}

fn oracle(name: &str) -> PathBuf {
    PathBuf::from(crate::ROOT)
        .join("rules/tests/oracle")
        .join(name)
}

fn python() -> String {
    std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_owned())
}

/// The ids of the move events published on `topic`, in order.
fn move_ids(sub: &Subscriber, topic: &str) -> Vec<String> {
    sub.json_on(topic)
        .iter()
        .filter(|e| e["type"] == "move")
        .map(|e| e["id"].as_str().unwrap().to_string())
        .collect()
}

fn strings(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("an array: {v}"))
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn draughts_and_xiangqi_boards_play_through_the_live_daemon() {
    if !crate::util::require(&[
        crate::util::Tool::Mosquitto,
        crate::util::Tool::Python("draughts"),
        crate::util::Tool::Python("cchess"),
    ]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let sub = Subscriber::connect(broker.port, "lg/#", "watcher", false).await;
    let profile = OtherGameProfile {
        human: false,
        pieces: true,
        rotated: false,
        real: false,
    };
    // A short game of each corpus keeps the test quick.
    let pdn = std::fs::read_to_string(data("english-draughts.pdn")).unwrap();
    let dgame = draughts::read_pdn(&pdn)
        .unwrap()
        .into_iter()
        .find(|g| (16..=40).contains(&g.moves.len()))
        .expect("a short draughts game");
    let d_ids: Vec<String> = dgame.moves.iter().map(|m| m.id()).collect();
    let xq = std::fs::read_to_string(data("xiangqi-random.pgn")).unwrap();
    let xmoves = read_xiangqi_games(&xq)
        .unwrap()
        .into_iter()
        .find(|m| (16..=40).contains(&m.len()))
        .expect("a short xiangqi game");
    let x_ids: Vec<String> = xmoves.iter().map(|m| m.to_string()).collect();
    let boards: Vec<(&str, OtherGame, OtherGameSession, &Vec<String>)> = vec![
        (
            "d1",
            OtherGame::Draughts,
            clocked(
                simulate_draughts(&dgame.moves, profile, 5),
                OtherGame::Draughts,
            ),
            &d_ids,
        ),
        (
            "x1",
            OtherGame::Xiangqi,
            clocked(simulate_xiangqi(&xmoves, profile, 6), OtherGame::Xiangqi),
            &x_ids,
        ),
    ];
    let (sims, config) = open_boards(
        dir.path(),
        broker.port,
        "lg",
        boards.iter().map(|(n, g, s, _)| (*n, *g, s)),
        Pace::fast(),
    );
    let mut daemon = Daemon::start(&config);

    for (name, game, _, want) in &boards {
        let topic = format!("lg/board/{name}/state");
        let state = sub
            .wait_for(
                &format!("every move of the {} board", game.name()),
                Duration::from_secs(90),
                |msgs| {
                    let last = msgs.iter().rev().find(|m| m.topic == topic)?.json();
                    (last["id"].as_array().map(Vec::len) == Some(want.len())).then_some(last)
                },
            )
            .await;
        let events = format!("lg/board/{name}/event");
        assert_eq!(
            &move_ids(&sub, &events),
            *want,
            "{name}: the moves published"
        );
        let all = sub.json_on(&events);
        assert!(all.iter().all(|e| e["game"] == game.name()), "{all:#?}");
        let last_move = all.iter().rev().find(|e| e["type"] == "move").unwrap();
        // The state: the game's own fields, not the chess ones.
        assert_eq!(state["game_type"], game.name(), "{state}");
        assert_eq!(state["status"], "connected", "{state}");
        assert_eq!(state["position"], last_move["position"], "{state}");
        assert_eq!(&strings(&state["id"]), *want);
        assert_eq!(
            strings(&state["notation"]),
            all.iter()
                .filter(|e| e["type"] == "move")
                .map(|e| e["notation"].as_str().unwrap().to_string())
                .collect::<Vec<_>>()
        );
        assert_eq!(state["last_move"]["id"], last_move["id"], "{state}");
        assert!(
            state.get("fen").is_none() && state.get("moves").is_none(),
            "{state}"
        );
        assert_eq!(state["serial"], format!("sim-{name}"), "{state}");
        // The clock in the game's side names (Black moves first in
        // draughts; Red in xiangqi).
        let clock = &state["clock"];
        assert!(clock["black"].is_u64(), "{state}");
        let (has, lacks) = if *game == OtherGame::Draughts {
            ("white", "red")
        } else {
            ("red", "white")
        };
        assert!(clock[has].is_u64() && clock.get(lacks).is_none(), "{state}");
        // Alerts are the arbiters' (issue 58).
        let errors: Vec<serde_json::Value> = sub
            .json_on(&format!("lg/arbiter/board/{name}/event"))
            .into_iter()
            .filter(|e| e["type"] == "alert" && e["severity"] == "error")
            .collect();
        assert!(errors.is_empty(), "{name}: {errors:#?}");
    }

    // The records on the pgn topics parse in independent readers.
    // The record is republished after every move: wait for the one that
    // holds them all (it may arrive after the last state).
    let plies = d_ids.len();
    let pdn = sub
        .wait_for("the whole PDN record", Duration::from_secs(20), |msgs| {
            let last = msgs.iter().rev().find(|m| m.topic == "lg/board/d1/pgn")?;
            let text = last.text();
            // Every move with its clock time, once the last press came.
            (pdn_moves(&text) == plies && text.matches("[%clk ").count() == plies).then_some(text)
        })
        .await;
    assert!(pdn.starts_with("[GameType \"21\"]"), "{pdn}");
    let path = dir.path().join("live.pdn");
    std::fs::write(&path, &pdn).unwrap();
    let out = Command::new(python())
        .arg(oracle("draughts_pydraughts.py"))
        .arg(&path)
        .output()
        .expect("python3 with pydraughts");
    assert!(
        out.status.success(),
        "pydraughts: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let theirs: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let plies = theirs[0]["plies"].as_array().unwrap();
    let read: Vec<String> = plies
        .iter()
        .map(|p| {
            p["played"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join("-")
        })
        .collect();
    let ours: Vec<String> = d_ids.iter().map(|id| id.replace('x', "-")).collect();
    assert_eq!(read, ours, "pydraughts reads the live PDN");

    let x_plies = x_ids.len();
    let xpgn = sub
        .wait_for(
            "the whole xiangqi record",
            Duration::from_secs(20),
            |msgs| {
                let last = msgs.iter().rev().find(|m| m.topic == "lg/board/x1/pgn")?;
                let text = last.text();
                let games = read_xiangqi_games(&text).ok()?;
                (games.first().map(Vec::len) == Some(x_plies)
                    && text.matches("[%clk ").count() == x_plies)
                    .then_some(text)
            },
        )
        .await;
    assert!(xpgn.contains("[Variant \"xiangqi\"]"), "{xpgn}");
    let read = read_xiangqi_games(&xpgn).unwrap();
    assert_eq!(read.len(), 1, "{xpgn}");
    assert_eq!(
        read[0].iter().map(|m| m.to_string()).collect::<Vec<_>>(),
        x_ids
    );
    let plies: Vec<(String, String)> = sub
        .json_on("lg/board/x1/event")
        .iter()
        .filter(|e| e["type"] == "move")
        .map(|e| {
            (
                e["id"].as_str().unwrap().to_string(),
                e["position"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let mut child = Command::new(python())
        .arg(oracle("xiangqi_cchess.py"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("python3 with cchess");
    {
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(serde_json::to_string(&vec![plies]).unwrap().as_bytes())
            .unwrap();
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "cchess: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let checked: usize = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
    assert_eq!(checked, x_ids.len(), "cchess finds every live move legal");

    let status = daemon.stop();
    assert!(status.success(), "{}", daemon.log());

    // Each capture names its game and replays to the same moves.
    let rec = dir.path().join("rec");
    for (name, game, _, want) in &boards {
        let capture = crate::util::capture_of(&rec, name);
        let head = std::fs::read_to_string(&capture).unwrap();
        let head = head.lines().next().unwrap();
        assert!(
            head.starts_with(&format!(
                "# boardcast capture v1 protocol=open board={name}"
            )) && head.contains(&format!("game={}", game.name())),
            "{head}"
        );
        let replay = boardcast::replay::replay_game_file(&capture, Default::default()).unwrap();
        let ids = crate::corpora::ids(&replay);
        assert_eq!(&ids, *want, "{name}: the capture replays to the same moves");
        // The route a restarted daemon resumes a game by (the capture's
        // header declares the board, its pipeline reads it) agrees.
        let generic = boardcast::replay::replay_file(&capture, Default::default()).unwrap();
        let record = generic.log.current().expect("a game");
        assert_eq!(&record.ucis, *want, "{name}: replay_file");
        assert_eq!(record.game.name(), game.name(), "{name}");
    }
    drop(sims);
}

/// Issue 26: draughts on an 8x8 board of each chess family (a Millennium
/// board, a Tabutronic Certabo that senses occupancy only, a DGT board),
/// each on its own pseudo-terminal at its family's line settings, read live
/// by `boardcast run` through the same pipeline as every other board and
/// published over a real Mosquitto: the moves are the game's, no error
/// alert, and each capture names its family and game and replays to the
/// same moves (live = replay).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn draughts_on_millennium_certabo_and_dgt_boards_plays_live_as_in_replay() {
    use boardcast::family::Family;
    use boardcast_sim::pty::{SimBoard, SimOptions};
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let sub = Subscriber::connect(broker.port, "vd/#", "watcher", false).await;
    let pdn = std::fs::read_to_string(data("english-draughts.pdn")).unwrap();
    let games: Vec<_> = draughts::read_pdn(&pdn)
        .unwrap()
        .into_iter()
        .filter(|g| (16..=40).contains(&g.moves.len()))
        .take(3)
        .collect();
    assert_eq!(games.len(), 3, "three short draughts games");
    let families = [Family::Millennium, Family::Certabo, Family::Dgt];
    let profile = OtherGameProfile {
        human: false,
        pieces: false,
        rotated: false,
        real: false,
    };
    let mut boards = Vec::new();
    for (i, (family, g)) in families.iter().zip(&games).enumerate() {
        let name = format!("v{}", family.name());
        let open = simulate_draughts(&g.moves, profile, 20 + i as u64);
        let session = boardcast_sim::open::draughts_on_a_vendor_board(&open);
        let sim = SimBoard::with_session(
            dir.path(),
            &name,
            crate::util::game(23, None),
            session,
            SimOptions {
                protocol: *family,
                occupancy: *family == Family::Certabo,
                ..SimOptions::fast(&format!("sim-{name}"))
            },
        );
        let ids: Vec<String> = g.moves.iter().map(|m| m.id()).collect();
        boards.push((name, *family, sim, ids));
    }
    let confs: Vec<BoardConf> = boards
        .iter()
        .map(|(name, _, sim, _)| BoardConf {
            id: name.clone(),
            port: sim.pattern(),
            serial: None,
        })
        .collect();
    let config = write_config(dir.path(), broker.port, "vd", &confs);
    let mut text = std::fs::read_to_string(&config).unwrap();
    for (name, family, ..) in &boards {
        let occupancy = if *family == Family::Certabo {
            "occupancy = true\n"
        } else {
            ""
        };
        text = text.replace(
            &format!("id = \"{name}\"\n"),
            &format!(
                "id = \"{name}\"\nprotocol = \"{}\"\ngame = \"draughts\"\n{occupancy}",
                family.name()
            ),
        );
    }
    std::fs::write(&config, text).unwrap();
    let mut daemon = Daemon::start(&config);
    for (name, family, _, want) in &boards {
        let topic = format!("vd/board/{name}/state");
        sub.wait_for(
            &format!("every move of the draughts game on the {family} board"),
            Duration::from_secs(90),
            |msgs| {
                let last = msgs.iter().rev().find(|m| m.topic == topic)?.json();
                (last["id"].as_array().map(Vec::len) == Some(want.len())).then_some(last)
            },
        )
        .await;
        let events = format!("vd/board/{name}/event");
        assert_eq!(
            &move_ids(&sub, &events),
            want,
            "{family}: the moves published"
        );
        let all = sub.json_on(&events);
        assert!(all.iter().all(|e| e["game"] == "draughts"), "{all:#?}");
        // Alerts are the arbiters' (issue 58).
        let errors: Vec<serde_json::Value> = sub
            .json_on(&format!("vd/arbiter/board/{name}/event"))
            .into_iter()
            .filter(|e| e["type"] == "alert" && e["severity"] == "error")
            .collect();
        assert!(errors.is_empty(), "{family}: {errors:#?}");
    }
    let status = daemon.stop();
    assert!(status.success(), "{}", daemon.log());
    let rec = dir.path().join("rec");
    for (name, family, _, want) in &boards {
        let capture = crate::util::capture_of(&rec, name);
        let text = std::fs::read_to_string(&capture).unwrap();
        let head = text.lines().next().unwrap();
        assert!(
            head.contains(&format!("protocol={}", family.name())) && head.contains("game=draughts"),
            "{head}"
        );
        assert_eq!(
            head.contains("occupancy=yes"),
            *family == Family::Certabo,
            "{head}"
        );
        let replay = boardcast::replay::replay_game_file(&capture, Default::default()).unwrap();
        let ids = crate::corpora::ids(&replay);
        assert_eq!(
            &ids, want,
            "{family}: the capture replays to the same moves"
        );
        assert!(
            replay.records.starts_with("[GameType \"21\"]"),
            "{}",
            replay.records
        );
    }
    drop(boards);
}

/// The moves a PDN record's movetext holds (`9-13`, `18x9`, `8x15x24`; not
/// move numbers, tags or results: a result names no square twice and no
/// square 0).
fn pdn_moves(pdn: &str) -> usize {
    pdn.lines()
        .filter(|l| !l.starts_with('['))
        .flat_map(str::split_whitespace)
        .filter(|t| {
            let squares: Vec<u32> = t
                .split(['-', 'x'])
                .map(|n| n.parse::<u32>().unwrap_or(0))
                .collect();
            squares.len() >= 2
                && squares.iter().all(|&n| (1..=32).contains(&n))
                && squares.windows(2).all(|w| w[0] != w[1])
        })
        .count()
}

/// Issue 28, parity: a draughts board and a xiangqi board, each on its own
/// pseudo-terminal, and `boardcast run` killed (SIGKILL) mid-game and
/// started again: each game is resumed from the recorder's capture (one
/// game, not two), the moves made while it was down are read from the
/// board's next whole-board line, every move is published once, and the new
/// capture names the one it resumed and replays to the whole game.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn draughts_and_xiangqi_games_resume_after_the_daemon_is_killed() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let sub = Subscriber::connect(broker.port, "rs/#", "watcher", false).await;
    let profile = OtherGameProfile {
        human: false,
        pieces: true,
        rotated: false,
        real: false,
    };
    let pdn = std::fs::read_to_string(data("english-draughts.pdn")).unwrap();
    // The first 24 plies of a game each: games in progress.
    let mut dgame = draughts::read_pdn(&pdn)
        .unwrap()
        .into_iter()
        .find(|g| g.moves.len() > 24)
        .expect("a draughts game");
    dgame.moves.truncate(24);
    let xq = std::fs::read_to_string(data("xiangqi-random.pgn")).unwrap();
    let mut xmoves = read_xiangqi_games(&xq)
        .unwrap()
        .into_iter()
        .find(|m| m.len() > 24)
        .expect("a xiangqi game");
    xmoves.truncate(24);
    let boards: Vec<(&str, OtherGame, OtherGameSession, Vec<String>)> = vec![
        (
            "d1",
            OtherGame::Draughts,
            simulate_draughts(&dgame.moves, profile, 7),
            dgame.moves.iter().map(|m| m.id()).collect(),
        ),
        (
            "x1",
            OtherGame::Xiangqi,
            simulate_xiangqi(&xmoves, profile, 8),
            xmoves.iter().map(|m| m.to_string()).collect(),
        ),
    ];
    // A move every second and a half: the daemon is down for one or two.
    let pace = Pace::Compressed {
        think_ms: 1_500,
        factor: 10,
    };
    let (sims, config) = open_boards(
        dir.path(),
        broker.port,
        "rs",
        boards.iter().map(|(n, g, s, _)| (*n, *g, s)),
        pace,
    );
    let mut daemon = Daemon::start(&config);
    for (name, ..) in &boards {
        let topic = format!("rs/board/{name}/state");
        sub.wait_for(
            &format!("six moves on {name}"),
            Duration::from_secs(60),
            |msgs| {
                let last = msgs.iter().rev().find(|m| m.topic == topic)?.json();
                (last["ply"].as_u64() >= Some(6)).then_some(())
            },
        )
        .await;
    }
    daemon.crash();
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let mut daemon = Daemon::start(&config);
    for (name, game, _, want) in &boards {
        let topic = format!("rs/board/{name}/state");
        let state = sub
            .wait_for(
                &format!("every move of {name} after the restart"),
                Duration::from_secs(90),
                |msgs| {
                    let last = msgs.iter().rev().find(|m| m.topic == topic)?.json();
                    (last["id"].as_array().map(Vec::len) == Some(want.len())).then_some(last)
                },
            )
            .await;
        assert_eq!(&strings(&state["id"]), want, "{name}: {state}");
        assert_eq!(state["game"], 1, "{name}: one game, resumed: {state}");
        assert_eq!(state["game_type"], game.name(), "{state}");
        // Alerts are the arbiters' (issue 58).
        let all = sub.json_on(&format!("rs/arbiter/board/{name}/event"));
        let errors: Vec<&serde_json::Value> = all
            .iter()
            .filter(|e| e["type"] == "alert" && e["severity"] == "error" && e["cleared"] != true)
            .collect();
        assert!(errors.is_empty(), "{name}: {errors:#?}");
        // No alert is cleared that was not raised before (the end of the
        // killed session's capture, finished when it is resumed, raises
        // nothing that anyone saw).
        for (i, e) in all.iter().enumerate() {
            if e["type"] == "alert" && e["cleared"] == true {
                assert!(
                    all[..i].iter().any(|r| r["type"] == "alert"
                        && r["kind"] == e["kind"]
                        && r["cleared"] != true),
                    "{name}: a clearing with no raise before it: {e}"
                );
            }
        }
    }
    // Stopped (SIGTERM): the recorder writes out what it holds.
    assert!(daemon.stop().success());
    for (name, _, _, want) in &boards {
        // The new session's capture names the one it resumed, and replays
        // (resuming it) to the whole game.
        let rec = dir.path().join("rec");
        let mut caps: Vec<PathBuf> = std::fs::read_dir(&rec)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                let n = p.file_name().unwrap().to_string_lossy();
                n.starts_with(&format!("{name}-")) && n.ends_with(".capture")
            })
            .collect();
        caps.sort();
        assert_eq!(caps.len(), 2, "{caps:?}");
        let head = std::fs::read_to_string(&caps[1]).unwrap();
        let first = caps[0].file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            head.lines()
                .next()
                .unwrap()
                .contains(&format!("resumed_from={first}")),
            "{head}"
        );
        let replay = boardcast::replay::replay_file(&caps[1], Default::default()).unwrap();
        assert_eq!(replay.log.games().len(), 1, "{name}");
        assert_eq!(&replay.log.games()[0].ucis, want, "{name}: replay");
    }
    drop(sims);
}
