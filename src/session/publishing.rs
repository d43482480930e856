//! What a session publishes after each change: the retained state (JSON)
//! and the PGN, to the arbiters live and to the public live or through
//! the broadcast delay, and the public's events as the delay releases
//! them.

use super::*;

impl Session {
    /// The state as published now (the live game).
    pub fn state(&self, t: Millis) -> StateMessage {
        self.state_of(&self.log, true, t)
    }

    /// The state with the game as `log` has it: the live log (`live`), or
    /// what the delayed public has seen.
    pub(super) fn state_of(&self, log: &GameLog, live: bool, t: Millis) -> StateMessage {
        let game = log.current();
        let pairing = self.round.pairing_in(self.game_round, self.number);
        let kind = self.pipeline.game();
        let chess = kind == crate::event::GameId::Chess;
        StateMessage {
            game_type: kind,
            board: self.id.clone(),
            status: self.status,
            port: self.port.clone(),
            serial: self.serial.clone(),
            model: self.pipeline.sightings().identity.name.clone(),
            firmware: self.pipeline.sightings().identity.version.clone(),
            family: self.family,
            // The delayed public view says nothing of the board's live
            // agreement with the game (an alert is the arbiters' business).
            recognised: if live {
                self.pipeline.in_game() && !self.disagrees
            } else {
                game.is_some()
            },
            // The delayed view: as the board stood for the public's game.
            rotated: if live {
                self.pipeline.is_rotated()
            } else {
                game.is_some_and(|g| g.rotated)
            },
            irregular: game.is_some_and(|g| !g.irregularities.is_empty()),
            game: log.games().len(),
            chess: chess.then(|| state::ChessState {
                start_fen: game.map(|g| g.start_fen.clone()),
                chess960: game.is_some_and(|g| g.chess960),
                fen: game.map(|g| g.fen.clone()),
                moves: game.map(|g| g.sans.clone()).unwrap_or_default(),
                uci: game.map(|g| g.ucis.clone()).unwrap_or_default(),
            }),
            other: (!chess).then(|| state::GameState {
                start_position: game.map(|g| g.start_fen.clone()),
                position: game.map(|g| g.fen.clone()),
                notation: game.map(|g| g.sans.clone()).unwrap_or_default(),
                id: game.map(|g| g.ucis.clone()).unwrap_or_default(),
            }),
            placement: live.then(|| self.pipeline.sensed_placement()),
            readiness: if live { self.readiness_now() } else { None },
            ply: game.map_or(0, |g| g.sans.len()),
            last_move: game.and_then(|g| state::last_move(g, chess)),
            result: game.and_then(|g| g.result.clone()),
            reason: game.and_then(|g| g.reason.clone()),
            clock: game.and_then(|g| {
                let (first, second) = g.clock?;
                let (mut white, mut black, mut red) = (None, 0, None);
                for (side, secs) in g.game.sides().into_iter().zip([first, second]) {
                    match side {
                        Side::White => white = Some(secs),
                        Side::Black => black = secs,
                        Side::Red => red = Some(secs),
                    }
                }
                Some(ClockState {
                    white,
                    black,
                    red,
                    estimated: g.clock_estimated,
                })
            }),
            round: self.game_round,
            number: self.number,
            white: pairing.as_ref().map(|p| p.white.clone()),
            black: pairing.map(|p| p.black),
            t_ms: t,
        }
    }

    /// The board check, before the first move of a game (none yet, or
    /// the last one over).
    pub(super) fn readiness_now(&self) -> Option<Readiness> {
        let before = self
            .log
            .current()
            .is_none_or(|g| g.sans.is_empty() || g.result.is_some());
        let context = Context {
            connected: self.status == LinkStatus::Connected,
            port: self.port.clone(),
            time_control: self.time_control.clone(),
        };
        before.then(|| Readiness::of(&self.pipeline, context))
    }

    /// The retained state and PGN of the game as `log` has it.
    pub(super) fn rendered(&self, log: &GameLog, live: bool, t: Millis) -> (String, String) {
        let state = serde_json::to_string(&self.state_of(log, live, t)).expect("states serialise");
        let pgn = match log.current() {
            Some(g) => render(g, &self.round.tags(self.game_round, self.number)),
            None => String::new(),
        };
        (state, pgn)
    }

    /// Publishes the live state to the arbiters and, without a delay, to
    /// the public; with a delay the public's own goes out only when the
    /// delay releases something (see `release`), or the board's link
    /// changes ([`Session::publish_public_state`]).
    pub(super) fn publish_state(&self, t: Millis) {
        self.publish_state_to(t, true);
    }

    /// [`Session::publish_state`]; `redraw`: `false` when only the
    /// sensed placement changed, which a page need not redraw on every
    /// lifted piece.
    ///
    /// Design: with a delay, a live change never republishes the public
    /// state, not even unchanged: its arrival would tell the hall, within
    /// milliseconds, that something just happened on the board.
    ///
    /// Without a delay the public's state and PGN are the live ones, less
    /// what alerts put in them (the `irregular` flag, the first error
    /// alert's sentence in the PGN) unless alerts are public: the same the
    /// delayed view shows, which alerts never enter then.
    pub(super) fn publish_state_to(&self, t: Millis, redraw: bool) {
        let (state, pgn) = self.rendered(&self.log, true, t);
        for sink in &self.outputs.arbiter {
            sink.state(&state, &pgn, redraw);
        }
        if self.public.is_some() {
            return;
        }
        let alerted = self
            .log
            .current()
            .is_some_and(|g| !g.irregularities.is_empty());
        if self.outputs.public_alerts || !alerted {
            self.publish_public_to(&state, &pgn, redraw);
        } else {
            let mut log = self.log.clone();
            if let Some(g) = log.current_mut() {
                g.irregularities.clear();
            }
            let (state, pgn) = self.rendered(&log, true, t);
            self.publish_public_to(&state, &pgn, redraw);
        }
    }

    /// With a delay: the public's state and PGN, made from the game as the
    /// public has seen it and stamped with the time of the last event it
    /// was given (never the live time).
    pub(super) fn publish_public_state(&self) {
        if let Some(p) = &self.public {
            let (state, pgn) = self.rendered(p.log(), false, p.shown_t());
            self.publish_public_to(&state, &pgn, true);
        }
    }

    pub(super) fn publish_public_to(&self, state: &str, pgn: &str, redraw: bool) {
        for sink in &self.outputs.public {
            sink.state(state, pgn, redraw);
        }
    }

    /// Hands the public what the delay lets out by `t`: its events, then
    /// its state, PGN and folder entry.
    pub(super) fn release(&mut self, t: Millis) {
        let Some(p) = &mut self.public else {
            return;
        };
        let out = p.release(t);
        if out.is_empty() {
            return;
        }
        if let Some(start) = out
            .iter()
            .rev()
            .find(|e| matches!(e.kind, EventKind::GameStart { .. }))
            && let Some(g) = p.log_mut().current_mut()
        {
            g.date = Some(crate::wall::pgn_date_at(self.wall_epoch_ms + start.t_ms));
        }
        for event in &out {
            self.push_public(event);
        }
        if let Some(g) = self.public.as_ref().and_then(|p| p.log().current()) {
            let key = crate::sink::ledger::GameKey::of(&self.id, g);
            self.round.update(self.game_round, self.number, &key, g);
        }
        self.publish_public_state();
    }

    /// Hands one event to the public outputs (the page and the topics),
    /// unless it is an alert or a decision and those are the arbiters'
    /// alone ([`crate::delay::config::is_public`]).
    pub(super) fn push_public(&self, event: &Event) {
        if !crate::delay::config::is_public(&event.kind, self.outputs.public_alerts) {
            return;
        }
        for sink in &self.outputs.public {
            if !sink.event(event) {
                warn!(
                    dropped = sink.dropped(),
                    "event queue full: dropped the oldest unacknowledged event"
                );
            }
        }
    }
}
