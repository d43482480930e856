//! What a board keeps for the round's report: its error and action alerts
//! (withdrawn when the readings clear them), the arbiter's decisions about
//! them (kept in the chain's [`Journal`]), and the round each game was
//! played in. The session feeds it every event it publishes and asks it
//! for the report's games and alerts.

use tracing::warn;

use super::Journal;
use crate::control::Outcome;
use crate::event::{Decision, Event, EventKind};
use crate::report::{AlertEntry, DecisionEntry, GameEntry};
use crate::sink::record::GameLog;
use crate::sink::round::Round;

/// A board's records for the round's report.
#[derive(Debug, Default)]
pub struct Records {
    /// The board's error and action alerts, with the arbiter's decisions.
    alerts: Vec<AlertEntry>,
    /// Each game's seat (round, pairing board), by the board's game
    /// number (1 = index 0).
    game_seats: Vec<(u32, u32)>,
    /// Where the arbiter's decisions are kept.
    journal: Option<Journal>,
}

impl Records {
    /// Keeps the arbiter's decisions in `journal`, and applies those
    /// already there to the alerts kept so far (a resumed chain's).
    pub fn keep_in(&mut self, journal: Journal) {
        for d in journal.read() {
            if let Some(a) = self.alerts.iter_mut().find(|a| a.seq == d.alert) {
                a.decision = Some(d);
            }
        }
        self.journal = Some(journal);
    }

    /// The alerts kept, decisions included.
    pub fn alerts(&self) -> &[AlertEntry] {
        &self.alerts
    }

    /// Notes a published event, `log` already holding it: a game's start
    /// under `seat` (round, pairing board); an error or action alert, or
    /// its withdrawal.
    pub fn note(&mut self, e: &Event, log: &GameLog, seat: (u32, u32)) {
        if matches!(e.kind, EventKind::GameStart { .. }) {
            // The seat is taken before the start is noted.
            self.game_seats
                .resize(log.games().len().saturating_sub(1), seat);
            self.game_seats.push(seat);
        }
        let EventKind::Alert(a) = &e.kind else {
            return;
        };
        if !crate::report::reported(a.kind) {
            return;
        }
        let game = log.games().len();
        if a.cleared {
            if let Some(open) = self
                .alerts
                .iter_mut()
                .rev()
                .find(|x| x.kind == a.kind && x.game == game && !x.withdrawn)
            {
                open.withdrawn = true;
            }
            return;
        }
        // An alert no reading made (a resume shorter than the published
        // record) has no evidence: it is listed as number 0, which no
        // reading's alert has, so the arbiter can still decide it.
        let seq = a.evidence.map_or(0, |ev| ev.seq);
        let ply = log.current().map_or(0, |g| g.sans.len());
        self.alerts.push(AlertEntry {
            seq,
            t_ms: e.t_ms,
            game,
            ply,
            move_number: ply / 2 + 1,
            kind: a.kind,
            severity: a.kind.severity(),
            side: a.side,
            law: a.law.clone(),
            message: a.message.clone(),
            evidence: a.evidence,
            withdrawn: false,
            decision: None,
        });
    }

    /// The arbiter's decision about alert `seq`, from `by`: kept and
    /// written to the journal. `Err` says why nothing changed (no such
    /// alert, or the same decision already taken).
    pub fn decide(
        &mut self,
        seq: u64,
        decision: Decision,
        note: &Option<String>,
        by: &str,
        at_unix_ms: u64,
    ) -> Result<(), Outcome> {
        let Some(entry) = self.alerts.iter_mut().find(|a| a.seq == seq) else {
            return Err(Outcome {
                accepted: false,
                changed: false,
                message: format!("no error or action alert {seq} on this board"),
            });
        };
        if entry
            .decision
            .as_ref()
            .is_some_and(|d| d.decision == decision && &d.note == note)
        {
            return Err(Outcome {
                accepted: true,
                changed: false,
                message: format!("alert {seq} is already {}", decision.name()),
            });
        }
        let d = DecisionEntry {
            alert: seq,
            decision,
            note: note.clone(),
            at_unix_ms,
            by: by.to_string(),
        };
        entry.decision = Some(d.clone());
        if let Some(j) = &self.journal
            && let Err(e) = j.append(&d)
        {
            warn!(journal = %j.path().display(), error = %e, "the decisions journal cannot be written: this decision is lost at a restart");
        }
        Ok(())
    }

    /// The game on moved to `seat` (its first move came in a later
    /// round than the one it was set up in).
    pub fn reseat(&mut self, seat: (u32, u32)) {
        if let Some(last) = self.game_seats.last_mut() {
            *last = seat;
        }
    }

    /// The report's games of `log`, played on sensor board `board`: each
    /// with the round it was played in (`current`, the seat of the game
    /// on, for a game not noted) and the players of its pairing board in
    /// that round. A game the round's ledger did not take (the board set
    /// up again after its pairing's game ended) is not a game of the
    /// round: it is left out.
    pub fn games(
        &self,
        log: &GameLog,
        round: &Round,
        board: &str,
        current: (u32, u32),
    ) -> Vec<GameEntry> {
        log.games()
            .iter()
            .enumerate()
            .filter_map(|(i, g)| {
                let (played_in, number) = self.game_seats.get(i).copied().unwrap_or(current);
                let key = crate::sink::ledger::GameKey::of(board, g);
                if round.closed_by_other((played_in, number), &key) {
                    return None;
                }
                let p = round.players_in(played_in, number);
                Some(GameEntry {
                    game: i + 1,
                    round: played_in,
                    white: p.as_ref().map(|p| p.white.name.clone()),
                    black: p.as_ref().map(|p| p.black.name.clone()),
                    result: g.result.clone().unwrap_or_else(|| "*".into()),
                    reason: g.reason.clone(),
                    plies: g.sans.len(),
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Alert, AlertKind, Evidence, GameId};

    fn event(t_ms: u64, kind: EventKind) -> Event {
        Event {
            board: "1".into(),
            t_ms,
            game: GameId::Chess,
            kind,
        }
    }

    fn alert(seq: u64, kind: AlertKind, cleared: bool) -> EventKind {
        EventKind::Alert(Alert {
            kind,
            side: None,
            law: None,
            message: format!("{kind:?}"),
            cleared,
            evidence: Some(Evidence {
                seq,
                from_t_ms: 0,
                to_t_ms: 10,
            }),
        })
    }

    #[test]
    fn an_alert_cleared_is_withdrawn_and_a_notice_is_not_kept() {
        let (mut r, log) = (Records::default(), GameLog::new());
        r.note(
            &event(5, alert(3, AlertKind::Misplaced, false)),
            &log,
            (1, 1),
        );
        // A notice (not an error or action alert) is not the report's.
        r.note(
            &event(6, alert(4, AlertKind::StartNotSeen, false)),
            &log,
            (1, 1),
        );
        assert_eq!(r.alerts().len(), 1, "{:?}", r.alerts());
        assert!(!r.alerts()[0].withdrawn);
        r.note(
            &event(9, alert(5, AlertKind::Misplaced, true)),
            &log,
            (1, 1),
        );
        assert_eq!(r.alerts().len(), 1);
        assert!(r.alerts()[0].withdrawn, "the readings cleared it");
        assert_eq!((r.alerts()[0].seq, r.alerts()[0].t_ms), (3, 5));
    }

    #[test]
    fn a_decision_is_journalled_and_applied_again_after_a_restart() {
        let dir = tempfile::tempdir().unwrap();
        let capture = dir.path().join("1-S.capture");
        let log = GameLog::new();
        let mut r = Records::default();
        r.keep_in(Journal::of_chain(&capture));
        r.note(
            &event(5, alert(7, AlertKind::IllegalMove, false)),
            &log,
            (2, 1),
        );
        let none = r.decide(8, Decision::Confirmed, &None, "arbiter", 1);
        assert!(
            matches!(
                none,
                Err(Outcome {
                    accepted: false,
                    ..
                })
            ),
            "{none:?}"
        );
        let note = Some("seen".to_string());
        assert!(
            r.decide(7, Decision::Confirmed, &note, "arbiter", 1)
                .is_ok()
        );
        let again = r.decide(7, Decision::Confirmed, &note, "arbiter", 2);
        assert!(
            matches!(
                again,
                Err(Outcome {
                    accepted: true,
                    changed: false,
                    ..
                })
            ),
            "{again:?}"
        );
        // A restart: the same alert resumed, the journal read back.
        let mut back = Records::default();
        back.note(
            &event(5, alert(7, AlertKind::IllegalMove, false)),
            &log,
            (2, 1),
        );
        back.keep_in(Journal::of_chain(&capture));
        let d = back.alerts()[0]
            .decision
            .as_ref()
            .expect("the decision came back");
        assert_eq!(
            (d.decision, d.note.as_deref(), d.by.as_str()),
            (Decision::Confirmed, Some("seen"), "arbiter")
        );
    }
}
