//! The bundled real games (rules/tests/data/README.md) checked by
//! independent readers: every game must replay legally move by move.
//!
//! - pydraughts (English variant) reads `english-draughts-acf.pdn` with its
//!   own PDN reader and plays every move (`draughts_pydraughts.py`, which
//!   stops at the first move it cannot play); the paths it played, and the
//!   legal-move lists of every 4th game, must be ours.
//! - Fairy-Stockfish (pyffish, `xiangqi`) replays the moves our reader
//!   found in `xiangqi-wxf-hu.pgn` and `xiangqi-wxf-liu.pgn`, taking only
//!   moves it finds legal, and names each in WXF: every token of the
//!   files must be its name for the move (`xiangqi_wxf_pyffish.py`). A
//!   decided result must end with no move for the loser.
//!
//! A missing Python module skips the test (fails under `CI=true`).

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use boardcast_rules::draughts::{self, Outcome};
use boardcast_rules::xiangqi::pgn::{self, GameResult};

use crate::corpora::data;
use crate::util::{Tool, python, require};

fn oracle(name: &str) -> PathBuf {
    PathBuf::from(crate::ROOT)
        .join("rules/tests/oracle")
        .join(name)
}

/// pydraughts plays every move of every bundled real draughts game.
#[test]
fn pydraughts_plays_every_real_draughts_game() {
    if !require(&[Tool::Python("draughts")]) {
        return;
    }
    let path = data("english-draughts-acf.pdn");
    let games = draughts::read_pdn(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(games.len(), 300);
    let out = Command::new(python())
        .arg(oracle("draughts_pydraughts.py"))
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "pydraughts could not play a bundled real game: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let theirs: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let theirs = theirs.as_array().unwrap();
    assert_eq!(theirs.len(), games.len());
    let (mut plies, mut lists) = (0, 0);
    for (gi, (ours, t)) in games.iter().zip(theirs).enumerate() {
        let at = format!(
            "game {} ({})",
            gi + 1,
            ours.tag("Source").unwrap_or("no Source tag")
        );
        assert!(
            ours.tag("Source")
                .is_some_and(|s| s.starts_with("EricCJoyce/Datasets Checkers/ACF.txt line ")),
            "{at}"
        );
        assert_ne!(
            ours.outcome,
            Outcome::Unknown,
            "{at}: ACF games have results"
        );
        assert_eq!(t["result"].as_str(), Some(ours.outcome.pdn()), "{at}");
        let tp = t["plies"].as_array().unwrap();
        assert_eq!(tp.len(), ours.moves.len(), "{at}: plies");
        let mut pos = ours.start;
        for (pi, (m, ply)) in ours.moves.iter().zip(tp).enumerate() {
            let path: Vec<u64> = m.path().iter().map(|s| u64::from(s.number())).collect();
            let played: Vec<u64> = ply["played"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap())
                .collect();
            assert_eq!(played, path, "{at} ply {}", pi + 1);
            if let Some(legal) = ply["legal"].as_array() {
                let mut theirs: Vec<Vec<u64>> = legal
                    .iter()
                    .map(|l| {
                        l.as_array()
                            .unwrap()
                            .iter()
                            .map(|v| v.as_u64().unwrap())
                            .collect()
                    })
                    .collect();
                theirs.sort();
                let mut mine: Vec<Vec<u64>> = pos
                    .legal_moves()
                    .iter()
                    .map(|m| m.path().iter().map(|s| u64::from(s.number())).collect())
                    .collect();
                mine.sort();
                assert_eq!(mine, theirs, "{at} ply {}: legal moves", pi + 1);
                lists += 1;
            }
            pos.play(m);
            plies += 1;
        }
    }
    eprintln!(
        "pydraughts played {} real draughts games, {plies} plies, {lists} legal-move lists agreed",
        games.len()
    );
}

/// Fairy-Stockfish finds every move of every bundled real xiangqi game
/// legal, and names it as the file does.
#[test]
fn pyffish_plays_every_real_xiangqi_game() {
    if !require(&[Tool::Python("pyffish")]) {
        return;
    }
    let files = [data("xiangqi-wxf-hu.pgn"), data("xiangqi-wxf-liu.pgn")];
    let records: Vec<Vec<pgn::Record>> = files
        .iter()
        .map(|f| pgn::read_all(&std::fs::read_to_string(f).unwrap()).unwrap())
        .collect();
    assert_eq!(records.iter().map(Vec::len).sum::<usize>(), 300);
    let moves: Vec<Vec<Vec<String>>> = records
        .iter()
        .map(|rs| {
            rs.iter()
                .map(|r| r.moves.iter().map(ToString::to_string).collect())
                .collect()
        })
        .collect();
    let mut child = Command::new(python())
        .arg(oracle("xiangqi_wxf_pyffish.py"))
        .args(&files)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(serde_json::to_string(&moves).unwrap().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "Fairy-Stockfish could not play a bundled real game: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let theirs: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let fs_games = theirs["games"].as_array().unwrap();
    let ours: Vec<&pgn::Record> = records.iter().flatten().collect();
    assert_eq!(fs_games.len(), ours.len());
    for (gi, (r, fs)) in ours.iter().zip(fs_games).enumerate() {
        let tag = |k: &str| r.tags.iter().find(|(t, _)| t == k).map(|(_, v)| v.as_str());
        let at = format!("game {} ({})", gi + 1, tag("Source").unwrap_or("?"));
        assert!(
            tag("Source").is_some_and(|s| s.starts_with("maksimKorzh/wukong-xiangqi xqdb/xqdb/")),
            "{at}"
        );
        for k in ["Event", "Red", "Black"] {
            assert!(tag(k).is_some_and(|v| v != "?"), "{at}: {k}");
        }
        assert_eq!(fs["result"].as_str(), Some(r.result.token()), "{at}");
        assert_eq!(fs["result_tag"].as_str(), Some(r.result.token()), "{at}");
        let mut end = r.start.clone();
        for m in &r.moves {
            end.play(*m).unwrap();
        }
        assert_eq!(
            fs["end"].as_str().map(|f| f.split(' ').next().unwrap()),
            Some(end.placement().as_str()),
            "{at}: final position"
        );
        // The source gives no result: a game is decided only where the side
        // to move has no legal move left, and then it lost.
        let left = fs["moves_left"].as_u64().unwrap();
        match r.result {
            GameResult::Win(winner) => {
                assert_eq!(left, 0, "{at}: a decided game ends with no move");
                assert_ne!(winner, end.turn(), "{at}: the side to move lost");
            }
            GameResult::Unfinished => assert!(left > 0, "{at}: no move left, yet `*`"),
            GameResult::Draw => panic!("{at}: the source gives no draws"),
        }
    }
    eprintln!(
        "Fairy-Stockfish played {} real xiangqi games, {} plies ({} tandem pieces named by file)",
        ours.len(),
        theirs["plies"],
        theirs["tandem_as_file"]
    );
}
