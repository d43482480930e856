//! The live page's streams under clients that never read (issue 42):
//! real sockets on loopback, the page's own server.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::{Audience, WebServer};
use crate::listener::Limits;

/// Opens `/events` and reads only the status line: the code, and the
/// socket (never read again).
async fn open_stream(addr: std::net::SocketAddr) -> (u16, tokio::net::TcpStream) {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(b"GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let mut head = [0u8; 12];
    s.read_exact(&mut head).await.unwrap();
    let code = std::str::from_utf8(&head[9..12]).unwrap().parse().unwrap();
    (code, s)
}

/// A stream whose client stops reading holds its slot only until its
/// writes have waited `write_timeout`: then the slot is free again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_that_is_never_read_gives_its_slot_back() {
    let limits = Limits {
        max_streams: 1,
        write_timeout: Duration::from_secs(1),
        ..Limits::default()
    };
    let addr = "127.0.0.1:0".parse().unwrap();
    let server = WebServer::start_for(addr, &["1".into()], Audience::default(), limits)
        .await
        .unwrap();
    let (code, stalled) = open_stream(server.addr).await;
    assert_eq!(code, 200);
    assert_eq!(open_stream(server.addr).await.0, 503, "one stream at most");
    // Far more than the socket buffers hold: the server's writes stall.
    let state = format!(r#"{{"board":"1","pad":"{}"}}"#, "x".repeat(64 * 1024));
    let feed = server.feed(0);
    for _ in 0..400 {
        feed.state(&state);
        tokio::task::yield_now().await;
    }
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    loop {
        let (code, _s) = open_stream(server.addr).await;
        if code == 200 {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the stalled stream still holds the only slot"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    drop(stalled);
}

/// Reads an SSE stream's messages from `path` until it has been quiet for
/// `quiet`: each message's name and its board (`data.board`, or for a
/// snapshot its boards joined by commas), and the bytes read.
async fn read_stream(
    addr: std::net::SocketAddr,
    path: String,
    started: tokio::sync::oneshot::Sender<()>,
    quiet: Duration,
) -> (Vec<(String, String)>, usize) {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes())
        .await
        .unwrap();
    let mut text = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut started = Some(started);
    loop {
        match tokio::time::timeout(quiet, s.read(&mut buf)).await {
            Ok(Ok(n)) if n > 0 => {
                text.extend_from_slice(&buf[..n]);
                // The snapshot is in: the stream is subscribed.
                if let Some(tx) =
                    started.take_if(|_| text.windows(14).any(|w| w == b"event: snapsho"))
                {
                    let _ = tx.send(());
                }
            }
            _ => break,
        }
    }
    let text = String::from_utf8_lossy(&text).into_owned();
    let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    let mut out = Vec::new();
    // Chunked framing aside, every message is "event: NAME\ndata: JSON".
    for line in body.lines() {
        if let Some(name) = line.strip_prefix("event: ") {
            out.push((name.to_string(), String::new()));
        } else if let Some(data) = line.strip_prefix("data: ")
            && let Some(last) = out.last_mut()
            && let Ok(v) = serde_json::from_str::<serde_json::Value>(data)
        {
            last.1 = match v["board"].as_str() {
                Some(b) => b.to_string(),
                None => v["boards"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|b| b.as_str())
                            .collect::<Vec<_>>()
                            .join(",")
                    })
                    .unwrap_or_default(),
            };
        }
    }
    (out, text.len())
}

/// Issue 61, item 5: 1,000 boards feed the page (states, moves' events and
/// alerts, alerts public); an overlay's stream (`/events?boards=7&alerts=off`)
/// carries board 7's messages and nothing else, no alert; a 12-board
/// screen page's only its twelve; a stream without a filter every board's,
/// as before. The snapshots likewise.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_carries_only_the_boards_its_page_shows() {
    const BOARDS: usize = 1_000;
    let ids: Vec<String> = (1..=BOARDS).map(|i| i.to_string()).collect();
    let audience = Audience::default().with_public_alerts(true);
    let addr = "127.0.0.1:0".parse().unwrap();
    let limits = Limits {
        max_streams: 8,
        ..Limits::default()
    };
    let server = WebServer::start_for(addr, &ids, audience, limits)
        .await
        .unwrap();
    let page: Vec<String> = (101..=112).map(|i| i.to_string()).collect();
    let paths = [
        "/events".to_string(),
        "/events?boards=7&alerts=off".to_string(),
        format!("/events?alerts=off&boards={}", page.join(",")),
    ];
    let mut readers = Vec::new();
    for path in paths {
        let (tx, rx) = tokio::sync::oneshot::channel();
        readers.push(tokio::spawn(read_stream(
            server.addr,
            path,
            tx,
            Duration::from_secs(2),
        )));
        rx.await.unwrap();
    }
    let rounds = 3;
    feed_states_and_alerts(&server, &ids, rounds).await;
    let mut got = Vec::new();
    for r in readers {
        got.push(r.await.unwrap());
    }
    let count = |msgs: &[(String, String)], name: &str| msgs.iter().filter(|m| m.0 == name).count();
    // Every board's messages: a state and an alert each round.
    let (all, all_bytes) = &got[0];
    assert_eq!(count(all, "state"), BOARDS * rounds as usize);
    assert_eq!(count(all, "event"), BOARDS * rounds as usize);
    // The overlay: board 7's states, no alert, a snapshot of board 7 only.
    let (overlay, overlay_bytes) = &got[1];
    assert_eq!(overlay[0], ("snapshot".to_string(), "7".to_string()));
    let live: Vec<_> = overlay[1..].iter().collect();
    assert_eq!(live.len(), rounds as usize, "{live:?}");
    assert!(
        live.iter().all(|m| m.0 == "state" && m.1 == "7"),
        "{live:?}"
    );
    // The screen page: its twelve boards' states only.
    let (screen, screen_bytes) = &got[2];
    assert_eq!(screen[0], ("snapshot".to_string(), page.join(",")));
    let live: Vec<_> = screen[1..].iter().collect();
    assert_eq!(live.len(), 12 * rounds as usize);
    assert!(
        live.iter().all(|m| m.0 == "state" && page.contains(&m.1)),
        "{live:?}"
    );
    eprintln!(
        "bytes: every board {all_bytes}, one board {overlay_bytes}, twelve boards {screen_bytes}"
    );
    assert!(
        *overlay_bytes * 100 < *all_bytes,
        "an overlay reads a hundredth at most"
    );
    snapshots_and_the_board_list_follow_the_filter(server.addr).await;
}

/// Feeds every board `rounds` times: a state and an alert each.
async fn feed_states_and_alerts(server: &WebServer, ids: &[String], rounds: u64) {
    use crate::event::{Alert, AlertKind, Event, EventKind, GameId};
    let feeds: Vec<_> = (0..ids.len()).map(|i| server.feed(i)).collect();
    for round in 1..=rounds {
        for (i, feed) in feeds.iter().enumerate() {
            let id = &ids[i];
            feed.state(&format!(
                r#"{{"board":"{id}","ply":{round},"round":1,"number":{}}}"#,
                i + 1
            ));
            feed.event(&Event {
                board: id.clone(),
                t_ms: round,
                game: GameId::Chess,
                kind: EventKind::Alert(Alert {
                    kind: AlertKind::Misplaced,
                    side: None,
                    law: None,
                    message: format!("alert on {id}"),
                    cleared: false,
                    evidence: None,
                }),
            });
            if i % 100 == 99 {
                // The channel holds 4,096 messages: let the streams read.
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
    }
}

/// The snapshots and the board list take the same filter as the streams;
/// a filter that does not read is refused.
async fn snapshots_and_the_board_list_follow_the_filter(server_addr: std::net::SocketAddr) {
    let snap = get_body(server_addr, "/snapshot?boards=7,9").await;
    let snap: serde_json::Value = serde_json::from_str(&snap).unwrap();
    assert_eq!(snap["boards"], serde_json::json!(["7", "9"]));
    assert_eq!(
        snap["alerts"]
            .as_array()
            .map(|a| a.iter().all(|x| x["board"] == "7" || x["board"] == "9")),
        Some(true)
    );
    let list: serde_json::Value =
        serde_json::from_str(&get_body(server_addr, "/boards?boards=10,9,100").await).unwrap();
    let order: Vec<_> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["board"].clone())
        .collect();
    assert_eq!(order, vec!["9", "10", "100"], "in board-number order");
    let (code, _) = get_status(server_addr, "/events?alerts=loud").await;
    assert_eq!(code, 400);
}

/// `GET path` on a fresh connection: the body (read to the end).
async fn get_body(addr: std::net::SocketAddr, path: &str) -> String {
    get_status(addr, path).await.1
}

/// `GET path` on a fresh connection: the status code and the body.
async fn get_status(addr: std::net::SocketAddr, path: &str) -> (u16, String) {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").as_bytes())
        .await
        .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).await.unwrap();
    let code = out[9..12].parse().unwrap();
    (
        code,
        out.split_once("\r\n\r\n")
            .map_or(String::new(), |(_, b)| b.to_string()),
    )
}
