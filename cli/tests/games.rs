//! The game helpers of the pure tests (tests/games.rs), and the two that
//! need the world: the boardcast binary and python-chess, an independent
//! PGN reader.

use std::io::Write;
use std::process::Command;

#[path = "../../tests/games.rs"]
#[allow(dead_code)]
mod shared;

#[allow(unused_imports)]
pub use shared::*;

/// The boardcast binary built for these tests.
pub fn boardcast() -> Command {
    Command::new(env!("CARGO_BIN_EXE_boardcast"))
}

/// Parses PGN text with python-chess, an independent reader, and returns
/// each game's mainline in SAN as python-chess writes it. Panics with python-chess's own words if it
/// reports any error in any game.
pub fn python_chess_mainlines(pgn: &str) -> Vec<Vec<String>> {
    serde_json::from_value(python_chess(pgn, "sans")).expect("mainlines")
}

/// Parses PGN text with python-chess (as [`python_chess_mainlines`]) and
/// returns each game's tags (a JSON object of tag to value).
pub fn python_chess_headers(pgn: &str) -> Vec<serde_json::Value> {
    serde_json::from_value(python_chess(pgn, "headers")).expect("headers")
}

/// Each game of `pgn` as python-chess reads it: its mainline (`sans`) or
/// its tags (`headers`).
fn python_chess(pgn: &str, what: &str) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.pgn");
    std::fs::write(&path, pgn).unwrap();
    let script = r#"
import sys, json, chess.pgn
out = []
with open(sys.argv[1], encoding="utf-8") as f:
    while True:
        game = chess.pgn.read_game(f)
        if game is None:
            break
        if game.errors:
            print("ERRORS", [str(e) for e in game.errors], file=sys.stderr)
            sys.exit(3)
        if sys.argv[2] == "headers":
            out.append(dict(game.headers))
            continue
        board = game.board()
        sans = []
        for move in game.mainline_moves():
            sans.append(board.san(move))
            board.push(move)
        out.append(sans)
print(json.dumps(out))
"#;
    let mut py = tempfile::NamedTempFile::new().unwrap();
    py.write_all(script.as_bytes()).unwrap();
    let output = Command::new("python3")
        .arg(py.path())
        .arg(&path)
        .arg(what)
        .output()
        .expect("python3 runs (CI installs python-chess)");
    assert!(
        output.status.success(),
        "python-chess rejected the PGN: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("python prints JSON")
}
