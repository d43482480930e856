//! Replay benchmarks over the real games in `tests/data/`.
//!
//! `cargo bench --bench replay` prints, for the clean and human handling
//! profiles: exact-game rate, ply accuracy, wrong moves shown (retracted)
//! per 1,000 moves, publication delay (mean, p99, max) in capture time,
//! and throughput in square readings and games per second of replay; then,
//! per knock rate (0.02, 0.05, 0.1, 0.2 knocks per move), exact games,
//! wrong moves shown, error alerts and kings-in-the-centre results
//! recognised.
//! `BENCH_ONLY=curve` prints the trade-off between publication delay and
//! wrong moves shown, the settle times scaled together and one by one
//! (`BENCH_SHOW=<scale>-<which>`, as the row is keyed, lists the moves that
//! row withdrew); issue 31's starting point.
//! `BENCH_SEEDS=3` sets the number of seeds of the human profile and of the
//! knock table (seed 1 of the knock table is the one quoted in the docs);
//! `BENCH_ONLY=knocks` prints only the knock table (`BENCH_ONLY=human`
//! only the human profile, `BENCH_ONLY=families` only the table of board
//! families: exact games, error alerts and readings per second per family), `BENCH_GAMES=2027,456`
//! plays only those games of it (with the seeds they have in the table);
//! `BENCH_LIMIT=N` plays only the first N games of each file;
//! `BENCH_ONLY=real` prints only the `real` profile (the habits of the
//! real DGT recordings, docs/boards.md) at stops on the way of at most
//! 0.5, 1 and 2 s, each without a clock and with one pressed 0.5-1.5 s
//! after the move (the full run prints them too, after the human profile
//! with a clock).
//! `BENCH_ONLY=provisional` prints, per handling profile and for
//! `provisional_ms` of 150, 250 and 400 ms, the provisional moves that
//! change (shown as one move, then final as another or withdrawn) per
//! 1,000 final moves against how soon the first provisional move is shown
//! (one seed; the full run prints it too).
//! `BENCH_ONLY=final` prints the final-time curve (wrong final moves and
//! final delays for `final_ms` from 1 to 3 s, real and knock profiles).
//! `BENCH_ONLY=clocks` prints the human and knock (0.1 a move) profiles
//! with a DGT clock. Every table counts wrong *final* moves (`move`
//! events later retracted) and gives the delay of the final `move` event
//! and of the first `provisional` one.
//! `BENCH_SHOW_LATE=ms` lists, in the knock and clock tables, the moves
//! final later than that (after the reading, or 10 s after the press) and
//! the takebacks read; with `BENCH_SHOW_GAME=N` (and `BENCH_SHOW_PLY=P` or
//! `BENCH_SHOW_AT=ms`) the readings and events around one of them.
//! `BENCH_DUMP=dir` writes every game that went wrong (not exact, a wrong
//! move shown, an error alert, a knock-bench result missed) to `dir`
//! (human-profile games under `rate0-...`; the families table's under
//! `dir/<family>/`, and `BENCH_GAMES` picks its games too).

#[path = "common.rs"]
mod common;

use std::fs::File;
use std::io::BufReader;
use std::path::Path;
use std::time::Instant;

use boardcast::replay::replay_reader;
use boardcast::track::Config;
use boardcast_sim::check::compare;
use boardcast_sim::{self as sim, Clean, Human, Profile, Real, SourceGame};
use common::{env_or, percentile};

fn load(name: &str) -> Vec<SourceGame> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    let games =
        sim::read_games(BufReader::new(File::open(&path).expect("game file"))).expect("games");
    match std::env::var("BENCH_LIMIT")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        Some(n) => games.into_iter().take(n).collect(),
        None => games,
    }
}

/// Every game played with `make`'s handling once per seed (every fifth
/// board turned round), with its capture text.
fn simulated<'g>(
    games: &'g [SourceGame],
    make: MakeProfile,
    seeds: &[u64],
) -> Vec<(&'g SourceGame, sim::Session, String)> {
    let mut captures = Vec::new();
    for &seed in seeds {
        for (i, g) in games.iter().enumerate() {
            let mut profile = make();
            let rotated = (i as u64 + seed).is_multiple_of(5);
            let session = sim::simulate(g, profile.as_mut(), seed * 100_003 + i as u64, rotated);
            let text = sim::dgt::capture_text(&session, &[]);
            captures.push((g, session, text));
        }
    }
    captures
}

fn run(label: &str, games: &[SourceGame], make: MakeProfile, seeds: &[u64]) {
    let captures = simulated(games, make, seeds);
    let config = Config::default();
    // Best of three timed passes: the machine may be busy with other work.
    let mut secs = f64::MAX;
    let mut replays = Vec::new();
    for _ in 0..3 {
        let started = Instant::now();
        replays = Vec::with_capacity(captures.len());
        for (_, _, text) in &captures {
            replays
                .push(replay_reader(text.as_bytes(), config, Path::new("bench")).expect("replay"));
        }
        secs = secs.min(started.elapsed().as_secs_f64());
    }
    let (mut exact, mut plies, mut right, mut moves, mut retracts, mut readings, mut errors) =
        (0usize, 0usize, 0usize, 0usize, 0usize, 0u64, 0usize);
    let mut delays = Vec::new();
    let mut provisional = Vec::new();
    let mut max_nodes = 0;
    let mut failures = Vec::new();
    for (idx, ((g, session, _), replay)) in captures.iter().zip(&replays).enumerate() {
        let c = compare(g, session, replay);
        if let Ok(dir) = std::env::var("BENCH_DUMP")
            && (!c.exact || c.retracts > 0 || c.error_alerts > 0)
        {
            let game = idx % games.len();
            let seed = seeds[idx / games.len()];
            dump(
                Path::new(&dir),
                0.0,
                game,
                seed,
                session,
                &captures[idx].2,
                replay,
            );
        }
        if std::env::var("BENCH_SHOW_WRONG").is_ok() && c.retracts > 0 {
            println!("game {}:", idx % games.len() + 1);
            show_wrong(g, replay);
        }
        exact += usize::from(c.exact);
        if !c.exact && failures.len() < 5 {
            failures.push(format!(
                "capture {idx} (game {}, seed {}) ply {} of {}: published {:?} expected {:?}",
                idx % games.len() + 1,
                seeds[idx / games.len()],
                c.plies_right,
                c.plies,
                c.published.get(c.plies_right),
                g.sans.get(c.plies_right)
            ));
        }
        plies += c.plies;
        right += c.plies_right;
        moves += c.moves_published;
        retracts += c.retracts;
        readings += c.readings;
        errors += c.error_alerts;
        delays.extend(c.delays);
        provisional.extend(c.provisional_delays);
        max_nodes = max_nodes.max(replay.recon.max_nodes);
    }
    delays.sort_unstable();
    provisional.sort_unstable();
    let mean = delays.iter().sum::<u64>() as f64 / delays.len().max(1) as f64;
    let n = captures.len();
    println!("== {label}: {n} games ({} seeds)", seeds.len());
    println!(
        "exact games        {exact}/{n} ({:.2}%)",
        100.0 * exact as f64 / n as f64
    );
    println!(
        "ply accuracy       {right}/{plies} ({:.3}%)",
        100.0 * right as f64 / plies.max(1) as f64
    );
    println!(
        "wrong final moves  {retracts} in {moves} final ({:.3} per 1000)",
        1000.0 * retracts as f64 / moves.max(1) as f64
    );
    println!("error alerts       {errors}");
    println!(
        "final delay        mean {mean:.0} ms, p50 {} ms, p99 {} ms, max {} ms",
        percentile(&delays, 0.5),
        percentile(&delays, 0.99),
        delays.last().copied().unwrap_or(0)
    );
    println!(
        "provisional delay  p50 {} ms, p99 {} ms",
        percentile(&provisional, 0.5),
        percentile(&provisional, 0.99),
    );
    println!("search             worst {max_nodes} positions for one reading");
    println!(
        "throughput         {:.0} square readings/s, {:.0} games/s ({readings} readings in {secs:.3} s, best of 3 passes, one core)",
        readings as f64 / secs,
        n as f64 / secs
    );
    for f in failures {
        println!("  not exact: {f}");
    }
}

/// One point of the delay curve: the human and knock (0.1 a move)
/// profiles replayed with the settle times `scale` times the defaults.
struct Point {
    p50: u64,
    p99: u64,
    moves: usize,
    wrong: usize,
    exact: usize,
    games: usize,
    errors: usize,
}

/// Game `i` handled by the human profile with 0.1 knocks a move (a third
/// of them of the piece that has just moved), as the curves play it.
fn knocked_session(g: &SourceGame, seed: u64, i: usize) -> sim::Session {
    let mut knocking = Human {
        knock: 0.1 * 2.0 / 3.0,
        knock_moved: 0.1 / 3.0,
        ..Human::default()
    };
    let seed = 5_000_000 + (seed - 1) * 1_000_000 + i as u64;
    sim::simulate(g, &mut knocking, seed, i.is_multiple_of(5))
}

/// A simulated game, its capture text and its session.
type Capture<'a> = (&'a SourceGame, String, sim::Session);

/// The final-time curve (`BENCH_ONLY=final`): wrong final moves and the
/// final delay without a clock for `final_ms` from 1 to 3 s, on the real
/// profile (stops of up to 2 s) and on the human profile with 0.1 knocks a
/// move, the games simulated once and replayed at each setting.
fn final_curve(games: &[SourceGame], seeds: &[u64]) {
    let limit: usize = env_or("BENCH_LIMIT", usize::MAX);
    let games: Vec<&SourceGame> = games.iter().take(limit).collect();
    let mut profiles: Vec<(&str, Vec<Capture>)> = vec![
        ("real, stops up to 2 s", Vec::new()),
        ("knocks 0.1", Vec::new()),
    ];
    for &seed in seeds {
        for (i, g) in games.iter().enumerate() {
            let rotated = (i as u64 + seed).is_multiple_of(5);
            let mut real = Real::with_dwell_tail(2_000);
            let session = sim::simulate(g, &mut real, seed * 100_003 + i as u64, rotated);
            profiles[0]
                .1
                .push((*g, sim::dgt::capture_text(&session, &[]), session));
            let session = knocked_session(g, seed, i);
            profiles[1]
                .1
                .push((*g, sim::dgt::capture_text(&session, &[]), session));
        }
    }
    println!(
        "== final time against wrong final moves: {} games per profile ({} seeds), no clock",
        games.len() * seeds.len(),
        seeds.len()
    );
    println!(
        "{:<22} {:>9} {:>22} {:>14} {:>8} {:>12} {:>12}",
        "profile", "final ms", "wrong final per 1000", "exact games", "errors", "p50 ms", "p99 ms"
    );
    // `BENCH_FINAL_MS=2400,2500`: other settings.
    let finals: Vec<u64> = env_or("BENCH_FINAL_MS", "1000,1500,2000,2500,3000".to_string())
        .split(',')
        .filter_map(|v| v.trim().parse().ok())
        .collect();
    for (name, captures) in &profiles {
        for &final_ms in &finals {
            let mut config = Config::default();
            config.settle.final_ms = final_ms;
            let (mut exact, mut moves, mut wrong, mut errors) = (0, 0, 0, 0);
            let mut delays = Vec::new();
            for (g, text, session) in captures {
                let replay = replay_reader(text.as_bytes(), config, Path::new("final")).unwrap();
                let c = compare(g, session, &replay);
                exact += usize::from(c.exact);
                moves += c.moves_published;
                wrong += c.retracts;
                errors += c.error_alerts;
                delays.extend(c.delays);
            }
            delays.sort_unstable();
            println!(
                "{name:<22} {final_ms:>9} {:>22.3} {:>14} {errors:>8} {:>12} {:>12}",
                1000.0 * wrong as f64 / moves.max(1) as f64,
                format!("{exact}/{}", captures.len()),
                percentile(&delays, 0.5),
                percentile(&delays, 0.99),
            );
        }
    }
}

/// The trade-off between publication delay and wrong moves shown, as a
/// curve: the settle times that decide when a move is final (for moves
/// that cannot be extended, for moves that may still travel, short of a
/// capture) scaled from 40% to 100% of the defaults, on the human
/// profile and on the human profile with 0.1 knocks a move
/// (`BENCH_ONLY=curve`; `BENCH_LIMIT=N` games of each file).
fn curve(games: &[SourceGame], seeds: &[u64]) {
    let limit: usize = env_or("BENCH_LIMIT", usize::MAX);
    let games: Vec<&SourceGame> = games.iter().take(limit).collect();
    let mut captures = Vec::new();
    for &seed in seeds {
        for (i, g) in games.iter().enumerate() {
            let mut human = Human::default();
            let rotated = (i as u64 + seed).is_multiple_of(5);
            let session = sim::simulate(g, &mut human, seed * 100_003 + i as u64, rotated);
            captures.push((*g, sim::dgt::capture_text(&session, &[]), session));
            let session = knocked_session(g, seed, i);
            captures.push((*g, sim::dgt::capture_text(&session, &[]), session));
        }
    }
    println!(
        "== delay against wrong moves shown: {} games, human and 0.1 knocks a move ({} seeds)",
        captures.len(),
        seeds.len()
    );
    println!(
        "{:>6} {:>22} {:>9} {:>9} {:>22} {:>14} {:>8}",
        "scale",
        "settle base/ext/capt",
        "p50 ms",
        "p99 ms",
        "wrong moves per 1000",
        "exact games",
        "errors"
    );
    // Every wait scaled together, then each alone (which one the wrong
    // moves come from).
    let rows = [0.4, 0.55, 0.7, 0.85, 1.0]
        .map(|s| (s, [true; 3]))
        .into_iter()
        .chain([0.55, 0.7].into_iter().flat_map(|s| {
            [
                [true, false, false],
                [false, true, false],
                [false, false, true],
            ]
            .map(|w| (s, w))
        }));
    for (scale, which) in rows {
        let mut config = Config::default();
        let d = config.settle;
        let by = |ms: u64, on: bool| {
            if on {
                (ms as f64 * scale).round() as u64
            } else {
                ms
            }
        };
        config.settle.base_ms = by(d.base_ms, which[0]);
        config.settle.extendable_ms = by(d.extendable_ms, which[1]);
        config.settle.short_of_capture_ms = by(d.short_of_capture_ms, which[2]);
        config.settle.sole_landing_ms = std::env::var("BENCH_SOLE_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(config.settle.base_ms);
        let mut p = Point {
            p50: 0,
            p99: 0,
            moves: 0,
            wrong: 0,
            exact: 0,
            games: captures.len(),
            errors: 0,
        };
        let mut delays = Vec::new();
        for (g, text, session) in &captures {
            let replay =
                replay_reader(text.as_bytes(), config, Path::new("curve")).expect("replay");
            let c = compare(g, session, &replay);
            if std::env::var("BENCH_SHOW").is_ok_and(|v| v == format!("{scale}-{which:?}")) {
                show_wrong(g, &replay);
            }
            p.exact += usize::from(c.exact);
            p.moves += c.moves_published;
            p.wrong += c.retracts;
            p.errors += c.error_alerts;
            delays.extend(c.delays);
        }
        delays.sort_unstable();
        p.p50 = percentile(&delays, 0.5);
        p.p99 = percentile(&delays, 0.99);
        println!(
            "{:>6.2} {:>22} {:>9} {:>9} {:>22.3} {:>14} {:>8}",
            scale,
            format!(
                "{}/{}/{}",
                config.settle.base_ms,
                config.settle.extendable_ms,
                config.settle.short_of_capture_ms
            ),
            p.p50,
            p.p99,
            1000.0 * p.wrong as f64 / p.moves.max(1) as f64,
            format!("{}/{}", p.exact, p.games),
            p.errors
        );
    }
}

/// The moves a replay withdrew, beside the game's move at that ply
/// (`BENCH_SHOW=0.7-[true, false, false]` in the curve).
fn show_wrong(g: &SourceGame, replay: &boardcast::replay::Replay) {
    use boardcast::event::EventKind;
    let mut shown: std::collections::HashMap<u32, String> = std::collections::HashMap::new();
    for (at, e) in &replay.events {
        match &e.kind {
            EventKind::Move { ply, notation, .. } => {
                shown.insert(*ply, notation.clone());
            }
            EventKind::Retract { ply, .. } => println!(
                "  at {at}: ply {ply} shown {} withdrawn; the game's {}",
                shown.get(ply).map_or("?", String::as_str),
                g.sans.get(*ply as usize - 1).map_or("?", String::as_str)
            ),
            _ => {}
        }
    }
    // Every event near a withdrawal, with its reading time.
    let wrong: Vec<u64> = replay
        .events
        .iter()
        .filter(|(_, e)| matches!(e.kind, EventKind::Retract { .. }))
        .map(|(at, _)| *at)
        .collect();
    for (at, e) in &replay.events {
        if wrong
            .iter()
            .any(|w| *at + 12_000 >= *w && *at <= *w + 3_000)
        {
            let mut json = e.to_json();
            json.truncate(160);
            println!("    {at}: {json}");
        }
    }
}

/// The capture lines and events around a replay's first error alert
/// (`BENCH_SHOW_GAME=N` in the clock tables).
fn show_around_error(session: &sim::Session, text: &str, replay: &boardcast::replay::Replay) {
    use boardcast::event::EventKind;
    // Around the first error alert, or `BENCH_SHOW_PLY`'s completion.
    let ply: Option<usize> = std::env::var("BENCH_SHOW_PLY")
        .ok()
        .and_then(|p| p.parse().ok());
    let at = match ply {
        _ if std::env::var("BENCH_SHOW_AT").is_ok() => std::env::var("BENCH_SHOW_AT")
            .ok()
            .and_then(|a| a.parse().ok()),
        Some(ply) => session.truth.iter().find_map(|t| match t {
            sim::Truth::Ply { ply: p, at } if *p == ply => Some(*at + 12_000),
            _ => None,
        }),
        None => replay.events.iter().find_map(|(at, e)| match &e.kind {
            EventKind::Alert(a) if a.kind.is_error() && !a.cleared => Some(*at),
            _ => None,
        }),
    };
    let Some(at) = at else {
        return;
    };
    let near = |t: u64| t + 15_000 >= at && t <= at + 3_000;
    for t in &session.truth {
        if let sim::Truth::Ply { ply, at: t } = t
            && near(*t)
        {
            println!("  truth: ply {ply} at {t}");
        }
    }
    for (t, r) in &session.readings {
        if near(*t) {
            println!("  reading {t}: {r:?}");
        }
    }
    for (t, c) in &session.clock {
        if near(*t) {
            println!("  clock {t}: {c:?}");
        }
    }
    let _ = text;
    for (t, e) in &replay.events {
        if near(*t) {
            let mut json = e.to_json();
            json.truncate(200);
            println!("  event {t}: {json}");
        }
    }
}

/// Publication delay when a DGT clock is pressed after every move.
/// A profile's games with a DGT clock pressed `press_ms` after each
/// move (no takebacks: the simulated clock follows plies forward).
fn with_clock(
    games: &[SourceGame],
    label: &str,
    make: &dyn Fn() -> Box<dyn Profile>,
    press_ms: (u64, u64),
) {
    use boardcast::clock::TimeControl;
    use boardcast::event::{EventKind, Side};
    use boardcast_sim::clock::{ClockSetup, add_clock};
    let mut setup = ClockSetup::new(TimeControl::parse("5400+30").unwrap());
    setup.press_ms = press_ms;
    let (mut from_reading, mut from_press) = (Vec::new(), Vec::new());
    let (mut moves, mut exact, mut retracts, mut errors) = (0usize, 0usize, 0usize, 0usize);
    let mut shown = Vec::new();
    let mut provisional = Vec::new();
    let mut remade = 0;
    for (i, game) in games.iter().enumerate() {
        let mut profile = make();
        let mut session = sim::simulate(game, profile.as_mut(), 77 + i as u64, i % 5 == 0);
        let truth = add_clock(
            &mut session,
            &setup,
            Side::from(game.start.turn()),
            i as u64,
        );
        let text = sim::dgt::capture_text(&session, &[]);
        let replay = replay_reader(text.as_bytes(), Config::default(), Path::new("clock")).unwrap();
        if std::env::var("BENCH_SHOW_GAME").is_ok_and(|g| g == (i + 1).to_string()) {
            show_around_error(&session, &text, &replay);
        }
        let c = compare(game, &session, &replay);
        exact += usize::from(c.exact);
        retracts += c.retracts;
        errors += c.error_alerts;
        provisional.extend(c.provisional_delays);
        for (_, e) in &replay.events {
            if let EventKind::Alert(a) = &e.kind
                && a.kind.is_error()
                && !a.cleared
                && shown.len() < 5
            {
                shown.push(format!("game {}: {:?}: {}", i + 1, a.kind, a.message));
            }
        }
        // These profiles play no takeback: a takeback read (a piece that
        // had moved knocked back onto the square it came from, which the
        // board cannot tell from one) withdrew final moves, and the moves
        // made again after it are not the press's.
        let mut last_ply = 0u32;
        let mut taken_back = std::collections::HashSet::new();
        for (published, e) in &replay.events {
            if let EventKind::Retract { ply, .. } = e.kind
                && std::env::var_os("BENCH_SHOW_LATE").is_some()
            {
                println!("  retract: game {} ply {ply} at {published}", i + 1);
            }
            if let EventKind::Takeback { to_ply, .. } = e.kind {
                if std::env::var_os("BENCH_SHOW_LATE").is_some() {
                    println!("  takeback: game {} to ply {to_ply} at {published}", i + 1);
                }
                // (Counted as wrong final moves by `compare`.)
                taken_back.extend(to_ply + 1..=last_ply);
                last_ply = to_ply;
            }
            if let EventKind::Move { ply, .. } = e.kind {
                last_ply = ply;
                if taken_back.remove(&ply) {
                    remade += 1;
                    continue;
                }
                let p = ply as usize - 1;
                // The ply's completion the event follows (a ply completed
                // twice, after a knock or in a game played again, counts
                // from its last completion before the event), and the
                // first press after it.
                let done = session
                    .truth
                    .iter()
                    .filter_map(|t| match t {
                        sim::Truth::Ply { ply: q, at } if *q == p + 1 && at <= published => {
                            Some(*at)
                        }
                        _ => None,
                    })
                    .max();
                let Some(press) = truth
                    .presses
                    .iter()
                    .map(|(t, _)| *t)
                    .find(|&t| t >= done.unwrap_or(0))
                else {
                    continue;
                };
                moves += 1;
                from_reading.push(published.saturating_sub(done.unwrap_or(*published)));
                from_press.push(published.saturating_sub(press));
                if std::env::var_os("BENCH_SHOW_LATE").is_some()
                    && published.saturating_sub(press) > 10_000
                {
                    println!(
                        "  late: game {} ply {ply}: final {} ms after the press (completed {done:?}, pressed {press}, final {published})",
                        i + 1,
                        published.saturating_sub(press)
                    );
                }
            }
        }
    }
    from_reading.sort_unstable();
    from_press.sort_unstable();
    provisional.sort_unstable();
    println!(
        "== {label} with a DGT clock pressed {}-{} ms after each move: {} games",
        press_ms.0,
        press_ms.1,
        games.len()
    );
    println!("exact games        {exact}/{}", games.len());
    println!(
        "wrong final moves  {retracts} in {moves} final ({:.3} per 1000; retracted, or taken back by a knock onto the square a piece came from and made again: {remade})",
        1000.0 * retracts as f64 / moves.max(1) as f64
    );
    println!("error alerts       {errors}");
    println!(
        "delay after press  p50 {} ms, p99 {} ms, max {} ms ({moves} moves; a move is complete when the clock is pressed, Law 6.2a)",
        percentile(&from_press, 0.5),
        percentile(&from_press, 0.99),
        from_press.last().copied().unwrap_or(0)
    );
    println!(
        "delay after piece  p50 {} ms, p99 {} ms (from the reading that set the piece down); provisional p50 {} ms, p99 {} ms",
        percentile(&from_reading, 0.5),
        percentile(&from_reading, 0.99),
        percentile(&provisional, 0.5),
        percentile(&provisional, 0.99)
    );
    for alert in shown {
        println!("  error alert: {alert}");
    }
}

/// The `real` profile (the habits of the real DGT recordings) at each
/// stop-on-the-way tail, without and with a clock pressed about a second
/// after the move (`BENCH_ONLY=real`).
fn real(games: &[SourceGame], seeds: &[u64]) {
    for tail in [500, 1_000, 2_000] {
        let label = format!("real, stops up to {} s", tail as f64 / 1000.0);
        run(
            &label,
            games,
            &|| Box::new(Real::with_dwell_tail(tail)),
            seeds,
        );
        let press = Real::default().press_ms;
        let clocked =
            || -> Box<dyn Profile> { Box::new(Real::with_dwell_tail(tail).pressing_a_clock()) };
        with_clock(games, &label, &clocked, press);
    }
}

/// Knocked pieces and results signalled with the kings in the centre: per
/// knock rate, every game under human handling, its result then reported
/// by setting both kings on centre squares (either king first).
fn knocks(games: &[SourceGame], seeds: &[u64]) {
    use boardcast::event::EventKind;
    // `BENCH_GAMES=2027,456`: only these games (numbered from 1), with the
    // seeds they have in the full table.
    let only: Option<Vec<usize>> = std::env::var("BENCH_GAMES")
        .ok()
        .map(|v| v.split(',').filter_map(|n| n.trim().parse().ok()).collect());
    use boardcast_sim::faults::chess::kings_to_centre;
    println!(
        "== knocks and kings-in-the-centre results: {} games per rate ({} seeds)",
        games.len(),
        seeds.len()
    );
    println!(
        "{:>10} {:>14} {:>22} {:>14} {:>20} {:>16} {:>16}",
        "knock rate",
        "games exact",
        "wrong moves per 1000",
        "error alerts",
        "results recognised",
        "final p50/p99 ms",
        "first p50/p99 ms"
    );
    for rate in [0.02, 0.05, 0.1, 0.2] {
        let (mut exact, mut moves, mut retracts, mut errors) = (0usize, 0usize, 0usize, 0usize);
        let mut delays = Vec::new();
        let mut first_delays = Vec::new();
        let (mut signalled, mut recognised) = (0usize, 0usize);
        let mut failures = Vec::new();
        let mut played = 0usize;
        for (s, i, g) in seeds
            .iter()
            .flat_map(|&s| games.iter().enumerate().map(move |(i, g)| (s, i, g)))
        {
            if only.as_ref().is_some_and(|o| !o.contains(&(i + 1))) {
                continue;
            }
            played += 1;
            let mut profile = Human {
                // A third of the knocks hit the piece that has just moved.
                knock: rate * 2.0 / 3.0,
                knock_moved: rate / 3.0,
                ..Human::default()
            };
            // Seed 1 keeps the numbering the table has always had.
            let seed = 5_000_000 + (s - 1) * 1_000_000 + i as u64;
            let mut session = sim::simulate(g, &mut profile, seed, i % 5 == 0);
            let last = g.moves.iter().fold(g.start.clone(), |p, m| p.play(*m));
            let tag = g
                .tags
                .iter()
                .find(|(k, _)| k == "Result")
                .map(|(_, v)| v.as_str());
            let result = match tag {
                Some(r @ ("1-0" | "0-1" | "1/2-1/2")) => r,
                _ => ["1-0", "0-1", "1/2-1/2"][i % 3],
            };
            let signal = last.outcome().is_none()
                && kings_to_centre(&mut session, &last, result, seed).is_some();
            let text = sim::dgt::capture_text(&session, &[]);
            let replay = replay_reader(text.as_bytes(), Config::default(), Path::new("knocks"))
                .expect("replay");
            let c = compare(g, &session, &replay);
            exact += usize::from(c.exact);
            moves += c.moves_published;
            retracts += c.retracts;
            errors += c.error_alerts;
            if let Ok(limit) = std::env::var("BENCH_SHOW_LATE") {
                show_late(
                    rate,
                    i,
                    &c,
                    limit.parse().unwrap_or(2_500),
                    &session,
                    &replay,
                );
            }
            delays.extend(c.delays);
            first_delays.extend(c.first_delays);
            let recognised_here = !signal
                || replay.events.iter().any(|(_, e)| {
                    matches!(&e.kind, EventKind::GameEnd { result: r, reason, .. }
                        if r == result && reason == "kings in the centre")
                });
            if let Ok(dir) = std::env::var("BENCH_DUMP")
                && (!c.exact || c.retracts > 0 || c.error_alerts > 0 || !recognised_here)
            {
                dump(Path::new(&dir), rate, i, seed, &session, &text, &replay);
            }
            if !c.exact && failures.len() < 3 {
                failures.push(format!(
                    "game {} (seed {seed}) ply {} of {}",
                    i + 1,
                    c.plies_right,
                    c.plies
                ));
            }
            if signal {
                signalled += 1;
                let ok = replay.events.iter().any(|(_, e)| {
                    matches!(&e.kind, EventKind::GameEnd { result: r, reason, .. }
                        if r == result && reason == "kings in the centre")
                });
                recognised += usize::from(ok);
            }
        }
        println!(
            "{rate:>10} {:>14} {:>22} {errors:>14} {:>20} {:>16} {:>16}",
            format!("{:.2}%", 100.0 * exact as f64 / played.max(1) as f64),
            format!("{:.3}", 1000.0 * retracts as f64 / moves.max(1) as f64),
            format!(
                "{recognised}/{signalled} ({:.1}%)",
                100.0 * recognised as f64 / signalled.max(1) as f64
            ),
            {
                delays.sort_unstable();
                format!("{}/{}", percentile(&delays, 0.5), percentile(&delays, 0.99))
            },
            {
                first_delays.sort_unstable();
                format!(
                    "{}/{}",
                    percentile(&first_delays, 0.5),
                    percentile(&first_delays, 0.99)
                )
            },
        );
        for f in failures {
            println!("  not exact: {f}");
        }
    }
}

/// The moves of a knock-table game final later than `limit` after their
/// reading (`BENCH_SHOW_LATE=limit`), each from its first completion, and
/// with `BENCH_SHOW_GAME` the readings and events around
/// `BENCH_SHOW_PLY`'s completion or `BENCH_SHOW_AT`.
fn show_late(
    rate: f64,
    i: usize,
    c: &boardcast_sim::check::GameCheck,
    limit: u64,
    session: &sim::Session,
    replay: &boardcast::replay::Replay,
) {
    use boardcast::event::EventKind;
    let Some(worst) = c.delays.iter().max().filter(|w| **w > limit) else {
        return;
    };
    println!(
        "  late: rate {rate} game {} final {worst} ms after its reading",
        i + 1
    );
    for (at, e) in &replay.events {
        let EventKind::Move { ply, .. } = &e.kind else {
            continue;
        };
        let done = session.truth.iter().filter_map(|t| match t {
            sim::Truth::Ply { ply: p, at: d } if *p == *ply as usize && d <= at => Some(*d),
            _ => None,
        });
        if let Some(done) = done.max().filter(|d| at - d > limit) {
            println!("    ply {ply} read {done}, final {at}");
        }
    }
    if std::env::var("BENCH_SHOW_GAME").is_ok_and(|g| g == (i + 1).to_string()) {
        show_around_error(session, "", replay);
    }
}

/// Every bundled game under human handling (seed 1) on each family's
/// simulated board: exact games, error alerts, and square readings per
/// second through that family's driver and the reconstructor (best of
/// three passes). A Certabo board plays the standard games the normal way
/// round (it calibrates from the standard start), an occupancy-only board
/// those without an underpromotion (their limits, docs/boards.md). The
/// last row: an occupancy-only board with half the captures by bishops,
/// rooks and queens made victim first and slid to the victim touching
/// down on the way (`Human::capture_slide`, issue 44), and no takeback.
fn families(games: &[SourceGame]) {
    use boardcast::family::Family;
    println!("== families: every bundled game, human handling, one seed");
    println!(
        "{:<22} {:>7} {:>16} {:>13} {:>18}",
        "family", "games", "exact", "error alerts", "readings/s"
    );
    type Encode = fn(&sim::Session) -> String;
    // (family, encoder, standard start the normal way round only, no
    // underpromotion)
    let rows: [(&str, Encode, bool, bool); 6] = [
        ("dgt", |s| sim::dgt::capture_text(s, &[]), false, false),
        (
            "millennium",
            |s| sim::family::capture_text(s, Family::Millennium),
            false,
            false,
        ),
        (
            "certabo",
            |s| sim::family::capture_text(s, Family::Certabo),
            true,
            false,
        ),
        (
            "open (pieces)",
            |s| sim::family::capture_text(s, Family::Open),
            false,
            false,
        ),
        (
            "open (occupancy only)",
            sim::family::occupancy_capture_text,
            true,
            true,
        ),
        (
            "occupancy, slides",
            sim::family::occupancy_capture_text,
            true,
            true,
        ),
    ];
    // `BENCH_GAMES=35,47`: only these games (numbered from 1).
    let only: Option<Vec<usize>> = std::env::var("BENCH_GAMES")
        .ok()
        .map(|v| v.split(',').filter_map(|n| n.trim().parse().ok()).collect());
    for (name, encode, standard, queens) in rows {
        let mut captures = Vec::new();
        for (i, g) in games.iter().enumerate() {
            if only.as_ref().is_some_and(|o| !o.contains(&(i + 1))) {
                continue;
            }
            let underpromotes = g.moves.iter().any(|m| {
                m.promotion()
                    .is_some_and(|r| r != boardcast::games::chess::Role::Queen)
            });
            if (standard && g.start != boardcast::games::chess::Position::standard())
                || (queens && underpromotes)
            {
                continue;
            }
            let rotated = !standard && i % 5 == 4;
            // (The slides row plays no takeback: it measures the slide
            // alone.)
            let slides = name == "occupancy, slides";
            let mut person = Human {
                capture_slide: if slides { 0.5 } else { 0.0 },
                takeback: if slides {
                    0.0
                } else {
                    Human::default().takeback
                },
                ..Human::default()
            };
            let session = sim::simulate(g, &mut person, 100_003 + i as u64, rotated);
            let text = encode(&session);
            captures.push((i, g, session, text));
        }
        let mut secs = f64::MAX;
        let mut replays = Vec::new();
        for _ in 0..3 {
            let started = Instant::now();
            replays = captures
                .iter()
                .map(|(_, _, _, text)| {
                    replay_reader(text.as_bytes(), Config::default(), Path::new(name))
                        .expect("replay")
                })
                .collect();
            secs = secs.min(started.elapsed().as_secs_f64());
        }
        let (mut exact, mut errors, mut readings) = (0usize, 0usize, 0u64);
        for ((i, g, session, text), replay) in captures.iter().zip(&replays) {
            let c = compare(g, session, replay);
            exact += usize::from(c.exact);
            errors += c.error_alerts;
            readings += c.readings;
            // `BENCH_DUMP=dir`: the games that went wrong, under
            // `<family>-game<N>-seed<S>`.
            if let Ok(dir) = std::env::var("BENCH_DUMP")
                && (!c.exact || c.error_alerts > 0)
            {
                let dir = Path::new(&dir).join(name.replace([' ', '(', ')'], ""));
                dump(&dir, 0.0, *i, 100_003 + *i as u64, session, text, replay);
            }
        }
        let n = captures.len();
        println!(
            "{name:<22} {n:>7} {:>16} {errors:>13} {:>18.0}",
            format!("{exact} ({:.2}%)", 100.0 * exact as f64 / n.max(1) as f64),
            readings as f64 / secs
        );
    }
}

/// Writes a game that went wrong under `BENCH_DUMP=dir`: its capture
/// (replayable with `boardcast replay`) and, beside it, what was really
/// played and what was published, with times.
fn dump(
    dir: &Path,
    rate: f64,
    game: usize,
    seed: u64,
    session: &sim::Session,
    text: &str,
    replay: &boardcast::replay::Replay,
) {
    use std::fmt::Write as _;
    std::fs::create_dir_all(dir).expect("dump directory");
    let name = format!("rate{rate}-game{}-seed{seed}", game + 1);
    std::fs::write(dir.join(format!("{name}.dgt")), text).expect("write capture");
    // One line per reading, truth mark and event, in time order.
    let mut lines: Vec<(u64, u8, String)> = Vec::new();
    for (at, r) in &session.readings {
        let what = match r {
            sim::Sensed::Square(sq, cell) => format!("{sq} {cell:?}"),
            sim::Sensed::Dump(_) => "board dump".into(),
        };
        lines.push((*at, 0, format!("reading {what}")));
    }
    for t in &session.truth {
        let at = match t {
            sim::Truth::Ply { at, .. }
            | sim::Truth::Shown { at, .. }
            | sim::Truth::Takeback { at, .. } => *at,
        };
        lines.push((at, 1, format!("TRUTH {t:?}")));
    }
    for (at, e) in &replay.events {
        lines.push((*at, 2, format!("EVENT {:?}", e.kind)));
    }
    lines.sort_by_key(|(at, k, _)| (*at, *k));
    let mut out = String::new();
    for (at, _, l) in lines {
        let _ = writeln!(out, "{at:>9} {l}");
    }
    std::fs::write(dir.join(format!("{name}.txt")), out).expect("write events");
}

/// Adversarial input: the slowest single reading we could construct.
fn worst_case(games: &[SourceGame]) {
    use boardcast::games::chess::{Color, Piece, Role, Square};
    use boardcast::track::{Cell, Reconstructor};
    use rand::{Rng, SeedableRng, rngs::SmallRng};
    let mut rng = SmallRng::seed_from_u64(7);
    let roles = [
        Role::Pawn,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
        Role::King,
    ];
    let random_cell = |rng: &mut SmallRng| {
        if rng.gen_bool(0.5) {
            Cell::Empty
        } else {
            Cell::Piece(Piece {
                color: if rng.gen_bool(0.5) {
                    Color::White
                } else {
                    Color::Black
                },
                role: roles[rng.gen_range(0..6)],
            })
        }
    };
    let (mut worst_us, mut worst_nodes, mut total_us, mut readings) = (0f64, 0usize, 0f64, 0u64);
    let mut worst_label = "";
    for (i, game) in games.iter().enumerate().step_by(20) {
        // Mid-game: the position after half the moves, on the board.
        let half = game.moves.len() / 2;
        let mut pos = game.start.clone();
        for m in &game.moves[..half] {
            pos = pos.play(*m);
        }
        let mut cells = [Cell::Empty; 64];
        for (sq, p) in pos.board().iter() {
            cells[sq as usize] = Cell::Piece(p);
        }
        for label in ["garbage dump", "square noise", "near-legal dump"] {
            let mut r = Reconstructor::new(Config::default());
            r.start_from(0, pos.clone(), false);
            r.handle_board(0, &cells);
            for k in 0..50u64 {
                let t = 10 + k * 10;
                let before = r.stats().max_nodes;
                let started = Instant::now();
                match label {
                    "garbage dump" => {
                        let mut board = [Cell::Empty; 64];
                        for c in board.iter_mut() {
                            *c = random_cell(&mut rng);
                        }
                        r.handle_board(t, &board);
                    }
                    "square noise" => {
                        let sq = Square::new(rng.gen_range(0..64));
                        r.handle_square(t, sq, random_cell(&mut rng));
                    }
                    _ => {
                        // Two or three legal plies, then one square wrong:
                        // close to legal, so pruning bites least.
                        let mut p = pos.clone();
                        for _ in 0..rng.gen_range(2..4) {
                            let legal: Vec<_> = p.legal_moves().collect();
                            if legal.is_empty() {
                                break;
                            }
                            p = p.play(legal[rng.gen_range(0..legal.len())]);
                        }
                        let mut board = [Cell::Empty; 64];
                        for (sq, piece) in p.board().iter() {
                            board[sq as usize] = Cell::Piece(piece);
                        }
                        board[rng.gen_range(0..64)] = random_cell(&mut rng);
                        r.handle_board(t, &board);
                    }
                }
                let us = started.elapsed().as_secs_f64() * 1e6;
                total_us += us;
                readings += 1;
                if us > worst_us {
                    worst_us = us;
                    worst_label = label;
                }
                worst_nodes = worst_nodes.max(r.stats().max_nodes.max(before));
                while r.poll_event().is_some() {}
            }
        }
        let _ = i;
    }
    println!(
        "== worst case: {readings} adversarial readings (garbage dumps, square noise, near-legal dumps)"
    );
    println!(
        "per reading        mean {:.1} us, worst {worst_us:.0} us ({worst_label}), worst {worst_nodes} positions searched",
        total_us / readings as f64
    );
}

/// A handling profile's maker.
type MakeProfile<'a> = &'a dyn Fn() -> Box<dyn Profile>;

/// Issue 60: provisional moves that change (shown as one move, then final
/// as another, or withdrawn) per 1,000 final moves, and how soon the first
/// provisional move is shown, for each handling profile with
/// `provisional_ms` (how long a legal board stands before it is shown
/// provisionally) swept. The default is chosen from this table (README,
/// "Provisional moves").
fn provisional_curve(games: &[SourceGame], seeds: &[u64]) {
    println!(
        "== provisional moves that change: {} games a row ({} seed{})",
        games.len() * seeds.len(),
        seeds.len(),
        if seeds.len() == 1 { "" } else { "s" }
    );
    println!(
        "{:<24} {:>15} {:>12} {:>22} {:>20} {:>16}",
        "profile",
        "provisional_ms",
        "final moves",
        "changed per 1000",
        "first shown p50/p99",
        "final p50/p99"
    );
    let knocked = || -> Box<dyn Profile> {
        Box::new(Human {
            takeback: 0.0,
            knock: 0.1 * 2.0 / 3.0,
            knock_moved: 0.1 / 3.0,
            ..Human::default()
        })
    };
    let profiles: [(&str, MakeProfile); 5] = [
        ("clean", &|| Box::new(Clean)),
        ("human", &|| Box::new(Human::default())),
        ("knocks 0.1 a move", &knocked),
        ("real, stops up to 1 s", &|| {
            Box::new(Real::with_dwell_tail(1_000))
        }),
        ("real, stops up to 2 s", &|| {
            Box::new(Real::with_dwell_tail(2_000))
        }),
    ];
    for (label, make) in profiles {
        let captures = simulated(games, make, seeds);
        for provisional_ms in [150, 250, 400] {
            let mut config = Config::default();
            config.settle.provisional_ms = provisional_ms;
            let (mut moves, mut changed) = (0usize, 0usize);
            let (mut first, mut last) = (Vec::new(), Vec::new());
            for (g, session, text) in &captures {
                let replay =
                    replay_reader(text.as_bytes(), config, Path::new("bench")).expect("replay");
                let c = compare(g, session, &replay);
                moves += c.moves_published;
                changed += c.provisional_changed;
                first.extend(c.provisional_delays);
                last.extend(c.delays);
            }
            first.sort_unstable();
            last.sort_unstable();
            println!(
                "{:<24} {:>15} {:>12} {:>22} {:>20} {:>16}",
                label,
                provisional_ms,
                moves,
                format!("{:.2}", 1000.0 * changed as f64 / moves.max(1) as f64),
                format!(
                    "{}/{} ms",
                    percentile(&first, 0.5),
                    percentile(&first, 0.99)
                ),
                format!("{}/{} ms", percentile(&last, 0.5), percentile(&last, 0.99)),
            );
        }
    }
}

fn main() {
    // `cargo bench` passes `--bench`; nothing else is parsed.
    let seeds: u64 = env_or("BENCH_SEEDS", 3);
    let mut games = load("master-games.pgn");
    games.extend(load("chess960-selfplay.pgn"));
    let seeds: Vec<u64> = (1..=seeds).collect();
    // `BENCH_ONLY=knocks`: only the knock table.
    if std::env::var("BENCH_ONLY").is_ok_and(|v| v == "knocks") {
        knocks(&games, &seeds);
        return;
    }
    if std::env::var("BENCH_ONLY").is_ok_and(|v| v == "families") {
        families(&games);
        return;
    }
    if std::env::var("BENCH_ONLY").is_ok_and(|v| v == "final") {
        final_curve(&games, &seeds);
        return;
    }
    if std::env::var("BENCH_ONLY").is_ok_and(|v| v == "curve") {
        curve(&games, &seeds);
        return;
    }
    if std::env::var("BENCH_ONLY").is_ok_and(|v| v == "provisional") {
        provisional_curve(&games, &seeds[..1]);
        return;
    }
    if std::env::var("BENCH_ONLY").is_ok_and(|v| v == "human") {
        run("human", &games, &|| Box::new(Human::default()), &seeds);
        return;
    }
    if std::env::var("BENCH_ONLY").is_ok_and(|v| v == "real") {
        real(&games, &seeds);
        return;
    }
    // With a clock (pressed 150-600 ms after each move), nothing happens
    // on the board before the press.
    let human = || -> Box<dyn Profile> {
        Box::new(Human {
            takeback: 0.0,
            first_ms: 700,
            ..Human::default()
        })
    };
    // A third of the knocks hit the piece that has just moved, as in the
    // knock table.
    let knocked = || -> Box<dyn Profile> {
        Box::new(Human {
            takeback: 0.0,
            knock: 0.1 * 2.0 / 3.0,
            knock_moved: 0.1 / 3.0,
            first_ms: 700,
            ..Human::default()
        })
    };
    // `BENCH_ONLY=clocks`: the human and knock profiles with a DGT clock.
    if std::env::var("BENCH_ONLY").is_ok_and(|v| v == "clocks") {
        with_clock(&games, "human", &human, (150, 600));
        with_clock(&games, "knocks 0.1 a move", &knocked, (150, 600));
        return;
    }
    run("clean", &games, &|| Box::new(Clean), &[1]);
    run("human", &games, &|| Box::new(Human::default()), &seeds);
    knocks(&games, &seeds);
    with_clock(&games, "human", &human, (150, 600));
    with_clock(&games, "knocks 0.1 a move", &knocked, (150, 600));
    real(&games, &seeds);
    families(&games);
    provisional_curve(&games, &seeds[..1]);
    worst_case(&games);
}
