//! Issue "Two audiences" with real parts: with `[broadcast] delay = "5s"`,
//! a real Mosquitto carries every move to the arbiters' live topics at
//! once and to the public topics 5 s later, in order and unchanged, the
//! public never sees an alert, and the PGN folder lags the same way.

use std::time::{Duration, Instant};

use crate::util::{
    BoardConf, Broker, Daemon, Msg, SimBoard, SimOptions, Subscriber, game, write_config_with,
};

const DELAY: Duration = Duration::from_secs(5);

/// An event without its per-topic `seq` (each topic numbers its own).
fn content(m: &Msg) -> serde_json::Value {
    let mut v = m.json();
    v.as_object_mut().unwrap().remove("seq");
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_public_sees_every_move_five_seconds_after_the_arbiters() {
    if !crate::util::require(&[
        crate::util::Tool::Mosquitto,
        crate::util::Tool::Python("chess"),
    ]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let sub = Subscriber::connect(broker.port, "dly/#", "watcher", false).await;
    let pgn_dir = dir.path().join("pgn");
    let g = game(21, Some(16));
    let board = SimBoard::new(dir.path(), "one", g.clone(), 5, SimOptions::fast("30001"));
    let extra = format!(
        "\n[broadcast]\ndelay = \"5s\"\n\n[event]\nround = 2\npgn_dir = \"{}\"\n",
        pgn_dir.display()
    );
    let config = write_config_with(
        dir.path(),
        &format!("mqtt://127.0.0.1:{}", broker.port),
        &extra,
        "dly",
        &[BoardConf {
            id: "1".into(),
            port: board.path().to_string_lossy().into_owned(),
            serial: None,
        }],
    );
    let daemon = Daemon::start(&config);

    let (live, public) = ("dly/arbiter/board/1/event", "dly/board/1/event");
    let moves = |msgs: &[Msg], topic: &str| -> Vec<Msg> {
        msgs.iter()
            .filter(|m| m.topic == topic && m.json()["type"] == "move")
            .cloned()
            .collect()
    };
    // The arbiters see the whole game live.
    let last_live = sub
        .wait_for("every move live", Duration::from_secs(60), |msgs| {
            let m = moves(msgs, live);
            (m.len() == g.sans.len()).then(|| m.last().unwrap().at)
        })
        .await;
    // The PGN folder does not have the last move yet: it lags too.
    let folder = pgn_dir.join("round-2").join("game-1.pgn");
    let last = g.sans.last().unwrap();
    // The movetext ends with the last move, then the result (maybe on the
    // next line).
    let has_last = |text: &str| {
        let words: Vec<&str> = text.split_whitespace().collect();
        words.len() >= 2 && words[words.len() - 2] == last
    };
    tokio::time::sleep_until(last_live + DELAY - Duration::from_millis(1_000)).await;
    let early = std::fs::read_to_string(&folder).unwrap_or_default();
    assert!(
        !has_last(&early),
        "the folder shows the last move {last} before the delay: {early}"
    );
    // The public sees it all, 5 s later.
    sub.wait_for("every move public", Duration::from_secs(30), |msgs| {
        (moves(msgs, public).len() == g.sans.len()).then_some(())
    })
    .await;
    let msgs = sub.messages();
    let (live_moves, public_moves) = (moves(&msgs, live), moves(&msgs, public));
    let sans: Vec<String> = public_moves
        .iter()
        .map(|m| m.json()["san"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(sans, g.sans, "the public moves, in order");
    // Each move is at least 4.5 s behind the arbiters' (never early), and
    // at most 1.5 s late: six system tests share two loaded cores in CI,
    // where one release once came 0.8 s late. The median must stay within
    // 0.3 s of the delay, which a release counted from the wrong time or
    // on a coarse tick would not.
    let mut lags = Vec::new();
    for (a, p) in live_moves.iter().zip(&public_moves) {
        assert_eq!(content(a), content(p), "the same move, unchanged");
        let lag = p.at.duration_since(a.at);
        assert!(
            lag >= DELAY - Duration::from_millis(500)
                && lag <= DELAY + Duration::from_millis(1_500),
            "ply {} reached the public {lag:?} after the arbiters",
            a.json()["ply"]
        );
        lags.push(lag);
    }
    lags.sort();
    let median = lags[lags.len() / 2];
    assert!(
        median >= DELAY - Duration::from_millis(300)
            && median <= DELAY + Duration::from_millis(300),
        "the median move reached the public {median:?} after the arbiters"
    );
    // Every public event (game start included) came out delayed, and no
    // alert ever reached the public topics.
    let public_events: Vec<&Msg> = msgs.iter().filter(|m| m.topic == public).collect();
    assert!(public_events.iter().all(|m| m.json()["type"] != "alert"));
    let first_live = msgs.iter().find(|m| m.topic == live).unwrap();
    assert!(
        public_events[0].at.duration_since(first_live.at) >= DELAY - Duration::from_millis(500)
    );
    // The retained states: live for the arbiters, the delayed game for the
    // public, both with the whole game in the end.
    for topic in ["dly/arbiter/board/1/state", "dly/board/1/state"] {
        sub.wait_for(topic, Duration::from_secs(5), |msgs| {
            let state = msgs.iter().rev().find(|m| m.topic == topic)?.json();
            (state["moves"].as_array()?.len() == g.sans.len()).then_some(())
        })
        .await;
    }
    // While the game went on, the public state never ran ahead of the
    // public events.
    let mut public_plies = 0;
    for m in &sub.messages() {
        if m.topic == public && m.json()["type"] == "move" {
            public_plies = m.json()["ply"].as_u64().unwrap();
        }
        if m.topic == "dly/board/1/state" {
            assert!(m.json()["ply"].as_u64().unwrap() <= public_plies);
        }
    }
    // The folder has the whole game, at most one writer pause (0.5 s) after
    // the public topics.
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let text = std::fs::read_to_string(&folder).unwrap_or_default();
        if has_last(&text) {
            assert_eq!(
                crate::games::python_chess_mainlines(&text),
                vec![g.sans.clone()]
            );
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the folder never got the last move: {text}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    drop(daemon);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_delay_the_public_topics_stay_live_and_the_arbiters_get_the_same() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let sub = Subscriber::connect(broker.port, "nod/#", "watcher", false).await;
    let g = game(22, Some(10));
    let board = SimBoard::new(dir.path(), "one", g.clone(), 6, SimOptions::fast("30002"));
    let config = write_config_with(
        dir.path(),
        &format!("mqtt://127.0.0.1:{}", broker.port),
        "",
        "nod",
        &[BoardConf {
            id: "1".into(),
            port: board.path().to_string_lossy().into_owned(),
            serial: None,
        }],
    );
    let daemon = Daemon::start(&config);
    let count = |msgs: &[Msg], topic: &str| {
        msgs.iter()
            .filter(|m| m.topic == topic && m.json()["type"] == "move")
            .count()
    };
    sub.wait_for(
        "every move on both views",
        Duration::from_secs(60),
        |msgs| {
            (count(msgs, "nod/board/1/event") == g.sans.len()
                && count(msgs, "nod/arbiter/board/1/event") == g.sans.len())
            .then_some(())
        },
    )
    .await;
    let msgs = sub.messages();
    let of = |topic: &str| -> Vec<serde_json::Value> {
        msgs.iter()
            .filter(|m| m.topic == topic)
            .map(content)
            .collect()
    };
    // Every event, alerts included, on both.
    assert_eq!(of("nod/board/1/event"), of("nod/arbiter/board/1/event"));
    // With no event date configured, the PGN carries the day the game
    // started, not a date fixed when the daemon started.
    let today = boardcast::wall::pgn_date();
    let pgn = sub
        .wait_for("the PGN", Duration::from_secs(10), |msgs| {
            let m = msgs.iter().rev().find(|m| m.topic == "nod/board/1/pgn")?;
            (!m.text().is_empty()).then(|| m.text())
        })
        .await;
    assert!(pgn.contains(&format!("[Date \"{today}\"]")), "{pgn}");
    drop(daemon);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_in_the_middle_of_the_delay_neither_loses_nor_leaks_a_move() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let sub = Subscriber::connect(broker.port, "rs/#", "watcher", false).await;
    let g = game(23, Some(14));
    // About two seconds a ply: a few plies wait for the public when the
    // daemon is killed.
    let slow = SimOptions {
        pace: boardcast_sim::pty::Pace::Compressed {
            think_ms: 2000,
            factor: 10,
        },
        ..SimOptions::fast("30003")
    };
    let board = SimBoard::new(dir.path(), "one", g.clone(), 7, slow);
    let config = write_config_with(
        dir.path(),
        &format!("mqtt://127.0.0.1:{}", broker.port),
        "\n[broadcast]\ndelay = \"5s\"\n",
        "rs",
        &[BoardConf {
            id: "1".into(),
            port: board.path().to_string_lossy().into_owned(),
            serial: None,
        }],
    );
    let (live, public) = ("rs/arbiter/board/1/event", "rs/board/1/event");
    let moves = |msgs: &[Msg], topic: &str| -> Vec<Msg> {
        msgs.iter()
            .filter(|m| m.topic == topic && m.json()["type"] == "move")
            .cloned()
            .collect()
    };
    let mut daemon = Daemon::start(&config);
    sub.wait_for("six plies live", Duration::from_secs(60), |msgs| {
        (moves(msgs, live).len() >= 6).then_some(())
    })
    .await;
    // Killed while moves wait for the public; started again at once.
    daemon.crash();
    let waiting = moves(&sub.messages(), live).len() - moves(&sub.messages(), public).len();
    assert!(
        waiting >= 1,
        "no move was waiting for the public at the kill"
    );
    let daemon = Daemon::start(&config);
    sub.wait_for("every move public", Duration::from_secs(90), |msgs| {
        let plies: Vec<u64> = moves(msgs, public)
            .iter()
            .map(|m| m.json()["ply"].as_u64().unwrap())
            .collect();
        (plies.last() == Some(&(g.sans.len() as u64))).then_some(())
    })
    .await;
    let msgs = sub.messages();
    let (live_moves, public_moves) = (moves(&msgs, live), moves(&msgs, public));
    // Nothing lost, in order: every ply once (a move whose release was
    // being recorded at the very instant of the kill may come twice, the
    // same move; screens drop the repeat).
    let mut plies: Vec<u64> = Vec::new();
    for m in &public_moves {
        let ply = m.json()["ply"].as_u64().unwrap();
        if plies.last() == Some(&ply) {
            continue;
        }
        assert_eq!(
            ply,
            plies.len() as u64 + 1,
            "public plies so far: {plies:?}"
        );
        plies.push(ply);
        assert_eq!(m.json()["san"], g.sans[ply as usize - 1]);
    }
    assert_eq!(plies.len(), g.sans.len());
    // The public's retained state never went back over the restart: it
    // was taken up from what the public had already seen.
    let mut shown = 0;
    for m in msgs.iter().filter(|m| m.topic == "rs/board/1/state") {
        let ply = m.json()["ply"].as_u64().unwrap();
        assert!(
            ply >= shown,
            "the public state went back from ply {shown} to {ply}"
        );
        shown = ply;
    }
    // Nothing early: each move reached the public at least the delay after
    // it first reached the arbiters.
    for p in &public_moves {
        let ply = &p.json()["ply"];
        let first_live = live_moves
            .iter()
            .find(|a| &a.json()["ply"] == ply)
            .unwrap_or_else(|| panic!("ply {ply} never reached the arbiters"));
        let lag = p.at.duration_since(first_live.at);
        assert!(
            lag >= DELAY - Duration::from_millis(500),
            "ply {ply} reached the public {lag:?} after the arbiters"
        );
    }
    drop(daemon);
}

/// A bridge configuration in `dir` (broker `url`, extra `[mqtt]` keys
/// `mqtt_extra`, `prefix`) with one board `1` on a port that does not exist.
fn lone_bridge(
    dir: &std::path::Path,
    url: &str,
    mqtt_extra: &str,
    prefix: &str,
) -> std::path::PathBuf {
    let port = dir.join("no-such-tty").to_string_lossy().into_owned();
    write_config_with(
        dir,
        url,
        mqtt_extra,
        prefix,
        &[BoardConf {
            id: "1".into(),
            port,
            serial: None,
        }],
    )
}

/// Waits (20 s at most) until `status` has heard the bridge say `online`.
async fn wait_online(status: &Subscriber) {
    status
        .wait_for("the bridge online", Duration::from_secs(20), |msgs| {
            msgs.iter().any(|m| m.text() == "online").then_some(())
        })
        .await;
}

/// The retained message left on `topic` (empty when none), read by
/// `mosquitto_sub` within 2 s.
fn retained_on(port: u16, topic: &str) -> Vec<u8> {
    std::process::Command::new("mosquitto_sub")
        .args(["-h", "127.0.0.1", "-p", &port.to_string()])
        .args(["-t", topic, "-C", "1", "-W", "2", "--retained-only"])
        .output()
        .unwrap()
        .stdout
}

/// Issue 42, "a retained oversized message on another board's command
/// topic is never cleared (the bridge cycles through its quarantine)": a
/// 24 MiB retained message (over every ceiling) on the command topic of a
/// board of another bridge costs this bridge nothing: it reads only its
/// own boards' command topics, connects once and stays connected. A 2 MiB
/// retained message on its own board's command topic (refused: too large)
/// is cleared from the broker once, with one log line.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_retained_command_is_cleared_on_its_own_topic_and_ignored_elsewhere() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    crate::hardening::publish_big_retained(broker.port, "ow/board/other/command", 24 << 20);
    let own = "ow/board/1/command";
    crate::util::publish(broker.port, own, vec![b'x'; 2 << 20], true).await;
    assert!(!retained_on(broker.port, own).is_empty());
    let config = lone_bridge(dir.path(), &broker.url(), "", "ow");
    let daemon = Daemon::start(&config);
    let status = Subscriber::connect(broker.port, "ow/bridge/test/status", "st", false).await;
    wait_online(&status).await;
    tokio::time::sleep(Duration::from_secs(6)).await;
    let log = daemon.log();
    assert_eq!(
        log.matches("connected to the broker").count(),
        1,
        "the bridge reconnected:\n{log}"
    );
    assert!(!log.contains("too large to read"), "{log}");
    assert_eq!(
        log.matches("clearing a refused retained command").count(),
        1,
        "{log}"
    );
    assert!(
        retained_on(broker.port, own).is_empty(),
        "the refused retained command is still on the broker"
    );
    assert_eq!(
        status.last_on("ow/bridge/test/status").as_deref(),
        Some("online")
    );
}

/// Issue 42, "the bridge's own status topic amplifies into unbounded
/// warnings": thirty `offline` messages on the bridge's status topic (a
/// late last will, or anyone who may publish there) give at most a few
/// warning lines, and the bridge says `online` again after the last.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn offline_on_the_bridges_own_status_is_answered_without_a_flood_of_warnings() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let config = lone_bridge(dir.path(), &broker.url(), "", "ls");
    let daemon = Daemon::start(&config);
    let topic = "ls/bridge/test/status";
    let status = Subscriber::connect(broker.port, topic, "st", false).await;
    wait_online(&status).await;
    for _ in 0..30 {
        crate::util::publish(broker.port, topic, b"offline".to_vec(), false).await;
    }
    status
        .wait_for(
            "online after the last offline",
            Duration::from_secs(10),
            |msgs| {
                let offline = msgs.iter().filter(|m| m.text() == "offline").count();
                (offline == 30 && msgs.last()?.text() == "online").then_some(())
            },
        )
        .await;
    let log = daemon.log();
    let warnings = log
        .lines()
        .filter(|l| l.contains("WARN") && l.contains("publishing online again"))
        .count();
    assert!(
        (1..=4).contains(&warnings),
        "{warnings} warnings for 30 messages:\n{log}"
    );
}

/// Subscribes as client `id` of the broker on `port` to `filters`, 16 to a
/// `SUBSCRIBE`; the number of `SUBACK`s before the broker closed the
/// connection, and whether it did.
async fn subscribe_many(port: u16, id: &str, filters: &[String]) -> (usize, bool) {
    use rumqttc::{AsyncClient, Event, Incoming, MqttOptions, QoS, SubscribeFilter};
    let mut o = MqttOptions::new(id, "127.0.0.1", port);
    o.set_keep_alive(Duration::from_secs(30));
    let batches: Vec<Vec<SubscribeFilter>> = filters
        .chunks(16)
        .map(|c| {
            c.iter()
                .map(|f| SubscribeFilter::new(f.clone(), QoS::AtMostOnce))
                .collect()
        })
        .collect();
    let (client, mut el) = AsyncClient::new(o, batches.len() + 8);
    for b in batches.iter().cloned() {
        client.try_subscribe_many(b).unwrap();
    }
    let mut acks = 0;
    let closed = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            match el.poll().await {
                Ok(Event::Incoming(Incoming::SubAck(_))) => {
                    acks += 1;
                    if acks == batches.len() {
                        return false;
                    }
                }
                Ok(_) => {}
                Err(_) => return true,
            }
        }
    })
    .await
    .expect("the broker answered");
    let _ = client.try_disconnect();
    (acks, closed)
}

/// Issue 42, "the embedded broker's memory grows without bound with
/// filters" (16 MB to 595 MB, kept after the clients leave): a client
/// subscribing to 300 distinct filters is disconnected past 256; forty
/// clients with 100 new filters each fill the broker's 1,024 and the rest
/// are disconnected; once they are gone the daemon's resident memory has
/// grown by less than 64 MiB, and the bridge still publishes through it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_embedded_broker_disconnects_a_client_with_too_many_filters_and_stays_small() {
    let dir = tempfile::tempdir().unwrap();
    let port = crate::util::free_port();
    let config = lone_bridge(
        dir.path(),
        &format!("mqtt://127.0.0.1:{port}"),
        "embedded = \"auto\"",
        "eb",
    );
    let daemon = Daemon::start(&config);
    let status = loop {
        if daemon.log().contains("started the embedded broker") {
            break Subscriber::connect(port, "eb/bridge/test/status", "st", false).await;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    wait_online(&status).await;
    let rss = || crate::util::proc_usage(daemon.pid()).unwrap().0;
    let before = rss();

    let filters = |client: usize, n: usize| -> Vec<String> {
        (0..n).map(|i| format!("atk/{client}/{i}/+/#")).collect()
    };
    let (acks, closed) = subscribe_many(port, "greedy", &filters(999, 300)).await;
    assert!(closed, "300 filters on one connection were taken");
    assert!(
        acks <= 256 / 16,
        "{acks} SUBACKs: more than 256 filters served"
    );
    let mut refused = 0;
    for c in 0..40 {
        let (_, closed) = subscribe_many(port, &format!("atk-{c}"), &filters(c, 100)).await;
        refused += usize::from(closed);
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let after = rss();
    eprintln!(
        "embedded broker: RSS {before} KiB before, {after} KiB after 4,300 filters asked ({refused} of 40 clients refused)"
    );
    assert!(refused >= 30, "only {refused} of 40 clients refused");
    assert!(
        after.saturating_sub(before) < 64 << 10,
        "the daemon grew from {before} KiB to {after} KiB"
    );
    // Known filters stay open, and the bridge still publishes.
    let late = Subscriber::connect(port, "eb/bridge/test/status", "late", false).await;
    late.wait_for("the retained status", Duration::from_secs(10), |msgs| {
        msgs.iter().any(|m| m.text() == "online").then_some(())
    })
    .await;
    let log = daemon.log();
    assert!(log.contains("distinct subscription filters"), "{log}");
}
