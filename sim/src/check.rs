//! Checking a reconstruction against what the simulator really played:
//! the measure behind the integration tests and the benchmarks.

use std::path::Path;

use super::{Profile, Session, SourceGame, Truth, dgt, simulate};
use boardcast::board::Config;
use boardcast::event::{EventKind, Millis};
use boardcast::replay::{Replay, replay_reader};

/// How one simulated game came through.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameCheck {
    /// The published mainline equals the source game.
    pub exact: bool,
    /// Plies of the source game.
    pub plies: usize,
    /// Leading plies of the published mainline that equal the source.
    pub plies_right: usize,
    /// Move events published.
    pub moves_published: usize,
    /// Retract events: moves shown that were not played.
    pub retracts: usize,
    /// For each published move: capture time from the completing reading
    /// to publication (final moves: `move` events).
    pub delays: Vec<Millis>,
    /// For each ply: capture time from the completing reading to its first
    /// `provisional` event after it (the fast view screens may show).
    pub provisional_delays: Vec<Millis>,
    /// Square readings decoded.
    pub readings: u64,
    /// Error alerts raised (none expected for a correctly played game).
    pub error_alerts: usize,
    /// The published SAN mainline.
    pub published: Vec<String>,
}

/// Simulates `game`, writes the capture text, replays it, and compares.
pub fn check_game(
    game: &SourceGame,
    profile: &mut dyn Profile,
    seed: u64,
    rotated: bool,
    config: Config,
) -> GameCheck {
    let session = simulate(game, profile, seed, rotated);
    let text = dgt::capture_text(&session, &[("board".into(), "sim".into())]);
    let replay = replay_reader(text.as_bytes(), config, Path::new("simulated"))
        .expect("simulated captures are well formed");
    compare(game, &session, &replay)
}

/// Compares a replay with the session that produced it.
pub fn compare(game: &SourceGame, session: &Session, replay: &Replay) -> GameCheck {
    let published: Vec<String> = replay
        .log
        .current()
        .map(|g| g.sans.clone())
        .unwrap_or_default();
    let plies_right = published
        .iter()
        .zip(&game.sans)
        .take_while(|(a, b)| a == b)
        .count();
    let mut delays = Vec::new();
    // When each ply was last published: a ply published again after a
    // takeback or a correction of a knock is not a delay of the real move
    // (it was shown on time, then withdrawn: that counts as a wrong move).
    let mut shown: std::collections::HashMap<u32, u64> = std::collections::HashMap::new();
    let mut retracts = 0;
    let mut moves_published = 0;
    let mut error_alerts = 0;
    let mut provisional_delays = Vec::new();
    let mut shown_provisional: std::collections::HashMap<u32, u64> =
        std::collections::HashMap::new();
    let done_by = |ply: u32, by: u64| {
        session
            .truth
            .iter()
            .filter_map(|t| match t {
                Truth::Ply { ply: p, at } if *p == ply as usize && *at <= by => Some(*at),
                _ => None,
            })
            .max()
    };
    for (published_at, e) in &replay.events {
        match &e.kind {
            EventKind::Provisional {
                ply,
                withdrawn: false,
                ..
            } => {
                if let Some(at) = done_by(*ply, *published_at)
                    && shown_provisional.get(ply).is_none_or(|&before| before < at)
                {
                    provisional_delays.push(published_at - at);
                }
                shown_provisional.insert(*ply, *published_at);
            }
            EventKind::Move { ply, .. } => {
                moves_published += 1;
                let done = session
                    .truth
                    .iter()
                    .filter_map(|t| match t {
                        Truth::Ply { ply: p, at } if *p == *ply as usize && at <= published_at => {
                            Some(*at)
                        }
                        _ => None,
                    })
                    .max();
                if let Some(at) = done
                    && shown.get(ply).is_none_or(|&before| before < at)
                {
                    delays.push(published_at - at);
                }
                shown.insert(*ply, *published_at);
            }
            EventKind::Retract { .. } => retracts += 1,
            EventKind::Alert(a) if a.kind.is_error() && !a.cleared => error_alerts += 1,
            _ => {}
        }
    }
    GameCheck {
        exact: published == game.sans,
        plies: game.sans.len(),
        plies_right,
        moves_published,
        retracts,
        delays,
        provisional_delays,
        readings: replay.stats.square_readings,
        error_alerts,
        published,
    }
}
