//! Issue 58: a round's record the operator can trust, in headless Chromium
//! on emulated DGT boards with Mosquitto. Every sensor board's game ends
//! (mate on the board, the kings in the centre after a swap of players,
//! a result set by the operator) and its board is set up again before the
//! downloads; a pairing without a sensor board gets a typed result; "Start
//! round" pressed on a board mid-game leaves it playing. The round table,
//! the round PGN (python-chess) and the TRF with results (read by the `trf`
//! package from PyPI, a reader of FIDE's format written apart from ours)
//! hold every result, each point on the player who won and each colour as
//! played (Law 7.3), and a restart changes nothing.

use std::path::Path;
use std::time::Duration;

use boardcast::games::chess::Square;
use boardcast::track::Cell;
use serde_json::{Value, json};

use crate::check::start;
use crate::util::{Broker, Daemon, SimBoard, Subscriber};
use crate::web::{open_browser, wait_for};

const PASSWORD: &str = "desk password 58";
/// Eight players; round 1 played, round 2 paired with blank results.
const TRF: &str = "tests/data/trf/desk-round-2.trf";

/// Moves the piece on `from` to `to` as a hand does (lifted, set down).
async fn mv(board: &SimBoard, piece: Cell, from: Square, to: Square) {
    board.hand(from, Cell::Empty);
    tokio::time::sleep(Duration::from_millis(250)).await;
    board.hand(to, piece);
    tokio::time::sleep(Duration::from_millis(450)).await;
}

/// The piece the start position has on `sq`.
fn piece(sq: Square) -> Cell {
    start()[sq as usize]
}

/// Opens the desk at `base` and logs in with the page's own form post.
async fn log_in(client: &fantoccini::Client, base: &str) {
    client.goto(&format!("{base}/desk")).await.unwrap();
    let form = format!("key={}", PASSWORD.replace(' ', "+"));
    let (status, text) = post(client, "/desk/login", &form).await;
    assert!(status < 400, "login: {status} {text}");
    client.goto(&format!("{base}/desk")).await.unwrap();
}

/// Runs `script` in the page (its session, its origin) and returns what
/// its promise gives.
async fn page(client: &fantoccini::Client, script: &str, args: Vec<Value>) -> Value {
    client
        .execute(script, args)
        .await
        .unwrap_or_else(|e| panic!("{script}: {e}"))
}

/// A form POST from the page: `[status, text]`.
async fn post(client: &fantoccini::Client, path: &str, form: &str) -> (u64, String) {
    let v = page(
        client,
        "return fetch(arguments[0], {method: 'POST', headers: {'Content-Type': 'application/x-www-form-urlencoded'}, body: arguments[1]}).then(r => r.text().then(t => [r.status, t]));",
        vec![json!(path), json!(form)],
    )
    .await;
    (v[0].as_u64().unwrap(), v[1].as_str().unwrap().to_string())
}

async fn state(client: &fantoccini::Client) -> Value {
    page(
        client,
        "return fetch('/desk/state').then(r => r.json());",
        vec![],
    )
    .await
}

async fn fetched(client: &fantoccini::Client, path: &str) -> String {
    let v = page(
        client,
        "return fetch(arguments[0]).then(r => r.text());",
        vec![json!(path)],
    )
    .await;
    v.as_str().unwrap_or_default().to_string()
}

fn board_of<'a>(s: &'a Value, id: &str) -> &'a Value {
    s["boards"]
        .as_array()
        .and_then(|b| b.iter().find(|b| b["id"] == id))
        .unwrap_or_else(|| panic!("board {id} in {s}"))
}

fn pairing_of(s: &Value, n: u64) -> Value {
    s["pairings"]
        .as_array()
        .and_then(|p| p.iter().find(|p| p["board"] == n))
        .cloned()
        .unwrap_or_else(|| panic!("pairing board {n} in {s}"))
}

/// Waits until sensor board `id` shows a game with `plies` plies and
/// `result` (`Value::Null`: none).
async fn until_board(client: &fantoccini::Client, id: &str, plies: u64, result: Value) -> Value {
    let what = format!("board {id} at ply {plies}, result {result}");
    let id = id.to_string();
    wait_for(
        client,
        &what,
        Duration::from_secs(30),
        "return fetch('/desk/state').then(r => r.json());",
        move |s| {
            s["boards"].as_array().is_some_and(|b| {
                b.iter()
                    .any(|b| b["id"] == id && b["ply"] == plies && b["result"] == result)
            })
        },
    )
    .await
}

/// Sets the pieces of a finished game on `board` up again as players do
/// (`moved`: each piece's start square and where it stands): the pieces
/// taken off first, then each set on its home square.
async fn set_up_again(board: &SimBoard, moved: &[(Square, Square)]) {
    for &(_, now) in moved {
        board.hand(now, Cell::Empty);
        tokio::time::sleep(Duration::from_millis(150)).await;
    }
    for &(home, _) in moved {
        board.hand(home, piece(home));
        tokio::time::sleep(Duration::from_millis(150)).await;
    }
}

/// The TRF file as the `trf` package reads it: each player's name, points
/// and round-2 colour and result, as JSON.
fn read_with_trf_package(trf: &str) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("results.trf");
    std::fs::write(&path, trf).unwrap();
    let script = r#"
import json, sys, trf
with open(sys.argv[1]) as f:
    t = trf.load(f)
print(json.dumps([{"rank": p.startrank, "name": p.name, "points": p.points,
    "games": [{"opponent": g.startrank, "colour": g.color, "result": g.result} for g in p.games]}
    for p in t.players]))
"#;
    let out = std::process::Command::new(crate::util::python())
        .arg("-c")
        .arg(script)
        .arg(&path)
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "the trf package reads the file: {}\n{trf}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_played_to_its_end_keeps_every_result_for_the_pairing_program() {
    if !crate::util::require(&[
        crate::util::Tool::Mosquitto,
        crate::util::Tool::Chromium,
        crate::util::Tool::Python("chess"),
        crate::util::Tool::Python("trf"),
    ]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let sub = Subscriber::connect(broker.port, "rnd/#", "watcher", false).await;
    let (boards, config, web) =
        crate::desk::desk_boards(dir.path(), &broker, "rnd", ["r1", "r2", "r3"], PASSWORD);
    let mut daemon = Daemon::start(&config);
    crate::hardening::wait_port(web, &daemon);

    let (_driver, client) = open_browser(dir.path()).await;
    client.set_window_size(1440, 900).await.unwrap();
    let base = format!("http://127.0.0.1:{web}");
    log_in(&client, &base).await;

    // The pairing program's file, round 2; r1 and r2 play boards 1 and 2.
    let trf = std::fs::read_to_string(Path::new(crate::ROOT).join(TRF)).unwrap();
    let loaded = page(
        &client,
        "return fetch('/desk/trf?name=round.trf', {method: 'POST', body: arguments[0]}).then(r => r.status);",
        vec![json!(trf)],
    )
    .await;
    assert_eq!(loaded, 200);
    for (path, form) in [
        ("/desk/round", "round=2"),
        ("/desk/assign", "board=r1&number=1"),
        ("/desk/assign", "board=r2&number=2"),
        ("/desk/typed", "number=4&result=1-0"),
    ] {
        let (status, text) = post(&client, path, form).await;
        assert_eq!(status, 200, "{path} {form}: {text}");
    }
    let (status, text) = post(&client, "/desk/start", "").await;
    assert_eq!(status, 200, "{text}");
    assert!(text.contains("started on 2 boards"), "{text}");
    let started = state(&client).await;
    let p1 = pairing_of(&started, 1);
    let p2 = pairing_of(&started, 2);
    let p3 = pairing_of(&started, 3);

    // r3 is not assigned yet; its players begin anyway (1. e4 e5 2. Nf3).
    let r3_moves = [
        (Square::E2, Square::E4),
        (Square::E7, Square::E5),
        (Square::G1, Square::F3),
    ];
    for &(from, to) in &r3_moves {
        mv(&boards[2], piece(from), from, to).await;
    }
    until_board(&client, "r3", 3, Value::Null).await;
    // Assigned now, and "Start round" pressed again: r3's game goes on.
    let (status, text) = post(&client, "/desk/assign", "board=r3&number=3").await;
    assert_eq!(status, 200, "{text}");
    let (status, text) = post(&client, "/desk/start", "").await;
    assert_eq!(status, 200, "{text}");
    assert!(
        text.contains("still playing") && text.contains("r3"),
        "the answer names the board that kept playing: {text}"
    );
    // Its next moves are read on: no ply lost.
    mv(&boards[2], piece(Square::B8), Square::B8, Square::C6).await;
    until_board(&client, "r3", 4, Value::Null).await;
    // The operator sets its result (agreed draw, scoresheets signed).
    let (status, text) = post(
        &client,
        "/desk/command",
        "board=r3&command=set_result&result=1/2-1/2",
    )
    .await;
    assert_eq!(status, 200, "{text}");
    set_up_again(
        &boards[2],
        &[
            (Square::E2, Square::E4),
            (Square::E7, Square::E5),
            (Square::G1, Square::F3),
            (Square::B8, Square::C6),
        ],
    )
    .await;

    // r1: mate on the board (1. f3 e5 2. g4 Qh4#), then set up again.
    let fools = [
        (Square::F2, Square::F3),
        (Square::E7, Square::E5),
        (Square::G2, Square::G4),
        (Square::D8, Square::H4),
    ];
    for &(from, to) in &fools {
        mv(&boards[0], piece(from), from, to).await;
    }
    until_board(&client, "r1", 4, json!("0-1")).await;
    set_up_again(&boards[0], &fools).await;

    // r2: the players sat the wrong way round; swapped, then White (the
    // pairing's Black) wins and the kings go to the centre (both on light
    // squares: White won).
    let (status, text) = post(&client, "/desk/command", "board=r2&command=swap_players").await;
    assert_eq!(status, 200, "{text}");
    let knights = [
        (Square::G1, Square::F3),
        (Square::G8, Square::F6),
        (Square::B1, Square::C3),
        (Square::B8, Square::C6),
    ];
    for &(from, to) in &knights {
        mv(&boards[1], piece(from), from, to).await;
    }
    until_board(&client, "r2", 4, Value::Null).await;
    mv(&boards[1], piece(Square::E1), Square::E1, Square::E4).await;
    mv(&boards[1], piece(Square::E8), Square::E8, Square::D5).await;
    until_board(&client, "r2", 4, json!("1-0")).await;
    let mut r2_moved = knights.to_vec();
    r2_moved.extend([(Square::E1, Square::E4), (Square::E8, Square::D5)]);
    set_up_again(&boards[1], &r2_moved).await;

    // Every board set up again: each shows a new game with no moves, and
    // the round table still holds every result with how it came.
    let check = |s: &Value, when: &str| {
        let expect = [
            (1, "0-1", "board", false),
            (2, "1-0", "kings", true),
            (3, "1/2-1/2", "operator", false),
            (4, "1-0", "typed", false),
        ];
        for (n, result, source, swapped) in expect {
            let p = pairing_of(s, n);
            assert_eq!(p["result"], result, "{when}: pairing {n}: {p}");
            assert_eq!(p["source"], source, "{when}: pairing {n}: {p}");
            assert_eq!(p["swapped"], swapped, "{when}: pairing {n}: {p}");
        }
        assert_eq!(
            s["progress"],
            json!({"results": 4, "pairings": 4}),
            "{when}"
        );
    };
    let after = wait_for(
        &client,
        "every board set up again",
        Duration::from_secs(30),
        "return fetch('/desk/state').then(r => r.json());",
        |s| {
            ["r1", "r2", "r3"].iter().all(|id| {
                s["boards"].as_array().is_some_and(|b| {
                    b.iter()
                        .any(|b| b["id"] == *id && b["ply"] == 0 && b["result"].is_null())
                })
            })
        },
    )
    .await;
    // The round table is rewritten on the next state: give it a moment.
    tokio::time::sleep(Duration::from_secs(1)).await;
    check(&state(&client).await, "boards set up again");
    let _ = after;

    // No ply of r3's game was lost: its four moves reached the event topic.
    let r3_sans: Vec<String> = sub
        .messages()
        .iter()
        .filter(|m| m.topic == "rnd/arbiter/board/r3/event" && m.json()["type"] == "move")
        .map(|m| m.json()["san"].as_str().unwrap_or_default().to_string())
        .collect();
    assert!(
        r3_sans.starts_with(&["e4".into(), "e5".into(), "Nf3".into(), "Nc6".into()]),
        "{r3_sans:?}"
    );

    let downloads = |client: fantoccini::Client| async move {
        let pgn = fetched(&client, "/desk/round.pgn").await;
        let trf = fetched(&client, "/desk/results.trf").await;
        (client, pgn, trf)
    };
    let (client, pgn, results) = downloads(client).await;
    // The round PGN: every game with its result, the swapped one by the
    // colours as played.
    let name = |p: &Value, side: &str| p[side]["name"].as_str().unwrap().to_string();
    let games = crate::games::python_chess_headers(&pgn);
    let find = |round: &str| {
        games
            .iter()
            .find(|g| g["Round"] == round)
            .unwrap_or_else(|| panic!("game {round} in {pgn}"))
            .clone()
    };
    assert_eq!(find("2.1")["Result"], "0-1", "{pgn}");
    let g2 = find("2.2");
    assert_eq!(g2["Result"], "1-0", "{pgn}");
    assert_eq!(g2["White"], name(&p2, "black"), "played as swapped: {pgn}");
    assert_eq!(find("2.3")["Result"], "1/2-1/2", "{pgn}");

    // The TRF with results, as an independent reader reads it: each point
    // on the player who won, each colour as played, the points adding up.
    let check_trf = |results: &str, when: &str| {
        let read = read_with_trf_package(results);
        let player = |r: &Value, n: &str| -> Value {
            r.as_array()
                .unwrap()
                .iter()
                .find(|p| p["name"] == n)
                .cloned()
                .unwrap_or_else(|| panic!("{n} in {r}"))
        };
        let round2 = |r: &Value, n: &str| player(r, n)["games"][1].clone();
        let expect = [
            (name(&p1, "white"), "w", "0"),
            (name(&p1, "black"), "b", "1"),
            // Swapped: the pairing's Black played White and won.
            (name(&p2, "black"), "w", "1"),
            (name(&p2, "white"), "b", "0"),
            (name(&p3, "white"), "w", "="),
            (name(&p3, "black"), "b", "="),
        ];
        for (who, colour, result) in expect {
            let g = round2(&read, &who);
            assert_eq!(g["colour"], colour, "{when}: {who}: {g}");
            assert_eq!(g["result"], result, "{when}: {who}: {g}");
        }
        let p4 = pairing_of(&started, 4);
        assert_eq!(round2(&read, &name(&p4, "white"))["result"], "1", "{when}");
        assert_eq!(round2(&read, &name(&p4, "black"))["result"], "0", "{when}");
        // Each player's points are the sum of their results, and round 2's
        // four games gave a point each.
        let points = |g: &Value| match g["result"].as_str().unwrap() {
            "1" | "+" | "F" | "U" | "W" => 1.0,
            "=" | "H" | "D" => 0.5,
            _ => 0.0,
        };
        let mut round_total = 0.0;
        for p in read.as_array().unwrap() {
            let games = p["games"].as_array().unwrap();
            let sum: f64 = games.iter().map(points).sum();
            assert_eq!(p["points"].as_f64().unwrap(), sum, "{when}: {p}");
            round_total += games.get(1).map_or(0.0, points);
        }
        assert_eq!(round_total, 4.0, "{when}: {results}");
    };
    check_trf(&results, "boards set up again");

    // A restart: the same round table, the same files.
    assert!(daemon.stop().success(), "{}", daemon.log());
    let daemon = Daemon::start(&config);
    crate::hardening::wait_port(web, &daemon);
    log_in(&client, &base).await;
    let back = wait_for(
        &client,
        "the round after a restart",
        Duration::from_secs(30),
        "return fetch('/desk/state').then(r => r.json());",
        |s| {
            s["boards"]
                .as_array()
                .is_some_and(|b| b.iter().all(|b| b["status"] != "offline"))
        },
    )
    .await;
    check(&back, "after a restart");
    let (_client, pgn_again, results_again) = downloads(client).await;
    assert_eq!(results_again, results, "the TRF after a restart");
    assert_eq!(
        crate::games::python_chess_headers(&pgn_again).len(),
        games.len(),
        "{pgn_again}"
    );
    check_trf(&results_again, "after a restart");
    let _ = board_of(&back, "r1");
    drop(boards);
}
