//! The fan-out between the boards and the browsers: each board's
//! [`BoardFeed`] hands its events and retained state to a [`FanOut`], which
//! keeps a [`Snapshot`] (each board's state and last clock, the latest
//! alerts) and fans every change out on a `tokio::sync::broadcast`
//! channel, which never waits for a browser.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

use serde::Serialize;
use tokio::sync::broadcast;

use super::{select, tools};
use crate::event::{Event, EventKind};

/// Alerts kept for browsers that connect later.
const ALERTS_KEPT: usize = 200;
/// Messages a browser may fall behind before it loses its stream.
const CHANNEL: usize = 4096;

/// One message to the browsers.
#[derive(Clone, Debug)]
pub(super) struct Message {
    /// The SSE event name: `state` or `event`.
    pub(super) name: &'static str,
    /// JSON.
    pub(super) data: Arc<str>,
    /// The board it is about (`None`: a bridge's status), for the streams
    /// that take only some boards ([`select`]).
    pub(super) board: Option<Arc<str>>,
    /// Whether it is an alert or an arbiter's decision.
    pub(super) alert: bool,
}

#[derive(Debug, Default, Serialize)]
pub(super) struct Snapshot {
    pub(super) boards: Vec<String>,
    /// Each board's state JSON (as published on MQTT), parsed.
    pub(super) states: Vec<Option<serde_json::Value>>,
    /// Each board's last clock event.
    clocks: Vec<Option<serde_json::Value>>,
    /// The latest alerts, oldest first.
    pub(super) alerts: VecDeque<serde_json::Value>,
    /// The bridges a hub (`boardcast hub`) follows and their status
    /// (`online` / `offline`); absent on a bridge's own page.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    bridges: std::collections::BTreeMap<String, String>,
    /// The arbiters' tools' memory of each board (evidence, report).
    #[serde(skip)]
    pub(super) kept: Vec<tools::Kept>,
}

/// The fan-out point between the boards and the browsers.
#[derive(Debug)]
pub struct FanOut {
    pub(super) tx: broadcast::Sender<Message>,
    snapshot: Mutex<Snapshot>,
    /// Whether alerts and decisions are refused (the public's fan-out,
    /// unless alerts are public): they never reach its browsers.
    refuse_alerts: std::sync::atomic::AtomicBool,
}

impl FanOut {
    /// A fan-out for the boards `ids` (in configuration order).
    pub fn new(ids: &[String]) -> Arc<FanOut> {
        let (tx, _) = broadcast::channel(CHANNEL);
        Arc::new(FanOut {
            tx,
            snapshot: Mutex::new(Snapshot {
                boards: ids.to_vec(),
                states: vec![None; ids.len()],
                clocks: vec![None; ids.len()],
                alerts: VecDeque::new(),
                bridges: std::collections::BTreeMap::new(),
                kept: vec![tools::Kept::default(); ids.len()],
            }),
            refuse_alerts: std::sync::atomic::AtomicBool::new(false),
        })
    }

    /// Refuses alerts and the arbiters' decisions from now on (`true`),
    /// or takes them (`false`, the default).
    pub fn refuse_alerts(&self, refuse: bool) {
        self.refuse_alerts
            .store(refuse, std::sync::atomic::Ordering::Relaxed);
    }

    /// Whether this fan-out passes events of `kind` to its browsers.
    fn passes(&self, kind: &EventKind) -> bool {
        let refuse = self
            .refuse_alerts
            .load(std::sync::atomic::Ordering::Relaxed);
        crate::delay::config::is_public(kind, !refuse)
    }

    /// Adds a board after the start (the hub learns its boards from the
    /// bridges); returns its index, the same for an id already there.
    pub fn add_board(&self, id: &str) -> usize {
        let mut s = self.lock();
        if let Some(i) = s.boards.iter().position(|b| b == id) {
            return i;
        }
        s.boards.push(id.to_string());
        s.states.push(None);
        s.clocks.push(None);
        s.kept.push(tools::Kept::default());
        s.boards.len() - 1
    }

    /// A bridge's status (`online` / `offline`), shown on the page as a
    /// `bridge` message: `{"name": ..., "status": ...}`.
    pub fn bridge(&self, name: &str, status: &str) {
        self.lock()
            .bridges
            .insert(name.to_string(), status.to_string());
        let json = serde_json::json!({ "name": name, "status": status }).to_string();
        self.send("bridge", json, None, false);
    }

    /// The snapshot browsers get first, as JSON: `boards`, `states`,
    /// `clocks`, `alerts` and (on a hub) `bridges`.
    pub fn snapshot_json(&self) -> String {
        serde_json::to_string(&*self.lock()).expect("snapshots serialise")
    }

    /// The snapshot of the boards (and alerts) `selection` takes, in the
    /// same shape as [`FanOut::snapshot_json`].
    pub fn snapshot_for(&self, selection: &select::Selection) -> String {
        if *selection == select::Selection::default() {
            return self.snapshot_json();
        }
        let s = self.lock();
        let taken: Vec<usize> = (0..s.boards.len())
            .filter(|&i| selection.board(&s.boards[i]))
            .collect();
        let view = SnapshotView {
            boards: taken.iter().map(|&i| &s.boards[i]).collect(),
            states: taken.iter().map(|&i| &s.states[i]).collect(),
            clocks: taken.iter().map(|&i| &s.clocks[i]).collect(),
            alerts: s
                .alerts
                .iter()
                .filter(|a| selection.alert(a["board"].as_str()))
                .collect(),
            bridges: &s.bridges,
        };
        serde_json::to_string(&view).expect("snapshots serialise")
    }

    /// The boards in the order the pages show them (round, then number,
    /// then id, numbers in ids read as numbers), those `selection` takes:
    /// `[{"board", "round", "number"}]`, round and number `null` before
    /// the board's first state.
    pub fn boards_json(&self, selection: &select::Selection) -> String {
        let s = self.lock();
        let mut list: Vec<(Option<u64>, Option<u64>, &str)> = (0..s.boards.len())
            .filter(|&i| selection.board(&s.boards[i]))
            .map(|i| {
                let st = s.states[i].as_ref();
                let field = |k: &str| st.and_then(|v| v[k].as_u64());
                (field("round"), field("number"), s.boards[i].as_str())
            })
            .collect();
        let key = |x: &(Option<u64>, Option<u64>, &str)| {
            (
                x.0.unwrap_or(u64::MAX),
                x.1.unwrap_or(u64::MAX),
                natural(x.2),
            )
        };
        list.sort_by_cached_key(key);
        let out: Vec<serde_json::Value> = list
            .into_iter()
            .map(|(round, number, board)| {
                serde_json::json!({ "board": board, "round": round, "number": number })
            })
            .collect();
        serde_json::Value::Array(out).to_string()
    }

    /// The feed of board `index`.
    pub fn feed(self: &Arc<Self>, index: usize) -> BoardFeed {
        let id = Arc::from(self.lock().boards[index].as_str());
        BoardFeed {
            fanout: Arc::clone(self),
            index,
            id,
        }
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, Snapshot> {
        self.snapshot.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn send(&self, name: &'static str, data: String, board: Option<Arc<str>>, alert: bool) {
        // No receiver is not an error: nobody is watching.
        let _ = self.tx.send(Message {
            name,
            data: data.into(),
            board,
            alert,
        });
    }
}

/// A snapshot of some boards, borrowed from the whole one.
#[derive(Serialize)]
struct SnapshotView<'a> {
    boards: Vec<&'a String>,
    states: Vec<&'a Option<serde_json::Value>>,
    clocks: Vec<&'a Option<serde_json::Value>>,
    alerts: Vec<&'a serde_json::Value>,
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    bridges: &'a std::collections::BTreeMap<String, String>,
}

/// A sort key reading the runs of digits in `id` as numbers (`2` before
/// `10`, `hall-a-9` before `hall-a-10`).
fn natural(id: &str) -> Vec<(u8, u64, String)> {
    let mut out = Vec::new();
    let mut rest = id;
    while !rest.is_empty() {
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 {
            let (d, r) = rest.split_at(digits);
            out.push((0, d.parse().unwrap_or(u64::MAX), String::new()));
            rest = r;
        } else {
            let text = rest.len() - rest.trim_start_matches(|c: char| !c.is_ascii_digit()).len();
            let (t, r) = rest.split_at(text);
            out.push((1, 0, t.to_string()));
            rest = r;
        }
    }
    out
}

/// One board's way into the [`FanOut`]. Never blocks.
#[derive(Clone, Debug)]
pub struct BoardFeed {
    fanout: Arc<FanOut>,
    index: usize,
    /// The board's id, named in every message for the streams' filters.
    id: Arc<str>,
}

impl BoardFeed {
    /// The board's state changed (`json`: the retained state message).
    pub fn state(&self, json: &str) {
        if let Ok(v) = serde_json::from_str(json) {
            self.fanout.lock().states[self.index] = Some(v);
        }
        self.fanout
            .send("state", json.to_string(), Some(Arc::clone(&self.id)), false);
    }

    /// The board published an event (dropped if its fan-out refuses
    /// alerts and it is one).
    pub fn event(&self, event: &Event) {
        if !self.fanout.passes(&event.kind) {
            return;
        }
        let json = event.to_json();
        match &event.kind {
            EventKind::Clock { .. } => {
                self.fanout.lock().clocks[self.index] = serde_json::from_str(&json).ok();
            }
            EventKind::Alert(_) => {
                let mut s = self.fanout.lock();
                if s.alerts.len() >= ALERTS_KEPT {
                    s.alerts.pop_front();
                }
                if let Ok(v) = serde_json::from_str(&json) {
                    s.alerts.push_back(v);
                }
            }
            EventKind::GameStart { .. } => self.fanout.lock().clocks[self.index] = None,
            _ => {}
        }
        let alert = !crate::delay::config::is_public(&event.kind, false);
        self.fanout
            .send("event", json, Some(Arc::clone(&self.id)), alert);
    }
}

impl crate::session::BoardSink for BoardFeed {
    fn event(&self, event: &Event) -> bool {
        BoardFeed::event(self, event);
        true
    }

    fn state(&self, state: &str, _record: &str, redraw: bool) {
        if redraw {
            BoardFeed::state(self, state);
        }
    }

    fn reading(&self, t_ms: crate::event::Millis, placement: &str) {
        let id = {
            let mut s = self.fanout.lock();
            s.kept[self.index].reading(t_ms, placement);
            s.boards[self.index].clone()
        };
        // Every piece lifted or set down, for the desk's "Identify" (only
        // the arbiters' fan-out is handed readings).
        let json = serde_json::json!({ "board": id, "t_ms": t_ms, "placement": placement });
        self.fanout.send(
            "placement",
            json.to_string(),
            Some(Arc::clone(&self.id)),
            false,
        );
    }

    fn report(&self, json: &str) {
        self.fanout.lock().kept[self.index].report = Some(json.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::web::tests::alert;

    #[test]
    fn the_snapshot_keeps_states_and_the_latest_alerts() {
        let fanout = FanOut::new(&["1".into(), "2".into()]);
        let feed = fanout.feed(1);
        feed.state(r#"{"board":"2","fen":"x"}"#);
        for n in 0..(ALERTS_KEPT as u64 + 5) {
            feed.event(&alert("2", n));
        }
        let s: serde_json::Value = serde_json::from_str(&fanout.snapshot_json()).unwrap();
        assert_eq!(s["states"][0], serde_json::Value::Null);
        assert_eq!(s["states"][1]["fen"], "x");
        let alerts = s["alerts"].as_array().unwrap();
        assert_eq!(alerts.len(), ALERTS_KEPT);
        assert_eq!(alerts[0]["message"], "alert 5");
    }

    #[test]
    fn a_board_never_waits_for_a_browser_that_does_not_read() {
        let fanout = FanOut::new(&["1".into()]);
        let mut rx = fanout.tx.subscribe();
        let feed = fanout.feed(0);
        // Far more than the channel holds: every send returns at once.
        for n in 0..(CHANNEL as u64 * 2) {
            feed.event(&alert("1", n));
        }
        assert!(matches!(
            rx.try_recv(),
            Err(broadcast::error::TryRecvError::Lagged(_))
        ));
    }
}
