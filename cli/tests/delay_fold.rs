//! Issue 58, part 5, with real parts: a simulated DGT board on a pty plays
//! a game at real pace in which one piece is set down 3.5 s on a square on
//! its way (past the 2.4 s final time: the move is final), then moved on
//! to its square (the final move is retracted). With an 8 s broadcast
//! delay, the arbiters see the move and its retraction live; the public
//! MQTT topics, the PGN folder and the LiveChess API, read all along,
//! never show the withdrawn move, and end with the game as played.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use boardcast::games::chess::{Move, Position, Role, Square};
use boardcast_sim::{Profile, SourceGame, Table, play_textbook, simulate};
use serde_json::Value;

use crate::util::{
    BoardConf, Broker, Daemon, Pace, SimBoard, SimOptions, Subscriber, fold_moves, free_port, game,
    state_moves, write_config_with,
};

/// How long the piece stands on its way: past the 2.4 s final time.
const STOP_MS: u64 = 3_500;

/// The square a slider's move `m` passes that is itself a legal move of
/// the same piece (where a hand may set it down on the way).
fn on_the_way(pos: &Position, m: Move) -> Option<Move> {
    let slider = matches!(m.role(), Role::Bishop | Role::Rook | Role::Queen);
    if !slider || m.is_capture() || m.is_castle() || m.promotion().is_some() {
        return None;
    }
    let between = shakmaty::attacks::between(m.from(), m.to());
    pos.legal_moves()
        .find(|l| l.from() == m.from() && between.contains(l.to()))
}

/// Clean play at real pace, short thinking, and at ply `ply` the piece set
/// down on its way for [`STOP_MS`].
struct StopOnTheWay {
    ply: usize,
    played: usize,
}

impl Profile for StopOnTheWay {
    fn think(&mut self, table: &mut Table, _pos: &Position) {
        table.pause(350, 600);
    }

    fn play(&mut self, table: &mut Table, pos: &Position, m: Move) {
        self.played += 1;
        let via: Option<Square> = (self.played == self.ply)
            .then(|| on_the_way(pos, m))
            .flatten()
            .map(|l| l.to());
        let Some(via) = via else {
            play_textbook(table, pos, m);
            return;
        };
        let cell = table.lift(m.from());
        table.pause(150, 250);
        table.set(via, cell);
        table.wait(STOP_MS);
        table.lift(via);
        table.pause(150, 250);
        table.set(m.to(), cell);
    }
}

/// A game of the corpus with a slider's quiet move from ply 6 on, cut
/// after it plus a few replies: the game, the ply, and the withdrawn
/// move's SAN and placement.
fn scene() -> (SourceGame, usize, String, String) {
    for index in 0..400 {
        let g = game(index, Some(24));
        let mut pos = g.start.clone();
        for (i, m) in g.moves.iter().enumerate() {
            if i >= 5
                && i + 5 <= g.moves.len()
                && let Some(w) = on_the_way(&pos, *m)
            {
                let placement = pos.play(w).board().to_string();
                return (game(index, Some(i + 5)), i + 1, pos.san(w), placement);
            }
            pos = pos.play(*m);
        }
    }
    panic!("no game of the corpus has a slider's quiet move");
}

/// A plain HTTP GET on loopback: the body of a 200.
fn get(port: u16, path: &str) -> Option<String> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut text = String::new();
    s.read_to_string(&mut text).ok()?;
    let (head, body) = text.split_once("\r\n\r\n")?;
    head.starts_with("HTTP/1.1 200").then(|| body.to_string())
}

/// One read of the LiveChess API: the board's placement, the game's SAN.
type ApiView = (String, Vec<String>);

/// What the LiveChess API shows now: the board's placement and the game's
/// SAN moves.
fn livechess(port: u16) -> Option<ApiView> {
    let boards: Value = serde_json::from_str(&get(port, "/api/v1.0/eboards")?).ok()?;
    let placement = boards[0]["board"].as_str()?.to_string();
    let t: Value = serde_json::from_str(&get(port, "/api/v1.0/tournaments")?).ok()?;
    let uuid = t[0]["uuid"].as_str()?;
    let round: Value =
        serde_json::from_str(&get(port, &format!("/api/v1.0/round/{uuid}/0"))?).ok()?;
    let game = round["pairings"][0]["uuid"].as_str()?;
    let g: Value = serde_json::from_str(&get(port, &format!("/api/v1.0/game/{game}"))?).ok()?;
    let sans = g["moves"]
        .as_array()?
        .iter()
        .filter_map(|m| Some(m.as_str()?.split(' ').next()?.to_string()))
        .collect();
    Some((placement, sans))
}

/// The moves of a PGN text: movetext words less numbers, comments and the
/// result.
fn pgn_moves(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0;
    let body: String = text
        .lines()
        .filter(|l| !l.starts_with('['))
        .collect::<Vec<_>>()
        .join(" ");
    let mut clean = String::new();
    for c in body.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ if depth == 0 => clean.push(c),
            _ => {}
        }
    }
    for w in clean.split_whitespace() {
        let w = w.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
        if !w.is_empty() && !["*", "1-0", "0-1", "1/2-1/2"].contains(&w) {
            out.push(w.to_string());
        }
    }
    out
}

/// Reads the PGN folder's game and the LiveChess API every 100 ms until
/// `stop`: every PGN and every LiveChess view read.
fn watch(pgn: &Path, port: u16, stop: &AtomicBool) -> (Vec<Vec<String>>, Vec<ApiView>) {
    let (mut pgns, mut views) = (Vec::new(), Vec::new());
    while !stop.load(Ordering::Relaxed) {
        if let Ok(text) = std::fs::read_to_string(pgn)
            && !text.is_empty()
        {
            pgns.push(pgn_moves(&text));
        }
        views.extend(livechess(port));
        std::thread::sleep(Duration::from_millis(100));
    }
    (pgns, views)
}

fn is_prefix(moves: &[String], of: &[String]) -> bool {
    moves.len() <= of.len() && moves == &of[..moves.len()]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_withdrawn_within_the_delay_never_reaches_the_public() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let (g, ply, withdrawn, placement) = scene();
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let sub = Subscriber::connect(broker.port, "df/#", "watcher", false).await;
    let session = simulate(&g, &mut StopOnTheWay { ply, played: 0 }, 5, false);
    let opts = SimOptions {
        pace: Pace::Real,
        ..SimOptions::fast("30058")
    };
    let board = SimBoard::with_session(dir.path(), "one", g.clone(), session, opts);
    let lc = free_port();
    let pgn_dir = dir.path().join("pgn");
    let extra = format!(
        "\n[broadcast]\ndelay = \"8s\"\n\n[event]\nround = 1\npgn_dir = \"{}\"\n\n[livechess]\nlisten = \"127.0.0.1:{lc}\"\n",
        pgn_dir.display()
    );
    let config = write_config_with(
        dir.path(),
        &broker.url(),
        &extra,
        "df",
        &[BoardConf {
            id: "1".into(),
            port: board.path().to_string_lossy().into_owned(),
            serial: None,
        }],
    );
    let daemon = Daemon::start(&config);
    let stop = Arc::new(AtomicBool::new(false));
    let watcher = {
        let (stop, pgn) = (
            Arc::clone(&stop),
            pgn_dir.join("round-1").join("game-1.pgn"),
        );
        std::thread::spawn(move || watch(&pgn, lc, &stop))
    };

    // Live, the arbiters see the move on the way and its retraction.
    let (live, public) = ("df/arbiter/board/1/event", "df/board/1/event");
    sub.wait_for("the whole game live", Duration::from_secs(90), |msgs| {
        let events: Vec<Value> = msgs
            .iter()
            .filter(|m| m.topic == live)
            .map(|m| m.json())
            .collect();
        (fold_moves(&events) == g.sans).then_some(())
    })
    .await;
    let arbiters = sub.json_on(live);
    let shown_live = arbiters.iter().position(|e| {
        e["type"] == "move"
            && e["ply"].as_u64() == Some(ply as u64)
            && e["san"] == withdrawn.as_str()
    });
    let retracted = arbiters
        .iter()
        .position(|e| e["type"] == "retract" && e["ply"].as_u64() == Some(ply as u64));
    assert!(
        shown_live.is_some() && retracted > shown_live,
        "the scene: {withdrawn} final at ply {ply}, then retracted, live: {arbiters:#?}\n{}",
        daemon.log()
    );

    // The public gets the whole game, a delay later.
    sub.wait_for("the whole game public", Duration::from_secs(40), |msgs| {
        let last = msgs.iter().rev().find(|m| m.topic == "df/board/1/state")?;
        (state_moves(&last.json()) == g.sans).then_some(())
    })
    .await;
    // The folder writer's pause and the API's follower, then stop reading.
    tokio::time::sleep(Duration::from_secs(2)).await;
    stop.store(true, Ordering::Relaxed);
    let (pgns, views) = tokio::task::spawn_blocking(move || watcher.join().unwrap())
        .await
        .unwrap();

    // The public topics: no withdrawn move, no retraction, every state a
    // step of the game as played.
    let events = sub.json_on(public);
    assert!(
        events.iter().all(|e| e["type"] != "retract"
            && !(e["type"] == "move" && e["san"] == withdrawn.as_str() && e["ply"] == ply)),
        "the public saw the withdrawn {withdrawn}: {events:#?}"
    );
    assert_eq!(fold_moves(&events), g.sans);
    for m in sub
        .messages()
        .iter()
        .filter(|m| m.topic == "df/board/1/state")
    {
        let moves = state_moves(&m.json());
        assert!(is_prefix(&moves, &g.sans), "a public state: {moves:?}");
    }
    // The PGN folder, read some hundred times.
    assert!(pgns.len() > 50, "{} reads of the folder", pgns.len());
    for moves in &pgns {
        assert!(is_prefix(moves, &g.sans), "a PGN read: {moves:?}");
    }
    assert_eq!(pgns.last().unwrap(), &g.sans);
    // The LiveChess API likewise.
    assert!(views.len() > 50, "{} reads of the API", views.len());
    for (board, moves) in &views {
        assert_ne!(
            board, &placement,
            "the API showed the withdrawn {withdrawn}"
        );
        assert!(is_prefix(moves, &g.sans), "an API read: {moves:?}");
    }
    assert_eq!(views.last().unwrap().1, g.sans);
}
