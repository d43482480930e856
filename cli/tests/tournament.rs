//! Issue "Tournament outputs" with real parts: the daemon writes the PGN
//! folder of the round from the pairings, an operator correction sent with
//! `boardcast command` over a real Mosquitto takes effect and is published,
//! and SIGHUP reloads the pairings.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::games::python_chess_mainlines;
use crate::util::{
    BoardConf, Broker, Daemon, SimBoard, SimOptions, Subscriber, binary, game, write_config_with,
};

/// Runs `boardcast command --config CONFIG ARGS...`.
fn command(config: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(binary())
        .args(["command", "--config"])
        .arg(config)
        .args(args)
        .output()
        .unwrap()
}

/// Waits until `path` exists and contains `needle`; returns its text.
fn wait_file(path: &Path, needle: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(40);
    loop {
        if let Ok(text) = std::fs::read_to_string(path)
            && text.contains(needle)
        {
            return text;
        }
        assert!(
            Instant::now() < deadline,
            "{} never contained {needle:?}",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_daemon_writes_the_round_folder_takes_corrections_and_reloads_pairings() {
    if !crate::util::require(&[
        crate::util::Tool::Mosquitto,
        crate::util::Tool::Python("chess"),
    ]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let sub = Subscriber::connect(broker.port, "tour/#", "watcher", false).await;
    let pairings = dir.path().join("round.csv");
    std::fs::write(
        &pairings,
        "board,white,black,white_rating,white_fide_id\n1,\"Morphy, Paul\",\"Anderssen, Adolf\",2690,100\n2,\"Lasker, Emanuel\",\"Tarrasch, Siegbert\",,\n",
    )
    .unwrap();
    let pgn_dir = dir.path().join("pgn");
    let (g1, g2) = (game(12, Some(24)), game(13, Some(20)));
    let b1 = SimBoard::new(dir.path(), "one", g1.clone(), 3, SimOptions::fast("20001"));
    let b2 = SimBoard::new(dir.path(), "two", g2.clone(), 4, SimOptions::fast("20002"));
    let event = format!(
        "\n[event]\nname = \"Test Open\"\nsite = \"Hall\"\ndate = \"2026.11.22\"\nround = 3\npairings = \"{}\"\npgn_dir = \"{}\"\n",
        pairings.display(),
        pgn_dir.display()
    );
    let config = write_config_with(
        dir.path(),
        &format!("mqtt://127.0.0.1:{}", broker.port),
        &event,
        "tour",
        &[
            BoardConf {
                id: "a".into(),
                port: b1.path().to_string_lossy().into_owned(),
                serial: None,
            },
            BoardConf {
                id: "b".into(),
                port: b2.path().to_string_lossy().into_owned(),
                serial: None,
            },
        ],
    );
    let daemon = Daemon::start(&config);

    // Both games reach the folder, tagged as relay tools expect.
    let round = pgn_dir.join("round-3");
    let last1 = g1.sans.last().unwrap().clone();
    let game1 = wait_file(&round.join("game-1.pgn"), &format!(" {last1} "));
    assert!(game1.contains("[Event \"Test Open\"]") && game1.contains("[Site \"Hall\"]"));
    assert!(game1.contains("[Round \"3.1\"]") && game1.contains("[Date \"2026.11.22\"]"));
    assert!(game1.contains("[White \"Morphy, Paul\"]") && game1.contains("[WhiteElo \"2690\"]"));
    assert!(game1.contains("[WhiteFideId \"100\"]"));
    assert_eq!(python_chess_mainlines(&game1), vec![g1.sans.clone()]);
    let last2 = g2.sans.last().unwrap().clone();
    wait_file(&round.join("game-2.pgn"), &format!(" {last2} "));
    let all = wait_file(&round.join("games.pgn"), "[Round \"3.2\"]");
    assert_eq!(python_chess_mainlines(&all).len(), 2);
    assert!(pgn_dir.join("tournament.json").exists() && round.join("index.json").exists());

    // The retained state carries the round and the players.
    let state: serde_json::Value =
        serde_json::from_str(&sub.last_on("tour/board/a/state").unwrap()).unwrap();
    assert_eq!(state["round"], 3);
    assert_eq!(state["number"], 1);
    assert_eq!(state["white"]["name"], "Morphy, Paul");
    assert_eq!(state["white"]["rating"], 2690);
    assert_eq!(state["black"]["name"], "Anderssen, Adolf");

    // The operator sets board a's result from the command line.
    let out = command(&config, &["--board", "a", "set-result", "1-0"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    sub.wait_for(
        "the correction and the result",
        Duration::from_secs(20),
        |msgs| {
            let evs: Vec<serde_json::Value> = msgs
                .iter()
                .filter(|m| m.topic == "tour/board/a/event")
                .map(|m| m.json())
                .collect();
            let end = evs.iter().any(|e| {
                e["type"] == "game_end"
                    && e["result"] == "1-0"
                    && e["reason"] == "set by the operator"
            });
            let corr = evs
                .iter()
                .any(|e| e["type"] == "correction" && e["command"] == "set_result");
            (end && corr).then_some(())
        },
    )
    .await;
    wait_file(&round.join("game-1.pgn"), "[Result \"1-0\"]");
    // A malformed command is refused before it is sent.
    let out = command(&config, &["--board", "a", "set-result", "2-0"]);
    assert!(!out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1);

    // New pairings for board 2, reloaded on SIGHUP; the next change to that
    // board's game carries them.
    std::fs::write(&pairings, "board,white,black\n1,\"Morphy, Paul\",\"Anderssen, Adolf\"\n2,\"Steinitz, Wilhelm\",\"Chigorin, Mikhail\"\n").unwrap();
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(daemon.pid() as i32),
        nix::sys::signal::Signal::SIGHUP,
    )
    .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while !daemon.log().contains("pairings reloaded") {
        assert!(
            Instant::now() < deadline,
            "no reload in the log: {}",
            daemon.log()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let out = command(&config, &["--board", "b", "set-result", "1/2-1/2"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let game2 = wait_file(&round.join("game-2.pgn"), "[Result \"1/2-1/2\"]");
    assert!(game2.contains("[White \"Steinitz, Wilhelm\"]"), "{game2}");
    drop(daemon);
}

/// Runs `boardcast trf ARGS...`.
fn trf_command(args: &[&std::ffi::OsStr]) -> std::process::Output {
    std::process::Command::new(binary())
        .arg("trf")
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn trf_results_fill_the_round_from_the_pgn_folder_and_check_a_differing_file() {
    use boardcast::sink::folder::{BoardGame, Folder};
    use boardcast::sink::record::GameRecord;
    use boardcast::tournament::{EventInfo, read_pairings, trf};
    let dir = tempfile::tempdir().unwrap();
    let example = Path::new(crate::ROOT).join("tests/data/trf/fide-example.trf");
    let pairings = read_pairings(&example).unwrap();
    // Round 4 as the daemon's PGN folder has it: three games over, one on.
    let records: Vec<GameRecord> = ["1-0", "1/2-1/2", "0-1", "*"]
        .iter()
        .map(|r| GameRecord {
            start_fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
            result: (*r != "*").then(|| r.to_string()),
            ..GameRecord::default()
        })
        .collect();
    let games: Vec<BoardGame<'_>> = records
        .iter()
        .enumerate()
        .map(|(i, record)| BoardGame {
            board: i as u32 + 1,
            pairing: pairings.board(i as u32 + 1),
            record,
        })
        .collect();
    let event = EventInfo {
        round: 4,
        ..EventInfo::default()
    };
    Folder::new(dir.path().join("pgn"))
        .write_round(&event, 4, 4, &games)
        .unwrap();
    let pgn = dir.path().join("pgn/round-4/games.pgn");

    // The boards as boardcast reads them.
    let out = trf_command(&[
        "pairings".as_ref(),
        "--pairings".as_ref(),
        example.as_os_str(),
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("board 1: Okafor, Chidi 2315 - Lindqvist, Erik GM 2612"),
        "{text}"
    );
    assert!(
        text.contains("board 4: Dubois, Marc 1850 - Alvarez, Diego 2150"),
        "{text}"
    );
    assert!(text.contains("no board: Tanaka, Yui (bye H)"), "{text}");

    // The results written back: the finished games, every other line as read.
    let results = dir.path().join("round4-results.trf");
    let args = |pairings: &Path, check: bool| {
        let mut v: Vec<std::ffi::OsString> = vec![
            "results".into(),
            "--pairings".into(),
            pairings.into(),
            "--pgn".into(),
            pgn.clone().into(),
            "--out".into(),
            results.clone().into(),
        ];
        if check {
            v.push("--check".into());
        }
        v
    };
    let run = |a: Vec<std::ffi::OsString>| {
        let refs: Vec<&std::ffi::OsStr> = a.iter().map(|s| s.as_os_str()).collect();
        trf_command(&refs)
    };
    let out = run(args(&example, true));
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    assert!(err.contains("3 results written, 0 differing"), "{err}");
    let original = std::fs::read(&example).unwrap();
    let written = std::fs::read(&results).unwrap();
    let back = trf::parse(&written).unwrap();
    let got: Vec<Option<String>> = back.boards(4).iter().map(|b| b.file_result()).collect();
    assert_eq!(
        got,
        [
            Some("1-0".into()),
            Some("1/2-1/2".into()),
            Some("0-1".into()),
            None
        ]
    );
    let changed = original
        .split(|&b| b == b'\n')
        .zip(written.split(|&b| b == b'\n'))
        .filter(|(a, b)| a != b)
        .count();
    assert_eq!(changed, 6, "the six players of three finished games");

    // The pairing program holds 1-0 on board 2, the board says a draw:
    // listed, and `--check` fails.
    let entered = dir.path().join("round4-entered.trf");
    let mut held = std::collections::BTreeMap::new();
    held.insert(2, "1-0".to_string());
    std::fs::write(
        &entered,
        trf::parse(&original).unwrap().fill_results(4, &held).bytes,
    )
    .unwrap();
    let want = "result differs: board 2 (Moreau, Claire - Novak, Tomas): the pairing file has 1-0, the board's game 1/2-1/2";
    let out = run(args(&entered, true));
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success() && err.contains(want), "{err}");
    let out = run(args(&entered, false));
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success() && err.contains(want), "{err}");
}

/// The FIDE example with one player line broken (a colour `x`): `boardcast`
/// must say what is wrong exactly once.
fn broken_example(dir: &Path) -> (std::path::PathBuf, String) {
    let text =
        std::fs::read_to_string(Path::new(crate::ROOT).join("tests/data/trf/fide-example.trf"))
            .unwrap();
    let path = dir.join("broken.trf");
    std::fs::write(&path, text.replace("4 w 0     2 b", "4 w 0     2 x")).unwrap();
    (
        path,
        "round 4: colour `x` (column 127) is not w, b or -".to_string(),
    )
}

#[test]
fn a_broken_trf_file_is_said_once_by_trf_and_check_config() {
    let dir = tempfile::tempdir().unwrap();
    let (broken, reason) = broken_example(dir.path());
    let out = trf_command(&[
        "pairings".as_ref(),
        "--pairings".as_ref(),
        broken.as_os_str(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success());
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(err.matches(&reason).count(), 1, "{err}");
    assert_eq!(err.matches("broken.trf").count(), 1, "{err}");

    // check-config reads the pairings file the configuration names, as
    // the daemon does: a broken one and a missing one fail it, on one line.
    let board = [BoardConf {
        id: "a".into(),
        port: "/dev/null".into(),
        serial: None,
    }];
    let check = |pairings: &Path| {
        let event = format!("\n[event]\npairings = \"{}\"\n", pairings.display());
        let config = write_config_with(dir.path(), "mqtt://127.0.0.1:1", &event, "t", &board);
        std::process::Command::new(binary())
            .arg("check-config")
            .arg(&config)
            .output()
            .unwrap()
    };
    let out = check(&broken);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(err.matches(&reason).count(), 1, "{err}");
    assert!(out.stdout.is_empty(), "nothing is said to be ok");
    let out = check(&dir.path().join("missing.trf"));
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        !out.status.success() && err.contains("missing.trf"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    let good = Path::new(crate::ROOT).join("tests/data/trf/fide-example.trf");
    let out = check(&good);
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        said.contains("fide-example.trf: round 4, 4 board(s)"),
        "{said}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_daemon_starts_on_a_pairings_file_that_does_not_read() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let good =
        std::fs::read(Path::new(crate::ROOT).join("tests/data/trf/fide-example.trf")).unwrap();
    // A half-written export: the first part of the file, then the zeros a
    // power cut leaves.
    let mut half = good[..good.len() * 2 / 5].to_vec();
    half.extend([0u8; 4096]);
    let pairings = dir.path().join("round.trf");
    std::fs::write(&pairings, &half).unwrap();
    let sim = SimBoard::new(
        dir.path(),
        "one",
        game(12, Some(8)),
        3,
        SimOptions::fast("20001"),
    );
    let event = format!("\n[event]\npairings = \"{}\"\n", pairings.display());
    let config = write_config_with(
        dir.path(),
        &format!("mqtt://127.0.0.1:{}", broker.port),
        &event,
        "tour",
        &[BoardConf {
            id: "a".into(),
            port: sim.path().to_string_lossy().into_owned(),
            serial: None,
        }],
    );
    let copy = dir.path().join("rec/last-good-pairings.trf");
    let wait_log = |daemon: &Daemon, needle: &str| {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !daemon.log().contains(needle) {
            assert!(Instant::now() < deadline, "{needle:?} never logged");
            std::thread::sleep(Duration::from_millis(100));
        }
    };

    // No last good copy: the daemon runs without pairings, and says so.
    let mut daemon = Daemon::start(&config);
    wait_log(&daemon, "running");
    wait_log(&daemon, "no last good copy: starting without pairings");
    let log = daemon.log();
    assert_eq!(log.matches("binary data").count(), 1, "{log}");
    assert!(log.contains(" WARN ") || log.contains("WARN"), "{log}");
    // The file saved whole: read, and kept as the last good copy.
    std::fs::write(&pairings, &good).unwrap();
    wait_log(&daemon, "the pairings file reads again");
    assert_eq!(std::fs::read(&copy).unwrap(), good);
    assert!(daemon.stop().success());

    // Half-written again at the next start: the last good copy is read.
    std::fs::write(&pairings, &half).unwrap();
    let daemon = Daemon::start(&config);
    wait_log(&daemon, "running");
    wait_log(&daemon, "broadcasting with its last good copy");
    let log = daemon.log();
    assert!(
        log.contains(&format!("path={}", copy.display())) && log.contains("boards=4"),
        "{log}"
    );
    assert_eq!(std::fs::read(&copy).unwrap(), good, "the copy stays whole");
}

/// `tests/data/trf/byes-ahead.trf`: round 2 finished, round 3 with only
/// byes entered (see its README).
fn byes_ahead() -> std::path::PathBuf {
    Path::new(crate::ROOT).join("tests/data/trf/byes-ahead.trf")
}

/// Round 2 of `byes-ahead.trf` as the boards' PGN has it.
const BYES_AHEAD_ROUND_2: &str = "[Event \"Byes Ahead Open\"]\n[Round \"2.1\"]\n[White \"Berg, Ingrid\"]\n[Black \"Aalto, Mikko\"]\n[Result \"1/2-1/2\"]\n\n1/2-1/2\n\n\
[Event \"Byes Ahead Open\"]\n[Round \"2.2\"]\n[White \"Dahl, Sofie\"]\n[Black \"Costa, Rui\"]\n[Result \"0-1\"]\n\n0-1\n\n\
[Event \"Byes Ahead Open\"]\n[Round \"2.3\"]\n[White \"Fischer, Jonas\"]\n[Black \"Esposito, Luca\"]\n[Result \"1-0\"]\n\n1-0\n";

/// Issue 60, item 3: a file between rounds, as pairing programs export it
/// (round 2 finished, the byes asked for in round 3 entered before round 3
/// is paired). With no `--round`, `trf pairings` and `trf results` read
/// round 2, the last round with a board, and name round 3 in one line on
/// standard error; round 2's results are filled from the games.
#[test]
fn trf_commands_without_a_round_read_the_last_paired_round_of_a_file_with_byes_ahead() {
    let dir = tempfile::tempdir().unwrap();
    let file = byes_ahead();
    let note = "round 3 has only byes entered (players 2, 5), not paired yet: round 2 is read";
    let out = trf_command(&["pairings".as_ref(), "--pairings".as_ref(), file.as_os_str()]);
    let (text, err) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(note), "{err}");
    assert!(text.starts_with("round 2\n"), "{text}");
    assert!(
        text.contains("board 1: Berg, Ingrid 2280 - Aalto, Mikko 2350  (1/2-1/2)"),
        "{text}"
    );

    let pgn = dir.path().join("round-2.pgn");
    std::fs::write(&pgn, BYES_AHEAD_ROUND_2).unwrap();
    let results = |pairings: &Path, out: &Path| {
        trf_command(&[
            "results".as_ref(),
            "--pairings".as_ref(),
            pairings.as_os_str(),
            "--pgn".as_ref(),
            pgn.as_os_str(),
            "--out".as_ref(),
            out.as_os_str(),
            "--check".as_ref(),
        ])
    };
    // The file as exported: round 2's results are in, the games agree.
    let written = dir.path().join("written.trf");
    let out = results(&file, &written);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    assert!(err.contains(note), "{err}");
    assert!(
        err.contains("round 2: 3 boards, 3 finished games, 0 results written, 0 differing"),
        "{err}"
    );
    assert_eq!(
        std::fs::read(&written).unwrap(),
        std::fs::read(&file).unwrap()
    );

    // Exported before round 2's results were entered (byes of round 3
    // already there): the results filled from the games, nothing else.
    let text = std::fs::read_to_string(&file).unwrap();
    let blank: String = text
        .lines()
        .map(|l| {
            if l.starts_with("001") {
                format!("{} {}\n", &l[..108], &l[109..])
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    let unplayed = dir.path().join("unplayed.trf");
    std::fs::write(&unplayed, &blank).unwrap();
    let out = results(&unplayed, &written);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("round 2: 3 boards, 3 finished games, 3 results written, 0 differing"),
        "{err}"
    );
    let back = boardcast::tournament::trf::parse(&std::fs::read(&written).unwrap()).unwrap();
    let got: Vec<Option<String>> = back.boards(2).iter().map(|b| b.file_result()).collect();
    assert_eq!(
        got,
        [
            Some("1/2-1/2".into()),
            Some("0-1".into()),
            Some("1-0".into())
        ]
    );
}

/// Issue 60, item 5: a field that brings an escape sequence, or a NUL in a
/// player's name, is shown escaped in the one-line error, which names the
/// line; neither byte reaches the terminal.
#[test]
fn control_characters_in_a_trf_file_are_shown_escaped_in_errors_naming_their_line() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(byes_ahead()).unwrap();
    let cases = [
        (
            "escape.trf",
            text.replace(
                "Ingrid                      2280",
                "Ingrid                      \u{1b}[1m",
            ),
            "line 13: rating `\\u{1b}[1m` (columns 49-52) is not a number",
        ),
        (
            "nul.trf",
            text.replace("Berg, Ingrid", "Berg,\0Ingrid"),
            "line 13: name: control character '\\0' is not allowed (in \"Berg,\\0Ingrid\")",
        ),
    ];
    for (name, content, want) in cases {
        assert_ne!(content, text, "{name}: the fault is in the file");
        let path = dir.path().join(name);
        std::fs::write(&path, &content).unwrap();
        let out = trf_command(&["pairings".as_ref(), "--pairings".as_ref(), path.as_os_str()]);
        assert!(!out.status.success(), "{name}");
        assert!(
            !out.stderr.iter().any(|&b| b == 0x1b || b == 0),
            "{name}: a raw control byte in {:?}",
            String::from_utf8_lossy(&out.stderr)
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{name}: {err}");
        assert!(err.contains(want), "{name}: {err}");
        assert!(!err.contains("binary data"), "{name}: {err}");
    }
}

/// Issue 60, item 5: `boardcast trf pairings F | head -1` and `boardcast
/// trf results ... | head -1`: the reader takes one line and closes the
/// pipe while the command still has much to write; the command ends
/// quietly with status 0, no panic, nothing on standard error.
#[test]
fn a_printing_command_whose_reader_closes_the_pipe_exits_quietly() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    // 4,000 players paired in round 1: 2,000 boards, far more than a
    // pipe holds (64 KiB).
    let mut trf = String::from("012 Pipe Open (made up)\n");
    for r in 1..=4000u32 {
        let (opponent, colour) = if r % 2 == 1 {
            (r + 1, 'w')
        } else {
            (r - 1, 'b')
        };
        let name = format!("Player {r:04}, Test");
        trf.push_str(&format!(
            "001 {r:>4} m    {name:<33} 2000{:39}{opponent:>4} {colour}\n",
            ""
        ));
    }
    let path = dir.path().join("big.trf");
    std::fs::write(&path, &trf).unwrap();
    let pgn = dir.path().join("none.pgn");
    std::fs::write(&pgn, "").unwrap();
    let runs: [Vec<&std::ffi::OsStr>; 2] = [
        vec!["pairings".as_ref(), "--pairings".as_ref(), path.as_os_str()],
        vec![
            "results".as_ref(),
            "--pairings".as_ref(),
            path.as_os_str(),
            "--pgn".as_ref(),
            pgn.as_os_str(),
        ],
    ];
    for args in runs {
        let mut child = std::process::Command::new(binary())
            .arg("trf")
            .args(&args)
            .env("RUST_BACKTRACE", "1")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = String::new();
        {
            let mut reader = std::io::BufReader::new(child.stdout.take().unwrap());
            reader.read_line(&mut first).unwrap();
        } // `head -1` is done: the pipe is closed.
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!first.is_empty(), "{args:?}: a first line");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(err.is_empty(), "{args:?}: {err}");
        assert!(out.status.success(), "{args:?}: {:?} {err}", out.status);
    }
}
