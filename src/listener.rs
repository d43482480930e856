//! The hardened accept loop every HTTP listener runs (the live page and
//! the hub's page): a cap on connections, a timeout for request headers
//! and idle keep-alive connections, a bound on buffered request bytes.
//!
//! An edge module (tokio, hyper); it knows nothing of boards or games.

use std::sync::Arc;

use axum::Router;
use tokio::net::TcpListener;
use tracing::debug;

/// A listener's limits (the live page's: `[web]` in the configuration).
///
/// Design: every connection holds a file descriptor and a task; a client
/// that opens connections and never finishes its request must not starve
/// the boards' files and broker connection. Past `max_connections` new
/// connections are closed at once; a client has `header_timeout` to send
/// a request's headers (a kept-alive idle connection is closed after the
/// same time); past `max_streams` live streams `/events` answers 503 and
/// the page's `EventSource` tries again later.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Connections served at once (default 256).
    pub max_connections: usize,
    /// Live streams served at once (default 128).
    pub max_streams: usize,
    /// Time to send a request's headers, and to keep an idle connection
    /// (default 10 s).
    pub header_timeout: std::time::Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_connections: 256,
            max_streams: 128,
            header_timeout: std::time::Duration::from_secs(10),
        }
    }
}

/// Accepts connections up to the cap and serves each with a header
/// timeout.
pub async fn accept_loop(listener: TcpListener, app: Router, limits: Limits) {
    use hyper_util::rt::{TokioIo, TokioTimer};
    let slots = Arc::new(tokio::sync::Semaphore::new(limits.max_connections));
    let mut warned = false;
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(c) => c,
            Err(e) => {
                // Out of descriptors, say: wait instead of spinning.
                debug!(error = %e, "accept failed");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(slot) = Arc::clone(&slots).try_acquire_owned() else {
            if !warned {
                tracing::warn!(max = limits.max_connections, %peer, "live page: too many connections; closing new ones");
                warned = true;
            }
            drop(stream);
            continue;
        };
        warned = false;
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        tokio::spawn(async move {
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(limits.header_timeout)
                .max_buf_size(64 * 1024);
            if let Err(e) = builder
                .serve_connection(TokioIo::new(stream), service)
                .await
            {
                debug!(%peer, error = %e, "live page connection ended");
            }
            drop(slot);
        });
    }
}
