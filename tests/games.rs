//! Helpers shared by the game-replay tests: the bundled game files and the
//! error alerts of a replay. Both test binaries use it (the system tests
//! through cli/tests/games.rs), each with its `ROOT`, the repository's root.

use std::path::{Path, PathBuf};

use boardcast_sim::{self as sim, SourceGame};

/// The repository's test data folder.
pub fn data(name: &str) -> PathBuf {
    Path::new(crate::ROOT).join("tests/data").join(name)
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
