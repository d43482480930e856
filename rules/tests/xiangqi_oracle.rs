//! Independent readers of the xiangqi PGN this crate writes: every record
//! must parse, and every move must be the one we meant
//! (`tests/oracle/xiangqi_pyffish.py`).
//!
//! - cchess reads each game written with ICCS movetext
//!   ([`pgn::write_iccs`], `[Format "ICCS"]`) with its own PGN reader: its
//!   moves and final position must be ours. cchess reads Chinese or ICCS
//!   movetext only, and no PyPI package reads WXF movetext.
//! - So the WXF record is checked token by token against Fairy-Stockfish
//!   (pyffish, `NOTATION_XIANGQI_WXF`): the script reads our WXF text
//!   itself (tags, move numbers, result) and each token must be the WXF
//!   Fairy-Stockfish writes for the move cchess read. Fairy-Stockfish names
//!   one of two pieces on a file by its file, not `+`/`-`, when the other
//!   could not make the same step on the board; such tokens are checked for
//!   the right front/rear piece and counted.
//! - Fairy-Stockfish's legal-move lists and positions for every 20th game,
//!   and the end of every game (mate or stalemate: no move left) agree.
//!
//! The games: the bundled corpora (engine self-play and random) and random
//! games from hand-picked positions (tandem pieces, soldiers three on a
//! file, Black to move). This test FAILS when Python, pyffish or cchess is
//! missing: `pip install pyffish==0.0.90 cchess==1.25.5`. About 1-2 min.

use std::path::PathBuf;
use std::process::Command;

use boardcast_rules::xiangqi::notation::{iccs, wxf};
use boardcast_rules::xiangqi::pgn::{self, GameResult, Record};
use boardcast_rules::xiangqi::{Outcome, Position};

const SELFPLAY: &str = include_str!("data/xiangqi-selfplay.pgn");
const RANDOM: &str = include_str!("data/xiangqi-random.pgn");

/// Random games from positions that exercise the notation's corner cases.
fn fen_games() -> Vec<Record> {
    let starts = [
        // Three red soldiers on file c and two on e; black the same.
        "3akab2/9/2p1p4/2p1p4/2p6/2P6/2P1P4/2P1P4/9/4KA3 w - - 0 1",
        // Tandem chariots, horses and cannons on one file each side.
        "r2akab2/r8/1c2n4/1c2n4/9/9/4N2C1/4N2C1/R8/R2AKAB2 w - - 0 1",
        // Black to move, soldiers across the river, advisors and elephants.
        "2bak4/4a4/4b4/9/2P1P1P2/2p1p1p2/9/4B4/4A4/2BAK4 b - - 0 1",
        // A middle game.
        "r1bakab1r/9/1cn4c1/p1p1p1p1p/9/9/P1P1P1P1P/1CN4C1/9/R1BAKAB1R w - - 0 1",
    ];
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    let mut out = Vec::new();
    for (i, fen) in starts.iter().enumerate() {
        for round in 0..5 {
            let start = Position::from_fen(fen).unwrap();
            let mut p = start.clone();
            let mut moves = Vec::new();
            while moves.len() < 80 {
                let legal = p.legal_moves();
                if legal.is_empty() {
                    break;
                }
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let m = legal[(state % legal.len() as u64) as usize];
                p.play(m).unwrap();
                moves.push(m);
            }
            let result = match p.outcome() {
                Outcome::Ongoing => GameResult::Unfinished,
                Outcome::Checkmate { winner } | Outcome::Stalemate { winner } => {
                    GameResult::Win(winner)
                }
            };
            out.push(Record {
                tags: vec![("Round".into(), format!("{}.{}", i + 1, round + 1))],
                start,
                moves,
                result,
            });
        }
    }
    out
}

#[test]
fn pyffish_and_cchess_read_every_record() {
    let mut games = pgn::read_all(SELFPLAY).expect("self-play corpus");
    games.extend(pgn::read_all(RANDOM).expect("random corpus"));
    games.extend(fen_games());
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let wxf_path = dir.join("xiangqi-oracle-wxf.pgn");
    let iccs_path = dir.join("xiangqi-oracle-iccs.pgn");
    let wxf_text: String = games.iter().map(|g| pgn::write(g).unwrap()).collect();
    let iccs_text: String = games.iter().map(|g| pgn::write_iccs(g).unwrap()).collect();
    std::fs::write(&wxf_path, &wxf_text).unwrap();
    std::fs::write(&iccs_path, &iccs_text).unwrap();
    // Our own reader reads both forms back.
    for text in [&wxf_text, &iccs_text] {
        let back = pgn::read_all(text).unwrap();
        assert_eq!(back.len(), games.len());
        for (b, g) in back.iter().zip(&games) {
            assert!(b.start == g.start && b.moves == g.moves && b.result == g.result);
        }
    }

    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/xiangqi_pyffish.py");
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let output = Command::new(&python)
        .arg(&script)
        .arg(&wxf_path)
        .arg(&iccs_path)
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run {python} (pip install pyffish==0.0.90 cchess==1.25.5): {e}")
        });
    assert!(
        output.status.success(),
        "the oracle failed (pip install pyffish==0.0.90 cchess==1.25.5): {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let theirs: serde_json::Value = serde_json::from_slice(&output.stdout).expect("oracle JSON");
    let fs_games = theirs["games"].as_array().expect("games");
    assert_eq!(fs_games.len(), games.len());
    let (mut plies, mut lists, mut ends) = (0usize, 0usize, 0usize);
    for (gi, (ours, fs)) in games.iter().zip(fs_games).enumerate() {
        let start = Position::from_fen(fs["start"].as_str().unwrap()).unwrap();
        assert_eq!(
            start.placement(),
            ours.start.placement(),
            "game {gi}: start"
        );
        assert_eq!(start.turn(), ours.start.turn(), "game {gi}: side to move");
        assert_eq!(
            fs["result"].as_str(),
            Some(ours.result.token()),
            "game {gi}"
        );
        assert_eq!(
            fs["result_tag"].as_str(),
            Some(ours.result.token()),
            "game {gi}"
        );
        // cchess read the ICCS record: our moves, in order.
        let cc = &fs["cchess"];
        let cc_moves: Vec<&str> = cc["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        let ours_iccs: Vec<String> = ours.moves.iter().map(|m| iccs(*m)).collect();
        assert_eq!(cc_moves, ours_iccs, "game {gi}: cchess moves");
        let fp = fs["plies"].as_array().unwrap();
        assert_eq!(fp.len(), ours.moves.len(), "game {gi}: plies");
        let mut pos = ours.start.clone();
        for (pi, (m, ply)) in ours.moves.iter().zip(fp).enumerate() {
            let at = format!("game {gi} ply {} ({})", pi + 1, ply["text"]);
            // The WXF token of the record is Fairy-Stockfish's for the move
            // (checked in the script) and ours.
            assert_eq!(ply["text"].as_str(), Some(wxf(&pos, *m).as_str()), "{at}");
            if let Some(legal) = ply["legal"].as_array() {
                let mut theirs: Vec<&str> = legal.iter().map(|v| v.as_str().unwrap()).collect();
                theirs.sort_unstable();
                let mut mine: Vec<String> = pos.legal_moves().iter().map(|m| iccs(*m)).collect();
                mine.sort();
                assert_eq!(mine, theirs, "{at}: legal moves in {}", pos.fen());
                lists += 1;
            }
            pos.play(*m).unwrap();
            if let Some(fen) = ply["fen"].as_str() {
                let after = Position::from_fen(fen).unwrap();
                assert_eq!(after.placement(), pos.placement(), "{at}");
                assert_eq!(after.turn(), pos.turn(), "{at}");
            }
            plies += 1;
        }
        for (who, fen) in [("Fairy-Stockfish", &fs["end"]), ("cchess", &cc["fen"])] {
            let end = Position::from_fen(fen.as_str().unwrap()).unwrap();
            assert_eq!(end.placement(), pos.placement(), "game {gi}: {who}'s end");
            assert_eq!(end.turn(), pos.turn(), "game {gi}: {who}'s side to move");
        }
        // A decided game ends with no move for the loser (Art. 16).
        let left = fs["moves_left"].as_u64().unwrap();
        match pos.outcome() {
            Outcome::Ongoing => assert!(left > 0, "game {gi}"),
            Outcome::Checkmate { .. } => {
                assert_eq!(
                    (left, fs["in_check"].as_bool()),
                    (0, Some(true)),
                    "game {gi}"
                );
                ends += 1;
            }
            Outcome::Stalemate { .. } => {
                assert_eq!(
                    (left, fs["in_check"].as_bool()),
                    (0, Some(false)),
                    "game {gi}"
                );
                ends += 1;
            }
        }
    }
    let tandem = theirs["tandem_as_file"].as_u64().unwrap();
    eprintln!(
        "pyffish and cchess agreed on {} games, {plies} plies ({tandem} tandem pieces Fairy-Stockfish names by file), {lists} legal-move lists, {ends} decided ends",
        games.len()
    );
    assert!(
        plies > 20_000 && lists > 900 && ends > 150,
        "{plies} {lists} {ends}"
    );
}
