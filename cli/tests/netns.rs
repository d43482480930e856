//! Issue "Beyond one laptop", tested across hosts: network namespaces
//! (`ip netns`, veth pairs on a bridge of their own) stand for machines.
//! Three NATS nodes (a real clustered broker, MQTT gateway on), three
//! bridges (`boardcast run`, one simulated board each) and one hub, each
//! in its own namespace. Mid-round the bridges' broker node is killed and
//! then a bridge is SIGKILLed: every game at the hub is exact (the live
//! bridges' files byte for byte and the source games' moves), the dead
//! bridge's game keeps every move it published, and the hub reports that
//! bridge offline.
//!
//! Needs root and `ip` (CI runs as root); anywhere else it says why and
//! does nothing.

use std::process::{Child, Command, Stdio};

use crate::games::python_chess_mainlines;
use crate::hub::{HubBoard, HubProc, bridge_config, game_file, hub_config, wait_until};
use crate::util::{Daemon, SimBoard, SimOptions, binary, game};

/// Ports inside the namespaces (each has its own stack; none standard).
const NATS_CLIENT: u16 = 14222;
const NATS_ROUTE: u16 = 16222;
const NATS_MQTT: u16 = 18830;
const HUB_WEB: u16 = 18080;

fn ip(args: &[&str]) {
    let out = Command::new("ip").args(args).output().expect("ip runs");
    assert!(
        out.status.success(),
        "ip {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A private network: a switch namespace with a Linux bridge, and hosts
/// (namespaces) plugged into it with veth pairs, on 10.88.0.0/24. Nothing
/// is added to the machine's own namespace. Dropping it deletes them all.
struct Net {
    tag: String,
    hosts: Vec<String>,
}

impl Net {
    fn new() -> Net {
        let tag = format!("bc{}", std::process::id());
        let net = Net {
            hosts: vec![format!("{tag}-sw")],
            tag,
        };
        let sw = &net.hosts[0];
        ip(&["netns", "add", sw]);
        ip(&["-n", sw, "link", "add", "br0", "type", "bridge"]);
        ip(&["-n", sw, "link", "set", "br0", "up"]);
        net
    }

    /// Adds host `name` at 10.88.0.`n`; returns its namespace.
    fn host(&mut self, name: &str, n: u8) -> String {
        let ns = format!("{}-{name}", self.tag);
        let sw = self.hosts[0].clone();
        ip(&["netns", "add", &ns]);
        self.hosts.push(ns.clone());
        ip(&["-n", &ns, "link", "set", "lo", "up"]);
        let port = format!("v{name}");
        ip(&[
            "-n", &sw, "link", "add", &port, "type", "veth", "peer", "name", "eth0", "netns", &ns,
        ]);
        ip(&["-n", &sw, "link", "set", &port, "master", "br0"]);
        ip(&["-n", &sw, "link", "set", &port, "up"]);
        ip(&[
            "-n",
            &ns,
            "addr",
            "add",
            &format!("10.88.0.{n}/24"),
            "dev",
            "eth0",
        ]);
        ip(&["-n", &ns, "link", "set", "eth0", "up"]);
        ns
    }

    /// A command run inside namespace `ns`.
    fn exec(ns: &str, program: &str) -> Command {
        let mut c = Command::new("ip");
        c.args(["netns", "exec", ns, program]);
        c
    }
}

impl Drop for Net {
    fn drop(&mut self) {
        for ns in self.hosts.iter().rev() {
            let _ = Command::new("ip").args(["netns", "del", ns]).status();
        }
    }
}

/// A NATS node in its namespace.
struct Node {
    child: Option<Child>,
    _dir: tempfile::TempDir,
}

impl Node {
    fn start(ns: &str, n: usize, addr: &str, peers: &[String]) -> Node {
        let dir = tempfile::tempdir().unwrap();
        let routes: Vec<String> = peers
            .iter()
            .map(|p| format!("nats://{p}:{NATS_ROUTE}"))
            .collect();
        let conf = crate::nats::node_conf(
            n,
            "boardcast-netns",
            addr,
            [NATS_CLIENT, NATS_ROUTE, NATS_MQTT],
            &routes,
            &dir.path().join("js"),
        );
        let path = dir.path().join("nats.conf");
        std::fs::write(&path, conf).unwrap();
        let child = Net::exec(ns, &crate::nats::server())
            .arg("-c")
            .arg(&path)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.path().join("nats.log")).unwrap())
            .spawn()
            .expect("nats-server runs");
        Node {
            child: Some(child),
            _dir: dir,
        }
    }

    fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        self.kill();
    }
}

/// `GET /snapshot` of the hub from inside its namespace (a thread that
/// enters the namespace for the request).
fn snapshot_in(ns: &str, addr: &str) -> Option<serde_json::Value> {
    let (ns, addr) = (ns.to_string(), addr.to_string());
    std::thread::spawn(move || {
        let f = std::fs::File::open(format!("/var/run/netns/{ns}")).ok()?;
        nix::sched::setns(f, nix::sched::CloneFlags::CLONE_NEWNET).ok()?;
        crate::hub::snapshot(&addr)
    })
    .join()
    .ok()
    .flatten()
}

/// Plies of board `id` on the hub's page.
fn plies(snap: &serde_json::Value, id: &str) -> Option<usize> {
    let i = snap["boards"].as_array()?.iter().position(|b| b == id)?;
    Some(crate::util::state_moves(&snap["states"][i]).len())
}

/// A simulated board that plays slowly enough (about 0.85 s a move, so a
/// game lasts over a minute) for a node and a bridge to die mid-game even
/// when the cluster takes 10-20 s to take a bridge back after its node
/// died (seen in CI).
fn slow(serial: &str) -> SimOptions {
    SimOptions {
        pace: boardcast_sim::pty::Pace::Compressed {
            think_ms: 800,
            factor: 10,
        },
        ..SimOptions::fast(serial)
    }
}

fn can_run() -> bool {
    use crate::util::{Tool, require};
    require(&[
        Tool::Root,
        Tool::Nats,
        Tool::Mosquitto,
        Tool::Python("chess"),
    ])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn across_hosts_a_dead_broker_node_and_a_dead_bridge_lose_no_move_at_the_hub() {
    if !can_run() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut net = Net::new();
    let nodes_ns: Vec<String> = (1..=3)
        .map(|i| net.host(&format!("n{i}"), i as u8))
        .collect();
    let addrs: Vec<String> = (1..=3).map(|i| format!("10.88.0.{i}")).collect();
    let mut nodes: Vec<Node> = (0..3)
        .map(|i| {
            let peers: Vec<String> = (0..3)
                .filter(|&j| j != i)
                .map(|j| addrs[j].clone())
                .collect();
            Node::start(&nodes_ns[i], i + 1, &addrs[i], &peers)
        })
        .collect();
    let hub_ns = net.host("hub", 20);
    let bridge_ns: Vec<String> = (1..=3)
        .map(|i| net.host(&format!("b{i}"), 10 + i as u8))
        .collect();

    // The cluster is up when a retained message published on node 1 is
    // read on node 3, from the hub's host.
    wait_until("the NATS cluster across namespaces", 90, || {
        let pubd = Net::exec(&hub_ns, "mosquitto_pub")
            .args(["-h", &addrs[0], "-p", &NATS_MQTT.to_string()])
            .args(["-t", "ready/x", "-m", "1", "-r", "-q", "1"])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        let read = Net::exec(&hub_ns, "mosquitto_sub")
            .args(["-h", &addrs[2], "-p", &NATS_MQTT.to_string()])
            .args(["-t", "ready/x", "-C", "1", "-W", "2"])
            .stderr(Stdio::null())
            .output()
            .is_ok_and(|o| o.status.success() && o.stdout == b"1\n");
        (pubd && read).then_some(())
    });

    // The hub prefers node 3; the bridges node 1 (then 2, then 3).
    let url = |order: [usize; 3]| {
        let list: Vec<String> = order
            .iter()
            .map(|&i| format!("\"mqtt://{}:{NATS_MQTT}\"", addrs[i]))
            .collect();
        format!("[{}]", list.join(", "))
    };
    let hub_web = format!("10.88.0.20:{HUB_WEB}");
    let hub_dir = dir.path().join("hub");
    let hub_conf = hub_config(&hub_dir, &url([2, 1, 0]), "olympiad", &hub_web);
    let mut hub_cmd = Net::exec(&hub_ns, binary());
    let hub = HubProc::start_with(&hub_conf, &mut hub_cmd);

    // Three bridges, one board each; long enough games to kill things
    // mid-round.
    let mut sims = Vec::new();
    let mut bridges: Vec<Option<Daemon>> = Vec::new();
    let mut expected = Vec::new();
    for (i, host) in bridge_ns.iter().enumerate() {
        let name = format!("hall-{}", i + 1);
        let id = format!("t{}", i + 1);
        let number = i as u32 + 1;
        let bdir = dir.path().join(&name);
        std::fs::create_dir_all(&bdir).unwrap();
        let g = game(20 + i, Some(90));
        let sim = SimBoard::new(
            &bdir,
            &id,
            g.clone(),
            30 + i as u64,
            slow(&format!("8800{i}")),
        );
        let config = bridge_config(
            &bdir,
            &name,
            &url([0, 1, 2]),
            "olympiad",
            &[HubBoard {
                id: id.clone(),
                port: sim.path().to_string_lossy().into_owned(),
                number,
            }],
        );
        bridges.push(Some(Daemon::start_with(
            &config,
            &mut Net::exec(host, binary()),
        )));
        sims.push(sim);
        expected.push((name, id, number, g.sans));
    }

    // A few moves of every board reach the hub; then the bridges' node dies.
    wait_until("a few moves of every board at the hub", 120, || {
        let s = snapshot_in(&hub_ns, &hub_web)?;
        expected
            .iter()
            .all(|(_, id, ..)| plies(&s, id).is_some_and(|p| p >= 6))
            .then_some(())
    });
    nodes[0].kill();
    // Play goes on through the other nodes. Once the cluster has caught
    // up (the hub shows what hall-2 itself has written), hall-2 dies
    // mid-game. (A bridge killed while its node's death still holds its
    // events unacknowledged loses them with its memory: that is the
    // bridge's queue, not the hub's.)
    // "Caught up": twice in a row, a second apart, the hub is moving and
    // at least as far as hall-2's own folder (so the cluster takes hall-2's
    // messages again, not only holds them).
    let t2_folder = dir.path().join("hall-2/pgn");
    let mut last = None;
    let before = wait_until("hall-2's board moving after the failover", 120, || {
        let s = snapshot_in(&hub_ns, &hub_web)?;
        let at_hub = plies(&s, "t2")?;
        let written = python_chess_mainlines(&game_file(&t2_folder, 2)?)
            .first()?
            .len();
        let caught_up = at_hub >= 16 && at_hub >= written;
        let steady = caught_up && last.is_some_and(|l| at_hub > l);
        last = caught_up.then_some(at_hub);
        if !steady {
            std::thread::sleep(std::time::Duration::from_millis(800));
        }
        steady.then_some(at_hub)
    });
    bridges[1].take().expect("running").crash();
    let snap = wait_until("hall-2 reported offline at the hub", 60, || {
        let s = snapshot_in(&hub_ns, &hub_web)?;
        (s["bridges"]["hall-2"] == "offline").then_some(s)
    });
    let i = snap["boards"]
        .as_array()
        .unwrap()
        .iter()
        .position(|b| b == "t2")
        .unwrap();
    assert_eq!(snap["states"][i]["status"], "offline", "{snap}");
    // The live bridges are online (a late will of theirs, from the dead
    // node, is answered by them within moments).
    wait_until("hall-1 and hall-3 online at the hub", 30, || {
        let s = snapshot_in(&hub_ns, &hub_web)?;
        (s["bridges"]["hall-1"] == "online"
            && s["bridges"]["hall-3"] == "online"
            && s["bridges"]["hall-2"] == "offline")
            .then_some(())
    });

    // The live bridges' games: exact at the hub, byte for byte and move for
    // move.
    let hub_pgn = hub_dir.join("pgn");
    for (name, id, number, sans) in expected.iter().filter(|e| e.0 != "hall-2") {
        let bridge_pgn = dir.path().join(name).join("pgn");
        let last = format!(" {} ", sans.last().unwrap());
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
        let text = loop {
            let ours = game_file(&hub_pgn, *number).unwrap_or_default();
            let theirs = game_file(&bridge_pgn, *number).unwrap_or_default();
            if ours == theirs && ours.contains(&last) {
                break ours;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "board {id}'s whole game never reached the hub:\n--- hub ---\n{ours}\n--- {name} ---\n{theirs}"
            );
            std::thread::sleep(std::time::Duration::from_millis(200));
        };
        assert_eq!(
            python_chess_mainlines(&text),
            vec![sans.clone()],
            "board {id}"
        );
    }
    // The dead bridge's game: every move it published (its own folder's
    // last file, and what the page showed before the kill) is at the hub.
    let (_, _, number, sans) = &expected[1];
    let ours = python_chess_mainlines(&game_file(&hub_pgn, *number).expect("t2 at the hub"));
    let theirs = python_chess_mainlines(
        &game_file(&dir.path().join("hall-2/pgn"), *number).expect("t2 in its bridge's folder"),
    );
    assert_eq!(ours.len(), 1);
    let ours = &ours[0];
    assert!(
        ours.len() >= before,
        "{} plies at the hub, {before} seen before",
        ours.len()
    );
    assert!(
        ours.len() >= theirs[0].len(),
        "hub {} < bridge {}",
        ours.len(),
        theirs[0].len()
    );
    assert_eq!(
        ours[..],
        sans[..ours.len()],
        "the hub's t2 is the source game"
    );
    eprintln!(
        "netns: t2 stopped at {} of {} plies; the hub has {}",
        theirs[0].len(),
        sans.len(),
        ours.len()
    );
    drop(hub);
    drop(bridges);
    drop(nodes);
    drop(sims);
    drop(net);
}
