//! The outbox: what every board hands the MQTT task, kept until the
//! broker has it (see the module above for why), served to rumqttc in
//! turn without ever blocking a board.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use bytes::Bytes;
use rumqttc::{AsyncClient, QoS};
use tokio::time::Instant;
use tracing::error;

use super::intake::Intake;
use super::{MAX_NOTICES, Topics, View, WINDOW, fits};
use crate::control;
use crate::event::Event;

/// How long after losing a connection to a node every event is copied
/// through a standby: a NATS cluster elects new leaders for what the dead
/// node led within 4-9 s, and until then a subscriber whose JetStream
/// consumer that node led gets no QoS 1 message, even one the broker has
/// acknowledged.
pub(super) const UNSETTLED: Duration = Duration::from_secs(10);

/// What a publish handed to rumqttc was, to act on its acknowledgement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Tag {
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
pub(super) struct Queued {
    pub(super) seq: u64,
    pub(super) payload: Bytes,
    /// When the board handed it over.
    pub(super) at: Instant,
}

#[derive(Debug)]
pub(super) struct Slot {
    pub(super) id: String,
    pub(super) view: View,
    /// Unacknowledged events, oldest first, `seq` increasing.
    pub(super) events: VecDeque<Queued>,
    pub(super) next_seq: u64,
    /// Events sent on the current connection: those with `seq <= sent_upto`.
    pub(super) sent_upto: u64,
    pub(super) dropped: u64,
    pub(super) state: Option<(Bytes, Bytes)>,
    pub(super) version: u64,
    pub(super) sent_version: u64,
    pub(super) dirty: bool,
    /// An oversized state or PGN was reported (until one fits again).
    pub(super) oversize_reported: bool,
    /// Events copied through a standby connection: `seq <= express_upto`.
    pub(super) express_upto: u64,
    /// The state version last copied through a standby connection.
    pub(super) express_version: u64,
}

impl Slot {
    pub(super) fn unsent_event(&self) -> Option<&Queued> {
        let i = self.events.partition_point(|q| q.seq <= self.sent_upto);
        self.events.get(i)
    }

    pub(super) fn has_work(&self) -> bool {
        self.unsent_event().is_some() || self.version > self.sent_version
    }
}

/// Something that takes publishes without blocking: rumqttc's client, or a
/// recorder in unit tests. Returns `false` when it has no room now.
pub(super) trait Publisher {
    fn publish(&mut self, topic: String, retain: bool, payload: Bytes) -> bool;
}

/// A non-event publish: an acknowledgement, a warning, an announcement, or
/// the clearing of a retained command.
#[derive(Debug)]
pub(super) struct Notice {
    pub(super) topic: String,
    pub(super) retain: bool,
    pub(super) payload: Bytes,
}

impl Publisher for AsyncClient {
    fn publish(&mut self, topic: String, retain: bool, payload: Bytes) -> bool {
        self.try_publish(topic, QoS::AtLeastOnce, retain, payload.to_vec())
            .is_ok()
    }
}

#[derive(Debug, Default)]
pub(super) struct Link {
    pub(super) connected: bool,
    /// `online` still to be published on this connection.
    pub(super) announce: bool,
    /// Shutting down: `offline` was handed over, nothing else may follow.
    pub(super) offline_sent: bool,
    pub(super) offline_acked: bool,
    /// Publishes handed over whose packet id is not known yet, in order.
    pub(super) unnumbered: VecDeque<Tag>,
    /// Publishes on the wire by packet id.
    pub(super) inflight: HashMap<u16, Tag>,
    /// The broker of the list the connection uses (or tries) now.
    pub(super) broker: usize,
    /// Until when a cluster may still be electing new leaders after a
    /// connection to one of its nodes was lost: events are copied through
    /// a standby at once meanwhile.
    pub(super) unsettled_until: Option<Instant>,
}

#[derive(Debug)]
pub(super) struct Inner {
    pub(super) slots: Vec<Slot>,
    /// Slots with something unsent, each once, served in turn.
    pub(super) dirty: VecDeque<usize>,
    pub(super) link: Link,
    pub(super) client: Option<AsyncClient>,
    /// Non-event publishes waiting, oldest first.
    pub(super) notices: VecDeque<Notice>,
}

impl Inner {
    pub(super) fn mark_dirty(&mut self, i: usize) {
        if !self.slots[i].dirty {
            self.slots[i].dirty = true;
            self.dirty.push_back(i);
        }
    }

    pub(super) fn on_connected(&mut self) {
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

    pub(super) fn on_disconnected(&mut self) {
        self.link.connected = false;
        self.link.unnumbered.clear();
        self.link.inflight.clear();
    }

    pub(super) fn on_outgoing_publish(&mut self, pkid: u16) {
        if pkid == 0 {
            return;
        }
        if let Some(tag) = self.link.unnumbered.pop_front() {
            self.link.inflight.insert(pkid, tag);
        }
    }

    pub(super) fn on_puback(&mut self, pkid: u16) {
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
    pub(super) fn drained(&self) -> bool {
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
    pub(super) fn push_notice(&mut self, topic: String, retain: bool, payload: Bytes) {
        if self.notices.len() >= MAX_NOTICES {
            self.notices.pop_front();
        }
        self.notices.push_back(Notice {
            topic,
            retain,
            payload,
        });
    }

    pub(super) fn room(&self) -> usize {
        WINDOW.saturating_sub(self.link.unnumbered.len() + self.link.inflight.len())
    }

    /// Hands over whatever the connection has room for.
    pub(super) fn pump(&mut self, topics: &Topics, out: &mut dyn Publisher) {
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

    /// A connection to a node was lost at `now` (the bridge's own or a
    /// standby's): for [`UNSETTLED`] every event is copied at once.
    pub(super) fn node_lost(&mut self, now: Instant) {
        self.link.unsettled_until = Some(now + UNSETTLED);
    }

    /// Copies, at QoS 0 through a standby connection (`out`), of the
    /// events the broker has not acknowledged `after` they were queued (at
    /// once while the link is down or for [`UNSETTLED`] after a node was
    /// lost), each once, with the latest state and
    /// PGN of their boards (not retained). The events stay queued: the QoS
    /// 1 path still delivers them, so nothing depends on a copy arriving.
    pub(super) fn pump_express(
        &mut self,
        topics: &Topics,
        now: Instant,
        after: Duration,
        out: &mut dyn Publisher,
    ) {
        let down = !self.link.connected;
        let eager = down || self.link.unsettled_until.is_some_and(|t| now < t);
        for slot in &mut self.slots {
            let mut copied = false;
            let from = slot.express_upto;
            for q in slot.events.iter().filter(|q| q.seq > from) {
                if !eager && now.saturating_duration_since(q.at) < after {
                    break;
                }
                let topic = topics.of(slot.view, &slot.id, "event");
                if fits(&topic, &q.payload) && !out.publish(topic, false, q.payload.clone()) {
                    return;
                }
                slot.express_upto = q.seq;
                copied = true;
            }
            let state_waits = slot.version > slot.express_version && (copied || down);
            if let (true, Some((state, pgn))) = (state_waits, &slot.state) {
                for (kind, payload) in [("state", state), ("pgn", pgn)] {
                    let topic = topics.of(slot.view, &slot.id, kind);
                    // Not retained: a cluster stores a retained message
                    // before it delivers it, and that store is what stalls.
                    // The QoS 1 path retains it.
                    if fits(&topic, payload) && !out.publish(topic, false, payload.clone()) {
                        return;
                    }
                }
                slot.express_version = slot.version;
            }
        }
    }

    /// Whether [`pump_express`](Self::pump_express) may have work: an
    /// event not acknowledged and not yet copied.
    pub(super) fn express_waiting(&self) -> bool {
        self.slots
            .iter()
            .any(|s| s.events.back().is_some_and(|q| q.seq > s.express_upto))
    }
}

/// Everything waiting to be published, shared by the board tasks and the
/// MQTT task.
#[derive(Debug)]
pub struct Outbox {
    pub(super) inner: Mutex<Inner>,
    pub(super) topics: Topics,
    pub(super) capacity: usize,
    /// What the bridge hears on the broker: commands and their checks.
    pub(super) intake: Intake,
    /// This process's random id (in the client id and the instance topic).
    pub(super) instance: String,
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
                express_upto: 0,
                express_version: 0,
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
            intake: Intake::new(),
            instance: control::new_nonce()[..12].to_string(),
        })
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

    pub(super) fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves consistent data (every
        // update is a few field writes): keep going.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn pump_locked(&self, inner: &mut Inner) {
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
        slot.events.push_back(Queued {
            seq,
            payload,
            at: Instant::now(),
        });
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
pub(super) fn with_seq(mut json: String, seq: u64) -> String {
    if json.ends_with('}') {
        json.pop();
        if !json.ends_with('{') {
            json.push(',');
        }
        json.push_str(&format!("\"seq\":{seq}}}"));
    }
    json
}
