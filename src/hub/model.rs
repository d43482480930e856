//! The hub's pure core: what every bridge published, folded into one view
//! of the event. Messages go in with the hub's wall time; what the page and
//! the PGN folder must show comes out as [`Output`]s. No I/O, no clock.
//!
//! Sources, all under the prefix, all published by the bridges themselves:
//!
//! - `bridge/{name}/status`: `online` / `offline` (retained, the last will).
//! - `bridge/{name}/instance`: a new process id means its `seq` restarts.
//! - `arbiter/board/{id}/event`: every event, live, numbered by `seq`.
//! - `arbiter/board/{id}/state`: the retained live state, which names its
//!   bridge (`bridge`), round, board number and players.
//!
//! Design: the game record of each board is folded from its events (so
//! clock times and move times reach the PGN exactly as the bridge wrote
//! them), repeats are dropped by `seq`, and the retained state is the
//! check: when it disagrees with the folded game (the hub started late,
//! or events were dropped from a bridge's full queue), the game is taken
//! from the state instead.
//!
//! Every message is checked where it enters ([`HubModel::on_message`]):
//! its size, the ids in its topic, and its fields with the config's limits
//! ([`crate::games::position::check_incoming_state`],
//! [`crate::games::position::check_incoming_event`]: rounds, board
//! numbers, names, move text, results, and positions read by their game's
//! parser). A message that fails is
//! dropped and logged (a few lines per window), never fatal; at most
//! [`MAX_BOARDS`] boards and [`MAX_BRIDGES`] bridges are kept.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::agree::{catch_up, game_of, reconcile, state_keys};
use crate::delay::PublicView;
use crate::event::{Event, EventKind, GameId};
use crate::sink::record::{GameLog, GameRecord};
use crate::tournament::Player;

/// The most boards the hub follows; a message about one more is dropped.
pub const MAX_BOARDS: usize = 4_096;
/// The most bridges the hub follows; a message about one more is dropped.
pub const MAX_BRIDGES: usize = 512;

/// What the hub must show after a message or a tick.
#[derive(Clone, Debug, PartialEq)]
pub enum Output {
    /// A board seen for the first time (add it to the page).
    NewBoard(String),
    /// A bridge's status changed (`online` / `offline`).
    Bridge {
        /// The bridge name.
        name: String,
        /// `online` or `offline`.
        status: String,
    },
    /// A board's state for the arbiters' (live) view, as JSON.
    ArbiterState(String, String),
    /// An event for the arbiters' view.
    ArbiterEvent(Event),
    /// A board's state for the public view, as JSON.
    PublicState(String, String),
    /// An event for the public view.
    PublicEvent(Event),
    /// A board's public game for the PGN folder.
    Folder {
        /// The board's id.
        board: String,
        /// Round of the game.
        round: u32,
        /// Board number in the round.
        number: u32,
        /// White, when known.
        white: Option<Player>,
        /// Black, when known.
        black: Option<Player>,
        /// The game.
        record: Box<GameRecord>,
    },
    /// A board's live game, for the operator's desk (its results and
    /// round PGN never wait for the delay).
    LiveGame {
        /// The board's id.
        board: String,
        /// Round of the game.
        round: u32,
        /// Board number in the round.
        number: u32,
        /// The game.
        record: Box<GameRecord>,
    },
}

/// How recently two bridges must both have published a board for its id
/// to count as shared (bridges publish a board's state at least every
/// few seconds while it is up).
pub const SHARED_ID_MS: u64 = 120_000;

#[derive(Debug, Default)]
struct BridgeView {
    status: Option<String>,
    instance: Option<String>,
}

#[derive(Debug)]
struct BoardView {
    bridge: Option<String>,
    /// Every bridge that published a state of this board, with when (wall
    /// ms): two within [`SHARED_ID_MS`] publish the same board id.
    heard_from: BTreeMap<String, u64>,
    /// The latest live state, as published.
    state: Option<Value>,
    log: GameLog,
    last_seq: u64,
    /// `t_ms` of the latest state folded in: a game start older than it
    /// is already in the game (it came late, after a failover).
    state_t: u64,
    /// With a delay: the public's view of the game.
    public: Option<PublicView>,
}

/// Every board of every bridge, as the hub knows them.
#[derive(Debug)]
pub struct HubModel {
    prefix: String,
    delay_ms: u64,
    /// Where each board's delayed view keeps its journal, if anywhere.
    journals: Option<std::path::PathBuf>,
    /// Whether alerts and decisions reach the public view.
    public_alerts: bool,
    bridges: BTreeMap<String, BridgeView>,
    boards: BTreeMap<String, BoardView>,
    /// The rate limit of the log of dropped messages.
    drops: crate::text::Drops,
}

impl HubModel {
    /// A hub for the topics under `prefix`, the public `delay_ms` behind.
    pub fn new(prefix: &str, delay_ms: u64) -> HubModel {
        HubModel {
            prefix: prefix.trim_end_matches('/').to_string(),
            delay_ms,
            journals: None,
            public_alerts: false,
            bridges: BTreeMap::new(),
            boards: BTreeMap::new(),
            drops: crate::text::Drops::default(),
        }
    }

    /// Keeps each board's delayed public view in a journal in `dir`
    /// (`{board}.public.jsonl`, [`crate::delay::journal`]), so that a hub
    /// restarted mid-game shows the public the games as they were shown,
    /// and nothing early. The journal is the only file the model touches.
    pub fn with_journals(mut self, dir: Option<std::path::PathBuf>) -> HubModel {
        self.journals = dir;
        self
    }

    /// Lets alerts and the arbiters' decisions reach the public view
    /// (`[broadcast] public_alerts`); by default only the arbiters' has
    /// them.
    pub fn with_public_alerts(mut self, on: bool) -> HubModel {
        self.public_alerts = on;
        self
    }

    /// The delayed view of board `id`, taken up from its journal.
    fn public_view(&self, id: &str) -> PublicView {
        let Some(dir) = &self.journals else {
            return PublicView::new(self.delay_ms, 0).with_public_alerts(self.public_alerts);
        };
        let path = dir.join(format!("{id}.public.jsonl"));
        PublicView::with_journal(self.delay_ms, 0, &path)
            .unwrap_or_else(|e| {
                tracing::warn!(board = id, error = %e, "hub: the delayed view's journal cannot be used; a restart will lose what waits");
                PublicView::new(self.delay_ms, 0)
            })
            .with_public_alerts(self.public_alerts)
    }

    /// The topic filters to subscribe to.
    pub fn filters(&self) -> Vec<String> {
        let p = &self.prefix;
        vec![
            format!("{p}/bridge/+/status"),
            format!("{p}/bridge/+/instance"),
            format!("{p}/arbiter/board/+/state"),
            format!("{p}/arbiter/board/+/event"),
        ]
    }

    /// The bridges and their status (`None` before any was seen).
    pub fn bridges(&self) -> Vec<(String, Option<String>)> {
        self.bridges
            .iter()
            .map(|(n, b)| (n.clone(), b.status.clone()))
            .collect()
    }

    /// Board ids in round and board-number order (then by id).
    pub fn boards(&self) -> Vec<String> {
        let mut ids: Vec<(u32, u32, &String)> = self
            .boards
            .iter()
            .map(|(id, b)| {
                let n = |k: &str| {
                    b.state
                        .as_ref()
                        .and_then(|s| s[k].as_u64())
                        .map_or(u32::MAX, |v| v as u32)
                };
                (n("round"), n("number"), id)
            })
            .collect();
        ids.sort();
        ids.into_iter().map(|(_, _, id)| id.clone()).collect()
    }

    /// The game a board's folder entry would hold now (the public one).
    pub fn record(&self, board: &str) -> Option<&GameRecord> {
        let b = self.boards.get(board)?;
        match &b.public {
            Some(p) => p.log().current(),
            None => b.log.current(),
        }
    }

    /// The bridges that published board `id` within [`SHARED_ID_MS`] of
    /// `now_ms`, when more than one did: both would obey a command sent
    /// to it.
    pub fn shared_id(&self, id: &str, now_ms: u64) -> Option<Vec<String>> {
        let heard: Vec<String> = self
            .boards
            .get(id)?
            .heard_from
            .iter()
            .filter(|(_, t)| now_ms.saturating_sub(**t) < SHARED_ID_MS)
            .map(|(b, _)| b.clone())
            .collect();
        (heard.len() > 1).then_some(heard)
    }

    /// One message from the broker, received at `now_ms` (wall time).
    pub fn on_message(&mut self, topic: &str, payload: &[u8], now_ms: u64) -> Vec<Output> {
        let Some(rest) = topic
            .strip_prefix(&self.prefix)
            .and_then(|t| t.strip_prefix('/'))
        else {
            return Vec::new();
        };
        let parts: Vec<&str> = rest.split('/').collect();
        if let Err(why) = self.admit(&parts, payload) {
            return self.dropped(topic, &why, now_ms);
        }
        let result = match parts.as_slice() {
            ["bridge", name, "status"] => Ok(self.on_status(name, payload)),
            ["bridge", name, "instance"] => Ok(self.on_instance(name, payload)),
            ["arbiter", "board", id, kind @ ("state" | "event")] => {
                let read = if *kind == "state" {
                    self.on_state(id, payload, now_ms)
                } else {
                    self.on_event(id, payload, now_ms)
                };
                read.map(|mut out| {
                    out.extend(self.live_game(id));
                    out
                })
            }
            _ => Ok(Vec::new()),
        };
        result.unwrap_or_else(|why| self.dropped(topic, &why, now_ms))
    }

    /// The checks before a message is read: its size, the id in its topic,
    /// room for a new board or bridge.
    fn admit(&self, parts: &[&str], payload: &[u8]) -> Result<(), String> {
        if payload.len() > crate::text::MAX_MESSAGE {
            return Err(format!(
                "{} bytes, at most {}",
                payload.len(),
                crate::text::MAX_MESSAGE
            ));
        }
        match parts {
            ["bridge", name, _] => {
                crate::text::check_id("bridge", name)?;
                self.room_for_bridge(name)
            }
            ["arbiter", "board", id, _] => {
                crate::text::check_id("board", id)?;
                if !self.boards.contains_key(*id) && self.boards.len() >= MAX_BOARDS {
                    return Err(format!("more than {MAX_BOARDS} boards"));
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn room_for_bridge(&self, name: &str) -> Result<(), String> {
        if !self.bridges.contains_key(name) && self.bridges.len() >= MAX_BRIDGES {
            return Err(format!("more than {MAX_BRIDGES} bridges"));
        }
        Ok(())
    }

    /// A message that failed a check: logged (rate limited), dropped.
    fn dropped(&mut self, topic: &str, why: &str, now_ms: u64) -> Vec<Output> {
        if let Some(suppressed) = self.drops.note(now_ms) {
            let topic: String = topic.chars().take(200).collect();
            tracing::warn!(topic = ?topic, suppressed, "hub: dropped a message: {why}");
        }
        Vec::new()
    }

    /// Events whose public delay has passed by `now_ms`.
    pub fn tick(&mut self, now_ms: u64) -> Vec<Output> {
        let mut out = Vec::new();
        let ids: Vec<String> = self.boards.keys().cloned().collect();
        for id in ids {
            let delay = self.delay_ms;
            let released = match self.boards.get_mut(&id).and_then(|b| b.public.as_mut()) {
                Some(p) => {
                    let released = p.release(now_ms);
                    let started = released
                        .iter()
                        .any(|e| matches!(e.kind, EventKind::GameStart { .. }));
                    if started && let Some(g) = p.log_mut().current_mut() {
                        // The day the game started, as the live view has it.
                        let at = now_ms.saturating_sub(delay);
                        g.date = Some(crate::wall::pgn_date_at(at));
                    }
                    released
                }
                None => continue,
            };
            if released.is_empty() {
                continue;
            }
            out.extend(released.into_iter().map(Output::PublicEvent));
            out.push(Output::PublicState(id.clone(), self.public_state(&id)));
            out.extend(self.folder(&id));
        }
        out
    }

    /// When the next public event is due (wall ms), if any waits.
    pub fn next_due(&self) -> Option<u64> {
        self.boards
            .values()
            .filter_map(|b| b.public.as_ref()?.poll_timeout())
            .min()
    }

    fn board(&mut self, id: &str, out: &mut Vec<Output>) -> &mut BoardView {
        if !self.boards.contains_key(id) {
            out.push(Output::NewBoard(id.to_string()));
            let public = (self.delay_ms > 0).then(|| self.public_view(id));
            // After a restart the live game is, until a state says more,
            // what the public will have seen once everything waiting is
            // out: a state that shows more brings the rest into the line.
            let log = public
                .as_ref()
                .map(|p| p.ahead().clone())
                .unwrap_or_default();
            self.boards.insert(
                id.to_string(),
                BoardView {
                    bridge: None,
                    heard_from: BTreeMap::new(),
                    state: None,
                    log,
                    last_seq: 0,
                    state_t: 0,
                    public,
                },
            );
        }
        self.boards.get_mut(id).expect("just inserted")
    }

    fn on_status(&mut self, name: &str, payload: &[u8]) -> Vec<Output> {
        let status = String::from_utf8_lossy(payload).trim().to_string();
        if status != "online" && status != "offline" {
            return Vec::new();
        }
        let b = self.bridges.entry(name.to_string()).or_default();
        if b.status.as_deref() == Some(status.as_str()) {
            return Vec::new();
        }
        tracing::info!(bridge = name, %status, "bridge status");
        if status == "offline" {
            // A bridge gone obeys no command: its boards' ids are free.
            for board in self.boards.values_mut() {
                board.heard_from.remove(name);
            }
        }
        let b = self.bridges.entry(name.to_string()).or_default();
        b.status = Some(status.clone());
        let mut out = vec![Output::Bridge {
            name: name.to_string(),
            status,
        }];
        // Its boards' cards change with it.
        let ids: Vec<String> = self
            .boards
            .iter()
            .filter(|(_, b)| b.bridge.as_deref() == Some(name))
            .map(|(id, _)| id.clone())
            .collect();
        for id in ids {
            out.extend(self.states(&id));
        }
        out
    }

    fn on_instance(&mut self, name: &str, payload: &[u8]) -> Vec<Output> {
        let Ok(v) = serde_json::from_slice::<Value>(payload) else {
            return Vec::new();
        };
        let Some(instance) = v["instance"].as_str() else {
            return Vec::new();
        };
        if crate::text::check_id("instance", instance).is_err() {
            return Vec::new();
        }
        let b = self.bridges.entry(name.to_string()).or_default();
        let restarted = b.instance.as_deref().is_some_and(|i| i != instance);
        b.instance = Some(instance.to_string());
        if restarted {
            // A new process: its boards count `seq` from 1 again.
            tracing::info!(bridge = name, instance, "bridge restarted");
            for board in self.boards.values_mut() {
                if board.bridge.as_deref() == Some(name) {
                    board.last_seq = 0;
                    board.state_t = 0;
                }
            }
        }
        Vec::new()
    }

    fn on_state(&mut self, id: &str, payload: &[u8], now_ms: u64) -> Result<Vec<Output>, String> {
        let state = serde_json::from_slice::<Value>(payload).map_err(|e| e.to_string())?;
        crate::games::position::check_incoming_state(&state)?;
        if let Some(bridge) = state["bridge"].as_str() {
            self.room_for_bridge(bridge)?;
        }
        let mut out = Vec::new();
        let board = self.board(id, &mut out);
        let first = board.state.is_none();
        board.bridge = state["bridge"].as_str().map(str::to_string);
        if let Some(bridge) = &board.bridge {
            board
                .heard_from
                .retain(|_, t| now_ms.saturating_sub(*t) < SHARED_ID_MS);
            let new = board.heard_from.insert(bridge.clone(), now_ms).is_none();
            if new && board.heard_from.len() > 1 {
                let names: Vec<&String> = board.heard_from.keys().collect();
                tracing::warn!(board = id, bridges = ?names, "hub: two bridges publish the same board id; each obeys its commands, so the desk sends it none until one is renamed");
            }
        }
        if let Some(t) = state["t_ms"].as_u64() {
            board.state_t = t;
        }
        reconcile(&mut board.log, &state, now_ms);
        if let Some(public) = &mut board.public {
            // Moves the events did not bring (missed, or made while the hub
            // was away) reach the public a whole delay from now.
            let events = catch_up(id, public.ahead().current(), board.log.current());
            for e in events {
                let _ = public.push(now_ms, &e);
            }
        }
        board.state = Some(state);
        if let Some(bridge) = board.bridge.clone() {
            self.bridges.entry(bridge).or_default();
        }
        let states = self.states(id);
        if self.delay_ms == 0 || first {
            out.extend(states);
            out.extend(self.folder(id));
        } else {
            // Design: a live change never republishes the public state:
            // its arrival would tell the hall that something just happened.
            out.extend(
                states
                    .into_iter()
                    .filter(|o| matches!(o, Output::ArbiterState(..))),
            );
        }
        Ok(out)
    }

    fn on_event(&mut self, id: &str, payload: &[u8], now_ms: u64) -> Result<Vec<Output>, String> {
        let value = serde_json::from_slice::<Value>(payload).map_err(|e| e.to_string())?;
        let seq = value["seq"].as_u64();
        let Some(mut event) = crate::games::position::check_incoming_event(&value)? else {
            return Ok(Vec::new());
        };
        event.board = id.to_string();
        let mut out = Vec::new();
        let delayed = self.delay_ms > 0;
        let public = crate::delay::config::is_public(&event.kind, self.public_alerts);
        let board = self.board(id, &mut out);
        if let Some(seq) = seq {
            if seq <= board.last_seq {
                // A repeat (at-least-once delivery) or a stale one.
                return Ok(out);
            }
            board.last_seq = seq;
        }
        // Late (redelivered after a failover, or missed and found again):
        // the game taken from a newer state already holds it, and folding
        // it would cut the moves after it.
        let stale = match &event.kind {
            EventKind::Move { ply, id: uci, .. } => board.log.current().is_some_and(|g| {
                let i = (*ply as usize).saturating_sub(1);
                *ply >= 1 && g.ucis.len() > *ply as usize && g.ucis[i] == *uci
            }),
            EventKind::GameStart { position: fen, .. } => {
                event.t_ms < board.state_t
                    && board
                        .log
                        .current()
                        .is_some_and(|g| g.start_fen == *fen && g.result.is_none())
            }
            _ => false,
        };
        if stale {
            tracing::debug!(
                board = id,
                t_ms = event.t_ms,
                "late event: the state has it"
            );
            return Ok(out);
        }
        if matches!(event.kind, EventKind::GameStart { .. }) {
            board.log.handle(&event);
            if let Some(g) = board.log.current_mut() {
                g.date = Some(crate::wall::pgn_date_at(now_ms));
            }
        } else {
            board.log.handle(&event);
        }
        out.push(Output::ArbiterEvent(event.clone()));
        if let Some(public) = &mut board.public {
            let _ = public.push(now_ms, &event);
        } else if !delayed && public {
            out.push(Output::PublicEvent(event));
        }
        Ok(out)
    }

    /// The states of a board for both views.
    fn states(&self, id: &str) -> Vec<Output> {
        let Some(b) = self.boards.get(id) else {
            return Vec::new();
        };
        let Some(state) = &b.state else {
            return Vec::new();
        };
        let marked = self.marked(b, state.clone());
        let live = marked.to_string();
        let public = if self.delay_ms == 0 && self.public_alerts {
            live.clone()
        } else if self.delay_ms == 0 {
            // The flag an error alert sets is the arbiters' business too.
            let mut public = marked;
            if public.get("irregular").is_some() {
                public["irregular"] = Value::Bool(false);
            }
            public.to_string()
        } else {
            self.public_state(id)
        };
        vec![
            Output::ArbiterState(id.to_string(), live),
            Output::PublicState(id.to_string(), public),
        ]
    }

    /// `state` with its bridge's status; a board of an offline bridge is
    /// shown offline.
    fn marked(&self, b: &BoardView, mut state: Value) -> Value {
        let status = b
            .bridge
            .as_ref()
            .and_then(|n| self.bridges.get(n))
            .and_then(|v| v.status.clone());
        if let Some(status) = status {
            if status == "offline" {
                state["status"] = json!("offline");
            }
            state["bridge_status"] = json!(status);
        }
        state
    }

    /// The public state of a delayed board: the public game with the live
    /// state's board facts (never its placement or alerts).
    fn public_state(&self, id: &str) -> String {
        let Some(b) = self.boards.get(id) else {
            return String::new();
        };
        let live = b.state.clone().unwrap_or_else(|| json!({}));
        let games = b.public.as_ref().map_or(0, |p| p.log().games().len());
        let g = b.public.as_ref().and_then(|p| p.log().current());
        let game = game_of(&live);
        let mut s = json!({
            "board": id,
            "status": live["status"],
            "port": live["port"],
            "serial": live["serial"],
            "recognised": g.is_some(),
            "rotated": g.is_some_and(|g| g.rotated),
            "irregular": g.is_some_and(|g| g.is_irregular()),
            "game": games,
            "game_type": game,
            "ply": g.map_or(0, |g| g.sans.len()),
            "result": g.and_then(|g| g.result.clone()),
            "reason": g.and_then(|g| g.reason.clone()),
        });
        // The game's own field names, as the bridge's state has them.
        let (start, now, notation, ids) = state_keys(game);
        s[start] = json!(g.map(|g| g.start_fen.clone()));
        s[now] = json!(g.map(|g| g.fen.clone()));
        s[notation] = json!(g.map(|g| g.sans.clone()).unwrap_or_default());
        s[ids] = json!(g.map(|g| g.ucis.clone()).unwrap_or_default());
        s["last_move"] = json!(g.and_then(|g| {
            let n = g.sans.len();
            (n > 0).then(|| match game {
                GameId::Chess => json!({"ply": n, "san": g.sans[n - 1], "uci": g.ucis[n - 1]}),
                _ => json!({"ply": n, "notation": g.sans[n - 1], "id": g.ucis[n - 1]}),
            })
        }));
        if game == GameId::Chess {
            s["chess960"] = json!(g.is_some_and(|g| g.chess960));
        }
        for k in ["round", "number", "white", "black", "bridge"] {
            if !live[k].is_null() {
                s[k] = live[k].clone();
            }
        }
        self.marked(b, s).to_string()
    }

    /// Board `id`'s live game, where the board's state places it.
    fn live_game(&self, id: &str) -> Option<Output> {
        let b = self.boards.get(id)?;
        let state = b.state.as_ref()?;
        let n = |k: &str| state[k].as_u64().map(|v| v as u32);
        Some(Output::LiveGame {
            board: id.to_string(),
            round: n("round").unwrap_or(1),
            number: n("number").or_else(|| id.parse().ok())?,
            record: Box::new(b.log.current()?.clone()),
        })
    }

    fn folder(&self, id: &str) -> Option<Output> {
        let b = self.boards.get(id)?;
        let state = b.state.as_ref()?;
        let record = Box::new(self.record(id)?.clone());
        let n = |k: &str| state[k].as_u64().map(|v| v as u32);
        let player = |k: &str| serde_json::from_value::<Player>(state[k].clone()).ok();
        Some(Output::Folder {
            board: id.to_string(),
            round: n("round").unwrap_or(1),
            number: n("number").or_else(|| id.parse().ok())?,
            white: player("white"),
            black: player("black"),
            record,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    fn state(bridge: &str, board: &str, number: u32, uci: &[&str], sans: &[&str]) -> Vec<u8> {
        json!({"board": board, "bridge": bridge, "status": "connected", "game": 1,
               "start_fen": START, "fen": START, "moves": sans, "uci": uci,
               "round": 2, "number": number, "white": {"name": "A, B"}, "black": null})
        .to_string()
        .into_bytes()
    }

    fn event(board: &str, seq: u64, kind: EventKind) -> Vec<u8> {
        let mut v: Value = serde_json::from_str(
            &Event {
                board: board.into(),
                t_ms: seq * 100,
                game: crate::event::GameId::Chess,
                kind,
            }
            .to_json(),
        )
        .unwrap();
        v["seq"] = json!(seq);
        v.to_string().into_bytes()
    }

    fn mv(ply: u32, san: &str, uci: &str) -> EventKind {
        EventKind::Move {
            ply,
            side: if ply % 2 == 1 {
                crate::event::Side::White
            } else {
                crate::event::Side::Black
            },
            notation: san.into(),
            id: uci.into(),
            position: format!("4k3/8/8/8/8/8/8/4K3 w - - {ply} 1"),
            irregular: false,
        }
    }

    fn start() -> EventKind {
        EventKind::GameStart {
            position: START.into(),
            chess960: Some(false),
            rotated: false,
        }
    }

    #[test]
    fn events_fold_once_each_and_repeats_are_dropped() {
        let mut m = HubModel::new("p", 0);
        let out = m.on_message("p/arbiter/board/7/event", &event("7", 1, start()), 0);
        assert_eq!(out[0], Output::NewBoard("7".into()));
        m.on_message(
            "p/arbiter/board/7/event",
            &event("7", 2, mv(1, "e4", "e2e4")),
            1,
        );
        // Delivered again after a failover: nothing changes.
        let out = m.on_message(
            "p/arbiter/board/7/event",
            &event("7", 2, mv(1, "e4", "e2e4")),
            2,
        );
        assert!(out.is_empty());
        m.on_message(
            "p/arbiter/board/7/event",
            &event("7", 3, mv(2, "e5", "e7e5")),
            3,
        );
        assert_eq!(m.record("7").unwrap().sans, ["e4", "e5"]);
        assert_eq!(m.boards(), ["7"]);
    }

    #[test]
    fn a_board_id_two_bridges_publish_is_known_as_shared_until_one_goes() {
        let mut m = HubModel::new("p", 0);
        let topic = "p/arbiter/board/3/state";
        m.on_message(topic, &state("hall-a", "3", 3, &[], &[]), 1_000);
        m.on_message(topic, &state("hall-a", "3", 3, &[], &[]), 2_000);
        assert_eq!(m.shared_id("3", 2_000), None, "one bridge, heard twice");
        m.on_message(topic, &state("hall-b", "3", 3, &[], &[]), 3_000);
        assert_eq!(
            m.shared_id("3", 3_000),
            Some(vec!["hall-a".to_string(), "hall-b".to_string()])
        );
        // Long after the last word from hall-a, hall-b has the id alone.
        assert_eq!(m.shared_id("3", 1_000 + 2 * SHARED_ID_MS), None);
        // A bridge that goes offline obeys nothing.
        m.on_message(topic, &state("hall-a", "3", 3, &[], &[]), 4_000);
        assert!(m.shared_id("3", 4_000).is_some());
        m.on_message("p/bridge/hall-a/status", b"online", 4_100);
        m.on_message("p/bridge/hall-a/status", b"offline", 4_200);
        assert_eq!(m.shared_id("3", 4_300), None);
    }

    #[test]
    fn a_late_hub_takes_the_game_from_the_state() {
        let mut m = HubModel::new("p", 0);
        let out = m.on_message(
            "p/arbiter/board/3/state",
            &state("hall-a", "3", 5, &["e2e4", "e7e5"], &["e4", "e5"]),
            0,
        );
        assert_eq!(m.record("3").unwrap().sans, ["e4", "e5"]);
        let folder = out.iter().find_map(|o| match o {
            Output::Folder {
                round,
                number,
                white,
                ..
            } => Some((*round, *number, white.clone().unwrap().name)),
            _ => None,
        });
        assert_eq!(folder, Some((2, 5, "A, B".to_string())));
        // The next move comes as an event and is folded on.
        m.on_message(
            "p/arbiter/board/3/event",
            &event("3", 9, mv(3, "Nf3", "g1f3")),
            1,
        );
        assert_eq!(m.record("3").unwrap().sans, ["e4", "e5", "Nf3"]);
    }

    #[test]
    fn an_offline_bridge_marks_its_boards_offline() {
        let mut m = HubModel::new("p", 0);
        m.on_message("p/bridge/hall-a/status", b"online", 0);
        m.on_message(
            "p/arbiter/board/1/state",
            &state("hall-a", "1", 2, &[], &[]),
            0,
        );
        m.on_message(
            "p/arbiter/board/2/state",
            &state("hall-b", "2", 1, &[], &[]),
            0,
        );
        // Ordered by round, then board number.
        assert_eq!(m.boards(), ["2", "1"]);
        let out = m.on_message("p/bridge/hall-a/status", b"offline", 5);
        assert!(out.contains(&Output::Bridge {
            name: "hall-a".into(),
            status: "offline".into()
        }));
        let marked = out
            .iter()
            .find_map(|o| match o {
                Output::ArbiterState(id, s) if id == "1" => Some(s.clone()),
                _ => None,
            })
            .expect("board 1 redrawn");
        let v: Value = serde_json::from_str(&marked).unwrap();
        assert_eq!(
            (v["status"].as_str(), v["bridge_status"].as_str()),
            (Some("offline"), Some("offline"))
        );
        // Board 2's bridge is not concerned.
        assert!(
            !out.iter()
                .any(|o| matches!(o, Output::ArbiterState(id, _) if id == "2"))
        );
        assert_eq!(
            m.bridges(),
            [
                ("hall-a".to_string(), Some("offline".to_string())),
                ("hall-b".to_string(), None)
            ]
        );
    }

    #[test]
    fn a_late_event_never_cuts_a_game_the_state_has_whole() {
        let mut m = HubModel::new("p", 0);
        let mut s: Value = serde_json::from_slice(&state(
            "a",
            "1",
            1,
            &["e2e4", "e7e5", "g1f3"],
            &["e4", "e5", "Nf3"],
        ))
        .unwrap();
        s["t_ms"] = json!(1_000);
        m.on_message("p/arbiter/board/1/state", s.to_string().as_bytes(), 0);
        // Move 2 comes late: folding it would cut the game.
        m.on_message(
            "p/arbiter/board/1/event",
            &event("1", 2, mv(2, "e5", "e7e5")),
            1,
        );
        assert_eq!(m.record("1").unwrap().sans, ["e4", "e5", "Nf3"]);
    }

    #[test]
    fn a_restarted_bridge_counts_from_one_again() {
        let mut m = HubModel::new("p", 0);
        m.on_message("p/bridge/a/instance", br#"{"instance":"one","pid":1}"#, 0);
        m.on_message("p/arbiter/board/1/state", &state("a", "1", 1, &[], &[]), 0);
        m.on_message("p/arbiter/board/1/event", &event("1", 1, start()), 0);
        m.on_message(
            "p/arbiter/board/1/event",
            &event("1", 2, mv(1, "e4", "e2e4")),
            0,
        );
        m.on_message("p/bridge/a/instance", br#"{"instance":"two","pid":2}"#, 0);
        m.on_message(
            "p/arbiter/board/1/event",
            &event("1", 1, mv(2, "e5", "e7e5")),
            0,
        );
        assert_eq!(m.record("1").unwrap().sans, ["e4", "e5"]);
    }

    /// Issue 58: alerts are the arbiters', on the hub too, unless the
    /// configuration makes them public (then, with a delay, they wait).
    #[test]
    fn alerts_reach_the_public_view_only_when_they_are_public() {
        let alert = || {
            EventKind::Alert(crate::event::Alert {
                kind: crate::event::AlertKind::IllegalMove,
                side: None,
                law: Some("7.5".into()),
                message: "White played 11. Bc1-f6, an illegal move".into(),
                cleared: false,
                evidence: None,
            })
        };
        let public = |out: &[Output]| {
            out.iter()
                .filter(|o| matches!(o, Output::PublicEvent(e) if matches!(e.kind, EventKind::Alert(_))))
                .count()
        };
        let arbiters = |out: &[Output]| {
            out.iter()
                .filter(|o| matches!(o, Output::ArbiterEvent(e) if matches!(e.kind, EventKind::Alert(_))))
                .count()
        };
        for (delay, on) in [(0, false), (0, true), (1_000, false), (1_000, true)] {
            let mut m = HubModel::new("p", delay).with_public_alerts(on);
            m.on_message("p/arbiter/board/1/state", &state("a", "1", 1, &[], &[]), 0);
            m.on_message("p/arbiter/board/1/event", &event("1", 1, start()), 10);
            let mut out = m.on_message("p/arbiter/board/1/event", &event("1", 2, alert()), 20);
            assert_eq!(arbiters(&out), 1, "delay {delay}, public alerts {on}");
            out.extend(m.tick(5_000));
            assert_eq!(
                public(&out),
                usize::from(on),
                "delay {delay}, public alerts {on}"
            );
        }
        // Without a delay and without public alerts, the public state does
        // not carry what an error alert sets in the live one.
        let mut m = HubModel::new("p", 0);
        let mut live: Value = serde_json::from_slice(&state("a", "1", 1, &[], &[])).unwrap();
        live["irregular"] = json!(true);
        let out = m.on_message("p/arbiter/board/1/state", live.to_string().as_bytes(), 0);
        let irregular = |want: fn(&Output) -> Option<&String>| {
            let s: Value = serde_json::from_str(out.iter().find_map(want).unwrap()).unwrap();
            s["irregular"].clone()
        };
        assert_eq!(
            irregular(|o| match o {
                Output::ArbiterState(_, s) => Some(s),
                _ => None,
            }),
            true
        );
        assert_eq!(
            irregular(|o| match o {
                Output::PublicState(_, s) => Some(s),
                _ => None,
            }),
            false
        );
    }

    #[test]
    fn with_a_delay_the_public_sees_the_game_later_and_no_alert() {
        let mut m = HubModel::new("p", 1_000);
        m.on_message("p/arbiter/board/1/state", &state("a", "1", 1, &[], &[]), 0);
        let out = m.on_message("p/arbiter/board/1/event", &event("1", 1, start()), 10);
        assert!(!out.iter().any(|o| matches!(o, Output::PublicEvent(_))));
        m.on_message(
            "p/arbiter/board/1/event",
            &event("1", 2, mv(1, "e4", "e2e4")),
            20,
        );
        let alert = EventKind::Alert(crate::event::Alert {
            kind: crate::event::AlertKind::Misplaced,
            side: None,
            law: None,
            message: "x".into(),
            cleared: false,
            evidence: None,
        });
        m.on_message("p/arbiter/board/1/event", &event("1", 3, alert), 30);
        assert_eq!(m.next_due(), Some(1_010));
        assert!(m.tick(1_009).is_empty());
        let out = m.tick(1_030);
        let public: Vec<_> = out
            .iter()
            .filter(|o| matches!(o, Output::PublicEvent(_)))
            .collect();
        assert_eq!(public.len(), 2, "{out:?}");
        assert_eq!(m.record("1").unwrap().sans, ["e4"]);
        assert!(m.record("1").unwrap().date.is_some(), "dated as it started");
        assert!(out.iter().any(|o| matches!(o, Output::Folder { .. })));
    }

    #[test]
    fn a_restarted_hub_takes_its_delayed_view_up_from_the_journal() {
        let dir = tempfile::tempdir().unwrap();
        let journals = Some(dir.path().to_path_buf());
        let mut m = HubModel::new("p", 1_000).with_journals(journals.clone());
        m.on_message("p/arbiter/board/1/event", &event("1", 1, start()), 0);
        let e4 = mv(1, "e4", "e2e4");
        m.on_message("p/arbiter/board/1/event", &event("1", 2, e4), 10);
        let e5 = mv(2, "e5", "e7e5");
        m.on_message("p/arbiter/board/1/event", &event("1", 3, e5), 500);
        m.tick(1_100);
        assert_eq!(m.record("1").unwrap().sans, ["e4"]);
        drop(m);
        // Restarted; the bridge's retained state has a move made meanwhile.
        let mut m = HubModel::new("p", 1_000).with_journals(journals);
        let now = 2_000;
        let state = state("a", "1", 1, &["e2e4", "e7e5", "g1f3"], &["e4", "e5", "Nf3"]);
        let out = m.on_message("p/arbiter/board/1/state", &state, now);
        let public: Vec<Value> = out
            .iter()
            .filter_map(|o| match o {
                Output::PublicState(_, s) => serde_json::from_str(s).ok(),
                _ => None,
            })
            .collect();
        assert_eq!(public.len(), 1, "{out:?}");
        assert_eq!(public[0]["moves"], json!(["e4"]), "as far as it was shown");
        assert_eq!(m.record("1").unwrap().sans, ["e4"]);
        // What waited comes out at its time; the move made while the hub
        // was away a whole delay after the restart.
        assert_eq!(m.next_due(), Some(1_500));
        m.tick(1_500);
        assert_eq!(m.record("1").unwrap().sans, ["e4", "e5"]);
        assert!(m.tick(now + 999).is_empty());
        let out = m.tick(now + 1_000);
        assert!(out.iter().any(|o| matches!(o, Output::Folder { .. })));
        assert_eq!(m.record("1").unwrap().sans, ["e4", "e5", "Nf3"]);
    }

    #[test]
    fn draughts_and_xiangqi_boards_fold_into_their_own_records_and_public_states() {
        use crate::event::{GameId, Side};
        let dstart = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12";
        let dstate = json!({"board": "4", "bridge": "hall-a", "status": "connected", "game": 1,
            "game_type": "draughts", "start_position": dstart, "position": dstart,
            "notation": ["11-15"], "id": ["11-15"], "round": 1, "number": 4});
        let mut m = HubModel::new("p", 0);
        let out = m.on_message("p/arbiter/board/4/state", dstate.to_string().as_bytes(), 0);
        let record = m.record("4").expect("the draughts game from the state");
        assert_eq!(
            (record.game, record.sans.clone()),
            (GameId::Draughts, vec!["11-15".to_string()])
        );
        let folder = out.iter().find_map(|o| match o {
            Output::Folder { record, .. } => {
                Some(crate::sink::pgn::render(record, &Default::default()))
            }
            _ => None,
        });
        let pdn = folder.expect("a folder record");
        assert!(
            pdn.starts_with("[GameType \"21\"]") && pdn.contains("1. 11-15"),
            "{pdn}"
        );
        // The reply comes as an event and is folded on.
        let reply = Event {
            board: "4".into(),
            t_ms: 900,
            game: GameId::Draughts,
            kind: EventKind::Move {
                ply: 2,
                side: Side::White,
                notation: "23-19".into(),
                id: "23-19".into(),
                position: "B:W19,21,22,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,12,15"
                    .into(),
                irregular: false,
            },
        };
        let mut v: Value = serde_json::from_str(&reply.to_json()).unwrap();
        v["seq"] = json!(5);
        m.on_message("p/arbiter/board/4/event", v.to_string().as_bytes(), 1);
        assert_eq!(m.record("4").unwrap().sans, ["11-15", "23-19"]);

        // A delayed hub's public state of a xiangqi board names the
        // game's fields, never the chess ones.
        let xstart = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";
        let xstate = json!({"board": "5", "bridge": "hall-a", "status": "connected", "game": 1,
            "game_type": "xiangqi", "start_position": xstart, "position": xstart,
            "notation": ["C2.5"], "id": ["h2e2"], "round": 1, "number": 5});
        let mut m = HubModel::new("p", 60_000);
        let out = m.on_message("p/arbiter/board/5/state", xstate.to_string().as_bytes(), 0);
        let public = out
            .iter()
            .find_map(|o| match o {
                Output::PublicState(_, s) => Some(serde_json::from_str::<Value>(s).unwrap()),
                _ => None,
            })
            .expect("a public state");
        assert_eq!(public["game_type"], "xiangqi", "{public}");
        assert!(
            public.get("start_position").is_some() && public.get("notation").is_some(),
            "{public}"
        );
        assert!(
            public.get("fen").is_none() && public.get("moves").is_none(),
            "{public}"
        );
    }

    #[test]
    fn a_forged_position_never_reaches_the_views_and_the_last_good_state_stays() {
        let dstart = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12";
        let good = json!({"board": "4", "bridge": "hall-a", "status": "connected", "game": 1,
            "game_type": "draughts", "start_position": dstart, "position": dstart,
            "notation": [], "id": [], "round": 1, "number": 4});
        let mut m = HubModel::new("p", 0);
        assert!(
            !m.on_message("p/arbiter/board/4/state", good.to_string().as_bytes(), 0)
                .is_empty()
        );
        let mut forged = good.clone();
        forged["position"] = json!("W:W1-Infinity:B2");
        let out = m.on_message("p/arbiter/board/4/state", forged.to_string().as_bytes(), 1);
        assert!(out.is_empty(), "a forged state went out: {out:?}");
        assert_eq!(m.boards["4"].state.as_ref().unwrap()["position"], dstart);
        let event = json!({"board": "4", "t_ms": 5, "game": "draughts", "type": "move",
            "ply": 1, "side": "black", "notation": "11-15", "id": "11-15",
            "position": "W:W1-Infinity:B2", "seq": 1});
        let out = m.on_message("p/arbiter/board/4/event", event.to_string().as_bytes(), 2);
        assert!(out.is_empty(), "a forged event went out: {out:?}");
        assert!(m.record("4").unwrap().sans.is_empty());
    }
}
