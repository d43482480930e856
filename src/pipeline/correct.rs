//! Operator corrections as pipeline input: a result set, a game
//! restarted, the players fixed. The live daemon applies them here and
//! records them in the board's capture (a `# command <t_ms> <json>` line,
//! [`crate::capture::Direction::Operator`]); `boardcast replay` and a
//! resume read them back from there and apply them here too, at the same
//! point of the readings, so a restart keeps them and a replay publishes
//! what the daemon published.

use crate::control::{CommandError, OperatorCommand, Outcome};
use crate::event::{EventKind, Millis};
use crate::tournament::Player;

use super::{BoardPipeline, Diagnostic};

pub use crate::sink::ledger::OPERATOR_RESULT;

/// How a `start_game` answer begins when the board's game goes on (the
/// desk lists such boards as kept playing).
pub const IN_PROGRESS: &str = "a game is in progress";

/// The corrections' memory of a board: what the pipeline has published of
/// its current game (as far as corrections need it), the players fixed and
/// the seats (round, pairing board) the desk gave it.
#[derive(Clone, Debug, Default)]
pub struct Corrections {
    /// None before the first game; else the current game's result (None
    /// while it goes on).
    result: Option<Option<String>>,
    /// The plies published of the current game, and how many it had when
    /// its result came.
    plies: u32,
    ended_at: Option<u32>,
    /// The players the last `set_players` fixed, with the game they were
    /// fixed for (0: the first this pipeline started).
    players: Option<(usize, (Player, Player))>,
    /// The round and pairing board the last `start_game` gave the board.
    seat: Option<(u32, u32)>,
    /// The players the last `start_game` named for its seat.
    seat_players: Option<(Player, Player)>,
    /// The seat each game started under, by the order games started (a
    /// resume files each earlier game under its own).
    game_seats: Vec<Option<(u32, u32)>>,
}

/// What a `start_game` leaves to the board's game.
pub(super) enum Seated {
    /// Nothing more: the answer.
    Answered(Outcome),
    /// The game starts afresh (as `restart`).
    Restart,
}

fn done(changed: bool, message: String) -> Outcome {
    Outcome {
        accepted: true,
        changed,
        message,
    }
}

impl Corrections {
    /// Folds in an event the pipeline publishes.
    pub(super) fn note(&mut self, kind: &EventKind) {
        match kind {
            EventKind::GameStart { .. } => {
                self.result = Some(None);
                self.plies = 0;
                self.ended_at = None;
                self.game_seats.push(self.seat);
            }
            EventKind::Move { ply, .. } => {
                self.truncate(ply.saturating_sub(1));
                self.plies = *ply;
            }
            EventKind::GameEnd { result, .. } if self.result.is_some() => {
                self.result = Some(Some(result.clone()));
                self.ended_at = Some(self.plies);
            }
            // A game taken back past its end goes on.
            EventKind::Takeback { to_ply, .. } => {
                self.truncate(*to_ply);
                if self.result.is_some() {
                    self.result = Some(None);
                    self.ended_at = None;
                }
            }
            EventKind::Retract { ply, .. } => self.truncate(ply.saturating_sub(1)),
            _ => {}
        }
    }

    /// The game now has `plies` plies: a result that came after one of the
    /// plies withdrawn is void (see `GameLog`).
    fn truncate(&mut self, plies: u32) {
        self.plies = plies;
        if self.ended_at.is_some_and(|n| plies < n) {
            self.result = Some(None);
            self.ended_at = None;
        }
    }

    /// `set_players`: the players of the current game.
    pub(super) fn set_players(&mut self, white: &Player, black: &Player) -> Outcome {
        let game = self.game_seats.len().saturating_sub(1);
        self.players = Some((game, (white.clone(), black.clone())));
        done(
            true,
            format!("players set: {} - {}", white.name, black.name),
        )
    }

    /// `start_game`: the board plays `seat` (round, pairing board) from
    /// its next game, with `players` when given. Sent again for the same
    /// seat, the game under way stays (new players are only set).
    ///
    /// With `keep_game` (the desk's start), a game in progress (a move
    /// played, no result) is not ended: it goes on under its own seat, and
    /// the seat is the next game's, taken when the start position stands
    /// after it. Otherwise, and on a board with a finished game or none
    /// under way, the board starts afresh (as `restart`): its next game, at
    /// once if the start position stands, is the seat's.
    pub(super) fn take_seat(
        &mut self,
        seat: (u32, u32),
        players: Option<(Player, Player)>,
        keep_game: bool,
    ) -> Seated {
        let (round, board) = seat;
        if self.seat == Some(seat) {
            return Seated::Answered(match players {
                Some(p) if self.seat_players.as_ref() != Some(&p) => {
                    let message = format!("players set: {} - {}", p.0.name, p.1.name);
                    self.seat_players = Some(p);
                    done(true, message)
                }
                _ => done(false, format!("board {board} of round {round} already")),
            });
        }
        self.seat = Some(seat);
        if players.is_some() {
            self.seat_players = players;
        }
        if keep_game && self.in_progress() {
            return Seated::Answered(done(
                true,
                format!(
                    "{IN_PROGRESS} (ply {}): it goes on; board {board} of round {round} from the board's next game",
                    self.plies
                ),
            ));
        }
        Seated::Restart
    }

    /// The current game's result: `None` before the first game, else
    /// `None` while it goes on.
    pub(super) fn result(&self) -> Option<Option<&str>> {
        self.result.as_ref().map(Option::as_deref)
    }

    /// Whether a game is in progress: begun (a move published) and
    /// without a result.
    pub fn in_progress(&self) -> bool {
        self.result == Some(None) && self.plies > 0
    }

    /// The players the last `set_players` correction fixed, when it fixed
    /// them for game `n` (0: the first this pipeline started; a resume
    /// gives them back to the round).
    pub fn players_set(&self, n: usize) -> Option<&(Player, Player)> {
        match &self.players {
            Some((game, players)) if *game == n => Some(players),
            _ => None,
        }
    }

    /// The seat the last `start_game` gave the board with the players it
    /// named (a resume gives them back to the round).
    pub fn seat_players(&self) -> Option<(u32, u32, &Player, &Player)> {
        let (round, board) = self.seat?;
        let (white, black) = self.seat_players.as_ref()?;
        Some((round, board, white, black))
    }

    /// The round and pairing board the last `start_game` gave the board (a
    /// resume gives them back to the session).
    pub fn pairing_seat(&self) -> Option<(u32, u32)> {
        self.seat
    }

    /// The seat the `n`th game (0: the first this pipeline started) began
    /// under: the round and pairing board the last `start_game` before it
    /// gave the board.
    pub fn seat_of_game(&self, n: usize) -> Option<(u32, u32)> {
        self.game_seats.get(n).copied().flatten()
    }
}

impl BoardPipeline {
    /// Applies an operator's correction. When it changes something it is
    /// published as a `correction` event; one that changes nothing (the
    /// same result again) publishes none. A result can be set again: the
    /// last one set wins, also over a result the game already had.
    /// `set_players` changes nothing here but the record of it (the
    /// caller keeps the pairings and says whether they changed); a
    /// decision is not a correction (see `Session::decide`) and is refused.
    pub fn correct(&mut self, t: Millis, command: &OperatorCommand) -> Outcome {
        self.correct_by(t, command, None)
    }

    /// [`BoardPipeline::correct`], naming who made the correction (`by`,
    /// carried by its `correction` event).
    pub fn correct_by(
        &mut self,
        t: Millis,
        command: &OperatorCommand,
        by: Option<&str>,
    ) -> Outcome {
        self.advance_to(t);
        self.now = self.now.max(t);
        let outcome = match command {
            OperatorCommand::SetResult { result } => self.correct_result(t, result),
            OperatorCommand::Restart => {
                self.restart(t);
                done(true, "game restarted".to_string())
            }
            OperatorCommand::StartGame {
                round,
                board,
                white,
                black,
                keep_game,
            } => {
                let players = white.clone().zip(black.clone());
                self.start_game(t, (*round, *board), players, *keep_game)
            }
            OperatorCommand::TurnRound if !self.game.in_game() => Outcome {
                accepted: false,
                changed: false,
                message:
                    "no game is on: the way round is read from the start position when it is set up"
                        .into(),
            },
            OperatorCommand::TurnRound => {
                let rotated = self.turn_round(t);
                let way = if rotated {
                    "turned round"
                } else {
                    "the normal way round"
                };
                done(true, format!("the board is read {way}"))
            }
            OperatorCommand::TakeUp { fen } => {
                let rotated = self.game.is_rotated();
                match self.take_up(t, fen, &[], rotated) {
                    Ok(()) => done(true, format!("game taken up from {fen}")),
                    Err(e) => Outcome {
                        accepted: false,
                        changed: false,
                        message: format!("the position cannot be taken up: {e}"),
                    },
                }
            }
            OperatorCommand::SetPlayers { white, black } => {
                self.corrections.set_players(white, black)
            }
            OperatorCommand::Decide { .. } => Outcome {
                accepted: false,
                changed: false,
                message: "a decision is not a correction".into(),
            },
        };
        if outcome.changed {
            self.push_correction(t, command.name(), &outcome.message, by);
        }
        outcome
    }

    /// `set_result`: the game's result set, or set again (the last one
    /// set wins).
    fn correct_result(&mut self, t: Millis, result: &str) -> Outcome {
        match self.corrections.result() {
            None => Outcome {
                accepted: false,
                changed: false,
                message: "no game on this board yet: no result to set".into(),
            },
            Some(Some(r)) if r == result => done(false, format!("the result is already {result}")),
            Some(before) => {
                let before = before.map(str::to_string);
                self.set_result(t, result, OPERATOR_RESULT);
                if self.corrections.result() != Some(Some(result)) {
                    // The game had already ended (a result piece, the
                    // operator, a restart): its record is corrected.
                    let winner = self.game().winner(result);
                    self.push_event(
                        t,
                        EventKind::GameEnd {
                            result: result.to_string(),
                            reason: OPERATOR_RESULT.into(),
                            winner,
                        },
                    );
                }
                let message = match before {
                    Some(old) => format!("result changed from {old} to {result}"),
                    None => format!("result set to {result}"),
                };
                done(true, message)
            }
        }
    }

    /// A correction as a capture holds it (the command's JSON): applied
    /// as [`BoardPipeline::correct`] does; one that cannot be read is
    /// reported as a diagnostic and changes nothing.
    /// The line's JSON is the command's, with who made it under `by` when
    /// known (see [`recorded`]).
    pub(super) fn correct_recorded(&mut self, t: Millis, json: &[u8]) {
        match unrecord(json) {
            Ok((command, by)) => {
                self.correct_by(t, &command, by.as_deref());
            }
            Err(reason) => self.diagnostics.push_back(Diagnostic::BadFrame {
                t_ms: t,
                reason: format!("a recorded operator command cannot be read: {reason}"),
            }),
        }
    }

    /// `start_game` ([`Corrections::take_seat`]): the game starts afresh
    /// when the seat asks it.
    fn start_game(
        &mut self,
        t: Millis,
        seat: (u32, u32),
        players: Option<(Player, Player)>,
        keep_game: bool,
    ) -> Outcome {
        match self.corrections.take_seat(seat, players, keep_game) {
            Seated::Answered(outcome) => outcome,
            Seated::Restart => {
                self.restart(t);
                let (round, board) = seat;
                done(
                    true,
                    format!("board {board} of round {round} from its next game"),
                )
            }
        }
    }

    /// The corrections' memory of the board: its seat, its players, its
    /// game's result as published.
    pub fn corrections(&self) -> &Corrections {
        &self.corrections
    }
}

/// A correction as its capture line holds it: the command's JSON, with
/// `by` added when it is known.
pub fn recorded(command: &OperatorCommand, by: Option<&str>) -> Vec<u8> {
    let mut value = serde_json::to_value(command).expect("commands serialise");
    if let (Some(by), Some(map)) = (by, value.as_object_mut()) {
        map.insert("by".into(), by.into());
    }
    serde_json::to_vec(&value).expect("commands serialise")
}

/// Why a capture's correction line does not read.
#[derive(Debug, thiserror::Error)]
pub enum UnreadCorrection {
    /// Not JSON.
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    /// Not a valid command.
    #[error("{0}")]
    Command(#[from] CommandError),
}

/// Reads a capture's correction line back (see [`recorded`]).
fn unrecord(json: &[u8]) -> Result<(OperatorCommand, Option<String>), UnreadCorrection> {
    let mut value: serde_json::Value = serde_json::from_slice(json)?;
    let by = value
        .as_object_mut()
        .and_then(|m| m.remove("by"))
        .and_then(|b| b.as_str().map(str::to_string));
    let json = serde_json::to_vec(&value)?;
    Ok((OperatorCommand::parse(&json)?, by))
}
