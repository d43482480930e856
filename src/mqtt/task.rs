//! The MQTT task: one broker connection kept up (reconnection with capped
//! exponential backoff, failover between the brokers of a cluster), fed
//! from the outbox, and closed cleanly at shutdown.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use rumqttc::{
    AsyncClient, ConnAck, ConnectReturnCode, ConnectionError, Event as MqttEvent, EventLoop,
    Incoming, MqttOptions, MqttState, NetworkOptions, Outgoing,
};
use tracing::{debug, error, info, warn};

use super::outbox::{Publisher, Tag};
use super::{INFLIGHT, MAX_PACKET, MqttError, Outbox, WINDOW, options};
use crate::backoff::Backoff;
use crate::config;

/// How long a graceful shutdown waits for the broker to take what is left.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);
/// A connection must stay up this long before the reconnection backoff
/// starts again from its shortest delay.
const STABLE: Duration = Duration::from_secs(10);
/// While the broker stays away, one warning line per this period.
const OUTAGE_LOG_EVERY: Duration = Duration::from_secs(30);

/// The MQTT task: connects, keeps reconnecting with capped exponential
/// backoff, and feeds the outbox's publishes to the broker until
/// `shutdown` resolves. Then it waits (a few seconds at most) until the
/// broker has acknowledged everything queued, publishes `offline` and
/// disconnects cleanly.
pub async fn run(
    cfg: config::Mqtt,
    outbox: Arc<Outbox>,
    shutdown: impl Future<Output = ()>,
) -> Result<(), MqttError> {
    let mut conn = Connection::open(cfg, outbox)?;
    tokio::pin!(shutdown);
    loop {
        let wake = tokio::select! {
            biased;
            _ = &mut shutdown, if conn.closing.is_none() => Wake::Shutdown,
            _ = sleep_until_opt(conn.closing) => Wake::Grace,
            r = conn.eventloop.poll() => Wake::Polled(r),
        };
        match wake {
            Wake::Shutdown => {
                conn.closing = Some(tokio::time::Instant::now() + SHUTDOWN_GRACE);
                if !conn.outbox.lock().link.connected {
                    break;
                }
            }
            Wake::Grace => {
                warn!("the broker did not take everything before shutdown");
                break;
            }
            Wake::Polled(Ok(event)) => {
                if conn.on_event(event) {
                    break;
                }
            }
            Wake::Polled(Err(e)) => {
                conn.on_error(e)?;
                if conn.closing.is_some() {
                    break;
                }
                let delay = conn.backoff.next_delay();
                tokio::select! {
                    _ = tokio::time::sleep(delay) => {}
                    _ = &mut shutdown => break,
                }
            }
        }
        if conn.closing.is_some() {
            conn.close_step();
        }
    }
    Ok(())
}

/// What woke the MQTT task.
enum Wake {
    /// The daemon stops: start closing.
    Shutdown,
    /// The shutdown grace ran out.
    Grace,
    /// rumqttc's event loop said something.
    Polled(Result<MqttEvent, ConnectionError>),
}

/// The broker connection: rumqttc's client and event loop, the brokers to
/// try in turn, and how the link has fared.
struct Connection {
    cfg: config::Mqtt,
    outbox: Arc<Outbox>,
    /// The brokers to try, in turn: the first, then the other nodes of a
    /// cluster (`url` as a list).
    brokers: Vec<(String, u16)>,
    /// The one tried now.
    current: usize,
    client: AsyncClient,
    eventloop: EventLoop,
    backoff: Backoff,
    /// When the current connection came up; while the broker is away, the
    /// failed attempts since the outage began and when it was last logged.
    health: Health,
    /// Shutting down: until when the broker may take what is left.
    closing: Option<tokio::time::Instant>,
    disconnect_sent: bool,
}

impl Connection {
    /// The client for the first broker, handed to the outbox.
    fn open(cfg: config::Mqtt, outbox: Arc<Outbox>) -> Result<Connection, MqttError> {
        let brokers: Vec<(String, u16)> = std::iter::once((cfg.host.clone(), cfg.port))
            .chain(cfg.failover.iter().cloned())
            .collect();
        let first = options_for(&cfg, &outbox, &brokers[0])?;
        let (client, mut eventloop) = AsyncClient::new(first, WINDOW + 8);
        // Design: no Nagle. A move is a few small packets; waiting for the
        // broker's delayed ACK before sending the next one adds up to 40 ms.
        let mut network = NetworkOptions::new();
        network.set_tcp_nodelay(true);
        eventloop.set_network_options(network);
        outbox.lock().client = Some(client.clone());
        info!(host = %cfg.host, port = cfg.port, client_id = %format!("{}-{}", cfg.client_id, outbox.instance()), "connecting to the broker");
        Ok(Connection {
            backoff: Backoff::new(cfg.reconnect),
            cfg,
            outbox,
            brokers,
            current: 0,
            client,
            eventloop,
            health: Health::default(),
            closing: None,
            disconnect_sent: false,
        })
    }

    /// Handles an event of rumqttc's loop; `true` when the task is done
    /// (the clean disconnect went out).
    fn on_event(&mut self, event: MqttEvent) -> bool {
        match event {
            MqttEvent::Incoming(Incoming::ConnAck(ack)) => self.on_connack(&ack),
            MqttEvent::Outgoing(Outgoing::Publish(pkid)) => {
                self.outbox.lock().on_outgoing_publish(pkid);
            }
            MqttEvent::Incoming(Incoming::PubAck(ack)) => {
                let mut inner = self.outbox.lock();
                inner.on_puback(ack.pkid);
                self.outbox.pump_locked(&mut inner);
            }
            MqttEvent::Incoming(Incoming::Publish(p)) => {
                self.outbox.handle_incoming(&p.topic, &p.payload, p.retain);
            }
            MqttEvent::Outgoing(Outgoing::Disconnect) => {
                debug!("disconnect sent");
                return true;
            }
            _ => {}
        }
        false
    }

    /// The broker took the connection: the outbox sends again what was not
    /// acknowledged, then the command intake subscribes and announces this
    /// instance.
    fn on_connack(&mut self, ack: &ConnAck) {
        if ack.code != ConnectReturnCode::Success {
            warn!(code = ?ack.code, "the broker refused the connection");
            return;
        }
        let failures = self.health.connected(tokio::time::Instant::now());
        info!(failed_attempts = failures, "connected to the broker");
        let clear = std::mem::take(&mut self.outbox.control_lock().clear_commands);
        let mut inner = self.outbox.lock();
        inner.on_connected();
        if clear {
            // Before subscribing: the broker sent a message too large to
            // read, maybe a retained command.
            warn!("clearing the retained command topics of this bridge's boards");
            for slot in 0..inner.slots.len() {
                let topic = self.outbox.topics().command(&inner.slots[slot].id);
                inner.push_notice(topic, true, Bytes::new());
            }
        }
        self.outbox.pump_locked(&mut inner);
        drop(inner);
        self.outbox.subscribe(&self.client);
    }

    /// The connection (or an attempt) failed: the next broker of the list
    /// is tried, the failure logged as the outage warrants, and rumqttc's
    /// copies of unacknowledged publishes dropped (the outbox sends them
    /// again after the next `CONNACK`).
    fn on_error(&mut self, e: ConnectionError) -> Result<(), MqttError> {
        let mut oversized = None;
        // Design: fail over. The next attempt goes to the next broker of
        // the list (the queue and the retained states are sent again on
        // whichever node takes the connection).
        if self.brokers.len() > 1 {
            self.current = (self.current + 1) % self.brokers.len();
            self.eventloop.mqtt_options =
                options_for(&self.cfg, &self.outbox, &self.brokers[self.current])?;
            let (host, port) = &self.brokers[self.current];
            info!(%host, port, "trying the next broker");
        }
        if let ConnectionError::MqttState(rumqttc::StateError::Deserialization(
            rumqttc::mqttbytes::Error::PayloadSizeLimitExceeded(bytes),
        )) = &e
        {
            error!(
                bytes,
                max = MAX_PACKET,
                "the broker sent a message too large to read (a command?); reconnecting"
            );
            self.outbox.control_lock().clear_commands = true;
            oversized = Some(*bytes);
        }
        {
            let mut inner = self.outbox.lock();
            let refused = matches!(e, ConnectionError::ConnectionRefused(_));
            let (reset, report) =
                self.health
                    .failed(tokio::time::Instant::now(), inner.link.connected, refused);
            if reset {
                self.backoff.reset();
            }
            report.log(&e, self.health.failures);
            inner.on_disconnected();
            // Drop rumqttc's copies: the outbox sends again what was not
            // acknowledged, after the next CONNACK.
            self.eventloop.clean();
            self.eventloop.pending.clear();
            self.eventloop.state = MqttState::new(INFLIGHT, false);
        }
        if let Some(bytes) = oversized {
            // Queued now, published after the reconnection.
            self.outbox.bridge_warning(
                "oversized",
                None,
                &format!("a message of {bytes} bytes on this bridge's subscriptions was refused"),
            );
        }
        Ok(())
    }

    /// While closing: once the broker has acknowledged everything queued,
    /// `offline` goes out; once that is acknowledged, the disconnect.
    fn close_step(&mut self) {
        let mut inner = self.outbox.lock();
        if inner.link.connected && !inner.link.offline_sent && inner.drained() {
            let mut c = self.client.clone();
            if Publisher::publish(
                &mut c,
                self.outbox.topics().bridge_status(),
                true,
                Bytes::from_static(b"offline"),
            ) {
                inner.link.unnumbered.push_back(Tag::Status);
                inner.link.offline_sent = true;
            }
        }
        if inner.link.offline_acked && !self.disconnect_sent {
            self.disconnect_sent = self.client.try_disconnect().is_ok();
        }
    }
}

/// The options of one broker of the list, with this process's client id.
fn options_for(
    cfg: &config::Mqtt,
    outbox: &Outbox,
    (host, port): &(String, u16),
) -> Result<MqttOptions, MqttError> {
    let node = config::Mqtt {
        host: host.clone(),
        port: *port,
        ..cfg.clone()
    };
    let mut opts = options(&node, outbox.topics())?;
    // Design: a random part, so nobody can knock the bridge off the
    // broker by connecting with its (otherwise predictable) client id.
    opts.set_client_id(format!("{}-{}", cfg.client_id, outbox.instance()));
    Ok(opts)
}

/// The broker link's history: when the backoff may start again from the
/// bottom, and which failures to log at warn level.
#[derive(Debug, Default)]
pub(super) struct Health {
    /// When the current connection came up.
    connected_at: Option<tokio::time::Instant>,
    /// Failed attempts since the last connection.
    pub(super) failures: u64,
    /// When an outage was last logged at warn level.
    last_log: Option<tokio::time::Instant>,
}

/// How to log a connection failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Report {
    /// A working connection was lost.
    Lost,
    /// The broker refused us (credentials): every time.
    Refused,
    /// Still away: one line per [`OUTAGE_LOG_EVERY`], with the count.
    Unreachable,
    /// Still away, logged recently: debug only.
    Quiet,
}

impl Report {
    /// Logs a failure `e` after `failures` failed attempts.
    fn log(self, e: &ConnectionError, failures: u64) {
        match self {
            Report::Lost => warn!(error = %e, "lost the broker"),
            Report::Refused => {
                warn!(error = %e, failed_attempts = failures, "the broker refused the connection")
            }
            Report::Unreachable => {
                warn!(error = %e, failed_attempts = failures, "cannot reach the broker; retrying")
            }
            Report::Quiet => {
                debug!(error = %e, failed_attempts = failures, "broker still unreachable")
            }
        }
    }
}

impl Health {
    /// A connection came up at `now`; returns the failed attempts before.
    pub(super) fn connected(&mut self, now: tokio::time::Instant) -> u64 {
        self.connected_at = Some(now);
        self.last_log = None;
        std::mem::take(&mut self.failures)
    }

    /// A connection (or attempt) failed at `now`: whether to reset the
    /// backoff (only after a connection that stayed up [`STABLE`], so a
    /// broker that accepts and drops at once is not hammered), and how to
    /// log it (an outage stays visible at warn level, rate limited).
    pub(super) fn failed(
        &mut self,
        now: tokio::time::Instant,
        was_connected: bool,
        refused: bool,
    ) -> (bool, Report) {
        let reset = self
            .connected_at
            .take()
            .is_some_and(|at| now.saturating_duration_since(at) >= STABLE);
        self.failures += 1;
        let report = if was_connected {
            Report::Lost
        } else if refused {
            Report::Refused
        } else if self
            .last_log
            .is_none_or(|at| now.saturating_duration_since(at) >= OUTAGE_LOG_EVERY)
        {
            Report::Unreachable
        } else {
            return (reset, Report::Quiet);
        };
        self.last_log = Some(now);
        (reset, report)
    }
}

async fn sleep_until_opt(at: Option<tokio::time::Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
