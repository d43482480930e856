//! Issue 27, the newer surfaces tried as an attacker would: the LiveChess
//! listener (connection cap, header timeout, `Origin`, message size,
//! subscriptions per socket), the hub's input (a retained state with an
//! absurd round, a forged move meant to end up in the PGN), the shipped
//! broker ACL (a screen's account reads nothing live) and the arbiter login
//! (its own password, by POST, random expiring sessions). Real Mosquitto,
//! real daemon and hub processes, raw HTTP and WebSocket clients.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::{Duration, Instant};

use rumqttc::{AsyncClient, Event, Incoming, MqttOptions, QoS};
use serde_json::{Value, json};

use crate::hub::{
    HubProc, bridge_and_board, game_file, heartbeat_bridge, hub_config, silent_hub, snapshot,
    wait_until,
};
use crate::util::{BoardConf, Broker, Daemon, free_port, publish, write_config_with};

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// A daemon with one board that is never found (its port does not exist)
/// and `extra` tables; its broker.
pub(crate) fn daemon(dir: &Path, extra: &str) -> (Broker, Daemon) {
    let broker = Broker::start();
    let config = write_config_with(
        dir,
        &broker.url(),
        extra,
        "hard",
        &[BoardConf {
            id: "1".into(),
            port: dir.join("no-such-tty").to_string_lossy().into_owned(),
            serial: Some("12345".into()),
        }],
    );
    (broker, Daemon::start(&config))
}

/// Waits until `port` accepts connections.
pub(crate) fn wait_port(port: u16, daemon: &Daemon) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "nothing on port {port}: {}",
            daemon.log()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// One raw HTTP/1.1 request on a fresh connection: the status code and the
/// whole reply.
pub(crate) fn request(port: u16, text: &str) -> (u16, String) {
    request_within(port, Duration::from_secs(5), text)
}

/// [`request`], the reply awaited for `wait`.
pub(crate) fn request_within(port: u16, wait: Duration, text: &str) -> (u16, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(wait)).unwrap();
    s.write_all(text.as_bytes()).unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let out = String::from_utf8_lossy(&out).into_owned();
    let code = out.get(9..12).and_then(|c| c.parse().ok()).unwrap_or(0);
    (code, out)
}

/// Whether the server closed `s` within `wait` (a read gives 0 bytes or an
/// error other than a timeout).
pub(crate) fn closed_within(s: &mut TcpStream, wait: Duration) -> bool {
    s.set_read_timeout(Some(wait)).unwrap();
    let mut b = [0u8; 64];
    match s.read(&mut b) {
        Ok(0) => true,
        Ok(_) => false,
        Err(e) => !matches!(
            e.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
        ),
    }
}

// ------------------------------------------------------------ websocket

/// A WebSocket opened by hand: the handshake's status code and, on 101,
/// the stream.
pub(crate) fn ws_open(port: u16, origin: Option<&str>) -> (u16, Option<TcpStream>) {
    ws_open_at(port, "127.0.0.1", origin)
}

/// [`ws_open`] with the `Host` header `host`.
pub(crate) fn ws_open_at(port: u16, host: &str, origin: Option<&str>) -> (u16, Option<TcpStream>) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let origin = origin
        .map(|o| format!("Origin: {o}\r\n"))
        .unwrap_or_default();
    write!(
        s,
        "GET /api/v1.0 HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n{origin}\r\n"
    )
    .unwrap();
    // The head, byte by byte (frames follow it).
    let mut head = Vec::new();
    let mut b = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match s.read(&mut b) {
            Ok(1) => head.push(b[0]),
            _ => break,
        }
    }
    let head = String::from_utf8_lossy(&head);
    let code = head.get(9..12).and_then(|c| c.parse().ok()).unwrap_or(0);
    (code, (code == 101).then_some(s))
}

/// Sends one masked text frame.
pub(crate) fn ws_send(s: &mut TcpStream, text: &[u8]) -> std::io::Result<()> {
    let mut f = vec![0x81u8];
    let n = text.len();
    if n < 126 {
        f.push(0x80 | n as u8);
    } else if n < 65_536 {
        f.push(0x80 | 126);
        f.extend_from_slice(&(n as u16).to_be_bytes());
    } else {
        f.push(0x80 | 127);
        f.extend_from_slice(&(n as u64).to_be_bytes());
    }
    let mask = [1u8, 2, 3, 4];
    f.extend_from_slice(&mask);
    f.extend(text.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    s.write_all(&f)
}

/// The next frame: opcode and payload; `None` at the end of the stream.
pub(crate) fn ws_recv(s: &mut TcpStream) -> Option<(u8, Vec<u8>)> {
    let mut h = [0u8; 2];
    s.read_exact(&mut h).ok()?;
    let mut n = u64::from(h[1] & 0x7f);
    if n == 126 {
        let mut e = [0u8; 2];
        s.read_exact(&mut e).ok()?;
        n = u64::from(u16::from_be_bytes(e));
    } else if n == 127 {
        let mut e = [0u8; 8];
        s.read_exact(&mut e).ok()?;
        n = u64::from_be_bytes(e);
    }
    let mut p = vec![0u8; n as usize];
    s.read_exact(&mut p).ok()?;
    Some((h[0] & 0x0f, p))
}

/// The next text frame, parsed.
pub(crate) fn ws_json(s: &mut TcpStream) -> Value {
    loop {
        let (op, p) = ws_recv(s).expect("a frame");
        if op == 1 {
            return serde_json::from_slice(&p).unwrap();
        }
    }
}

/// Issue 27, "The LiveChess listener has none of the page's protections":
/// half-open connections past the cap are closed at once and the others
/// after the header timeout, so the API stays up; a web page of another
/// site cannot open the WebSocket (lichess.org and a client without
/// `Origin` can); a socket subscribes to at most `max_subscriptions` feeds;
/// a message over 64 KiB closes the socket.
#[test]
fn hardening_the_livechess_listener_caps_connections_origins_feeds_and_messages() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let extra = format!(
        "\n[livechess]\nlisten = \"127.0.0.1:{port}\"\nmax_connections = 8\nheader_timeout_s = 1\nmax_subscriptions = 4\n"
    );
    let (_broker, daemon) = daemon(dir.path(), &extra);
    wait_port(port, &daemon);

    // 20 connections that never send a request.
    let idle: Vec<TcpStream> = (0..20)
        .map(|_| TcpStream::connect(("127.0.0.1", port)).unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let mut open: Vec<TcpStream> = idle
        .into_iter()
        .filter_map(|mut s| (!closed_within(&mut s, Duration::from_millis(200))).then_some(s))
        .collect();
    assert!(
        open.len() <= 8,
        "{} of 20 half-open connections kept past a cap of 8",
        open.len()
    );
    let kept = open
        .iter_mut()
        .map(|s| closed_within(s, Duration::from_secs(3)))
        .filter(|closed| !closed)
        .count();
    assert_eq!(kept, 0, "the header timeout closes the rest");
    drop(open);
    let (code, body) = request(
        port,
        "GET /api/v1.0/eboards HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    );
    assert_eq!(code, 200, "{body}");
    let serial = "12345";

    // Origins: a stranger's page no, lichess and tools yes.
    assert_eq!(ws_open(port, Some("https://evil.example")).0, 403);
    assert_eq!(
        ws_open(port, Some("https://lichess.org.evil.example")).0,
        403
    );
    assert_eq!(ws_open(port, Some("https://lichess.org")).0, 101);
    assert_eq!(ws_open(port, Some("https://www.chess.com")).0, 101);
    let (code, ws) = ws_open(port, None);
    assert_eq!(code, 101);
    let mut ws = ws.unwrap();

    // Subscriptions: four feeds, the fifth is refused.
    for n in 1..=5 {
        let call = json!({"id": n, "call": "subscribe",
            "param": {"feed": "eboardevent", "id": 100 + n, "param": {"serialnr": serial}}});
        ws_send(&mut ws, call.to_string().as_bytes()).unwrap();
        let reply = loop {
            let f = ws_json(&mut ws);
            if f["response"] != "feed" {
                break f;
            }
        };
        let expected = if n <= 4 { "call" } else { "error" };
        assert_eq!(reply["response"], expected, "subscription {n}: {reply}");
    }

    // A message over 64 KiB closes the socket.
    let big = format!(
        "{{\"id\":9,\"call\":\"eboards\",\"pad\":\"{}\"}}",
        "x".repeat(100 * 1024)
    );
    let _ = ws_send(&mut ws, big.as_bytes());
    let deadline = Instant::now() + Duration::from_secs(5);
    let closed = loop {
        match ws_recv(&mut ws) {
            None | Some((8, _)) => break true,
            Some(_) if Instant::now() > deadline => break false,
            Some(_) => {}
        }
    };
    assert!(closed, "a 100 KiB message did not close the socket");
    drop(daemon);
}

/// Issue 27, "One MQTT message aborts the hub": a retained state with
/// `"round": 4000000000` is dropped (the hub stays up and serves the other
/// boards), and a forged move with a newline and a PGN tag never reaches
/// the hub's PGN folder, whether it comes in a state or in an event.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hardening_the_hub_drops_an_absurd_round_and_forged_moves() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let state = |board: &str, round: u64, number: u32, sans: &[&str], uci: &[&str]| {
        json!({"board": board, "bridge": "hall-a", "status": "connected", "game": 1,
               "start_fen": START, "fen": START, "moves": sans, "uci": uci,
               "round": round, "number": number,
               "white": {"name": "White, W"}, "black": {"name": "Black, B"}})
        .to_string()
        .into_bytes()
    };
    let p = broker.port;
    publish(p, "hx/bridge/hall-a/status", b"online".to_vec(), true).await;
    publish(
        p,
        "hx/arbiter/board/huge/state",
        state("huge", 4_000_000_000, 1, &[], &[]),
        true,
    )
    .await;
    publish(
        p,
        "hx/arbiter/board/forged/state",
        state(
            "forged",
            3,
            2,
            &["e4", "e5\n\n[Event \"FAKE\"]"],
            &["e2e4", "e7e5"],
        ),
        true,
    )
    .await;
    let listen = format!("127.0.0.1:{}", free_port());
    let hub_dir = dir.path().join("hub");
    let url = format!("\"mqtt://127.0.0.1:{p}\"");
    let hub = HubProc::start(&hub_config(&hub_dir, &url, "hx", &listen));
    publish(
        p,
        "hx/arbiter/board/ok/state",
        state("ok", 3, 3, &["e4", "e5"], &["e2e4", "e7e5"]),
        true,
    )
    .await;
    let pgn = hub_dir.join("pgn");
    wait_until("board 3's game in the hub's folder", 30, || {
        game_file(&pgn, 3).filter(|g| g.contains("e5"))
    });
    // A forged move as an event on the good board, then a real one.
    let forged = json!({"type": "move", "board": "ok", "t_ms": 5, "seq": 1, "ply": 3,
        "side": "white", "notation": "Nf3\n\n[Event \"FAKE\"]\n1. e4", "id": "g1f3",
        "position": "x"});
    publish(
        p,
        "hx/arbiter/board/ok/event",
        forged.to_string().into_bytes(),
        false,
    )
    .await;
    publish(
        p,
        "hx/arbiter/board/ok/state",
        state("ok", 3, 3, &["e4", "e5", "Nc3"], &["e2e4", "e7e5", "b1c3"]),
        true,
    )
    .await;
    wait_until("Nc3 in the hub's folder", 30, || {
        game_file(&pgn, 3).filter(|g| g.contains("Nc3"))
    });
    std::thread::sleep(Duration::from_secs(1));
    assert!(
        hub.usage().is_some(),
        "the hub died on a retained message:\n{}",
        hub.log()
    );
    let snap = snapshot(&listen).expect("the hub's page answers");
    let boards: Vec<&str> = snap["boards"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(boards, ["ok"], "only the valid board is shown: {snap}");
    for entry in walk(&pgn) {
        let text = std::fs::read_to_string(&entry).unwrap_or_default();
        assert!(
            !text.contains("FAKE"),
            "{} holds the forged tag:\n{text}",
            entry.display()
        );
    }
    assert!(
        hub.log().contains("dropped a message"),
        "the drops are logged:\n{}",
        hub.log()
    );
}

/// Every file under `dir`.
fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// Issue 27, "The shipped ACL gives screens the live view": with
/// config/mosquitto-acl.conf on a real Mosquitto, a screen's account gets
/// the public topics and nothing under `boardcast/arbiter/`, nor the
/// command topics; the arbiters' account gets the live view.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hardening_the_shipped_acl_keeps_screens_off_the_live_view() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let passwd = dir.path().join("passwd");
    let accounts = [
        ("hall-a", "bridge-pw"),
        ("arbiter", "arbiter-pw"),
        ("operator", "op-pw"),
        ("screen", "screen-pw"),
    ];
    for (i, (user, password)) in accounts.iter().enumerate() {
        let mut c = std::process::Command::new("mosquitto_passwd");
        c.arg("-b");
        if i == 0 {
            c.arg("-c");
        }
        let out = c.arg(&passwd).args([user, password]).output().unwrap();
        assert!(out.status.success(), "{out:?}");
    }
    let acl = Path::new(crate::ROOT).join("config/mosquitto-acl.conf");
    let venue = free_port();
    let _broker = Broker::start_with(&format!(
        "listener {venue} 127.0.0.1\nallow_anonymous false\npassword_file {}\nacl_file {}\n",
        passwd.display(),
        acl.display()
    ));
    let screen = Watcher::start(
        venue,
        ("screen", "screen-pw"),
        &[
            "boardcast/#",
            "boardcast/arbiter/#",
            "boardcast/board/+/event",
        ],
    )
    .await;
    let arbiter = Watcher::start(venue, ("arbiter", "arbiter-pw"), &["boardcast/#"]).await;
    let bridge = Some(("hall-a", "bridge-pw"));
    for (topic, retain) in [
        ("boardcast/arbiter/board/a/event", false),
        ("boardcast/arbiter/board/a/state", true),
        ("boardcast/board/a/command", false),
        ("boardcast/bridge/hall-a/warning", false),
        ("boardcast/bridge/hall-a/ack", false),
        ("boardcast/board/a/event", false),
        ("boardcast/board/a/state", true),
    ] {
        crate::util::publish_as(venue, bridge, topic, b"{\"x\":1}".to_vec(), retain).await;
    }
    // A late screen gets the retained live state neither.
    let late = Watcher::start(venue, ("screen", "screen-pw"), &["boardcast/#"]).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let seen = |w: &Watcher| w.topics();
    for w in [&screen, &late] {
        let topics = seen(w);
        assert!(
            topics.iter().any(|t| t == "boardcast/board/a/state"),
            "a screen reads the public view: {topics:?}"
        );
        let leaked: Vec<&String> = topics
            .iter()
            .filter(|t| !t.starts_with("boardcast/board/") || t.ends_with("/command"))
            .collect();
        assert!(leaked.is_empty(), "a screen read {leaked:?}");
    }
    let arbiter_seen = seen(&arbiter);
    assert!(
        arbiter_seen.contains(&"boardcast/arbiter/board/a/event".to_string()),
        "the arbiters read the live view: {arbiter_seen:?}"
    );
}

/// An MQTT client with an account, subscribed to `filters`, keeping the
/// topics it receives.
struct Watcher {
    topics: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Watcher {
    async fn start(port: u16, (user, password): (&str, &str), filters: &[&str]) -> Watcher {
        let mut o = MqttOptions::new(
            format!("watch-{}", boardcast::control::new_nonce()),
            "127.0.0.1",
            port,
        );
        o.set_credentials(user, password);
        let (client, mut el) = AsyncClient::new(o, 16);
        for f in filters {
            client.subscribe(*f, QoS::AtLeastOnce).await.unwrap();
        }
        let topics = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let (t, want) = (topics.clone(), filters.len());
        let (ready_tx, ready) = tokio::sync::oneshot::channel();
        let task = tokio::spawn(async move {
            let (mut acks, mut ready_tx) = (0, Some(ready_tx));
            let _client = client;
            loop {
                match el.poll().await {
                    Ok(Event::Incoming(Incoming::SubAck(_))) => {
                        acks += 1;
                        if acks == want {
                            ready_tx.take().map(|r| r.send(()));
                        }
                    }
                    Ok(Event::Incoming(Incoming::Publish(p))) => t.lock().unwrap().push(p.topic),
                    Ok(_) => {}
                    Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
                }
            }
        });
        tokio::time::timeout(Duration::from_secs(10), ready)
            .await
            .expect("subscribed")
            .unwrap();
        Watcher { topics, task }
    }

    fn topics(&self) -> Vec<String> {
        self.topics.lock().unwrap().clone()
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Issue 27, "The arbiter login sends the command secret by GET": with
/// `[web] arbiter_password`, the operator secret opens nothing, a password
/// in the address opens nothing, the form posts the view password; each
/// login gets its own random token (HttpOnly, SameSite=Strict, Max-Age),
/// which expires. Served off loopback, the daemon warns that there is no
/// TLS.
#[test]
fn hardening_the_arbiter_login_posts_its_own_password_into_expiring_sessions() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let password = "view password 2026";
    let extra = format!(
        "\n[web]\nlisten = \"0.0.0.0:{port}\"\narbiter_password = \"{password}\"\nsession_s = 3\n"
    );
    let (_broker, daemon) = daemon(dir.path(), &extra);
    wait_port(port, &daemon);
    let post = |key: &str| {
        let body = format!("key={}", key.replace(' ', "+"));
        request(
            port,
            &format!(
                "POST /arbiter HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            ),
        )
    };
    let get = |path: &str, cookie: &str| {
        request(
            port,
            &format!(
                "GET {path} HTTP/1.1\r\nHost: x\r\nCookie: {cookie}\r\nConnection: close\r\n\r\n"
            ),
        )
    };
    let (code, form) = get("/arbiter", "");
    assert_eq!(code, 401);
    assert!(form.contains("method=post"), "{form}");
    // The operator secret is not the view password.
    assert_eq!(post(crate::util::TEST_SECRET).0, 401);
    // Nor does a password in the address open anything.
    let (code, reply) = get(
        &format!("/arbiter?key={}", password.replace(' ', "%20")),
        "",
    );
    assert_eq!(code, 401);
    assert!(
        !reply.to_ascii_lowercase().contains("set-cookie"),
        "{reply}"
    );
    let login = || {
        let (code, reply) = post(password);
        assert_eq!(code, 303, "{reply}");
        let line = reply
            .lines()
            .find_map(|l| {
                l.to_ascii_lowercase()
                    .starts_with("set-cookie:")
                    .then(|| l[11..].trim().to_string())
            })
            .expect("a cookie");
        for attr in ["HttpOnly", "SameSite=Strict", "Max-Age=3"] {
            assert!(line.contains(attr), "{attr} missing: {line}");
        }
        line.split(';').next().unwrap().to_string()
    };
    let (first, second) = (login(), login());
    assert_ne!(first, second, "every login gets its own token");
    let token = first.split_once('=').unwrap().1;
    assert!(token.len() >= 32, "{token}");
    assert!(!first.contains("view"), "the cookie is not the password");
    assert_eq!(get("/arbiter/snapshot", &first).0, 200);
    assert_eq!(get("/arbiter", &second).0, 200);
    std::thread::sleep(Duration::from_millis(3_500));
    assert_eq!(
        get("/arbiter/snapshot", &first).0,
        401,
        "the session expired"
    );
    let log = daemon.log();
    assert!(log.contains("without TLS"), "no warning about TLS:\n{log}");
}

/// Issue 27, the instance topic: a stranger publishing many instance ids
/// gets a bounded number of announces back, an id holding a newline
/// forges no log line, and a huge message is dropped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hardening_the_instance_topic_is_bounded_and_logged_escaped() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (broker, daemon) = daemon(dir.path(), "");
    let topic = "hard/bridge/test/instance";
    let sub = crate::util::Subscriber::connect(broker.port, topic, "inst-watch", false).await;
    let status =
        crate::util::Subscriber::connect(broker.port, "hard/bridge/test/status", "st", false).await;
    status
        .wait_for("the bridge online", Duration::from_secs(20), |msgs| {
            msgs.iter().any(|m| m.text() == "online").then_some(())
        })
        .await;
    let forged = "x\nERROR forged line";
    let mut payloads = vec![json!({"instance": forged, "pid": 1}).to_string()];
    payloads.push(json!({"instance": "big", "pad": "y".repeat(4096)}).to_string());
    payloads.extend(
        (0..40).map(|n| json!({"instance": format!("stranger-{n}"), "pid": n}).to_string()),
    );
    for p in payloads {
        publish(broker.port, topic, p.into_bytes(), false).await;
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let announces = sub
        .json_on(topic)
        .iter()
        .filter_map(|v| v["instance"].as_str().map(str::to_string))
        .filter(|i| !i.starts_with("stranger-") && i != forged && i != "big")
        .count();
    assert!(
        announces <= 1 + 16,
        "{announces} announces answered 42 forged instances"
    );
    let log = daemon.log();
    assert!(
        !log.contains("\nERROR forged line"),
        "a forged log line:\n{log}"
    );
}

/// Publishes one retained message of `bytes` bytes on `topic` with a raw
/// MQTT 3.1.1 client (rumqttc's own ceiling would refuse to send it).
pub(crate) fn publish_big_retained(port: u16, topic: &str, bytes: usize) {
    fn remaining(mut n: usize, out: &mut Vec<u8>) {
        loop {
            let mut b = (n % 128) as u8;
            n /= 128;
            if n > 0 {
                b |= 0x80;
            }
            out.push(b);
            if n == 0 {
                break;
            }
        }
    }
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let id = b"big-publisher";
    let mut body = vec![
        0,
        4,
        b'M',
        b'Q',
        b'T',
        b'T',
        4,
        0x02,
        0,
        30,
        0,
        id.len() as u8,
    ];
    body.extend_from_slice(id);
    let mut connect = vec![0x10];
    remaining(body.len(), &mut connect);
    connect.extend(body);
    s.write_all(&connect).unwrap();
    let mut ack = [0u8; 4];
    s.read_exact(&mut ack).unwrap();
    assert_eq!(ack, [0x20, 2, 0, 0], "CONNACK");
    // PUBLISH, QoS 1, retained.
    let mut head = vec![0x33];
    remaining(2 + topic.len() + 2 + bytes, &mut head);
    head.extend_from_slice(&(topic.len() as u16).to_be_bytes());
    head.extend_from_slice(topic.as_bytes());
    head.extend_from_slice(&[0, 1]);
    s.write_all(&head).unwrap();
    s.write_all(&vec![b'z'; bytes]).unwrap();
    let mut puback = [0u8; 4];
    s.read_exact(&mut puback).unwrap();
    assert_eq!(puback, [0x40, 2, 0, 1], "PUBACK");
    s.write_all(&[0xe0, 0]).unwrap();
}

/// How many times the daemon's log says it connected to the broker.
fn connections(log: &str) -> usize {
    log.matches("connected to the broker").count()
}

/// Issue 27, "one oversized retained message on the bridge's instance
/// topic makes it reconnect forever": a 2 MiB retained message there (over
/// the 1 MiB the bridge publishes, under the ceiling it reads) is read and
/// dropped on the same connection; a 24 MiB one (over every ceiling)
/// costs one reconnection, after which the bridge clears it and stays
/// connected. Both are logged; the bridge keeps publishing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hardening_an_oversized_retained_instance_message_never_makes_the_bridge_loop() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let topic = "hard/bridge/test/instance";
    publish_big_retained(broker.port, topic, 2 << 20);
    let config = write_config_with(
        dir.path(),
        &broker.url(),
        "",
        "hard",
        &[BoardConf {
            id: "1".into(),
            port: dir
                .path()
                .join("no-such-tty")
                .to_string_lossy()
                .into_owned(),
            serial: Some("12345".into()),
        }],
    );
    let daemon = Daemon::start(&config);
    let status =
        crate::util::Subscriber::connect(broker.port, "hard/bridge/test/status", "st", false).await;
    status
        .wait_for("the bridge online", Duration::from_secs(20), |msgs| {
            msgs.iter().any(|m| m.text() == "online").then_some(())
        })
        .await;
    tokio::time::sleep(Duration::from_secs(4)).await;
    let log = daemon.log();
    assert_eq!(
        connections(&log),
        1,
        "a 2 MiB retained message cost reconnections:\n{log}"
    );
    assert!(log.contains("dropped"), "the drop is not logged:\n{log}");

    // Over every ceiling: one reconnection, then the message is cleared.
    publish_big_retained(broker.port, topic, 24 << 20);
    tokio::time::sleep(Duration::from_secs(6)).await;
    let log = daemon.log();
    assert!(
        connections(&log) <= 3,
        "{} connections after a 24 MiB retained message:\n{log}",
        connections(&log)
    );
    let settled = connections(&log);
    tokio::time::sleep(Duration::from_secs(4)).await;
    let log = daemon.log();
    assert_eq!(
        connections(&log),
        settled,
        "the bridge keeps reconnecting:\n{log}"
    );
    let retained = std::process::Command::new("mosquitto_sub")
        .args(["-h", "127.0.0.1", "-p", &broker.port.to_string()])
        .args(["-t", topic, "-C", "1", "-W", "2", "--retained-only"])
        .output()
        .unwrap();
    assert!(
        retained.stdout.len() < 4096,
        "the oversized retained message is still on the broker ({} bytes)",
        retained.stdout.len()
    );
    assert_eq!(
        status.last_on("hard/bridge/test/status").as_deref(),
        Some("online")
    );
}

/// Issue 27, "the LiveChess follower and the hub knock copies of
/// themselves off the broker many times a second, silently": two hubs of
/// one configuration and two bridges with one `[mqtt] client_id` (each
/// with its LiveChess follower) share a broker for a while; the broker
/// never closes anybody's session for another client with the same id,
/// and each hub connects once.
#[test]
fn hardening_copies_of_a_hub_and_of_a_follower_never_knock_each_other_off() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let url = format!("\"mqtt://127.0.0.1:{}\"", broker.port);
    let hubs: Vec<HubProc> = ["h1", "h2"]
        .iter()
        .map(|d| {
            let listen = format!("127.0.0.1:{}", free_port());
            HubProc::start(&hub_config(&dir.path().join(d), &url, "kn", &listen))
        })
        .collect();
    let daemons: Vec<Daemon> = ["b1", "b2"]
        .iter()
        .map(|name| {
            let bdir = dir.path().join(name);
            std::fs::create_dir_all(&bdir).unwrap();
            let extra = format!(
                "client_id = \"venue\"\n\n[livechess]\nlisten = \"127.0.0.1:{}\"\n",
                free_port()
            );
            let config = write_config_with(
                &bdir,
                &broker.url(),
                &extra,
                "kn",
                &[BoardConf {
                    id: format!("{name}-1"),
                    port: bdir.join("no-such-tty").to_string_lossy().into_owned(),
                    serial: None,
                }],
            );
            let text = std::fs::read_to_string(&config).unwrap().replacen(
                "name = \"test\"",
                &format!("name = \"{name}\""),
                1,
            );
            std::fs::write(&config, text).unwrap();
            Daemon::start(&config)
        })
        .collect();
    std::thread::sleep(Duration::from_secs(6));
    let log = broker.log();
    let kicked: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("already connected"))
        .collect();
    assert!(kicked.is_empty(), "sessions taken over: {kicked:#?}");
    let followers = log
        .lines()
        .filter(|l| l.contains("New client connected") && l.contains("venue-livechess"))
        .count();
    assert_eq!(followers, 2, "one connection per follower:\n{log}");
    for hub in &hubs {
        assert_eq!(
            hub.log().matches("hub: connected").count(),
            1,
            "{}",
            hub.log()
        );
    }
    drop(daemons);
}

/// Issue 27, "a bridge cut off from the whole cluster (its node died with
/// it) stays online at the hub forever": the bridge is frozen (SIGSTOP)
/// with a keep-alive long enough that no will fires during the test, as
/// when the only node that could publish its will is gone. The hub, with
/// `silence_s = 2`, shows it and its board offline within a few seconds of
/// its last heartbeat, and online again when it is heard again.
#[test]
fn hardening_the_hub_shows_a_bridge_it_no_longer_hears_offline() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let url = format!("\"mqtt://127.0.0.1:{}\"", broker.port);
    let (hub, listen) = silent_hub(dir.path(), &url, "lv", 2);
    let config = heartbeat_bridge(dir.path(), &url, "lv");
    let text = std::fs::read_to_string(&config).unwrap().replacen(
        "keep_alive_s = 5",
        "keep_alive_s = 60",
        1,
    );
    std::fs::write(&config, text).unwrap();
    let daemon = Daemon::start(&config);
    let both = |status: &str| Some((Some(status.to_string()), Some(status.to_string())));
    let bridge = |s: &Value| bridge_and_board(s, "c1").0;
    wait_until("the bridge online at the hub", 30, || {
        let s = snapshot(&listen)?;
        (Some(bridge_and_board(&s, "c1")) == both("online")).then_some(())
    });
    // Heard for a while: stays online.
    std::thread::sleep(Duration::from_secs(4));
    let s = snapshot(&listen).unwrap();
    assert_eq!(bridge(&s).as_deref(), Some("online"), "{s}");

    let pid = Pid::from_raw(daemon.pid() as i32);
    kill(pid, Signal::SIGSTOP).unwrap();
    let frozen = Instant::now();
    wait_until("the silent bridge offline at the hub", 15, || {
        let s = snapshot(&listen)?;
        (Some(bridge_and_board(&s, "c1")) == both("offline")).then_some(())
    });
    let after = frozen.elapsed();
    assert!(after < Duration::from_secs(8), "{after:?}");
    assert!(hub.log().contains("not heard from"), "{}", hub.log());
    kill(pid, Signal::SIGCONT).unwrap();
    wait_until("the bridge online again", 15, || {
        let s = snapshot(&listen)?;
        (bridge(&s).as_deref() == Some("online")).then_some(())
    });
    drop(daemon);
}

/// Issue 27, one hardened accept loop: a LiveChess WebSocket whose client
/// goes silent (never answers the server's pings, sends nothing) is closed
/// after `idle_timeout_s`; one that answers the pings stays open.
#[test]
fn hardening_an_idle_livechess_websocket_is_closed() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let extra = format!("\n[livechess]\nlisten = \"127.0.0.1:{port}\"\nidle_timeout_s = 2\n");
    let (_broker, daemon) = daemon(dir.path(), &extra);
    wait_port(port, &daemon);
    let (_, silent) = ws_open(port, None);
    let mut silent = silent.unwrap();
    let (_, alive) = ws_open(port, None);
    let mut alive = alive.unwrap();
    alive
        .set_read_timeout(Some(Duration::from_secs(1)))
        .unwrap();
    let start = Instant::now();
    let mut pings = 0;
    // The live one answers every ping with a pong for 4 s.
    while start.elapsed() < Duration::from_secs(4) {
        if let Some((9, p)) = ws_recv(&mut alive) {
            pings += 1;
            let mut f = vec![0x8a, 0x80 | p.len() as u8, 0, 0, 0, 0];
            f.extend_from_slice(&p);
            alive.write_all(&f).unwrap();
        }
    }
    assert!(pings >= 2, "the server pings: {pings}");
    // The silent one was closed by then (a close frame, or the end).
    // (A read that times out takes 3 s; the end of a closed stream, at once.)
    silent
        .set_read_timeout(Some(Duration::from_secs(3)))
        .unwrap();
    let closed = loop {
        let asked = Instant::now();
        match ws_recv(&mut silent) {
            Some((8, _)) => break true,
            None => break asked.elapsed() < Duration::from_secs(2),
            Some(_) => {}
        }
    };
    assert!(closed, "the silent WebSocket is still open");
    let call = json!({"id": 1, "call": "eboards"});
    ws_send(&mut alive, call.to_string().as_bytes()).unwrap();
    alive
        .set_read_timeout(Some(Duration::from_secs(3)))
        .unwrap();
    let reply = loop {
        let (op, p) = ws_recv(&mut alive).expect("the live socket is open");
        if op == 1 {
            break serde_json::from_slice::<Value>(&p).unwrap();
        }
    };
    assert_eq!(reply["response"], "call", "{reply}");
}

/// Issue 27, a login lockout: after five wrong arbiter passwords from one
/// address, even the right one is refused (429, `Retry-After`) for a while.
#[test]
fn hardening_wrong_arbiter_passwords_lock_the_address_out() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let password = "view password 2026";
    let extra =
        format!("\n[web]\nlisten = \"127.0.0.1:{port}\"\narbiter_password = \"{password}\"\n");
    let (_broker, daemon) = daemon(dir.path(), &extra);
    wait_port(port, &daemon);
    let post = |key: &str| {
        let body = format!("key={}", key.replace(' ', "+"));
        request(
            port,
            &format!(
                "POST /arbiter HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            ),
        )
    };
    // Right once (failures are forgotten), then five guesses.
    assert_eq!(post(password).0, 303);
    for n in 0..5 {
        assert_eq!(post(&format!("guess {n}")).0, 401, "guess {n}");
    }
    let (code, reply) = post(password);
    assert_eq!(code, 429, "{reply}");
    assert!(
        reply.to_ascii_lowercase().contains("retry-after"),
        "{reply}"
    );
    assert!(daemon.log().contains("locked out"), "{}", daemon.log());
}

/// Logs in on the arbiter view of the page on `port` with `password`:
/// the session cookie (`name=value`).
pub(crate) fn log_in(port: u16, password: &str) -> String {
    let body = format!("key={}", password.replace(' ', "+"));
    let (code, reply) = request(
        port,
        &format!(
            "POST /arbiter HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ),
    );
    assert_eq!(code, 303, "{reply}");
    reply
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .starts_with("set-cookie:")
                .then(|| l[11..].trim().to_string())
        })
        .and_then(|c| c.split(';').next().map(str::to_string))
        .expect("a session cookie")
}
