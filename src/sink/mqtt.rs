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

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use bytes::Bytes;
use rumqttc::{
    AsyncClient, ConnectReturnCode, ConnectionError, Event as MqttEvent, Incoming, LastWill,
    MqttOptions, MqttState, NetworkOptions, Outgoing, QoS, TlsConfiguration, Transport,
};
use tracing::{debug, error, info, warn};

use crate::backoff::Backoff;
use crate::config;
use crate::control::{self, Ack, RateLimit, Request, Verifier};
use crate::event::Event;

/// Publishes handed to rumqttc and not yet acknowledged, at most. rumqttc
/// keeps up to [`INFLIGHT`] on the wire and the rest in its channel.
const WINDOW: usize = 256;
/// QoS 1 publishes rumqttc keeps unacknowledged on the wire.
const INFLIGHT: u16 = 128;
/// Largest packet in either direction: a 300-move PGN is about 3 KiB and
/// its state JSON about 6 KiB; leave ample room for long games and tags.
pub const MAX_PACKET: usize = 1024 * 1024;
/// How long a graceful shutdown waits for the broker to take what is left.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);
/// A connection must stay up this long before the reconnection backoff
/// starts again from its shortest delay.
const STABLE: Duration = Duration::from_secs(10);
/// While the broker stays away, one warning line per this period.
const OUTAGE_LOG_EVERY: Duration = Duration::from_secs(30);
/// Acknowledgements, warnings and announcements waiting for a connection,
/// at most (the oldest go first).
const MAX_NOTICES: usize = 64;
/// Bridge warnings published at most per [`WARNING_PERIOD_MS`].
const WARNINGS_PER_PERIOD: u32 = 20;
/// Acknowledgements of refused commands published at most per second.
const REFUSALS_PER_SECOND: u32 = 20;
/// See [`WARNINGS_PER_PERIOD`].
const WARNING_PERIOD_MS: u64 = 10_000;

/// Whether a publish of `payload` on `topic` fits in one MQTT packet.
fn fits(topic: &str, payload: &[u8]) -> bool {
    // Fixed header (at most 5 bytes), topic length, packet id.
    topic.len() + payload.len() + 5 + 2 + 2 <= MAX_PACKET
}

/// The topic names of one bridge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Topics {
    prefix: String,
    bridge: String,
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

/// Where operator corrections for each board go (board id to its task).
pub type CommandRoutes = HashMap<String, tokio::sync::mpsc::Sender<Request>>;

/// What a publish handed to rumqttc was, to act on its acknowledgement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tag {
    /// An event of a board.
    Event { slot: usize, seq: u64 },
    /// A retained state or PGN.
    Retained,
    /// An acknowledgement, warning or announcement.
    Notice,
    /// The bridge status.
    Status,
}

#[derive(Debug)]
struct Queued {
    seq: u64,
    payload: Bytes,
}

#[derive(Debug)]
struct Slot {
    id: String,
    view: View,
    /// Unacknowledged events, oldest first, `seq` increasing.
    events: VecDeque<Queued>,
    next_seq: u64,
    /// Events sent on the current connection: those with `seq <= sent_upto`.
    sent_upto: u64,
    dropped: u64,
    state: Option<(Bytes, Bytes)>,
    version: u64,
    sent_version: u64,
    dirty: bool,
    /// An oversized state or PGN was reported (until one fits again).
    oversize_reported: bool,
}

impl Slot {
    fn unsent_event(&self) -> Option<&Queued> {
        let i = self.events.partition_point(|q| q.seq <= self.sent_upto);
        self.events.get(i)
    }

    fn has_work(&self) -> bool {
        self.unsent_event().is_some() || self.version > self.sent_version
    }
}

/// Something that takes publishes without blocking: rumqttc's client, or a
/// recorder in unit tests. Returns `false` when it has no room now.
trait Publisher {
    fn publish(&mut self, topic: String, retain: bool, payload: Bytes) -> bool;
}

/// A non-event publish: an acknowledgement, a warning, an announcement, or
/// the clearing of a retained command.
#[derive(Debug)]
struct Notice {
    topic: String,
    retain: bool,
    payload: Bytes,
}

impl Publisher for AsyncClient {
    fn publish(&mut self, topic: String, retain: bool, payload: Bytes) -> bool {
        self.try_publish(topic, QoS::AtLeastOnce, retain, payload.to_vec())
            .is_ok()
    }
}

#[derive(Debug, Default)]
struct Link {
    connected: bool,
    /// `online` still to be published on this connection.
    announce: bool,
    /// Shutting down: `offline` was handed over, nothing else may follow.
    offline_sent: bool,
    offline_acked: bool,
    /// Publishes handed over whose packet id is not known yet, in order.
    unnumbered: VecDeque<Tag>,
    /// Publishes on the wire by packet id.
    inflight: HashMap<u16, Tag>,
}

#[derive(Debug)]
struct Inner {
    slots: Vec<Slot>,
    /// Slots with something unsent, each once, served in turn.
    dirty: VecDeque<usize>,
    link: Link,
    client: Option<AsyncClient>,
    /// Non-event publishes waiting, oldest first.
    notices: VecDeque<Notice>,
}

impl Inner {
    fn mark_dirty(&mut self, i: usize) {
        if !self.slots[i].dirty {
            self.slots[i].dirty = true;
            self.dirty.push_back(i);
        }
    }

    fn on_connected(&mut self) {
        self.link.connected = true;
        self.link.announce = true;
        self.link.unnumbered.clear();
        self.link.inflight.clear();
        for i in 0..self.slots.len() {
            let s = &mut self.slots[i];
            s.sent_upto = 0;
            s.sent_version = 0;
            if s.has_work() {
                self.mark_dirty(i);
            }
        }
    }

    fn on_disconnected(&mut self) {
        self.link.connected = false;
        self.link.unnumbered.clear();
        self.link.inflight.clear();
    }

    fn on_outgoing_publish(&mut self, pkid: u16) {
        if pkid == 0 {
            return;
        }
        if let Some(tag) = self.link.unnumbered.pop_front() {
            self.link.inflight.insert(pkid, tag);
        }
    }

    fn on_puback(&mut self, pkid: u16) {
        match self.link.inflight.remove(&pkid) {
            Some(Tag::Event { slot, seq }) => {
                let events = &mut self.slots[slot].events;
                if let Some(i) = events.iter().position(|q| q.seq == seq) {
                    events.remove(i);
                }
            }
            Some(Tag::Status) if self.link.offline_sent => self.link.offline_acked = true,
            _ => {}
        }
    }

    /// Whether everything queued has been acknowledged.
    fn drained(&self) -> bool {
        self.link.unnumbered.is_empty()
            && self.link.inflight.is_empty()
            && !self.link.announce
            && self.notices.is_empty()
            && self
                .slots
                .iter()
                .all(|s| s.events.is_empty() && s.version == s.sent_version)
    }

    /// Queues a non-event publish; the oldest goes when too many wait.
    fn push_notice(&mut self, topic: String, retain: bool, payload: Bytes) {
        if self.notices.len() >= MAX_NOTICES {
            self.notices.pop_front();
        }
        self.notices.push_back(Notice {
            topic,
            retain,
            payload,
        });
    }

    fn room(&self) -> usize {
        WINDOW.saturating_sub(self.link.unnumbered.len() + self.link.inflight.len())
    }

    /// Hands over whatever the connection has room for.
    fn pump(&mut self, topics: &Topics, out: &mut dyn Publisher) {
        if !self.link.connected || self.link.offline_sent {
            return;
        }
        if self.link.announce && self.room() > 0 {
            if !out.publish(topics.bridge_status(), true, Bytes::from_static(b"online")) {
                return;
            }
            self.link.unnumbered.push_back(Tag::Status);
            self.link.announce = false;
        }
        while self.room() > 0 {
            let Some(n) = self.notices.front() else { break };
            if !out.publish(n.topic.clone(), n.retain, n.payload.clone()) {
                return;
            }
            self.notices.pop_front();
            self.link.unnumbered.push_back(Tag::Notice);
        }
        while self.room() >= 2 {
            let Some(&i) = self.dirty.front() else { break };
            let slot = &mut self.slots[i];
            if let Some(q) = slot.unsent_event() {
                let (seq, payload) = (q.seq, q.payload.clone());
                let topic = topics.of(slot.view, &slot.id, "event");
                if !fits(&topic, &payload) {
                    // Design: never resend forever what the broker can
                    // never take; the retained state still carries the game.
                    error!(board = %slot.id, seq, bytes = payload.len(), "an event too large to publish was dropped");
                    slot.events.retain(|q| q.seq != seq);
                    slot.dropped += 1;
                } else {
                    if !out.publish(topic, false, payload) {
                        return;
                    }
                    slot.sent_upto = seq;
                    self.link.unnumbered.push_back(Tag::Event { slot: i, seq });
                }
            } else if slot.version > slot.sent_version {
                let (state, pgn) = slot.state.clone().expect("a version has a state");
                let (state_topic, pgn_topic) = (
                    topics.of(slot.view, &slot.id, "state"),
                    topics.of(slot.view, &slot.id, "pgn"),
                );
                let (state_fits, pgn_fits) = (fits(&state_topic, &state), fits(&pgn_topic, &pgn));
                if !(state_fits && pgn_fits) {
                    if !slot.oversize_reported {
                        error!(board = %slot.id, state_bytes = state.len(), pgn_bytes = pgn.len(), "the board's state or PGN is too large to publish: not published until it fits again");
                    }
                    slot.oversize_reported = true;
                } else {
                    slot.oversize_reported = false;
                }
                if state_fits {
                    if !out.publish(state_topic, true, state) {
                        return;
                    }
                    self.link.unnumbered.push_back(Tag::Retained);
                }
                slot.sent_version = slot.version;
                if pgn_fits {
                    if !out.publish(pgn_topic, true, pgn) {
                        // The state went out without its PGN: send both again.
                        slot.sent_version = 0;
                        return;
                    }
                    self.link.unnumbered.push_back(Tag::Retained);
                }
            }
            // Serve the boards in turn.
            self.dirty.pop_front();
            if self.slots[i].has_work() {
                self.dirty.push_back(i);
            } else {
                self.slots[i].dirty = false;
            }
        }
    }
}

/// Everything waiting to be published, shared by the board tasks and the
/// MQTT task.
#[derive(Debug)]
pub struct Outbox {
    inner: Mutex<Inner>,
    topics: Topics,
    capacity: usize,
    commands: Mutex<CommandRoutes>,
    control: Mutex<Control>,
    /// This process's random id (in the client id and the instance topic).
    instance: String,
}

/// The command checks and the bridge's warnings.
#[derive(Debug)]
struct Control {
    verifier: Verifier,
    warnings: RateLimit,
    /// Acknowledgements of refused commands (a flood of junk must not
    /// crowd the boards' events out of the connection).
    refusals: RateLimit,
    /// Other instances of this bridge name seen on the broker.
    others: std::collections::HashSet<String>,
    /// Clear the retained command of every board at the next connection
    /// (after the broker sent one too large to read).
    clear_commands: bool,
}

impl Outbox {
    /// An outbox for these boards (ids in config order), keeping up to
    /// `capacity` unacknowledged events per board.
    pub fn new(topics: Topics, boards: &[String], capacity: usize) -> Arc<Outbox> {
        // Design: one slot per board and view, the public ones first (so
        // `board(i)` is slot i and `arbiter(i)` slot n + i); both views
        // share the connection, the window and the turn-taking.
        let slots = [View::Public, View::Arbiter]
            .into_iter()
            .flat_map(|view| boards.iter().map(move |id| (view, id)))
            .map(|(view, id)| Slot {
                id: id.clone(),
                view,
                events: VecDeque::new(),
                next_seq: 1,
                sent_upto: 0,
                dropped: 0,
                state: None,
                version: 0,
                sent_version: 0,
                dirty: false,
                oversize_reported: false,
            })
            .collect();
        Arc::new(Outbox {
            inner: Mutex::new(Inner {
                slots,
                dirty: VecDeque::new(),
                link: Link::default(),
                client: None,
                notices: VecDeque::new(),
            }),
            topics,
            capacity: capacity.max(1),
            commands: Mutex::new(CommandRoutes::new()),
            control: Mutex::new(Control {
                verifier: Verifier::new(None, control::DEFAULT_WINDOW_MS),
                warnings: RateLimit::new(WARNINGS_PER_PERIOD, WARNING_PERIOD_MS),
                refusals: RateLimit::new(REFUSALS_PER_SECOND, 1000),
                others: Default::default(),
                clear_commands: false,
            }),
            instance: control::new_nonce()[..12].to_string(),
        })
    }

    /// Checks operator commands with the `[control]` settings. Without a
    /// secret every command is refused, and this says so at start-up.
    pub fn set_control(&self, cfg: &config::Control) {
        if cfg.secret.is_none() {
            warn!(
                "no operator secret configured ([control] secret or secret_file): every operator command will be refused"
            );
        }
        self.control_lock().verifier =
            Verifier::new(cfg.secret.clone(), cfg.window.as_millis() as u64);
    }

    /// This process's random instance id.
    pub fn instance(&self) -> &str {
        &self.instance
    }

    fn control_lock(&self) -> MutexGuard<'_, Control> {
        self.control.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Publishes a warning on the bridge's warning topic and logs it, both
    /// rate limited.
    fn bridge_warning(&self, code: &str, board: Option<&str>, message: &str) {
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
    fn notice(&self, topic: String, retain: bool, payload: String) {
        let mut inner = self.lock();
        inner.push_notice(topic, retain, Bytes::from(payload));
        self.pump_locked(&mut inner);
    }

    /// Publishes an acknowledgement on the bridge's ack topic.
    fn ack(&self, ack: &Ack) {
        self.notice(
            self.topics.ack(),
            false,
            serde_json::to_string(ack).expect("acks serialise"),
        );
    }

    /// Announces this instance on the instance topic.
    fn announce(&self) {
        let payload = serde_json::json!({
            "instance": self.instance,
            "pid": std::process::id(),
        });
        self.notice(self.topics.instance(), false, payload.to_string());
    }

    /// A message on the instance topic: another process with this
    /// bridge's name is reported once per instance, and hears about us.
    fn handle_instance(&self, payload: &[u8]) {
        let Some(other) = serde_json::from_slice::<serde_json::Value>(payload)
            .ok()
            .and_then(|v| v["instance"].as_str().map(str::to_string))
        else {
            debug!("an unreadable message on the instance topic");
            return;
        };
        if other == self.instance || !self.control_lock().others.insert(other.clone()) {
            return;
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
    /// board tasks.
    pub fn route_commands(&self, routes: CommandRoutes) {
        *self.commands.lock().expect("command routes lock") = routes;
    }

    /// A message arrived on a subscribed topic.
    fn handle_incoming(&self, topic: &str, payload: &[u8], retained: bool) {
        if topic == self.topics.instance() {
            self.handle_instance(payload);
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
    fn handle_own_status(&self, payload: &[u8]) {
        if payload != b"offline" {
            return;
        }
        let mut inner = self.lock();
        if inner.link.connected && !inner.link.offline_sent {
            warn!(bridge = %self.topics.bridge, "the broker says this bridge is offline (a late last will?): publishing online again");
            inner.link.announce = true;
            self.pump_locked(&mut inner);
        }
    }

    /// An operator command arrived on `topic`: checked (size, retained,
    /// signature, time, nonce), then handed to its board, which
    /// acknowledges it; a refusal is acknowledged here and warned about.
    fn handle_command(&self, topic: &str, payload: &[u8], retained: bool) {
        let Some(board) = self.topics.command_board(topic) else {
            return;
        };
        let route = self
            .commands
            .lock()
            .expect("command routes lock")
            .get(board)
            .cloned();
        let Some(route) = route else {
            // Another bridge under the same prefix may serve it.
            debug!(%board, "a command for a board of another bridge");
            return;
        };
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
                let request = Request {
                    command: v.command,
                    nonce: Some(v.nonce),
                };
                if let Err(e) = route.try_send(request) {
                    let request = match e {
                        tokio::sync::mpsc::error::TrySendError::Full(r)
                        | tokio::sync::mpsc::error::TrySendError::Closed(r) => r,
                    };
                    self.refuse(
                        board,
                        request.nonce,
                        "busy",
                        "the board's command queue is full",
                    );
                }
            }
            Err(r) => {
                if r.refusal == control::Refusal::Retained {
                    // Remove it, so it does not come back at every
                    // reconnection.
                    self.notice(topic.to_string(), true, String::new());
                }
                self.refuse(board, r.nonce, r.refusal.code(), &r.refusal.to_string());
            }
        }
    }

    fn refuse(&self, board: &str, nonce: Option<String>, code: &str, reason: &str) {
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

    /// The public handle of the board at `index` (config order): its
    /// `{prefix}/board/{id}/...` topics.
    pub fn board(self: &Arc<Self>, index: usize) -> BoardOutbox {
        self.view(View::Public, index)
    }

    /// The arbiters' handle of the board at `index`: its
    /// `{prefix}/arbiter/board/{id}/...` topics.
    pub fn arbiter(self: &Arc<Self>, index: usize) -> BoardOutbox {
        self.view(View::Arbiter, index)
    }

    fn view(self: &Arc<Self>, view: View, index: usize) -> BoardOutbox {
        let boards = self.lock().slots.len() / 2;
        assert!(index < boards, "board index out of range");
        let index = match view {
            View::Public => index,
            View::Arbiter => boards + index,
        };
        BoardOutbox {
            outbox: Arc::clone(self),
            index,
        }
    }

    /// The topic names.
    pub fn topics(&self) -> &Topics {
        &self.topics
    }

    /// Events not yet acknowledged by the broker, all boards together.
    pub fn unacknowledged(&self) -> usize {
        self.lock().slots.iter().map(|s| s.events.len()).sum()
    }

    /// Events dropped because a queue was full, all boards together.
    pub fn dropped(&self) -> u64 {
        self.lock().slots.iter().map(|s| s.dropped).sum()
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves consistent data (every
        // update is a few field writes): keep going.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn pump_locked(&self, inner: &mut Inner) {
        if let Some(mut client) = inner.client.clone() {
            inner.pump(&self.topics, &mut client);
        }
    }
}

/// One board's way into the [`Outbox`]. Never blocks on the broker.
#[derive(Clone, Debug)]
pub struct BoardOutbox {
    outbox: Arc<Outbox>,
    index: usize,
}

impl BoardOutbox {
    /// Queues an event (QoS 1). Returns `false` if the queue was full and
    /// its oldest event had to be dropped to make room.
    ///
    /// The payload is the event's JSON with one more field, `seq`: the
    /// board's event counter in this daemon session (1, 2, ...), so a
    /// subscriber can drop repeated or stale deliveries.
    pub fn push_event(&self, event: &Event) -> bool {
        let json = event.to_json();
        let mut inner = self.outbox.lock();
        let slot = &mut inner.slots[self.index];
        let mut kept = true;
        if slot.events.len() >= self.outbox.capacity {
            slot.events.pop_front();
            slot.dropped += 1;
            kept = false;
        }
        let seq = slot.next_seq;
        slot.next_seq += 1;
        let payload = Bytes::from(with_seq(json, seq));
        slot.events.push_back(Queued { seq, payload });
        inner.mark_dirty(self.index);
        self.outbox.pump_locked(&mut inner);
        kept
    }

    /// Replaces the board's retained state (JSON) and PGN. Only the latest
    /// pair is kept.
    ///
    /// The state gets one more field, `bridge`: the bridge's name, so a
    /// subscriber of many bridges (`boardcast hub`) knows whose board it is.
    pub fn set_retained(&self, state: String, pgn: String) {
        let state = with_bridge(state, &self.outbox.topics.bridge);
        let mut inner = self.outbox.lock();
        let slot = &mut inner.slots[self.index];
        slot.state = Some((Bytes::from(state), Bytes::from(pgn)));
        slot.version += 1;
        inner.mark_dirty(self.index);
        self.outbox.pump_locked(&mut inner);
    }

    /// Acknowledges an operator command on the bridge's ack topic.
    pub fn push_ack(&self, ack: &Ack) {
        self.outbox.ack(ack);
    }

    /// Events of this board dropped because its queue was full.
    pub fn dropped(&self) -> u64 {
        self.outbox.lock().slots[self.index].dropped
    }
}

impl crate::session::BoardSink for BoardOutbox {
    fn event(&self, event: &Event) -> bool {
        self.push_event(event)
    }

    fn state(&self, state: &str, record: &str, _redraw: bool) {
        self.set_retained(state.to_string(), record.to_string());
    }

    fn dropped(&self) -> u64 {
        BoardOutbox::dropped(self)
    }

    fn ack(&self, ack: &Ack) {
        self.push_ack(ack);
    }
}

/// Appends `"bridge":NAME` to a JSON object that has no `bridge` yet,
/// keeping its fields' order.
fn with_bridge(mut json: String, bridge: &str) -> String {
    if json.ends_with('}') && !json.contains("\"bridge\":") {
        json.pop();
        if !json.ends_with('{') {
            json.push(',');
        }
        json.push_str(&format!("\"bridge\":{}}}", serde_json::Value::from(bridge)));
    }
    json
}

/// Appends `"seq":N` to a JSON object, keeping its fields' order.
fn with_seq(mut json: String, seq: u64) -> String {
    if json.ends_with('}') {
        json.pop();
        if !json.ends_with('{') {
            json.push(',');
        }
        json.push_str(&format!("\"seq\":{seq}}}"));
    }
    json
}

/// Why the MQTT task could not start.
#[derive(Debug, thiserror::Error)]
pub enum MqttError {
    /// A TLS file could not be read.
    #[error("reading {path}: {source}")]
    TlsFile {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The system's trusted roots could not be loaded.
    #[error("could not load the system's trusted certificates; set mqtt.tls.ca_file")]
    SystemRoots,
}

/// rumqttc options from the configuration.
pub fn options(cfg: &config::Mqtt, topics: &Topics) -> Result<MqttOptions, MqttError> {
    let mut o = connection_options(cfg, cfg.client_id.clone())?;
    o.set_last_will(LastWill::new(
        topics.bridge_status(),
        "offline",
        QoS::AtLeastOnce,
        true,
    ));
    Ok(o)
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
    Settings(#[from] MqttError),
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

/// Options shared by every connection: address, keep-alive, packet size,
/// credentials and TLS.
pub fn connection_options(cfg: &config::Mqtt, client_id: String) -> Result<MqttOptions, MqttError> {
    let mut o = MqttOptions::new(client_id, cfg.host.clone(), cfg.port);
    o.set_keep_alive(cfg.keep_alive.max(Duration::from_secs(1)));
    o.set_clean_session(true);
    o.set_inflight(INFLIGHT);
    o.set_max_packet_size(MAX_PACKET, MAX_PACKET);
    if let Some((user, password)) = &cfg.credentials {
        o.set_credentials(user.clone(), password.clone());
    }
    if let Some(tls) = &cfg.tls {
        let read = |path: &std::path::Path| {
            std::fs::read(path).map_err(|source| MqttError::TlsFile {
                path: path.to_owned(),
                source,
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
        o.set_transport(transport);
    }
    Ok(o)
}

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
    // The brokers to try, in turn: the first, then the other nodes of a
    // cluster (`url` as a list).
    let brokers: Vec<(String, u16)> = std::iter::once((cfg.host.clone(), cfg.port))
        .chain(cfg.failover.iter().cloned())
        .collect();
    let options_for = |i: usize| -> Result<MqttOptions, MqttError> {
        let (host, port) = &brokers[i];
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
    };
    let mut current = 0;
    let (client, mut eventloop) = AsyncClient::new(options_for(current)?, WINDOW + 8);
    // Design: no Nagle. A move is a few small packets; waiting for the
    // broker's delayed ACK before sending the next one adds up to 40 ms.
    let mut network = NetworkOptions::new();
    network.set_tcp_nodelay(true);
    eventloop.set_network_options(network);
    outbox.lock().client = Some(client.clone());
    let mut backoff = Backoff::new(cfg.reconnect);
    tokio::pin!(shutdown);
    let mut closing: Option<tokio::time::Instant> = None;
    let mut disconnect_sent = false;
    // When the current connection came up; while the broker is away, the
    // failed attempts since the outage began and when it was last logged.
    let mut health = Health::default();
    info!(host = %cfg.host, port = cfg.port, client_id = %format!("{}-{}", cfg.client_id, outbox.instance()), "connecting to the broker");

    loop {
        let polled = tokio::select! {
            biased;
            _ = &mut shutdown, if closing.is_none() => {
                closing = Some(tokio::time::Instant::now() + SHUTDOWN_GRACE);
                if !outbox.lock().link.connected {
                    break;
                }
                None
            }
            _ = sleep_until_opt(closing) => {
                warn!("the broker did not take everything before shutdown");
                break;
            }
            r = eventloop.poll() => Some(r),
        };
        match polled {
            None => {}
            Some(Ok(MqttEvent::Incoming(Incoming::ConnAck(ack)))) => {
                if ack.code == ConnectReturnCode::Success {
                    let failures = health.connected(tokio::time::Instant::now());
                    info!(failed_attempts = failures, "connected to the broker");
                    let clear = std::mem::take(&mut outbox.control_lock().clear_commands);
                    let mut inner = outbox.lock();
                    inner.on_connected();
                    if clear {
                        // Before subscribing: the broker sent a message too
                        // large to read, maybe a retained command.
                        warn!("clearing the retained command topics of this bridge's boards");
                        for slot in 0..inner.slots.len() {
                            let topic = outbox.topics.command(&inner.slots[slot].id);
                            inner.push_notice(topic, true, Bytes::new());
                        }
                    }
                    outbox.pump_locked(&mut inner);
                    drop(inner);
                    let filter = format!("{}/board/+/command", outbox.topics.prefix);
                    if client.try_subscribe(filter, QoS::AtLeastOnce).is_err()
                        || client
                            .try_subscribe(outbox.topics.instance(), QoS::AtLeastOnce)
                            .is_err()
                        // QoS 0: a cluster forwards it along its plain
                        // routes, even while its QoS 1 store is stalled.
                        || client
                            .try_subscribe(outbox.topics.bridge_status(), QoS::AtMostOnce)
                            .is_err()
                    {
                        warn!("could not subscribe to the command topics");
                    }
                    // After subscribing, so an answer cannot be missed.
                    outbox.announce();
                } else {
                    warn!(code = ?ack.code, "the broker refused the connection");
                }
            }
            Some(Ok(MqttEvent::Outgoing(Outgoing::Publish(pkid)))) => {
                outbox.lock().on_outgoing_publish(pkid);
            }
            Some(Ok(MqttEvent::Incoming(Incoming::PubAck(ack)))) => {
                let mut inner = outbox.lock();
                inner.on_puback(ack.pkid);
                outbox.pump_locked(&mut inner);
            }
            Some(Ok(MqttEvent::Incoming(Incoming::Publish(p)))) => {
                outbox.handle_incoming(&p.topic, &p.payload, p.retain);
            }
            Some(Ok(MqttEvent::Outgoing(Outgoing::Disconnect))) => {
                debug!("disconnect sent");
                break;
            }
            Some(Ok(_)) => {}
            Some(Err(e)) => {
                let mut oversized = None;
                // Design: fail over. The next attempt goes to the next
                // broker of the list (the queue and the retained states
                // are sent again on whichever node takes the connection).
                if brokers.len() > 1 {
                    current = (current + 1) % brokers.len();
                    eventloop.mqtt_options = options_for(current)?;
                    info!(host = %brokers[current].0, port = brokers[current].1, "trying the next broker");
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
                    outbox.control_lock().clear_commands = true;
                    oversized = Some(*bytes);
                }
                {
                    let mut inner = outbox.lock();
                    let refused = matches!(e, ConnectionError::ConnectionRefused(_));
                    let (reset, report) =
                        health.failed(tokio::time::Instant::now(), inner.link.connected, refused);
                    if reset {
                        backoff.reset();
                    }
                    let failures = health.failures;
                    match report {
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
                    inner.on_disconnected();
                    // Drop rumqttc's copies: the outbox sends again what
                    // was not acknowledged, after the next CONNACK.
                    eventloop.clean();
                    eventloop.pending.clear();
                    eventloop.state = MqttState::new(INFLIGHT, false);
                }
                if let Some(bytes) = oversized {
                    // Queued now, published after the reconnection.
                    outbox.bridge_warning(
                        "oversized",
                        None,
                        &format!(
                            "a message of {bytes} bytes on this bridge's subscriptions was refused"
                        ),
                    );
                }
                if closing.is_some() {
                    break;
                }
                let delay = backoff.next_delay();
                tokio::select! {
                    _ = tokio::time::sleep(delay) => {}
                    _ = &mut shutdown => break,
                }
            }
        }
        if closing.is_some() {
            let mut inner = outbox.lock();
            if inner.link.connected && !inner.link.offline_sent && inner.drained() {
                let mut c = client.clone();
                if Publisher::publish(
                    &mut c,
                    outbox.topics.bridge_status(),
                    true,
                    Bytes::from_static(b"offline"),
                ) {
                    inner.link.unnumbered.push_back(Tag::Status);
                    inner.link.offline_sent = true;
                }
            }
            if inner.link.offline_acked && !disconnect_sent {
                disconnect_sent = client.try_disconnect().is_ok();
            }
        }
    }
    Ok(())
}

/// The broker link's history: when the backoff may start again from the
/// bottom, and which failures to log at warn level.
#[derive(Debug, Default)]
struct Health {
    /// When the current connection came up.
    connected_at: Option<tokio::time::Instant>,
    /// Failed attempts since the last connection.
    failures: u64,
    /// When an outage was last logged at warn level.
    last_log: Option<tokio::time::Instant>,
}

/// How to log a connection failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Report {
    /// A working connection was lost.
    Lost,
    /// The broker refused us (credentials): every time.
    Refused,
    /// Still away: one line per [`OUTAGE_LOG_EVERY`], with the count.
    Unreachable,
    /// Still away, logged recently: debug only.
    Quiet,
}

impl Health {
    /// A connection came up at `now`; returns the failed attempts before.
    fn connected(&mut self, now: tokio::time::Instant) -> u64 {
        self.connected_at = Some(now);
        self.last_log = None;
        std::mem::take(&mut self.failures)
    }

    /// A connection (or attempt) failed at `now`: whether to reset the
    /// backoff (only after a connection that stayed up [`STABLE`], so a
    /// broker that accepts and drops at once is not hammered), and how to
    /// log it (an outage stays visible at warn level, rate limited).
    fn failed(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::EventKind;

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
            kind: EventKind::Takeback {
                to_ply: ply,
                fen: "x".into(),
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
        assert_eq!(h.failed(t0 + s(2), true, false), (false, Report::Lost));
        // Attempts fail for a while: a warn line per 30 s, debug between.
        let mut reports = Vec::new();
        for i in 1..=70 {
            reports.push(h.failed(t0 + s(2 + i), false, false).1);
        }
        let warned = reports
            .iter()
            .filter(|r| **r == Report::Unreachable)
            .count();
        assert_eq!(warned, 2, "{reports:?}");
        assert!(reports.contains(&Report::Quiet));
        assert_eq!(h.failed(t0 + s(73), false, true).1, Report::Refused);
        assert_eq!(h.connected(t0 + s(80)), 72);
        // Up for 10 s: the next failure resets the backoff.
        assert_eq!(h.failed(t0 + s(90), true, false), (true, Report::Lost));
    }

    #[test]
    fn an_event_too_large_to_publish_is_dropped_not_resent_forever() {
        let ob = outbox(10);
        let b = ob.board(0);
        b.push_event(&event("1", 1));
        let huge = Event {
            board: "1".into(),
            t_ms: 0,
            kind: EventKind::Takeback {
                to_ply: 2,
                fen: "x".repeat(MAX_PACKET),
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
        ob.board(0).push_ack(&Ack {
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
        ob.route_commands(CommandRoutes::from([("1".to_string(), tx)]));
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
}
