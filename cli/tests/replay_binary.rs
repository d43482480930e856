//! Captures replayed to PGN that python-chess reads, and the binary's
//! `simulate` and `replay` (moved from tests/replay.rs).

use boardcast::replay::replay_reader;
use boardcast::sink::pgn::{Tags, render};
use boardcast::track::Config;
use boardcast_sim::{self as sim, Clean};

use crate::games::{all_games, boardcast, data, load, python_chess_mainlines};

/// A capture of the first master game, played cleanly (as tests/replay.rs
/// makes it).
fn clean_capture() -> (boardcast_sim::SourceGame, String) {
    let game = load("master-games.pgn").swap_remove(0);
    let session = sim::simulate(&game, &mut Clean, 7, false);
    (game, sim::dgt::capture_text(&session, &[]))
}

#[test]
fn every_bundled_game_played_cleanly_replays_to_its_moves() {
    if !crate::util::require(&[crate::util::Tool::Python("chess")]) {
        return;
    }
    let games = all_games();
    assert_eq!(
        games.len(),
        2150,
        "the bundled files hold 2,000 + 150 games"
    );
    let mut pgn = String::new();
    let mut expected = Vec::new();
    for (i, game) in games.iter().enumerate() {
        // Every fifth board stands turned round.
        let rotated = i % 5 == 4;
        let session = sim::simulate(game, &mut Clean, i as u64, rotated);
        let text = sim::dgt::capture_text(&session, &[]);
        let replay = replay_reader(text.as_bytes(), Config::default(), "clean".as_ref()).unwrap();
        let check = sim::check::compare(game, &session, &replay);
        assert!(
            check.exact,
            "game {} (rotated {rotated}): right up to ply {} of {}",
            i + 1,
            check.plies_right,
            check.plies
        );
        assert_eq!(
            check.retracts,
            0,
            "game {}: a clean game shows no wrong move",
            i + 1
        );
        assert_eq!(replay.log.games().len(), 1);
        let record = &replay.log.games()[0];
        assert_eq!(record.rotated, rotated);
        assert_eq!(record.chess960, game.start.is_chess960());
        pgn.push_str(&render(record, &Tags::default()));
        expected.push(game.sans.clone());
    }
    // An independent reader accepts every game and finds the same moves.
    let read = python_chess_mainlines(&pgn);
    assert_eq!(read.len(), expected.len());
    for (i, (got, want)) in read.iter().zip(&expected).enumerate() {
        assert_eq!(got, want, "game {} as python-chess reads it", i + 1);
    }
}

#[test]
fn the_binary_simulates_and_replays_to_pgn_and_events() {
    if !crate::util::require(&[crate::util::Tool::Python("chess")]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("captures");
    let status = boardcast()
        .args(["simulate", "--pgn"])
        .arg(data("chess960-selfplay.pgn"))
        .arg("--out")
        .arg(&out)
        .args(["--limit", "3"])
        .status()
        .unwrap();
    assert!(status.success());
    let games = load("chess960-selfplay.pgn");
    for (i, game) in games.iter().take(3).enumerate() {
        let capture = out.join(format!("game-{:04}.capture", i + 1));
        let pgn = dir.path().join("game.pgn");
        let events = dir.path().join("events.jsonl");
        let status = boardcast()
            .arg("replay")
            .arg(&capture)
            .arg("--pgn")
            .arg(&pgn)
            .arg("--events")
            .arg(&events)
            .status()
            .unwrap();
        assert!(status.success());
        let pgn = std::fs::read_to_string(&pgn).unwrap();
        assert!(pgn.contains("[Variant \"Chess960\"]"));
        assert_eq!(python_chess_mainlines(&pgn), vec![game.sans.clone()]);
        let events = std::fs::read_to_string(&events).unwrap();
        let moves: Vec<serde_json::Value> = events
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter(|v| v["type"] == "move")
            .collect();
        assert_eq!(moves.len(), game.sans.len());
        for (ply, (m, san)) in moves.iter().zip(&game.sans).enumerate() {
            assert_eq!(m["ply"], ply as u64 + 1);
            assert_eq!(m["san"], san.as_str());
            assert_eq!(m["side"], if ply % 2 == 0 { "white" } else { "black" });
            assert!(m["t_ms"].as_u64().is_some() && m["fen"].as_str().is_some());
        }
    }
}

#[test]
fn a_malformed_line_is_a_one_line_error_naming_file_and_line() {
    let (_, text) = clean_capture();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.insert(12, "1234 < 8e 0g");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.capture");
    std::fs::write(&path, lines.join("\n")).unwrap();
    let output = boardcast().arg("replay").arg(&path).output().unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert!(
        stderr.contains("bad.capture") && stderr.contains("line 13"),
        "{stderr}"
    );
    // A missing file is a one-line error too.
    let output = boardcast()
        .arg("replay")
        .arg(dir.path().join("nope"))
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert_eq!(String::from_utf8(output.stderr).unwrap().lines().count(), 1);
}

#[test]
fn the_committed_sample_capture_replays_to_its_game() {
    if !crate::util::require(&[crate::util::Tool::Python("chess")]) {
        return;
    }
    let capture = std::path::Path::new(crate::ROOT).join("tests/captures/sample.capture");
    let output = boardcast().arg("replay").arg(&capture).output().unwrap();
    assert!(output.status.success());
    let pgn = String::from_utf8(output.stdout).unwrap();
    let read = python_chess_mainlines(&pgn);
    assert_eq!(read, vec![load("master-games.pgn")[1].sans.clone()]);
}
