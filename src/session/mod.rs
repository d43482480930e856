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
pub mod state;

use std::sync::Arc;

use tracing::{debug, info, warn};

use crate::capture::Direction;
use crate::control::{Ack, OperatorCommand, Outcome, Request};
use crate::delay::PublicView;
use crate::event::{AlertKind, Decision, Event, EventKind, Millis, Side};
use crate::pipeline::{BoardPipeline, Diagnostic};
use crate::readiness::{Context, Readiness};
use crate::report::{AlertEntry, BoardReport, DecisionEntry, GameEntry};
use crate::setup::BoardSetup;
use crate::sink::pgn::render;
use crate::sink::record::GameLog;
use crate::sink::round::Round;
use crate::track;
pub use decisions::Journal;
pub use outputs::{BoardSink, Outputs};
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
    /// The board's error and action alerts, with the arbiter's decisions
    /// (its part of the round's report).
    alerts: Vec<AlertEntry>,
    /// Each game's round, by the board's game number (1 = index 0).
    game_rounds: Vec<u32>,
    /// Where the arbiter's decisions are kept.
    journal: Option<Journal>,
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
            alerts: Vec::new(),
            game_rounds: Vec::new(),
            journal: None,
        }
    }

    /// Keeps the arbiter's decisions in `journal` (the one of this
    /// board's capture chain), and applies those already there to the
    /// alerts resumed.
    pub fn set_decisions(&mut self, journal: Journal) {
        for d in journal.read() {
            if let Some(a) = self.alerts.iter_mut().find(|a| a.seq == d.alert) {
                a.decision = Some(d);
            }
        }
        self.journal = Some(journal);
        self.publish_report();
    }

    /// This board's part of the round's report: its games and its error
    /// and action alerts with the arbiter's decisions.
    pub fn report(&self) -> BoardReport {
        let pairing = |round: u32| self.round.pairing_in(round, self.number);
        let games = self
            .log
            .games()
            .iter()
            .enumerate()
            .map(|(i, g)| {
                let round = self.game_rounds.get(i).copied().unwrap_or(self.game_round);
                let p = pairing(round);
                GameEntry {
                    game: i + 1,
                    round,
                    white: p.as_ref().map(|p| p.white.name.clone()),
                    black: p.as_ref().map(|p| p.black.name.clone()),
                    result: g.result.clone().unwrap_or_else(|| "*".into()),
                    reason: g.reason.clone(),
                    plies: g.sans.len(),
                }
            })
            .collect();
        BoardReport {
            board: self.id.clone(),
            number: self.number,
            game_type: self.pipeline.game(),
            event: Some(self.round.tags(self.game_round, self.number).event).filter(|e| e != "?"),
            games,
            alerts: self.alerts.clone(),
        }
    }

    /// Hands the arbiters' sinks this board's part of the report.
    fn publish_report(&self) {
        let json = serde_json::to_string(&self.report()).expect("reports serialise");
        for sink in &self.outputs.arbiter {
            sink.report(&json);
        }
    }

    /// Keeps an error or action alert (or a withdrawal) for the report.
    fn track(&mut self, e: &Event) {
        if matches!(e.kind, EventKind::GameStart { .. }) {
            // The seat is taken (`take_seat`) before the start is tracked.
            self.game_rounds
                .resize(self.log.games().len().saturating_sub(1), self.game_round);
            self.game_rounds.push(self.game_round);
        }
        let EventKind::Alert(a) = &e.kind else {
            return;
        };
        if !crate::report::reported(a.kind) {
            return;
        }
        let game = self.log.games().len();
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
        let evidence = a.evidence;
        let ply = self.log.current().map_or(0, |g| g.sans.len());
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
            evidence,
            withdrawn: false,
            decision: None,
        });
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
        let Some(entry) = self.alerts.iter_mut().find(|a| a.seq == seq) else {
            return Outcome {
                accepted: false,
                changed: false,
                message: format!("no error or action alert {seq} on this board"),
            };
        };
        if entry
            .decision
            .as_ref()
            .is_some_and(|d| d.decision == decision && &d.note == note)
        {
            return Outcome {
                accepted: true,
                changed: false,
                message: format!("alert {seq} is already {}", decision.name()),
            };
        }
        let d = DecisionEntry {
            alert: seq,
            decision,
            note: note.clone(),
            at_unix_ms: crate::wall::unix_ms(),
            by: by.to_string(),
        };
        entry.decision = Some(d.clone());
        if let Some(j) = &self.journal
            && let Err(e) = j.append(&d)
        {
            warn!(journal = %j.path().display(), error = %e, "the decisions journal cannot be written: this decision is lost at a restart");
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
            self.round.update_live(self.game_round, self.number, g);
        }
        let public = match &self.public {
            None => self.log.current(),
            Some(p) => p.log().current(),
        };
        if let Some(g) = public {
            self.round.update(self.game_round, self.number, g);
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
    /// (the earlier session did). A game shorter than the PGN the earlier
    /// session wrote beside `capture` raises an action alert
    /// ([`published`]). Returns the captures replayed.
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
            self.track(e);
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
        // Fewer moves than the earlier session published: the arbiter is told.
        self.check_resume_against_record(capture);
        // Players fixed by a correction in the captures stay fixed.
        if let Some((white, black)) = self.pipeline.players_set() {
            self.round
                .set_players_in(self.game_round, self.number, white.clone(), black.clone());
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

    /// Bytes seen on the line at `t`. Returns the serial numbers the board
    /// reported in them.
    pub fn handle_bytes(&mut self, t: Millis, dir: Direction, bytes: &[u8]) -> Vec<String> {
        self.pipeline.handle_bytes(t, dir, bytes);
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

    /// An operator's verified command (from the MQTT command topic): it is
    /// applied as [`Session::handle_command`] does, and the outcome is
    /// acknowledged on the bridge's `ack` topic with the command's nonce.
    pub fn handle_request(&mut self, t: Millis, request: &Request) -> Outcome {
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
        let ack = Ack {
            nonce: request.nonce.clone(),
            board: self.id.clone(),
            accepted: outcome.accepted,
            changed: outcome.changed,
            message: outcome.message.clone(),
            code: (!outcome.accepted).then(|| "refused_by_board".to_string()),
        };
        for sink in &self.outputs.public {
            sink.ack(&ack);
        }
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
            .seat_of_game(self.games_started)
            .filter(|(round, _)| !live || *round >= self.round.current());
        self.games_started += 1;
        (self.game_round, self.number) = seat.unwrap_or((self.round.current(), self.own_number));
    }

    /// The state as published now (the live game).
    pub fn state(&self, t: Millis) -> StateMessage {
        self.state_of(&self.log, true, t)
    }

    /// The state with the game as `log` has it: the live log (`live`), or
    /// what the delayed public has seen.
    fn state_of(&self, log: &GameLog, live: bool, t: Millis) -> StateMessage {
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
    fn readiness_now(&self) -> Option<Readiness> {
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
    fn rendered(&self, log: &GameLog, live: bool, t: Millis) -> (String, String) {
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
    fn publish_state(&self, t: Millis) {
        self.publish_state_to(t, true);
    }

    /// [`Session::publish_state`]; `redraw`: `false` when only the
    /// sensed placement changed, which a page need not redraw on every
    /// lifted piece.
    ///
    /// Design: with a delay, a live change never republishes the public
    /// state, not even unchanged: its arrival would tell the hall, within
    /// milliseconds, that something just happened on the board.
    fn publish_state_to(&self, t: Millis, redraw: bool) {
        let (state, pgn) = self.rendered(&self.log, true, t);
        for sink in &self.outputs.arbiter {
            sink.state(&state, &pgn, redraw);
        }
        if self.public.is_none() {
            self.publish_public_to(&state, &pgn, redraw);
        }
    }

    /// With a delay: the public's state and PGN, made from the game as the
    /// public has seen it and stamped with the time of the last event it
    /// was given (never the live time).
    fn publish_public_state(&self) {
        if let Some(p) = &self.public {
            let (state, pgn) = self.rendered(p.log(), false, p.shown_t());
            self.publish_public_to(&state, &pgn, true);
        }
    }

    fn publish_public_to(&self, state: &str, pgn: &str, redraw: bool) {
        for sink in &self.outputs.public {
            sink.state(state, pgn, redraw);
        }
    }

    /// Hands the public what the delay lets out by `t`: its events, then
    /// its state, PGN and folder entry.
    fn release(&mut self, t: Millis) {
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
            self.round.update(self.game_round, self.number, g);
        }
        self.publish_public_state();
    }

    /// Hands one event to the public outputs (the page and the topics).
    fn push_public(&self, event: &Event) {
        for sink in &self.outputs.public {
            if !sink.event(event) {
                warn!(
                    dropped = sink.dropped(),
                    "event queue full: dropped the oldest unacknowledged event"
                );
            }
        }
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
                if self.public.is_none() {
                    self.round.update_both(self.game_round, self.number, g);
                } else {
                    self.round.update_live(self.game_round, self.number, g);
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
        self.track(event);
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
