//! Draughts and xiangqi through the command line, and records read by
//! pydraughts and cchess (moved from tests/draughts_xiangqi.rs; the helpers both
//! share are in tests/corpora.rs).

use std::path::{Path, PathBuf};
use std::process::Command;

use boardcast::event::{EventKind, GameId};
use boardcast::replay::replay_game_text;
use boardcast::track::Config;
use boardcast_rules::{draughts, xiangqi};
use boardcast_sim::open::{OtherGameProfile, simulate_draughts, simulate_xiangqi};

use crate::util::binary;

use crate::corpora::{data, draughts_games, errors, ids, replay, xiangqi_games};

fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

#[test]
fn command_line_simulates_and_replays_draughts_and_xiangqi() {
    let dir = tempdir();
    let run = |args: &[&str]| {
        let out = Command::new(binary()).args(args).output().unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let pdn = data("english-draughts.pdn");
    let d = dir.path().join("d");
    run(&[
        "simulate",
        "--game",
        "draughts",
        "--pdn",
        pdn.to_str().unwrap(),
        "--out",
        d.to_str().unwrap(),
        "--profile",
        "human",
        "--pieces",
        "no",
        "--limit",
        "2",
    ]);
    let cap = d.join("game-0001.capture");
    let events = dir.path().join("d.events");
    let record = dir.path().join("d.pdn");
    run(&[
        "replay",
        cap.to_str().unwrap(),
        "--events",
        events.to_str().unwrap(),
        "--pgn",
        record.to_str().unwrap(),
    ]);
    let pdn_text = std::fs::read_to_string(&record).unwrap();
    assert!(pdn_text.starts_with("[GameType \"21\"]"));
    let game = &draughts_games()[0];
    let read = draughts::read_pdn(&pdn_text).unwrap();
    assert_eq!(read[0].moves, game.moves);
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&events)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(lines.iter().all(|e| e["game"] == "draughts"));
    let moves = lines.iter().filter(|e| e["type"] == "move").count();
    assert_eq!(moves, game.moves.len());

    let pgn = data("xiangqi-random.pgn");
    let x = dir.path().join("x");
    run(&[
        "simulate",
        "--game",
        "xiangqi",
        "--pgn",
        pgn.to_str().unwrap(),
        "--out",
        x.to_str().unwrap(),
        "--limit",
        "1",
    ]);
    let record = dir.path().join("x.pgn");
    let events = dir.path().join("x.events");
    run(&[
        "replay",
        x.join("game-0001.capture").to_str().unwrap(),
        "--pgn",
        record.to_str().unwrap(),
        "--events",
        events.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(&record).unwrap();
    assert!(text.contains("[Variant \"xiangqi\"]"));
    assert!(text.contains("[FEN \"rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w"));
    let rec = xiangqi::pgn::read(&text).unwrap();
    assert_eq!(rec.moves, xiangqi_games()[0]);
    let first: serde_json::Value = serde_json::from_str(
        std::fs::read_to_string(&events)
            .unwrap()
            .lines()
            .find(|l| l.contains("\"move\""))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(first["side"], "red");
    assert_eq!(first["game"], "xiangqi");
    assert_eq!(first["id"], xiangqi_games()[0][0].to_string());
}

/// pydraughts (an independent reader) reads the replayed records and plays
/// every move the events published.
#[test]
fn pydraughts_reads_every_replayed_record_and_agrees() {
    if !crate::util::require(&[crate::util::Tool::Python("draughts")]) {
        return;
    }
    let games = draughts_games();
    let dir = tempdir();
    let mut records = String::new();
    let mut published = Vec::new();
    for (i, g) in games.iter().enumerate().take(60) {
        let profile = OtherGameProfile {
            human: true,
            pieces: i % 2 == 0,
            rotated: false,
            real: false,
        };
        let r = replay(&simulate_draughts(&g.moves, profile, i as u64), None, true);
        records += &r.records;
        published.push(ids(&r));
    }
    let path = dir.path().join("replayed.pdn");
    std::fs::write(&path, records).unwrap();
    let script = PathBuf::from(crate::ROOT).join("rules/tests/oracle/draughts_pydraughts.py");
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let out = Command::new(&python)
        .arg(&script)
        .arg(&path)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {python} (pip install pydraughts==0.6.7): {e}"));
    assert!(
        out.status.success(),
        "pydraughts: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let theirs: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let theirs = theirs.as_array().unwrap();
    assert_eq!(theirs.len(), published.len());
    for (g, (t, ours)) in theirs.iter().zip(&published).enumerate() {
        let plies = t["plies"].as_array().unwrap();
        assert_eq!(plies.len(), ours.len(), "game {}", g + 1);
        for (p, id) in plies.iter().zip(ours) {
            let path: Vec<String> = p["played"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n.to_string())
                .collect();
            let mine: Vec<String> = id.split(['-', 'x']).map(str::to_owned).collect();
            assert_eq!(path, mine, "game {}", g + 1);
        }
    }
}

/// cchess (an independent xiangqi library) finds every published move legal
/// and agrees with the position after it.
#[test]
fn cchess_agrees_with_every_replayed_xiangqi_move() {
    if !crate::util::require(&[crate::util::Tool::Python("cchess")]) {
        return;
    }
    use std::io::Write;
    let games = xiangqi_games();
    let mut all = Vec::new();
    for (i, moves) in games.iter().enumerate() {
        let profile = OtherGameProfile {
            human: true,
            pieces: i % 2 == 0,
            rotated: false,
            real: false,
        };
        let r = replay(&simulate_xiangqi(moves, profile, i as u64), None, true);
        let plies: Vec<(String, String)> = r
            .events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Move { id, position, .. } => Some((id.clone(), position.clone())),
                _ => None,
            })
            .collect();
        assert_eq!(plies.len(), moves.len(), "game {}", i + 1);
        all.push(plies);
    }
    let script = PathBuf::from(crate::ROOT).join("rules/tests/oracle/xiangqi_cchess.py");
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let mut child = Command::new(&python)
        .arg(&script)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {python} (pip install cchess): {e}"));
    child
        .stdin
        .take()
        .unwrap()
        .write_all(serde_json::to_string(&all).unwrap().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "cchess: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let checked: usize = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
    assert_eq!(checked, games.iter().map(Vec::len).sum::<usize>());
}

/// Issue 15: draughts on an occupancy board of a vendor family. The corpus
/// played on simulated boards (clean and human handling, standing either
/// way round) written as a Certabo board in occupancy mode (Tabutronic
/// frames, `protocol=certabo occupancy=yes game=draughts`) replays exactly
/// through the family's driver and the draughts reconstructor; the
/// command line routes such a capture by its header.
#[test]
fn draughts_corpus_replays_exactly_on_an_occupancy_vendor_board() {
    use boardcast_sim::open::tabutronic_capture_text;
    let games = draughts_games();
    for human in [false, true] {
        for (i, g) in games.iter().enumerate() {
            let profile = OtherGameProfile {
                human,
                pieces: false,
                rotated: human && i % 4 == 3,
                real: false,
            };
            let session = simulate_draughts(&g.moves, profile, i as u64);
            let text = tabutronic_capture_text(&session, &[("board".into(), "5".into())]);
            assert!(text.starts_with("# boardcast capture v1 protocol=certabo"));
            let r = replay_game_text(&text, Config::default(), Path::new("tabutronic")).unwrap();
            let want: Vec<String> = g.moves.iter().map(|m| m.id()).collect();
            assert_eq!(ids(&r), want, "game {} under {profile:?}", i + 1);
            assert_eq!(errors(&r), Vec::<String>::new(), "game {}", i + 1);
            assert_eq!(r.game, GameId::Draughts);
            assert!(r.events.iter().all(|e| e.board == "5"));
        }
    }
    // `boardcast simulate --board tabutronic` writes such a file, and
    // `boardcast replay` on it writes the PDN.
    let dir = tempdir();
    let run = |args: &[&str]| {
        let out = Command::new(binary()).args(args).output().unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let d = dir.path().join("d");
    run(&[
        "simulate",
        "--game",
        "draughts",
        "--board",
        "tabutronic",
        "--pdn",
        data("english-draughts.pdn").to_str().unwrap(),
        "--out",
        d.to_str().unwrap(),
        "--profile",
        "human",
        "--limit",
        "1",
    ]);
    let cap = d.join("game-0001.capture");
    let head = std::fs::read_to_string(&cap).unwrap();
    assert!(
        head.starts_with("# boardcast capture v1 protocol=certabo occupancy=yes game=draughts"),
        "{}",
        head.lines().next().unwrap()
    );
    let pdn = dir.path().join("t.pdn");
    run(&[
        "replay",
        cap.to_str().unwrap(),
        "--pgn",
        pdn.to_str().unwrap(),
    ]);
    let read = draughts::read_pdn(&std::fs::read_to_string(&pdn).unwrap()).unwrap();
    assert_eq!(read[0].moves, games[0].moves);
}
