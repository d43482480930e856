//! Issue 30, item 4: the board check before the round. `boardcast check`
//! reads simulated boards on pseudo-terminals (DGT boards with a clock, a
//! draughts board on the open protocol) and finds a wrong set-up (the
//! squares named), a foreign piece code (a draughts board reporting a
//! chess letter) and a wrong clock time, exiting non-zero; it exits 0 when
//! every board is ready. The live page's `/check` is tested in Chromium
//! with one daemon for all its assertions (a screenshot is left in /tmp).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use boardcast::clock::ClockReading;
use boardcast::track::Cell;
use boardcast_sim::clock::Signal;
use boardcast_sim::open::{OtherGame, OtherGameSession};
use boardcast_sim::open_line::OtherGameBoard;

use crate::util::{BoardConf, Pace, SimBoard, SimOptions, binary, game, write_config_with};

/// The event's time control in every configuration here.
const TIME_CONTROL: &str = "5400+30";

/// The start position as the board's squares (a1 first).
pub(crate) fn start() -> [Cell; 64] {
    boardcast::games::chess::sensors::start_cells(false)
}

/// A DGT board `name` standing still with `cells` on it, its clock
/// showing `clock` seconds (left, right; stopped), serial `serial`.
pub(crate) fn dgt_board(
    dir: &Path,
    (name, serial): (&str, &str),
    cells: [Cell; 64],
    clock: (u32, u32),
) -> SimBoard {
    let session = boardcast_sim::Session {
        readings: Vec::new(),
        truth: Vec::new(),
        rotated: false,
        initial: Box::new(cells),
        clock: vec![(
            1_000,
            Signal::Times(ClockReading {
                left: clock.0,
                right: clock.1,
                running: None,
                flag: None,
                battery_low: false,
            }),
        )],
    };
    SimBoard::with_session(
        dir,
        name,
        game(0, Some(0)),
        session,
        SimOptions::fast(serial),
    )
}

/// The draughts start as a `board` line's cells (a1 dark, the first
/// player's men `M` on ranks 1-3).
fn draughts_cells() -> String {
    let mut cells = String::new();
    for rank in (0..8).rev() {
        for file in 0..8 {
            cells.push(match ((file + rank) % 2 == 0, rank) {
                (true, 0..=2) => 'M',
                (true, 5..=7) => 'm',
                _ => '.',
            });
        }
    }
    cells
}

/// A draughts board on the open protocol, set up and clocked right, that
/// then reports a chess queen (`q`) where a man stands, a piece code no
/// draughts set holds, every two seconds for three minutes (as a real one
/// reports its whole board again and again).
fn foreign_board(dir: &Path) -> OtherGameBoard {
    let cells = draughts_cells();
    let foreign = format!("board {}", cells.replacen('m', "q", 1));
    let mut lines = vec![
        (0, "hello draughts 8x8 id=DR-9 pieces=yes".into()),
        (0, format!("board {cells}")),
        (100, "clock 1:30:00 1:30:00".into()),
    ];
    lines.extend((0..90).map(|i| (200 + i * 2_000, foreign.clone())));
    let session = OtherGameSession {
        lines,
        plies: Vec::new(),
    };
    OtherGameBoard::start(dir, "foreign", OtherGame::Draughts, session, Pace::Real)
        .expect("a pseudo-terminal")
}

/// A configuration (no broker needed by `check`; the web test's daemon
/// uses `broker`) reading `boards`, the open ones (`draughts`) as
/// draughts, with the event's time control and `extra` tables.
fn config(dir: &Path, broker: u16, boards: &[(&str, String, bool)], extra: &str) -> PathBuf {
    let confs: Vec<BoardConf> = boards
        .iter()
        .map(|(id, port, _)| BoardConf {
            id: (*id).into(),
            port: port.clone(),
            serial: None,
        })
        .collect();
    let path = write_config_with(
        dir,
        &format!("mqtt://127.0.0.1:{broker}"),
        "",
        "check",
        &confs,
    );
    let mut text = std::fs::read_to_string(&path).unwrap();
    for (id, _, draughts) in boards {
        if *draughts {
            text = text.replace(
                &format!("id = \"{id}\"\n"),
                &format!("id = \"{id}\"\nprotocol = \"open\"\ngame = \"draughts\"\n"),
            );
        }
    }
    text.push_str(&format!(
        "\n[event]\ntime_control = \"{TIME_CONTROL}\"\n{extra}"
    ));
    std::fs::write(&path, text).unwrap();
    path
}

/// `boardcast check` on `config`: exit success, stdout, stderr, and how
/// long it took.
fn run_check(config: &Path, wait: &str) -> (bool, String, String, Duration) {
    let started = Instant::now();
    let out = Command::new(binary())
        .args(["check", "--wait", wait, "--config"])
        .arg(config)
        .output()
        .expect("boardcast check runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        started.elapsed(),
    )
}

/// The line `boardcast check` printed for board `id`.
fn line_of<'a>(stdout: &'a str, id: &str) -> &'a str {
    stdout
        .lines()
        .find(|l| l.starts_with(&format!("board {id}:")))
        .unwrap_or_else(|| panic!("a line for board {id}:\n{stdout}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_finds_a_wrong_set_up_a_foreign_piece_code_and_a_wrong_clock() {
    let dir = tempfile::tempdir().unwrap();
    let mut swapped = start();
    // The b1 knight and the c1 bishop swapped.
    swapped.swap(1, 2);
    let ok = dgt_board(dir.path(), ("ok", "40101"), start(), (5400, 5400));
    let setup = dgt_board(dir.path(), ("setup", "40102"), swapped, (5400, 5400));
    let clock = dgt_board(dir.path(), ("clock", "40103"), start(), (600, 600));
    let foreign = foreign_board(dir.path());
    let path = |b: &SimBoard| b.path().to_string_lossy().into_owned();
    let config = config(
        dir.path(),
        crate::util::free_port(),
        &[
            ("ok", path(&ok), false),
            ("setup", path(&setup), false),
            ("clock", path(&clock), false),
            ("foreign", foreign.pattern(), true),
            (
                "gone",
                dir.path().join("nothing-here").display().to_string(),
                false,
            ),
        ],
        "",
    );
    let (success, stdout, stderr, took) = run_check(&config, "4");
    eprintln!("{stdout}{stderr}");
    assert!(!success, "boards are not ready: exit non-zero");
    assert!(
        stderr.contains("4 of 5 boards not ready"),
        "one line says how many: {stderr}"
    );
    assert!(took < Duration::from_secs(15), "took {took:?}");
    let ok = line_of(&stdout, "ok");
    assert!(
        ok.starts_with("board ok: ready: Serial 40101, firmware 2.07."),
        "{ok}"
    );
    let setup = line_of(&stdout, "setup");
    assert!(
        setup.contains("NOT READY -- setup (fail): The initial position is set up wrongly: b1 holds the white bishop, should hold the white knight; c1 holds the white knight"),
        "{setup}"
    );
    assert!(!setup.contains("clock (fail)"), "{setup}");
    let clock = line_of(&stdout, "clock");
    assert!(
        clock.contains("NOT READY -- clock (fail): The clock shows 0:10:00 | 0:10:00 (left | right), not the event's time control (1:30:00 a side, +30 s a move)"),
        "{clock}"
    );
    assert!(!clock.contains("setup (fail)"), "{clock}");
    let foreign = line_of(&stdout, "foreign");
    assert!(
        foreign.contains("NOT READY -- pieces (fail): The board sent a piece code no draughts set holds (malformed frame: not a piece letter of this game)"),
        "{foreign}"
    );
    assert!(
        !foreign.contains("setup (fail)") && !foreign.contains("clock (fail)"),
        "{foreign}"
    );
    let gone = line_of(&stdout, "gone");
    assert!(
        gone.contains("NOT READY: not connected: no board answered on")
            && gone.contains("nothing-here within 4 s"),
        "{gone}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_exits_zero_when_every_board_is_ready() {
    let dir = tempfile::tempdir().unwrap();
    let a = dgt_board(dir.path(), ("a", "40104"), start(), (5400, 5400));
    let b = dgt_board(dir.path(), ("b", "40105"), start(), (5430, 5430));
    let path = |b: &SimBoard| b.path().to_string_lossy().into_owned();
    let config = config(
        dir.path(),
        crate::util::free_port(),
        &[("a", path(&a), false), ("b", path(&b), false)],
        "",
    );
    let (success, stdout, stderr, took) = run_check(&config, "10");
    assert!(success, "{stdout}{stderr}");
    assert!(stdout.contains("all 2 boards ready"), "{stdout}");
    assert!(line_of(&stdout, "a").starts_with("board a: ready: Serial 40104"));
    // Nothing to wait for once every board has nothing to say.
    assert!(took < Duration::from_secs(8), "took {took:?}");
}

/// Where the check page's screenshot is left.
const SCREENSHOT: &str = "/tmp/boardcast-check.png";

/// The live page's `/check` in Chromium, one daemon for every assertion:
/// with an arbiter password `/check` leads to the arbiters' login; once
/// in, `/arbiter/check` lists the four boards, the ready one ready, and
/// the others failing on their set-up (the squares named), their clock
/// and their piece code; the filter keeps only the boards not ready. With
/// the daemon running, `boardcast check` refuses its lines (port busy).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_check_page_lists_every_board_in_chromium() {
    use crate::util::{Broker, Daemon, Tool, free_port, require};
    use crate::web::{open_browser, wait_for};
    if !require(&[Tool::Mosquitto, Tool::Chromium]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let web = free_port();
    let mut swapped = start();
    swapped.swap(1, 2);
    let ok = dgt_board(dir.path(), ("ok", "40101"), start(), (5400, 5400));
    let setup = dgt_board(dir.path(), ("setup", "40102"), swapped, (5400, 5400));
    let clock = dgt_board(dir.path(), ("clock", "40103"), start(), (600, 600));
    let foreign = foreign_board(dir.path());
    let path = |b: &SimBoard| b.path().to_string_lossy().into_owned();
    let password = "check arbiter password";
    let config = config(
        dir.path(),
        broker.port,
        &[
            ("ok", path(&ok), false),
            ("setup", path(&setup), false),
            ("clock", path(&clock), false),
            ("foreign", foreign.pattern(), true),
        ],
        &format!("\n[web]\nlisten = \"127.0.0.1:{web}\"\narbiter_password = \"{password}\"\n"),
    );
    let daemon = Daemon::start(&config);
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", web)).is_err() {
        assert!(Instant::now() < deadline, "no page: {}", daemon.log());
        std::thread::sleep(Duration::from_millis(50));
    }
    let (_driver, client) = open_browser(dir.path()).await;
    let base = format!("http://127.0.0.1:{web}");

    // With an arbiter view, /check is the arbiters': their login first.
    client.goto(&format!("{base}/check")).await.unwrap();
    assert_eq!(client.current_url().await.unwrap().path(), "/arbiter/check");
    crate::web::log_in(&client, password).await;
    client.goto(&format!("{base}/arbiter/check")).await.unwrap();

    // Every board's row, as the boards are read.
    let verdicts = "return Object.fromEntries([...document.querySelectorAll('tr.row')]\
        .map(r => [r.dataset.board, r.dataset.ready]));";
    let seen = wait_for(
        &client,
        "the four boards judged: one ready, three not",
        Duration::from_secs(30),
        verdicts,
        |v| {
            v["ok"] == "true"
                && v["setup"] == "false"
                && v["clock"] == "false"
                && v["foreign"] == "false"
        },
    )
    .await;
    eprintln!("verdicts: {seen}");
    // Each failing board fails on its own item, in the column of its name.
    let cell = |board: &str, column: usize| {
        format!(
            "const r = document.querySelector('tr.row[data-board=\"{board}\"]'); \
             const c = r.children[{column}]; return [c.className, c.textContent];"
        )
    };
    let read = |script: String| {
        let client = client.clone();
        async move { client.execute(&script, vec![]).await.unwrap() }
    };
    // Columns: board, verdict, connected, identity, battery, orientation,
    // set-up (6), pieces (7), clock (8). Each cell's class is its status;
    // its text is returned for the checks it needs.
    let expect_cell = |board: &'static str, column: usize, status: &'static str| {
        let script = cell(board, column);
        let read = &read;
        async move {
            let c = read(script).await;
            assert_eq!(c[0], status, "{board}, column {column}: {c}");
            c[1].as_str().unwrap().to_string()
        }
    };
    let text = expect_cell("setup", 6, "fail").await;
    assert!(
        text.contains("set up wrongly") && text.ends_with("b1 c1"),
        "the squares named: {text}"
    );
    let text = expect_cell("clock", 8, "fail").await;
    assert!(text.contains("0:10:00 | 0:10:00"), "{text}");
    let text = expect_cell("foreign", 8, "ok").await;
    assert!(
        text.contains("the event's time control (1:30:00 a side, +30 s a move)"),
        "the draughts clock judged too: {text}"
    );
    let text = expect_cell("foreign", 7, "fail").await;
    assert!(text.contains("no draughts set holds"), "{text}");
    let ok_row = read(
        "return [...document.querySelector('tr.row[data-board=\"ok\"]').children]\
         .slice(2).map(c => c.className);"
            .into(),
    )
    .await;
    assert_eq!(ok_row, serde_json::json!(vec!["ok"; 7]), "every item ok");
    let summary = read("return document.getElementById('summary').textContent;".into()).await;
    assert_eq!(summary, "1 of 4 boards ready");
    let png = client.screenshot().await.expect("a screenshot");
    std::fs::write(SCREENSHOT, &png).unwrap();
    eprintln!("screenshot: {SCREENSHOT}");

    // Only the boards not ready, on request.
    client
        .find(fantoccini::Locator::Css("#only"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let shown = read(
        "return [...document.querySelectorAll('tr.row')]\
         .filter(r => getComputedStyle(r).display !== 'none').map(r => r.dataset.board);"
            .into(),
    )
    .await;
    assert_eq!(shown, serde_json::json!(["setup", "clock", "foreign"]));
    client.close().await.unwrap();

    // The daemon holds the boards' lines: `boardcast check` refuses to
    // read them beside it, in one line.
    let (success, stdout, stderr, _) = run_check(&config, "1");
    assert!(!success, "{stdout}");
    assert!(
        stderr.starts_with("boardcast: board ok: /dev/")
            && stderr.contains(&format!(
                "is busy: boardcast (process {}) is reading it",
                daemon.pid()
            ))
            && stderr.lines().count() == 1,
        "{stderr}"
    );
    assert!(stdout.is_empty(), "nothing read: {stdout}");
    drop(daemon);
}
