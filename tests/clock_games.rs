//! What the clock tests of both binaries share (the pure binary's
//! `clocks`, the system binary's `clocks_readers`): a handling without
//! takebacks, a simulated game with a clock, its capture replayed.

use boardcast::event::Side;
use boardcast::replay::{Replay, replay_reader};
use boardcast::track::Config;
use boardcast_sim::clock::{ClockSetup, ClockTruth, add_clock};
use boardcast_sim::{self as sim, Human, Session, SourceGame};

pub fn steady() -> Human {
    Human {
        takeback: 0.0,
        ..Human::default()
    }
}

pub fn replay(session: &Session, tc: Option<&str>) -> Replay {
    let meta: Vec<(String, String)> = tc
        .map(|t| vec![("time_control".to_string(), t.to_string())])
        .unwrap_or_default();
    let text = sim::dgt::capture_text(session, &meta);
    replay_reader(text.as_bytes(), Config::default(), "clock".as_ref()).unwrap()
}

pub fn clocked(
    game: &SourceGame,
    profile: &mut Human,
    setup: &ClockSetup,
    seed: u64,
    rotated: bool,
) -> (Session, ClockTruth) {
    let mut session = sim::simulate(game, profile, seed, rotated);
    let truth = add_clock(&mut session, setup, Side::White, seed);
    (session, truth)
}
