//! The live daemon under load: N simulated DGT boards on pseudo-terminals
//! playing at a realistic pace into the real `boardcast` binary, which
//! publishes to a Mosquitto broker started here; a subscriber measures.
//!
//! ```text
//! cargo bench --bench live
//! BENCH_BOARDS=1,50,200 BENCH_SECS=40 BENCH_THINK_MS=2000 cargo bench --bench live
//! ```
//!
//! For each N it prints:
//! - the delay from writing a move's completing reading to the pty to its
//!   first right `provisional` event arriving at the subscriber (what a
//!   screen that wants speed shows): median, p99 and max, and the same
//!   beyond the debounce the reader imposes on purpose (150 ms); and the
//!   `move` events (final) whose move is wrong;
//! - the daemon's CPU use over the measurement (percent of one core);
//! - its resident memory, and per board (resident memory with N boards
//!   minus that of the same daemon with no board, divided by N).
//!
//! Pace: hand movements take the simulator's times (150-500 ms between
//! lifting and setting down); thinking takes `BENCH_THINK_MS` (2 s by
//! default: a blitz hall, the busy case) instead of the simulator's
//! 1.5-12 s. The reconstructor runs with its default settle times.
//!
//! Then real hands (issue 43): `BENCH_REAL_BOARDS` boards (8 by default),
//! handled as the real recordings show (`boardcast_sim::Real`, stops on the
//! way of up to 2 s), half of them with a DGT clock pressed about a second
//! after each move, thinking `BENCH_REAL_THINK_MS` (6 s by default, so that
//! a move without a clock becomes final on its time, not on the reply).
//! It prints, on the wire: the delay from a move's completing reading to
//! its first right `provisional` event, and to its `move` event, from the
//! press with a clock and from the reading without one; and the wrong
//! final moves (a `move` whose SAN is not the game's).

#[path = "../../benches/common.rs"]
mod common;
#[path = "../tests/nats.rs"]
#[allow(dead_code)]
mod nats;
#[path = "../tests/util.rs"]
mod util;

/// The repository's root, where the bundled data lives.
const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

use std::collections::HashMap;
use std::fs;
use std::time::Duration;

use boardcast::clock::TimeControl;
use boardcast::event::Side;
use boardcast::track::SettleRule;
use boardcast_sim::clock::{ClockSetup, ClockTruth, add_clock};
use boardcast_sim::{Real, Truth};
use tokio::time::Instant;

use common::{env_or, percentile};
use util::{BoardConf, Broker, Daemon, Pace, SimBoard, SimOptions, Subscriber};

/// Resident memory of a process in KiB (`VmRSS`).
fn rss_kib(pid: u32) -> u64 {
    util::proc_usage(pid).map_or(0, |(rss, _)| rss)
}

/// CPU time of a process so far, in ms.
fn cpu_ms(pid: u32) -> u64 {
    util::proc_usage(pid).map_or(0, |(_, ms)| ms)
}

fn main() {
    let sizes: Vec<usize> = std::env::var("BENCH_BOARDS")
        .unwrap_or_else(|_| "1,50,200".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    let secs: u64 = env_or("BENCH_SECS", 40);
    let think: u64 = env_or("BENCH_THINK_MS", 2000);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let baseline = baseline_rss().await;
        println!("daemon with no board: {baseline} KiB resident");
        let mut resident = Vec::new();
        for n in sizes {
            resident.push((n, run(n, secs, think, baseline).await));
        }
        if let (Some(&(n0, r0)), Some(&(n1, r1))) = (resident.first(), resident.last())
            && n1 > n0
        {
            println!(
                "memory per additional board ({n0} -> {n1} boards): {:.1} KiB",
                r1.saturating_sub(r0) as f64 / (n1 - n0) as f64
            );
        }
        let boards: usize = env_or("BENCH_REAL_BOARDS", 8);
        if boards > 0 {
            real_hands(boards, secs, env_or("BENCH_REAL_THINK_MS", 6_000)).await;
        }
    });
}

/// The bundled games of 80 plies or more (a board plays through the run).
fn long_games() -> Vec<boardcast_sim::SourceGame> {
    util::games()
        .into_iter()
        .filter(|g| g.moves.len() >= 80)
        .collect()
}

/// Real hands on the wire (see the module documentation).
async fn real_hands(n: usize, secs: u64, think: u64) {
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let sub = Subscriber::connect(broker.port, "bench/#", "bench-watcher", false).await;
    let games = long_games();
    let mut boards = Vec::with_capacity(n);
    let mut clocks: Vec<Option<ClockTruth>> = Vec::with_capacity(n);
    for i in 0..n {
        let g = games[(i * 13) % games.len()].clone();
        let clocked = i % 2 == 0;
        let mut profile = Real::with_dwell_tail(2_000);
        if clocked {
            profile = profile.pressing_a_clock();
        }
        let mut session = boardcast_sim::simulate(&g, &mut profile, 4_300 + i as u64, false);
        let truth = clocked.then(|| {
            let mut setup = ClockSetup::new(TimeControl::parse("5400+30").unwrap());
            setup.press_ms = Real::default().press_ms;
            add_clock(&mut session, &setup, Side::from(g.start.turn()), i as u64)
        });
        let opts = paced(20_000 + i, i, think);
        boards.push(SimBoard::with_session(
            dir.path(),
            &format!("r{i}"),
            g,
            session,
            opts,
        ));
        clocks.push(truth);
    }
    let cfg = config(dir.path(), broker.port, &confs(&boards));
    let mut daemon = Daemon::start(&cfg);
    all_connected(&sub, n).await;
    tokio::time::sleep(Duration::from_secs(secs)).await;
    let status = daemon.stop();
    assert!(status.success(), "daemon exit: {status:?}");

    let (mut provisional, mut after_press, mut after_piece) = (Vec::new(), Vec::new(), Vec::new());
    let mut seen: HashMap<(usize, u64, bool), ()> = HashMap::new();
    let (mut wrong, mut finals) = (0usize, 0usize);
    for m in sub.messages() {
        if !(m.topic.starts_with("bench/board/") && m.topic.ends_with("/event")) {
            continue;
        }
        let e = m.json();
        let is_move = e["type"] == "move";
        let shown = e["type"] == "provisional" && e["withdrawn"].is_null();
        if !(is_move || shown) {
            continue;
        }
        let board: usize = e["board"].as_str().unwrap().parse().unwrap();
        let ply = e["ply"].as_u64().unwrap();
        let b = &boards[board];
        let right = b.game.sans.get(ply as usize - 1).map(String::as_str) == e["san"].as_str();
        if is_move && seen.insert((board, ply, true), ()).is_none() {
            finals += 1;
            wrong += usize::from(!right);
        }
        if !right || (!is_move && seen.insert((board, ply, false), ()).is_some()) {
            continue;
        }
        let Some(written) = completed_at(b, ply) else {
            continue;
        };
        let from_reading = m.at.saturating_duration_since(written).as_millis() as i64;
        if !is_move {
            provisional.push(from_reading);
            continue;
        }
        match &clocks[board] {
            None => after_piece.push(from_reading),
            Some(truth) => {
                let Some(&(pressed, _)) = truth.presses.get(ply as usize - 1) else {
                    continue;
                };
                let written = b.clock_written();
                let Some(Some(press)) = b
                    .session
                    .clock
                    .iter()
                    // (The clock reports a press 10-60 ms after it.)
                    .position(|(t, _)| *t >= pressed)
                    .map(|k| written[k])
                else {
                    continue;
                };
                after_press.push(m.at.saturating_duration_since(press).as_millis() as i64);
            }
        }
    }
    for v in [&mut provisional, &mut after_press, &mut after_piece] {
        v.sort_unstable();
    }
    println!(
        "real hands, {n} boards (half with a DGT clock), thinking {think} ms: {finals} final moves, {wrong} wrong"
    );
    let line = |label: &str, v: &[i64]| {
        println!(
            "  {label:<34} median {} ms  p99 {} ms  max {} ms ({} moves)",
            percentile(v, 0.5),
            percentile(v, 0.99),
            v.last().copied().unwrap_or(0),
            v.len()
        );
    };
    line("reading->provisional", &provisional);
    line("press->move (with a clock)", &after_press);
    line("reading->move (without a clock)", &after_piece);
    drop(boards);
}

/// A DGT board with serial number `serial` thinking `think` ms a move, the
/// `i`-th of a hall: its moves spread over the think time.
fn paced(serial: usize, i: usize, think: u64) -> SimOptions {
    SimOptions {
        serial: format!("{serial:05}"),
        pace: Pace::Compressed {
            think_ms: think,
            factor: 1,
        },
        garbage_every: None,
        lead_in: Duration::from_millis(500 + (i as u64 * 7919) % think.max(1)),
        between_games: Duration::from_secs(3),
        protocol: boardcast::family::Family::Dgt,
        occupancy: false,
    }
}

/// The daemon's board entries for `boards`, numbered from 0.
fn confs(boards: &[SimBoard]) -> Vec<BoardConf> {
    boards
        .iter()
        .enumerate()
        .map(|(i, b)| BoardConf {
            id: format!("{i}"),
            port: b.path().to_string_lossy().into_owned(),
            serial: None,
        })
        .collect()
}

/// Waits until each of `n` boards has said it is connected (on the public
/// topics: the arbiters' carry the same states).
async fn all_connected(sub: &Subscriber, n: usize) {
    sub.wait_for("every board connected", Duration::from_secs(60), |msgs| {
        let connected: std::collections::HashSet<&str> = msgs
            .iter()
            .filter(|m| {
                m.topic.starts_with("bench/board/")
                    && m.topic.ends_with("/state")
                    && m.json()["status"] == "connected"
            })
            .map(|m| m.topic.as_str())
            .collect();
        (connected.len() == n).then_some(())
    })
    .await;
}

/// When the reading that completed `ply` of a board's first session was
/// written to its line.
fn completed_at(b: &SimBoard, ply: u64) -> Option<Instant> {
    let at = b.session.truth.iter().find_map(|t| match t {
        Truth::Ply { ply: p, at } if *p == ply as usize => Some(*at),
        _ => None,
    })?;
    let reading = b.session.readings.iter().rposition(|(t, _)| *t == at)?;
    b.written()[reading]
}

fn config(dir: &std::path::Path, port: u16, boards: &[BoardConf]) -> std::path::PathBuf {
    let mut text = format!(
        "[bridge]\nname = \"bench\"\n[mqtt]\nurl = \"mqtt://127.0.0.1:{port}\"\nprefix = \"bench\"\n[recorder]\ndir = \"{}\"\n[log]\nlevel = \"warn\"\n",
        dir.join("rec").display()
    );
    for b in boards {
        text.push_str(&format!(
            "[[board]]\nid = \"{}\"\nport = \"{}\"\n",
            b.id, b.port
        ));
    }
    let path = dir.join("bench.toml");
    fs::write(&path, text).unwrap();
    path
}

async fn baseline_rss() -> u64 {
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let cfg = config(dir.path(), broker.port, &[]);
    let mut d = Daemon::start(&cfg);
    tokio::time::sleep(Duration::from_secs(2)).await;
    let rss = rss_kib(d.pid());
    d.stop();
    rss
}

/// Runs N boards; returns the daemon's resident memory in KiB.
async fn run(n: usize, secs: u64, think: u64, baseline: u64) -> u64 {
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let sub = Subscriber::connect(broker.port, "bench/#", "bench-watcher", false).await;
    let games = long_games();
    let mut boards = Vec::with_capacity(n);
    for i in 0..n {
        let g = games[i % games.len()].clone();
        let opts = paced(10_000 + i, i, think);
        boards.push(SimBoard::new(
            dir.path(),
            &format!("b{i}"),
            g,
            i as u64 + 1,
            opts,
        ));
    }
    let cfg = config(dir.path(), broker.port, &confs(&boards));
    let started = Instant::now();
    let mut daemon = Daemon::start(&cfg);
    let pid = daemon.pid();

    // All boards connected.
    all_connected(&sub, n).await;
    let connect_time = started.elapsed();
    let t0 = Instant::now();
    let cpu0 = cpu_ms(pid);
    let mut rss_max = 0;
    while t0.elapsed() < Duration::from_secs(secs) {
        tokio::time::sleep(Duration::from_millis(500)).await;
        rss_max = rss_max.max(rss_kib(pid));
    }
    let wall = t0.elapsed().as_secs_f64();
    let cpu = (cpu_ms(pid) - cpu0) as f64 / 1000.0 / wall * 100.0;
    let rss = rss_kib(pid);
    let status = daemon.stop();
    assert!(status.success(), "daemon exit: {status:?}");

    // Delays: the first arrival of each (board, ply) right `provisional`
    // event (what a screen that wants speed shows), from the write of the
    // move's completing reading; beyond the debounce
    // (`SettleRule::provisional_ms`). Wrong: `move` events (final) whose
    // SAN is not the game's.
    let debounce = SettleRule::default().provisional_ms as i64;
    let mut seen: HashMap<(usize, u64, bool), ()> = HashMap::new();
    let mut delays = Vec::new();
    let mut beyond = Vec::new();
    let mut wrong = 0usize;
    for m in sub.messages() {
        if !(m.topic.starts_with("bench/board/") && m.topic.ends_with("/event")) || m.at < t0 {
            continue;
        }
        let e = m.json();
        let is_move = e["type"] == "move";
        if !(is_move || (e["type"] == "provisional" && e["withdrawn"].is_null())) {
            continue;
        }
        let board: usize = e["board"].as_str().unwrap().parse().unwrap();
        let ply = e["ply"].as_u64().unwrap();
        let b = &boards[board];
        let idx = ply as usize - 1;
        let right = b.game.sans.get(idx).map(String::as_str) == e["san"].as_str();
        if is_move {
            if seen.insert((board, ply, true), ()).is_none() && !right {
                wrong += 1;
            }
            continue;
        }
        if !right || seen.insert((board, ply, false), ()).is_some() {
            continue;
        }
        let Some(written) = completed_at(b, ply) else {
            continue;
        };
        let delay = m.at.saturating_duration_since(written).as_millis() as i64;
        delays.push(delay);
        beyond.push(delay - debounce);
    }
    delays.sort_unstable();
    beyond.sort_unstable();
    let per_board = rss.saturating_sub(baseline) as f64 / n as f64;
    println!(
        "boards {n:>3}: {} moves in {wall:.0} s (connected in {:.1} s), {wrong} wrong final",
        delays.len(),
        connect_time.as_secs_f64()
    );
    println!(
        "  delay reading->provisional median {} ms  p99 {} ms  max {} ms",
        percentile(&delays, 0.5),
        percentile(&delays, 0.99),
        delays.last().copied().unwrap_or(0)
    );
    println!(
        "  beyond the debounce        median {} ms  p99 {} ms  max {} ms",
        percentile(&beyond, 0.5),
        percentile(&beyond, 0.99),
        beyond.last().copied().unwrap_or(0)
    );
    println!(
        "  daemon CPU {cpu:.1} % of one core; resident {rss} KiB (max {rss_max}), {per_board:.1} KiB per board"
    );
    drop(boards);
    rss
}
