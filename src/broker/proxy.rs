//! The embedded broker's gate, I/O part: the configured address is served
//! by this accept loop, which passes each client on to rumqttd (listening
//! on a loopback port of its own) through [`super::guard`]. What the
//! broker sends goes back untouched; what a client sends is cut into
//! packets and checked, and a client that goes over a limit is
//! disconnected with one warning line (rate limited). At most
//! `max_clients` clients at once: one more is closed at once.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use bytes::BytesMut;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tracing::{debug, warn};

use super::guard::{Client, Refusal, Registry, frame_len};

/// What every connection shares.
#[derive(Debug)]
struct Shared {
    upstream: SocketAddr,
    registry: Mutex<Registry>,
    /// The rate limit of the refusals' log.
    drops: Mutex<crate::text::Drops>,
}

/// Serves `listener`, passing clients on to rumqttd at `upstream`, until
/// the process ends.
pub(super) async fn serve(
    listener: TcpListener,
    upstream: SocketAddr,
    registry: Registry,
    max_clients: usize,
) {
    let shared = Arc::new(Shared {
        upstream,
        registry: Mutex::new(registry),
        drops: Mutex::new(crate::text::Drops::default()),
    });
    let slots = Arc::new(Semaphore::new(max_clients));
    loop {
        let (client, peer) = match listener.accept().await {
            Ok(c) => c,
            Err(e) => {
                debug!(error = %e, "embedded broker: accept failed");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(slot) = Arc::clone(&slots).try_acquire_owned() else {
            shared.refused(peer, &format!("more than {max_clients} clients at once"));
            continue;
        };
        let shared = Arc::clone(&shared);
        tokio::spawn(async move {
            if let Err(why) = pass(client, &shared).await {
                shared.refused(peer, &why.to_string());
            }
            drop(slot);
        });
    }
}

impl Shared {
    /// Logs a refused client (rate limited).
    fn refused(&self, peer: SocketAddr, why: &str) {
        let now = crate::wall::unix_ms();
        let logged = self
            .drops
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .note(now);
        match logged {
            Some(suppressed) => {
                warn!(%peer, suppressed, "embedded broker: client disconnected: {why}")
            }
            None => debug!(%peer, "embedded broker: client disconnected: {why}"),
        }
    }
}

/// Carries one client's connection to rumqttd and back until either side
/// closes it; `Err` when the gate closed it.
async fn pass(client: TcpStream, shared: &Shared) -> Result<(), Refusal> {
    let Ok(server) = TcpStream::connect(shared.upstream).await else {
        return Ok(());
    };
    let _ = client.set_nodelay(true);
    let _ = server.set_nodelay(true);
    let (mut from_client, mut to_client) = client.into_split();
    let (mut from_server, mut to_server) = server.into_split();
    let down = async {
        let _ = tokio::io::copy(&mut from_server, &mut to_client).await;
    };
    let up = async {
        let mut buf = BytesMut::with_capacity(4096);
        let mut gate = Client::default();
        let max = shared
            .registry
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .limits()
            .max_packet;
        loop {
            while let Some(len) = frame_len(&buf, max)? {
                let packet = buf.split_to(len);
                gate.check(
                    &packet,
                    &mut shared.registry.lock().unwrap_or_else(|e| e.into_inner()),
                )?;
                if to_server.write_all(&packet).await.is_err() {
                    return Ok(());
                }
            }
            match from_client.read_buf(&mut buf).await {
                Ok(0) | Err(_) => return Ok(()),
                Ok(_) => {}
            }
        }
    };
    // Either side ending ends both: the halves are dropped, so both
    // sockets close.
    tokio::select! {
        _ = down => Ok(()),
        r = up => r,
    }
}
