//! Issue "Foundation": captures of cleanly played games replay to the right
//! PGN, independent readers accept it, and corrupted captures are handled.

use boardcast::board::Config;
use boardcast::replay::replay_reader;
use boardcast::sim::{self, Clean};
use boardcast::sink::pgn::{Tags, render};

use crate::games::{all_games, boardcast, data, load, python_chess_mainlines};

#[test]
fn every_bundled_game_played_cleanly_replays_to_its_moves() {
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

/// A capture of the first master game, played cleanly.
fn clean_capture() -> (boardcast::sim::SourceGame, String) {
    let game = load("master-games.pgn").swap_remove(0);
    let session = sim::simulate(&game, &mut Clean, 7, false);
    (game, sim::dgt::capture_text(&session, &[]))
}

fn replay_sans(text: &str) -> Vec<String> {
    let replay = replay_reader(text.as_bytes(), Config::default(), "t".as_ref()).unwrap();
    replay
        .log
        .current()
        .map(|g| g.sans.clone())
        .unwrap_or_default()
}

#[test]
fn garbage_between_frames_does_not_change_the_game() {
    let (game, text) = clean_capture();
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let mut out = String::new();
    let mut garbage_lines = 0;
    for line in text.lines() {
        out.push_str(line);
        out.push('\n');
        if let Some((t, rest)) = line.split_once(" < ") {
            // After every board line, a line of random bytes at the same time.
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let n = 1 + (rng % 6) as usize;
            let bytes: Vec<String> = (0..n)
                .map(|k| {
                    format!(
                        "{:02x}",
                        ((rng >> (8 * k)) as u8 & 0x7f) | (0x80 * u8::from(k == 0))
                    )
                })
                .collect();
            let _ = rest;
            out.push_str(&format!("{t} < {}\n", bytes.join(" ")));
            garbage_lines += 1;
        }
    }
    assert!(garbage_lines > 100);
    let replay = replay_reader(out.as_bytes(), Config::default(), "g".as_ref()).unwrap();
    assert!(replay.stats.skipped_bytes > 0 || replay.stats.bad_frames > 0);
    assert_eq!(replay.log.current().unwrap().sans, game.sans);
}

#[test]
fn truncated_frames_do_not_panic_and_lose_only_what_they_carried() {
    let (game, text) = clean_capture();
    // Cut the last byte off every tenth field update from line 200 on: that
    // reading is lost and the next frame's header resynchronises the decoder.
    let mut out = String::new();
    let mut first_cut = None;
    for (i, line) in text.lines().enumerate() {
        if i >= 200 && i % 10 == 9 && line.contains(" < 8e ") {
            first_cut.get_or_insert(line.split(' ').next().unwrap().parse::<u64>().unwrap());
            out.push_str(&line[..line.len() - 3]);
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    let replay = replay_reader(out.as_bytes(), Config::default(), "t".as_ref()).unwrap();
    assert!(replay.stats.bad_frames + replay.stats.skipped_bytes > 0);
    // The game may stall where a reading was lost (until the board is read
    // whole again), but every move before the damage is there and nothing
    // published is wrong.
    let record = replay.log.current().unwrap();
    let before = record
        .times
        .iter()
        .filter(|t| **t < first_cut.unwrap())
        .count();
    assert!(before > 10);
    assert_eq!(record.sans[..], game.sans[..record.sans.len()]);
    // A capture cut in the middle of a frame replays what came before.
    let half = &text[..text.len() / 2];
    let half = &half[..half.rfind('\n').unwrap() + 1];
    let cut = format!("{half}{}", "9999999 < 8e 00\n");
    let sans = replay_sans(&cut);
    assert!(!sans.is_empty() && sans[..] == game.sans[..sans.len()]);
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
    let capture =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/captures/sample.capture");
    let output = boardcast().arg("replay").arg(&capture).output().unwrap();
    assert!(output.status.success());
    let pgn = String::from_utf8(output.stdout).unwrap();
    let read = python_chess_mainlines(&pgn);
    assert_eq!(read, vec![load("master-games.pgn")[1].sans.clone()]);
}
