//! pydraughts as an independent oracle for English draughts: it reads every
//! PDN this crate writes and must agree with every move.
//!
//! The corpus (re-written by our writer) plus games from non-start FENs
//! (kings, White to move, ambiguous captures written with full paths) go to
//! `tests/oracle/draughts_pydraughts.py`, which replays them with pydraughts'
//! English variant and reports, per ply, the path it played, the FEN after
//! it and (every 4th game) its legal-move list. Every value is compared with
//! ours. This test FAILS when Python or pydraughts is missing:
//! `pip install pydraughts==0.6.7`.

use std::path::PathBuf;
use std::process::Command;

use boardcast_rules::draughts::{Outcome, PdnGame, Position, read_pdn, write_pdn};

const CORPUS: &str = include_str!("data/english-draughts.pdn");

/// Random games from hand-picked starts, deterministic (xorshift).
fn fen_games() -> Vec<PdnGame> {
    let starts = [
        "B:W14,15,22,23:B10,K9",
        "W:W14,15,22,23,K30:B3,K9,10",
        "B:W10,11,18,19:BK14",
        "B:W26,27,K5:B22,K1",
        "W:WK32,K28,21,22:BK1,K4,9,10,11",
    ];
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    let mut out = Vec::new();
    for (i, fen) in starts.iter().enumerate() {
        for round in 0..4 {
            let mut g = PdnGame::new();
            g.set_tag("Round", &format!("{}.{}", i + 1, round + 1));
            g.start = Position::from_fen(fen).unwrap();
            let mut p = g.start;
            for _ in 0..60 {
                let moves = p.legal_moves();
                if moves.is_empty() {
                    break;
                }
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let m = moves[(state % moves.len() as u64) as usize].clone();
                p.play(&m);
                g.moves.push(m);
            }
            g.outcome = Outcome::Unknown;
            out.push(g);
        }
    }
    out
}

#[test]
fn pydraughts_agrees_with_every_move() {
    let mut games = read_pdn(CORPUS).expect("corpus");
    games.extend(fen_games());
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let pdn_path = dir.join("draughts-oracle.pdn");
    std::fs::write(&pdn_path, write_pdn(&games)).unwrap();
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/draughts_pydraughts.py");
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let output = Command::new(&python)
        .arg(&script)
        .arg(&pdn_path)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {python} (pip install pydraughts==0.6.7): {e}"));
    assert!(
        output.status.success(),
        "pydraughts failed (pip install pydraughts==0.6.7): {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let theirs: serde_json::Value = serde_json::from_slice(&output.stdout).expect("oracle JSON");
    let theirs = theirs.as_array().expect("array of games");
    assert_eq!(theirs.len(), games.len());
    let (mut plies, mut lists) = (0usize, 0usize);
    for (gi, (ours, t)) in games.iter().zip(theirs).enumerate() {
        let start = Position::from_fen(t["start"].as_str().unwrap()).unwrap();
        assert_eq!(start, ours.start, "game {gi}: start");
        assert_eq!(
            t["result"].as_str(),
            Some(ours.outcome.pdn()),
            "game {gi}: result"
        );
        let tp = t["plies"].as_array().unwrap();
        assert_eq!(tp.len(), ours.moves.len(), "game {gi}: plies");
        let mut pos = ours.start;
        for (pi, (m, ply)) in ours.moves.iter().zip(tp).enumerate() {
            let path: Vec<u64> = m.path().iter().map(|s| u64::from(s.number())).collect();
            let played: Vec<u64> = ply["played"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap())
                .collect();
            // pydraughts picks one path for a short form; ours writes the
            // full path whenever two exist, so the paths must be equal.
            assert_eq!(played, path, "game {gi} ply {}: {}", pi + 1, ply["text"]);
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
                let mut ours: Vec<Vec<u64>> = pos
                    .legal_moves()
                    .iter()
                    .map(|m| m.path().iter().map(|s| u64::from(s.number())).collect())
                    .collect();
                ours.sort();
                assert_eq!(
                    ours,
                    theirs,
                    "game {gi} ply {}: legal moves in {}",
                    pi + 1,
                    pos.fen()
                );
                lists += 1;
            }
            pos.play(m);
            let fen = Position::from_fen(ply["fen"].as_str().unwrap()).unwrap();
            assert_eq!(
                fen,
                pos,
                "game {gi} ply {}: position after {}",
                pi + 1,
                m.id()
            );
            plies += 1;
        }
    }
    eprintln!(
        "pydraughts agreed on {} games, {plies} plies, {lists} legal-move lists",
        games.len()
    );
    assert!(plies > 10_000 && lists > 1_000);
}
