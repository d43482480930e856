//! Helpers for tests with real parts: a Mosquitto broker started on a free
//! loopback port, an MQTT subscriber, the daemon binary, and simulated DGT
//! boards on pseudo-terminals.
//!
//! A [`SimBoard`] is the far end of a serial cable: it holds the master side
//! of a pty, and the daemon opens the slave side through its real serial
//! code. The board answers the host's commands (decoded with the protocol
//! crate's `CommandDecoder`) and plays a simulator session on its own
//! clock, whether or not it is plugged in, so moves made while it is
//! unplugged show in the board dump after a replug. Each plug creates a new
//! pty and a new symlink in the board's folder, so the daemon finds it by a
//! glob pattern, as it finds real boards under `/dev/serial/by-id/`.
//!
//! The benchmark (`benches/live.rs`) includes this file too.

#![allow(dead_code)]

use std::fs;
use std::io;
use std::net::{TcpListener, TcpStream};
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use boardcast::board::Cell;
use boardcast::sim::dgt::{dump_message, reading_message};
use boardcast::sim::{self, Clean, Reading, Session, SourceGame};
use boardcast_protocols::dgt::{Command as DgtCommand, CommandDecoder, Message};
use bytes::BytesMut;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use rumqttc::{AsyncClient, Event, Incoming, MqttOptions, QoS};
use tokio::io::unix::AsyncFd;
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
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/master-games.pgn");
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

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { nix::libc::geteuid() == 0 }
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
        let mut o = MqttOptions::new(id, "127.0.0.1", port);
        o.set_clean_session(!persistent);
        o.set_keep_alive(Duration::from_secs(5));
        o.set_max_packet_size(1 << 20, 1 << 20);
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
                        let _ = client.try_subscribe(filter.clone(), QoS::AtLeastOnce);
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
        let log = config.with_extension("log");
        let child = Command::new(binary())
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
        kill(Pid::from_raw(child.id() as i32), Signal::SIGTERM).unwrap();
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

/// How simulated time maps to wall time.
#[derive(Clone, Copy, Debug)]
pub enum Pace {
    /// As simulated: thinking takes seconds.
    Real,
    /// Gaps between moves (the simulator's thinking, a second or more)
    /// become `think_ms`; gaps within a move (hand travel) are divided by
    /// `factor`. Use with the short settle times of [`write_config`].
    Compressed { think_ms: u64, factor: u64 },
}

impl Pace {
    /// The default compression of the tests.
    pub fn fast() -> Pace {
        Pace::Compressed {
            think_ms: 160,
            factor: 10,
        }
    }

    fn gap(self, sim_gap: u64) -> u64 {
        match self {
            Pace::Real => sim_gap,
            Pace::Compressed { think_ms, factor } => {
                if sim_gap >= 1_000 {
                    think_ms
                } else {
                    (sim_gap / factor).max(1)
                }
            }
        }
    }
}

/// Options of a simulated board.
#[derive(Clone, Debug)]
pub struct SimOptions {
    pub serial: String,
    pub pace: Pace,
    /// Write a burst of garbage after every this many readings.
    pub garbage_every: Option<usize>,
    /// Wall time from update mode to the first reading.
    pub lead_in: Duration,
}

impl SimOptions {
    pub fn fast(serial: &str) -> SimOptions {
        SimOptions {
            serial: serial.into(),
            pace: Pace::fast(),
            garbage_every: None,
            lead_in: Duration::from_millis(300),
        }
    }
}

struct Plugged {
    master: Arc<AsyncFd<OwnedFd>>,
    /// The test keeps a slave descriptor open so the master never sees a
    /// hang-up between the daemon's connections.
    _slave: OwnedFd,
    updates: bool,
    symlink: PathBuf,
}

struct Shared {
    cells: [Cell; 64],
    rotated: bool,
    serial: String,
    plugged: Option<Plugged>,
    /// Wall time each reading was written to the line (if it was).
    written: Vec<Option<Instant>>,
    /// Readings applied so far.
    applied: usize,
    garbage_every: Option<usize>,
}

/// A simulated DGT board on a pty.
pub struct SimBoard {
    shared: Arc<Mutex<Shared>>,
    folder: PathBuf,
    name: String,
    plugs: usize,
    server: Option<JoinHandle<()>>,
    player: JoinHandle<()>,
    started: Arc<Notify>,
    pub session: Session,
    pub game: SourceGame,
}

impl SimBoard {
    /// A board that will play `game` cleanly (seeded), plugged in at once
    /// as `{folder}/{name}-1`. Play starts when the host first asks for
    /// update mode.
    pub fn new(
        folder: &Path,
        name: &str,
        game: SourceGame,
        seed: u64,
        opts: SimOptions,
    ) -> SimBoard {
        let session = sim::simulate(&game, &mut Clean, seed, false);
        Self::with_session(folder, name, game, session, opts)
    }

    pub fn with_session(
        folder: &Path,
        name: &str,
        game: SourceGame,
        session: Session,
        opts: SimOptions,
    ) -> SimBoard {
        let shared = Arc::new(Mutex::new(Shared {
            cells: *session.initial,
            rotated: session.rotated,
            serial: opts.serial.clone(),
            plugged: None,
            written: vec![None; session.readings.len()],
            applied: 0,
            garbage_every: opts.garbage_every,
        }));
        let started = Arc::new(Notify::new());
        let player = tokio::spawn(play(
            shared.clone(),
            started.clone(),
            session.readings.clone(),
            opts.pace,
            opts.lead_in,
        ));
        let mut b = SimBoard {
            shared,
            folder: folder.to_owned(),
            name: name.to_string(),
            plugs: 0,
            server: None,
            player,
            started,
            session,
            game,
        };
        b.plug();
        b
    }

    /// The glob pattern that finds this board on any of its plugs.
    pub fn pattern(&self) -> String {
        self.folder
            .join(format!("{}-*", self.name))
            .to_string_lossy()
            .into_owned()
    }

    /// The path of the current plug.
    pub fn path(&self) -> PathBuf {
        self.folder.join(format!("{}-{}", self.name, self.plugs))
    }

    /// Plugs the board in on a new pty (a new path).
    pub fn plug(&mut self) {
        assert!(self.server.is_none(), "already plugged");
        let pty = nix::pty::openpty(None, None).expect("openpty");
        // Not inherited by the daemon (spawned later): a copy of the
        // master there would keep the line up after an unplug.
        for fd in [&pty.master, &pty.slave] {
            nix::fcntl::fcntl(
                fd,
                nix::fcntl::FcntlArg::F_SETFD(nix::fcntl::FdFlag::FD_CLOEXEC),
            )
            .unwrap();
        }
        // Raw line discipline before anyone talks: no echo, no line editing.
        let mut t = nix::sys::termios::tcgetattr(&pty.slave).unwrap();
        nix::sys::termios::cfmakeraw(&mut t);
        nix::sys::termios::tcsetattr(&pty.slave, nix::sys::termios::SetArg::TCSANOW, &t).unwrap();
        let flags = nix::fcntl::fcntl(&pty.master, nix::fcntl::FcntlArg::F_GETFL).unwrap();
        let flags = nix::fcntl::OFlag::from_bits_truncate(flags) | nix::fcntl::OFlag::O_NONBLOCK;
        nix::fcntl::fcntl(&pty.master, nix::fcntl::FcntlArg::F_SETFL(flags)).unwrap();
        let tty = nix::unistd::ttyname(&pty.slave).unwrap();
        self.plugs += 1;
        let symlink = self.path();
        let _ = fs::remove_file(&symlink);
        std::os::unix::fs::symlink(&tty, &symlink).unwrap();
        // SAFETY: the OwnedFd is a valid descriptor owned by the AsyncFd,
        // never replaced or closed while registered.
        let master = Arc::new(unsafe { AsyncFd::register(pty.master) }.unwrap());
        self.shared.lock().unwrap().plugged = Some(Plugged {
            master: master.clone(),
            _slave: pty.slave,
            updates: false,
            symlink,
        });
        self.server = Some(tokio::spawn(serve(
            self.shared.clone(),
            master,
            self.started.clone(),
        )));
    }

    /// Pulls the cable: the pty is closed (the daemon's reads fail) and its
    /// path disappears. Play goes on.
    pub fn unplug(&mut self) {
        if let Some(s) = self.server.take() {
            s.abort();
        }
        let p = self.shared.lock().unwrap().plugged.take();
        if let Some(p) = p {
            let _ = fs::remove_file(&p.symlink);
        }
    }

    /// Writes raw bytes on the line now.
    pub fn inject(&self, bytes: &[u8]) {
        let s = self.shared.lock().unwrap();
        if let Some(p) = &s.plugged {
            write_all(&p.master, bytes);
        }
    }

    /// Readings applied so far.
    pub fn applied(&self) -> usize {
        self.shared.lock().unwrap().applied
    }

    /// Whether every reading has been played.
    pub fn done(&self) -> bool {
        self.applied() == self.session.readings.len()
    }

    /// When each reading was written to the line.
    pub fn written(&self) -> Vec<Option<Instant>> {
        self.shared.lock().unwrap().written.clone()
    }
}

impl Drop for SimBoard {
    fn drop(&mut self) {
        self.unplug();
        self.player.abort();
    }
}

fn write_all(fd: &AsyncFd<OwnedFd>, mut bytes: &[u8]) {
    let mut spins = 0;
    while !bytes.is_empty() {
        match nix::unistd::write(fd.get_ref(), bytes) {
            Ok(n) => bytes = &bytes[n..],
            Err(nix::errno::Errno::EAGAIN) if spins < 2000 => {
                spins += 1;
                std::thread::sleep(Duration::from_micros(500));
            }
            Err(_) => return,
        }
    }
}

/// Answers the host's commands on one plug.
async fn serve(shared: Arc<Mutex<Shared>>, master: Arc<AsyncFd<OwnedFd>>, started: Arc<Notify>) {
    let mut decoder = CommandDecoder::new();
    let mut buf = BytesMut::new();
    let mut bytes = [0u8; 512];
    loop {
        let Ok(mut guard) = master.readable().await else {
            return;
        };
        match guard
            .try_io(|fd| nix::unistd::read(fd.get_ref(), &mut bytes).map_err(io::Error::from))
        {
            Ok(Ok(0)) => return,
            Ok(Ok(n)) => buf.extend_from_slice(&bytes[..n]),
            Ok(Err(e)) if e.raw_os_error() == Some(nix::libc::EIO) => {
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
            Ok(Err(_)) => return,
            Err(_would_block) => continue,
        }
        loop {
            let cmd = match decoder.decode(&mut buf) {
                Ok(Some(c)) => c,
                Ok(None) => break,
                Err(_) => continue,
            };
            let mut s = shared.lock().unwrap();
            let reply = match cmd {
                DgtCommand::SerialNumber => Some(Message::SerialNumber(s.serial.clone())),
                DgtCommand::Version => Some(Message::Version { major: 2, minor: 7 }),
                DgtCommand::SendBoard => Some(dump_message(&s.cells, s.rotated)),
                DgtCommand::Reset => {
                    if let Some(p) = &mut s.plugged {
                        p.updates = false;
                    }
                    None
                }
                DgtCommand::SendUpdate
                | DgtCommand::SendUpdateNice
                | DgtCommand::SendUpdateBoard => {
                    if let Some(p) = &mut s.plugged {
                        p.updates = true;
                    }
                    started.notify_one();
                    None
                }
                _ => None,
            };
            if let Some(m) = reply {
                write_all(&master, &m.to_bytes());
            }
        }
    }
}

/// Plays the session's readings on the board's own clock.
async fn play(
    shared: Arc<Mutex<Shared>>,
    started: Arc<Notify>,
    readings: Vec<(u64, Reading)>,
    pace: Pace,
    lead_in: Duration,
) {
    started.notified().await;
    let start = Instant::now() + lead_in;
    let mut wall = 0u64;
    let mut prev = readings.first().map_or(0, |r| r.0);
    for (i, (t, reading)) in readings.iter().enumerate() {
        wall += pace.gap(t - prev);
        prev = *t;
        tokio::time::sleep_until(start + Duration::from_millis(wall)).await;
        let mut s = shared.lock().unwrap();
        match reading {
            Reading::Square(sq, cell) => s.cells[*sq as usize] = *cell,
            Reading::Dump(cells) => s.cells = **cells,
        }
        s.applied = i + 1;
        let garbage = s.garbage_every.is_some_and(|n| (i + 1) % n == 0);
        let rotated = s.rotated;
        if let Some(p) = &s.plugged
            && p.updates
        {
            if !matches!(reading, Reading::Dump(_)) {
                write_all(&p.master, &reading_message(reading, rotated).to_bytes());
            }
            if garbage {
                // Noise without a top bit, a frame of an unknown id, a
                // field update cut short by a new header, a bad length.
                write_all(
                    &p.master,
                    &[
                        0x00, 0x13, 0x7f, 0xfe, 0x01, 0x02, 0x8e, 0x00, 0x05, 0x8e, 0x7f, 0x7f,
                    ],
                );
            }
            s.written[i] = Some(Instant::now());
        }
    }
}
