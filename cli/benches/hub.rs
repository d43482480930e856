//! The event-wide view under load: B bridges (`boardcast run`), each with N
//! simulated DGT boards on pseudo-terminals playing at a blitz pace,
//! publish to one Mosquitto broker started here; one `boardcast hub`
//! gathers them all.
//!
//! ```text
//! cargo bench --bench hub
//! BENCH_LAYOUTS=1x20,3x20 BENCH_SECS=30 BENCH_THINK_MS=2000 cargo bench --bench hub
//! BENCH_CLUSTER=1 cargo bench --bench hub   # a three-node NATS cluster
//! ```
//!
//! For each layout (bridges x boards per bridge) it prints:
//! - the delay from writing a move's completing reading to a board's pty to
//!   the move showing on the hub's page (`/snapshot`, polled every 100 ms,
//!   so up to 100 ms of it is the polling): median, p99 and max, and the
//!   same beyond the move's settle time;
//! - CPU (percent of one core) and resident memory of the hub and of the
//!   bridges, in all and per board.
//!
//! The broker is one Mosquitto, or with `BENCH_CLUSTER=1` a three-node
//! NATS cluster with its MQTT gateway: bridge k publishes to node k mod 3
//! (the others listed after it for failover), the hub reads node 1, so
//! most moves cross the cluster once. docs/deployment.md turns these
//! figures into a layout for 2,000 boards.

#[path = "../../benches/common.rs"]
mod common;
#[path = "../tests/games.rs"]
#[allow(dead_code)]
mod games;
#[path = "../tests/hub.rs"]
#[allow(dead_code, unused_imports)]
mod hub;
#[path = "../tests/nats.rs"]
#[allow(dead_code)]
mod nats;
#[path = "../tests/util.rs"]
mod util;

/// The repository's root, where the bundled data lives.
const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

use std::collections::HashMap;
use std::time::Duration;

use tokio::time::Instant;

use boardcast::track::SettleRule;
use boardcast_sim::Truth;

use common::{env_or, percentile};
use hub::{HubBoard, HubProc, bridge_config, hub_config, snapshot};
use util::{Broker, Daemon, Pace, SimBoard, SimOptions};

fn main() {
    let layouts: Vec<(usize, usize)> = std::env::var("BENCH_LAYOUTS")
        .unwrap_or_else(|_| "1x20,3x20".into())
        .split(',')
        .filter_map(|l| {
            let (b, n) = l.trim().split_once('x')?;
            Some((b.parse().ok()?, n.parse().ok()?))
        })
        .collect();
    let secs: u64 = env_or("BENCH_SECS", 30);
    let think: u64 = env_or("BENCH_THINK_MS", 2000);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        for (bridges, per) in layouts {
            run(bridges, per, secs, think).await;
        }
    });
}

async fn run(bridges: usize, per: usize, secs: u64, think: u64) {
    let dir = tempfile::tempdir().unwrap();
    // One Mosquitto, or three NATS nodes.
    let mut _broker = None;
    let mut nodes = Vec::new();
    let mqtt_ports: Vec<u16> = if std::env::var("BENCH_CLUSTER").is_ok_and(|v| v == "1") {
        nodes = nats::start_cluster();
        nodes.iter().map(|n| n.mqtt).collect()
    } else {
        let broker = Broker::start();
        let port = broker.port;
        _broker = Some(broker);
        vec![port]
    };
    // Node k first, then the others (the failover list).
    let urls = |k: usize| {
        let list: Vec<String> = (0..mqtt_ports.len())
            .map(|j| {
                format!(
                    "\"mqtt://127.0.0.1:{}\"",
                    mqtt_ports[(k + j) % mqtt_ports.len()]
                )
            })
            .collect();
        format!("[{}]", list.join(", "))
    };
    let url = urls(0);
    let web = format!("127.0.0.1:{}", util::free_port());
    let hub = HubProc::start(&hub_config(&dir.path().join("hub"), &url, "bench", &web));
    let games: Vec<_> = util::games()
        .into_iter()
        .filter(|g| g.moves.len() >= 80)
        .collect();
    let mut boards: HashMap<String, SimBoard> = HashMap::new();
    let mut daemons = Vec::new();
    for b in 0..bridges {
        let mut confs = Vec::new();
        for i in 0..per {
            let k = b * per + i;
            let id = format!("h{b}b{i}");
            let opts = SimOptions {
                serial: format!("{:05}", 20_000 + k),
                pace: Pace::Compressed {
                    think_ms: think,
                    factor: 1,
                },
                garbage_every: None,
                lead_in: Duration::from_millis(500 + (k as u64 * 7919) % think.max(1)),
                between_games: Duration::from_secs(3),
                protocol: boardcast::family::Family::Dgt,
                occupancy: false,
            };
            let sim = SimBoard::new(
                dir.path(),
                &id,
                games[k % games.len()].clone(),
                k as u64 + 1,
                opts,
            );
            confs.push(HubBoard {
                id: id.clone(),
                port: sim.path().to_string_lossy().into_owned(),
                number: k as u32 + 1,
            });
            boards.insert(id, sim);
        }
        let cfg = bridge_config(
            &dir.path().join(format!("bridge-{b}")),
            &format!("hall-{b}"),
            &urls(b),
            "bench",
            &confs,
        );
        // The reconstructor's default settle times, not the tests' short
        // ones.
        let text = std::fs::read_to_string(&cfg).unwrap();
        let kept: Vec<&str> = text.lines().filter(|l| !l.starts_with("settle_")).collect();
        std::fs::write(&cfg, kept.join("\n")).unwrap();
        daemons.push(Daemon::start(&cfg));
    }
    let n = bridges * per;
    // Every board on the hub's page.
    let ready = Instant::now();
    loop {
        if snapshot(&web)
            .and_then(|s| s["boards"].as_array().map(Vec::len))
            .is_some_and(|k| k >= n)
        {
            break;
        }
        assert!(
            ready.elapsed() < Duration::from_secs(90),
            "the hub never listed {n} boards:\n{}",
            hub.log()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let t0 = Instant::now();
    let pids: Vec<u32> = daemons.iter().map(Daemon::pid).collect();
    let hub0 = hub.usage().unwrap_or_default();
    let bridges0: Vec<(u64, u64)> = pids
        .iter()
        .map(|&p| util::proc_usage(p).unwrap_or_default())
        .collect();
    // When each (board, ply) first showed on the hub's page.
    let mut first: HashMap<(String, usize), Instant> = HashMap::new();
    let mut shown: HashMap<String, usize> = HashMap::new();
    while t0.elapsed() < Duration::from_secs(secs) {
        if let Some(s) = snapshot(&web) {
            let now = Instant::now();
            let ids = s["boards"].as_array().cloned().unwrap_or_default();
            for (i, id) in ids.iter().enumerate() {
                let Some(id) = id.as_str() else { continue };
                // (A board whose state has not come yet has no moves.)
                let Some(plies) = s["states"][i]["moves"].as_array().map(Vec::len) else {
                    continue;
                };
                let was = shown.entry(id.to_owned()).or_insert(plies);
                for p in *was + 1..=plies {
                    first.entry((id.to_owned(), p)).or_insert(now);
                }
                *was = (*was).max(plies);
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let wall = t0.elapsed().as_secs_f64();
    let (hub_rss, hub_ms) = hub.usage().unwrap_or_default();
    let hub_cpu = (hub_ms - hub0.1) as f64 / 10.0 / wall;
    let (mut br_rss, mut br_ms) = (0u64, 0u64);
    for (&p, before) in pids.iter().zip(&bridges0) {
        let (rss, ms) = util::proc_usage(p).unwrap_or_default();
        br_rss += rss;
        br_ms += ms - before.1;
    }
    let br_cpu = br_ms as f64 / 10.0 / wall;
    for mut d in daemons {
        d.stop();
    }

    let rule = SettleRule::default();
    let mut delays = Vec::new();
    let mut beyond = Vec::new();
    for ((id, ply), seen) in &first {
        let b = &boards[id];
        let idx = ply - 1;
        let Some(at) = b.session.truth.iter().find_map(|t| match t {
            Truth::Ply { ply: p, at } if *p == *ply => Some(*at),
            _ => None,
        }) else {
            continue;
        };
        let Some(reading) = b.session.readings.iter().rposition(|(t, _)| *t == at) else {
            continue;
        };
        let Some(written) = b.written()[reading] else {
            continue;
        };
        if written < t0 {
            continue;
        }
        let delay = seen.saturating_duration_since(written).as_millis() as i64;
        let pos = b.game.moves[..idx]
            .iter()
            .fold(b.game.start.clone(), |p, mv| p.play(*mv));
        let settle = rule.for_move(&pos, b.game.moves[idx]) as i64;
        delays.push(delay);
        beyond.push(delay - settle);
    }
    delays.sort_unstable();
    beyond.sort_unstable();
    println!(
        "{bridges} bridge(s) x {per} boards = {n} boards ({}): {} moves at the hub in {wall:.0} s",
        if nodes.is_empty() {
            "one Mosquitto"
        } else {
            "three NATS nodes"
        },
        delays.len()
    );
    println!(
        "  delay reading->hub page  median {} ms  p99 {} ms  max {} ms",
        percentile(&delays, 0.5),
        percentile(&delays, 0.99),
        delays.last().copied().unwrap_or(0)
    );
    println!(
        "  beyond settle time       median {} ms  p99 {} ms  max {} ms",
        percentile(&beyond, 0.5),
        percentile(&beyond, 0.99),
        beyond.last().copied().unwrap_or(0)
    );
    println!(
        "  hub: CPU {hub_cpu:.1} % of one core, resident {hub_rss} KiB ({:.1} KiB per board)",
        hub_rss as f64 / n as f64
    );
    println!(
        "  bridges: CPU {br_cpu:.1} % of one core in all ({:.2} % per board), resident {br_rss} KiB in all ({:.1} KiB per board)",
        br_cpu / n as f64,
        br_rss as f64 / n as f64
    );
    drop(hub);
    drop(nodes);
}
