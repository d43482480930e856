//! Command intake: what the bridge hears on the broker. Operator commands
//! are checked (size, retained, signature, time, nonce) and handed to
//! their board's task, refusals acknowledged and warned about (rate
//! limited); the instance topic tells a second process of the same bridge
//! name; the bridge's own status topic, a late last will.

use bytes::Bytes;
use rumqttc::{AsyncClient, QoS, SubscribeFilter};
use std::sync::{Arc, Mutex, MutexGuard};
use tracing::{debug, error, info, warn};

use super::{
    LATE_WILLS_PER_PERIOD, Outbox, REFUSALS_PER_SECOND, WARNING_PERIOD_MS, WARNINGS_PER_PERIOD,
};
use crate::control::{Ack, RateLimit, Request, Router, Verifier};

/// The largest message read on the instance topic (an announce is about
/// 60 bytes).
const MAX_INSTANCE_MESSAGE: usize = 1024;
/// Other instances of this bridge name remembered (and answered) at most.
const MAX_OTHERS: usize = 16;

/// The command checks and the bridge's warnings.
#[derive(Debug)]
pub(super) struct Control {
    pub(super) verifier: Verifier,
    pub(super) warnings: RateLimit,
    /// Acknowledgements of refused commands (a flood of junk must not
    /// crowd the boards' events out of the connection).
    pub(super) refusals: RateLimit,
    /// Other instances of this bridge name seen on the broker.
    pub(super) others: std::collections::HashSet<String>,
    /// Warnings about `offline` on the bridge's own status topic.
    pub(super) late_wills: RateLimit,
    /// Clear the retained messages of the topics the bridge reads (every
    /// board's command, the instance topic) at the next connection, after
    /// the broker sent one too large to read.
    pub(super) clear_retained: bool,
}

/// What the bridge keeps to hear the broker: where each board's commands
/// go, and the command checks with the bridge's warnings. The outbox owns
/// one, as the replies (acknowledgements, warnings) go out through it.
#[derive(Debug)]
pub(super) struct Intake {
    /// Each board's command queue, by board id (shared with the other
    /// senders: the desk, the arbiter view).
    pub(super) commands: Mutex<Router>,
    /// The command checks and the bridge's warnings.
    pub(super) control: Mutex<Control>,
}

impl Intake {
    /// An intake routing no command yet, checking commands with no key
    /// (until [`Outbox::set_control`]).
    pub(super) fn new() -> Intake {
        Intake {
            commands: Mutex::new(Router::new()),
            control: Mutex::new(Control {
                verifier: Verifier::new(None, crate::control::DEFAULT_WINDOW_MS),
                warnings: RateLimit::new(WARNINGS_PER_PERIOD, WARNING_PERIOD_MS),
                refusals: RateLimit::new(REFUSALS_PER_SECOND, 1000),
                late_wills: RateLimit::new(LATE_WILLS_PER_PERIOD, WARNING_PERIOD_MS),
                others: Default::default(),
                clear_retained: false,
            }),
        }
    }
}

impl Outbox {
    /// Checks operator commands with the `[control]` settings. Without a
    /// secret every command is refused, and this says so at start-up.
    pub fn set_control(&self, cfg: &crate::control::config::Control) {
        if cfg.secret.is_none() {
            warn!(
                "no operator secret configured ([control] secret or secret_file): every operator command will be refused"
            );
        }
        self.control_lock().verifier = cfg.verifier(crate::wall::unix_ms());
    }

    /// This process's random instance id.
    pub fn instance(&self) -> &str {
        &self.instance
    }

    pub(super) fn control_lock(&self) -> MutexGuard<'_, Control> {
        self.intake
            .control
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// Publishes a warning on the bridge's warning topic and logs it, both
    /// rate limited.
    pub(super) fn bridge_warning(&self, code: &str, board: Option<&str>, message: &str) {
        let now = crate::wall::unix_ms();
        let Some(suppressed) = self.control_lock().warnings.allow(now) else {
            debug!(code, board, %message, "bridge warning (rate limited)");
            return;
        };
        warn!(code, board, %message, suppressed, "bridge warning");
        let payload = serde_json::json!({
            "code": code,
            "board": board,
            "message": message,
            "suppressed": suppressed,
            "instance": self.instance,
            "t": now,
        });
        self.notice(self.topics.warning(), false, payload.to_string());
    }

    /// Queues a non-event publish and sends it when it can.
    pub(super) fn notice(&self, topic: String, retain: bool, payload: String) {
        let mut inner = self.lock();
        inner.push_notice(topic, retain, Bytes::from(payload));
        self.pump_locked(&mut inner);
    }

    /// Publishes an acknowledgement on the bridge's ack topic.
    pub(super) fn ack(&self, ack: &Ack) {
        self.notice(
            self.topics.ack(),
            false,
            serde_json::to_string(ack).expect("acks serialise"),
        );
    }

    /// Announces this instance on the instance topic.
    pub(super) fn announce(&self) {
        let payload = serde_json::json!({
            "instance": self.instance,
            "pid": std::process::id(),
        });
        self.notice(self.topics.instance(), false, payload.to_string());
    }

    /// A message on the instance topic: another process with this
    /// bridge's name is reported once per instance, and hears about us.
    ///
    /// Bounded: a message over [`MAX_INSTANCE_MESSAGE`] bytes is dropped
    /// (warned about, rate limited, and cleared from the broker when
    /// retained); one with an id that is not one
    /// ([`crate::text::check_id`]) is dropped (logged escaped, at debug
    /// level); at most [`MAX_OTHERS`] other instances are remembered, so at
    /// most that many announces answer them.
    pub(super) fn handle_instance(&self, payload: &[u8], retained: bool) {
        if payload.len() > MAX_INSTANCE_MESSAGE {
            // Logged and published rate limited; a retained one comes back
            // at every connection, so it is cleared.
            self.bridge_warning(
                "oversized",
                None,
                &format!(
                    "a message of {} bytes on the instance topic was dropped",
                    payload.len()
                ),
            );
            if retained {
                self.notice(self.topics.instance(), true, String::new());
            }
            return;
        }
        let Some(other) = serde_json::from_slice::<serde_json::Value>(payload)
            .ok()
            .and_then(|v| v["instance"].as_str().map(str::to_string))
        else {
            debug!("an unreadable message on the instance topic");
            return;
        };
        if let Err(e) = crate::text::check_id("instance", &other) {
            debug!("the instance topic: {e}");
            return;
        }
        {
            let mut control = self.control_lock();
            if other == self.instance
                || control.others.len() >= MAX_OTHERS
                || !control.others.insert(other.clone())
            {
                return;
            }
        }
        let message = format!(
            "another boardcast process with bridge name `{}` is connected to this broker (instance {other}; this one is {}): give each bridge its own [bridge] name",
            self.topics.bridge, self.instance
        );
        error!(%other, instance = %self.instance, "{message}");
        self.bridge_warning("duplicate_bridge", None, &message);
        // Let the newcomer know about us too.
        self.announce();
    }

    /// Routes operator corrections arriving on the command topics to the
    /// board tasks through `router`.
    pub fn route_commands(&self, router: Router) {
        *self.intake.commands.lock().expect("command routes lock") = router;
    }

    /// A message arrived on a subscribed topic.
    pub(super) fn handle_incoming(self: &Arc<Self>, topic: &str, payload: &[u8], retained: bool) {
        if topic == self.topics.instance() {
            self.handle_instance(payload, retained);
        } else if topic == self.topics.bridge_status() {
            self.handle_own_status(payload);
        } else {
            self.handle_command(topic, payload, retained);
        }
    }

    /// The bridge's own status topic says `offline` while it is connected
    /// and not stopping: a last will delivered late (a broker cluster may
    /// publish the will of a connection on a dead node after the bridge
    /// reconnected to another node with the same client id). Every
    /// subscriber would take the bridge for dead: say `online` again.
    pub(super) fn handle_own_status(&self, payload: &[u8]) {
        if payload != b"offline" {
            return;
        }
        let mut inner = self.lock();
        if !inner.link.connected || inner.link.offline_sent {
            return;
        }
        // Design: the warning is rate limited (anyone who may publish on
        // the status topic could otherwise fill the log, one line per
        // message); `online` goes out again each time (one publish for
        // one message, coalesced while one waits).
        let now = crate::wall::unix_ms();
        match self.control_lock().late_wills.allow(now) {
            Some(suppressed) => {
                warn!(bridge = %self.topics.bridge, suppressed, "the broker says this bridge is offline (a late last will?): publishing online again");
            }
            None => debug!(bridge = %self.topics.bridge, "offline on this bridge's status again"),
        }
        inner.link.announce = true;
        self.pump_locked(&mut inner);
    }

    /// An operator command arrived on `topic`: checked (size, retained,
    /// signature, time, nonce), then handed to its board, which
    /// acknowledges it; a refusal is acknowledged here and warned about.
    pub(super) fn handle_command(self: &Arc<Self>, topic: &str, payload: &[u8], retained: bool) {
        let Some(board) = self.topics.command_board(topic) else {
            return;
        };
        let router = self
            .intake
            .commands
            .lock()
            .expect("command routes lock")
            .clone();
        if !router.has(board) {
            // Another bridge under the same prefix may serve it.
            debug!(%board, "a command for a board of another bridge");
            return;
        }
        if payload.is_empty() {
            // The clearing of a retained command (ours or an operator's).
            return;
        }
        let verified =
            self.control_lock()
                .verifier
                .verify(topic, payload, retained, crate::wall::unix_ms());
        match verified {
            Ok(v) => {
                let (request, answer) = Request::new(v.command, Some(v.nonce), v.by);
                match router.send(board, request) {
                    Ok(()) => self.publish_answer(answer),
                    Err(e) => {
                        let nonce = e.into_request().nonce;
                        self.refuse(board, nonce, "busy", "the board's command queue is full");
                    }
                }
            }
            Err(r) => {
                if retained {
                    // Remove it (whatever the refusal: too large, unsigned,
                    // malformed, or retained at all), so it does not come
                    // back at every reconnection. The topic is this
                    // bridge's own: its board has a route here. The
                    // empty message that clears it is ignored above.
                    info!(%board, code = r.refusal.code(), "clearing a refused retained command from the broker");
                    self.notice(topic.to_string(), true, String::new());
                }
                self.refuse(board, r.nonce, r.refusal.code(), &r.refusal.to_string());
            }
        }
    }

    /// Publishes the board's answer to a command on the bridge's ack topic
    /// when it comes back on the request's reply channel.
    fn publish_answer(self: &Arc<Self>, answer: crate::control::Answer) {
        let outbox = Arc::clone(self);
        tokio::spawn(async move {
            if let Ok(ack) = answer.await {
                outbox.ack(&ack);
            }
        });
    }

    pub(super) fn refuse(&self, board: &str, nonce: Option<String>, code: &str, reason: &str) {
        self.bridge_warning(code, Some(board), &format!("command refused: {reason}"));
        if self
            .control_lock()
            .refusals
            .allow(crate::wall::unix_ms())
            .is_none()
        {
            return;
        }
        self.ack(&Ack {
            nonce,
            board: board.to_string(),
            accepted: false,
            changed: false,
            message: format!("refused: {reason}"),
            code: Some(code.to_string()),
        });
    }

    /// Subscribes to the command topics of this bridge's own boards, the
    /// instance topic and the bridge's own status, then announces this
    /// instance (after subscribing, so an answer cannot be missed).
    ///
    /// Design: one filter per board, not `{prefix}/board/+/command`. A
    /// message on another bridge's command topic is none of this bridge's
    /// business, and one too large to read (a retained one, which this
    /// bridge may not clear: the topic is not its own) would otherwise
    /// cost a reconnection at every subscription and put the bridge into
    /// its quarantine over and over.
    pub(super) fn subscribe(&self, client: &AsyncClient) {
        // A board has a slot per view (public, arbiter): one filter each.
        let ids: std::collections::BTreeSet<String> =
            self.lock().slots.iter().map(|s| s.id.clone()).collect();
        let mut filters: Vec<SubscribeFilter> = ids
            .iter()
            .map(|id| SubscribeFilter::new(self.topics.command(id), QoS::AtLeastOnce))
            .collect();
        filters.push(SubscribeFilter::new(
            self.topics.instance(),
            QoS::AtLeastOnce,
        ));
        // QoS 0: a cluster forwards it along its plain routes, even while
        // its QoS 1 store is stalled.
        filters.push(SubscribeFilter::new(
            self.topics.bridge_status(),
            QoS::AtMostOnce,
        ));
        if client.try_subscribe_many(filters).is_err() {
            warn!("could not subscribe to the command topics");
        }
        self.announce();
    }
}
