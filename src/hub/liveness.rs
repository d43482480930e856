//! Which bridges the hub still hears from. Pure: messages and wall time
//! in, changes out.
//!
//! A bridge's last will (`offline` on its status topic) is published by
//! the broker node that held its connection. When that node dies with the
//! bridge (one hall's machines on one power strip, a network cut around
//! both), no node ever publishes it, and the retained `online` stays on
//! the cluster for good. So bridges publish a heartbeat
//! (`{prefix}/bridge/{name}/heartbeat`, QoS 0, retained, every
//! `[mqtt] heartbeat_s`), and the hub takes a bridge whose heartbeats stop
//! for `[hub] silence_s` (at least three of its intervals) for offline,
//! until it is heard again.
//!
//! Design: only bridges that heartbeat are judged (a bridge of an older
//! version, which never published one, is left as its status says). The
//! heartbeat is retained so that a hub started after a bridge went silent
//! still knows that bridge heartbeats, and gives it one silence from its
//! own start. A retained message is no sign of life: only live ones are.

use std::collections::BTreeMap;

use serde_json::Value;

/// Heartbeat intervals a bridge may announce (ms); outside, the default.
const INTERVALS: std::ops::RangeInclusive<u64> = 100..=3_600_000;
/// The interval assumed when a heartbeat names none (ms).
const DEFAULT_INTERVAL_MS: u64 = 5_000;
/// A bridge is judged silent after this many of its intervals at least.
const INTERVALS_OF_SILENCE: u64 = 3;

/// A bridge's liveness changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// Nothing heard from the bridge for `silent_ms`: show it offline.
    Silent {
        /// The bridge.
        name: String,
        /// How long it has been silent.
        silent_ms: u64,
    },
    /// A silent bridge was heard again: show it online.
    Heard {
        /// The bridge.
        name: String,
    },
}

/// What the hub knows of one heartbeating bridge.
#[derive(Debug)]
struct Track {
    /// Its heartbeat interval (ms).
    interval_ms: u64,
    /// When it was last heard (hub wall ms), or the hub's own start or
    /// reconnection if later.
    heard: u64,
    /// Judged silent (and shown offline) now.
    silent: bool,
    /// Its own status topic says `offline`: nothing to judge.
    offline: bool,
}

/// The bridges that heartbeat, and how recently each was heard.
#[derive(Debug)]
pub struct Liveness {
    prefix: String,
    silence_ms: u64,
    bridges: BTreeMap<String, Track>,
}

impl Liveness {
    /// Judges bridges under `prefix` silent after `silence_ms` (0: never).
    pub fn new(prefix: &str, silence_ms: u64) -> Liveness {
        Liveness {
            prefix: prefix.trim_end_matches('/').to_string(),
            silence_ms,
            bridges: BTreeMap::new(),
        }
    }

    /// The topic filter of the heartbeats.
    pub fn filter(&self) -> String {
        format!("{}/bridge/+/heartbeat", self.prefix)
    }

    /// A message arrived at `now_ms` (`retained`: the broker's stored copy,
    /// sent at subscription). Returns whether the hub's model should read
    /// it (heartbeats are for this module only, and a retained `online`
    /// of a bridge judged silent says nothing new), and the change it
    /// made.
    pub fn on_message(
        &mut self,
        topic: &str,
        payload: &[u8],
        retained: bool,
        now_ms: u64,
    ) -> (bool, Option<Change>) {
        let Some(name) = self.bridge_of(topic) else {
            return (true, None);
        };
        let kind = topic.rsplit('/').next().unwrap_or("");
        match kind {
            "heartbeat" => (false, self.on_heartbeat(name, payload, retained, now_ms)),
            "status" => self.on_status(name, payload, retained, now_ms),
            "instance" if !retained => (true, self.heard(name, now_ms)),
            _ => (true, None),
        }
    }

    /// The bridge name of a `{prefix}/bridge/{name}/...` topic, checked.
    fn bridge_of<'a>(&self, topic: &'a str) -> Option<&'a str> {
        let rest = topic.strip_prefix(&self.prefix)?.strip_prefix("/bridge/")?;
        let (name, _) = rest.split_once('/')?;
        crate::text::check_id("bridge", name).ok().map(|_| name)
    }

    fn on_heartbeat(
        &mut self,
        name: &str,
        payload: &[u8],
        retained: bool,
        now_ms: u64,
    ) -> Option<Change> {
        if payload.len() > 1024 {
            return None;
        }
        let interval_ms = serde_json::from_slice::<Value>(payload)
            .ok()
            .and_then(|v| v["interval_ms"].as_u64())
            .filter(|i| INTERVALS.contains(i))
            .unwrap_or(DEFAULT_INTERVAL_MS);
        if !self.bridges.contains_key(name) {
            if self.bridges.len() >= super::model::MAX_BRIDGES {
                return None;
            }
            // First known now: one silence from here, live or not.
            self.bridges.insert(
                name.to_string(),
                Track {
                    interval_ms,
                    heard: now_ms,
                    silent: false,
                    offline: false,
                },
            );
        }
        let track = self.bridges.get_mut(name).expect("just checked");
        track.interval_ms = interval_ms;
        if retained {
            return None;
        }
        self.heard(name, now_ms)
    }

    fn on_status(
        &mut self,
        name: &str,
        payload: &[u8],
        retained: bool,
        now_ms: u64,
    ) -> (bool, Option<Change>) {
        let Some(track) = self.bridges.get_mut(name) else {
            return (true, None);
        };
        match payload {
            b"offline" => {
                // Its own word (a clean stop, its will): shown as it is.
                track.offline = true;
                track.silent = false;
                (true, None)
            }
            b"online" if retained => {
                track.offline = false;
                (!track.silent, None)
            }
            b"online" => {
                track.offline = false;
                (true, self.heard(name, now_ms))
            }
            _ => (true, None),
        }
    }

    /// A live message of the bridge `name` at `now_ms`.
    fn heard(&mut self, name: &str, now_ms: u64) -> Option<Change> {
        let track = self.bridges.get_mut(name)?;
        track.heard = track.heard.max(now_ms);
        track.offline = false;
        if track.silent {
            track.silent = false;
            return Some(Change::Heard {
                name: name.to_string(),
            });
        }
        None
    }

    /// The bridges that fell silent by `now_ms`.
    pub fn tick(&mut self, now_ms: u64) -> Vec<Change> {
        let silence = self.silence_ms;
        let mut out = Vec::new();
        for (name, t) in &mut self.bridges {
            if let Some(due) = Self::due(silence, t)
                && now_ms >= due
            {
                t.silent = true;
                out.push(Change::Silent {
                    name: name.clone(),
                    silent_ms: now_ms - t.heard,
                });
            }
        }
        out
    }

    /// When the next bridge falls silent if nothing is heard (wall ms).
    pub fn next_due(&self) -> Option<u64> {
        self.bridges
            .values()
            .filter_map(|t| Self::due(self.silence_ms, t))
            .min()
    }

    /// When `t` falls silent, if it is judged at all.
    fn due(silence_ms: u64, t: &Track) -> Option<u64> {
        if silence_ms == 0 || t.silent || t.offline {
            return None;
        }
        let wait = silence_ms.max(INTERVALS_OF_SILENCE * t.interval_ms);
        Some(t.heard.saturating_add(wait))
    }

    /// The hub's own connection came back at `now_ms`: it heard nothing
    /// while away, so nobody is judged for that time.
    pub fn resume(&mut self, now_ms: u64) {
        for t in self.bridges.values_mut() {
            t.heard = t.heard.max(now_ms);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BEAT: &[u8] = br#"{"instance":"a1","interval_ms":1000,"t":5}"#;

    #[test]
    fn a_bridge_whose_heartbeats_stop_is_silent_until_heard_again() {
        let mut l = Liveness::new("p", 5_000);
        assert_eq!(
            l.on_message("p/bridge/a/status", b"online", true, 0),
            (true, None)
        );
        assert_eq!(
            l.on_message("p/bridge/a/heartbeat", BEAT, false, 0),
            (false, None)
        );
        assert_eq!(
            l.on_message("p/bridge/a/heartbeat", BEAT, false, 1_000).1,
            None
        );
        assert_eq!(l.next_due(), Some(6_000));
        assert!(l.tick(5_999).is_empty());
        assert_eq!(
            l.tick(6_000),
            [Change::Silent {
                name: "a".into(),
                silent_ms: 5_000
            }]
        );
        assert!(l.tick(60_000).is_empty(), "said once");
        assert_eq!(l.next_due(), None);
        // The retained `online`, read again at a reconnection, is no sign
        // of life, and is kept from the model.
        assert_eq!(
            l.on_message("p/bridge/a/status", b"online", true, 61_000),
            (false, None)
        );
        // A live heartbeat is.
        assert_eq!(
            l.on_message("p/bridge/a/heartbeat", BEAT, false, 62_000).1,
            Some(Change::Heard { name: "a".into() })
        );
        assert_eq!(l.next_due(), Some(67_000));
    }

    #[test]
    fn a_retained_heartbeat_gives_one_silence_from_the_hubs_start() {
        let mut l = Liveness::new("p", 5_000);
        // The hub starts at 100 s; the bridge's last heartbeat is old.
        assert_eq!(
            l.on_message("p/bridge/b/heartbeat", BEAT, true, 100_000),
            (false, None)
        );
        assert_eq!(l.next_due(), Some(105_000));
        assert_eq!(l.tick(105_000).len(), 1);
    }

    #[test]
    fn bridges_that_never_heartbeat_or_said_offline_are_not_judged() {
        let mut l = Liveness::new("p", 5_000);
        l.on_message("p/bridge/old/status", b"online", false, 0);
        l.on_message("p/bridge/a/heartbeat", BEAT, false, 0);
        l.on_message("p/bridge/a/status", b"offline", false, 1);
        assert_eq!(l.next_due(), None);
        assert!(l.tick(1_000_000).is_empty());
        // Silence off.
        let mut l = Liveness::new("p", 0);
        l.on_message("p/bridge/a/heartbeat", BEAT, false, 0);
        assert!(l.tick(1_000_000).is_empty());
    }

    #[test]
    fn a_long_interval_stretches_the_silence_and_the_hubs_absence_is_forgiven() {
        let mut l = Liveness::new("p", 5_000);
        let slow = br#"{"instance":"x","interval_ms":4000}"#;
        l.on_message("p/bridge/s/heartbeat", slow, false, 0);
        assert_eq!(l.next_due(), Some(12_000));
        l.resume(50_000);
        assert_eq!(l.next_due(), Some(62_000));
        // Junk: a forged name, an absurd interval.
        assert_eq!(
            l.on_message("p/bridge/a b/heartbeat", BEAT, false, 0),
            (true, None)
        );
        l.on_message("p/bridge/z/heartbeat", br#"{"interval_ms":0}"#, false, 0);
        assert_eq!(l.tick(14_999), []);
        assert_eq!(l.tick(15_000).len(), 1, "the default interval");
    }
}
