//! Issue 42, the web listeners no one can stall, tried against the real
//! daemon on loopback as the review did: a page whose DNS name points at
//! loopback (DNS rebinding) and a stranger's browser extension on the
//! LiveChess WebSocket, a trickled request body, public streams that would
//! take the arbiter view's, one address opening every connection, and an
//! arbiter's decision answered before the board decided. Real Mosquitto,
//! real daemon, raw HTTP and WebSocket clients.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use crate::hardening::{closed_within, daemon, request, request_within, wait_port, ws_open_at};
use crate::util::free_port;
use crate::util::{Broker, Daemon};

/// A daemon with one board that is never found and the table `table`
/// listening on a free loopback port, with `keys`: the port, and what
/// must live as long as the test (`None` without Mosquitto).
fn listening(table: &str, keys: &str) -> Option<(u16, tempfile::TempDir, Broker, Daemon)> {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let extra = format!("\n[{table}]\nlisten = \"127.0.0.1:{port}\"\n{keys}\n");
    let (broker, daemon) = daemon(dir.path(), &extra);
    wait_port(port, &daemon);
    Some((port, dir, broker, daemon))
}

/// The LiveChess WebSocket answers only to its own names: a rebinding
/// page's `Host` (with its own origin, or none) is refused, as is any
/// browser extension but one configured by its id; a configured name is
/// let in.
#[test]
fn listeners_the_livechess_websocket_answers_only_to_its_own_names() {
    let keys = "hosts = [\"boards.hall\"]\norigins = [\"https://lichess.org\", \"chrome-extension://dgtangelid\"]";
    let Some((port, _dir, _broker, daemon)) = listening("livechess", keys) else {
        return;
    };
    let at = |host: &str, origin: Option<&str>| ws_open_at(port, host, origin).0;
    let evil = format!("evil.example:{port}");
    assert_eq!(at(&evil, Some(&format!("http://{evil}"))), 403, "rebinding");
    assert_eq!(at(&evil, None), 403, "rebinding without an Origin");
    assert_eq!(at(&evil, Some("https://lichess.org")), 403);
    let own = format!("127.0.0.1:{port}");
    assert_eq!(at(&own, Some(&format!("http://{own}"))), 101);
    let local = format!("localhost:{port}");
    assert_eq!(at(&local, Some("https://lichess.org")), 101);
    assert_eq!(at(&local, Some("chrome-extension://dgtangelid")), 101);
    assert_eq!(at(&local, Some("chrome-extension://anotherone")), 403);
    assert_eq!(at(&local, Some("moz-extension://anotherone")), 403);
    let named = format!("boards.hall:{port}");
    assert_eq!(at(&named, Some(&format!("http://{named}"))), 101);
    assert_eq!(
        at(&format!("localhost:{}", port + 1), None),
        403,
        "another port"
    );
    drop(daemon);
}

/// The default origins hold no browser extension.
#[test]
fn listeners_no_browser_extension_is_let_in_by_default() {
    let Some((port, _dir, _broker, daemon)) = listening("livechess", "") else {
        return;
    };
    let local = format!("localhost:{port}");
    for origin in [
        "chrome-extension://abcdefghijklmnop",
        "moz-extension://0f1e2d3c",
    ] {
        assert_eq!(ws_open_at(port, &local, Some(origin)).0, 403, "{origin}");
    }
    assert_eq!(ws_open_at(port, &local, Some("https://lichess.org")).0, 101);
    drop(daemon);
}

/// A POST whose body is trickled (or never finished) is answered `408`
/// at the body deadline and its connection closed; a body over 64 KiB
/// gets `413`.
#[test]
fn listeners_a_trickled_body_is_cut_off_at_the_body_deadline() {
    let keys =
        "body_timeout_s = 1\nheader_timeout_s = 30\narbiter_password = \"view password 2026\"";
    let Some((port, _dir, _broker, daemon)) = listening("web", keys) else {
        return;
    };
    let started = Instant::now();
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.write_all(b"POST /arbiter HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\nkey=vi")
        .unwrap();
    s.set_read_timeout(Some(Duration::from_secs(6))).unwrap();
    let mut reply = String::new();
    let _ = s.read_to_string(&mut reply);
    assert!(reply.starts_with("HTTP/1.1 408"), "{reply:?}");
    assert!(reply.contains("within 1 s"), "{reply}");
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
    let big = "k".repeat(100 * 1024);
    let (code, reply) = request(
        port,
        &format!(
            "POST /arbiter HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{big}",
            big.len()
        ),
    );
    assert_eq!(code, 413, "{reply}");
    drop(daemon);
}

/// The desk's first password is chosen only on the machine itself, by
/// its own name: a page whose name points at loopback (DNS rebinding) and
/// a proxy on the machine (which makes every client look local) are
/// refused. The pairing file upload is answered before its body is read
/// when there is no login: a stranger cannot make the daemon wait for (or
/// hold) megabytes.
#[test]
fn listeners_the_desks_first_password_and_upload_ask_who_first() {
    let keys = "body_timeout_s = 20\nheader_timeout_s = 30";
    let Some((port, _dir, _broker, daemon)) = listening("web", keys) else {
        return;
    };
    let form = "key=a+new+desk+key&again=a+new+desk+key";
    let choose = |host: &str, extra: &str| {
        request(
            port,
            &format!(
                "POST /desk/password HTTP/1.1\r\nHost: {host}\r\n{extra}Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{form}",
                form.len()
            ),
        )
    };
    let own = format!("127.0.0.1:{port}");
    let (code, reply) = choose(&format!("evil.example:{port}"), "");
    assert_eq!(code, 403, "rebinding: {reply}");
    for proxy in [
        "X-Forwarded-For: 203.0.113.9\r\n",
        "Forwarded: for=203.0.113.9\r\n",
    ] {
        let (code, reply) = choose(&own, proxy);
        assert_eq!(code, 403, "{proxy}: {reply}");
    }
    let started = Instant::now();
    let (code, reply) = request(
        port,
        &format!(
            "POST /desk/trf?name=x.trf HTTP/1.1\r\nHost: {own}\r\nContent-Length: 4000000\r\nConnection: close\r\n\r\n"
        ),
    );
    assert_eq!(code, 401, "{reply}");
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{:?}",
        started.elapsed()
    );
    // The machine itself, by its own name, chooses it; once.
    let (code, reply) = choose(&format!("localhost:{port}"), "");
    assert_eq!(code, 303, "{reply}");
    assert!(reply.contains("boardcast_desk="), "{reply}");
    let (code, reply) = choose(&own, "");
    assert_eq!(code, 409, "{reply}");
    drop(daemon);
}

/// Opens a live stream and reads its head: the status code, and the
/// connection (never read again).
fn open_stream(port: u16, path: &str, cookie: &str) -> (u16, TcpStream) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: x\r\nCookie: {cookie}\r\n\r\n"
    )
    .unwrap();
    let mut head = [0u8; 12];
    s.read_exact(&mut head).unwrap();
    let code = String::from_utf8_lossy(&head[9..12]).parse().unwrap();
    (code, s)
}

/// Public streams that never read fill `max_streams`; the arbiter view
/// still gets its own stream.
#[test]
fn listeners_public_streams_cannot_take_the_arbiter_views() {
    let password = "view password 2026";
    let keys = format!("max_streams = 3\narbiter_streams = 2\narbiter_password = \"{password}\"");
    let Some((port, _dir, _broker, daemon)) = listening("web", &keys) else {
        return;
    };
    let public: Vec<(u16, TcpStream)> = (0..4).map(|_| open_stream(port, "/events", "")).collect();
    let codes: Vec<u16> = public.iter().map(|(c, _)| *c).collect();
    assert_eq!(codes, [200, 200, 200, 503]);
    let cookie = crate::hardening::log_in(port, password);
    let (code, _arbiter) = open_stream(port, "/arbiter/events", &cookie);
    assert_eq!(code, 200, "the arbiter view's stream");
    drop(daemon);
}

/// One address may hold `max_connections_per_peer` connections: ten
/// half-open connections from 127.0.0.2 keep three, and 127.0.0.1 is
/// still served under a cap of eight.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listeners_one_address_cannot_hold_every_connection() {
    let keys = "max_connections = 8\nmax_connections_per_peer = 3\nheader_timeout_s = 30";
    let Some((port, _dir, _broker, daemon)) = listening("web", keys) else {
        return;
    };
    let mut held = Vec::new();
    for _ in 0..10 {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind("127.0.0.2:0".parse().unwrap()).unwrap();
        let s = socket.connect(([127, 0, 0, 1], port).into()).await.unwrap();
        held.push(s.into_std().unwrap());
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let open = held
        .iter_mut()
        .map(|s| {
            s.set_nonblocking(false).unwrap();
            !closed_within(s, Duration::from_millis(200))
        })
        .filter(|open| *open)
        .count();
    assert_eq!(open, 3, "connections kept from one address");
    let (code, body) = tokio::task::spawn_blocking(move || {
        request(
            port,
            "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        )
    })
    .await
    .unwrap();
    assert_eq!(code, 200, "another address is served: {body}");
    drop(held);
    drop(daemon);
}

/// `POST /arbiter/decide` answers with the board's own answer: `409` and
/// its reason when the board refuses (no such alert), `504` when the
/// board does not answer (it is not connected) within 5 s; never `202`
/// before the board decided.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listeners_a_decision_is_answered_with_the_boards_outcome() {
    use crate::util::{BoardConf, SimBoard, SimOptions, game, write_config};
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let board = SimBoard::new(
        dir.path(),
        "dgt",
        game(3, Some(20)),
        5,
        SimOptions::fast("10042"),
    );
    let config = write_config(
        dir.path(),
        broker.port,
        "decide",
        &[
            BoardConf {
                id: "1".into(),
                port: board.path().to_string_lossy().into_owned(),
                serial: None,
            },
            BoardConf {
                id: "2".into(),
                port: dir
                    .path()
                    .join("no-such-tty")
                    .to_string_lossy()
                    .into_owned(),
                serial: None,
            },
        ],
    );
    let port = free_port();
    let password = "view password 2026";
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str(&format!(
        "\n[web]\nlisten = \"127.0.0.1:{port}\"\narbiter_password = \"{password}\"\n"
    ));
    std::fs::write(&config, text).unwrap();
    let daemon = Daemon::start(&config);
    wait_port(port, &daemon);
    let cookie = crate::hardening::log_in(port, password);
    let decide = move |board: &str| {
        let body = format!("board={board}&alert=99&decision=dismissed&note=");
        request_within(
            port,
            Duration::from_secs(15),
            &format!(
                "POST /arbiter/decide HTTP/1.1\r\nHost: x\r\nCookie: {cookie}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            ),
        )
    };
    // Board 1 is read (its state says connected on the page).
    tokio::task::spawn_blocking(move || {
        crate::hub::wait_until("board 1 connected", 30, || {
            let get = "GET /snapshot HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
            let (_, snap) = request(port, get);
            snap.contains(r#""status":"connected""#).then_some(())
        })
    })
    .await
    .unwrap();
    let (code, reply) = tokio::task::spawn_blocking({
        let decide = decide.clone();
        move || decide("1")
    })
    .await
    .unwrap();
    assert_eq!(code, 409, "{reply}");
    assert!(reply.contains("no error or action alert 99"), "{reply}");
    // Board 2 is unplugged: its session still decides (and refuses).
    let (code, reply) = tokio::task::spawn_blocking(move || decide("2"))
        .await
        .unwrap();
    assert_eq!(code, 409, "{reply}");
    assert!(reply.contains("no error or action alert 99"), "{reply}");
    drop(board);
    drop(daemon);
}
