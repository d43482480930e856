//! Checking a reconstruction against what the simulator really played:
//! the measure behind the integration tests and the benchmarks.

use std::collections::HashMap;
use std::path::Path;

use super::{Profile, Session, SourceGame, Truth, dgt, simulate};
use boardcast::event::{EventKind, Millis};
use boardcast::replay::{Replay, replay_reader};
use boardcast::track::Config;

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
    /// Final moves shown that were not played: retract events, and the
    /// plies takeback events withdrew beyond those the players took back
    /// (a piece knocked back onto the square it came from reads as a
    /// takeback).
    pub retracts: usize,
    /// For each published move: capture time from the completing reading
    /// to publication (final moves: `move` events). A move whose piece was
    /// knocked off its square or lifted, and set back, is completed again
    /// by the reading that set it back ([`Truth::Shown`]): while the board
    /// does not show a move, no reader can know it is final.
    pub delays: Vec<Millis>,
    /// The same delays counted from the move's first completion only.
    pub first_delays: Vec<Millis>,
    /// For each ply: capture time from the completing reading to its first
    /// `provisional` event after it (the fast view screens may show).
    pub provisional_delays: Vec<Millis>,
    /// Provisional moves that changed: a ply shown provisionally as a move
    /// other than the one its final `move` event then gave (a piece set
    /// down on a legal square on its way), or withdrawn (the board went
    /// back). A screen showing the fast view shows such a move, then
    /// another; counted once per time the ply became final or went back.
    pub provisional_changed: usize,
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
    let mut c = GameCheck {
        exact: published == game.sans,
        plies: game.sans.len(),
        plies_right,
        moves_published: 0,
        retracts: 0,
        delays: Vec::new(),
        first_delays: Vec::new(),
        provisional_delays: Vec::new(),
        provisional_changed: 0,
        readings: replay.stats.square_readings,
        error_alerts: 0,
        published,
    };
    // When each ply was last published: a ply published again after a
    // takeback or a correction of a knock is not a delay of the real move
    // (it was shown on time, then withdrawn: that counts as a wrong move).
    let mut shown: HashMap<u32, Millis> = HashMap::new();
    let mut shown_provisional: HashMap<u32, Millis> = HashMap::new();
    // Plies withdrawn by takeback events.
    let (mut withdrawn, mut last_ply) = (0, 0u32);
    for (published_at, e) in &replay.events {
        match &e.kind {
            EventKind::Provisional {
                ply,
                withdrawn: false,
                ..
            } => {
                if let Some(at) = last_truth(session, *ply, *published_at, false)
                    && shown_provisional.get(ply).is_none_or(|&before| before < at)
                {
                    c.provisional_delays.push(published_at - at);
                }
                shown_provisional.insert(*ply, *published_at);
            }
            EventKind::Move { ply, .. } => {
                c.moves_published += 1;
                last_ply = *ply;
                if let Some(at) = last_truth(session, *ply, *published_at, false)
                    && shown.get(ply).is_none_or(|&before| before < at)
                {
                    let again = last_truth(session, *ply, *published_at, true);
                    c.first_delays.push(published_at - at);
                    c.delays
                        .push(published_at - again.map_or(at, |again| again.max(at)));
                }
                shown.insert(*ply, *published_at);
            }
            EventKind::Retract { .. } => c.retracts += 1,
            EventKind::Takeback { to_ply, .. } => {
                withdrawn += last_ply.saturating_sub(*to_ply) as usize;
                last_ply = *to_ply;
            }
            EventKind::Alert(a) if a.kind.is_error() && !a.cleared => c.error_alerts += 1,
            _ => {}
        }
    }
    c.retracts += withdrawn.saturating_sub(taken_back(session));
    c.provisional_changed = provisional_changes(replay);
    c
}

/// See [`GameCheck::provisional_changed`].
fn provisional_changes(replay: &Replay) -> usize {
    // The provisional moves shown for each ply since it was last final.
    let mut pending: HashMap<u32, Vec<&str>> = HashMap::new();
    let mut changed = 0;
    for (_, e) in &replay.events {
        match &e.kind {
            EventKind::Provisional {
                ply,
                withdrawn: false,
                id,
                ..
            } => pending.entry(*ply).or_default().push(id),
            EventKind::Provisional {
                ply,
                withdrawn: true,
                ..
            } => changed += usize::from(pending.remove(ply).is_some_and(|s| !s.is_empty())),
            EventKind::Move { ply, id, .. } => {
                let other = |shown: Vec<&str>| shown.iter().any(|s| s != id);
                changed += usize::from(pending.remove(ply).is_some_and(other));
            }
            _ => {}
        }
    }
    changed
}

/// The last time at or before `by` that ply `ply` was completed
/// ([`Truth::Ply`]), or, with `again`, shown again ([`Truth::Shown`]).
fn last_truth(session: &Session, ply: u32, by: Millis, again: bool) -> Option<Millis> {
    session
        .truth
        .iter()
        .filter_map(|t| match *t {
            Truth::Ply { ply: p, at } if !again && p == ply as usize && at <= by => Some(at),
            Truth::Shown { ply: p, at } if again && p == ply as usize && at <= by => Some(at),
            _ => None,
        })
        .max()
}

/// Plies the players took back in a session.
fn taken_back(session: &Session) -> usize {
    let (mut plies, mut now) = (0, 0);
    for t in &session.truth {
        match *t {
            Truth::Ply { ply, .. } => now = ply,
            Truth::Takeback { to_ply, .. } => {
                plies += now.saturating_sub(to_ply);
                now = to_ply;
            }
            Truth::Shown { .. } => {}
        }
    }
    plies
}
