//! The MQTT task: one broker connection kept up (reconnection with capped
//! exponential backoff, failover between the brokers of a cluster), fed
//! from the outbox, a heartbeat while connected, and closed cleanly at
//! shutdown.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use rumqttc::{
    AsyncClient, ConnAck, ConnectReturnCode, ConnectionError, Event as MqttEvent, EventLoop,
    Incoming, MqttOptions, MqttState, NetworkOptions, Outgoing, QoS,
};
use tokio::time::Instant;
use tracing::{debug, error, info, warn};

use super::config;
use super::link::Health;
use super::outbox::{Publisher, Tag};
use super::{INFLIGHT, MAX_INCOMING, MqttError, Outbox, WINDOW, options};
use crate::backoff::Backoff;

/// Seconds a broker has to answer a connection (TCP, TLS and `CONNACK`).
const CONNECT_TIMEOUT_S: u64 = 3;
/// How long a graceful shutdown waits for the broker to take what is left.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);
/// After a second message too large to read within this time (clearing
/// the retained topics did not help), the bridge stays connected without
/// its subscriptions for this long.
const QUARANTINE: Duration = Duration::from_secs(300);

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
    // Dropped (and so stopped) when this task ends.
    let _standby = super::standby::spawn(&cfg, &outbox)?;
    let mut conn = Connection::open(cfg, outbox)?;
    tokio::pin!(shutdown);
    loop {
        let wake = tokio::select! {
            biased;
            _ = &mut shutdown, if conn.closing.is_none() => Wake::Shutdown,
            _ = sleep_until_opt(conn.closing) => Wake::Grace,
            _ = sleep_until_opt(conn.next_timer()) => Wake::Timer,
            r = conn.eventloop.poll() => Wake::Polled(r),
        };
        match wake {
            Wake::Shutdown => {
                conn.closing = Some(Instant::now() + SHUTDOWN_GRACE);
                if !conn.outbox.lock().link.connected {
                    break;
                }
            }
            Wake::Grace => {
                warn!("the broker did not take everything before shutdown");
                break;
            }
            Wake::Timer => conn.on_timer(Instant::now()),
            Wake::Polled(Ok(event)) => {
                if conn.on_event(event) {
                    break;
                }
            }
            Wake::Polled(Err(e)) => {
                conn.on_error(e);
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
    /// A heartbeat is due, or the quarantine of the subscriptions ended.
    Timer,
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
    /// How many times the connection moved to another broker of the list.
    switches: u64,
    client: AsyncClient,
    eventloop: EventLoop,
    backoff: Backoff,
    /// When the current connection came up; while the broker is away, the
    /// failed attempts since the outage began and when it was last logged.
    health: Health,
    /// This process's client id (the configured one and the instance id).
    client_id: String,
    /// When the next heartbeat goes out (while connected, if any).
    heartbeat_at: Option<Instant>,
    /// Messages too large to read, and the subscriptions held back.
    oversize: Oversize,
    /// Shutting down: until when the broker may take what is left.
    closing: Option<Instant>,
    disconnect_sent: bool,
    /// A TLS file could not be read at the last failover (logged once).
    tls_unreadable: bool,
}

impl Connection {
    /// The client for the first broker, handed to the outbox.
    fn open(cfg: config::Mqtt, outbox: Arc<Outbox>) -> Result<Connection, MqttError> {
        let brokers = cfg.brokers();
        let first = options_for(&cfg, &outbox, &brokers[0], 0)?;
        let (client, mut eventloop) = AsyncClient::new(first, WINDOW + 8);
        // Design: no Nagle. A move is a few small packets; waiting for the
        // broker's delayed ACK before sending the next one adds up to 40 ms.
        let mut network = NetworkOptions::new();
        network.set_tcp_nodelay(true);
        // Design: give up on a node that does not answer CONNECT within
        // CONNECT_TIMEOUT and try the next one. After a cluster node dies
        // a surviving NATS node may hold a CONNECT for 4 s (its JetStream
        // request timeout) and then refuse it, while another node of the
        // list already takes connections (measured: see docs/deployment.md).
        network.set_connection_timeout(CONNECT_TIMEOUT_S);
        eventloop.set_network_options(network);
        outbox.lock().client = Some(client.clone());
        let client_id = format!("{}-{}", cfg.client_id, outbox.instance());
        info!(host = %cfg.host, port = cfg.port, %client_id, "connecting to the broker");
        Ok(Connection {
            backoff: Backoff::new(cfg.reconnect),
            client_id,
            heartbeat_at: None,
            oversize: Oversize::default(),
            cfg,
            outbox,
            brokers,
            current: 0,
            switches: 0,
            client,
            eventloop,
            health: Health::default(),
            closing: None,
            disconnect_sent: false,
            tls_unreadable: false,
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
    /// instance (unless a message too large to read keeps coming: then
    /// the subscriptions wait, see [`Oversize`]); the heartbeat starts.
    fn on_connack(&mut self, ack: &ConnAck) {
        if ack.code != ConnectReturnCode::Success {
            warn!(code = ?ack.code, "the broker refused the connection");
            return;
        }
        let now = Instant::now();
        let failures = self.health.connected(now);
        info!(failed_attempts = failures, "connected to the broker");
        let clear = std::mem::take(&mut self.outbox.control_lock().clear_retained);
        let mut inner = self.outbox.lock();
        inner.on_connected();
        if clear {
            // Before subscribing: the broker sent a message too large to
            // read, maybe a retained one on a topic the bridge reads.
            warn!(
                "clearing the retained messages of the topics this bridge reads (its boards' commands, its instance topic)"
            );
            let topics = self.outbox.topics();
            for slot in 0..inner.slots.len() {
                let topic = topics.command(&inner.slots[slot].id);
                inner.push_notice(topic, true, Bytes::new());
            }
            inner.push_notice(topics.instance(), true, Bytes::new());
        }
        self.outbox.pump_locked(&mut inner);
        drop(inner);
        if self.oversize.subscribing(now) {
            self.outbox.subscribe(&self.client);
        } else {
            warn!(
                seconds = QUARANTINE.as_secs(),
                "messages too large to read keep coming: not reading commands for a while, publishing only"
            );
            self.outbox.announce();
        }
        self.heartbeat_at = (!self.cfg.heartbeat.is_zero()).then_some(now);
    }

    /// The earliest of the timers: the next heartbeat, the end of the
    /// subscriptions' quarantine (both only while connected).
    fn next_timer(&self) -> Option<Instant> {
        if !self.health.is_connected() || self.closing.is_some() {
            return None;
        }
        let resubscribe = self
            .oversize
            .held
            .then_some(self.oversize.quiet_until)
            .flatten();
        [self.heartbeat_at, resubscribe].into_iter().flatten().min()
    }

    /// A timer fired at `now`: the heartbeat goes out (QoS 0, retained,
    /// never queued: a missed one says what it should), or the
    /// subscriptions held back are made.
    fn on_timer(&mut self, now: Instant) {
        if self.oversize.held && self.oversize.subscribing(now) {
            self.oversize.held = false;
            info!("subscribing again after the quarantine");
            self.outbox.subscribe(&self.client);
        }
        if self.heartbeat_at.is_some_and(|at| at <= now) {
            let payload = serde_json::json!({
                "instance": self.outbox.instance(),
                "interval_ms": self.cfg.heartbeat.as_millis() as u64,
                "t": crate::wall::unix_ms(),
            });
            let topic = self.outbox.topics().heartbeat();
            if let Err(e) =
                self.client
                    .try_publish(topic, QoS::AtMostOnce, true, payload.to_string())
            {
                debug!(error = %e, "heartbeat not sent");
            }
            self.heartbeat_at = Some(now + self.cfg.heartbeat);
        }
    }

    /// The connection (or an attempt) failed: the next broker of the list
    /// is tried, the failure logged as the outage warrants, and rumqttc's
    /// copies of unacknowledged publishes dropped (the outbox sends them
    /// again after the next `CONNACK`). Never fatal: a TLS file that can
    /// no longer be read keeps the TLS settings read before
    /// ([`super::reconnect_options`]).
    fn on_error(&mut self, e: ConnectionError) {
        let mut oversized = None;
        // Design: fail over. The next attempt goes to the next broker of
        // the list (the queue and the retained states are sent again on
        // whichever node takes the connection).
        if self.brokers.len() > 1 {
            self.current = (self.current + 1) % self.brokers.len();
            self.switches += 1;
            let mut opts = super::reconnect_options(
                &self.cfg.at(&self.brokers[self.current]),
                client_id_for(&self.cfg, &self.outbox, self.switches),
                &self.eventloop.mqtt_options,
                &mut self.tls_unreadable,
                "bridge",
            );
            super::set_last_will(&mut opts, self.outbox.topics());
            self.eventloop.mqtt_options = opts;
            let (host, port) = &self.brokers[self.current];
            info!(%host, port, "trying the next broker");
        }
        if let ConnectionError::MqttState(rumqttc::StateError::Deserialization(
            rumqttc::mqttbytes::Error::PayloadSizeLimitExceeded(bytes),
        )) = &e
        {
            error!(
                bytes,
                max = MAX_INCOMING,
                "the broker sent a message too large to read; reconnecting and clearing it"
            );
            self.outbox.control_lock().clear_retained = true;
            self.oversize.seen(Instant::now());
            oversized = Some(*bytes);
        }
        self.heartbeat_at = None;
        {
            let mut inner = self.outbox.lock();
            let refused = matches!(e, ConnectionError::ConnectionRefused(_));
            let (reset, report) = self.health.failed(Instant::now(), refused);
            if reset {
                self.backoff.reset();
            }
            report.log("bridge", &self.client_id, &e, self.health.failures());
            inner.on_disconnected();
            inner.link.broker = self.current;
            inner.node_lost(Instant::now());
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

/// The options of one broker of the list, with this process's client id,
/// followed after the `switches`-th move to another broker by `-switches`.
fn options_for(
    cfg: &config::Mqtt,
    outbox: &Outbox,
    broker: &(String, u16),
    switches: u64,
) -> Result<MqttOptions, MqttError> {
    let mut opts = options(&cfg.at(broker), outbox.topics())?;
    opts.set_client_id(client_id_for(cfg, outbox, switches));
    Ok(opts)
}

/// This process's client id, followed after the `switches`-th move to
/// another broker by `-switches`.
fn client_id_for(cfg: &config::Mqtt, outbox: &Outbox, switches: u64) -> String {
    // Design: a random part, so nobody can knock the bridge off the
    // broker by connecting with its (otherwise predictable) client id.
    let mut id = format!("{}-{}", cfg.client_id, outbox.instance());
    // Design: a new client id on every move to another broker. On a NATS
    // cluster a surviving node that is handed the id of a session held by
    // the dead node first tries to take that session over, and waits for
    // JetStream to answer for it: the bridge was back 3.3-4.9 s after a
    // node's death with its id kept, 1.3 s with a new one (measured with
    // `cargo bench --bench failover`, docs/deployment.md). Every
    // connection has a clean session, so nothing is lost; a last will of
    // the old connection delivered late is answered by publishing `online`
    // again (`Outbox::handle_own_status`).
    if switches > 0 {
        id.push_str(&format!("-{switches}"));
    }
    id
}

/// Messages too large to read (over [`MAX_INCOMING`]): rumqttc closes the
/// connection on each, and a retained one comes back at every
/// subscription. The first is cleared from the broker at the next
/// connection; when another follows within [`QUARANTINE`] (it could not be
/// cleared, or keeps being sent), the bridge connects without its
/// subscriptions for that long: it keeps publishing the boards, and reads
/// no commands meanwhile.
#[derive(Debug, Default)]
struct Oversize {
    /// The last one.
    last: Option<Instant>,
    /// No subscriptions before this.
    quiet_until: Option<Instant>,
    /// The subscriptions of the current connection wait for the end of
    /// the quarantine.
    held: bool,
}

impl Oversize {
    /// One arrived at `now`.
    fn seen(&mut self, now: Instant) {
        if self
            .last
            .is_some_and(|at| now.saturating_duration_since(at) < QUARANTINE)
        {
            self.quiet_until = Some(now + QUARANTINE);
        }
        self.last = Some(now);
    }

    /// Whether to subscribe at `now`; if not, the subscriptions are held
    /// until the quarantine ends.
    fn subscribing(&mut self, now: Instant) -> bool {
        let open = self.quiet_until.is_none_or(|until| now >= until);
        self.held = !open;
        open
    }
}

async fn sleep_until_opt(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_client_id_changes_with_every_move_to_another_broker() {
        let text =
            "[bridge]\nname = \"hall\"\n\n[mqtt]\nurl = [\"mqtt://n1:1883\", \"mqtt://n2:1883\"]\n";
        let cfg = crate::config::Config::parse(text, std::path::Path::new("t.toml"))
            .unwrap()
            .mqtt;
        let outbox = Outbox::new(
            super::super::Topics::new("bc", "hall"),
            &["1".to_string()],
            8,
        );
        let id = |switches| {
            options_for(&cfg, &outbox, &("n2".to_string(), 1883), switches)
                .unwrap()
                .client_id()
        };
        let base = format!("{}-{}", cfg.client_id, outbox.instance());
        assert_eq!(id(0), base);
        assert_eq!(id(1), format!("{base}-1"));
        assert_ne!(id(1), id(2));
        let opts = options_for(&cfg, &outbox, &("n2".to_string(), 1883), 1).unwrap();
        assert_eq!(opts.broker_address(), ("n2".to_string(), 1883));
    }
}
