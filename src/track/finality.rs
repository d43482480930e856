//! Finality: when a move the board shows becomes a move of the record.
//!
//! Design: the reconstructor publishes a move once it has stood its settle
//! time; that is fast, but a hand can still change it (a piece set down on
//! the way to its square, a capture finished a moment later). Real players
//! set pieces down on the way for about a third of a second, with a tail
//! of up to two seconds (the recordings in docs/boards.md, "Handling
//! profiles of the simulator"), so no settle time is both short and safe.
//! Instead, every move is first *provisional* (the `provisional` event,
//! for screens that want speed) and becomes *final* (the `move` event,
//! which every record is built from) on evidence:
//!
//! - the mover pressed the clock (FIDE Law 6.2a: the move is completed);
//! - the opponent replied: their move was published, or they lifted a
//!   piece of their own (a capture's victim is the mover's piece, not
//!   theirs). A reply that moves the very piece the last move's piece
//!   could take from where it stands proves nothing alone (a victim set
//!   down beside for a moment, on a square it could move to, before the
//!   capture is finished): both wait, for the clock, the next move or
//!   their time;
//! - time: the board has shown the move, with nothing else settling, for
//!   [`crate::games::settle::SettleRule::final_ms`] since the reading that
//!   completed it, longer than any stop on the way in the real recordings;
//! - the game ended or a new one began (nothing seen is ever lost).
//!
//! A provisional move the board stops showing is dropped without a trace
//! in the records: a later `provisional` or `move` event of the same ply
//! supersedes it, and one that nothing replaces is withdrawn with a
//! `provisional` event marked `withdrawn`. Only a final move can be
//! retracted (`retract`), or taken back (`takeback`).
//!
//! This stage only reorders and relabels the reconstructor's own events:
//! which move the board shows is still the reconstructor's business.

use std::collections::VecDeque;

use crate::event::{AlertKind, EventKind, Millis, Side};

/// The reconstructor's event queue: events with the time of the reading
/// that caused them.
type Out = VecDeque<(Millis, EventKind)>;

/// What waits for finality, in the order it came.
#[derive(Clone, Debug)]
enum Entry {
    /// A provisional ply: its `move` event and what came with it (the
    /// touch reports before it, the rule book's verdicts after it), which
    /// go wherever the move goes.
    Ply {
        t: Millis,
        before: Vec<(Millis, EventKind)>,
        kind: EventKind,
        after: Vec<(Millis, EventKind)>,
    },
    /// Any other event that came while a ply waited: it keeps its place
    /// behind the ply, and is never dropped.
    Loose(Millis, EventKind),
}

/// The finality of one board's game: which plies are final, which are
/// still provisional.
#[derive(Clone, Debug, Default)]
pub(super) struct Finality {
    /// The game's position before its first ply and after each final ply,
    /// as the events write it.
    positions: Vec<String>,
    /// What waits: provisional plies, and what came after the first one.
    pending: Vec<Entry>,
    /// When the pending moves become final on time alone.
    due: Option<Millis>,
    /// The provisional moves screens were last shown beyond the final
    /// plies, as (ply, id, mover): a preview or a pending move.
    shown: Vec<(u32, String, Side)>,
    /// The ply that, if the opponent's, leaves the pending moves
    /// provisional (see [`Finality::hold_reply`]).
    hold: Option<u32>,
}

impl Finality {
    /// Ply `ply`, when routed, does not make the pending moves final if it
    /// is the opponent's reply: it moves the piece the last pending move's
    /// piece could capture from where it stands, as a victim set down
    /// beside on the way off the board does.
    pub(super) fn hold_reply(&mut self, ply: u32) {
        self.hold = Some(ply);
    }

    /// The number of final plies.
    pub(super) fn final_plies(&self) -> usize {
        self.positions.len().saturating_sub(1)
    }

    /// Whether some move is provisional.
    pub(super) fn is_pending(&self) -> bool {
        self.plies().next().is_some()
    }

    /// When the pending moves become final on time alone, if any waits.
    pub(super) fn due(&self) -> Option<Millis> {
        self.due.filter(|_| self.is_pending())
    }

    /// The pending plies' `move` events, oldest first.
    fn plies(&self) -> impl Iterator<Item = &EventKind> {
        self.pending.iter().filter_map(|e| match e {
            Entry::Ply { kind, .. } => Some(kind),
            Entry::Loose(..) => None,
        })
    }

    /// How many plies are provisional.
    pub(super) fn pending_plies(&self) -> usize {
        self.plies().count()
    }

    /// The side that made the provisional moves' last ply.
    pub(super) fn pending_mover(&self) -> Option<Side> {
        match self.plies().last() {
            Some(EventKind::Move { side, .. }) => Some(*side),
            _ => None,
        }
    }

    /// Routes a batch of the reconstructor's events, made together by one
    /// reading (a move with its touch reports and verdicts, a correction
    /// withdrawing plies and playing others), to `out`. Each move becomes
    /// provisional with the reports before it and the verdicts after it;
    /// the rest goes as [`Finality::route`] says. `final_ms`: see the
    /// module.
    pub(super) fn route_batch(
        &mut self,
        at: Millis,
        batch: Vec<EventKind>,
        final_ms: Millis,
        out: &mut Out,
    ) {
        let mut before = Vec::new();
        let mut in_ply = false;
        for kind in batch {
            match kind {
                EventKind::Move { .. } => {
                    self.provisional(at, std::mem::take(&mut before), kind, final_ms, out);
                    in_ply = true;
                }
                EventKind::Retract { .. } | EventKind::Takeback { .. } => {
                    for (t, k) in before.drain(..) {
                        self.route(t, k, final_ms, out);
                    }
                    in_ply = false;
                    self.route(at, kind, final_ms, out);
                }
                kind if in_ply => {
                    if let Some(Entry::Ply { after, .. }) = self.pending.last_mut() {
                        after.push((at, kind));
                    }
                }
                kind => before.push((at, kind)),
            }
        }
        for (t, k) in before {
            self.route(t, k, final_ms, out);
        }
    }

    /// Routes one of the reconstructor's events to `out`: a move becomes
    /// provisional, a withdrawal of a provisional move is told as such,
    /// and everything else waits behind the provisional moves (or passes
    /// when none waits), after the pending moves are made final when the
    /// event proves them so.
    pub(super) fn route(&mut self, at: Millis, kind: EventKind, final_ms: Millis, out: &mut Out) {
        match kind {
            EventKind::Move { .. } => self.provisional(at, Vec::new(), kind, final_ms, out),
            EventKind::Retract { ply, id } => {
                let found = self
                    .pending
                    .iter()
                    .position(|e| matches!(e, Entry::Ply { kind, .. } if ply_of(kind) == ply));
                if let Some(i) = found {
                    let gone = self.pending.remove(i);
                    self.shown.retain(|(p, _, _)| *p < ply);
                    out.push_back((at, self.withdrawal(&gone)));
                    self.release_loose(out);
                } else {
                    self.make_final(out);
                    self.shown.clear();
                    self.positions.truncate(ply as usize);
                    out.push_back((at, EventKind::Retract { ply, id }));
                }
            }
            EventKind::Takeback { to_ply, position } => {
                let to = to_ply as usize;
                if to >= self.final_plies() {
                    let keep = to - self.final_plies();
                    let mut plies = 0;
                    let cut = self.pending.iter().position(|e| {
                        plies += usize::from(matches!(e, Entry::Ply { .. }));
                        plies > keep
                    });
                    if let Some(i) = cut {
                        let gone = self.pending.remove(i);
                        let mut k = 0;
                        self.pending.retain(|e| {
                            k += 1;
                            k <= i || matches!(e, Entry::Loose(..))
                        });
                        self.shown.retain(|(p, _, _)| *p <= to_ply);
                        out.push_back((at, self.withdrawal(&gone)));
                        self.release_loose(out);
                    }
                } else {
                    self.pending.retain(|e| matches!(e, Entry::Loose(..)));
                    self.shown.clear();
                    self.release_loose(out);
                    self.positions.truncate(to + 1);
                    out.push_back((at, EventKind::Takeback { to_ply, position }));
                }
            }
            EventKind::GameStart { ref position, .. } => {
                self.make_final(out);
                self.positions = vec![position.clone()];
                self.shown.clear();
                out.push_back((at, kind));
            }
            // A result given (the players' signal, a result piece, the
            // operator) ends every wait.
            EventKind::GameEnd { .. } => {
                self.make_final(out);
                out.push_back((at, kind));
            }
            // A completed illegal move is the opponent's reply.
            EventKind::Alert(ref a) if a.kind == AlertKind::IllegalMove && !a.cleared => {
                self.make_final(out);
                out.push_back((at, kind));
            }
            kind if self.is_pending() => self.pending.push(Entry::Loose(at, kind)),
            kind => out.push_back((at, kind)),
        }
    }

    /// A move, shown at once as provisional. The opponent's move makes
    /// whatever was pending final first.
    fn provisional(
        &mut self,
        at: Millis,
        before: Vec<(Millis, EventKind)>,
        kind: EventKind,
        final_ms: Millis,
        out: &mut Out,
    ) {
        let EventKind::Move { side, ply, .. } = &kind else {
            return;
        };
        let held = self.hold == Some(*ply);
        self.hold = self.hold.filter(|h| h > ply);
        if self.pending_mover().is_some_and(|s| s != *side) && !held {
            self.make_final(out);
        }
        self.show(at, &kind, out);
        self.pending.push(Entry::Ply {
            t: at,
            before,
            kind,
            after: Vec::new(),
        });
        self.due = Some(at + final_ms);
    }

    /// Shows a move settling on the board as provisional before the
    /// reconstructor publishes it (`kind` is its `move` event).
    pub(super) fn preview(&mut self, at: Millis, kind: &EventKind, out: &mut Out) {
        self.show(at, kind, out);
    }

    /// The board is back on the game's position, `plies` long: a preview
    /// of a later ply is withdrawn.
    pub(super) fn unshow(&mut self, at: Millis, plies: usize, out: &mut Out) {
        let Some(i) = self
            .shown
            .iter()
            .position(|(ply, _, _)| *ply as usize > plies)
        else {
            return;
        };
        let (ply, id, side) = self.shown[i].clone();
        self.shown.truncate(i);
        out.push_back((
            at,
            EventKind::Provisional {
                ply,
                side,
                notation: String::new(),
                id,
                position: self.current_position(),
                withdrawn: true,
            },
        ));
    }

    /// The `provisional` event of a move (`kind` its `move` event), unless
    /// screens were shown that very move last; it supersedes a
    /// withdrawal of the same ply told just now.
    fn show(&mut self, at: Millis, kind: &EventKind, out: &mut Out) {
        let EventKind::Move { ply, id, side, .. } = kind else {
            return;
        };
        let already = self.shown.iter().any(|(p, i, _)| p == ply && i == id);
        self.shown.retain(|(p, _, _)| p < ply);
        self.shown.push((*ply, id.clone(), *side));
        if already {
            return;
        }
        if let Some((
            _,
            EventKind::Provisional {
                ply: p,
                withdrawn: true,
                ..
            },
        )) = out.back()
            && p == ply
        {
            out.pop_back();
        }
        out.push_back((at, provisional(kind)));
    }

    /// The position the provisional plies reach (the last final one's
    /// when none waits).
    fn current_position(&self) -> String {
        match self.plies().last() {
            Some(EventKind::Move { position, .. }) => position.clone(),
            _ => self.positions.last().cloned().unwrap_or_default(),
        }
    }

    /// Makes every pending move final: their `move` events, each with the
    /// time of the reading that completed it, and what waited with them.
    pub(super) fn make_final(&mut self, out: &mut Out) {
        for entry in std::mem::take(&mut self.pending) {
            match entry {
                Entry::Ply {
                    t,
                    before,
                    kind,
                    after,
                } => {
                    if let EventKind::Move { position, ply, .. } = &kind {
                        self.positions.push(position.clone());
                        self.shown.retain(|(p, _, _)| p > ply);
                    }
                    out.extend(before);
                    out.push_back((t, kind));
                    out.extend(after);
                }
                Entry::Loose(t, kind) => out.push_back((t, kind)),
            }
        }
        self.due = None;
    }

    /// With no provisional ply left, what waited behind them goes out.
    fn release_loose(&mut self, out: &mut Out) {
        if !self.is_pending() {
            self.make_final(out);
        }
    }

    /// The `provisional` event that withdraws the ply of `gone` (its
    /// reports and verdicts go with it): the board is back on the
    /// position before it.
    fn withdrawal(&self, gone: &Entry) -> EventKind {
        let Entry::Ply {
            kind:
                EventKind::Move {
                    ply,
                    side,
                    notation,
                    id,
                    ..
                },
            ..
        } = gone
        else {
            unreachable!("only plies are withdrawn");
        };
        let before = self.current_position();
        EventKind::Provisional {
            ply: *ply,
            side: *side,
            notation: notation.clone(),
            id: id.clone(),
            position: before,
            withdrawn: true,
        }
    }
}

/// The ply of a pending move's event.
fn ply_of(kind: &EventKind) -> u32 {
    match kind {
        EventKind::Move { ply, .. } => *ply,
        _ => 0,
    }
}

/// The `provisional` event of a move's.
fn provisional(kind: &EventKind) -> EventKind {
    match kind.clone() {
        EventKind::Move {
            ply,
            side,
            notation,
            id,
            position,
            ..
        } => EventKind::Provisional {
            ply,
            side,
            notation,
            id,
            position,
            withdrawn: false,
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(ply: u32, uci: &str) -> EventKind {
        EventKind::Move {
            ply,
            side: if ply % 2 == 1 {
                Side::White
            } else {
                Side::Black
            },
            notation: uci.into(),
            id: uci.into(),
            position: format!("after {uci}"),
            irregular: false,
        }
    }

    fn start() -> (Finality, VecDeque<(Millis, EventKind)>) {
        let mut f = Finality::default();
        let mut out = VecDeque::new();
        let start = EventKind::GameStart {
            position: "start".into(),
            chess960: None,
            rotated: false,
        };
        f.route(0, start, 2_500, &mut out);
        out.clear();
        (f, out)
    }

    fn types(out: &VecDeque<(Millis, EventKind)>) -> Vec<String> {
        out.iter()
            .map(|(t, e)| match e {
                EventKind::Move { ply, .. } => format!("{t} move {ply}"),
                EventKind::Provisional {
                    ply,
                    withdrawn,
                    position,
                    ..
                } => {
                    format!(
                        "{t} provisional {ply}{}",
                        if *withdrawn {
                            format!(" withdrawn to {position}")
                        } else {
                            String::new()
                        }
                    )
                }
                EventKind::Retract { ply, .. } => format!("{t} retract {ply}"),
                EventKind::Takeback { to_ply, .. } => format!("{t} takeback {to_ply}"),
                other => format!("{t} {other:?}"),
            })
            .collect()
    }

    #[test]
    fn a_move_is_provisional_until_the_reply_makes_it_final() {
        let (mut f, mut out) = start();
        f.route(100, mv(1, "e2e4"), 2_500, &mut out);
        assert_eq!(f.due(), Some(2_600));
        f.route(900, mv(2, "e7e5"), 2_500, &mut out);
        assert_eq!(
            types(&out),
            ["100 provisional 1", "100 move 1", "900 provisional 2"]
        );
        assert_eq!(f.final_plies(), 1);
        assert_eq!(f.pending_mover(), Some(Side::Black));
    }

    #[test]
    fn a_provisional_move_replaced_is_never_a_retraction() {
        let (mut f, mut out) = start();
        f.route(100, mv(1, "b1d2"), 2_500, &mut out);
        f.route(
            600,
            EventKind::Retract {
                ply: 1,
                id: "b1d2".into(),
            },
            2_500,
            &mut out,
        );
        f.route(600, mv(1, "b1c3"), 2_500, &mut out);
        assert_eq!(types(&out), ["100 provisional 1", "600 provisional 1"]);
        f.make_final(&mut out);
        assert_eq!(types(&out)[2..], ["600 move 1"]);
    }

    #[test]
    fn a_provisional_move_put_back_is_withdrawn_to_the_position_before_it() {
        let (mut f, mut out) = start();
        f.route(100, mv(1, "e2e4"), 2_500, &mut out);
        f.make_final(&mut out);
        f.route(900, mv(2, "g8f6"), 2_500, &mut out);
        f.route(
            1_500,
            EventKind::Takeback {
                to_ply: 1,
                position: "after e2e4".into(),
            },
            2_500,
            &mut out,
        );
        assert_eq!(
            types(&out),
            [
                "100 provisional 1",
                "100 move 1",
                "900 provisional 2",
                "1500 provisional 2 withdrawn to after e2e4"
            ]
        );
        assert!(!f.is_pending());
    }

    #[test]
    fn only_final_moves_are_retracted_or_taken_back() {
        let (mut f, mut out) = start();
        f.route(100, mv(1, "e2e4"), 2_500, &mut out);
        f.route(900, mv(2, "e7e5"), 2_500, &mut out);
        out.clear();
        f.route(
            5_000,
            EventKind::Retract {
                ply: 2,
                id: "e7e5".into(),
            },
            2_500,
            &mut out,
        );
        f.route(
            5_000,
            EventKind::Retract {
                ply: 1,
                id: "e2e4".into(),
            },
            2_500,
            &mut out,
        );
        assert_eq!(
            types(&out),
            [
                "5000 provisional 2 withdrawn to after e2e4",
                "5000 retract 1"
            ]
        );
        assert_eq!(f.final_plies(), 0);
    }

    #[test]
    fn the_end_of_a_game_makes_its_last_move_final() {
        let (mut f, mut out) = start();
        f.route(100, mv(1, "f2f3"), 2_500, &mut out);
        let end = EventKind::GameEnd {
            result: "0-1".into(),
            reason: "checkmate".into(),
            winner: Some(Side::Black),
        };
        f.route(100, end, 2_500, &mut out);
        assert_eq!(types(&out)[..2], ["100 provisional 1", "100 move 1"]);
    }
}
