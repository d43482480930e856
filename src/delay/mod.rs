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
//! Alerts enter the public line only when the configuration makes them
//! public (`[broadcast] public_alerts`); then they wait like the rest.
//!
//! A correction does not simply follow the moves it withdraws: a
//! `retract` or `takeback` that reaches moves still waiting removes them
//! from the line and its journal ([`fold`]), so the public never sees a
//! move the live game no longer had when it was shown.

pub mod config;
pub mod fold;
pub mod journal;

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::event::{Event, EventKind, Millis};
use crate::sink::record::GameLog;

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

    /// Removes the waiting items numbered `seqs` (a correction withdrew
    /// them before their release).
    pub fn withdraw(&mut self, seqs: &[u64]) {
        self.items.retain(|d| !seqs.contains(&d.seq));
    }
}

/// What the public sees of one board when a delay is set: the events not
/// out yet, and the game as the public has seen it so far (from which its
/// retained state, PGN and folder entry are made).
///
/// Times passed in are the board's daemon milliseconds (`t_ms`); items are
/// kept with their wall time (`epoch_ms + t`), so that a journal read back
/// by a later session releases them at the same wall time. Alerts (and the
/// arbiters' decisions) enter the line only with
/// [`PublicView::with_public_alerts`]: otherwise they are for the
/// arbiters' live view only. A correction folds into the line ([`fold`]).
#[derive(Debug)]
pub struct PublicView {
    line: DelayLine<Event>,
    log: GameLog,
    /// The games as the public will have seen them once every waiting
    /// event is out.
    ahead: GameLog,
    /// Wall milliseconds (since the Unix epoch) at daemon time 0.
    epoch_ms: u64,
    journal: Option<journal::Journal<Event>>,
    /// The last event the public was given (or, after a restart, the last
    /// one it had been given).
    shown: Option<Delayed<Event>>,
    /// What the journal held at start-up, for [`PublicView::restore`];
    /// `None` without a journal.
    recovered: Option<journal::Recovered<Event>>,
    /// Whether alerts and decisions are public (they then wait too).
    alerts: bool,
}

/// What [`PublicView::restore`] made of a restart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Restored {
    /// Events of the earlier game(s) the public is taken to have seen.
    pub shown: usize,
    /// Events waiting for the public.
    pub waiting: usize,
    /// The journal could not say where the public stood (none, or lines
    /// skipped): everything made less than the delay before now is held.
    pub doubt: bool,
}

impl PublicView {
    /// A view `delay_ms` behind the live game, with no journal.
    pub fn new(delay_ms: u64, epoch_ms: u64) -> PublicView {
        PublicView {
            line: DelayLine::new(delay_ms),
            log: GameLog::new(),
            ahead: GameLog::new(),
            epoch_ms,
            journal: None,
            shown: None,
            recovered: None,
            alerts: false,
        }
    }

    /// Lets alerts and the arbiters' decisions through to the public
    /// (`[broadcast] public_alerts`), a delay late like everything else.
    pub fn with_public_alerts(mut self, on: bool) -> PublicView {
        self.alerts = on;
        self
    }

    /// Whether `kind` enters the line: never a provisional move, alerts
    /// and decisions only when they are public.
    fn admits(&self, kind: &EventKind) -> bool {
        !matches!(kind, EventKind::Provisional { .. }) && config::is_public(kind, self.alerts)
    }

    /// A view whose waiting events are kept in the journal at `path`:
    /// those an earlier session left wait again (see
    /// [`PublicView::restore`] for the game they belong to). Lines of the
    /// journal that cannot be read are skipped (and make the restore
    /// cautious); only I/O errors are errors.
    pub fn with_journal(
        delay_ms: u64,
        epoch_ms: u64,
        path: &std::path::Path,
    ) -> Result<PublicView, journal::JournalError> {
        let (journal, recovered) = journal::Journal::open(path)?;
        // The public's games: the last snapshot, then what was released
        // after it.
        let mut log: GameLog = recovered
            .view
            .as_ref()
            .and_then(|v| serde_json::from_value(v.data.clone()).ok())
            .unwrap_or_default();
        for d in &recovered.released {
            log.handle(&d.item);
        }
        let mut ahead = log.clone();
        for d in &recovered.pending {
            ahead.handle(&d.item);
        }
        let mut view = PublicView {
            line: DelayLine::restore(delay_ms, recovered.pending.clone()),
            log,
            ahead,
            epoch_ms,
            journal: Some(journal),
            shown: recovered.shown.clone(),
            recovered: Some(recovered),
            alerts: false,
        };
        view.compact();
        Ok(view)
    }

    /// Rewrites the journal with the public's games and what waits. A lost
    /// rewrite only leaves the old file, read the same way.
    fn compact(&mut self) {
        if let Some(j) = &mut self.journal {
            let view = serde_json::to_value(&self.log).ok();
            let _ = j.compact(view, self.shown.as_ref(), self.line.pending());
        }
    }

    /// The games as the public will have seen them once every waiting
    /// event is out (what the live view showed when the last one was
    /// made).
    pub fn ahead(&self) -> &GameLog {
        &self.ahead
    }

    /// Sets the wall time (ms since the Unix epoch) of daemon time 0.
    pub fn set_epoch(&mut self, epoch_ms: u64) {
        self.epoch_ms = epoch_ms;
    }

    /// After a restart: `history` is the game as the earlier session made
    /// it (its events with the daemon time each was published at,
    /// replayed from its capture), `now_wall_ms` the wall time now.
    ///
    /// The public is taken to have seen the history up to the last event
    /// the journal says was released; every later event waits, at the wall
    /// time the journal gave it, or, for an event the journal never got (a
    /// move still settling when the daemon was killed, a write lost), at
    /// an estimate that is never earlier than the truth: the history's
    /// last event is taken as made now, the others as long before it as
    /// they were. When the journal cannot say where the public stood (no
    /// journal, no record of what was shown, lines skipped), the public is
    /// taken to have seen only what is older than now − delay: the rest
    /// waits (when in doubt, hold).
    pub fn restore(&mut self, history: &[(Millis, Event)], now_wall_ms: u64) -> Restored {
        let public: Vec<(Millis, &Event)> = history
            .iter()
            .filter(|(_, e)| self.admits(&e.kind))
            .map(|(t, e)| (*t, e))
            .collect();
        let plan = plan_restore(
            &public,
            self.recovered.take().as_ref(),
            self.line.delay_ms(),
            now_wall_ms,
        );
        self.log = GameLog::new();
        for (_, e) in &public[..plan.cut] {
            self.log.handle(e);
        }
        self.shown = plan.cut.checked_sub(1).map(|i| Delayed {
            seq: 0,
            made_ms: 0,
            item: public[i].1.clone(),
        });
        self.line = DelayLine::new(self.line.delay_ms());
        self.ahead = self.log.clone();
        // Folded as they were live: a move withdrawn while it waited stays
        // withdrawn, whatever the journal kept of it.
        for (made, e) in plan.waiting {
            self.enqueue(made, &e);
        }
        self.compact();
        Restored {
            shown: plan.cut,
            waiting: self.line.len(),
            doubt: plan.doubt,
        }
    }

    /// A live event made at `t`: queued for the public unless it is a
    /// provisional move (the public sees final moves only, so a move
    /// corrected before it became final is never shown to it) or an alert
    /// or decision that is not public. A correction that reaches moves
    /// still waiting withdraws them, and itself when none of what it
    /// withdraws was shown ([`fold`]). A journal that cannot be written is
    /// reported (the event is still shown at its time unless the daemon
    /// stops meanwhile).
    pub fn push(&mut self, t: Millis, event: &Event) -> std::io::Result<()> {
        if !self.admits(&event.kind) {
            return Ok(());
        }
        let (folded, queued) = self.enqueue(self.epoch_ms + t, event);
        let Some(j) = &mut self.journal else {
            return Ok(());
        };
        if !folded.removed.is_empty() {
            j.withdrawn(&folded.removed)?;
        }
        match queued {
            Some(d) => j.pushed(&d),
            None => Ok(()),
        }
    }

    /// The events whose time has come by `t`, oldest first; the public
    /// game follows them.
    pub fn release(&mut self, t: Millis) -> Vec<Event> {
        let mut out = Vec::new();
        let mut last = None;
        while let Some(d) = self.line.pop_due(self.epoch_ms + t) {
            // A journal written with public alerts, read without them.
            if self.admits(&d.item.kind) {
                self.log.handle(&d.item);
                out.push(d.item.clone());
            }
            last = Some(d);
        }
        if let Some(d) = last {
            let seq = d.seq;
            self.shown = Some(d);
            if let Some(j) = &mut self.journal {
                // A lost mark only means the event may be shown again after
                // a restart; screens drop repeats by content.
                let _ = j.released(seq);
                if j.wants_compaction() {
                    self.compact();
                }
            }
        }
        out
    }

    /// When the next event is due (daemon milliseconds), if any waits.
    pub fn poll_timeout(&self) -> Option<Millis> {
        self.line
            .next_due()
            .map(|wall| wall.saturating_sub(self.epoch_ms))
    }

    /// The games as the public has seen them so far.
    pub fn log(&self) -> &GameLog {
        &self.log
    }

    /// The public's games, to amend (the day a game started).
    pub fn log_mut(&mut self) -> &mut GameLog {
        &mut self.log
    }

    /// The `t_ms` of the last event the public was given (0: none yet):
    /// the time of the public's retained state, which must not tell when
    /// the live game last changed.
    pub fn shown_t(&self) -> Millis {
        self.shown.as_ref().map_or(0, |d| d.item.t_ms)
    }

    /// Events not yet shown to the public.
    pub fn pending(&self) -> usize {
        self.line.len()
    }
}

/// How a restart takes up the public view (see [`PublicView::restore`]).
#[derive(Debug)]
struct RestorePlan {
    /// The public has seen the history's events before this index.
    cut: usize,
    /// The events still waiting, with the wall time each was made.
    waiting: Vec<(u64, Event)>,
    doubt: bool,
}

fn plan_restore(
    history: &[(Millis, &Event)],
    recovered: Option<&journal::Recovered<Event>>,
    delay_ms: u64,
    now_ms: u64,
) -> RestorePlan {
    let last_t = history.iter().map(|(t, _)| *t).max().unwrap_or(0);
    // Never earlier than the truth: the earlier session published its last
    // event before now, and its clock ran no faster than the wall clock.
    let estimate = |t: Millis| now_ms.saturating_sub(last_t.saturating_sub(t));
    let young = history
        .iter()
        .position(|(t, _)| estimate(*t).saturating_add(delay_ms) > now_ms)
        .unwrap_or(history.len());
    let find = |e: &Event| history.iter().rposition(|(_, h)| *h == e);
    let anchor = recovered.and_then(|r| match (&r.shown, r.pending.first()) {
        (Some(s), _) => find(&s.item).map(|i| i + 1),
        (None, Some(first)) => find(&first.item),
        (None, None) => None,
    });
    let damaged = recovered.is_none_or(|r| r.skipped > 0);
    let (cut, doubt) = match anchor {
        Some(i) if !damaged => (i, false),
        Some(i) => (i.min(young), true),
        None if history.is_empty() => (0, false),
        None => (young, true),
    };
    let mut pending: Vec<Option<&Delayed<Event>>> = recovered
        .map(|r| r.pending.iter().map(Some).collect())
        .unwrap_or_default();
    let mut waiting = Vec::new();
    for (t, e) in &history[cut..] {
        // The journal's own time for an event it holds.
        let held = pending
            .iter_mut()
            .find(|d| d.is_some_and(|d| d.item == **e))
            .and_then(Option::take);
        let made = held.map_or_else(|| estimate(*t), |d| d.made_ms);
        waiting.push((made, (*e).clone()));
    }
    // Events the journal holds and the history lacks (the capture lost its
    // last bytes): they were made, so they are shown, after the rest.
    waiting.extend(
        pending
            .into_iter()
            .flatten()
            .filter(|d| find(&d.item).is_none())
            .map(|d| (d.made_ms, d.item.clone())),
    );
    RestorePlan {
        cut,
        waiting,
        doubt,
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
        let timed: Vec<_> = history.iter().map(|e| (e.t_ms, e.clone())).collect();
        let restored = view.restore(&timed, 1_008_000);
        assert_eq!(
            restored,
            Restored {
                shown: 3,
                waiting: 2,
                doubt: false
            }
        );
        assert_eq!(view.pending(), 2);
        assert_eq!(view.shown_t(), 2_000);
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

    /// A game start and `plies` moves, one a second from 1 s.
    fn game(plies: u32) -> Vec<(Millis, Event)> {
        let start = Event {
            board: "1".into(),
            t_ms: 500,
            game: crate::event::GameId::Chess,
            kind: EventKind::GameStart {
                position: "start".into(),
                chess960: Some(false),
                rotated: false,
            },
        };
        std::iter::once(start)
            .chain((1..=plies).map(|p| chess_move(p, 1_000 * p as u64)))
            .map(|e| (e.t_ms, e))
            .collect()
    }

    fn sans(view: &PublicView) -> Vec<String> {
        view.log()
            .current()
            .map(|g| g.sans.clone())
            .unwrap_or_default()
    }

    #[test]
    fn a_move_settling_at_a_kill_waits_after_the_journalled_ones_at_its_own_ply() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("1.public.jsonl");
        let history = game(5);
        // Daemon time 0 is wall 1_000_000; delay 5 s. Plies 1-4 were
        // published live; ply 5 was still settling when the daemon died
        // at 4.5 s: its capture has it, the journal does not.
        let mut view = PublicView::with_journal(5_000, 1_000_000, &path).unwrap();
        for (t, e) in &history[..5] {
            view.push(*t, e).unwrap();
        }
        assert_eq!(view.release(7_000).len(), 3);
        drop(view);
        let mut view = PublicView::with_journal(5_000, 1_000_000, &path).unwrap();
        // Restarted at wall 1_009_000; the replay committed ply 5 at 5 s.
        let restored = view.restore(&history, 1_009_000);
        assert_eq!((restored.shown, restored.waiting), (3, 3));
        assert_eq!(sans(&view), ["m1", "m2"]);
        view.set_epoch(1_000_000);
        assert_eq!(view.release(8_000), [history[3].1.clone()]);
        assert_eq!(view.release(9_000), [history[4].1.clone()]);
        // Ply 5 is taken as made at the restart: a full delay from then.
        assert!(view.release(13_999).is_empty());
        assert_eq!(view.release(14_000), [history[5].1.clone()]);
        assert_eq!(sans(&view), ["m1", "m2", "m3", "m4", "m5"]);
    }

    #[test]
    fn a_move_the_journal_never_got_after_everything_was_released_is_not_shown_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("1.public.jsonl");
        let history = game(3);
        let mut view = PublicView::with_journal(1_000, 1_000_000, &path).unwrap();
        for (t, e) in &history[..3] {
            view.push(*t, e).unwrap();
        }
        assert_eq!(view.release(60_000).len(), 3);
        drop(view);
        let mut view = PublicView::with_journal(1_000, 1_000_000, &path).unwrap();
        let restored = view.restore(&history, 1_061_000);
        assert_eq!((restored.shown, restored.waiting), (3, 1));
        assert!(!restored.doubt);
        assert_eq!(sans(&view), ["m1", "m2"]);
        view.set_epoch(1_000_000);
        assert!(view.release(61_999).is_empty());
        assert_eq!(view.release(62_000), [history[3].1.clone()]);
    }

    #[test]
    fn a_torn_journal_holds_everything_newer_than_now_less_the_delay() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("1.public.jsonl");
        let history = game(8);
        // A journal with a torn line in the middle (a full disk), nothing
        // it says about where the public stood.
        std::fs::write(
            &path,
            "{\"push\":{\"seq\":1,\"made_ms\":5,\"it\n\n{\"released\":0}\n",
        )
        .unwrap();
        let mut view = PublicView::with_journal(5_000, 0, &path).unwrap();
        // Restarted at wall 100_000: the last event (8 s) is taken as made
        // then, so the events of the last 5 s (plies 4-8) wait.
        let restored = view.restore(&history, 100_000);
        assert!(restored.doubt);
        assert_eq!((restored.shown, restored.waiting), (4, 5));
        assert_eq!(sans(&view), ["m1", "m2", "m3"]);
        view.set_epoch(100_000 - 8_000);
        assert!(view.release(8_999).is_empty());
        assert_eq!(view.release(9_000), [history[4].1.clone()]);
    }

    #[test]
    fn without_a_journal_a_resumed_game_is_held_the_same_way() {
        let history = game(4);
        let mut view = PublicView::new(10_000, 0);
        let restored = view.restore(&history, 50_000);
        assert!(restored.doubt);
        assert_eq!(restored.shown, 0, "all of it is younger than the delay");
        assert_eq!(view.pending(), 5);
        assert!(view.log().current().is_none());
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
                evidence: None,
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
