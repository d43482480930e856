//! One board's session: readings in, events, state and records out.
//!
//! The data path of one board, above the serial line and below the sinks:
//! the port code (or a capture) hands a [`Session`] bytes with their time;
//! its [`BoardPipeline`] turns them into events; the session keeps the
//! game record ([`GameLog`], PGN), the board's link status, and publishes
//! every event, and after every change the retained state (JSON, see
//! [`StateMessage`]) and the current game's PGN, to its [`Outputs`]: the
//! public's sinks (live or through the broadcast delay) and the arbiters'
//! (always live, alerts included). `boardcast run` drives one session per
//! board with daemon time; `boardcast replay` builds its pipeline from the
//! same [`BoardSetup`] a capture header declares.
//!
//! A session survives reconnections: the same pipeline (and so the same
//! game) carries on when an unplugged board comes back and dumps its
//! squares.

pub mod decisions;
pub mod outputs;
pub mod published;
mod publishing;
pub mod records;
pub mod state;

use std::sync::Arc;

use tracing::{debug, info, warn};

use crate::capture::Direction;
use crate::control::{OperatorCommand, Outcome, Request};
use crate::delay::PublicView;
use crate::event::{AlertKind, Decision, Event, EventKind, Millis, Side};
use crate::family::DriverEvent;
use crate::pipeline::{BoardPipeline, Diagnostic};
use crate::readiness::{Context, Readiness};
use crate::report::BoardReport;
use crate::setup::BoardSetup;
use crate::sink::ledger::GameKey;
use crate::sink::pgn::render;
use crate::sink::record::GameLog;
use crate::sink::round::Round;
use crate::track;
pub use decisions::Journal;
pub use outputs::{BoardSink, Outputs};
pub use records::Records;
pub use state::{ChessState, ClockState, GameState, LastMove, LinkStatus, StateMessage};

/// One board's pipeline, record and publications.
#[derive(Debug)]
pub struct Session {
    id: String,
    pipeline: BoardPipeline,
    log: GameLog,
    /// Where events, states and records go.
    outputs: Outputs,
    /// The round (tags from the pairings; the PGN folder).
    round: Arc<Round>,
    /// This board's number in the round (the pairing board the desk gave
    /// it, else its own).
    number: u32,
    /// The board's own number, from its configuration.
    own_number: u32,
    /// The games the pipeline started so far (each game's seat is looked
    /// up by its order).
    games_started: usize,
    /// The round the current game belongs to (the one current when it
    /// started).
    game_round: u32,
    status: LinkStatus,
    port: Option<String>,
    serial: Option<String>,
    /// The board's family, by name.
    family: &'static str,
    /// An uncleared misplaced / illegal-position alert.
    disagrees: bool,
    /// The sensed placement last published (see [`StateMessage::placement`]).
    sensed: String,
    /// The board check last published (see [`StateMessage::readiness`]).
    readiness: Option<Readiness>,
    /// The event's time control for the board, for the check (judged
    /// in every game).
    time_control: Option<crate::clock::TimeControl>,
    pgn_dirty: bool,
    /// With a broadcast delay: what the public has seen so far and what
    /// it has yet to see. `None`: the public sees everything live.
    public: Option<PublicView>,
    /// Wall milliseconds (since 1970) at this board's daemon time 0: the
    /// day a game started, for its PGN `Date`.
    wall_epoch_ms: u64,
    /// Its part of the round's report: alerts, decisions, games' rounds.
    records: Records,
    /// The record-making events the game held when it was taken up, every
    /// one of them published by now ([`published`]).
    record_events: u64,
}

impl Session {
    /// A board waiting for its first connection: the board `setup`
    /// declares (its id, family, bus address and time control), board
    /// `number` of `round`, publishing to `outputs`. Nothing is published
    /// until [`Session::announce`] (a game is resumed first, with
    /// [`Session::resume`], so an empty state never replaces the retained
    /// one of a game in progress).
    pub fn new(
        setup: &BoardSetup,
        config: track::Config,
        outputs: Outputs,
        round: Arc<Round>,
        number: u32,
    ) -> Session {
        let game_round = round.current();
        Session {
            id: setup.id.clone(),
            pipeline: BoardPipeline::new(setup, config),
            log: GameLog::new(),
            outputs,
            round,
            number,
            own_number: number,
            games_started: 0,
            game_round,
            status: LinkStatus::Offline,
            port: None,
            serial: None,
            family: setup.protocol.name(),
            disagrees: false,
            sensed: String::new(),
            readiness: None,
            time_control: setup.time_control.clone(),
            pgn_dirty: false,
            public: None,
            wall_epoch_ms: crate::wall::unix_ms(),
            records: Records::default(),
            record_events: 0,
        }
    }

    /// Keeps the arbiter's decisions in `journal` (the one of this
    /// board's capture chain), and applies those already there to the
    /// alerts resumed.
    pub fn set_decisions(&mut self, journal: Journal) {
        self.records.keep_in(journal);
        self.publish_report();
    }

    /// This board's part of the round's report: its games and its error
    /// and action alerts with the arbiter's decisions.
    pub fn report(&self) -> BoardReport {
        BoardReport {
            board: self.id.clone(),
            number: self.number,
            game_type: self.pipeline.game(),
            event: Some(self.round.tags(self.game_round, self.number).event).filter(|e| e != "?"),
            games: self.records.games(
                &self.log,
                &self.round,
                &self.id,
                (self.game_round, self.number),
            ),
            alerts: self.records.alerts().to_vec(),
        }
    }

    /// Hands the arbiters' sinks this board's part of the report.
    fn publish_report(&self) {
        let json = serde_json::to_string(&self.report()).expect("reports serialise");
        for sink in &self.outputs.arbiter {
            sink.report(&json);
        }
    }

    /// An arbiter's decision about alert `seq`, from `by`.
    fn decide(
        &mut self,
        t: Millis,
        seq: u64,
        decision: Decision,
        note: &Option<String>,
        by: &str,
    ) -> Outcome {
        let at = crate::wall::unix_ms();
        if let Err(unchanged) = self.records.decide(seq, decision, note, by, at) {
            return unchanged;
        }
        self.pipeline.push_event(
            t,
            EventKind::Decision {
                alert: seq,
                decision,
                note: note.clone(),
            },
        );
        self.drain(t);
        self.publish_report();
        info!(
            alert = seq,
            decision = decision.name(),
            by,
            "arbiter's decision"
        );
        Outcome {
            accepted: true,
            changed: true,
            message: format!("alert {seq} {}", decision.name()),
        }
    }

    /// Shows the public outputs (the public sinks, the PGN folder) through
    /// `view`, a delay behind the live game; without it they are live.
    pub fn with_delay(mut self, view: Option<PublicView>) -> Session {
        self.public = view;
        self
    }

    /// Publishes the board's first state (and PGN) at `t`: the live one
    /// to the arbiters; the public's own (with a delay, the game as the
    /// public has seen it, also in the PGN folder).
    pub fn announce(&mut self, t: Millis) {
        if let Some(g) = self.log.current() {
            self.pgn_dirty = true;
            let key = GameKey::of(&self.id, g);
            self.round
                .update_live(self.game_round, self.number, &key, g);
        }
        let public = match &self.public {
            None => self.log.current().map(|g| self.folder_copy(g)),
            Some(p) => p.log().current().cloned(),
        };
        if let Some(g) = public {
            let key = GameKey::of(&self.id, &g);
            self.round.update(self.game_round, self.number, &key, &g);
        }
        self.publish_state(t);
        self.publish_public_state();
    }

    /// Sets the wall time (ms since the Unix epoch) at which this board's
    /// daemon time was 0, for the delayed public view.
    pub fn set_wall_epoch(&mut self, epoch_ms: u64) {
        self.wall_epoch_ms = epoch_ms;
        if let Some(p) = &mut self.public {
            p.set_epoch(epoch_ms);
        }
    }

    /// Takes up the game of an earlier session: `capture` (and the
    /// captures it resumed) is replayed through this board's pipeline.
    /// The games go to the record; their events are not published again
    /// (the earlier session did), except those it had not published final
    /// (a move still provisional when it was killed, made final at the
    /// replay's end): by the record of what was published, they are
    /// published now, once ([`published`]). A game shorter than the PGN
    /// the earlier session wrote beside `capture` raises an action alert.
    /// Returns the captures replayed.
    pub fn resume(
        &mut self,
        capture: &std::path::Path,
    ) -> Result<Vec<std::path::PathBuf>, crate::replay::ReplayError> {
        let mut events = Vec::new();
        let chain = crate::replay::feed_chain(&mut self.pipeline, capture, &mut |t, e| {
            events.push((t, e));
        })?;
        for (_, e) in &events {
            if matches!(e.kind, EventKind::GameStart { .. }) {
                // Each earlier game under the seat it began with.
                self.take_seat(false);
            }
            self.log.handle(e);
            self.records
                .note(e, &self.log, (self.game_round, self.number));
            if matches!(e.kind, EventKind::GameStart { .. })
                && let Some(g) = self.log.current_mut()
            {
                // The earlier session's day is not known: today's.
                g.date = Some(crate::wall::pgn_date());
            }
            match &e.kind {
                EventKind::GameStart { .. } => self.disagrees = false,
                EventKind::Move { .. } | EventKind::Takeback { .. } => self.disagrees = false,
                EventKind::Alert(a)
                    if matches!(a.kind, AlertKind::Misplaced | AlertKind::IllegalPosition) =>
                {
                    self.disagrees = !a.cleared;
                }
                _ => {}
            }
        }
        // A board that shows the game agrees with it, whatever alert an
        // earlier capture's end raised and a later one cleared quietly
        // (`Diagnostic::QuietClear`, which the chain's replay does not
        // hand on).
        self.disagrees &= !self.pipeline.shows_game();
        // What the earlier session had not published final, published
        // now (the live view; the delayed one takes up its journal below).
        self.announce_unpublished(chain.first().map(|p| p.as_path()), &events);
        // Fewer moves than the earlier session published: the arbiter is told.
        self.check_resume_against_record(capture);
        // Players fixed by a correction in the captures stay fixed.
        if let Some((round, board, white, black)) = self.pipeline.corrections().seat_players() {
            self.round
                .restore_players_in(round, board, white.clone(), black.clone());
        }
        let last = self.games_started.saturating_sub(1);
        if let Some((white, black)) = self.pipeline.corrections().players_set(last) {
            self.round.restore_players_in(
                self.game_round,
                self.number,
                white.clone(),
                black.clone(),
            );
        }
        // The delayed public view takes up what the public had seen.
        if let Some(p) = &mut self.public {
            let restored = p.restore(&events, crate::wall::unix_ms());
            if let Some(g) = p.log_mut().current_mut() {
                g.date = Some(crate::wall::pgn_date());
            }
            if restored.doubt {
                warn!(
                    shown = restored.shown,
                    waiting = restored.waiting,
                    "the broadcast delay's journal cannot say what the public has seen: everything newer than the delay waits again"
                );
            } else {
                info!(
                    shown = restored.shown,
                    waiting = restored.waiting,
                    "the broadcast delay taken up from its journal"
                );
            }
        }
        Ok(chain)
    }

    /// The live game `g` as the PGN folder shows it without a delay: the
    /// folder is the public's, so it holds no alert's sentence unless
    /// alerts are public (`[broadcast] public_alerts`).
    fn folder_copy(&self, g: &crate::sink::record::GameRecord) -> crate::sink::record::GameRecord {
        let mut g = g.clone();
        if !self.outputs.public_alerts {
            g.irregularities.clear();
        }
        g
    }

    /// Whether a game was taken up and is still in progress (no result).
    pub fn game_in_progress(&self) -> bool {
        self.log.current().is_some_and(|g| g.result.is_none())
    }

    /// Whether any game is on record.
    pub fn has_game(&self) -> bool {
        self.log.current().is_some()
    }

    /// The pipeline's time (the last input or timer), to continue from.
    pub fn now(&self) -> Millis {
        self.pipeline.now()
    }

    /// Bytes seen on the line at `t`, decoded by the pipeline (see
    /// [`BoardPipeline::handle_bytes`]). Returns the serial numbers the
    /// board reported in them.
    pub fn handle_bytes(&mut self, t: Millis, dir: Direction, bytes: &[u8]) -> Vec<String> {
        self.pipeline.handle_bytes(t, dir, bytes);
        self.drain(t)
    }

    /// What the line's driver read at `t` (see
    /// [`BoardPipeline::handle_decoded`]). Returns the serial numbers the
    /// board reported in it.
    pub fn handle_decoded(
        &mut self,
        t: Millis,
        events: impl IntoIterator<Item = DriverEvent>,
    ) -> Vec<String> {
        self.pipeline.handle_decoded(t, events);
        self.drain(t)
    }

    /// Fires the timers due by `t`.
    pub fn advance_to(&mut self, t: Millis) {
        self.pipeline.advance_to(t);
        self.drain(t);
    }

    /// Fires every pending timer (at shutdown: a move still settling is
    /// published, as `boardcast replay` does at the end of a capture).
    pub fn finish(&mut self, t: Millis) {
        self.pipeline.finish();
        self.drain(t);
    }

    /// When the next timer is due (a move settling, an alert delay, an
    /// event due for the delayed public view).
    pub fn poll_timeout(&self) -> Option<Millis> {
        let public = self.public.as_ref().and_then(|p| p.poll_timeout());
        [self.pipeline.poll_timeout(), public]
            .into_iter()
            .flatten()
            .min()
    }

    /// The line is up on `port`, with a board reporting `serial`.
    pub fn set_connected(&mut self, t: Millis, port: String, serial: String) {
        self.status = LinkStatus::Connected;
        self.port = Some(port);
        self.serial = Some(serial);
        self.publish_state(t);
        self.publish_public_state();
    }

    /// The line is down.
    pub fn set_offline(&mut self, t: Millis) {
        if self.status != LinkStatus::Offline {
            self.status = LinkStatus::Offline;
            self.publish_state(t);
            self.publish_public_state();
        }
    }

    /// Whether the games changed since the last call (to rewrite a PGN file).
    pub fn take_pgn_dirty(&mut self) -> bool {
        std::mem::take(&mut self.pgn_dirty)
    }

    /// Every game of the session as PGN.
    pub fn all_games_pgn(&self) -> String {
        self.log
            .games()
            .iter()
            .map(|g| render(g, &self.round.tags(self.game_round, self.number)))
            .collect()
    }

    /// An operator's verified command (from the MQTT command topic, the
    /// desk or the arbiter view): it is applied as
    /// [`Session::handle_command`] does, and the outcome is answered on
    /// the request's own reply channel (never through the sinks: the MQTT
    /// intake publishes it as the bridge's `ack`, the desk and the arbiter
    /// view hand it to their browser).
    pub fn handle_request(&mut self, t: Millis, request: &mut Request) -> Outcome {
        let outcome = match &request.command {
            OperatorCommand::Decide {
                alert,
                decision,
                note,
            } => {
                let by = request.by.as_deref().unwrap_or("signed command");
                self.decide(t, *alert, *decision, note, by)
            }
            command => self.handle_command_by(t, command, request.by.as_deref()),
        };
        request.answer_outcome(&self.id, &outcome);
        outcome
    }

    /// An operator's correction, applied by the pipeline
    /// ([`BoardPipeline::correct`], which publishes it as a `correction`
    /// event when it changes something); the players also go to the
    /// round's pairings, unless they are already so.
    pub fn handle_command(&mut self, t: Millis, command: &OperatorCommand) -> Outcome {
        self.handle_command_by(t, command, None)
    }

    /// [`Session::handle_command`], naming who made the correction.
    pub fn handle_command_by(
        &mut self,
        t: Millis,
        command: &OperatorCommand,
        by: Option<&str>,
    ) -> Outcome {
        let outcome = match command {
            OperatorCommand::Decide {
                alert,
                decision,
                note,
            } => return self.decide(t, *alert, *decision, note, "signed command"),
            OperatorCommand::SetPlayers { white, black }
                if self
                    .round
                    .pairing_in(self.game_round, self.number)
                    .is_some_and(|p| &p.white == white && &p.black == black) =>
            {
                Outcome {
                    accepted: true,
                    changed: false,
                    message: "the players are already set so".into(),
                }
            }
            OperatorCommand::SetPlayers { white, black } => {
                self.round.set_players_in(
                    self.game_round,
                    self.number,
                    white.clone(),
                    black.clone(),
                );
                self.pipeline.correct_by(t, command, by)
            }
            // The game in progress ends under its own round and board
            // number; the next one takes the new ones (`take_seat`), with
            // the players the command names, if it does.
            OperatorCommand::StartGame {
                round,
                board,
                white: Some(white),
                black: Some(black),
                ..
            } => {
                self.round
                    .set_players_in(*round, *board, white.clone(), black.clone());
                self.pipeline.correct_by(t, command, by)
            }
            _ => self.pipeline.correct_by(t, command, by),
        };
        if outcome.changed {
            info!(command = command.name(), message = %outcome.message, "operator correction");
        } else {
            info!(command = command.name(), accepted = outcome.accepted, message = %outcome.message, "operator command changed nothing");
        }
        self.drain(t);
        self.publish_state(t);
        outcome
    }

    /// A game starts: it belongs to the round and pairing board the desk
    /// gave the board before it (`start_game`), else to the round being
    /// played, on the board's own number. Live (`live`), a seat of a round
    /// before the one being played has expired: a board the desk did not
    /// start again plays under its own number in the new round. A resume
    /// files each earlier game under the seat it began with.
    fn take_seat(&mut self, live: bool) {
        let seat = self
            .pipeline
            .corrections()
            .seat_of_game(self.games_started)
            .filter(|(round, _)| !live || *round >= self.round.current());
        self.games_started += 1;
        (self.game_round, self.number) = seat.unwrap_or((self.round.current(), self.own_number));
    }

    /// A game's first move, live: a game whose round is over by now (the
    /// pieces set up again after the board's game, and the next round
    /// loaded before anyone moved) plays in the round current now, under
    /// the seat the desk gave it for that round, else the board's own
    /// number. A game that has begun keeps its seat.
    fn reseat(&mut self) {
        let current = self.round.current();
        if self.game_round >= current {
            return;
        }
        let seat = self
            .pipeline
            .corrections()
            .seat_of_game(self.games_started.saturating_sub(1))
            .filter(|(round, _)| *round >= current);
        (self.game_round, self.number) = seat.unwrap_or((current, self.own_number));
        self.records.reseat((self.game_round, self.number));
        info!(
            round = self.game_round,
            number = self.number,
            "a game set up in an earlier round plays in this one"
        );
    }

    fn drain(&mut self, t: Millis) -> Vec<String> {
        let mut changed = false;
        while let Some(event) = self.pipeline.poll_event() {
            self.emit_one(t, &event);
            changed = true;
        }
        let mut serials = Vec::new();
        while let Some(d) = self.pipeline.poll_diagnostic() {
            match d {
                Diagnostic::Serial { serial, .. } => serials.push(serial),
                Diagnostic::QuietClear { kind, .. } => {
                    debug!(kind = ?kind, "an alert no daemon published was cleared");
                    if matches!(kind, AlertKind::Misplaced | AlertKind::IllegalPosition) {
                        self.disagrees = false;
                        self.publish_state(t);
                    }
                }
                Diagnostic::Skipped { count, .. } => debug!(count, "skipped garbage bytes"),
                Diagnostic::BadFrame { reason, .. } => debug!(%reason, "dropped a bad frame"),
                Diagnostic::OtherGame { said, read_as, .. } => warn!(
                    %said,
                    read_as = read_as.name(),
                    "the board's hello names another game than the configured one: read as configured"
                ),
            }
        }
        // A piece lifted, set down or knocked changes the live state's
        // placement (LiveChess clients show the piece in the air).
        let sensed = self.pipeline.sensed_placement();
        let moved = sensed != self.sensed;
        if moved {
            for sink in &self.outputs.arbiter {
                sink.reading(t, &sensed);
            }
        }
        self.sensed = sensed;
        // Before the first move the board check follows what the board
        // reports (its clock, a piece code), which need not move anything.
        let readiness = self.readiness_now();
        let checked = readiness != self.readiness;
        self.readiness = readiness;
        if changed {
            self.pgn_dirty = true;
            if let Some(g) = self.log.current() {
                let key = GameKey::of(&self.id, g);
                if self.public.is_none() && !self.outputs.public_alerts {
                    let public = self.folder_copy(g);
                    self.round
                        .update_live(self.game_round, self.number, &key, g);
                    self.round
                        .update(self.game_round, self.number, &key, &public);
                } else if self.public.is_none() {
                    self.round
                        .update_both(self.game_round, self.number, &key, g);
                } else {
                    self.round
                        .update_live(self.game_round, self.number, &key, g);
                }
            }
        }
        if changed || moved || checked {
            self.publish_state_to(t, changed || checked);
        }
        self.release(t);
        serials
    }

    /// Publishes one event at `t`: log, record, the arbiters' view at once,
    /// the public's at once or through the delay.
    fn emit_one(&mut self, t: Millis, event: &Event) {
        self.note(event);
        self.log.handle(event);
        self.records
            .note(event, &self.log, (self.game_round, self.number));
        // The report changes with the alerts and the results (a retract
        // or takeback can void a result the position gave).
        if matches!(
            event.kind,
            EventKind::Alert(_)
                | EventKind::GameStart { .. }
                | EventKind::GameEnd { .. }
                | EventKind::Retract { .. }
                | EventKind::Takeback { .. }
        ) {
            self.publish_report();
        }
        if matches!(event.kind, EventKind::GameStart { .. })
            && let Some(g) = self.log.current_mut()
        {
            g.date = Some(crate::wall::pgn_date_at(self.wall_epoch_ms + event.t_ms));
        }
        for sink in &self.outputs.arbiter {
            sink.event(event);
        }
        match &mut self.public {
            None => self.push_public(event),
            Some(p) => {
                if let Err(e) = p.push(t, event) {
                    warn!(error = %e, "the broadcast delay journal cannot be written: this event would be lost for the public if the daemon stopped before it is shown");
                }
            }
        }
    }

    /// Logs an event and tracks whether the board agrees with the game.
    fn note(&mut self, e: &Event) {
        match &e.kind {
            EventKind::GameStart {
                position: fen,
                rotated,
                ..
            } => {
                self.disagrees = false;
                self.take_seat(true);
                info!(%fen, rotated, "game start");
            }
            EventKind::Move { ply, notation, .. } => {
                self.disagrees = false;
                if *ply == 1 {
                    self.reseat();
                }
                info!(ply, %notation, "move");
            }
            EventKind::Retract { ply, id: uci } => info!(ply, %uci, "move withdrawn"),
            EventKind::Takeback { to_ply, .. } => {
                self.disagrees = false;
                info!(to_ply, "takeback");
            }
            EventKind::GameEnd { result, reason, .. } => info!(%result, %reason, "game end"),
            EventKind::Alert(a) => {
                if matches!(a.kind, AlertKind::Misplaced | AlertKind::IllegalPosition) {
                    self.disagrees = !a.cleared;
                }
                if a.kind.is_error() && !a.cleared {
                    warn!(kind = ?a.kind, law = ?a.law, message = %a.message, "alert");
                } else {
                    info!(kind = ?a.kind, cleared = a.cleared, message = %a.message, "alert");
                }
            }
            #[allow(unreachable_patterns)]
            _ => debug!(event = %e.to_json(), "event"),
        }
    }
}
