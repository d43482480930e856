//! How late moves arrive while a broker node dies: a three-node NATS
//! cluster with its MQTT gateway (`cli/tests/nats.rs`), one bridge
//! (`boardcast run`) with four simulated DGT boards on pseudo-terminals,
//! three subscribers on a surviving node (a persistent QoS 1 session, a
//! clean QoS 1 one and a clean QoS 0 one, as a screen would). One node is
//! killed (SIGKILL) mid-game.
//!
//! ```text
//! cargo bench --bench failover
//! BENCH_RUNS=5 BENCH_CASES=bridge-node cargo bench --bench failover
//! ```
//!
//! Cases (`BENCH_CASES`, comma-separated; all by default):
//! - `bridge-node`: the node the bridge publishes to dies; the MQTT
//!   gateway's streams are led from another node (docs/deployment.md: keep
//!   them off the nodes bridges connect to first).
//! - `bridge-node-unplaced`: the same, with the leaders where JetStream put
//!   them (often on the node that dies).
//! - `leader-node`: the node leading the streams dies; the bridge's own node
//!   lives.
//!
//! For each case and run it prints, for the moves whose normal arrival fell
//! in the 10 s after the kill, how much later than normal they reached each
//! subscriber (p50, p99, max). "Normal" is the event's `t_ms` (the bridge's
//! clock) plus the smallest arrival gap seen before the kill, so no clocks
//! need agree. A last line per case pools the runs. With `BENCH_LOG_DIR`,
//! each run's bridge log is written there (`CASE-RUN.log`).

#[path = "../../benches/common.rs"]
#[allow(dead_code)]
mod common;
#[path = "../tests/nats.rs"]
mod nats;
#[path = "../tests/util.rs"]
mod util;

/// The repository's root, where the bundled data lives.
#[allow(dead_code)]
const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

use std::collections::BTreeMap;
use std::time::Duration;

use tokio::time::Instant;

use common::{env_or, percentile};
use util::{BoardConf, Daemon, SimBoard, SimOptions, Subscriber, write_config};

/// Which node dies, and where the streams are led from.
#[derive(Clone, Copy, Debug)]
enum Case {
    BridgeNode,
    BridgeNodeUnplaced,
    LeaderNode,
}

impl Case {
    fn name(self) -> &'static str {
        match self {
            Case::BridgeNode => "bridge-node",
            Case::BridgeNodeUnplaced => "bridge-node-unplaced",
            Case::LeaderNode => "leader-node",
        }
    }
}

fn main() {
    if !util::require(&[util::Tool::Mosquitto, util::Tool::Nats]) {
        return;
    }
    let runs: usize = env_or("BENCH_RUNS", 3);
    let wanted = std::env::var("BENCH_CASES").unwrap_or_default();
    let cases: Vec<Case> = [Case::BridgeNode, Case::BridgeNodeUnplaced, Case::LeaderNode]
        .into_iter()
        .filter(|c| wanted.is_empty() || wanted.split(',').any(|w| w.trim() == c.name()))
        .collect();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    println!("case | run | bridge back after | subscriber | moves | late p50 ms | p99 ms | max ms");
    for case in cases {
        let mut pooled: BTreeMap<&'static str, Vec<u64>> = BTreeMap::new();
        for run in 1..=runs {
            let (back, figures) = rt.block_on(one_run(case, run as u64));
            for (who, late) in figures {
                row(case, &run.to_string(), &back, who, &late);
                pooled.entry(who).or_default().extend(late);
            }
        }
        for (who, mut late) in pooled {
            late.sort_unstable();
            row(case, &format!("all {runs} runs"), "", who, &late);
        }
    }
}

/// One line of the table: a run (or all runs pooled) of `case` for one
/// subscriber, its lateness sorted.
fn row(case: Case, run: &str, back: &str, who: &str, late: &[u64]) {
    println!(
        "{} | {run} | {back} | {who} | {} | {} | {} | {}",
        case.name(),
        late.len(),
        percentile(late, 0.5),
        percentile(late, 0.99),
        late.last().copied().unwrap_or(0)
    );
}

/// One drill: the time the bridge took to connect again (from its log, or
/// "stayed" when its node lived) and each subscriber's sorted lateness.
async fn one_run(case: Case, run: u64) -> (String, Vec<(&'static str, Vec<u64>)>) {
    let mut nodes = nats::start_cluster();
    // The node that dies, and the node the subscribers read.
    let (dies, reads) = match case {
        Case::BridgeNode | Case::BridgeNodeUnplaced => (0, 2),
        Case::LeaderNode => (2, 1),
    };
    if !matches!(case, Case::BridgeNodeUnplaced) {
        let to = nodes[2].name.clone();
        nats::lead_from(&nodes[1], &to);
    }
    let dir = tempfile::tempdir().unwrap();
    let port = nodes[reads].mqtt;
    let persistent = Subscriber::connect(port, "fv/board/+/event", "fv-q1", true).await;
    let clean = Subscriber::connect(port, "fv/board/+/event", "fv-clean", false).await;
    let qos0 = Subscriber::connect_qos(
        port,
        "fv/board/+/event",
        "fv-qos0",
        false,
        rumqttc::QoS::AtMostOnce,
    )
    .await;
    let long: Vec<_> = util::games()
        .into_iter()
        .filter(|g| g.sans.len() >= 70)
        .take(4)
        .map(|mut g| {
            g.moves.truncate(70);
            g.sans.truncate(70);
            g
        })
        .collect();
    let sims: Vec<SimBoard> = long
        .iter()
        .enumerate()
        .map(|(i, g)| {
            SimBoard::new(
                dir.path(),
                &format!("b{i}"),
                g.clone(),
                30 + i as u64 + 10 * run,
                SimOptions::fast(&format!("5100{i}")),
            )
        })
        .collect();
    let boards: Vec<BoardConf> = sims
        .iter()
        .enumerate()
        .map(|(i, sim)| BoardConf {
            id: format!("{i}"),
            port: sim.path().to_string_lossy().into_owned(),
            serial: None,
        })
        .collect();
    let config = write_config(dir.path(), nodes[0].mqtt, "fv", &boards);
    let ports: Vec<u16> = nodes.iter().map(|n| n.mqtt).collect();
    util::set_brokers(&config, &util::broker_list(&ports));
    let daemon = Daemon::start(&config);
    persistent
        .wait_for(
            "a few moves of every board",
            Duration::from_secs(60),
            |msgs| {
                (0..4)
                    .all(|i| {
                        let topic = format!("fv/board/{i}/event");
                        msgs.iter()
                            .filter(|m| m.topic == topic && m.json()["type"] == "move")
                            .count()
                            >= 6
                    })
                    .then_some(())
            },
        )
        .await;
    nodes[dies].kill();
    let killed = Instant::now();
    for (i, g) in long.iter().enumerate() {
        let topic = format!("fv/board/{i}/event");
        persistent
            .wait_for(
                &format!("board {i}'s last move"),
                Duration::from_secs(90),
                |msgs| {
                    msgs.iter()
                        .any(|m| {
                            m.topic == topic
                                && m.json()["type"] == "move"
                                && m.json()["ply"] == g.sans.len()
                        })
                        .then_some(())
                },
            )
            .await;
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let window = Duration::from_secs(10);
    let log = daemon.log();
    let back = reconnected_after(&log);
    if let Ok(logs) = std::env::var("BENCH_LOG_DIR") {
        let path = std::path::Path::new(&logs).join(format!("{}-{run}.log", case.name()));
        std::fs::write(path, &log).unwrap();
    }
    let figures = vec![
        ("persistent", util::lateness(&persistent, killed, window)),
        ("clean", util::lateness(&clean, killed, window)),
        ("qos0", util::lateness(&qos0, killed, window)),
    ];
    drop(daemon);
    (back, figures)
}

/// From the bridge's log: how long after it lost its broker it was
/// connected again ("stayed" when it never lost it).
fn reconnected_after(log: &str) -> String {
    let stamp = |line: &str| -> Option<f64> {
        // 2026-11-26T15:22:02.287785Z
        let t = line.split_whitespace().next()?.split('T').nth(1)?;
        let t = t.trim_end_matches('Z');
        let mut parts = t.split(':');
        let h: f64 = parts.next()?.parse().ok()?;
        let m: f64 = parts.next()?.parse().ok()?;
        let s: f64 = parts.next()?.parse().ok()?;
        Some(h * 3600.0 + m * 60.0 + s)
    };
    let lost = log
        .lines()
        .find(|l| l.contains("lost the broker"))
        .and_then(stamp);
    let Some(lost) = lost else {
        return "stayed".into();
    };
    let back = log
        .lines()
        .filter(|l| l.contains("connected to the broker"))
        .filter_map(stamp)
        .find(|&t| t > lost);
    back.map_or("never".into(), |b| format!("{:.1} s", b - lost))
}
