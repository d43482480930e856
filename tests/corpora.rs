//! What the draughts and xiangqi tests of both binaries share (the pure
//! binary's `draughts_xiangqi`, the system binary's `draughts_xiangqi_binary`): the
//! bundled corpora, a simulated session replayed, its move ids and errors.

use std::path::{Path, PathBuf};

use boardcast::event::EventKind;
use boardcast::replay::{Played, replay_game_text};
use boardcast::track::Config;
use boardcast_rules::{draughts, xiangqi};
use boardcast_sim::open::{OtherGameSession, capture_text, read_xiangqi_games};

pub fn data(name: &str) -> PathBuf {
    PathBuf::from(crate::ROOT)
        .join("rules/tests/data")
        .join(name)
}

pub fn draughts_games() -> Vec<draughts::PdnGame> {
    let text = std::fs::read_to_string(data("english-draughts.pdn")).unwrap();
    draughts::read_pdn(&text).unwrap()
}

pub fn xiangqi_games() -> Vec<Vec<xiangqi::Move>> {
    let text = std::fs::read_to_string(data("xiangqi-random.pgn")).unwrap();
    read_xiangqi_games(&text).unwrap()
}

pub fn replay(session: &OtherGameSession, game: Option<&str>, split: bool) -> Played {
    let mut meta = vec![("board".to_string(), "7".to_string())];
    if let Some(g) = game {
        meta.push(("game".into(), g.into()));
    }
    let text = capture_text(session, &meta, split);
    replay_game_text(&text, Config::default(), Path::new("sim.capture")).unwrap()
}

pub fn ids(r: &Played) -> Vec<String> {
    r.events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Move { id, .. } => Some(id.clone()),
            _ => None,
        })
        .collect()
}

pub fn errors(r: &Played) -> Vec<String> {
    r.events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Alert(a) if a.kind.is_error() && !a.cleared => Some(a.message.clone()),
            _ => None,
        })
        .collect()
}
