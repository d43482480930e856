//! The MQTT sink: publishes every board's events, retained state and PGN,
//! and the bridge's status, through one broker connection.
//!
//! # Shape
//!
//! Board tasks never wait for the broker. Each holds a [`BoardOutbox`] and
//! hands it events and its latest retained state; the shared [`Outbox`]
//! keeps them and passes what it can to rumqttc at once with
//! `try_publish`, which never blocks. One task, [`run`], owns rumqttc's
//! `EventLoop` and polls it, and is the only place that learns about
//! connections, packet ids and acknowledgements.
//!
//! - [`outbox`](self::Outbox): the queues, the turn-taking, the packet ids.
//! - `intake`: operator commands and the bridge's other subscriptions.
//! - `task`: the connection loop ([`run`]): reconnection, failover, a
//!   clean shutdown.
//! - `standby`: with a cluster, QoS 0 copies of what the broker is slow to
//!   take, through connections to the other nodes.
//!
//! # No lost moves
//!
//! Design: rumqttc forgets unacknowledged publishes when it reconnects
//! without a session, and its request channel blocks publishers when full.
//! So the outbox is the source of truth, not rumqttc: an event stays in its
//! board's queue until the broker acknowledges it (QoS 1 `PUBACK`). Every
//! publish handed to rumqttc is remembered in order; rumqttc reports each
//! as `Outgoing::Publish(pkid)` in the same order, which maps packet ids to
//! events; a `PUBACK` then removes its event. When the connection fails,
//! rumqttc's own copies are thrown away, and after the next `CONNACK` the
//! outbox sends every unacknowledged event again (in order, so a subscriber
//! may see an event twice, as QoS 1 allows, but never loses one), then every
//! board's retained state and PGN, then `online`. Reconnection waits grow
//! exponentially to a cap, because rumqttc itself retries at once.
//!
//! # When the queue is full
//!
//! A board's queue holds `mqtt.queue` events. If the broker stays away long
//! enough to fill it, the oldest event is dropped (and counted, and logged):
//! the board keeps running, and the retained state and PGN, which carry the
//! whole game, are always brought up to date. Retained messages are never
//! queued: only the latest state of a board is kept, and sent when the
//! connection has room.

pub mod config;
mod intake;
pub mod link;
mod outbox;
mod standby;
mod task;
#[cfg(test)]
mod tests;

use std::time::Duration;

use rumqttc::{
    AsyncClient, Event as MqttEvent, Incoming, LastWill, MqttOptions, QoS, TlsConfiguration,
    Transport,
};

use crate::control::Ack;
pub use outbox::{BoardOutbox, Outbox};
pub use task::run;

/// Publishes handed to rumqttc and not yet acknowledged, at most. rumqttc
/// keeps up to [`INFLIGHT`] on the wire and the rest in its channel.
const WINDOW: usize = 256;
/// QoS 1 publishes rumqttc keeps unacknowledged on the wire.
const INFLIGHT: u16 = 128;
/// Largest packet in either direction: a 300-move PGN is about 3 KiB and
/// its state JSON about 6 KiB; leave ample room for long games and tags.
pub const MAX_PACKET: usize = 1024 * 1024;
/// Largest packet read. Above [`MAX_PACKET`], so that a message too large
/// for any topic the bridge reads (1 MiB on the instance topic, say) is
/// read whole and dropped by its size on the same connection, where
/// refusing it would cost the connection: MQTT 3.1.1 has no other way to
/// refuse a packet, and a retained one comes back at every connection.
pub const MAX_INCOMING: usize = 16 * 1024 * 1024;
/// Acknowledgements, warnings and announcements waiting for a connection,
/// at most (the oldest go first).
const MAX_NOTICES: usize = 64;
/// Bridge warnings published at most per [`WARNING_PERIOD_MS`].
const WARNINGS_PER_PERIOD: u32 = 20;
/// Acknowledgements of refused commands published at most per second.
const REFUSALS_PER_SECOND: u32 = 20;
/// Warnings about `offline` on the bridge's own status topic (a late last
/// will, or someone else's message) logged at most per
/// [`WARNING_PERIOD_MS`].
const LATE_WILLS_PER_PERIOD: u32 = 2;
/// See [`WARNINGS_PER_PERIOD`].
const WARNING_PERIOD_MS: u64 = 10_000;

/// Whether a publish of `payload` on `topic` fits in one MQTT packet.
pub(super) fn fits(topic: &str, payload: &[u8]) -> bool {
    // Fixed header (at most 5 bytes), topic length, packet id.
    topic.len() + payload.len() + 5 + 2 + 2 <= MAX_PACKET
}

/// The topic names of one bridge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Topics {
    pub(super) prefix: String,
    pub(super) bridge: String,
}

impl Topics {
    /// Topics under `prefix` for bridge `bridge`.
    pub fn new(prefix: &str, bridge: &str) -> Topics {
        Topics {
            prefix: prefix.trim_end_matches('/').to_string(),
            bridge: bridge.to_string(),
        }
    }

    /// `{prefix}/board/{id}/event`: each event, QoS 1, not retained.
    pub fn event(&self, board: &str) -> String {
        format!("{}/board/{board}/event", self.prefix)
    }

    /// `{prefix}/board/{id}/state`: the board's game and health, retained.
    pub fn state(&self, board: &str) -> String {
        format!("{}/board/{board}/state", self.prefix)
    }

    /// `{prefix}/board/{id}/pgn`: the current game as PGN text, retained.
    pub fn pgn(&self, board: &str) -> String {
        format!("{}/board/{board}/pgn", self.prefix)
    }

    /// `{prefix}/bridge/{name}/status`: `online`/`offline`, retained, the
    /// last will.
    pub fn bridge_status(&self) -> String {
        format!("{}/bridge/{}/status", self.prefix, self.bridge)
    }

    /// `{prefix}/arbiter/board/{id}/event`: each event, live, alerts
    /// included, whatever the public broadcast delay.
    pub fn arbiter_event(&self, board: &str) -> String {
        format!("{}/arbiter/board/{board}/event", self.prefix)
    }

    /// The topic of `kind` (`event`, `state`, `pgn`) of a board in `view`.
    fn of(&self, view: View, board: &str, kind: &str) -> String {
        match view {
            View::Public => format!("{}/board/{board}/{kind}", self.prefix),
            View::Arbiter => format!("{}/arbiter/board/{board}/{kind}", self.prefix),
        }
    }

    /// `{prefix}/board/{id}/command`: operator corrections (JSON), QoS 1.
    /// `{prefix}/bridge/{name}/ack`: the daemon's answer to each command
    /// (JSON, see [`Ack`]), not retained.
    pub fn ack(&self) -> String {
        format!("{}/bridge/{}/ack", self.prefix, self.bridge)
    }

    /// `{prefix}/bridge/{name}/warning`: refused commands, a second bridge
    /// of the same name (JSON), not retained, rate limited.
    pub fn warning(&self) -> String {
        format!("{}/bridge/{}/warning", self.prefix, self.bridge)
    }

    /// `{prefix}/bridge/{name}/instance`: each bridge process announces its
    /// random instance id here at every connection (not retained), so two
    /// processes with the same bridge name notice each other.
    pub fn instance(&self) -> String {
        format!("{}/bridge/{}/instance", self.prefix, self.bridge)
    }

    /// `{prefix}/bridge/{name}/heartbeat`: while connected, every
    /// `[mqtt] heartbeat_s`, QoS 0, retained:
    /// `{"instance": ID, "interval_ms": N, "t": UNIX_MS}`. A hub marks a
    /// bridge whose heartbeats stop "not heard from", even when its last
    /// will never comes.
    pub fn heartbeat(&self) -> String {
        format!("{}/bridge/{}/heartbeat", self.prefix, self.bridge)
    }

    /// `{prefix}/board/{id}/command`: operator corrections (signed JSON, see
    /// [`crate::control`]), QoS 1.
    pub fn command(&self, board: &str) -> String {
        format!("{}/board/{board}/command", self.prefix)
    }

    /// The board id of a command topic, if it is one.
    pub fn command_board<'a>(&self, topic: &'a str) -> Option<&'a str> {
        topic
            .strip_prefix(&self.prefix)?
            .strip_prefix("/board/")?
            .strip_suffix("/command")
            .filter(|id| !id.contains('/'))
    }
}

/// Which audience a board's topics serve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    /// `{prefix}/board/{id}/...`: the public, `[broadcast] delay` behind
    /// the live game (live when the delay is 0).
    Public,
    /// `{prefix}/arbiter/board/{id}/...`: arbiters and organisers, always
    /// live, alerts included.
    Arbiter,
}

/// Why the MQTT task could not start.
#[derive(Debug, thiserror::Error)]
pub enum MqttError {
    /// A TLS file could not be read.
    #[error("reading {path}: {error}")]
    TlsFile {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// The system's trusted roots could not be loaded.
    #[error("could not load the system's trusted certificates; set mqtt.tls.ca_file")]
    SystemRoots,
}

/// rumqttc options from the configuration.
pub fn options(cfg: &config::Mqtt, topics: &Topics) -> Result<MqttOptions, MqttError> {
    let mut o = connection_options(cfg, cfg.client_id.clone())?;
    set_last_will(&mut o, topics);
    Ok(o)
}

/// The bridge's last will: `offline` on its status topic, retained.
pub(super) fn set_last_will(o: &mut MqttOptions, topics: &Topics) {
    o.set_last_will(LastWill::new(
        topics.bridge_status(),
        "offline",
        QoS::AtLeastOnce,
        true,
    ));
}

/// Sends one signed operator command (`payload`, see
/// [`crate::control::sign`]) to a board's command topic and waits, at most
/// `timeout`, for the daemon's acknowledgement with the same `nonce` on the
/// bridge's ack topic (`boardcast command`). Connects as its own client,
/// without the bridge's last will.
pub async fn send_command(
    cfg: &config::Mqtt,
    topics: &Topics,
    board: &str,
    payload: Vec<u8>,
    nonce: &str,
    timeout: Duration,
) -> Result<Ack, CommandError> {
    let id = format!(
        "{}-command-{}",
        cfg.client_id,
        &nonce[..nonce.len().min(12)]
    );
    let mut opts = connection_options(cfg, id)?;
    opts.set_keep_alive(Duration::from_secs(5));
    let (client, mut eventloop) = AsyncClient::new(opts, 8);
    let ack_topic = topics.ack();
    let command_topic = topics.command(board);
    let wait = async {
        let mut published = false;
        loop {
            match eventloop.poll().await {
                Ok(MqttEvent::Incoming(Incoming::ConnAck(_))) => {
                    // Listen first, so the answer cannot be missed.
                    client
                        .try_subscribe(ack_topic.clone(), QoS::AtLeastOnce)
                        .map_err(|e| CommandError::Broker(e.to_string()))?;
                }
                Ok(MqttEvent::Incoming(Incoming::SubAck(_))) if !published => {
                    client
                        .try_publish(
                            command_topic.clone(),
                            QoS::AtLeastOnce,
                            false,
                            payload.clone(),
                        )
                        .map_err(|e| CommandError::Broker(e.to_string()))?;
                    published = true;
                }
                Ok(MqttEvent::Incoming(Incoming::Publish(p))) if p.topic == ack_topic => {
                    if let Ok(ack) = serde_json::from_slice::<Ack>(&p.payload)
                        && ack.nonce.as_deref() == Some(nonce)
                    {
                        return Ok(ack);
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    return Err(CommandError::Broker(format!(
                        "{}:{}: {e}",
                        cfg.host, cfg.port
                    )));
                }
            }
        }
    };
    let r = tokio::time::timeout(timeout, wait)
        .await
        .map_err(|_| CommandError::NoAck {
            board: board.to_string(),
            seconds: timeout.as_secs_f64(),
        })?;
    let _ = client.try_disconnect();
    r
}

/// Why a command could not be sent.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// The MQTT settings cannot be used.
    #[error("mqtt: {0}")]
    Settings(MqttError),
    /// The broker could not be reached.
    #[error("broker: {0}")]
    Broker(String),
    /// No daemon answered.
    #[error(
        "no acknowledgement for board {board} within {seconds} s: is the daemon running, with this configuration's bridge name and prefix?"
    )]
    NoAck {
        /// The board.
        board: String,
        /// The timeout.
        seconds: f64,
    },
}

impl From<MqttError> for CommandError {
    fn from(e: MqttError) -> Self {
        CommandError::Settings(e)
    }
}

/// Options shared by every connection: address, keep-alive, packet size,
/// credentials and TLS (its files read now).
pub fn connection_options(cfg: &config::Mqtt, client_id: String) -> Result<MqttOptions, MqttError> {
    let mut o = plain_options(cfg, client_id);
    if let Some(transport) = tls_transport(cfg)? {
        o.set_transport(transport);
    }
    Ok(o)
}

/// [`connection_options`] for a connection made again (a failover to
/// another broker of the list): the TLS files are read again, so a renewed
/// certificate is taken up. When one cannot be read any more (removed,
/// permissions changed), the TLS settings of `previous` (read before) are
/// kept and the link goes on retrying: an unreadable file never ends the
/// daemon. `unreadable` keeps the log to one warning per spell of
/// unreadable files, and one line when they can be read again.
pub fn reconnect_options(
    cfg: &config::Mqtt,
    client_id: String,
    previous: &MqttOptions,
    unreadable: &mut bool,
    who: &str,
) -> MqttOptions {
    let mut o = plain_options(cfg, client_id);
    match tls_transport(cfg) {
        Ok(transport) => {
            if std::mem::take(unreadable) {
                tracing::info!(who, "the TLS files can be read again");
            }
            if let Some(transport) = transport {
                o.set_transport(transport);
            }
        }
        Err(e) => {
            if !std::mem::replace(unreadable, true) {
                tracing::warn!(who, error = %e, "a TLS file cannot be read any more: keeping the TLS settings read before and retrying");
            }
            o.set_transport(previous.transport());
        }
    }
    o
}

/// The options of a connection without TLS.
fn plain_options(cfg: &config::Mqtt, client_id: String) -> MqttOptions {
    let mut o = MqttOptions::new(client_id, cfg.host.clone(), cfg.port);
    o.set_keep_alive(cfg.keep_alive.max(Duration::from_secs(1)));
    o.set_clean_session(true);
    o.set_inflight(INFLIGHT);
    o.set_max_packet_size(MAX_INCOMING, MAX_PACKET);
    if let Some((user, password)) = &cfg.credentials {
        o.set_credentials(user.clone(), password.clone());
    }
    o
}

/// The TLS transport of `cfg` (its files read now), if it uses TLS.
fn tls_transport(cfg: &config::Mqtt) -> Result<Option<Transport>, MqttError> {
    let Some(tls) = &cfg.tls else {
        return Ok(None);
    };
    let read = |path: &std::path::Path| {
        std::fs::read(path).map_err(|error| MqttError::TlsFile {
            path: path.to_owned(),
            error,
        })
    };
    let client_auth = match &tls.client_auth {
        Some((cert, key)) => Some((read(cert)?, read(key)?)),
        None => None,
    };
    let transport = match &tls.ca_file {
        Some(ca) => Transport::tls(read(ca)?, client_auth, None),
        None if client_auth.is_none() => {
            // rumqttc panics when the platform roots cannot be loaded.
            let config = std::panic::catch_unwind(TlsConfiguration::default)
                .map_err(|_| MqttError::SystemRoots)?;
            Transport::tls_with_config(config)
        }
        None => return Err(MqttError::SystemRoots),
    };
    Ok(Some(transport))
}
