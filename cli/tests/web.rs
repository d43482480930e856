//! The live page in a real browser: `boardcast demo` runs as a child
//! process (its own embedded broker, its page on a free port), headless
//! Chromium loads the page through chromedriver (WebDriver), and the test
//! waits for the boards, their moves and an arbiter alert to show. It
//! leaves a screenshot at `target/demo-screenshot.png`, then stops the
//! demo with SIGINT (Ctrl-C) and checks it exits cleanly.

use std::fs;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::{Value, json};

use crate::util::{binary, free_port};

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// A child process killed when the test ends, whatever happens.
pub(crate) struct Proc {
    child: Option<Child>,
    name: &'static str,
    log: PathBuf,
}

impl Proc {
    fn log(&self) -> String {
        fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            // The whole process group: Chromium, started by chromedriver,
            // outlives its driver otherwise (a test that fails before it
            // closes its session left a renderer spinning).
            let _ = nix::sys::signal::killpg(Pid::from_raw(c.id() as i32), Signal::SIGKILL);
            let _ = c.kill();
            let _ = c.wait();
        }
        if std::thread::panicking() {
            let log = self.log();
            let tail: String = log.lines().rev().take(40).collect::<Vec<_>>().join("\n");
            eprintln!(
                "---- {} log (last lines, newest first) ----\n{tail}",
                self.name
            );
        }
    }
}

fn wait_listening(port: u16, what: &str, proc: &Proc, timeout: Duration) {
    let deadline = Instant::now() + timeout;
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "{what} did not listen on port {port} within {timeout:?}; log:\n{}",
            proc.log()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Evaluates `script` (a function body returning a value) until `done`
/// accepts the value, or fails after `timeout` naming `what`.
pub(crate) async fn wait_for(
    client: &Client,
    what: &str,
    timeout: Duration,
    script: &str,
    done: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = Instant::now() + timeout;
    let mut last = Value::Null;
    while Instant::now() < deadline {
        last = client
            .execute(script, vec![])
            .await
            .expect("the page runs scripts");
        if done(&last) {
            return last;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    panic!("timed out after {timeout:?} waiting for {what}; last value: {last}");
}

/// Logs in on the arbiter view's form the browser shows (`/arbiter`)
/// with `password`, and waits for the view.
pub(crate) async fn log_in(client: &Client, password: &str) {
    let form = client
        .find(fantoccini::Locator::Css("input[name=key]"))
        .await
        .unwrap();
    form.send_keys(password).await.unwrap();
    client
        .find(fantoccini::Locator::Css("button"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    wait_for(
        client,
        "the arbiter banner",
        Duration::from_secs(10),
        "return (document.getElementById('audience') || {}).textContent || '';",
        |v| v == "Arbiter view, live",
    )
    .await;
}

/// Starts chromedriver and a headless Chromium session (profile under
/// `dir`); the driver process is stopped when the returned `Proc` drops.
pub(crate) async fn open_browser(dir: &Path) -> (Proc, Client) {
    open_browser_with(dir, false).await
}

/// [`open_browser`]; `transparent`: the browser paints no background of
/// its own (Chromium's default background made transparent through the
/// DevTools protocol), so a page that paints none leaves its screenshot's
/// pixels transparent, as streaming software's browser sources do.
pub(crate) async fn open_browser_with(dir: &Path, transparent: bool) -> (Proc, Client) {
    let driver_port = free_port();
    let driver_log = dir.join("chromedriver.log");
    // In a process group of its own, with the browser it starts: dropping
    // the `Proc` kills both.
    use std::os::unix::process::CommandExt;
    let driver = Command::new(CHROMEDRIVER)
        .process_group(0)
        .arg(format!("--port={driver_port}"))
        .stdout(Stdio::null())
        .stderr(fs::File::create(&driver_log).unwrap())
        .spawn()
        .expect("chromedriver runs");
    let driver = Proc {
        child: Some(driver),
        name: "chromedriver",
        log: driver_log,
    };
    wait_listening(
        driver_port,
        "chromedriver",
        &driver,
        Duration::from_secs(20),
    );

    let profile = dir.join("chromium-profile");
    let args = vec![
        "--headless".to_string(),
        "--no-sandbox".into(),
        "--disable-gpu".into(),
        "--disable-dev-shm-usage".into(),
        "--no-first-run".into(),
        "--disable-background-networking".into(),
        "--disable-component-update".into(),
        "--disable-sync".into(),
        format!("--user-data-dir={}", profile.display()),
        "--window-size=1600,1000".into(),
    ];
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".into(),
        json!({ "binary": CHROMIUM, "args": args }),
    );
    let connector = hyper_util::client::legacy::connect::HttpConnector::new();
    let client = tokio::time::timeout(
        Duration::from_secs(30),
        ClientBuilder::new(connector)
            .capabilities(caps)
            .connect(&format!("http://127.0.0.1:{driver_port}")),
    )
    .await
    .expect("chromedriver opened a browser session within 30 s")
    .expect("a WebDriver session");
    if transparent {
        let id = client.session_id().await.unwrap().expect("a session id");
        let body = json!({
            "cmd": "Emulation.setDefaultBackgroundColorOverride",
            "params": { "color": { "r": 0, "g": 0, "b": 0, "a": 0 } },
        })
        .to_string();
        let answer = post(
            driver_port,
            &format!("/session/{id}/goog/cdp/execute"),
            &body,
        );
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    }
    (driver, client)
}

/// `POST path` with a JSON `body` to a local port: the whole answer.
fn post(port: u16, path: &str, body: &str) -> String {
    use std::io::{Read, Write};
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut out = String::new();
    let _ = s.read_to_string(&mut out);
    out
}

fn screenshot_path() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(crate::ROOT).join("target"));
    target.join("demo-screenshot.png")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_page_shows_boards_moving_and_an_alert_in_chromium() {
    if !crate::util::require(&[crate::util::Tool::Chromium]) {
        return;
    }
    assert!(
        Path::new(CHROMIUM).exists() && Path::new(CHROMEDRIVER).exists(),
        "this test needs {CHROMIUM} and {CHROMEDRIVER}: apt-get install chromium chromium-driver"
    );
    let dir = tempfile::tempdir().unwrap();
    let (web, broker) = (free_port(), free_port());

    // The demo, as a user starts it (fewer boards, faster play).
    let demo_log = dir.path().join("demo.log");
    let demo = Command::new(binary())
        .args(["demo", "--boards", "4", "--speed", "12"])
        .arg("--web")
        .arg(format!("127.0.0.1:{web}"))
        .arg("--broker")
        .arg(format!("127.0.0.1:{broker}"))
        // Never LiveChess's own port 1982 in tests.
        .arg("--livechess")
        .arg(format!("127.0.0.1:{}", free_port()))
        .env("RUST_LOG", "info,rumqttd=off")
        .stdout(fs::File::create(dir.path().join("demo.out")).unwrap())
        .stderr(fs::File::create(&demo_log).unwrap())
        .spawn()
        .expect("boardcast demo runs");
    let mut demo = Proc {
        child: Some(demo),
        name: "boardcast demo",
        log: demo_log,
    };

    wait_listening(web, "the demo's page", &demo, Duration::from_secs(20));
    let (driver, client) = open_browser(dir.path()).await;
    client
        .goto(&format!("http://127.0.0.1:{web}/"))
        .await
        .expect("the page loads");

    let boards = wait_for(
        &client,
        "the four boards' cards",
        Duration::from_secs(15),
        "return document.querySelectorAll('.board-card').length;",
        |v| v.as_u64() == Some(4),
    )
    .await;
    assert_eq!(boards, json!(4));
    wait_for(
        &client,
        "the live connection",
        Duration::from_secs(10),
        "return document.getElementById('conn').className;",
        |v| v == "up",
    )
    .await;
    let plies = wait_for(
        &client,
        "moves on every board (at least 3 plies each)",
        Duration::from_secs(40),
        "return [...document.querySelectorAll('.board-card')].map(c => +c.dataset.ply);",
        |v| {
            v.as_array()
                .is_some_and(|a| a.iter().all(|p| p.as_u64().unwrap_or(0) >= 3))
        },
    )
    .await;
    eprintln!("plies per board: {plies}");
    // A move the board shows before it is final is listed, marked as
    // provisional. The demo's boards have clocks, pressed a moment after
    // each move, so a provisional move is listed only briefly: an observer
    // notes every one the page lists.
    client
        .execute(
            "window.provisionals = []; new MutationObserver(() => \
             document.querySelectorAll('.board-card .moves .provisional').forEach(p => \
             window.provisionals.push([p.textContent.trim(), p.title]))) \
             .observe(document.body, { subtree: true, childList: true });",
            vec![],
        )
        .await
        .unwrap();
    let provisional = wait_for(
        &client,
        "a provisional move marked in a move list",
        Duration::from_secs(30),
        "return window.provisionals;",
        |v| v.as_array().is_some_and(|a| !a.is_empty()),
    )
    .await;
    eprintln!("provisional moves shown: {provisional}");
    assert!(
        provisional[0][0].as_str().is_some_and(|t| t.ends_with('?'))
            && provisional[0][1]
                .as_str()
                .is_some_and(|t| t.contains("not final")),
        "{provisional}"
    );
    let alert = wait_for(
        &client,
        "an arbiter alert with its board and message",
        Duration::from_secs(40),
        "const a = document.querySelector('#alerts .alert'); \
         return a ? [a.dataset.board, a.dataset.kind, a.querySelector('.msg').textContent] : null;",
        |v| v.is_array(),
    )
    .await;
    eprintln!("first alert shown: {alert}");
    assert!(
        alert[2].as_str().is_some_and(|m| m.len() > 10),
        "the alert names what happened: {alert}"
    );
    // Notices (touch-move, claimable draws) are kept but hidden by the
    // default filter, which shows the errors an arbiter acts on.
    let shown = "return [...document.querySelectorAll('#alerts .alert')]\
         .map(a => [a.classList.contains('notice'), getComputedStyle(a).display !== 'none']);";
    let listed = client.execute(shown, vec![]).await.unwrap();
    for a in listed.as_array().unwrap() {
        assert_eq!(
            a[0] == json!(true),
            a[1] == json!(false),
            "errors only: {listed}"
        );
    }
    client
        .execute(
            "const f = document.querySelector('#filter'); f.value = 'all'; \
             f.dispatchEvent(new Event('change'));",
            vec![],
        )
        .await
        .unwrap();
    let listed = client.execute(shown, vec![]).await.unwrap();
    assert!(
        listed
            .as_array()
            .unwrap()
            .iter()
            .all(|a| a[1] == json!(true)),
        "all alerts shown: {listed}"
    );

    // The position is drawn: pieces on squares, the last move marked, and
    // the move list follows the ply count.
    let drawn = client
        .execute(
            "const c = document.querySelector('.board-card'); \
             return [c.querySelectorAll('.pc').length, c.querySelectorAll('.sq.last').length, \
                     c.querySelector('.moves').textContent];",
            vec![],
        )
        .await
        .unwrap();
    let pieces = drawn[0].as_u64().unwrap();
    assert!((2..=32).contains(&pieces), "pieces drawn: {drawn}");
    assert_eq!(drawn[1], json!(2), "the last move's two squares: {drawn}");
    assert!(
        drawn[2].as_str().unwrap().contains("1."),
        "move list: {drawn}"
    );

    // The same games reach MQTT subscribers through the embedded broker.
    let sub =
        crate::util::Subscriber::connect(broker, "boardcast/board/+/state", "web-test", false)
            .await;
    let state = sub
        .wait_for(
            "a retained state with moves from the embedded broker",
            Duration::from_secs(10),
            |msgs| {
                msgs.iter()
                    .map(|m| m.json())
                    .find(|j| j["ply"].as_u64().unwrap_or(0) > 0)
            },
        )
        .await;
    assert_eq!(state["status"], "connected", "{state}");

    let png = client.screenshot().await.expect("a screenshot");
    let path = screenshot_path();
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, &png).unwrap();
    assert!(png.starts_with(b"\x89PNG"), "a PNG");
    eprintln!("screenshot: {}", path.display());
    let _ = client.close().await;
    drop(driver);

    // Ctrl-C stops the demo cleanly.
    let mut child = demo.child.take().unwrap();
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).unwrap();
    let deadline = Instant::now() + Duration::from_secs(15);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the demo did not stop on SIGINT; log:\n{}", demo.log());
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(
        status.success(),
        "demo exit: {status}; log:\n{}",
        demo.log()
    );
    let log = demo.log();
    assert!(
        log.contains("started the embedded broker"),
        "the log says the embedded broker was started:\n{log}"
    );
}

/// Issue "Two audiences": the live page in a real browser, both views. With
/// a 4 s broadcast delay, the public page names itself "delayed by 4 s",
/// shows no alerts panel and lags; `/arbiter` asks for the operator secret,
/// admits its holder and shows the game live.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_public_and_arbiter_views_of_the_page_in_chromium() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto, crate::util::Tool::Chromium]) {
        return;
    }
    use crate::util::{BoardConf, Broker, Daemon, SimBoard, SimOptions, game, write_config_with};
    assert!(
        Path::new(CHROMIUM).exists() && Path::new(CHROMEDRIVER).exists(),
        "this test needs {CHROMIUM} and {CHROMEDRIVER}: apt-get install chromium chromium-driver"
    );
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let web = free_port();
    let g = game(31, Some(14));
    let board = SimBoard::new(dir.path(), "one", g.clone(), 9, SimOptions::fast("40001"));
    // The arbiter view opens with its own password, not the operator secret.
    let secret = "views arbiter password";
    let extra = format!(
        "\n[broadcast]\ndelay = \"4s\"\n\n[web]\nlisten = \"127.0.0.1:{web}\"\narbiter_password = \"{secret}\"\n"
    );
    let config = write_config_with(
        dir.path(),
        &format!("mqtt://127.0.0.1:{}", broker.port),
        &extra,
        "views",
        &[BoardConf {
            id: "1".into(),
            port: board.path().to_string_lossy().into_owned(),
            serial: None,
        }],
    );
    // The arbiters' live topic gives the instant each move was published
    // live: the public page's lag is measured from there, not from when a
    // (possibly slow) browser happened to draw it.
    let live = crate::util::Subscriber::connect(
        broker.port,
        "views/arbiter/board/1/event",
        "views-live",
        false,
    )
    .await;
    // The public topic feeds the public page.
    let public =
        crate::util::Subscriber::connect(broker.port, "views/board/1/event", "views-public", false)
            .await;
    let daemon = Daemon::start(&config);
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(("127.0.0.1", web)).is_err() {
        assert!(Instant::now() < deadline, "no page: {}", daemon.log());
        std::thread::sleep(Duration::from_millis(50));
    }
    let (_driver, client) = open_browser(dir.path()).await;
    let base = format!("http://127.0.0.1:{web}");
    let audience = "return document.getElementById('audience').textContent;";

    // The public page says what it is and hides the alerts panel.
    client.goto(&format!("{base}/")).await.unwrap();
    wait_for(
        &client,
        "the public banner",
        Duration::from_secs(10),
        audience,
        |v| v == "Public view, delayed by 4 s",
    )
    .await;
    let aside = client
        .execute(
            "return getComputedStyle(document.querySelector('aside')).display;",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(aside, "none");

    // The arbiter view asks for the secret, refuses a wrong one, admits the
    // right one (the secret leaves the address bar).
    client.goto(&format!("{base}/arbiter")).await.unwrap();
    let form = client
        .execute(
            "return !!document.querySelector('input[name=key]');",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(form, json!(true), "a form asks for the operator secret");
    client
        .goto(&format!("{base}/arbiter?key=wrong%20guess"))
        .await
        .unwrap();
    let banner = client
        .execute("return document.getElementById('audience');", vec![])
        .await
        .unwrap();
    assert_eq!(banner, Value::Null, "a wrong secret gets no page");
    log_in(&client, secret).await;
    let url = client.current_url().await.unwrap();
    assert_eq!(url.path(), "/arbiter");
    assert!(
        url.query().is_none(),
        "the secret stays out of the address bar"
    );

    // The arbiters see the whole game first; the public page lags.
    let ply =
        "return [...document.querySelectorAll('.board-card')].map(c => +c.dataset.ply)[0] || 0;";
    let n = g.sans.len() as u64;
    wait_for(
        &client,
        "the whole game, live",
        Duration::from_secs(60),
        ply,
        |v| v.as_u64() == Some(n),
    )
    .await;
    let seen_live = live
        .wait_for("the last move, live", Duration::from_secs(5), |msgs| {
            msgs.iter()
                .find(|m| m.json()["type"] == "move" && m.json()["ply"].as_u64() == Some(n))
                .map(|m| m.at)
        })
        .await;
    client.goto(&format!("{base}/")).await.unwrap();
    let public_now = client.execute(ply, vec![]).await.unwrap();
    // Read within the delay (a loaded machine may take longer to get
    // here: then the topic below still shows the lag).
    if seen_live.elapsed() < Duration::from_millis(3_000) {
        assert!(
            public_now.as_u64().unwrap_or(0) < n,
            "the public page showed the last move with the arbiters"
        );
    }
    wait_for(
        &client,
        "the whole game, delayed",
        Duration::from_secs(15),
        ply,
        |v| v.as_u64() == Some(n),
    )
    .await;
    let seen_public = public
        .wait_for("the last move, public", Duration::from_secs(15), |msgs| {
            msgs.iter()
                .find(|m| m.json()["type"] == "move" && m.json()["ply"].as_u64() == Some(n))
                .map(|m| m.at)
        })
        .await;
    let lag = seen_public.duration_since(seen_live);
    assert!(
        lag >= Duration::from_millis(3_000),
        "the public view had the last move {lag:?} after it was published live; the delay is 4 s"
    );
    client.close().await.unwrap();
    drop(daemon);
}

/// Issues 15 and 16, item 5: `boardcast demo --games draughts,xiangqi` in
/// a real browser: the draughts board is drawn with its 32 dark squares
/// numbered 1-32 as the rule book numbers them (1 at the top left, 5 at
/// the left of the second row) and its men on them, the xiangqi board
/// with its 9 x 10 points (10 ranks, 9 files crossing the river), both
/// palaces' diagonals and its pieces as characters; the pieces drawn are
/// those of the state's `position`, and both move lists follow the plies.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_page_draws_draughts_and_xiangqi_boards_in_chromium() {
    if !crate::util::require(&[crate::util::Tool::Chromium]) {
        return;
    }
    assert!(
        Path::new(CHROMIUM).exists() && Path::new(CHROMEDRIVER).exists(),
        "this test needs {CHROMIUM} and {CHROMEDRIVER}: apt-get install chromium chromium-driver"
    );
    let dir = tempfile::tempdir().unwrap();
    let (web, broker) = (free_port(), free_port());
    let demo_log = dir.path().join("demo.log");
    let demo = Command::new(binary())
        .args([
            "demo",
            "--boards",
            "2",
            "--speed",
            "12",
            "--games",
            "draughts,xiangqi",
        ])
        .arg("--web")
        .arg(format!("127.0.0.1:{web}"))
        .arg("--broker")
        .arg(format!("127.0.0.1:{broker}"))
        .arg("--livechess")
        .arg(format!("127.0.0.1:{}", free_port()))
        .env("RUST_LOG", "info,rumqttd=off")
        .stdout(fs::File::create(dir.path().join("demo.out")).unwrap())
        .stderr(fs::File::create(&demo_log).unwrap())
        .spawn()
        .expect("boardcast demo runs");
    let mut demo = Proc {
        child: Some(demo),
        name: "boardcast demo",
        log: demo_log,
    };
    wait_listening(web, "the demo's page", &demo, Duration::from_secs(20));
    let (driver, client) = open_browser(dir.path()).await;
    client
        .goto(&format!("http://127.0.0.1:{web}/"))
        .await
        .expect("the page loads");
    wait_for(
        &client,
        "moves on both boards",
        Duration::from_secs(40),
        "return [...document.querySelectorAll('.board-card')].map(c => [c.dataset.game, +c.dataset.ply]);",
        |v| {
            v.as_array().is_some_and(|a| {
                a.len() == 2 && a.iter().all(|b| b[1].as_u64().unwrap_or(0) >= 3)
            })
        },
    )
    .await;
    let drawn = client
        .execute(
            "const d = document.querySelector('.board-card[data-game=draughts]'); \
             const nums = [...d.querySelectorAll('text.dr-num')]; \
             const at = n => { const t = nums.find(t => t.textContent === String(n)); \
                               return [Math.floor(+t.getAttribute('x')), Math.floor(+t.getAttribute('y'))]; }; \
             const x = document.querySelector('.board-card[data-game=xiangqi]'); \
             return { dnums: nums.map(t => +t.textContent), d1: at(1), d4: at(4), d5: at(5), d32: at(32), \
                      men: d.querySelectorAll('circle.dr-man').length, \
                      dmoves: d.querySelector('.moves').textContent, \
                      xlines: x.querySelectorAll('line.xq-line').length, \
                      xpieces: [...x.querySelectorAll('text.xq-ch')].map(t => t.dataset.piece).sort().join(''), \
                      xmoves: x.querySelector('.moves').textContent };",
            vec![],
        )
        .await
        .unwrap();
    eprintln!("drawn: {drawn}");
    let nums: Vec<u64> = drawn["dnums"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .collect();
    assert_eq!(nums, (1..=32).collect::<Vec<u64>>(), "{drawn}");
    assert_eq!(
        drawn["d1"],
        json!([1, 0]),
        "square 1 at the top left: {drawn}"
    );
    assert_eq!(drawn["d4"], json!([7, 0]), "{drawn}");
    assert_eq!(drawn["d5"], json!([0, 1]), "{drawn}");
    assert_eq!(drawn["d32"], json!([6, 7]), "{drawn}");
    // 10 ranks, 2 full edge files, 7 files cut by the river (14 lines),
    // 2 diagonals per palace.
    assert_eq!(drawn["xlines"], json!(10 + 2 + 14 + 4), "{drawn}");
    assert!(drawn["dmoves"].as_str().unwrap().contains("1."), "{drawn}");
    assert!(drawn["xmoves"].as_str().unwrap().contains("1."), "{drawn}");

    // The pieces drawn are the state's position.
    let sub =
        crate::util::Subscriber::connect(broker, "boardcast/board/+/state", "web-dx", false).await;
    let states = sub
        .wait_for("both retained states", Duration::from_secs(10), |msgs| {
            let d = msgs.iter().rev().find(|m| m.topic.ends_with("/1/state"))?;
            let x = msgs.iter().rev().find(|m| m.topic.ends_with("/2/state"))?;
            Some((d.json(), x.json()))
        })
        .await;
    assert_eq!(states.0["game_type"], "draughts", "{}", states.0);
    assert_eq!(states.1["game_type"], "xiangqi", "{}", states.1);
    let now = client
        .execute(
            "const d = document.querySelector('.board-card[data-game=draughts]'); \
             const x = document.querySelector('.board-card[data-game=xiangqi]'); \
             return [d.querySelectorAll('circle.dr-man').length, \
                     [...x.querySelectorAll('text.xq-ch')].map(t => t.dataset.piece).sort().join('')];",
            vec![],
        )
        .await
        .unwrap();
    // Play goes on: compare with the newest state the page may show, and
    // accept the page being one state behind or ahead of the retained one.
    let position = states.1["position"].as_str().unwrap();
    let mut letters: Vec<char> = position
        .split(' ')
        .next()
        .unwrap()
        .chars()
        .filter(|c| c.is_ascii_alphabetic())
        .collect();
    letters.sort();
    let letters: String = letters.into_iter().collect();
    let shown = now[1].as_str().unwrap();
    assert!(
        shown.len().abs_diff(letters.len()) <= 1
            && shown.chars().all(|c| "kabnrcpKABNRCP".contains(c)),
        "xiangqi pieces drawn {shown} vs position {letters}"
    );
    let men = states.0["position"]
        .as_str()
        .unwrap()
        .split(':')
        .skip(1)
        .flat_map(|p| p[1..].split(','))
        .filter(|s| !s.is_empty())
        .count() as u64;
    let drawn_men = now[0].as_u64().unwrap();
    assert!(
        drawn_men.abs_diff(men) <= 1 && drawn_men > 0,
        "draughts men drawn {drawn_men} vs position {men}"
    );
    let _ = client.close().await;
    drop(driver);
    let mut child = demo.child.take().unwrap();
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).unwrap();
    let deadline = Instant::now() + Duration::from_secs(15);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the demo did not stop on SIGINT; log:\n{}", demo.log());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Issue 42, "A forged draughts `position` hangs every browser on the
/// hub's page": a state whose PDN position names ranges such as
/// `W1-Infinity` or `1-1000000000` is drawn at once with the squares it
/// names on the board and nothing else, and the page goes on answering.
/// The state is handed to the page's own `renderState`, as its stream
/// would hand it (the hub's page, served by `boardcast hub`), so the test
/// holds whatever the hub lets through.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forged_draughts_position_never_hangs_the_page_in_chromium() {
    if !crate::util::require(&[crate::util::Tool::Chromium, crate::util::Tool::Mosquitto]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = crate::util::Broker::start();
    let url = format!("\"mqtt://127.0.0.1:{}\"", broker.port);
    let listen = format!("127.0.0.1:{}", free_port());
    let _hub = crate::hub::HubProc::start(&crate::hub::hub_config(
        &dir.path().join("hub"),
        &url,
        "forged",
        &listen,
    ));
    crate::hub::wait_until("the hub's page", 30, || crate::hub::http_get(&listen, "/"));
    let (driver, client) = open_browser(dir.path()).await;
    client
        .goto(&format!("http://{listen}/"))
        .await
        .expect("the page loads");
    let draw = |position: &str| {
        format!(
            "const b = card('forged'); \
             b.state = {{board: 'forged', status: 'connected', game: 1, game_type: 'draughts', \
                        position: {position:?}, moves: []}}; \
             renderState(b); \
             return [...b.el.querySelectorAll('circle.dr-man')].map(c => +c.dataset.sq);"
        )
    };
    for (position, expected) in [
        ("W:W1-Infinity,21,K22:B2", vec![2, 21, 22]),
        (
            "B:W21-32:B1-1000000000,9",
            vec![9, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32],
        ),
        ("W:W-5-3,1e9,0-2:B3-1", vec![]),
    ] {
        let started = Instant::now();
        let drawn = tokio::time::timeout(
            Duration::from_secs(15),
            client.execute(&draw(position), vec![]),
        )
        .await
        .unwrap_or_else(|_| panic!("the page hung on position {position}"))
        .expect("the script ran");
        let mut squares: Vec<u64> = drawn
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_u64)
            .collect();
        squares.sort_unstable();
        assert_eq!(squares, expected, "{position}");
        assert!(started.elapsed() < Duration::from_secs(5), "{position}");
    }
    // The page still answers.
    let title = client.execute("return document.title;", vec![]).await;
    assert!(title.is_ok(), "{title:?}");
    let _ = client.close().await;
    drop(driver);
}
