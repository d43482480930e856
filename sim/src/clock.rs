//! A simulated DGT clock beside the simulated board: it starts White's
//! time when the game begins (Law 6.6), is pressed by each player shortly
//! after their move (Law 6.2a), adds increments and period times, reports
//! its faces once a second and at every press, and shows a flag when a
//! time runs out.

use rand::Rng;
use rand::SeedableRng;
use rand::rngs::SmallRng;

use super::open::{OtherGame, OtherGameSession};
use super::{Session, Truth};
use boardcast::clock::{ClockReading, Face, TimeControl};
use boardcast::event::{Millis, Side};
use boardcast_protocols::open;

/// What the board says about its clock at one moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    /// The clock's faces.
    Times(ClockReading),
    /// No clock is connected.
    NoClock,
}

/// How the simulated clock is set up and used.
#[derive(Clone, Debug)]
pub struct ClockSetup {
    /// The time control the clock is set to.
    pub tc: TimeControl,
    /// Which face is White's (independent of the board's orientation).
    pub white_face: Face,
    /// Milliseconds from setting the piece down to pressing, lowest and
    /// highest.
    pub press_ms: (Millis, Millis),
    /// Whether the clock adds the next period's time when a player
    /// completes a period's moves (a misconfigured clock does not).
    pub adds_periods: bool,
}

impl ClockSetup {
    /// A clock set to `tc`, White on the left, pressed 150-600 ms after
    /// each move.
    pub fn new(tc: TimeControl) -> ClockSetup {
        ClockSetup {
            tc,
            white_face: Face::Left,
            press_ms: (150, 600),
            adds_periods: true,
        }
    }
}

/// What the clock did, for checking.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClockTruth {
    /// For each ply: when it was pressed, and the mover's seconds after the
    /// press (as the clock then shows them).
    pub presses: Vec<(Millis, u32)>,
    /// The side whose flag fell, and when.
    pub flag: Option<(Side, Millis)>,
}

/// Adds a clock to a session without takebacks; returns what it did.
/// Plies after a flag are still played on the board but never pressed.
pub fn add_clock(session: &mut Session, setup: &ClockSetup, first: Side, seed: u64) -> ClockTruth {
    let (signals, truth) = run_clock(&ply_times(session), setup, first, seed);
    session.clock = signals;
    truth
}

/// Adds a clock to a draughts or xiangqi session on the open protocol: its
/// `clock` lines go out among the board's lines, once a second and at
/// every press. The clock's seats are the first player's (`Side::White`
/// here, and `setup.white_face` is its face) and the second's (`Side::Black`):
/// the first player's clock starts (xiangqi Art. 11: Black presses to begin).
/// Returns what the clock did, in seats.
pub fn add_open_clock(
    session: &mut OtherGameSession,
    game: OtherGame,
    setup: &ClockSetup,
    seed: u64,
) -> ClockTruth {
    let (signals, truth) = run_clock(&session.plies, setup, Side::White, seed);
    let line = |signal: Signal| {
        let line = match signal {
            Signal::Times(r) => open::Line::Clock(r),
            Signal::NoClock => open::Line::NoClock,
        };
        line.encode(game.protocol()).trim_end().to_owned()
    };
    // After the board's own lines of the same millisecond (stable sort).
    session
        .lines
        .extend(signals.into_iter().map(|(t, s)| (t, line(s))));
    session.lines.sort_by_key(|(t, _)| *t);
    truth
}

/// The clock's signals and what it did, for plies completed at `plies`.
fn run_clock(
    plies: &[Millis],
    setup: &ClockSetup,
    first: Side,
    seed: u64,
) -> (Vec<(Millis, Signal)>, ClockTruth) {
    let mut rng = SmallRng::seed_from_u64(seed ^ 0xc10c);
    let initial = setup.tc.initial_seconds() * 1000;
    // Milliseconds left per side (White, Black), the running side, moves made.
    let mut left = [initial as i64; 2];
    let mut moves = [0u32; 2];
    let mut running = first;
    let start = 1_000;
    let mut now = start;
    let mut truth = ClockTruth::default();
    let mut signals = Vec::new();
    let reading = |left: &[i64; 2], running: Option<Side>, flag: Option<Side>| {
        clock_reading(setup, left, running, flag)
    };
    signals.push((start, Signal::Times(reading(&left, Some(running), None))));
    let mut ply_iter = plies.iter().peekable();
    let mut next_press = ply_iter
        .next()
        .map(|at| at + rng.gen_range(setup.press_ms.0..=setup.press_ms.1));
    loop {
        let tick = now + 1_000;
        let i = running as usize;
        let flag_at = now + left[i].max(0) as u64;
        let event_at = next_press.unwrap_or(Millis::MAX).min(tick);
        if flag_at < event_at {
            left[i] = 0;
            truth.flag = Some((running, flag_at));
            signals.push((flag_at, Signal::Times(reading(&left, None, Some(running)))));
            for k in 1..=5 {
                signals.push((
                    flag_at + k * 1_000,
                    Signal::Times(reading(&left, None, Some(running))),
                ));
            }
            break;
        }
        left[i] -= (event_at - now) as i64;
        now = event_at;
        if Some(event_at) == next_press {
            moves[i] += 1;
            left[i] += i64::from(seconds_added(setup, moves[i])) * 1000;
            truth
                .presses
                .push((now, (left[i].max(0) as u64).div_ceil(1000) as u32));
            running = running.other();
            let latency = rng.gen_range(10..60);
            signals.push((
                now + latency,
                Signal::Times(reading(&left, Some(running), None)),
            ));
            next_press = ply_iter
                .next()
                .map(|at| (at + rng.gen_range(setup.press_ms.0..=setup.press_ms.1)).max(now + 1));
        } else {
            signals.push((now, Signal::Times(reading(&left, Some(running), None))));
        }
        if next_press.is_none() && now > plies.last().copied().unwrap_or(start) + 3_000 {
            break;
        }
    }
    signals.sort_by_key(|(t, _)| *t);
    (signals, truth)
}

/// When each ply of a session without takebacks was completed.
fn ply_times(session: &Session) -> Vec<Millis> {
    session
        .truth
        .iter()
        .filter_map(|t| match t {
            Truth::Ply { at, .. } => Some(*at),
            Truth::Shown { .. } => None,
            Truth::Takeback { .. } => {
                panic!("the clock simulation needs a session without takebacks")
            }
        })
        .collect()
}

/// The seconds a press adds to the presser's clock after its `moves`-th
/// move: the Fischer increment, and a new period's time when the clock
/// adds periods.
fn seconds_added(setup: &ClockSetup, moves: u32) -> u32 {
    let mut added = 0;
    if let boardcast::clock::Increment::Fischer(s) = setup.tc.increment {
        added += s;
    }
    if setup.adds_periods {
        added += setup
            .tc
            .added_after(moves)
            .saturating_sub(setup.tc.increment_seconds());
    }
    added
}

/// What the clock shows with `left` milliseconds per side (White, Black).
fn clock_reading(
    setup: &ClockSetup,
    left: &[i64; 2],
    running: Option<Side>,
    flag: Option<Side>,
) -> ClockReading {
    let face = |side: Side| {
        if side == Side::White {
            setup.white_face
        } else {
            setup.white_face.other()
        }
    };
    let secs = |s: Side| (left[s as usize].max(0) as u64).div_ceil(1000) as u32;
    let (l, r) = if setup.white_face == Face::Left {
        (secs(Side::White), secs(Side::Black))
    } else {
        (secs(Side::Black), secs(Side::White))
    };
    ClockReading {
        left: l,
        right: r,
        running: running.map(face),
        flag: flag.map(face),
        battery_low: false,
    }
}

/// A board with no clock connected: the board says so once a second.
pub fn no_clock(session: &mut Session) {
    let end = session.readings.last().map_or(0, |(t, _)| *t);
    session.clock = (1..=end / 1000)
        .map(|k| (k * 1000, Signal::NoClock))
        .collect();
}
