//! Recovery from faults with real parts: the daemon killed (SIGKILL) and
//! started again mid-game, a board whose game nobody recorded, a full disk
//! under the recorder, and a web server held by clients that never finish
//! their requests.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::util::{
    BoardConf, Broker, Daemon, SimBoard, SimOptions, Subscriber, game, state_moves, write_config,
};

const LONG: Duration = Duration::from_secs(60);

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

/// Waits until the state of `board` shows at least `ply` plies.
async fn wait_ply(sub: &Subscriber, prefix: &str, board: &str, ply: u64) {
    let topic = format!("{prefix}/board/{board}/state");
    sub.wait_for(&format!("ply {ply} on board {board}"), LONG, |msgs| {
        msgs.iter()
            .filter(|m| m.topic == topic)
            .any(|m| m.json()["ply"].as_u64() >= Some(ply))
            .then_some(())
    })
    .await
}

/// Waits until `board` has played `n` more plies (of its `per_ply` readings).
async fn wait_played(board: &SimBoard, plies: usize) {
    let per_ply = board.session.readings.len() / board.game.sans.len();
    let target = (board.applied() + plies * per_ply).min(board.session.readings.len());
    let deadline = tokio::time::Instant::now() + LONG;
    while board.applied() < target {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the board stopped playing"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The SAN movetext of a PGN (tags, move numbers, comments and the result
/// left out).
fn pgn_sans(pgn: &str) -> Vec<String> {
    let body: String = pgn
        .lines()
        .filter(|l| !l.starts_with('['))
        .collect::<Vec<_>>()
        .join(" ");
    let mut out = Vec::new();
    let mut depth = 0;
    let mut clean = String::new();
    for c in body.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ if depth == 0 => clean.push(c),
            _ => {}
        }
    }
    for tok in clean.split_whitespace() {
        let tok = tok.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
        if tok.is_empty() || ["1-0", "0-1", "1/2-1/2", "*"].contains(&tok) {
            continue;
        }
        out.push(tok.to_string());
    }
    out
}

/// A board that thinks two seconds over every move.
fn slow(serial: &str) -> SimOptions {
    SimOptions {
        pace: boardcast_sim::pty::Pace::Compressed {
            think_ms: 2000,
            factor: 10,
        },
        ..SimOptions::fast(serial)
    }
}

fn board_conf(id: &str, board: &SimBoard) -> BoardConf {
    BoardConf {
        id: id.into(),
        port: board.path().to_string_lossy().into_owned(),
        serial: None,
    }
}

/// Asserts that the retained state and PGN of `board` never went back to
/// an empty game once a move was on them.
fn assert_never_emptied(sub: &Subscriber, prefix: &str, board: &str) {
    let state_topic = format!("{prefix}/board/{board}/state");
    let pgn_topic = format!("{prefix}/board/{board}/pgn");
    let mut seen_moves = false;
    let mut seen_pgn = false;
    for m in sub.messages() {
        if m.topic == state_topic {
            let s = m.json();
            let ply = s["ply"].as_u64().unwrap();
            assert!(
                !(seen_moves && (ply == 0 || s["game"] == 0)),
                "the retained state of board {board} went back to an empty game: {s}"
            );
            seen_moves |= ply > 0;
        } else if m.topic == pgn_topic {
            let text = m.text();
            assert!(
                !(seen_pgn && pgn_sans(&text).is_empty()),
                "the retained PGN of board {board} went back to an empty game: {text:?}"
            );
            seen_pgn |= !pgn_sans(&text).is_empty();
        }
    }
    assert!(seen_moves && seen_pgn, "board {board} published moves");
}

fn captures(dir: &Path, board: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "capture")
                && p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with(&format!("{board}-"))
        })
        .collect();
    v.sort();
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_daemon_killed_mid_game_resumes_every_game_with_the_moves_made_while_it_was_down() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let sub = Subscriber::connect(broker.port, "crash/#", "watcher", false).await;
    let ga = game(5, Some(20));
    let gb = game(9, Some(20));
    // Slow enough that the moves made while the daemon is down are one or
    // two plies: more can be transposed (a whole-board read shows where
    // the pieces are, not in which order they went there).
    let a = SimBoard::new(dir.path(), "a", ga.clone(), 31, slow("40001"));
    let b = SimBoard::new(dir.path(), "b", gb.clone(), 32, slow("40002"));
    let config = write_config(
        dir.path(),
        broker.port,
        "crash",
        &[board_conf("a", &a), board_conf("b", &b)],
    );
    let mut daemon = Daemon::start(&config);
    wait_ply(&sub, "crash", "a", 8).await;
    wait_ply(&sub, "crash", "b", 8).await;
    daemon.crash();
    // Moves are made on both boards while the daemon is down.
    tokio::join!(wait_played(&a, 1), wait_played(&b, 1));
    let daemon = Daemon::start(&config);

    for (id, g) in [("a", &ga), ("b", &gb)] {
        let state = wait_state(&sub, "crash", id, &g.sans).await;
        assert_eq!(state["status"], "connected");
        assert_eq!(state["recognised"], true, "{state}");
        assert_eq!(state["game"], 1, "one game, resumed: {state}");
        let end = g.moves.iter().fold(g.start.clone(), |p, m| p.play(*m));
        assert_eq!(state["fen"], end.fen());
        let pgn = sub
            .wait_for(&format!("the full PGN of board {id}"), LONG, |msgs| {
                let topic = format!("crash/board/{id}/pgn");
                let last = msgs.iter().rev().find(|m| m.topic == topic)?.text();
                (pgn_sans(&last) == g.sans).then_some(last)
            })
            .await;
        assert!(pgn.contains("[White "), "{pgn}");
        assert_never_emptied(&sub, "crash", id);
        // The new session's capture names the one it resumed; replayed
        // alone, it gives the whole game.
        let caps = captures(&dir.path().join("rec"), id);
        assert_eq!(caps.len(), 2, "{caps:?}");
        let text = std::fs::read_to_string(&caps[1]).unwrap();
        let first = caps[0].file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            text.lines()
                .next()
                .unwrap()
                .contains(&format!("resumed_from={first}")),
            "{text}"
        );
    }
    // The daemon's own PGN folder file and the replay of the new capture.
    // Stopped (SIGTERM) so the recorder writes out what it holds: after a
    // kill, the bytes of the last half second (its flush period) may be
    // missing from the capture, though their move was published.
    let mut daemon = daemon;
    assert!(daemon.stop().success());
    for (id, g) in [("a", &ga), ("b", &gb)] {
        let caps = captures(&dir.path().join("rec"), id);
        let replay = boardcast::replay::replay_file(&caps[1], fast_settle()).unwrap();
        assert_eq!(replay.resumed_from, vec![caps[0].clone()]);
        let games = replay.log.games();
        assert_eq!(games.len(), 1);
        assert_eq!(games[0].sans, g.sans, "replay of {}", caps[1].display());
        // The command line says what it replayed first.
        let out = std::process::Command::new(crate::util::binary())
            .arg("replay")
            .arg(&caps[1])
            .output()
            .unwrap();
        assert!(out.status.success());
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("resumes an earlier session"),
            "{out:?}"
        );
    }
}

/// Issue "Board families", item 3: the board's memory. Six plies are made
/// while the daemon is down, more than a whole-board read can explain
/// (`reconstructor.depth` is 4) and in an order the final position does
/// not tell; the restarted daemon asks the board for its memory (its
/// EEPROM move log) and recovers them one by one, in order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn moves_made_while_the_daemon_is_down_are_recovered_in_order_from_the_board_memory() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let sub = Subscriber::connect(broker.port, "mem/#", "watcher", false).await;
    let g = game(17, Some(24));
    let a = SimBoard::with_session(
        dir.path(),
        "a",
        g.clone(),
        boardcast_sim::simulate(&g, &mut boardcast_sim::Human::default(), 51, false),
        slow("50001"),
    );
    let config = write_config(dir.path(), broker.port, "mem", &[board_conf("a", &a)]);
    let mut daemon = Daemon::start(&config);
    wait_ply(&sub, "mem", "a", 6).await;
    daemon.crash();
    let down_at = sub
        .json_on("mem/board/a/state")
        .last()
        .and_then(|s| s["ply"].as_u64())
        .unwrap() as usize;
    let events_before = sub.json_on("mem/board/a/event").len();
    wait_played(&a, 6).await;
    let mut daemon = Daemon::start(&config);

    let state = wait_state(&sub, "mem", "a", &g.sans).await;
    assert_eq!(state["status"], "connected");
    assert_eq!(state["game"], 1, "one game, resumed: {state}");
    // The moves of the new session: every ply after the last one seen
    // before the crash, once each, in order, none withdrawn. (A ply the
    // crash caught before its capture was flushed is published again, the
    // same.)
    let after: Vec<Value> = sub.json_on("mem/board/a/event")[events_before..].to_vec();
    let all: Vec<(u64, String)> = after
        .iter()
        .filter(|e| e["type"] == "move")
        .map(|e| {
            (
                e["ply"].as_u64().unwrap(),
                e["san"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    for (ply, san) in all.iter().filter(|(ply, _)| *ply as usize <= down_at) {
        assert_eq!(san, &g.sans[*ply as usize - 1], "ply {ply} published again");
    }
    let moves: Vec<(u64, String)> = all
        .into_iter()
        .filter(|(ply, _)| *ply as usize > down_at)
        .collect();
    let expected: Vec<(u64, String)> = g
        .sans
        .iter()
        .enumerate()
        .skip(down_at)
        .map(|(i, san)| (i as u64 + 1, san.clone()))
        .collect();
    assert_eq!(moves, expected, "recovered in order, then played on");
    assert!(
        !after
            .iter()
            .any(|e| e["type"] == "retract" || e["type"] == "takeback"),
        "{after:#?}"
    );
    let log = daemon.log();
    let recovered = log
        .lines()
        .find(|l| l.contains("board memory: changes made while away"))
        .unwrap_or_else(|| panic!("the memory was not used:\n{log}"));
    assert!(!recovered.contains("changes=0"), "{recovered}");
    assert!(daemon.stop().success());
    // The new session's capture, with the memory in it, replays to the
    // whole game.
    let caps = captures(&dir.path().join("rec"), "a");
    let replay = boardcast::replay::replay_file(&caps[1], fast_settle()).unwrap();
    assert_eq!(replay.log.games()[0].sans, g.sans);
}

/// The reconstructor settings of the tests' daemon configuration.
fn fast_settle() -> boardcast::track::Config {
    let mut config = boardcast::track::Config::default();
    config.settle.base_ms = 50;
    config.settle.extendable_ms = 100;
    config.settle.takeback_ms = 300;
    config
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_board_mid_game_with_no_recorder_data_raises_an_unrecognised_alert() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let sub = Subscriber::connect(broker.port, "lost/#", "watcher", false).await;
    let g = game(7, Some(40));
    let board = SimBoard::new(dir.path(), "dgt", g.clone(), 41, SimOptions::fast("40011"));
    let config = write_config(dir.path(), broker.port, "lost", &[board_conf("1", &board)]);
    let mut daemon = Daemon::start(&config);
    wait_ply(&sub, "lost", "1", 12).await;
    daemon.crash();
    // The recorder folder is lost with the laptop.
    std::fs::remove_dir_all(dir.path().join("rec")).unwrap();
    let daemon = Daemon::start(&config);
    let alert = sub
        .wait_for("an unrecognised alert", LONG, |msgs| {
            msgs.iter()
                .filter(|m| m.topic == "lost/arbiter/board/1/event")
                .map(|m| m.json())
                .find(|e| e["type"] == "alert" && e["kind"] == "unrecognised")
        })
        .await;
    assert_ne!(alert["cleared"], true, "{alert}");
    assert_eq!(alert["severity"], "action", "{alert}");
    assert!(
        alert["message"]
            .as_str()
            .unwrap()
            .contains("no game is known"),
        "{alert}"
    );
    drop(daemon);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_that_never_finish_their_requests_starve_neither_the_boards_nor_the_page() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let sub = Subscriber::connect(broker.port, "slow/#", "watcher", false).await;
    let g = game(11, Some(40));
    let board = SimBoard::new(dir.path(), "dgt", g.clone(), 51, SimOptions::fast("40021"));
    let web_port = crate::util::free_port();
    let config = crate::util::write_config_with(
        dir.path(),
        &format!("mqtt://127.0.0.1:{}", broker.port),
        &format!(
            "\n[web]\nlisten = \"127.0.0.1:{web_port}\"\nmax_connections = 64\nmax_streams = 4\nheader_timeout_s = 2\n"
        ),
        "slow",
        &[board_conf("1", &board)],
    );
    let daemon = Daemon::start(&config);
    wait_ply(&sub, "slow", "1", 2).await;
    // 300 connections that send half a request line and then nothing.
    let mut held = Vec::new();
    for _ in 0..300 {
        if let Ok(mut s) = tokio::net::TcpStream::connect(("127.0.0.1", web_port)).await {
            let _ = s.write_all(b"GET / HTTP/1.1\r\nHost: x\r\n").await;
            held.push(s);
        }
    }
    assert!(
        held.len() >= 200,
        "only {} connections were made",
        held.len()
    );
    // The boards go on: every move is published, and the PGN file written.
    wait_state(&sub, "slow", "1", &g.sans).await;
    let pgn = std::fs::read_dir(dir.path().join("rec"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "pgn"))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .unwrap_or_default();
    // Written at the latest half a second after the last move.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    let mut pgn = pgn;
    while pgn_sans(&pgn) != g.sans && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
        pgn = std::fs::read_dir(dir.path().join("rec"))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .find(|p| p.extension().is_some_and(|e| e == "pgn"))
            .map(|p| std::fs::read_to_string(p).unwrap())
            .unwrap_or_default();
    }
    assert_eq!(pgn_sans(&pgn), g.sans, "the recorder's PGN file: {pgn}");
    // After the header timeout the held connections are closed by the
    // server, and the page answers.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let mut closed = 0;
    for s in &mut held {
        let mut buf = [0u8; 64];
        match tokio::time::timeout(Duration::from_millis(200), s.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => closed += 1,
            Ok(Ok(_)) => closed += 1, // an error response, then the close
            Err(_) => {}
        }
    }
    assert_eq!(closed, held.len(), "every half-open connection was closed");
    let mut s = tokio::net::TcpStream::connect(("127.0.0.1", web_port))
        .await
        .unwrap();
    s.write_all(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut page = String::new();
    tokio::time::timeout(Duration::from_secs(5), s.read_to_string(&mut page))
        .await
        .expect("the page answers")
        .unwrap();
    assert!(page.starts_with("HTTP/1.1 200"), "{page:.200}");
    drop(daemon);
}

/// Mounts a tmpfs of `size` on `dir` (the test runs as root); unmounted
/// on drop.
pub(crate) struct Tmpfs(PathBuf);

impl Tmpfs {
    pub(crate) fn mount(dir: &Path, size: &str) -> Tmpfs {
        std::fs::create_dir_all(dir).unwrap();
        let out = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .output()
            .expect("the mount command runs");
        assert!(
            out.status.success(),
            "cannot mount a tmpfs on {} (the full-disk test needs root and tmpfs): {}",
            dir.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        Tmpfs(dir.to_owned())
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(&self.0)
            .status();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_under_the_recorder_loses_no_move_and_recording_resumes_when_space_returns() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("rec");
    let _tmpfs = Tmpfs::mount(&rec, "1m");
    let broker = Broker::start();
    let sub = Subscriber::connect(broker.port, "full/#", "watcher", false).await;
    let g = game(13, None);
    assert!(g.sans.len() >= 80, "a long game");
    let board = SimBoard::new(dir.path(), "dgt", g.clone(), 61, slow_ish("40031"));
    // The PGN folder for relay tools on the same (full) disk.
    let folder = rec.join("live");
    let config = crate::util::write_config_with(
        dir.path(),
        &format!("mqtt://127.0.0.1:{}", broker.port),
        &format!("\n[event]\npgn_dir = \"{}\"\n", folder.display()),
        "full",
        &[board_conf("1", &board)],
    );
    let daemon = Daemon::start(&config);
    wait_ply(&sub, "full", "1", 4).await;
    // Fill the disk.
    let filler = rec.join("filler");
    {
        use std::io::Write;
        let mut f = std::fs::File::create(&filler).unwrap();
        let block = vec![0u8; 64 * 1024];
        while f.write_all(&block).is_ok() {}
        let _ = f.flush();
    }
    // Play on with the disk full, until the capture's last page is used
    // up and a write fails.
    let deadline = tokio::time::Instant::now() + LONG;
    while !daemon.log().contains("recording failed") {
        assert!(
            tokio::time::Instant::now() < deadline,
            "no write failed on the full disk: {}",
            daemon.log()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let failed_at = sub
        .json_on("full/board/1/state")
        .last()
        .map_or(0, |s| s["ply"].as_u64().unwrap());
    // Moves are made while nothing can be written.
    wait_ply(&sub, "full", "1", failed_at + 3).await;
    assert!(!board.done(), "the game is still on when space returns");
    // Space returns.
    std::fs::remove_file(&filler).unwrap();
    wait_state(&sub, "full", "1", &g.sans).await;
    let pgn = sub
        .wait_for("the full PGN", LONG, |msgs| {
            let last = msgs
                .iter()
                .rev()
                .find(|m| m.topic == "full/board/1/pgn")?
                .text();
            (pgn_sans(&last) == g.sans).then_some(last)
        })
        .await;
    assert!(pgn.contains("[Result"), "{pgn}");
    // Recording resumed: the capture says where the gap is, and goes on
    // after it; the PGN file beside it holds the whole game.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let caps = captures(&rec, "1");
        let text = std::fs::read_to_string(&caps[0]).unwrap();
        let pgn_file = caps[0].with_extension("pgn");
        let pgn_text = std::fs::read_to_string(&pgn_file).unwrap_or_default();
        let gap = text
            .lines()
            .position(|l| l.starts_with("# gap: recording failed"));
        let after = gap.map_or(0, |i| {
            text.lines()
                .skip(i + 1)
                .filter(|l| !l.starts_with('#'))
                .count()
        });
        let folder_game =
            std::fs::read_to_string(folder.join("round-1/game-1.pgn")).unwrap_or_default();
        if gap.is_some()
            && after > 0
            && pgn_sans(&pgn_text) == g.sans
            && pgn_sans(&folder_game) == g.sans
        {
            // Every line of the capture is whole: it still replays, and
            // to the whole game: after the gap the board was read whole
            // again, so the moves the gap lost are explained.
            let replay = boardcast::replay::replay_file(&caps[0], fast_settle())
                .expect("the capture replays");
            assert!(replay.cut_last_line.is_none());
            let replayed = replay.log.current().map(|g| g.sans.clone());
            assert_eq!(
                replayed.as_ref(),
                Some(&g.sans),
                "the capture with its gap replays to the whole game\n{text}"
            );
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "recording did not resume: gap line {gap:?}, {after} lines after it, PGN {pgn_text:?}, folder {folder_game:?}\n{}",
            daemon.log()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(daemon.log().contains("recording resumed"));
    // A restart takes the whole game up from the capture with its gap,
    // with no alert that moves are missing.
    let mut daemon = daemon;
    assert!(daemon.stop().success());
    let restarted = tokio::time::Instant::now();
    let daemon = Daemon::start(&config);
    let state = sub
        .wait_for("board 1's state after the restart", LONG, |msgs| {
            msgs.iter()
                .rev()
                .find(|m| m.topic == "full/board/1/state" && m.at > restarted)
                .map(|m| m.json())
        })
        .await;
    assert_eq!(crate::util::state_moves(&state), g.sans, "{state}");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let missing: Vec<_> = sub
        .messages()
        .into_iter()
        .filter(|m| m.topic == "full/arbiter/board/1/event" && m.at > restarted)
        .map(|m| m.json())
        .filter(|e| e["type"] == "alert" && e["kind"] == "unrecognised")
        .collect();
    assert!(missing.is_empty(), "{missing:?}");
    drop(daemon);
}

/// A board a little slower than the fast one (for a test that acts while
/// it plays).
fn slow_ish(serial: &str) -> SimOptions {
    SimOptions {
        pace: boardcast_sim::pty::Pace::Compressed {
            think_ms: 300,
            factor: 10,
        },
        ..SimOptions::fast(serial)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recorder_folder_that_cannot_be_made_leaves_the_boards_running() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // A file where the folder should be: it can never be created.
    std::fs::write(dir.path().join("rec"), "not a folder").unwrap();
    let broker = Broker::start();
    let sub = Subscriber::connect(broker.port, "norec/#", "watcher", false).await;
    let g = game(3, Some(12));
    let board = SimBoard::new(dir.path(), "dgt", g.clone(), 71, SimOptions::fast("40041"));
    let config = write_config(dir.path(), broker.port, "norec", &[board_conf("1", &board)]);
    let daemon = Daemon::start(&config);
    let state = wait_state(&sub, "norec", "1", &g.sans).await;
    assert_eq!(state["status"], "connected");
    assert!(
        daemon.log().contains("cannot record this board"),
        "{}",
        daemon.log()
    );
    drop(daemon);
}

/// The final moves on `topic`, as (ply, SAN), among `msgs` (those that
/// arrived before `before`, when given).
fn final_moves_on(
    msgs: &[crate::util::Msg],
    topic: &str,
    before: Option<tokio::time::Instant>,
) -> Vec<(u64, String)> {
    msgs.iter()
        .filter(|m| m.topic == topic && before.is_none_or(|b| m.at < b))
        .map(|m| m.json())
        .filter(|e| e["type"] == "move")
        .map(|e| {
            (
                e["ply"].as_u64().unwrap(),
                e["san"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Issue 58, part 4: the daemon killed (`kill -9`) while a move is
/// provisional, its readings already in the capture. The restarted
/// daemon announces it as a final `move`: every ply of the game reaches
/// the event topics (the public's, with no delay, and the arbiters') as a
/// final move exactly once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_provisional_at_a_kill_reaches_the_event_topic_final_exactly_once() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let sub = Subscriber::connect(broker.port, "prov/#", "watcher", false).await;
    let g = game(5, Some(10));
    // Four seconds over every move: a move is provisional from its settle
    // time until it has stood the final time (2.4 s), no clock, no reply.
    let opts = SimOptions {
        pace: boardcast_sim::pty::Pace::Compressed {
            think_ms: 4000,
            factor: 10,
        },
        ..SimOptions::fast("40051")
    };
    let a = SimBoard::new(dir.path(), "a", g.clone(), 33, opts);
    let config = write_config(dir.path(), broker.port, "prov", &[board_conf("a", &a)]);
    let arbiter = "prov/arbiter/board/a/event";
    let public = "prov/board/a/event";
    let mut daemon = Daemon::start(&config);
    wait_ply(&sub, "prov", "a", 2).await;
    // The kill: 1.2 s after a move was shown provisional (the recorder
    // flushes the capture every 0.5 s), while it is not final yet.
    let mut tries = 0;
    let (provisional, killed) = loop {
        tries += 1;
        assert!(tries < 5, "never caught a provisional move");
        let (ply, shown) = sub
            .wait_for("a move shown provisional", LONG, |msgs| {
                let last = msgs.iter().rev().find(|m| m.topic == arbiter)?;
                let e = last.json();
                // Shown just now (not one about to be final by time).
                let fresh = last.at.elapsed() < Duration::from_millis(400);
                (fresh && e["type"] == "provisional" && e["withdrawn"] != true)
                    .then(|| (e["ply"].as_u64().unwrap(), last.at))
            })
            .await;
        tokio::time::sleep_until(shown + Duration::from_millis(1200)).await;
        let finals = final_moves_on(&sub.messages(), arbiter, None);
        if finals.iter().all(|(p, _)| *p != ply) {
            daemon.crash();
            break (ply, tokio::time::Instant::now());
        }
    };
    // What the killed daemon published: every ply before the provisional
    // one final, that one not.
    let msgs = sub.messages();
    let expected: Vec<(u64, String)> = (1..).zip(g.sans.iter().cloned()).collect();
    for topic in [public, arbiter] {
        assert_eq!(
            final_moves_on(&msgs, topic, Some(killed)),
            expected[..provisional as usize - 1],
            "{topic} before the kill"
        );
    }
    assert!(
        provisional < g.sans.len() as u64,
        "the game goes on after it"
    );

    let mut daemon = Daemon::start(&config);
    wait_state(&sub, "prov", "a", &g.sans).await;
    // The last move's final time, and a little more.
    tokio::time::sleep(Duration::from_millis(3000)).await;
    let msgs = sub.messages();
    for topic in [public, arbiter] {
        assert_eq!(
            final_moves_on(&msgs, topic, None),
            expected,
            "every ply final on {topic} exactly once, in order"
        );
    }
    let log = daemon.log();
    assert!(
        log.lines()
            .any(|l| l.contains("had not published final") && l.contains("announced=1")),
        "the restart announced the provisional move:\n{log}"
    );
    assert!(daemon.stop().success());
}
