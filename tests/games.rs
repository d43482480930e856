//! Helpers shared by the game-replay tests: the bundled game files, an
//! independent PGN reader (python-chess), the boardcast binary.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use boardcast::sim::{self, SourceGame};

/// The repository's test data folder.
pub fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// Every game of a bundled PGN file.
pub fn load(name: &str) -> Vec<SourceGame> {
    let file = std::fs::File::open(data(name)).expect("bundled game file");
    sim::read_games(std::io::BufReader::new(file)).expect("bundled games parse")
}

/// The 2,000 master games and the 150 Chess960 games.
pub fn all_games() -> Vec<SourceGame> {
    let mut games = load("master-games.pgn");
    games.extend(load("chess960-selfplay.pgn"));
    games
}

/// The boardcast binary built for these tests.
pub fn boardcast() -> Command {
    Command::new(env!("CARGO_BIN_EXE_boardcast"))
}

/// Parses PGN text with python-chess, an independent reader, and returns
/// each game's mainline in SAN as python-chess writes it. Panics with python-chess's own words if it
/// reports any error in any game.
pub fn python_chess_mainlines(pgn: &str) -> Vec<Vec<String>> {
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
        .output()
        .expect("python3 runs (CI installs python-chess)");
    assert!(
        output.status.success(),
        "python-chess rejected the PGN: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("python prints JSON")
}

/// The messages of the error alerts a replay raised and did not withdraw.
pub fn error_alerts(replay: &boardcast::replay::Replay) -> Vec<String> {
    replay
        .events
        .iter()
        .filter_map(|(_, e)| match &e.kind {
            boardcast::event::EventKind::Alert(a) if a.kind.is_error() && !a.cleared => {
                Some(a.message.clone())
            }
            _ => None,
        })
        .collect()
}
