//! Issue 61, items 3 to 5, in headless Chromium with real parts: the hall
//! screens (`/screen`) and the stream overlays (`/overlay/BOARD`).
//!
//! On a bridge (`boardcast run`, 13 simulated DGT boards on ptys, real
//! Mosquitto, alerts public and no delay, one board playing an illegal move
//! that stands): the screen pages 12 boards at a time, its text is large
//! enough for a hall ([`MIN_TEXT`]), no alert ever shows on a screen or an
//! overlay while the public page shows it, the overlay marks the last
//! move, turns round on request and leaves its background transparent
//! (read from a screenshot's pixels). Screenshots at 1920x1080 and
//! 1280x720 are left in the target folder (docs/images has copies).
//!
//! On the hub (`boardcast hub` with a 4 s delay, one bridge with two
//! boards): both pages show the delayed public view (a move the public
//! has not been shown yet is not on them), and a stream taking one board
//! carries no other board's message.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use boardcast::clock::TimeControl;
use boardcast::event::Side;
use boardcast_sim::clock::{ClockSetup, add_clock};
use boardcast_sim::faults::{self, FaultKind};
use fantoccini::Client;
use serde_json::{Value, json};

use crate::hub::{HubBoard, HubProc, bridge_config, http_get, hub_config, wait_until};
use crate::util::{
    BoardConf, Broker, Daemon, SimBoard, SimOptions, Subscriber, free_port, game, write_config_with,
};
use crate::web::{open_browser_with, wait_for};

/// The smallest text a hall screen shows at 12 boards a page, as a part of
/// the screen's height: 1/25 (43 px at 1080p, 29 px at 720p). On a screen
/// 1.65 m tall (a 3 m wide projection) that is 66 mm, capitals of about
/// 46 mm: 16 minutes of arc at 10 m, the smallest size the ergonomics
/// guidelines give for reading text (docs/broadcast.md).
const MIN_TEXT: f64 = 1.0 / 25.0;

/// Where a screenshot is left: the target folder.
fn shot_path(name: &str) -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(crate::ROOT).join("target"));
    target.join(name)
}

/// Resizes the window until the page's viewport is `w` x `h`.
async fn viewport(client: &Client, w: u32, h: u32) {
    client.set_window_size(w, h).await.unwrap();
    let inner = client
        .execute("return [innerWidth, innerHeight];", vec![])
        .await
        .unwrap();
    let (iw, ih) = (inner[0].as_u64().unwrap(), inner[1].as_u64().unwrap());
    if (iw, ih) != (w as u64, h as u64) {
        let (dw, dh) = (w as u64 - iw.min(w as u64), h as u64 - ih.min(h as u64));
        client
            .set_window_size(w + dw as u32, h + dh as u32)
            .await
            .unwrap();
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let inner = client
        .execute("return [innerWidth, innerHeight];", vec![])
        .await
        .unwrap();
    assert_eq!(inner, json!([w, h]), "the viewport");
}

/// A screenshot of the page, saved as `name`; its PNG bytes.
async fn shoot(client: &Client, name: &str) -> Vec<u8> {
    let png = client.screenshot().await.unwrap();
    assert!(png.starts_with(b"\x89PNG"));
    std::fs::write(shot_path(name), &png).unwrap();
    eprintln!("screenshot: {}", shot_path(name).display());
    png
}

/// The alpha of the screenshot `png`'s pixels at `points`, decoded by the
/// browser itself (a canvas of the PNG).
async fn alphas(client: &Client, png: &[u8], points: &[(u32, u32)]) -> Vec<u64> {
    let data = base64(png);
    let script = "const [data, points, done] = arguments; const img = new Image(); \
         img.onload = () => { const c = document.createElement('canvas'); \
           c.width = img.width; c.height = img.height; const g = c.getContext('2d'); \
           g.drawImage(img, 0, 0); \
           done(points.map(([x, y]) => g.getImageData(x, y, 1, 1).data[3])); }; \
         img.src = 'data:image/png;base64,' + data;";
    let v = client
        .execute_async(script, vec![json!(data), json!(points)])
        .await
        .unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_u64().unwrap())
        .collect()
}

/// `bytes` in base64 (standard alphabet, padded).
fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len() / 3 * 4 + 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.len();
        let v = (chunk[0] as u32) << 16
            | (chunk.get(1).copied().unwrap_or(0) as u32) << 8
            | chunk.get(2).copied().unwrap_or(0) as u32;
        for i in 0..4 {
            if i <= n {
                out.push(ABC[(v >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Whatever an alert would leave on a page: an element named after one,
/// or its sentence.
const ALERTS_SHOWN: &str = "return document.querySelectorAll('.alert, #alerts, [data-kind]').length \
     + (document.body.innerText.toLowerCase().includes('illegal') ? 100 : 0);";

/// The public stream `path` read for `secs` seconds: its text.
fn read_stream(port: u16, path: &str, stop: &AtomicBool) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("the page");
    s.set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n"
    )
    .unwrap();
    let mut out = Vec::new();
    let mut buf = [0u8; 8192];
    while !stop.load(Ordering::Relaxed) {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(_) => {}
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The boards named in a stream's `data:` lines (a snapshot's boards too).
fn boards_in(stream: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in stream.lines() {
        let Some(v) = line
            .strip_prefix("data: ")
            .and_then(|d| serde_json::from_str::<Value>(d).ok())
        else {
            continue;
        };
        if let Some(b) = v["board"].as_str() {
            out.push(b.to_string());
        }
        for b in v["boards"].as_array().into_iter().flatten() {
            out.push(b.as_str().unwrap_or_default().to_string());
        }
    }
    out
}

const PLAYERS: [(&str, u32); 26] = [
    ("Carlsen, Magnus", 2831),
    ("Caruana, Fabiano", 2805),
    ("Nakamura, Hikaru", 2802),
    ("Gukesh, Dommaraju", 2777),
    ("Abdusattorov, Nodirbek", 2766),
    ("Erigaisi, Arjun", 2778),
    ("Firouzja, Alireza", 2754),
    ("Praggnanandhaa, Rameshbabu", 2758),
    ("So, Wesley", 2744),
    ("Giri, Anish", 2740),
    ("Wei, Yi", 2755),
    ("Keymer, Vincent", 2733),
    ("Nepomniachtchi, Ian", 2757),
    ("Ding, Liren", 2734),
    ("Aronian, Levon", 2738),
    ("Vachier-Lagrave, Maxime", 2726),
    ("Mamedyarov, Shakhriyar", 2731),
    ("Rapport, Richard", 2719),
    ("Dominguez Perez, Leinier", 2722),
    ("Le, Quang Liem", 2715),
    ("Duda, Jan-Krzysztof", 2721),
    ("Anand, Viswanathan", 2750),
    ("Hou, Yifan", 2630),
    ("Ju, Wenjun", 2560),
    ("Van Foreest, Jorden", 2690),
    ("Tabatabaei, M. Amin", 2700),
];

/// Issue 61, items 3 and 4, on a bridge: the hall screen and the overlay
/// with alerts public, no delay, and a board raising an alert.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hall_screens_and_overlays_on_a_bridge_in_chromium() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto, crate::util::Tool::Chromium]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let web = free_port();
    const BOARDS: usize = 13;
    // Board 1 plays an illegal move that stands: an error alert.
    let g1 = game(5, Some(30));
    let case = (0..40)
        .find_map(|seed| faults::chess::inject(&g1, FaultKind::IllegalStands, seed))
        .expect("an illegal move to inject");
    let mut sims = vec![SimBoard::with_session(
        dir.path(),
        "b1",
        g1.clone(),
        case.session.clone(),
        SimOptions::fast("61001"),
    )];
    // The others with a clock (90 minutes and 30 s a move).
    let setup = ClockSetup::new(TimeControl::parse("5400+30").unwrap());
    for i in 2..=BOARDS {
        let g = game(20 + i, Some(70));
        let mut session = boardcast_sim::simulate(
            &g,
            &mut boardcast_sim::Human {
                takeback: 0.0,
                ..boardcast_sim::Human::default()
            },
            i as u64,
            false,
        );
        add_clock(&mut session, &setup, Side::White, i as u64);
        sims.push(SimBoard::with_session(
            dir.path(),
            &format!("b{i}"),
            g,
            session,
            SimOptions::fast(&format!("610{i:02}")),
        ));
    }
    let pairings = dir.path().join("round.csv");
    let mut csv = String::from("board,white,black,white_rating,black_rating\n");
    for b in 0..BOARDS {
        let (w, b_) = (PLAYERS[2 * b], PLAYERS[2 * b + 1]);
        csv.push_str(&format!(
            "{},\"{}\",\"{}\",{},{}\n",
            b + 1,
            w.0,
            b_.0,
            w.1,
            b_.1
        ));
    }
    std::fs::write(&pairings, csv).unwrap();
    let extra = format!(
        "\n[web]\nlisten = \"127.0.0.1:{web}\"\n\n[broadcast]\npublic_alerts = true\n\n[event]\nname = \"Hall Open\"\nsite = \"Hall\"\nround = 5\npairings = \"{}\"\n",
        pairings.display()
    );
    let boards: Vec<BoardConf> = sims
        .iter()
        .enumerate()
        .map(|(i, s)| BoardConf {
            id: (i + 1).to_string(),
            port: s.path().to_string_lossy().into_owned(),
            serial: None,
        })
        .collect();
    let config = write_config_with(dir.path(), &broker.url(), &extra, "hall", &boards);
    let sub = Subscriber::connect(broker.port, "hall/board/1/event", "hall-watch", false).await;
    let daemon = Daemon::start(&config);
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(("127.0.0.1", web)).is_err() {
        assert!(Instant::now() < deadline, "no page: {}", daemon.log());
        std::thread::sleep(Duration::from_millis(50));
    }
    // What the overlay's and a screen page's streams carry, all along.
    let stop = Arc::new(AtomicBool::new(false));
    let readers: Vec<_> = [
        "/events?boards=1&alerts=off".to_string(),
        "/events?alerts=off&boards=1,2,3,4,5,6,7,8,9,10,11,12".to_string(),
    ]
    .into_iter()
    .map(|path| {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || read_stream(web, &path, &stop))
    })
    .collect();

    let (_driver, client) = open_browser_with(dir.path(), true).await;
    let base = format!("http://127.0.0.1:{web}");
    client
        .goto(&format!("{base}/screen?per_page=12&seconds=8"))
        .await
        .unwrap();
    viewport(&client, 1920, 1080).await;
    let cells = "return [...document.querySelectorAll('.cell')].map(c => [c.dataset.board, +c.dataset.ply]);";
    let first = wait_for(
        &client,
        "the first page: boards 1 to 12, moving",
        Duration::from_secs(60),
        cells,
        |v| {
            v.as_array().is_some_and(|a| {
                a.len() == 12 && a.iter().filter(|c| c[1].as_u64() > Some(4)).count() >= 10
            })
        },
    )
    .await;
    let ids: Vec<&str> = first
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c[0].as_str().unwrap())
        .collect();
    assert_eq!(ids, (1..=12).map(|i| i.to_string()).collect::<Vec<_>>());
    // The alert is raised, and public: the public topic carries it.
    sub.wait_for(
        "the illegal move's alert on the public topic",
        Duration::from_secs(90),
        |msgs| {
            msgs.iter()
                .any(|m| m.json()["type"] == "alert" && m.json()["kind"] == "illegal_move")
                .then_some(())
        },
    )
    .await;
    assert_eq!(
        client.execute(ALERTS_SHOWN, vec![]).await.unwrap(),
        json!(0),
        "an alert on the hall screen"
    );

    // Names, ratings, clocks, last move and result: large enough.
    for (w, h) in [(1920u32, 1080u32), (1280, 720)] {
        viewport(&client, w, h).await;
        client
            .goto(&format!("{base}/screen?per_page=12&seconds=600"))
            .await
            .unwrap();
        wait_for(
            &client,
            "the page's twelve boards",
            Duration::from_secs(20),
            cells,
            |v| v.as_array().is_some_and(|a| a.len() == 12),
        )
        .await;
        tokio::time::sleep(Duration::from_secs(2)).await;
        let sizes = client
            .execute(
                "const out = {}; for (const k of ['name', 'rating', 'clock', 'last', 'result', 'no']) \
                   out[k] = [...document.querySelectorAll('.cell .' + k)].filter(e => e.textContent.trim()) \
                     .map(e => parseFloat(getComputedStyle(e).fontSize)); \
                 out.height = innerHeight; \
                 out.names = [...document.querySelectorAll('.cell .name')].map(e => e.textContent); \
                 out.clipped = [...document.querySelectorAll('.cell')].filter(c => c.scrollHeight > c.clientHeight + 1).length; \
                 return out;",
                vec![],
            )
            .await
            .unwrap();
        eprintln!("{w}x{h}: {sizes}");
        let min = h as f64 * MIN_TEXT;
        for k in ["name", "rating", "last", "no", "clock"] {
            let list = sizes[k].as_array().unwrap();
            assert!(!list.is_empty(), "{k} shown at {w}x{h}: {sizes}");
            assert!(
                list.iter().all(|s| s.as_f64().unwrap() >= min),
                "{k} smaller than {min} px at {w}x{h}: {sizes}"
            );
        }
        // Results, once games end (the clean games run to their end).
        assert!(
            sizes["result"]
                .as_array()
                .unwrap()
                .iter()
                .all(|s| s.as_f64().unwrap() >= min),
            "result smaller than {min} px at {w}x{h}: {sizes}"
        );
        assert!(
            sizes["names"]
                .as_array()
                .unwrap()
                .iter()
                .any(|n| n == "Carlsen, M."),
            "the players' names: {sizes}"
        );
        assert_eq!(sizes["clipped"], json!(0), "a cell cut at {w}x{h}: {sizes}");
        assert_eq!(
            client.execute(ALERTS_SHOWN, vec![]).await.unwrap(),
            json!(0)
        );
        shoot(&client, &format!("screen-{w}x{h}.png")).await;
    }

    // The pages turn: board 13 alone on the second page.
    viewport(&client, 1920, 1080).await;
    client
        .goto(&format!("{base}/screen?per_page=12&seconds=5"))
        .await
        .unwrap();
    wait_for(
        &client,
        "the second page: board 13",
        Duration::from_secs(20),
        cells,
        |v| {
            v.as_array()
                .is_some_and(|a| a.len() == 1 && a[0][0] == "13")
        },
    )
    .await;
    // A screen of some boards only.
    client
        .goto(&format!("{base}/screen?boards=3,1&seconds=600"))
        .await
        .unwrap();
    wait_for(
        &client,
        "boards 1 and 3",
        Duration::from_secs(20),
        cells,
        |v| {
            v.as_array().is_some_and(|a| {
                a.iter().map(|c| c[0].clone()).collect::<Vec<_>>() == [json!("1"), json!("3")]
            })
        },
    )
    .await;

    // The overlay of the board that raised the alert.
    for (w, h, size) in [(1920u32, 1080u32, 640u32), (1280, 720, 480)] {
        viewport(&client, w, h).await;
        client
            .goto(&format!("{base}/overlay/1?size={size}&theme=blue"))
            .await
            .unwrap();
        let shown = wait_for(
            &client,
            "the overlay's board with its last move",
            Duration::from_secs(20),
            "const r = document.getElementById('overlay').getBoundingClientRect(); \
             return {ply: +document.querySelector('.board').dataset.ply, \
                     last: [...document.querySelectorAll('.bc-last')].map(e => e.dataset.sq), \
                     pieces: document.querySelectorAll('.bc-pc').length, \
                     top: document.querySelector('.bar.top .name').textContent, \
                     bottom: document.querySelector('.bar.bottom .name').textContent, \
                     bg: getComputedStyle(document.body).backgroundColor, \
                     width: r.width, height: r.height};",
            |v| v["ply"].as_u64() > Some(0) && v["last"].as_array().is_some_and(|a| a.len() == 2),
        )
        .await;
        eprintln!("overlay {w}x{h}: {shown}");
        assert_eq!(shown["width"], json!(size), "{shown}");
        assert_eq!(shown["bottom"], "Carlsen, M.", "{shown}");
        assert_eq!(shown["top"], "Caruana, F.", "{shown}");
        assert!(shown["pieces"].as_u64() >= Some(2), "{shown}");
        assert_eq!(shown["bg"], "rgba(0, 0, 0, 0)", "{shown}");
        assert_eq!(
            client.execute(ALERTS_SHOWN, vec![]).await.unwrap(),
            json!(0),
            "an alert on the overlay"
        );
        let png = shoot(&client, &format!("overlay-{w}x{h}.png")).await;
        let height = shown["height"].as_f64().unwrap() as u32;
        // Beside and below the overlay: transparent; on the board: opaque.
        let a = alphas(
            &client,
            &png,
            &[
                (w - 10, h - 10),
                (size + 20, 10),
                (10, height + 20),
                (size / 2, height / 2),
                (size / 3, height / 2 + 7),
            ],
        )
        .await;
        assert_eq!(&a[..3], &[0, 0, 0], "transparent around the board: {a:?}");
        assert_eq!(&a[3..], &[255, 255], "the board is opaque: {a:?}");
    }
    // Turned round, without coordinates, names or clocks.
    client
        .goto(&format!(
            "{base}/overlay/1?size=400&flip=1&coords=0&names=0&clocks=0&theme=green"
        ))
        .await
        .unwrap();
    let flipped = wait_for(
        &client,
        "the overlay turned round",
        Duration::from_secs(20),
        "const l = document.querySelector('.bc-last'); \
         return l ? {sq: l.dataset.sq, x: +l.getAttribute('x'), y: +l.getAttribute('y'), \
           coords: document.querySelectorAll('.bc-coord').length, \
           bars: [...document.querySelectorAll('.bar')].map(b => getComputedStyle(b).display)} : null;",
        |v| v.is_object(),
    )
    .await;
    let sq = flipped["sq"].as_str().unwrap().as_bytes();
    let (file, rank) = ((sq[0] - b'a') as u64, (sq[1] - b'1') as u64);
    assert_eq!(
        flipped["x"],
        json!(7 - file),
        "Black at the bottom: {flipped}"
    );
    assert_eq!(flipped["y"], json!(rank), "Black at the bottom: {flipped}");
    assert_eq!(flipped["coords"], json!(0), "{flipped}");
    assert_eq!(flipped["bars"], json!(["none", "none"]), "{flipped}");

    // The live page's own paging: page 2 of 12 boards a page is board 13.
    client
        .goto(&format!("{base}/?per_page=12&page=2"))
        .await
        .unwrap();
    let paged = wait_for(
        &client,
        "the live page's second page",
        Duration::from_secs(20),
        "return [[...document.querySelectorAll('.board-card')].map(c => c.dataset.board), \
                 document.getElementById('pager').textContent];",
        |v| v[0] == json!(["13"]),
    )
    .await;
    assert!(paged[1].as_str().unwrap().contains("Page 2 / 2"), "{paged}");

    // The public page shows the alert (alerts are public here).
    client.goto(&format!("{base}/")).await.unwrap();
    wait_for(
        &client,
        "the alert on the public page",
        Duration::from_secs(20),
        "return document.querySelectorAll('#alerts .alert').length;",
        |v| v.as_u64() > Some(0),
    )
    .await;
    stop.store(true, Ordering::Relaxed);
    let streams: Vec<String> = readers.into_iter().map(|r| r.join().unwrap()).collect();
    for (stream, allowed) in streams.iter().zip([1..=1, 1..=12]) {
        let boards = boards_in(stream);
        assert!(
            boards.len() > 20,
            "the stream carried the games: {boards:?}"
        );
        assert!(
            boards
                .iter()
                .all(|b| b.parse().is_ok_and(|n: usize| allowed.contains(&n))),
            "only boards {allowed:?}: {boards:?}"
        );
        assert!(!stream.contains("\"type\":\"alert\""), "no alert");
    }
    let _ = client.close().await;
    drop(daemon);
}

/// Issue 61, items 3 to 5, on the hub: under a 4 s delay, the screen and
/// the overlay show the delayed public view; a stream of one board carries
/// that board's messages only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hall_screens_and_overlays_on_the_hub_show_the_delayed_view_in_chromium() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto, crate::util::Tool::Chromium]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let url = format!("\"mqtt://127.0.0.1:{}\"", broker.port);
    let listen = format!("127.0.0.1:{}", free_port());
    let hub_dir = dir.path().join("hub");
    let config = hub_config(&hub_dir, &url, "hs", &listen);
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str("\n[broadcast]\ndelay = \"4s\"\n");
    std::fs::write(&config, text).unwrap();
    let _hub = HubProc::start(&config);
    let page = wait_until("the hub's screen", 30, || http_get(&listen, "/screen"));
    assert!(page.contains(r#"data-delay-ms="4000""#));
    let web: u16 = listen.rsplit(':').next().unwrap().parse().unwrap();

    let bdir = dir.path().join("hall");
    std::fs::create_dir_all(&bdir).unwrap();
    let g = game(16, Some(24));
    let sims = [
        SimBoard::new(&bdir, "d1", g.clone(), 5, SimOptions::fast("71101")),
        SimBoard::new(
            &bdir,
            "d2",
            game(17, Some(40)),
            6,
            SimOptions::fast("71102"),
        ),
    ];
    let bridge = bridge_config(
        &bdir,
        "hall",
        &url,
        "hs",
        &[
            HubBoard {
                id: "d1".into(),
                port: sims[0].path().to_string_lossy().into_owned(),
                number: 1,
            },
            HubBoard {
                id: "d2".into(),
                port: sims[1].path().to_string_lossy().into_owned(),
                number: 2,
            },
        ],
    );
    // The bridge has no delay: its public topic is the live game.
    let live = Subscriber::connect(broker.port, "hs/board/d1/event", "hs-live", false).await;
    let (_driver, client) = open_browser_with(dir.path(), false).await;
    let base = format!("http://{listen}");
    // The screen in one tab, the overlay in another.
    client
        .goto(&format!("{base}/screen?seconds=600"))
        .await
        .unwrap();
    let says = client
        .execute(
            "return document.getElementById('delay').textContent;",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(says, "Public view, delayed by 4 s");
    let screen = client.window().await.unwrap();
    let overlay = client.new_window(true).await.unwrap().handle;
    client.switch_to_window(overlay.clone()).await.unwrap();
    client.goto(&format!("{base}/overlay/d1")).await.unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let reader = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || read_stream(web, "/events?boards=d1&alerts=off", &stop))
    };
    let _daemon = Daemon::start(&bridge);

    let n = g.sans.len() as u64;
    let seen = live
        .wait_for("the last move, live", Duration::from_secs(90), |msgs| {
            msgs.iter()
                .find(|m| m.json()["type"] == "move" && m.json()["ply"].as_u64() == Some(n))
                .map(|m| m.at)
        })
        .await;
    let overlay_ply = "return +document.querySelector('.board').dataset.ply;";
    let screen_ply =
        "const c = document.querySelector('.cell[data-board=d1]'); return c ? +c.dataset.ply : -1;";
    let now_overlay = client.execute(overlay_ply, vec![]).await.unwrap();
    client.switch_to_window(screen.clone()).await.unwrap();
    let now_screen = client.execute(screen_ply, vec![]).await.unwrap();
    if seen.elapsed() < Duration::from_millis(3_000) {
        assert!(
            now_overlay.as_u64() < Some(n) && now_screen.as_u64() < Some(n),
            "the move live {:?} ago is already on the overlay ({now_overlay}) or the screen ({now_screen})",
            seen.elapsed()
        );
    } else {
        eprintln!("read late ({:?}): the lag is checked below", seen.elapsed());
    }
    wait_for(
        &client,
        "the last move on the screen, delayed",
        Duration::from_secs(20),
        screen_ply,
        |v| v.as_u64() == Some(n),
    )
    .await;
    let on_screen = seen.elapsed();
    client.switch_to_window(overlay).await.unwrap();
    wait_for(
        &client,
        "the last move on the overlay, delayed",
        Duration::from_secs(20),
        overlay_ply,
        |v| v.as_u64() == Some(n),
    )
    .await;
    assert!(
        on_screen >= Duration::from_millis(3_000),
        "the screen showed the last move {on_screen:?} after it was live; the delay is 4 s"
    );
    // Both boards reached the hub; the one-board stream carried one.
    let cells = {
        client.switch_to_window(screen).await.unwrap();
        client
            .execute(
                "return [...document.querySelectorAll('.cell')].map(c => c.dataset.board);",
                vec![],
            )
            .await
            .unwrap()
    };
    eprintln!("hub screen cells: {cells}");
    stop.store(true, Ordering::Relaxed);
    let stream = reader.join().unwrap();
    let boards = boards_in(&stream);
    assert!(boards.len() > 10, "{boards:?}");
    assert!(boards.iter().all(|b| b == "d1"), "{boards:?}");
    let all: Value = serde_json::from_str(&http_get(&listen, "/boards").unwrap()).unwrap();
    assert_eq!(
        all,
        json!([{"board": "d1", "round": 3, "number": 1}, {"board": "d2", "round": 3, "number": 2}])
    );
    let _ = client.close().await;
    drop(sims);
}
