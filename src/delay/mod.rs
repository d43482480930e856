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
/// Times passed in are the board's daemon milliseconds (`t_ms`); items are
/// kept with their wall time (`epoch_ms + t`), so that a journal read back
/// by a later session releases them at the same wall time. Alerts never
/// enter the line: with a delay they are for the arbiters' live view only.
#[derive(Debug)]
pub struct PublicView {
    line: DelayLine<crate::event::Event>,
    log: crate::sink::record::GameLog,
    /// Wall milliseconds (since the Unix epoch) at daemon time 0.
    epoch_ms: u64,
    journal: Option<journal::Journal<crate::event::Event>>,
}

impl PublicView {
    /// A view `delay_ms` behind the live game, with no journal.
    pub fn new(delay_ms: u64, epoch_ms: u64) -> PublicView {
        PublicView {
            line: DelayLine::new(delay_ms),
            log: crate::sink::record::GameLog::new(),
            epoch_ms,
            journal: None,
        }
    }

    /// A view whose waiting events are kept in the journal at `path`:
    /// those an earlier session left are taken up (see
    /// [`PublicView::restore`]).
    pub fn with_journal(
        delay_ms: u64,
        epoch_ms: u64,
        path: &std::path::Path,
    ) -> Result<PublicView, journal::JournalError> {
        let (journal, pending) = journal::Journal::open(path)?;
        Ok(PublicView {
            line: DelayLine::restore(delay_ms, pending),
            log: crate::sink::record::GameLog::new(),
            epoch_ms,
            journal: Some(journal),
        })
    }

    /// Sets the wall time (ms since the Unix epoch) of daemon time 0.
    pub fn set_epoch(&mut self, epoch_ms: u64) {
        self.epoch_ms = epoch_ms;
    }

    /// After a restart: `history` is the game as the earlier session made
    /// it (its events, replayed from its capture). The public has seen all
    /// of it but the events still waiting in the line, which are its last
    /// ones: the public game is the history without them.
    pub fn restore(&mut self, history: &[crate::event::Event]) {
        let public: Vec<&crate::event::Event> = history
            .iter()
            .filter(|e| !matches!(e.kind, crate::event::EventKind::Alert(_)))
            .collect();
        // Where the waiting events begin in the history (they may be
        // missing from it when the capture lost its last bytes).
        let first = self.line.pending().next().map(|d| &d.item);
        let cut = first
            .and_then(|f| public.iter().rposition(|e| *e == f))
            .unwrap_or(public.len());
        self.log = crate::sink::record::GameLog::new();
        for e in &public[..cut] {
            self.log.handle(e);
        }
    }

    /// A live event made at `t`: queued for the public unless it is an
    /// alert. A journal that cannot be written is reported (the event is
    /// still shown at its time unless the daemon stops meanwhile).
    pub fn push(
        &mut self,
        t: crate::event::Millis,
        event: &crate::event::Event,
    ) -> std::io::Result<()> {
        if matches!(event.kind, crate::event::EventKind::Alert(_)) {
            return Ok(());
        }
        let d = self.line.push(self.epoch_ms + t, event.clone());
        match &mut self.journal {
            Some(j) => j.pushed(d),
            None => Ok(()),
        }
    }

    /// The events whose time has come by `t`, oldest first; the public
    /// game follows them.
    pub fn release(&mut self, t: crate::event::Millis) -> Vec<crate::event::Event> {
        let mut out = Vec::new();
        let mut last = None;
        while let Some(d) = self.line.pop_due(self.epoch_ms + t) {
            self.log.handle(&d.item);
            last = Some(d.seq);
            out.push(d.item);
        }
        if let (Some(j), Some(seq)) = (&mut self.journal, last) {
            // A lost mark only means the event may be shown again after
            // a restart; screens drop repeats by content.
            let _ = j.released(seq);
            if j.wants_compaction() {
                let _ = j.compact(self.line.pending());
            }
        }
        out
    }

    /// When the next event is due (daemon milliseconds), if any waits.
    pub fn poll_timeout(&self) -> Option<crate::event::Millis> {
        self.line
            .next_due()
            .map(|wall| wall.saturating_sub(self.epoch_ms))
    }

    /// The games as the public has seen them so far.
    pub fn log(&self) -> &crate::sink::record::GameLog {
        &self.log
    }

    /// The public's games, to amend (the day a game started).
    pub fn log_mut(&mut self) -> &mut crate::sink::record::GameLog {
        &mut self.log
    }

    /// Events not yet shown to the public.
    pub fn pending(&self) -> usize {
        self.line.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chess_move(ply: u32, t_ms: u64) -> crate::event::Event {
        crate::event::Event {
            board: "1".into(),
            t_ms,
            game: crate::event::GameId::Chess,
            kind: crate::event::EventKind::Move {
                ply,
                side: if ply % 2 == 1 {
                    crate::event::Side::White
                } else {
                    crate::event::Side::Black
                },
                notation: format!("m{ply}"),
                id: format!("u{ply}"),
                position: format!("f{ply}"),
                irregular: false,
            },
        }
    }

    #[test]
    fn a_restart_shows_nothing_early_and_loses_nothing_for_the_public() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("1.public.jsonl");
        // First session: daemon time 0 is wall 1_000_000; delay 5 s.
        let start = crate::event::Event {
            board: "1".into(),
            t_ms: 500,
            game: crate::event::GameId::Chess,
            kind: crate::event::EventKind::GameStart {
                position: "start".into(),
                chess960: Some(false),
                rotated: false,
            },
        };
        let history: Vec<_> = std::iter::once(start)
            .chain((1..=4).map(|p| chess_move(p, 1_000 * p as u64)))
            .collect();
        let mut view = PublicView::with_journal(5_000, 1_000_000, &path).unwrap();
        for e in &history {
            view.push(e.t_ms, e).unwrap();
        }
        // At t = 7 s the first two moves are out; then the daemon dies.
        let out = view.release(7_000);
        assert_eq!(out, history[..3]);
        drop(view);
        // Second session: started 1 s of wall time later, its daemon time
        // going on from 8 s (the resumed game's clock).
        let mut view = PublicView::with_journal(5_000, 1_000_000, &path).unwrap();
        view.restore(&history);
        assert_eq!(view.pending(), 2);
        assert_eq!(view.log().current().unwrap().sans, ["m1", "m2"]);
        // Ply 3 was made at 3 s: due at 8 s, not before.
        assert_eq!(view.poll_timeout(), Some(8_000));
        assert!(view.release(7_999).is_empty());
        assert_eq!(view.release(8_000), history[3..4]);
        assert_eq!(view.release(9_000), history[4..5]);
        assert_eq!(view.log().current().unwrap().sans, ["m1", "m2", "m3", "m4"]);
        // A third session finds nothing waiting.
        drop(view);
        let view = PublicView::with_journal(5_000, 1_000_000, &path).unwrap();
        assert_eq!(view.pending(), 0);
    }

    #[test]
    fn alerts_never_enter_the_public_line() {
        let mut view = PublicView::new(1_000, 0);
        let alert = crate::event::Event {
            board: "1".into(),
            t_ms: 5,
            game: crate::event::GameId::Chess,
            kind: crate::event::EventKind::Alert(crate::event::Alert {
                kind: crate::event::AlertKind::Misplaced,
                side: None,
                law: None,
                message: "x".into(),
                cleared: false,
            }),
        };
        view.push(5, &alert).unwrap();
        view.push(6, &chess_move(1, 6)).unwrap();
        assert_eq!(view.pending(), 1);
        assert_eq!(view.release(1_006), [chess_move(1, 6)]);
    }

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
