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

/// One node of a NATS cluster with its MQTT gateway (JetStream keeps the
/// MQTT sessions and retained messages, replicated on every node).
pub struct NatsNode {
    child: Option<std::process::Child>,
    /// The node's MQTT port.
    pub mqtt: u16,
    _dir: tempfile::TempDir,
}

impl NatsNode {
    /// Node `n` of a cluster whose route ports are `routes`.
    pub fn start(n: usize, client: u16, route: u16, mqtt: u16, routes: &[u16]) -> NatsNode {
        let dir = tempfile::tempdir().unwrap();
        let routes: Vec<String> = routes
            .iter()
            .map(|p| format!("nats://127.0.0.1:{p}"))
            .collect();
        let conf = format!(
            "server_name: n{n}\nlisten: 127.0.0.1:{client}\njetstream {{ store_dir: \"{}\" }}\ncluster {{ name: boardcast-test, listen: 127.0.0.1:{route}, routes: [{}] }}\nmqtt {{ listen: 127.0.0.1:{mqtt}, stream_replicas: 3 }}\n",
            dir.path().join("js").display(),
            routes.join(", ")
        );
        let path = dir.path().join("nats.conf");
        std::fs::write(&path, conf).unwrap();
        let child = std::process::Command::new(NATS)
            .arg("-c")
            .arg(&path)
            .stdout(std::process::Stdio::null())
            .stderr(std::fs::File::create(dir.path().join("nats.log")).unwrap())
            .spawn()
            .expect("nats-server runs (apt-get install nats-server)");
        NatsNode {
            child: Some(child),
            mqtt,
            _dir: dir,
        }
    }

    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for NatsNode {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Where Debian's nats-server package puts the server.
pub const NATS: &str = "/usr/sbin/nats-server";

/// Three NATS nodes on loopback, clustered, with their MQTT gateways; once
/// a retained message published on the first can be read on the third
/// (JetStream has elected its leaders).
pub fn start_cluster() -> Vec<NatsNode> {
    use crate::util::free_port;
    let ports: Vec<[u16; 3]> = (0..3)
        .map(|_| [free_port(), free_port(), free_port()])
        .collect();
    let routes: Vec<u16> = ports.iter().map(|p| p[1]).collect();
    let nodes: Vec<NatsNode> = ports
        .iter()
        .enumerate()
        .map(|(i, p)| NatsNode::start(i + 1, p[0], p[1], p[2], &routes))
        .collect();
    // The cluster is up when a retained message published on one node can
    // be read on another (JetStream has elected its leaders).
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        let ready = std::process::Command::new("mosquitto_pub")
            .args(["-h", "127.0.0.1", "-p", &nodes[0].mqtt.to_string()])
            .args(["-t", "ready/x", "-m", "1", "-r", "-q", "1"])
            .status()
            .is_ok_and(|s| s.success())
            && std::process::Command::new("mosquitto_sub")
                .args(["-h", "127.0.0.1", "-p", &nodes[2].mqtt.to_string()])
                .args(["-t", "ready/x", "-C", "1", "-W", "2"])
                .output()
                .is_ok_and(|o| o.status.success() && o.stdout == b"1\n");
        if ready {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the NATS cluster never formed"
        );
        std::thread::sleep(Duration::from_millis(500));
    }
    nodes
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bridge_on_a_nats_cluster_loses_no_move_when_its_node_dies() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto, crate::util::Tool::Nats]) {
        return;
    }
    let mut nodes = start_cluster();

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
    let text = std::fs::read_to_string(&config).unwrap().replace(
        &format!("url = \"mqtt://127.0.0.1:{}\"", nodes[0].mqtt),
        &format!(
            "url = [\"mqtt://127.0.0.1:{}\", \"mqtt://127.0.0.1:{}\"]",
            nodes[0].mqtt, nodes[1].mqtt
        ),
    );
    std::fs::write(&config, text).unwrap();
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
