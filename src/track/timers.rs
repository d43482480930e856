use crate::event::Millis;
use crate::games::Game;

use super::held::Candidate;
use super::{Context, KingsSignal, Playing};

impl<G: Game> Playing<G> {
    /// Time has reached `now`: publish what has settled, make final what
    /// has stood its time, raise what has stood long enough.
    pub(super) fn handle_timeout(&mut self, cx: &mut Context<G>, now: Millis) {
        self.preview(cx, now);
        self.fire_timers(cx, now);
        self.check_finality(cx, now);
    }

    fn fire_timers(&mut self, cx: &mut Context<G>, now: Millis) {
        let board = self.target(cx);
        if let Some(KingsSignal {
            due, plies, result, ..
        }) = self.kings
            && due <= now
        {
            // Not moves: a king move into the centre published a
            // moment before is withdrawn.
            self.kings = None;
            for e in self.withdraw(&cx.rules, plies) {
                cx.emit(now, e);
            }
            self.set_result(cx, now, result, "kings in the centre");
            return;
        }
        if self
            .held
            .candidate()
            .is_some_and(|c| c.showing && c.due() <= now)
        {
            if self.awaits_reply(&cx.rules, cx.finality.final_plies(), &board) {
                self.raise_awaiting_correction(cx, now);
            } else {
                let c = self.held.take_candidate().expect("checked");
                self.commit(cx, c);
            }
            return;
        }
        // The victim of an illegal move's piece, set down on
        // another square, has stood its time: the reply, made.
        if self
            .reply_due(cx.config.settle.final_ms)
            .is_some_and(|d| d <= now)
        {
            let target = self.target(cx);
            self.watch_unexplained(cx, now, &target);
            // (Never due again unless a reading sets it anew.)
            if let Some(x) = self.held.illegal_mut().filter(|x| x.reported.is_none()) {
                x.reply_since = None;
            }
            return;
        }
        self.fire_unexplained(cx, now);
    }

    /// The timers of a board no explanation fits: re-examined at the
    /// misplacement delay, raised at its alert's.
    fn fire_unexplained(&mut self, cx: &mut Context<G>, now: Millis) {
        // A displacement is re-examined at the misplacement delay
        // even when its alert waits longer (a king displaced onto
        // a centre square): the delay is about the alert, not
        // about which history explains the board.
        let check = cx.config.delays.misplaced_ms;
        if let Some(u) = &mut self.unexplained
            && u.raised.is_none()
            && !u.reexamined
            && u.since + check <= now
            && now < u.due
        {
            u.reexamined = true;
            let target = self.target(cx);
            if self.reexamine(cx, now, &target, true) {
                return;
            }
        }
        if let Some(u) = self.unexplained
            && u.raised.is_none()
            && u.due <= now
        {
            self.raise_unexplained(cx, now);
        }
    }

    /// When the piece an unreported illegal move's piece could capture,
    /// set down on another square, will have stood its time as the
    /// opponent's reply (see [`Reconstructor::watch_unexplained`]).
    pub(super) fn reply_due(&self, final_ms: Millis) -> Option<Millis> {
        self.held
            .illegal()
            .filter(|x| x.reported.is_none())
            .and_then(|x| x.reply_since)
            .map(|since| since + final_ms)
    }

    /// When [`Reconstructor::handle_timeout`] should next be called, if at all.
    pub(super) fn poll_timeout(&self, cx: &Context<G>) -> Option<Millis> {
        // (A correction of a final move waits for the reply once
        // it has been reported as a displacement.)
        let raised = self.unexplained.is_some_and(|u| u.raised.is_some())
            && self.awaits_reply(&cx.rules, cx.finality.final_plies(), &self.target(cx));
        let candidate = self
            .held
            .candidate()
            .filter(|c| c.showing && !raised)
            .map(Candidate::<G>::due);
        let check = cx.config.delays.misplaced_ms;
        let unexplained = self
            .unexplained
            .filter(|u| u.raised.is_none() && !self.course.ended())
            .map(|u| {
                if u.reexamined {
                    u.due
                } else {
                    u.due.min(u.since + check)
                }
            });
        let kings = self.kings.as_ref().map(|k| k.due);
        let reply = self.reply_due(cx.config.settle.final_ms);
        let preview = self
            .held
            .candidate()
            .filter(|c| c.showing && !c.previewed)
            .map(|c| c.since + cx.config.settle.provisional_ms);
        // Provisional moves: at their time when nothing else waits
        // (else a reading will tell), at the latest a misplacement
        // delay later.
        // (The game's first move: see `check_finality`.)
        let finality = cx.finality.due().map(|d| {
            if !self.first_move_pending(cx) && self.quiet(cx, d) {
                d
            } else {
                d + check
            }
        });
        [candidate, unexplained, kings, finality, preview, reply]
            .into_iter()
            .flatten()
            .min()
    }
}
