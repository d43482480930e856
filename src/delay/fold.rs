//! Folding corrections into the delay line: a `retract` or `takeback`
//! that reaches plies still waiting removes them, so the public never sees
//! a move the live game no longer had when it is shown.
//!
//! A move can be final (see [`crate::track::finality`]: a piece left on a
//! square on its way longer than the final time) and then be withdrawn.
//! Live, the arbiters see the move and its `retract`; the public, `delay`
//! behind, would see the same pair, a move that the live game had already
//! lost by the time it was released. So a correction pushed into the line
//! withdraws, from the board's current game (the items after the last
//! waiting `game_start`):
//!
//! - every waiting `move` of a ply it withdraws (`retract` of ply `p`:
//!   plies `p` and later; `takeback` to ply `n`: plies after `n`);
//! - every waiting `game_end` the correction voids (one that came when the
//!   game had a withdrawn ply, as [`crate::sink::record::GameLog`] voids
//!   it live);
//! - with public alerts, every waiting alert that came after the first
//!   withdrawn move (what it said concerned a position the public never
//!   sees; the arbiters' view keeps it).
//!
//! The correction itself is dropped too when the public's game, once
//! everything waiting is out, is then the same without it (moves,
//! positions, result): nothing it withdraws was shown. When part of what
//! it withdraws was shown, it stays, to correct that part. Clock readings
//! stay: they were true.

use crate::event::{Event, EventKind};
use crate::sink::record::GameRecord;

use super::{Delayed, PublicView};

/// The first ply a correction withdraws, if `kind` is one.
fn first_withdrawn(kind: &EventKind) -> Option<usize> {
    match kind {
        EventKind::Retract { ply, .. } => Some((*ply as usize).max(1)),
        EventKind::Takeback { to_ply, .. } => Some(*to_ply as usize + 1),
        _ => None,
    }
}

/// The sequence numbers of the waiting items `correction` withdraws;
/// `shown` is the public's current game as shown so far.
pub fn withdrawn<'a>(
    pending: impl Iterator<Item = &'a Delayed<Event>>,
    shown: Option<&GameRecord>,
    correction: &EventKind,
) -> Vec<u64> {
    let Some(from) = first_withdrawn(correction) else {
        return Vec::new();
    };
    let pending: Vec<&Delayed<Event>> = pending.collect();
    // The current game: after the last waiting game start, else the one
    // the public has seen.
    let start = pending
        .iter()
        .rposition(|d| matches!(d.item.kind, EventKind::GameStart { .. }));
    let (first, mut plies) = match start {
        Some(i) => (i + 1, 0),
        None => (0, shown.map_or(0, |g| g.sans.len())),
    };
    let mut out = Vec::new();
    let mut moved = false;
    for d in &pending[first..] {
        let drop = match &d.item.kind {
            EventKind::Move { ply, .. } => {
                plies = *ply as usize;
                plies >= from
            }
            EventKind::Retract { .. } | EventKind::Takeback { .. } => {
                let to = first_withdrawn(&d.item.kind).unwrap_or(1) - 1;
                plies = plies.min(to);
                false
            }
            EventKind::GameEnd { .. } => plies >= from,
            EventKind::Alert(_) | EventKind::Decision { .. } => moved,
            _ => false,
        };
        if drop {
            moved |= matches!(d.item.kind, EventKind::Move { .. });
            out.push(d.seq);
        }
    }
    out
}

/// Whether two games show the public the same: moves, positions, result.
fn same_game(a: Option<&GameRecord>, b: Option<&GameRecord>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => {
            a.ucis == b.ucis
                && a.sans == b.sans
                && a.fen == b.fen
                && a.result == b.result
                && a.reason == b.reason
        }
        (None, None) => true,
        _ => false,
    }
}

/// What a correction did to the line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Folded {
    /// The waiting items removed, by sequence number.
    pub removed: Vec<u64>,
    /// Whether the correction itself was dropped (nothing it withdraws
    /// was shown).
    pub dropped: bool,
}

impl PublicView {
    /// Queues `event`, made at wall time `made_ms`, folding it into the
    /// line when it is a correction. Returns what the fold removed, and
    /// the item queued, if it was.
    pub(super) fn enqueue(
        &mut self,
        made_ms: u64,
        event: &Event,
    ) -> (Folded, Option<Delayed<Event>>) {
        let removed = withdrawn(self.line.pending(), self.log.current(), &event.kind);
        if removed.is_empty() {
            self.ahead.handle(event);
            let d = self.line.push(made_ms, event.clone()).clone();
            return (Folded::default(), Some(d));
        }
        let mut live = self.ahead.clone();
        live.handle(event);
        self.line.withdraw(&removed);
        self.ahead = self.log.clone();
        for d in self.line.pending() {
            self.ahead.handle(&d.item);
        }
        let dropped = same_game(self.ahead.current(), live.current());
        let queued = if dropped {
            None
        } else {
            self.ahead.handle(event);
            Some(self.line.push(made_ms, event.clone()).clone())
        };
        tracing::info!(
            board = %event.board,
            removed = removed.len(),
            dropped,
            "broadcast delay: a correction withdrew moves the public had not seen yet"
        );
        (Folded { removed, dropped }, queued)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Alert, AlertKind, GameId, Side};
    use crate::sink::record::GameLog;

    /// A log with `events` folded in.
    fn log_of<'a>(events: impl IntoIterator<Item = &'a Event>) -> GameLog {
        let mut log = GameLog::new();
        for e in events {
            log.handle(e);
        }
        log
    }

    fn at(t_ms: u64, kind: EventKind) -> Event {
        Event {
            board: "1".into(),
            t_ms,
            game: GameId::Chess,
            kind,
        }
    }

    fn start() -> EventKind {
        EventKind::GameStart {
            position: "start".into(),
            chess960: Some(false),
            rotated: false,
        }
    }

    fn mv(ply: u32, san: &str) -> EventKind {
        EventKind::Move {
            ply,
            side: if ply % 2 == 1 {
                Side::White
            } else {
                Side::Black
            },
            notation: san.into(),
            id: san.to_lowercase(),
            position: format!("after {san}"),
            irregular: false,
        }
    }

    fn retract(ply: u32, san: &str) -> EventKind {
        EventKind::Retract {
            ply,
            id: san.to_lowercase(),
        }
    }

    fn takeback(to_ply: u32, fen: &str) -> EventKind {
        EventKind::Takeback {
            to_ply,
            position: fen.into(),
        }
    }

    fn clock() -> EventKind {
        EventKind::Clock {
            white: Some(300),
            black: Some(300),
            red: None,
            left: None,
            right: None,
            running: Some(Side::Black),
            pressed: Some(Side::White),
            connected: true,
            battery_low: false,
            estimated: false,
        }
    }

    fn alert(message: &str) -> EventKind {
        EventKind::Alert(Alert {
            kind: AlertKind::TouchMove,
            side: Some(Side::White),
            law: None,
            message: message.into(),
            cleared: false,
            evidence: None,
        })
    }

    fn end(result: &str) -> EventKind {
        EventKind::GameEnd {
            result: result.into(),
            reason: "checkmate".into(),
            winner: Some(Side::White),
        }
    }

    fn sans(log: &GameLog) -> Vec<String> {
        log.current().map(|g| g.sans.clone()).unwrap_or_default()
    }

    /// Pushes `kinds` one a second from 1 s into a 10 s view.
    fn pushed(view: &mut PublicView, kinds: Vec<EventKind>) -> Vec<Event> {
        let mut out = Vec::new();
        for k in kinds {
            let t = 1_000 * (out.len() as u64 + 1) + view.shown_t();
            let e = at(t, k);
            view.push(t, &e).unwrap();
            out.push(e);
        }
        out
    }

    #[test]
    fn a_move_withdrawn_before_its_release_never_reaches_the_public() {
        let mut view = PublicView::new(10_000, 0);
        pushed(
            &mut view,
            vec![
                start(),
                mv(1, "e4"),
                mv(2, "Nf6"),
                clock(),
                retract(2, "Nf6"),
                mv(2, "e5"),
            ],
        );
        // Start, e4, the clock and the real reply wait; Nf6 and its
        // retraction are gone.
        assert_eq!(view.pending(), 4);
        let out = view.release(60_000);
        assert!(
            out.iter()
                .all(|e| !matches!(e.kind, EventKind::Retract { .. })
                    && !matches!(&e.kind, EventKind::Move { notation, .. } if notation == "Nf6")),
            "{out:?}"
        );
        assert_eq!(sans(view.log()), ["e4", "e5"]);
    }

    #[test]
    fn a_retraction_of_a_shown_move_stays_and_takes_the_waiting_ones_with_it() {
        let mut view = PublicView::new(10_000, 0);
        let e = pushed(&mut view, vec![start(), mv(1, "e4"), mv(2, "e5")]);
        // Start and e4 are out.
        assert_eq!(view.release(12_000), e[..2]);
        pushed(&mut view, vec![retract(1, "e4")]);
        // e5 is withdrawn unseen; the retraction of the shown e4 waits.
        let out = view.release(60_000);
        assert_eq!(out.len(), 1, "{out:?}");
        assert!(matches!(out[0].kind, EventKind::Retract { ply: 1, .. }));
        assert!(sans(view.log()).is_empty());
    }

    #[test]
    fn a_takeback_reaching_shown_plies_keeps_its_correction_and_drops_the_rest() {
        let mut view = PublicView::new(10_000, 0);
        let e = pushed(
            &mut view,
            vec![
                start(),
                mv(1, "e4"),
                mv(2, "e5"),
                mv(3, "Nf3"),
                mv(4, "Nc6"),
            ],
        );
        // Up to e5 shown.
        assert_eq!(view.release(13_000), e[..3]);
        pushed(&mut view, vec![takeback(1, "after e4")]);
        assert_eq!(view.pending(), 1);
        let out = view.release(60_000);
        assert!(matches!(
            out[..],
            [Event {
                kind: EventKind::Takeback { to_ply: 1, .. },
                ..
            }]
        ));
        assert_eq!(sans(view.log()), ["e4"]);
    }

    #[test]
    fn a_takeback_of_waiting_plies_alone_vanishes() {
        let mut view = PublicView::new(10_000, 0);
        let e = pushed(
            &mut view,
            vec![start(), mv(1, "e4"), mv(2, "e5"), mv(3, "Nf3")],
        );
        assert_eq!(view.release(12_000), e[..2]);
        pushed(&mut view, vec![takeback(1, "after e4"), mv(2, "c5")]);
        let out = view.release(60_000);
        let kinds: Vec<_> = out.iter().map(|e| &e.kind).collect();
        assert_eq!(kinds, [&mv(2, "c5")]);
        assert_eq!(sans(view.log()), ["e4", "c5"]);
    }

    #[test]
    fn a_result_the_withdrawn_move_gave_is_withdrawn_with_it() {
        let mut view = PublicView::new(10_000, 0);
        pushed(
            &mut view,
            vec![
                start(),
                mv(1, "f3"),
                mv(2, "e5"),
                mv(3, "g4"),
                mv(4, "Qh4#"),
                end("0-1"),
            ],
        );
        pushed(&mut view, vec![retract(4, "Qh4#"), mv(4, "Nc6")]);
        view.release(60_000);
        let g = view.log().current().unwrap();
        assert_eq!(g.sans, ["f3", "e5", "g4", "Nc6"]);
        assert_eq!(g.result, None);
    }

    #[test]
    fn a_shown_result_keeps_the_retraction_that_voids_it() {
        let mut view = PublicView::new(10_000, 0);
        let e = pushed(&mut view, vec![start(), mv(1, "e4"), end("1-0")]);
        assert_eq!(view.release(13_000), e);
        pushed(&mut view, vec![retract(1, "e4")]);
        assert_eq!(view.pending(), 1);
        view.release(60_000);
        assert_eq!(view.log().current().unwrap().result, None);
    }

    #[test]
    fn with_public_alerts_an_alert_after_a_withdrawn_move_goes_with_it() {
        let mut view = PublicView::new(10_000, 0).with_public_alerts(true);
        pushed(
            &mut view,
            vec![
                start(),
                alert("before"),
                mv(1, "e4"),
                alert("after"),
                retract(1, "e4"),
            ],
        );
        let out = view.release(60_000);
        let messages: Vec<_> = out
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Alert(a) => Some(a.message.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(messages, ["before"]);
        assert_eq!(out.len(), 2, "{out:?}");
    }

    #[test]
    fn corrections_of_an_earlier_game_never_reach_into_a_new_one() {
        let mut view = PublicView::new(10_000, 0);
        let e = pushed(&mut view, vec![start(), mv(1, "e4"), mv(2, "e5")]);
        assert_eq!(view.release(20_000), e);
        // A new game waits; a retraction in it leaves the old one alone.
        pushed(&mut view, vec![start(), mv(1, "d4"), retract(1, "d4")]);
        assert_eq!(view.pending(), 1);
        view.release(60_000);
        assert_eq!(view.log().games().len(), 2);
        assert_eq!(view.log().games()[0].sans, ["e4", "e5"]);
        assert!(sans(view.log()).is_empty());
    }

    #[test]
    fn a_withdrawal_survives_a_restart_in_the_journal() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("1.public.jsonl");
        let mut view = PublicView::with_journal(10_000, 0, &path).unwrap();
        pushed(
            &mut view,
            vec![start(), mv(1, "e4"), mv(2, "Nf6"), retract(2, "Nf6")],
        );
        assert_eq!(view.pending(), 2);
        drop(view);
        // Read back: Nf6 and its retraction are not waiting any more.
        let view = PublicView::with_journal(10_000, 0, &path).unwrap();
        assert_eq!(view.pending(), 2);
        assert_eq!(sans(view.ahead()), ["e4"]);
    }

    #[test]
    fn a_restart_folds_what_the_journal_never_heard_withdrawn() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("1.public.jsonl");
        // The daemon dies after journalling Nf6, before the retraction.
        let mut view = PublicView::with_journal(10_000, 0, &path).unwrap();
        let live = pushed(&mut view, vec![start(), mv(1, "e4"), mv(2, "Nf6")]);
        drop(view);
        // The resumed game (replayed from the capture) has the retraction
        // and the real reply.
        let mut history: Vec<(u64, Event)> = live.iter().map(|e| (e.t_ms, e.clone())).collect();
        history.push((4_000, at(4_000, retract(2, "Nf6"))));
        history.push((5_000, at(5_000, mv(2, "e5"))));
        let mut view = PublicView::with_journal(10_000, 0, &path).unwrap();
        let restored = view.restore(&history, 6_000);
        assert!(!restored.doubt);
        let out = view.release(u64::MAX / 2);
        assert!(
            !out.iter()
                .any(|e| matches!(&e.kind, EventKind::Retract { .. })
                    || matches!(&e.kind, EventKind::Move { notation, .. } if notation == "Nf6")),
            "{out:?}"
        );
        assert_eq!(sans(view.log()), ["e4", "e5"]);
        // And the journal says so after another restart.
        drop(view);
        let view = PublicView::with_journal(10_000, 0, &path).unwrap();
        assert_eq!(view.pending(), 0);
        assert_eq!(sans(view.log()), ["e4", "e5"]);
    }

    #[test]
    fn the_folded_line_ends_where_the_live_game_is() {
        // Whatever is shown when, the public's game once everything is
        // out is the live game.
        let kinds = vec![
            start(),
            mv(1, "e4"),
            mv(2, "e5"),
            mv(3, "Nf3"),
            retract(3, "Nf3"),
            mv(3, "Bc4"),
            mv(4, "Nc6"),
            takeback(2, "after e5"),
            mv(3, "d4"),
            mv(4, "exd4"),
            retract(4, "exd4"),
            mv(4, "d6"),
        ];
        for cut in 0..=kinds.len() {
            let mut view = PublicView::new(10_000, 0);
            let live: Vec<Event> = kinds
                .iter()
                .enumerate()
                .map(|(i, k)| at(1_000 * (i as u64 + 1), k.clone()))
                .collect();
            let mut shown = Vec::new();
            for (i, e) in live.iter().enumerate() {
                if i == cut {
                    // Release what is due by now (the first `cut` events).
                    shown.extend(view.release(e.t_ms + 10_000 - 1_000));
                }
                view.push(e.t_ms, e).unwrap();
            }
            shown.extend(view.release(u64::MAX / 2));
            let expected = log_of(&live);
            assert_eq!(sans(view.log()), sans(&expected), "cut {cut}");
            // No move the live game withdrew before its release was shown.
            if cut <= 3 {
                assert!(
                    !shown.iter().any(
                        |e| matches!(&e.kind, EventKind::Move { notation, .. } if notation == "Nf3")
                    ),
                    "cut {cut}: {shown:?}"
                );
            }
        }
    }
}
