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
