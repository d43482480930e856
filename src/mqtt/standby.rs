//! Standby connections: with a cluster (`url` as a list), one more
//! connection to every node, which only ever publishes at QoS 0. While the
//! bridge's own connection is down, for [`UNSETTLED`] after a connection to
//! any node was lost, and whenever the broker leaves an event
//! unacknowledged for `mqtt.standby_after_ms`, a copy of it (and of its
//! board's state and PGN, not retained) goes out through a standby that is
//! up.
//!
//! Design: why a second path. A clustered broker may stop taking QoS 1
//! publishes for seconds while the node that dies is re-elected away:
//! NATS stores each QoS 1 message through its JetStream leader, answers a
//! failed store by closing the connection, and takes no new MQTT
//! connection anywhere until a new leader is elected (4-9 s, fixed in the
//! server). A subscriber whose JetStream consumer the dead node led gets
//! no QoS 1 message until then either, even one that was stored. A QoS 0
//! publish on a connection already open needs none of that: the cluster
//! hands it to every subscriber at once. Unless it is retained: NATS
//! stores a retained message (waiting up to its JetStream timeout) before
//! delivering it, so the copies are never retained. The copies are extra;
//! the QoS 1 queue still delivers every event and still decides what is
//! lost (nothing), so a subscriber may see an event twice, which
//! at-least-once delivery allows (docs/mqtt.md: drop repeats by `seq`).
//!
//! [`UNSETTLED`]: super::outbox::UNSETTLED

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use bytes::Bytes;
use rumqttc::{AsyncClient, ConnectReturnCode, Event as MqttEvent, Incoming, QoS};
use tokio::task::JoinSet;
use tokio::time::Instant;
use tracing::{debug, info, warn};

use super::config;
use super::outbox::Publisher;
use super::{MqttError, Outbox, connection_options};

/// How often the outbox is looked at for events to copy.
const TICK: Duration = Duration::from_millis(100);
/// The longest keep-alive of a standby: a dead node is noticed within
/// about one and a half of these.
const KEEP_ALIVE: Duration = Duration::from_secs(5);
/// Wait before a standby tries its node again.
const RETRY: Duration = Duration::from_secs(1);

/// One standby connection: its client and whether its node took it.
struct Standby {
    client: AsyncClient,
    up: AtomicBool,
}

/// A standby's client as a [`Publisher`]: QoS 0, never queued for long.
struct Copies(AsyncClient);

impl Publisher for Copies {
    fn publish(&mut self, topic: String, retain: bool, payload: Bytes) -> bool {
        self.0
            .try_publish(topic, QoS::AtMostOnce, retain, payload.to_vec())
            .is_ok()
    }
}

/// Starts the standby connections and the copying, when `cfg` lists
/// several brokers and `standby_after` is not zero; they run until the
/// returned set is dropped.
pub(super) fn spawn(
    cfg: &config::Mqtt,
    outbox: &Arc<Outbox>,
) -> Result<Option<JoinSet<()>>, MqttError> {
    if cfg.failover.is_empty() || cfg.standby_after.is_zero() {
        return Ok(None);
    }
    let mut tasks = JoinSet::new();
    let mut standbys = Vec::new();
    for (n, broker) in cfg.brokers().into_iter().enumerate() {
        let id = format!("{}-{}-s{n}", cfg.client_id, outbox.instance());
        let mut opts = connection_options(&cfg.at(&broker), id)?;
        opts.set_keep_alive(cfg.keep_alive.min(KEEP_ALIVE));
        let (client, eventloop) = AsyncClient::new(opts, 64);
        let standby = Arc::new(Standby {
            client,
            up: AtomicBool::new(false),
        });
        tasks.spawn(keep(n, broker, eventloop, standby.clone(), outbox.clone()));
        standbys.push(standby);
    }
    tasks.spawn(copy(outbox.clone(), standbys, cfg.standby_after));
    Ok(Some(tasks))
}

/// Keeps standby `n` connected to its node, retrying every [`RETRY`]; a
/// lost connection tells the outbox that the cluster may be unsettled.
async fn keep(
    n: usize,
    (host, port): (String, u16),
    mut eventloop: rumqttc::EventLoop,
    standby: Arc<Standby>,
    outbox: Arc<Outbox>,
) {
    loop {
        match eventloop.poll().await {
            Ok(MqttEvent::Incoming(Incoming::ConnAck(ack))) => {
                let up = ack.code == ConnectReturnCode::Success;
                standby.up.store(up, Ordering::Relaxed);
                debug!(standby = n, %host, port, up, "standby connection answered");
            }
            Ok(_) => {}
            Err(e) => {
                if standby.up.swap(false, Ordering::Relaxed) {
                    info!(standby = n, %host, port, error = %e, "standby connection lost");
                    outbox.lock().node_lost(Instant::now());
                }
                // Copies that did not go out are stale now: the QoS 1 path
                // delivers those events anyway.
                eventloop.clean();
                eventloop.pending.clear();
                tokio::time::sleep(RETRY).await;
            }
        }
    }
}

/// Every [`TICK`], copies what waits through the standby to use.
async fn copy(outbox: Arc<Outbox>, standbys: Vec<Arc<Standby>>, after: Duration) {
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut warned = false;
    loop {
        tick.tick().await;
        let mut inner = outbox.lock();
        if !inner.express_waiting() {
            continue;
        }
        let up: Vec<bool> = standbys
            .iter()
            .map(|s| s.up.load(Ordering::Relaxed))
            .collect();
        let Some(n) = choose(&up, inner.link.connected, inner.link.broker) else {
            if !warned && !inner.link.connected {
                warn!("the broker is away and no standby connection is up");
                warned = true;
            }
            continue;
        };
        warned = false;
        let mut out = Copies(standbys[n].client.clone());
        inner.pump_express(outbox.topics(), Instant::now(), after, &mut out);
    }
}

/// The standby to copy through, of those `up`. While the bridge's own
/// connection is up but slow to acknowledge, its node may be the one in
/// trouble (a node that vanished without closing its connections): another
/// node first, its own last. While it is down: the node being tried now
/// (`broker`) first, the node just lost last.
fn choose(up: &[bool], connected: bool, broker: usize) -> Option<usize> {
    let n = up.len();
    let first = if connected { broker + 1 } else { broker };
    (0..n).map(|i| (first + i) % n).find(|&i| up[i])
}

#[cfg(test)]
mod tests {
    use super::choose;

    #[test]
    fn a_standby_on_the_node_in_trouble_is_used_last() {
        // Connected to node 1, which is slow to acknowledge: 2, 0, then 1.
        assert_eq!(choose(&[true, true, true], true, 1), Some(2));
        assert_eq!(choose(&[true, true, false], true, 1), Some(0));
        assert_eq!(choose(&[false, true, false], true, 1), Some(1));
        // Node 0 lost, node 1 being tried: 1, 2, then 0.
        assert_eq!(choose(&[true, true, true], false, 1), Some(1));
        assert_eq!(choose(&[true, false, true], false, 1), Some(2));
        assert_eq!(choose(&[true, false, false], false, 1), Some(0));
        assert_eq!(choose(&[false, false, false], false, 1), None);
    }
}
