//! The broadcast delay: the public sees every board as it was `delay` ago,
//! while arbiters see it live.
//!
//! Top events delay their public broadcast (15 minutes is the common rule)
//! so that nobody in the hall can be fed moves. A [`DelayLine`] holds what
//! the public outputs would have shown (events, retained states, PGN
//! snapshots) and lets each item out once `delay` has passed since it was
//! made. It is pure: times are passed in, in wall-clock milliseconds since
//! the Unix epoch, because a delay must survive a daemon restart (the
//! daemon's own session clock starts again at zero). [`journal`] keeps the
//! items that are not out yet on disk, so a restart neither publishes
//! anything early nor loses anything.
//!
//! Design: the line delays *publications*, not readings. Everything the
//! public sees (moves, clocks, results, game starts, corrections,
//! takebacks) is made once, live, and shown later unchanged, so the delayed
//! view is exactly the live view of `delay` ago: clock readings and `%clk`
//! comments stay true because they are the readings of that moment.
//! Alerts never enter the public line when a delay is set (the caller
//! filters them).

pub mod journal;

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

/// Longest delay a venue may set (one hour, as lichess allows).
pub const MAX_DELAY_MS: u64 = 60 * 60 * 1000;

/// One item in the line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Delayed<T> {
    /// Position in the line, increasing from 1; the journal marks items
    /// released by it.
    pub seq: u64,
    /// Wall time the item was made (ms since the Unix epoch).
    pub made_ms: u64,
    /// The item.
    pub item: T,
}

/// Items waiting for their public release, oldest first.
#[derive(Clone, Debug)]
pub struct DelayLine<T> {
    delay_ms: u64,
    items: VecDeque<Delayed<T>>,
    next_seq: u64,
    /// The latest `made_ms` pushed: items never overtake each other.
    latest_ms: u64,
}

impl<T> DelayLine<T> {
    /// An empty line that holds items for `delay_ms` (capped at
    /// [`MAX_DELAY_MS`]).
    pub fn new(delay_ms: u64) -> DelayLine<T> {
        DelayLine {
            delay_ms: delay_ms.min(MAX_DELAY_MS),
            items: VecDeque::new(),
            next_seq: 1,
            latest_ms: 0,
        }
    }

    /// A line that resumes with `pending` items (from the journal), their
    /// sequence numbers and times kept.
    pub fn restore(delay_ms: u64, pending: Vec<Delayed<T>>) -> DelayLine<T> {
        let mut line = DelayLine::new(delay_ms);
        for d in pending {
            line.next_seq = line.next_seq.max(d.seq + 1);
            line.latest_ms = line.latest_ms.max(d.made_ms);
            line.items.push_back(d);
        }
        line.items.make_contiguous().sort_by_key(|d| d.seq);
        line
    }

    /// The delay.
    pub fn delay_ms(&self) -> u64 {
        self.delay_ms
    }

    /// Adds an item made at `made_ms`; returns it as queued (with its
    /// sequence number). A time earlier than an item already queued (the
    /// wall clock stepped back) is raised to it, so order is kept.
    pub fn push(&mut self, made_ms: u64, item: T) -> &Delayed<T> {
        let made_ms = made_ms.max(self.latest_ms);
        self.latest_ms = made_ms;
        let seq = self.next_seq;
        self.next_seq += 1;
        self.items.push_back(Delayed { seq, made_ms, item });
        self.items.back().expect("just pushed")
    }

    /// The oldest item whose time has come by `now_ms`, removed from the
    /// line.
    pub fn pop_due(&mut self, now_ms: u64) -> Option<Delayed<T>> {
        let due = self
            .items
            .front()
            .is_some_and(|d| d.made_ms.saturating_add(self.delay_ms) <= now_ms);
        if due { self.items.pop_front() } else { None }
    }

    /// When the oldest item is due, if any is waiting.
    pub fn next_due(&self) -> Option<u64> {
        self.items
            .front()
            .map(|d| d.made_ms.saturating_add(self.delay_ms))
    }

    /// Items waiting.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether nothing waits.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The waiting items, oldest first.
    pub fn pending(&self) -> impl Iterator<Item = &Delayed<T>> {
        self.items.iter()
    }
}

/// What the public sees of one board when a delay is set: the events not
/// out yet, and the game as the public has seen it so far (from which its
/// retained state, PGN and folder entry are made).
///
/// Times are the daemon's milliseconds (`t_ms`). Alerts never enter the
/// line: with a delay they are for the arbiters' live view only.
#[derive(Debug)]
pub struct PublicView {
    line: DelayLine<crate::event::Event>,
    log: crate::sink::record::GameLog,
}

impl PublicView {
    /// A view `delay_ms` behind the live game.
    pub fn new(delay_ms: u64) -> PublicView {
        PublicView {
            line: DelayLine::new(delay_ms),
            log: crate::sink::record::GameLog::new(),
        }
    }

    /// A live event made at `t`: queued for the public unless it is an
    /// alert.
    pub fn push(&mut self, t: crate::event::Millis, event: &crate::event::Event) {
        if !matches!(event.kind, crate::event::EventKind::Alert(_)) {
            self.line.push(t, event.clone());
        }
    }

    /// The events whose time has come by `t`, oldest first; the public
    /// game follows them.
    pub fn release(&mut self, t: crate::event::Millis) -> Vec<crate::event::Event> {
        let mut out = Vec::new();
        while let Some(d) = self.line.pop_due(t) {
            self.log.handle(&d.item);
            out.push(d.item);
        }
        out
    }

    /// When the next event is due, if any waits.
    pub fn poll_timeout(&self) -> Option<crate::event::Millis> {
        self.line.next_due()
    }

    /// The games as the public has seen them so far.
    pub fn log(&self) -> &crate::sink::record::GameLog {
        &self.log
    }

    /// Events not yet shown to the public.
    pub fn pending(&self) -> usize {
        self.line.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_item_comes_out_exactly_when_its_delay_has_passed() {
        let mut line = DelayLine::new(5_000);
        line.push(1_000, "e4");
        assert_eq!(line.next_due(), Some(6_000));
        assert!(line.pop_due(5_999).is_none());
        let d = line.pop_due(6_000).expect("due");
        assert_eq!((d.seq, d.made_ms, d.item), (1, 1_000, "e4"));
        assert!(line.is_empty());
    }

    #[test]
    fn items_come_out_in_the_order_they_went_in() {
        let mut line = DelayLine::new(100);
        for (t, m) in [(10, "e4"), (20, "e5"), (20, "Nf3"), (35, "Nc6")] {
            line.push(t, m);
        }
        let out: Vec<_> = std::iter::from_fn(|| line.pop_due(1_000))
            .map(|d| d.item)
            .collect();
        assert_eq!(out, ["e4", "e5", "Nf3", "Nc6"]);
    }

    #[test]
    fn a_clock_stepping_back_never_lets_an_item_overtake_another() {
        let mut line = DelayLine::new(100);
        line.push(1_000, "first");
        let second = line.push(900, "second").made_ms;
        assert_eq!(second, 1_000);
        assert_eq!(line.pop_due(1_100).map(|d| d.item), Some("first"));
        assert_eq!(line.pop_due(1_100).map(|d| d.item), Some("second"));
    }

    #[test]
    fn zero_delay_releases_at_once() {
        let mut line = DelayLine::new(0);
        line.push(42, 1);
        assert_eq!(line.pop_due(42).map(|d| d.item), Some(1));
    }

    #[test]
    fn the_delay_is_capped_at_one_hour() {
        let line: DelayLine<()> = DelayLine::new(10 * MAX_DELAY_MS);
        assert_eq!(line.delay_ms(), MAX_DELAY_MS);
    }

    #[test]
    fn a_restored_line_keeps_times_and_numbers_on() {
        let pending = vec![
            Delayed {
                seq: 8,
                made_ms: 2_000,
                item: "b",
            },
            Delayed {
                seq: 7,
                made_ms: 1_000,
                item: "a",
            },
        ];
        let mut line = DelayLine::restore(500, pending);
        assert_eq!(line.next_due(), Some(1_500));
        assert_eq!(line.push(1_500, "c").seq, 9);
        // Never earlier than what was restored.
        assert_eq!(line.pending().last().map(|d| d.made_ms), Some(2_000));
        let out: Vec<_> = std::iter::from_fn(|| line.pop_due(10_000))
            .map(|d| d.item)
            .collect();
        assert_eq!(out, ["a", "b", "c"]);
    }
}
