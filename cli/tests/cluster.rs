//! Issue "Beyond one laptop", first part: a bridge given several brokers
//! (`[mqtt] url = [..]`, the nodes of a cluster) fails over to the next
//! when its broker dies, and the game reaches subscribers of the node it
//! moved to whole: every move in the retained state, and the moves made
//! after the failover as events. Two independent Mosquittos, then a real
//! clustered broker: three NATS nodes with their MQTT gateway, one killed
//! under the bridge.

use std::time::Duration;

use crate::util::{
    BoardConf, Broker, Daemon, SimBoard, SimOptions, Subscriber, game, write_config,
};

/// Waits (90 s at most) until the retained state on `topic` holds `plies`
/// moves; returns them.
async fn whole_game(sub: &Subscriber, topic: &str, what: &str, plies: usize) -> Vec<String> {
    sub.wait_for(what, Duration::from_secs(90), |msgs| {
        let state = msgs.iter().rev().find(|m| m.topic == topic)?.json();
        let moves = crate::util::state_moves(&state);
        (moves.len() == plies).then_some(moves)
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bridge_whose_broker_dies_fails_over_to_the_next_and_loses_no_move() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut a = Broker::start();
    let b = Broker::start();
    let on_a = Subscriber::connect(a.port, "fo/#", "watch-a", false).await;
    let on_b = Subscriber::connect(b.port, "fo/#", "watch-b", false).await;
    let g = game(40, Some(40));
    let board = SimBoard::new(dir.path(), "one", g.clone(), 11, SimOptions::fast("50001"));
    let config = write_config(
        dir.path(),
        a.port,
        "fo",
        &[BoardConf {
            id: "1".into(),
            port: board.path().to_string_lossy().into_owned(),
            serial: None,
        }],
    );
    // The same configuration with both nodes of the "cluster".
    let text = std::fs::read_to_string(&config).unwrap().replace(
        &format!("url = \"mqtt://127.0.0.1:{}\"", a.port),
        &format!(
            "url = [\"mqtt://127.0.0.1:{}\", \"mqtt://127.0.0.1:{}\"]",
            a.port, b.port
        ),
    );
    assert!(text.contains("url = ["));
    std::fs::write(&config, text).unwrap();
    let daemon = Daemon::start(&config);

    // The bridge publishes to the first node; a few moves in, it dies.
    on_a.wait_for(
        "a few moves on the first node",
        Duration::from_secs(60),
        |msgs| {
            let plies = msgs
                .iter()
                .filter(|m| m.topic == "fo/board/1/event" && m.json()["type"] == "move")
                .count();
            (plies >= 4).then_some(())
        },
    )
    .await;
    a.kill();
    // The second node gets the whole game: the retained state carries
    // every move, and the moves after the failover arrive as events.
    let state = whole_game(
        &on_b,
        "fo/board/1/state",
        "the whole game on the second node",
        g.sans.len(),
    )
    .await;
    assert_eq!(state, g.sans);
    let events_on_b = on_b
        .messages()
        .iter()
        .filter(|m| m.topic == "fo/board/1/event" && m.json()["type"] == "move")
        .count();
    assert!(events_on_b > 0, "no move event reached the second node");
    assert!(
        daemon.log().contains("trying the next broker"),
        "{}",
        daemon.log()
    );
    drop(daemon);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bridge_on_a_nats_cluster_loses_no_move_when_its_node_dies() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto, crate::util::Tool::Nats]) {
        return;
    }
    let mut nodes = crate::nats::start_cluster();

    let dir = tempfile::tempdir().unwrap();
    // A persistent session: the cluster keeps its QoS 1 messages in
    // JetStream, replicated, whatever node dies.
    let on_third = Subscriber::connect(nodes[2].mqtt, "nc/#", "watch-3", true).await;
    let g = game(41, Some(40));
    let board = SimBoard::new(dir.path(), "one", g.clone(), 12, SimOptions::fast("50002"));
    let config = write_config(
        dir.path(),
        nodes[0].mqtt,
        "nc",
        &[BoardConf {
            id: "1".into(),
            port: board.path().to_string_lossy().into_owned(),
            serial: None,
        }],
    );
    crate::util::set_brokers(
        &config,
        &crate::util::broker_list(&[nodes[0].mqtt, nodes[1].mqtt]),
    );
    let daemon = Daemon::start(&config);
    // A subscriber on the third node sees the bridge's moves through the
    // cluster; a few moves in, the bridge's node dies.
    on_third
        .wait_for(
            "moves through the cluster",
            Duration::from_secs(60),
            |msgs| {
                let plies = msgs
                    .iter()
                    .filter(|m| m.topic == "nc/board/1/event" && m.json()["type"] == "move")
                    .count();
                (plies >= 4).then_some(())
            },
        )
        .await;
    nodes[0].kill();
    let state = whole_game(
        &on_third,
        "nc/board/1/state",
        "the whole game on the third node",
        g.sans.len(),
    )
    .await;
    assert_eq!(state, g.sans);
    // Every move reached the third node as an event too (before or after
    // the failover; QoS 1 may repeat one, screens fold by seq).
    let plies: std::collections::BTreeSet<u64> = on_third
        .messages()
        .iter()
        .filter(|m| m.topic == "nc/board/1/event" && m.json()["type"] == "move")
        .map(|m| m.json()["ply"].as_u64().unwrap())
        .collect();
    let lost: Vec<u64> = (1..=g.sans.len() as u64)
        .filter(|p| !plies.contains(p))
        .collect();
    assert!(
        lost.is_empty(),
        "move events never seen on the third node: {lost:?}"
    );
    drop(daemon);
}

/// Issue 27, "a bridge cut off from the whole cluster (its node died with
/// it) stays online at the hub forever", on a real NATS cluster: the
/// bridge publishes to node 1, the hub reads node 3. The bridge freezes,
/// node 1 dies (taking the bridge's last will with it: no node publishes
/// it), then the bridge dies too. The hub, with `silence_s = 2`, shows the
/// bridge and its board offline because it no longer hears the bridge's
/// heartbeats.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bridge_whose_nats_node_dies_with_it_goes_offline_at_the_hub() {
    use crate::hub::{bridge_and_board, heartbeat_bridge, silent_hub, snapshot, wait_until};
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    if !crate::util::require(&[crate::util::Tool::Mosquitto, crate::util::Tool::Nats]) {
        return;
    }
    let mut nodes = crate::nats::start_cluster();
    let url = |order: [usize; 3]| crate::util::broker_list(&order.map(|i| nodes[i].mqtt));
    let dir = tempfile::tempdir().unwrap();
    let (hub, listen) = silent_hub(dir.path(), &url([2, 1, 0]), "hb", 2);
    // What the hub's node hands on: the hub judges only bridges it has
    // heard heartbeat, so the bridge is frozen after its node has passed
    // on two live heartbeats (freezing it earlier left it never judged).
    let beats = Subscriber::connect_qos(
        nodes[2].mqtt,
        "hb/bridge/+/heartbeat",
        "beats",
        false,
        rumqttc::QoS::AtMostOnce,
    )
    .await;
    let config = heartbeat_bridge(dir.path(), &url([0, 1, 2]), "hb");
    let daemon = Daemon::start(&config);
    let both = |status: &str| Some((Some(status.to_string()), Some(status.to_string())));
    wait_until("the bridge online at the hub", 60, || {
        let s = snapshot(&listen)?;
        (Some(bridge_and_board(&s, "c1")) == both("online")).then_some(())
    });
    beats
        .wait_for("two live heartbeats", Duration::from_secs(30), |msgs| {
            (msgs.iter().filter(|m| !m.retain).count() >= 2).then_some(())
        })
        .await;
    let pid = Pid::from_raw(daemon.pid() as i32);
    kill(pid, Signal::SIGSTOP).unwrap();
    nodes[0].kill();
    kill(pid, Signal::SIGKILL).unwrap();
    wait_until("the bridge offline at the hub", 30, || {
        let s = snapshot(&listen)?;
        (Some(bridge_and_board(&s, "c1")) == both("offline")).then_some(())
    });
    assert!(
        hub.log().contains("not heard from"),
        "offline by its silence, not by a will: {}",
        hub.log()
    );
    drop(daemon);
}

/// Issue 27, "moves published during a cluster node's death arrive 3-12 s
/// late", where NATS itself stalls: the node leading the MQTT gateway's
/// streams dies while the bridge's own node lives. NATS stores no QoS 1
/// message (and closes the bridge's connection when a store fails, and
/// takes no new connection) until it has elected new leaders, 4-9 s. The
/// bridge's standby connections carry QoS 0 copies meanwhile, so a screen
/// (QoS 0, on a surviving node) has every move within 3 s of when it would
/// have had it. With `standby_after_ms = 0` this fails (moves late).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn screens_keep_up_while_the_node_leading_the_streams_dies() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto, crate::util::Tool::Nats]) {
        return;
    }
    let mut nodes = crate::nats::start_cluster();
    let leader = nodes[2].name.clone();
    crate::nats::lead_from(&nodes[1], &leader);
    let dir = tempfile::tempdir().unwrap();
    let screen = Subscriber::connect_qos(
        nodes[1].mqtt,
        "sl/board/+/event",
        "screen",
        false,
        rumqttc::QoS::AtMostOnce,
    )
    .await;
    let g = crate::util::games()
        .into_iter()
        .find(|g| g.sans.len() >= 90)
        .map(|mut g| {
            g.moves.truncate(90);
            g.sans.truncate(90);
            g
        })
        .expect("a game of 90 plies");
    let board = SimBoard::new(dir.path(), "one", g.clone(), 13, SimOptions::fast("50003"));
    let config = write_config(
        dir.path(),
        nodes[0].mqtt,
        "sl",
        &[BoardConf {
            id: "1".into(),
            port: board.path().to_string_lossy().into_owned(),
            serial: None,
        }],
    );
    let ports: Vec<u16> = nodes.iter().map(|n| n.mqtt).collect();
    crate::util::set_brokers(&config, &crate::util::broker_list(&ports));
    let daemon = Daemon::start(&config);
    screen
        .wait_for("a few moves", Duration::from_secs(60), |msgs| {
            let plies = msgs
                .iter()
                .filter(|m| m.topic == "sl/board/1/event" && m.json()["type"] == "move")
                .count();
            (plies >= 6).then_some(())
        })
        .await;
    nodes[2].kill();
    let killed = tokio::time::Instant::now();
    screen
        .wait_for("every move", Duration::from_secs(90), |msgs| {
            msgs.iter()
                .any(|m| m.topic == "sl/board/1/event" && m.json()["ply"] == g.sans.len())
                .then_some(())
        })
        .await;
    let late = crate::util::lateness(&screen, killed, Duration::from_secs(10));
    assert!(
        late.len() >= 10,
        "moves in the 10 s after the kill: {late:?}"
    );
    let worst = late.last().copied().unwrap_or(0);
    assert!(
        worst < 3000,
        "a move reached the screen {worst} ms late (all: {late:?}); the bridge's log:\n{}",
        daemon.log()
    );
    drop(daemon);
}

/// Issue 42, "an unreadable TLS file at failover ends the daemon": a
/// bridge with TLS and two brokers (neither answers) moves from one to the
/// other again and again; its CA file is removed meanwhile. The daemon
/// logs one line, keeps the TLS settings it read at start, keeps retrying,
/// and its board and recorder keep running; it stops cleanly on SIGTERM.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreadable_tls_file_at_failover_never_ends_the_daemon() {
    let dir = tempfile::tempdir().unwrap();
    let g = game(40, Some(40));
    let board = SimBoard::new(dir.path(), "one", g, 11, SimOptions::fast("50042"));
    let (p1, p2) = (crate::util::free_port(), crate::util::free_port());
    let config = write_config(
        dir.path(),
        p1,
        "tls",
        &[BoardConf {
            id: "1".into(),
            port: board.path().to_string_lossy().into_owned(),
            serial: None,
        }],
    );
    let ca = dir.path().join("ca.pem");
    std::fs::write(
        &ca,
        "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n",
    )
    .unwrap();
    crate::util::set_brokers(&config, &crate::util::broker_list(&[p1, p2]));
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str(&format!(
        "\n[mqtt.tls]\nenabled = true\nca_file = \"{}\"\n",
        ca.display()
    ));
    std::fs::write(&config, text).unwrap();
    let mut daemon = Daemon::start(&config);
    let wait_for_log = |what: &str, check: &dyn Fn(&str) -> bool| {
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        while !check(&daemon.log()) {
            assert!(
                std::time::Instant::now() < deadline,
                "{what}:\n{}",
                daemon.log()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    wait_for_log("a failover", &|log| log.contains("trying the next broker"));
    std::fs::remove_file(&ca).unwrap();
    let switches = |log: &str| log.matches("trying the next broker").count();
    let before = switches(&daemon.log());
    wait_for_log("more failovers after the CA file went", &|log| {
        switches(log) >= before + 5
    });
    let capture = crate::util::capture_of(&dir.path().join("rec"), "1");
    let size = std::fs::metadata(&capture).unwrap().len();
    wait_for_log("the recorder still writing", &|_| {
        std::fs::metadata(&capture).unwrap().len() > size
    });
    let log = daemon.log();
    assert_eq!(
        log.matches("a TLS file cannot be read any more").count(),
        1,
        "one line for the unreadable file:\n{log}"
    );
    let status = daemon.stop();
    assert!(
        status.success(),
        "the daemon ended: {status:?}\n{}",
        daemon.log()
    );
}
