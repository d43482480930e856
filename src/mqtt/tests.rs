//! The outbox and the command intake, with a recorder in rumqttc's place.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;

use super::link::{Health, Report};
use super::outbox::{self, Inner, Publisher, with_seq};
use super::*;
use crate::event::{Event, EventKind};

#[derive(Default)]
struct Recorder {
    sent: Vec<(String, bool, String)>,
    room: usize,
}

impl Publisher for Recorder {
    fn publish(&mut self, topic: String, retain: bool, payload: Bytes) -> bool {
        if self.room == 0 {
            return false;
        }
        self.room -= 1;
        self.sent
            .push((topic, retain, String::from_utf8(payload.to_vec()).unwrap()));
        true
    }
}

fn event(board: &str, ply: u32) -> Event {
    Event {
        board: board.into(),
        t_ms: u64::from(ply) * 1000,
        game: crate::event::GameId::Chess,
        kind: EventKind::Takeback {
            to_ply: ply,
            position: "x".into(),
        },
    }
}

fn outbox(capacity: usize) -> Arc<Outbox> {
    Outbox::new(
        Topics::new("bc", "hall"),
        &["1".to_string(), "2".to_string()],
        capacity,
    )
}

/// Plays rumqttc's part: numbers every publish handed over, in order.
fn number_all(inner: &mut Inner, first_pkid: u16) -> Vec<u16> {
    let n = inner.link.unnumbered.len() as u16;
    let ids: Vec<u16> = (first_pkid..first_pkid + n).collect();
    for &id in &ids {
        inner.on_outgoing_publish(id);
    }
    ids
}

#[test]
fn event_payloads_carry_a_sequence_number_per_board() {
    let ob = outbox(10);
    ob.board(0).push_event(&event("1", 1));
    ob.board(0).push_event(&event("1", 2));
    ob.board(1).push_event(&event("2", 1));
    let inner = ob.lock();
    let seqs = |i: usize| -> Vec<u64> {
        inner.slots[i]
            .events
            .iter()
            .map(|q| {
                let v: serde_json::Value = serde_json::from_slice(&q.payload).unwrap();
                assert_eq!(v["type"], "takeback");
                v["seq"].as_u64().unwrap()
            })
            .collect()
    };
    assert_eq!(seqs(0), [1, 2]);
    assert_eq!(seqs(1), [1]);
    assert_eq!(with_seq("{}".into(), 3), "{\"seq\":3}");
}

#[test]
fn topics_follow_the_interface() {
    let t = Topics::new("bc/", "hall");
    assert_eq!(t.event("7"), "bc/board/7/event");
    assert_eq!(t.state("7"), "bc/board/7/state");
    assert_eq!(t.pgn("7"), "bc/board/7/pgn");
    assert_eq!(t.bridge_status(), "bc/bridge/hall/status");
}

#[test]
fn a_late_last_will_is_answered_with_online_while_connected() {
    let ob = outbox(10);
    let mut rec = Recorder {
        room: 100,
        ..Default::default()
    };
    {
        let mut inner = ob.lock();
        inner.on_connected();
        inner.pump(&ob.topics, &mut rec);
    }
    assert_eq!(rec.sent.len(), 1);
    ob.handle_incoming("bc/bridge/hall/status", b"online", true);
    ob.handle_incoming("bc/bridge/hall/status", b"offline", false);
    let mut inner = ob.lock();
    assert!(inner.link.announce, "online is to be published again");
    inner.pump(&ob.topics, &mut rec);
    assert_eq!(rec.sent.len(), 2);
    assert_eq!(
        (
            rec.sent[1].0.as_str(),
            rec.sent[1].1,
            rec.sent[1].2.as_str()
        ),
        ("bc/bridge/hall/status", true, "online")
    );
    // Its own `offline` at shutdown is not contradicted.
    inner.link.offline_sent = true;
    drop(inner);
    ob.handle_incoming("bc/bridge/hall/status", b"offline", false);
    assert!(!ob.lock().link.announce);
}

#[test]
fn on_connect_online_comes_first_then_events_then_retained_state() {
    let ob = outbox(10);
    let b = ob.board(0);
    b.push_event(&event("1", 1));
    b.set_retained("{\"s\":1}".into(), "pgn".into());
    let mut rec = Recorder {
        room: 100,
        ..Default::default()
    };
    let mut inner = ob.lock();
    inner.on_connected();
    inner.pump(&ob.topics, &mut rec);
    let topics: Vec<&str> = rec.sent.iter().map(|s| s.0.as_str()).collect();
    assert_eq!(
        topics,
        [
            "bc/bridge/hall/status",
            "bc/board/1/event",
            "bc/board/1/state",
            "bc/board/1/pgn"
        ]
    );
    assert_eq!(rec.sent[0].2, "online");
    assert!(rec.sent[0].1 && !rec.sent[1].1 && rec.sent[2].1 && rec.sent[3].1);
    // The state names its bridge, for a hub of many bridges.
    assert_eq!(rec.sent[2].2, r#"{"s":1,"bridge":"hall"}"#);
}

#[test]
fn the_arbiters_view_has_its_own_topics_and_sequence() {
    let ob = outbox(10);
    ob.board(1).push_event(&event("2", 1));
    let a = ob.arbiter(1);
    a.push_event(&event("2", 1));
    a.push_event(&event("2", 2));
    a.set_retained("{}".into(), "pgn".into());
    let mut rec = Recorder {
        room: 100,
        ..Default::default()
    };
    let mut inner = ob.lock();
    inner.on_connected();
    inner.pump(&ob.topics, &mut rec);
    let sent: Vec<(&str, String)> = rec
        .sent
        .iter()
        .skip(1)
        .map(|s| (s.0.as_str(), s.2.clone()))
        .collect();
    let seq = |i: usize| -> u64 {
        serde_json::from_str::<serde_json::Value>(&sent[i].1).unwrap()["seq"]
            .as_u64()
            .unwrap()
    };
    let topics: Vec<&str> = sent.iter().map(|s| s.0).collect();
    assert_eq!(
        topics,
        [
            "bc/board/2/event",
            "bc/arbiter/board/2/event",
            "bc/arbiter/board/2/event",
            "bc/arbiter/board/2/state",
            "bc/arbiter/board/2/pgn"
        ]
    );
    assert_eq!((seq(0), seq(1), seq(2)), (1, 1, 2));
}

#[test]
fn unacknowledged_events_are_sent_again_after_a_reconnect_and_acked_ones_are_not() {
    let ob = outbox(10);
    let b = ob.board(0);
    for ply in 1..=3 {
        b.push_event(&event("1", ply));
    }
    let mut rec = Recorder {
        room: 100,
        ..Default::default()
    };
    let mut inner = ob.lock();
    inner.on_connected();
    inner.pump(&ob.topics, &mut rec);
    let ids = number_all(&mut inner, 1);
    // online=1, events 2..=4; the broker acknowledges the first event only.
    inner.on_puback(ids[1]);
    assert_eq!(inner.slots[0].events.len(), 2);
    inner.on_disconnected();
    rec.sent.clear();
    inner.on_connected();
    inner.pump(&ob.topics, &mut rec);
    let events: Vec<&str> = rec
        .sent
        .iter()
        .filter(|s| s.0.ends_with("/event"))
        .map(|s| s.2.as_str())
        .collect();
    assert_eq!(events.len(), 2);
    assert!(events[0].contains("\"to_ply\":2"), "{events:?}");
    assert!(events[1].contains("\"to_ply\":3"), "{events:?}");
    let ids = number_all(&mut inner, 10);
    for id in ids {
        inner.on_puback(id);
    }
    assert!(inner.drained());
}

#[test]
fn a_full_queue_drops_its_oldest_event_and_keeps_the_board_going() {
    let ob = outbox(2);
    let b = ob.board(1);
    assert!(b.push_event(&event("2", 1)));
    assert!(b.push_event(&event("2", 2)));
    assert!(!b.push_event(&event("2", 3)));
    assert_eq!(b.dropped(), 1);
    let inner = ob.lock();
    let kept: Vec<u64> = inner.slots[1].events.iter().map(|q| q.seq).collect();
    assert_eq!(kept, [2, 3]);
}

#[test]
fn only_the_latest_retained_state_is_sent() {
    let ob = outbox(10);
    let b = ob.board(0);
    b.set_retained("old".into(), "p1".into());
    b.set_retained("new".into(), "p2".into());
    let mut rec = Recorder {
        room: 100,
        ..Default::default()
    };
    let mut inner = ob.lock();
    inner.on_connected();
    inner.pump(&ob.topics, &mut rec);
    let states: Vec<&str> = rec
        .sent
        .iter()
        .filter(|s| s.0.ends_with("/state"))
        .map(|s| s.2.as_str())
        .collect();
    assert_eq!(states, ["new"]);
}

#[test]
fn a_full_client_channel_leaves_the_rest_for_later_without_losing_it() {
    let ob = outbox(10);
    let b = ob.board(0);
    for ply in 1..=4 {
        b.push_event(&event("1", ply));
    }
    let mut rec = Recorder {
        room: 3,
        ..Default::default()
    };
    let mut inner = ob.lock();
    inner.on_connected();
    inner.pump(&ob.topics, &mut rec);
    assert_eq!(rec.sent.len(), 3);
    rec.room = 10;
    inner.pump(&ob.topics, &mut rec);
    let events = rec.sent.iter().filter(|s| s.0.ends_with("/event")).count();
    assert_eq!(events, 4);
}

#[test]
fn the_backoff_resets_only_after_a_stable_connection_and_outages_stay_visible() {
    let t0 = tokio::time::Instant::now();
    let s = Duration::from_secs;
    let mut h = Health::default();
    // Up for 2 s then dropped: no reset.
    h.connected(t0);
    assert_eq!(h.failed(t0 + s(2), false), (false, Report::Lost));
    // Attempts fail for a while: a warn line per 30 s, debug between.
    let mut reports = Vec::new();
    for i in 1..=70 {
        reports.push(h.failed(t0 + s(2 + i), false).1);
    }
    let warned = reports
        .iter()
        .filter(|r| **r == Report::Unreachable)
        .count();
    assert_eq!(warned, 2, "{reports:?}");
    assert!(reports.contains(&Report::Quiet));
    assert_eq!(h.failed(t0 + s(73), true).1, Report::Refused);
    assert_eq!(h.connected(t0 + s(80)), 72);
    // Up for 10 s: the next failure resets the backoff.
    assert_eq!(h.failed(t0 + s(90), false), (true, Report::Lost));
}

#[test]
fn an_event_too_large_to_publish_is_dropped_not_resent_forever() {
    let ob = outbox(10);
    let b = ob.board(0);
    b.push_event(&event("1", 1));
    let huge = Event {
        board: "1".into(),
        t_ms: 0,
        game: crate::event::GameId::Chess,
        kind: EventKind::Takeback {
            to_ply: 2,
            position: "x".repeat(MAX_PACKET),
        },
    };
    b.push_event(&huge);
    b.push_event(&event("1", 3));
    let mut rec = Recorder {
        room: 100,
        ..Default::default()
    };
    let mut inner = ob.lock();
    inner.on_connected();
    inner.pump(&ob.topics, &mut rec);
    let events: Vec<&str> = rec
        .sent
        .iter()
        .filter(|s| s.0.ends_with("/event"))
        .map(|s| s.2.as_str())
        .collect();
    assert_eq!(events.len(), 2);
    assert!(events[1].contains("\"to_ply\":3"));
    assert_eq!(inner.slots[0].dropped, 1);
    assert_eq!(inner.slots[0].events.len(), 2, "only the sent ones wait");
    // A reconnection does not bring it back.
    inner.on_disconnected();
    rec.sent.clear();
    inner.on_connected();
    inner.pump(&ob.topics, &mut rec);
    assert!(rec.sent.iter().all(|s| s.2.len() < 1000));
}

#[test]
fn a_state_too_large_to_publish_is_skipped_and_the_pgn_still_goes() {
    let ob = outbox(10);
    let b = ob.board(0);
    b.set_retained("s".repeat(MAX_PACKET), "pgn".into());
    let mut rec = Recorder {
        room: 100,
        ..Default::default()
    };
    let mut inner = ob.lock();
    inner.on_connected();
    inner.pump(&ob.topics, &mut rec);
    let topics: Vec<&str> = rec.sent.iter().map(|s| s.0.as_str()).collect();
    assert_eq!(topics, ["bc/bridge/hall/status", "bc/board/1/pgn"]);
    assert!(inner.slots[0].oversize_reported);
    drop(inner);
    // The next state that fits goes out.
    b.set_retained("{}".into(), "pgn2".into());
    let mut inner = ob.lock();
    inner.pump(&ob.topics, &mut rec);
    assert!(
        rec.sent
            .iter()
            .any(|s| s.0 == "bc/board/1/state" && s.2 == r#"{"bridge":"hall"}"#)
    );
    assert!(!inner.slots[0].oversize_reported);
}

#[test]
fn acknowledgements_and_warnings_go_out_not_retained_before_events() {
    let ob = outbox(10);
    ob.board(0).push_event(&event("1", 1));
    ob.ack(&Ack {
        nonce: Some("n".into()),
        board: "1".into(),
        accepted: true,
        changed: true,
        message: "m".into(),
        code: None,
    });
    ob.bridge_warning("unsigned", Some("1"), "command refused: not signed");
    let mut rec = Recorder {
        room: 100,
        ..Default::default()
    };
    let mut inner = ob.lock();
    inner.on_connected();
    inner.pump(&ob.topics, &mut rec);
    let topics: Vec<&str> = rec.sent.iter().map(|s| s.0.as_str()).collect();
    assert_eq!(
        topics,
        [
            "bc/bridge/hall/status",
            "bc/bridge/hall/ack",
            "bc/bridge/hall/warning",
            "bc/board/1/event"
        ]
    );
    assert!(!rec.sent[1].1 && !rec.sent[2].1);
    let w: serde_json::Value = serde_json::from_str(&rec.sent[2].2).unwrap();
    assert_eq!(w["code"], "unsigned");
    assert_eq!(w["board"], "1");
    assert_eq!(ob.topics.instance(), "bc/bridge/hall/instance");
    assert_eq!(ob.instance().len(), 12);
}

#[test]
fn a_flood_of_junk_commands_is_refused_with_bounded_publishes() {
    let ob = outbox(10);
    let (tx, mut rx) = tokio::sync::mpsc::channel(16);
    let router = crate::control::Router::new();
    router.add("1", tx);
    ob.route_commands(router);
    for _ in 0..500 {
        ob.handle_incoming("bc/board/1/command", br#"{"command":"restart"}"#, false);
    }
    // A command for a board of another bridge is not ours to refuse.
    ob.handle_incoming("bc/board/9/command", b"junk", false);
    assert!(rx.try_recv().is_err(), "nothing reached the board");
    let inner = ob.lock();
    let count = |t: &str| inner.notices.iter().filter(|n| n.topic == t).count();
    assert!(inner.notices.len() <= MAX_NOTICES);
    assert_eq!(
        count("bc/bridge/hall/warning"),
        WARNINGS_PER_PERIOD as usize
    );
    assert!(count("bc/bridge/hall/ack") <= REFUSALS_PER_SECOND as usize * 2);
    assert!(count("bc/bridge/hall/ack") >= 1);
}

#[test]
fn boards_are_served_in_turn() {
    let ob = outbox(10);
    for ply in 1..=3 {
        ob.board(0).push_event(&event("1", ply));
        ob.board(1).push_event(&event("2", ply));
    }
    let mut rec = Recorder {
        room: 100,
        ..Default::default()
    };
    let mut inner = ob.lock();
    inner.on_connected();
    inner.pump(&ob.topics, &mut rec);
    let boards: Vec<&str> = rec.sent[1..5].iter().map(|s| &s.0[9..10]).collect();
    assert_eq!(boards, ["1", "2", "1", "2"]);
}

#[test]
fn events_the_broker_is_slow_to_take_are_copied_once_through_a_standby_and_stay_queued() {
    let ob = outbox(10);
    let b = ob.board(0);
    b.push_event(&event("1", 1));
    b.set_retained("{\"s\":1}".into(), "pgn".into());
    let room = |room| Recorder {
        room,
        ..Default::default()
    };
    let (mut primary, mut copies) = (room(100), room(100));
    let after = Duration::from_secs(1);
    let mut inner = ob.lock();
    inner.on_connected();
    inner.pump(&ob.topics, &mut primary);
    let t0 = inner.slots[0].events[0].at;
    // Connected and not late yet: nothing is copied.
    inner.pump_express(&ob.topics, t0 + after / 2, after, &mut copies);
    assert!(copies.sent.is_empty());
    // Late: the event, then its board's state and PGN, none retained.
    inner.pump_express(&ob.topics, t0 + after, after, &mut copies);
    let sent = |rec: &Recorder| -> Vec<(String, bool)> {
        rec.sent.iter().map(|s| (s.0.clone(), s.1)).collect()
    };
    let copy = |topic: &str| (topic.to_string(), false);
    assert_eq!(
        sent(&copies),
        [
            copy("bc/board/1/event"),
            copy("bc/board/1/state"),
            copy("bc/board/1/pgn")
        ]
    );
    // Once only, and the event stays queued for the QoS 1 path.
    inner.pump_express(&ob.topics, t0 + 3 * after, after, &mut copies);
    assert_eq!(copies.sent.len(), 3);
    assert_eq!(inner.slots[0].events.len(), 1);
    // While the link is down, a new event is copied at once, with the
    // state it brought.
    inner.on_disconnected();
    drop(inner);
    b.push_event(&event("1", 2));
    b.set_retained("{\"s\":2}".into(), "pgn 2".into());
    let mut inner = ob.lock();
    let t1 = inner.slots[0].events[1].at;
    inner.pump_express(&ob.topics, t1, after, &mut copies);
    assert_eq!(copies.sent.len(), 6);
    let seq: serde_json::Value = serde_json::from_str(&copies.sent[3].2).unwrap();
    assert_eq!(seq["seq"], 2);
    assert_eq!(copies.sent[4].2, r#"{"s":2,"bridge":"hall"}"#);
    // A copy that finds no room is tried again at the next tick.
    let mut full = room(0);
    drop(inner);
    b.push_event(&event("1", 3));
    let mut inner = ob.lock();
    let t2 = inner.slots[0].events[2].at;
    inner.pump_express(&ob.topics, t2, after, &mut full);
    inner.pump_express(&ob.topics, t2, after, &mut copies);
    assert_eq!(copies.sent.len(), 7);
    assert_eq!(inner.slots[0].events.len(), 3);
}

#[test]
fn for_a_while_after_a_node_is_lost_every_event_is_copied_at_once() {
    let ob = outbox(10);
    let b = ob.board(0);
    let mut copies = Recorder {
        room: 100,
        ..Default::default()
    };
    let after = Duration::from_secs(1);
    ob.lock().on_connected();
    b.push_event(&event("1", 1));
    let t0 = ob.lock().slots[0].events[0].at;
    let mut inner = ob.lock();
    inner.pump_express(&ob.topics, t0, after, &mut copies);
    assert!(copies.sent.is_empty(), "connected and settled: not yet");
    // A standby lost its node: the cluster may be electing leaders, and a
    // subscriber whose consumer that node led gets no QoS 1 message.
    inner.node_lost(t0);
    inner.pump_express(&ob.topics, t0, after, &mut copies);
    assert_eq!(copies.sent.len(), 1);
    drop(inner);
    b.push_event(&event("1", 2));
    let mut inner = ob.lock();
    // Settled again: back to waiting (here longer than the event has).
    let patient = 2 * outbox::UNSETTLED;
    inner.pump_express(&ob.topics, t0 + outbox::UNSETTLED, patient, &mut copies);
    assert_eq!(copies.sent.len(), 1);
}

#[tokio::test]
async fn a_signed_command_reaches_its_board_within_50_ms_and_its_answer_is_the_ack() {
    let secret = crate::control::Secret::new("correct horse battery staple").unwrap();
    let ob = outbox(10);
    ob.set_control(&crate::control::config::Control {
        secret: Some(secret.clone()),
        window: Duration::from_secs(30),
        nonces: None,
    });
    let (tx, mut rx) = tokio::sync::mpsc::channel(16);
    let router = crate::control::Router::new();
    router.add("1", tx);
    ob.route_commands(router);
    let topic = "bc/board/1/command";
    let nonce = "0123456789abcdef0123";
    let command = crate::control::OperatorCommand::Restart;
    let payload = crate::control::sign(&secret, topic, &command, crate::wall::unix_ms(), nonce);
    let sent = std::time::Instant::now();
    ob.handle_incoming(topic, &payload, false);
    let mut request = tokio::time::timeout(Duration::from_millis(50), rx.recv())
        .await
        .expect("the board has it within 50 ms")
        .unwrap();
    assert!(sent.elapsed() < Duration::from_millis(50));
    assert_eq!(request.command, command);
    // The board answers on the request's reply; the intake publishes it.
    request.answer_outcome(
        "1",
        &crate::control::Outcome {
            accepted: true,
            changed: true,
            message: "game restarted".into(),
        },
    );
    let ack = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            if let Some(n) = ob
                .lock()
                .notices
                .iter()
                .find(|n| n.topic == "bc/bridge/hall/ack")
            {
                break n.payload.clone();
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    })
    .await
    .expect("the ack is queued");
    let ack: serde_json::Value = serde_json::from_slice(&ack).unwrap();
    assert_eq!(ack["nonce"], nonce);
    assert_eq!(ack["accepted"], true);
}
