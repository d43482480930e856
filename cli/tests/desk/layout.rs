//! Issue 58, part 7: the desk as an operator reads it. `boardcast run`
//! with no configuration (the eight demo boards, playing), a 34-player
//! round of 16 pairings with two players not paired (a half-point bye, and
//! one the file gives no reason for), eight pairings on sensor boards and
//! eight typed, in headless Chromium at 1440x900 and 1024x768: the round
//! table with its downloads on the first screen, a result field on every
//! pairing, the round's progress, no "(null)", badges of now, model and
//! serial from the boards' greeting, the correction dialog opening and
//! closing. Leaves desk-1440x900.png and desk-1024x768.png in the target
//! folder (docs/operator.md shows them).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use super::{choose, click, desk_state, message, snap};
use crate::util::{binary, free_port};
use crate::web::{open_browser, wait_for};

const NAMES: [&str; 34] = [
    "Adams, Michael",
    "Short, Nigel",
    "McShane, Luke",
    "Howell, David",
    "Jones, Gawain",
    "Pert, Nicholas",
    "Gormally, Daniel",
    "Wells, Peter",
    "Hebden, Mark",
    "Arkell, Keith",
    "Rudd, Jack",
    "Ghasi, Ameet",
    "Eggleston, David",
    "Hawkins, Jonathan",
    "Fernandez, Daniel",
    "Palliser, Richard",
    "Haslinger, Stewart",
    "Harvey, Marcus",
    "Gordon, Stephen",
    "Kanep, Meelis",
    "Flear, Glenn",
    "Ledger, Andrew",
    "Lalic, Susan",
    "Zhou, Yang-Fan",
    "Bates, Richard",
    "Dickenson, Neil",
    "Hunt, Harriet",
    "Rich, Timothy",
    "Williams, Simon",
    "Lee, Jovanka",
    "Tan, Justin",
    "McPhillips, Joseph",
    "Roberts, Peter",
    "Daly, Colm",
];

/// A TRF file of 34 players, round 1 paired (16 boards, results blank):
/// rank k plays rank k + 16; rank 33 has a half-point bye (`H`), rank 34
/// no round at all (the file gives no reason).
fn round_file() -> String {
    let mut text = String::from("012 Desk Layout Congress\n022 Testford\nXXR 5\n");
    for (i, name) in NAMES.iter().enumerate() {
        let rank = i + 1;
        let block = match rank {
            1..=16 => format!(
                "{:>4} {} ",
                rank + 16,
                if rank % 2 == 1 { 'w' } else { 'b' }
            ),
            17..=32 => format!(
                "{:>4} {} ",
                rank - 16,
                if rank % 2 == 1 { 'b' } else { 'w' }
            ),
            33 => "0000 - H".to_string(),
            _ => String::new(),
        };
        let rating = 2700 - 15 * i;
        text.push_str(&format!(
            "001 {rank:>4} m    {name:<33} {rating:>4} ENG {:11} {:10}  0.0 {rank:>4}  {block}\n",
            "", ""
        ));
    }
    text
}

/// Where on the screen the element `css` is: `top`, `bottom`, `left`,
/// `right` and the window's `height` and `width`.
async fn rect(client: &fantoccini::Client, css: &str) -> Value {
    client
        .execute(
            "const r = document.querySelector(arguments[0]).getBoundingClientRect(); return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, height: innerHeight, width: innerWidth};",
            vec![Value::String(css.into())],
        )
        .await
        .unwrap_or_else(|e| panic!("{css}: {e}"))
}

/// The element `css` lies wholly in the first screen (the page scrolled to
/// its top).
async fn on_first_screen(client: &fantoccini::Client, css: &str, size: &str) {
    let r = rect(client, css).await;
    let f = |k: &str| r[k].as_f64().unwrap();
    assert!(
        f("top") >= 0.0
            && f("bottom") <= f("height")
            && f("left") >= 0.0
            && f("right") <= f("width"),
        "{css} is not on the first screen at {size}: {r}"
    );
}

/// What the page shows: the rows, their result fields, the progress line,
/// the text of the whole page.
async fn shown(client: &fantoccini::Client) -> Value {
    client
        .execute(
            "return {rows: document.querySelectorAll('#pairings-body tr[data-number]').length, \
             fields: document.querySelectorAll('#pairings-body tr[data-number] select.typed').length, \
             progress: document.getElementById('progress').textContent, \
             byes: document.getElementById('byes').textContent, \
             text: document.body.innerText};",
            vec![],
        )
        .await
        .unwrap()
}

/// The first screen at `width` x `height`: the round table and its
/// downloads wholly on it, nothing wider than the window; a screenshot.
async fn first_screen(client: &fantoccini::Client, width: u32, height: u32) {
    let size = format!("{width}x{height}");
    client.set_window_size(width, height).await.unwrap();
    tokio::time::sleep(Duration::from_millis(600)).await;
    client
        .execute("window.scrollTo(0, 0); return true;", vec![])
        .await
        .unwrap();
    for css in [
        "#pairings",
        "#download-pgn",
        "#download-trf",
        "#open-report",
        "#progress",
        "#start-round",
    ] {
        on_first_screen(client, css, &size).await;
    }
    let wide = client
        .execute(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth;",
            vec![],
        )
        .await
        .unwrap();
    assert!(
        wide.as_i64().is_some_and(|w| w <= 0),
        "sideways scroll at {size}: {wide}"
    );
    snap(client, &format!("desk-{size}.png")).await;
}

/// `boardcast run`, stopped when the test ends; its log shown when the
/// test fails.
struct Run {
    child: std::process::Child,
    log: std::path::PathBuf,
}

impl Drop for Run {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if std::thread::panicking() {
            let log = std::fs::read_to_string(&self.log).unwrap_or_default();
            let tail: Vec<&str> = log.lines().rev().take(30).collect();
            eprintln!(
                "---- boardcast run (last lines, newest first) ----\n{}",
                tail.join("\n")
            );
        }
    }
}

/// `boardcast run` with no configuration, its desk at `web`.
fn first_run(dir: &Path, web: u16) -> Run {
    let log = dir.join("first-run.log");
    let child = Command::new(binary())
        .args(["run", "--web", &format!("127.0.0.1:{web}")])
        .args(["--broker", &format!("127.0.0.1:{}", free_port())])
        .arg("--data")
        .arg(dir.join("data"))
        .env("BOARDCAST_CONFIG", dir.join("none.toml"))
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    Run { child, log }
}

/// The desk's first run in the browser: its password chosen, the boards
/// shown.
async fn open_first_run(client: &fantoccini::Client, web: u16) {
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", web)).is_err() {
        assert!(std::time::Instant::now() < deadline, "no desk on {web}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    client
        .goto(&format!("http://127.0.0.1:{web}/desk"))
        .await
        .unwrap();
    for id in ["desk-new", "desk-again"] {
        client
            .find(fantoccini::Locator::Id(id))
            .await
            .unwrap()
            .send_keys("layout password")
            .await
            .unwrap();
    }
    click(client, "#desk-choose").await;
    wait_for(
        client,
        "the eight demo boards",
        Duration::from_secs(30),
        "return document.querySelectorAll('#boards-body .card[data-board]').length;",
        |v| v.as_u64() == Some(8),
    )
    .await;
}

/// The pairing board `n` of `state`.
fn pairing(state: &Value, n: u64) -> Value {
    state["pairings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["board"] == n)
        .cloned()
        .unwrap_or_else(|| panic!("pairing board {n} in {state}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_desk_reads_as_an_operator_reads_it_at_1440_and_1024() {
    if !crate::util::require(&[crate::util::Tool::Chromium]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let web = free_port();
    let _daemon = first_run(dir.path(), web);
    let (_driver, client) = open_browser(dir.path()).await;
    client.set_window_size(1440, 900).await.unwrap();
    open_first_run(&client, web).await;

    // The round: 16 pairings, two players not paired.
    let file = dir.path().join("round-1.trf");
    std::fs::write(&file, round_file()).unwrap();
    client
        .find(fantoccini::Locator::Id("trf-file"))
        .await
        .unwrap()
        .send_keys(&file.display().to_string())
        .await
        .unwrap();
    click(&client, "#trf-upload").await;
    message(&client, "the file loaded", "34 players").await;
    choose(&client, "round-select", "1").await;
    wait_for(
        &client,
        "round 1's 16 pairings",
        Duration::from_secs(20),
        "return document.querySelectorAll('#pairings-body tr[data-number]').length;",
        |v| v.as_u64() == Some(16),
    )
    .await;
    // Demo boards 1-8 play pairing boards 1-8; 9-16 have none.
    for n in 1..=8 {
        choose(&client, &format!("assign-{n}"), &n.to_string()).await;
        message(&client, "the assignment", &format!("Board {n} assigned")).await;
    }
    // Results typed for six of the eight pairings without a board, and
    // one for a pairing with a sensor board (the operator's).
    let typed = [
        (9, "1-0"),
        (10, "1/2-1/2"),
        (11, "0-1"),
        (12, "1-0"),
        (13, "1/2-1/2"),
        (14, "0-1"),
        (2, "1-0"),
    ];
    for (n, r) in typed {
        choose(&client, &format!("typed-{n}"), r).await;
        message(&client, "the typed result", &format!("pairing board {n}")).await;
    }
    let state = desk_state(&client).await;
    for (n, r) in typed {
        assert_eq!(pairing(&state, n)["typed"], r, "{state}");
    }
    let results = state["pairings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| ["1-0", "0-1", "1/2-1/2"].contains(&p["result"].as_str().unwrap_or("")))
        .count();
    assert!(results >= 6, "{state}");

    // What the page shows.
    let page = wait_for(
        &client,
        "the progress of the round",
        Duration::from_secs(10),
        "return document.getElementById('progress').textContent;",
        |v| v.as_str().is_some_and(|t| t.ends_with("of 16 results in")),
    )
    .await;
    let counted: usize = page
        .as_str()
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(counted >= 6, "{page}");
    let seen = shown(&client).await;
    assert_eq!(seen["rows"], 16, "{seen}");
    assert_eq!(
        seen["fields"], 16,
        "a result field on every pairing: {seen}"
    );
    let text = seen["text"].as_str().unwrap();
    for bad in ["(null)", "null", "undefined", "NaN"] {
        assert!(!text.contains(bad), "the page shows {bad:?}: {text}");
    }
    let byes = seen["byes"].as_str().unwrap();
    assert!(
        byes.contains("Roberts, Peter: half-point bye (H)"),
        "{byes}"
    );
    assert!(
        byes.contains("Daly, Colm: not paired in this round"),
        "{byes}"
    );
    let progress = desk_state(&client).await["progress"].clone();
    assert_eq!(progress["pairings"], 16, "{progress}");
    // A demo game may end meanwhile: never fewer.
    assert!(
        progress["results"].as_u64() >= Some(counted as u64),
        "{progress}"
    );
    boards_read_now(&client).await;
    correction_dialog(&client).await;

    first_screen(&client, 1440, 900).await;
    first_screen(&client, 1024, 768).await;
}

/// The demo boards, mid-game: badges of now (`playing`, never a check
/// from before the game), model and serial from the boards' greeting.
async fn boards_read_now(client: &fantoccini::Client) {
    let state = wait_for(
        client,
        "demo boards in the middle of a game",
        Duration::from_secs(60),
        "return fetch('/desk/state').then(r => r.json());",
        |s| {
            s["boards"].as_array().is_some_and(|b| {
                b.iter()
                    .any(|b| b["ply"].as_u64() > Some(2) && b["result"].is_null())
            })
        },
    )
    .await;
    for b in state["boards"].as_array().unwrap() {
        if b["status"] != "connected" {
            continue;
        }
        assert!(b["serial"].is_string(), "a serial from the greeting: {b}");
        assert!(
            b["firmware"].is_string(),
            "the firmware from the greeting: {b}"
        );
        if b["ply"].as_u64() > Some(0) && b["result"].is_null() {
            assert_eq!(b["now"]["label"], "playing", "{b}");
            assert_eq!(
                b["readiness"],
                serde_json::json!([]),
                "no check mid-game: {b}"
            );
        }
    }
    let playing = state["boards"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["ply"].as_u64() > Some(2) && b["result"].is_null())
        .unwrap();
    let id = playing["id"].as_str().unwrap();
    let card = client
        .execute(
            "const c = document.querySelector(`#boards-body .card[data-board=\"${arguments[0]}\"]`); return {badge: c.querySelector('.ready-badge').textContent, model: c.querySelector('.model').textContent, cells: c.querySelectorAll('.diagram span').length};",
            vec![Value::String(id.into())],
        )
        .await
        .unwrap();
    assert_eq!(card["badge"], "playing", "{card}");
    let serial = playing["serial"].as_str().unwrap();
    assert!(
        card["model"]
            .as_str()
            .unwrap()
            .contains(&format!("serial {serial}")),
        "{card}"
    );
    assert_eq!(card["cells"], 64, "a small diagram of the board: {card}");
}

/// "Correct" opens a modal dialog in the window; "Close" closes it.
async fn correction_dialog(client: &fantoccini::Client) {
    let open = "const d = document.getElementById('correct-panel'); return {open: d.open, modal: d.matches(':modal'), title: document.getElementById('correct-title').textContent};";
    click(client, "#boards-body button.correct[data-board=\"3\"]").await;
    let d = client.execute(open, vec![]).await.unwrap();
    assert_eq!(d["open"], true, "{d}");
    assert_eq!(d["modal"], true, "a modal dialog, over nothing else: {d}");
    assert_eq!(d["title"], "Correct board 3", "{d}");
    on_first_screen(client, "#correct-panel", "1440x900").await;
    click(client, "#correct-close").await;
    let d = client.execute(open, vec![]).await.unwrap();
    assert_eq!(d["open"], false, "{d}");
    // From the round table too: the sensor board of pairing board 1.
    click(client, "#pairings-body button.correct[data-board=\"1\"]").await;
    let d = client.execute(open, vec![]).await.unwrap();
    assert_eq!(
        (d["open"].as_bool(), d["title"].as_str()),
        (Some(true), Some("Correct board 1")),
        "{d}"
    );
    click(client, "#correct-close").await;
}
