//! Issue 61, item 6: a live round pushed to lichess. Two simulated DGT
//! boards on ptys play with Mosquitto and a 4 s broadcast delay; the
//! daemon pushes the round's public PGN to a local HTTP server standing in
//! for lichess (`lichess_server.py`: it checks the bearer token, reads
//! every push with python-chess, answers as lichess documents, refuses one
//! game until it has a few moves, and answers 429 once). Every game's
//! moves arrive, the pushes are at least a second apart, no push shows a
//! move before the delay, nothing is lost across the 429, and the refused
//! game is logged and shown on the desk. The token is never logged.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::Value;

use crate::util::{
    Broker, Daemon, Pace, SimBoard, SimOptions, Subscriber, free_port, game, python,
    write_config_with,
};

const SERVER: &str = include_str!("lichess_server.py");
const ROUND: &str = "TstRnd61";
const TOKEN: &str = "lip_boardcastTest61token";
const DELAY: Duration = Duration::from_secs(4);
const PASSWORD: &str = "desk password 61";
/// As the server: its 429's `Retry-After`, and the White it refuses.
const RETRY_AFTER: Duration = Duration::from_secs(3);
const REFUSED_WHITE: &str = "Refused, Test";

/// The stand-in server, killed when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// One request the server logged.
#[derive(Debug)]
struct Push {
    /// Wall time it arrived (seconds since the epoch).
    t: f64,
    status: u64,
    auth_ok: bool,
    content_type: String,
    /// Each game: its board (from `Round "1.<board>"`) and SAN moves.
    games: Vec<(u32, Vec<String>)>,
}

fn pushes(log: &Path) -> Vec<Push> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    text.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|e| Push {
            t: e["t"].as_f64().unwrap(),
            status: e["status"].as_u64().unwrap(),
            auth_ok: e["auth_ok"].as_bool().unwrap(),
            content_type: e["content_type"].as_str().unwrap_or("").into(),
            games: e["games"]
                .as_array()
                .map(|gs| {
                    gs.iter()
                        .map(|g| {
                            let round = g["tags"]["Round"].as_str().unwrap_or("");
                            let board = round
                                .split_once('.')
                                .and_then(|(_, b)| b.parse().ok())
                                .unwrap_or(0);
                            let sans = g["sans"]
                                .as_array()
                                .unwrap()
                                .iter()
                                .map(|s| s.as_str().unwrap().to_string())
                                .collect();
                            (board, sans)
                        })
                        .collect()
                })
                .unwrap_or_default(),
        })
        .collect()
}

/// A plain HTTP/1.1 request on loopback: status, head, body.
fn http(port: u16, request: &str) -> Option<(u16, String, String)> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    s.write_all(request.as_bytes()).ok()?;
    let mut text = String::new();
    s.read_to_string(&mut text).ok()?;
    let (head, body) = text.split_once("\r\n\r\n")?;
    let status = head.split_whitespace().nth(1)?.parse().ok()?;
    Some((status, head.to_string(), body.to_string()))
}

/// Logs in to the desk: its session cookie.
fn desk_login(port: u16) -> String {
    let form = format!("key={}", PASSWORD.replace(' ', "+"));
    let (status, head, body) = http(
        port,
        &format!(
            "POST /desk/login HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{form}",
            form.len()
        ),
    )
    .expect("the desk answers");
    assert!(status < 400, "login: {status} {body}");
    head.lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("set-cookie")
                .then(|| value.trim().split(';').next().unwrap().to_string())
        })
        .expect("a session cookie")
}

/// `/desk/state`'s `lichess`.
fn desk_lichess(port: u16, cookie: &str) -> Option<Value> {
    let (status, _, body) = http(
        port,
        &format!(
            "GET /desk/state HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nCookie: {cookie}\r\nConnection: close\r\n\r\n"
        ),
    )?;
    (status == 200).then_some(())?;
    let state: Value = serde_json::from_str(&body).ok()?;
    Some(state["lichess"].clone())
}

fn wall(t: SystemTime) -> f64 {
    t.duration_since(UNIX_EPOCH).unwrap().as_secs_f64()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_round_is_pushed_to_a_stand_in_for_lichess() {
    if !crate::util::require(&[
        crate::util::Tool::Mosquitto,
        crate::util::Tool::Chromium,
        crate::util::Tool::Python("chess"),
    ]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let sub = Subscriber::connect(broker.port, "lc/arbiter/#", "watcher", false).await;
    // Wall time of an Instant, for the server's times.
    let (i0, w0) = (Instant::now(), wall(SystemTime::now()));
    let at_wall = |at: tokio::time::Instant| w0 + at.into_std().duration_since(i0).as_secs_f64();

    let (lp, wp) = (free_port(), free_port());
    let log = dir.path().join("pushes.jsonl");
    let script = dir.path().join("lichess_server.py");
    std::fs::write(&script, SERVER).unwrap();
    let _server = Server(
        Command::new(python())
            .arg(&script)
            .args([&lp.to_string(), ROUND, TOKEN])
            .arg(&log)
            .stderr(Stdio::inherit())
            .spawn()
            .expect("python runs"),
    );
    let token_file = dir.path().join("lichess.token");
    std::fs::write(&token_file, format!("{TOKEN}\n")).unwrap();

    let games = [game(3, Some(24)), game(8, Some(20))];
    let boards: Vec<SimBoard> = games
        .iter()
        .enumerate()
        .map(|(i, g)| {
            let serial = format!("6100{i}");
            SimBoard::new(
                dir.path(),
                &format!("b{i}"),
                g.clone(),
                61 + i as u64,
                // A move every 0.6 s or so: a push carries one or more.
                SimOptions {
                    pace: Pace::Compressed {
                        think_ms: 600,
                        factor: 10,
                    },
                    ..SimOptions::fast(&serial)
                },
            )
        })
        .collect();
    let extra = format!(
        "\n[broadcast]\ndelay = \"4s\"\n\n[event]\nround = 1\n\n[web]\nlisten = \"127.0.0.1:{wp}\"\ndesk_password = \"{PASSWORD}\"\n\n[lichess]\nround = \"{ROUND}\"\ntoken_file = \"lichess.token\"\nbase_url = \"http://127.0.0.1:{lp}\"\n"
    );
    let config = write_config_with(dir.path(), &broker.url(), &extra, "lc", &[]);
    let mut text = std::fs::read_to_string(&config).unwrap();
    for (i, b) in boards.iter().enumerate() {
        let white = if i == 1 { REFUSED_WHITE } else { "Player, One" };
        text.push_str(&format!(
            "\n[[board]]\nid = \"{}\"\nport = \"{}\"\nwhite = \"{white}\"\nblack = \"Player, {}\"\n",
            i + 1,
            b.path().display(),
            i + 2
        ));
    }
    std::fs::write(&config, text).unwrap();
    let daemon = Daemon::start(&config);

    // The desk, read every 200 ms while the games go on.
    let desk = {
        let deadline = Instant::now() + Duration::from_secs(20);
        let cookie = loop {
            if http(
                wp,
                "GET /desk HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
            )
            .is_some()
            {
                break desk_login(wp);
            }
            assert!(Instant::now() < deadline, "no desk:\n{}", daemon.log());
            tokio::time::sleep(Duration::from_millis(200)).await;
        };
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let s = std::sync::Arc::clone(&stop);
        let reader = std::thread::spawn(move || {
            let mut seen = Vec::new();
            while !s.load(std::sync::atomic::Ordering::Relaxed) {
                seen.extend(desk_lichess(wp, &cookie));
                std::thread::sleep(Duration::from_millis(200));
            }
            seen
        });
        (stop, reader)
    };

    // Every game's moves reach the stand-in.
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let all = pushes(&log);
        let done = all.iter().rev().find(|p| p.status == 200).is_some_and(|p| {
            games.iter().enumerate().all(|(i, g)| {
                p.games
                    .iter()
                    .any(|(b, sans)| *b == i as u32 + 1 && *sans == g.sans)
            })
        });
        if done {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "not every move reached the stand-in; pushes: {all:#?}\n{}",
            daemon.log()
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    // A push more would show itself within 2 s.
    tokio::time::sleep(Duration::from_secs(2)).await;
    desk.0.store(true, std::sync::atomic::Ordering::Relaxed);
    let seen = tokio::task::spawn_blocking(move || desk.1.join().unwrap())
        .await
        .unwrap();
    let all = pushes(&log);
    let log_text = daemon.log();

    // The token, and only the round's push; a push every second or so
    // while the games go on.
    assert!(all.len() >= 10, "{all:#?}");
    for p in &all {
        assert!(p.auth_ok, "a push without the token: {p:?}");
        assert!(p.status == 200 || p.status == 429, "{p:?}");
        assert!(p.content_type.starts_with("text/plain"), "{p:?}");
    }
    // At most one push a second.
    for w in all.windows(2) {
        assert!(
            w[1].t - w[0].t >= 0.9,
            "two pushes {:.3} s apart: {w:#?}",
            w[1].t - w[0].t
        );
    }
    // One 429: the next push waits its Retry-After and carries all it
    // had, and more.
    let limited: Vec<usize> = (0..all.len()).filter(|&i| all[i].status == 429).collect();
    assert_eq!(limited.len(), 1, "{all:#?}");
    let (refused, next) = (&all[limited[0]], &all[limited[0] + 1]);
    assert!(
        next.t - refused.t >= RETRY_AFTER.as_secs_f64() - 0.1,
        "the push after the 429 came {:.3} s later",
        next.t - refused.t
    );
    assert_eq!(next.status, 200);
    for (board, sans) in &refused.games {
        let later = next.games.iter().find(|(b, _)| b == board).map(|(_, s)| s);
        assert!(
            later.is_some_and(|l| l.starts_with(sans)),
            "board {board}: {sans:?} refused, then {later:?}"
        );
    }
    // Every push is a step of each game as played, and shows no move
    // before the delay: ply n arrives at least DELAY after the arbiters saw
    // it live.
    let live = sub.messages();
    let live_at = |board: u32, ply: usize| -> f64 {
        let topic = format!("lc/arbiter/board/{board}/event");
        live.iter()
            .filter(|m| m.topic == topic)
            .find(|m| {
                let e = m.json();
                e["type"] == "move" && e["ply"].as_u64() == Some(ply as u64)
            })
            .map(|m| at_wall(m.at))
            .unwrap_or_else(|| panic!("board {board} ply {ply} never live"))
    };
    for p in &all {
        for (board, sans) in &p.games {
            let g = &games[*board as usize - 1];
            assert!(g.sans.starts_with(sans), "board {board}: {sans:?}");
            if !sans.is_empty() {
                let lag = p.t - live_at(*board, sans.len());
                assert!(
                    lag >= DELAY.as_secs_f64() - 0.5,
                    "board {board} ply {} pushed {lag:.3} s after it was played",
                    sans.len()
                );
            }
        }
    }
    // The refused game: logged with its name and lichess's reason, shown
    // on the desk, then cleared once lichess took it.
    assert!(
        log_text.contains("lichess refused a game of the push")
            && log_text.contains("Test refusal: too few moves")
            && log_text.contains(REFUSED_WHITE),
        "{log_text}"
    );
    assert!(
        seen.iter().any(|l| l["errors"].as_array().is_some_and(|e| e
            .iter()
            .any(|e| e["error"] == "Test refusal: too few moves"
                && e["game"].as_str().unwrap_or("").contains(REFUSED_WHITE)))),
        "the desk never showed the refused game: {seen:#?}"
    );
    assert!(
        seen.iter().any(|l| l["state"] == "rate limited"),
        "the desk never showed the 429: {seen:#?}"
    );
    let last = seen.last().expect("the desk was read");
    assert_eq!(last["state"], "pushed", "{last:#}");
    assert_eq!(last["round"], ROUND);
    assert_eq!(last["event_round"], 1);
    assert_eq!(last["errors"], Value::Array(vec![]), "{last:#}");
    let plies: u64 = games.iter().map(|g| g.sans.len() as u64).sum();
    assert_eq!(last["moves"].as_u64(), Some(plies), "{last:#}");
    // The token is never written to the log; its file, readable by all
    // here, is warned about.
    assert!(!log_text.contains(TOKEN), "the token is in the log");
    assert!(log_text.contains("chmod 600"), "{log_text}");
    desk_page(dir.path(), wp, plies).await;
    drop(daemon);
}

/// The desk page in Chromium shows the push's line: the round (a link to
/// it), its state, the half-moves lichess took.
async fn desk_page(dir: &Path, port: u16, plies: u64) {
    let (_driver, client) = crate::web::open_browser(dir).await;
    client.set_window_size(1440, 900).await.unwrap();
    let base = format!("http://127.0.0.1:{port}");
    client.goto(&format!("{base}/desk")).await.unwrap();
    let form = format!("key={}", PASSWORD.replace(' ', "+"));
    let status = client
        .execute(
            "return fetch('/desk/login', {method: 'POST', headers: {'Content-Type': 'application/x-www-form-urlencoded'}, body: arguments[0]}).then(r => r.status);",
            vec![Value::String(form)],
        )
        .await
        .unwrap();
    assert!(status.as_u64().is_some_and(|s| s < 400), "login: {status}");
    client.goto(&format!("{base}/desk")).await.unwrap();
    let line = crate::web::wait_for(
        &client,
        "the desk's lichess line",
        Duration::from_secs(15),
        "const el = document.querySelector('#lichess'); return el && !el.hidden ? [el.innerText, el.querySelector('a').href] : null;",
        |v| v[0].as_str().is_some_and(|t| t.contains("pushed")),
    )
    .await;
    let text = line[0].as_str().unwrap();
    assert!(text.contains(ROUND) && text.contains("(round 1)"), "{text}");
    assert!(
        text.contains(&format!("2 games, {plies} half-moves")),
        "{text}"
    );
    assert!(
        line[1]
            .as_str()
            .unwrap()
            .ends_with(&format!("/broadcast/-/-/{ROUND}")),
        "{line}"
    );
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new(crate::ROOT).join("target"));
    let png = client.screenshot().await.unwrap();
    std::fs::write(target.join("lichess-desk.png"), png).unwrap();
    client.close().await.unwrap();
}

/// Runs the binary with `args` (it must end within 20 s): its status and
/// stderr.
fn run_binary(args: &[&str], config: &Path) -> (bool, String) {
    let mut child = Command::new(crate::util::binary())
        .args(args)
        .arg(config)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("`boardcast {args:?}` did not end");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let (mut out, mut err) = (String::new(), String::new());
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (status.success(), out + &err)
}

#[test]
fn a_token_file_that_does_not_read_stops_check_config_and_the_daemon() {
    let dir = tempfile::tempdir().unwrap();
    let extra = format!(
        "\n[lichess]\nround = \"{ROUND}\"\ntoken_file = \"lichess.token\"\nbase_url = \"http://127.0.0.1:9\"\n"
    );
    let config = write_config_with(dir.path(), "mqtt://127.0.0.1:9", &extra, "lt", &[]);
    let token = dir.path().join("lichess.token");
    // No file: both refuse, naming the key and the file.
    for args in [&["check-config"][..], &["run", "--config"][..]] {
        let (ok, text) = run_binary(args, &config);
        assert!(!ok, "{args:?}: {text}");
        assert!(
            text.contains("lichess.token_file") && text.contains("lichess.token"),
            "{args:?}: {text}"
        );
    }
    // Two words: refused, and neither is printed.
    std::fs::write(&token, "lip_first61 lip_second61\n").unwrap();
    for args in [&["check-config"][..], &["run", "--config"][..]] {
        let (ok, text) = run_binary(args, &config);
        assert!(!ok, "{args:?}: {text}");
        assert!(text.contains("more than one word"), "{args:?}: {text}");
        assert!(
            !text.contains("lip_first61") && !text.contains("lip_second61"),
            "{text}"
        );
    }
    // A token: the check names the round and the server, not the token.
    std::fs::write(&token, format!("{TOKEN}\n")).unwrap();
    let (ok, text) = run_binary(&["check-config"], &config);
    assert!(ok, "{text}");
    assert!(
        text.contains(&format!(
            "pushing to lichess round {ROUND} at http://127.0.0.1:9"
        )),
        "{text}"
    );
    assert!(!text.contains(TOKEN), "{text}");
    // A bad round id is refused with its line.
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, text.replace(ROUND, "short")).unwrap();
    let (ok, text) = run_binary(&["check-config"], &config);
    assert!(!ok && text.contains("lichess.round: `short`"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_push_goes_over_https_to_a_server_the_roots_vouch_for() {
    if !crate::util::require(&[
        crate::util::Tool::Mosquitto,
        crate::util::Tool::Openssl,
        crate::util::Tool::Python("chess"),
    ]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    crate::daemon::make_certificates(dir.path());
    let broker = Broker::start();
    let lp = free_port();
    let log = dir.path().join("pushes.jsonl");
    let script = dir.path().join("lichess_server.py");
    std::fs::write(&script, SERVER).unwrap();
    let _server = Server(
        Command::new(python())
            .arg(&script)
            .args([&lp.to_string(), ROUND, TOKEN])
            .arg(&log)
            .arg(dir.path().join("server.crt"))
            .arg(dir.path().join("server.key"))
            .stderr(Stdio::null())
            .spawn()
            .expect("python runs"),
    );
    std::fs::write(dir.path().join("lichess.token"), TOKEN).unwrap();
    let g = game(5, Some(8));
    let board = SimBoard::new(dir.path(), "tls", g.clone(), 65, SimOptions::fast("61500"));
    let extra = format!(
        "\n[lichess]\nround = \"{ROUND}\"\ntoken_file = \"lichess.token\"\nbase_url = \"https://localhost:{lp}\"\n"
    );
    let config = write_config_with(dir.path(), &broker.url(), &extra, "lt", &[]);
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str(&format!(
        "\n[[board]]\nid = \"1\"\nport = \"{}\"\n",
        board.path().display()
    ));
    std::fs::write(&config, text).unwrap();

    // The system's roots do not know the test CA: every push fails on the
    // certificate, and nothing reaches the server's handler.
    let mut untrusting = Daemon::start(&config);
    let deadline = Instant::now() + Duration::from_secs(30);
    while !untrusting.log().contains("TLS with localhost") {
        assert!(
            Instant::now() < deadline,
            "no TLS failure: {}",
            untrusting.log()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    untrusting.stop();
    assert!(pushes(&log).is_empty(), "{:#?}", pushes(&log));

    // With the CA among the roots (SSL_CERT_FILE), the game arrives.
    let mut cmd = Command::new(crate::util::binary());
    cmd.env("SSL_CERT_FILE", dir.path().join("ca.crt"));
    let daemon = Daemon::start_with(&config, &mut cmd);
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let all = pushes(&log);
        if all
            .iter()
            .any(|p| p.status == 200 && p.games.iter().any(|(b, s)| *b == 1 && *s == g.sans))
        {
            assert!(all.iter().all(|p| p.auth_ok), "{all:#?}");
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the game never arrived over HTTPS: {all:#?}\n{}",
            daemon.log()
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert!(!daemon.log().contains(TOKEN));
}
