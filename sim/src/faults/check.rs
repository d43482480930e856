//! How a replay of a fault case went: the alert raised or not, the side
//! it named, the record published, false alarms.

use boardcast::event::EventKind;
use boardcast::replay::{Played, Replay};

use super::{FaultCase, FaultCheck, alerts_errors, record_ids};

/// How many of `events` withdrew a final move (`retract`).
fn retractions<'a>(events: impl Iterator<Item = &'a EventKind>) -> usize {
    events
        .filter(|e| matches!(e, EventKind::Retract { .. }))
        .count()
}
use crate::Session;
use crate::open::OtherGameSession;

impl FaultCase<Session> {
    /// How boardcast handled this case, from the replay of its capture.
    pub fn check(&self, replay: &Replay) -> FaultCheck {
        let case = self;
        let want = case.kind.alert();
        let alerts: Vec<&boardcast::event::Alert> = replay
            .events
            .iter()
            .filter_map(|(_, e)| match &e.kind {
                EventKind::Alert(a) => Some(a),
                _ => None,
            })
            .collect();
        let raised: Vec<_> = alerts
            .iter()
            .filter(|a| a.kind == want && !a.cleared)
            .collect();
        let side = case.side;
        // An error alert of another kind that was later withdrawn (displaced
        // pieces that turned out to be the illegal move) is reported by
        // `reclassified`, not counted as a false alarm.
        let withdrawn = |i: usize, a: &boardcast::event::Alert| {
            a.kind != want
                && alerts[i + 1..]
                    .iter()
                    .any(|b| b.kind == a.kind && b.cleared)
        };
        let reclassified = alerts
            .iter()
            .enumerate()
            .any(|(i, a)| a.kind.is_error() && !a.cleared && withdrawn(i, a));
        let extra_errors = alerts
            .iter()
            .enumerate()
            .filter(|(i, a)| a.kind.is_error() && !a.cleared && !withdrawn(*i, a))
            .count()
            .saturating_sub(usize::from(!raised.is_empty()));
        let published = replay
            .log
            .current()
            .map(|g| g.sans.clone())
            .unwrap_or_default();
        FaultCheck {
            raised: !raised.is_empty(),
            side_right: raised.first().is_some_and(|a| a.side == side),
            exact: published == case.record,
            extra_errors,
            reclassified,
            cleared: alerts.iter().any(|a| a.kind == want && a.cleared),
            retracted: retractions(replay.events.iter().map(|(_, e)| &e.kind)),
        }
    }
}

impl FaultCase<OtherGameSession> {
    /// How boardcast handled this case, from the replay of its lines.
    pub fn check(&self, replay: &Played) -> FaultCheck {
        let case = self;
        let want = case.kind.alert();
        // The alerts from the fault on (after the move that preceded it): an
        // earlier informational alert (a knock read as a touch) is not it.
        let from = replay
            .events
            .iter()
            .rposition(
                |e| matches!(&e.kind, EventKind::Move { ply, .. } if *ply as usize == case.at_ply),
            )
            .map_or(0, |i| i + 1);
        let alerts: Vec<&boardcast::event::Alert> = replay.events[from..]
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Alert(a) => Some(a),
                _ => None,
            })
            .collect();
        let earlier_errors = alerts_errors(&replay.events[..from]);
        let raised: Vec<_> = alerts
            .iter()
            .filter(|a| {
                a.kind == want
                    && !a.cleared
                    && case.kind.says().is_none_or(|s| a.message.contains(s))
            })
            .collect();
        // An error alert withdrawn later (displaced pieces that turned out to
        // be the illegal move, or a misplacement put right) is no false alarm
        // when it is of another kind than the expected one.
        let withdrawn = |i: usize, a: &boardcast::event::Alert| {
            alerts[i + 1..]
                .iter()
                .any(|b| b.kind == a.kind && b.cleared)
        };
        let reclassified = alerts
            .iter()
            .enumerate()
            .any(|(i, a)| a.kind.is_error() && a.kind != want && !a.cleared && withdrawn(i, a));
        let extra_errors = alerts
            .iter()
            .enumerate()
            .filter(|(i, a)| {
                a.kind.is_error() && !a.cleared && (a.kind == want || !withdrawn(*i, a))
            })
            .count()
            .saturating_sub(usize::from(!raised.is_empty() && want.is_error()))
            + earlier_errors;
        FaultCheck {
            raised: !raised.is_empty(),
            side_right: raised.first().is_some_and(|a| a.side == case.side),
            exact: record_ids(replay) == case.record,
            extra_errors,
            reclassified,
            cleared: alerts.iter().any(|a| a.kind == want && a.cleared),
            retracted: retractions(replay.events.iter().map(|e| &e.kind)),
        }
    }
}
