//! Operator corrections as pipeline input: a result set, a game
//! restarted, the players fixed. The live daemon applies them here and
//! records them in the board's capture (a `# command <t_ms> <json>` line,
//! [`crate::capture::Direction::Operator`]); `boardcast replay` and a
//! resume read them back from there and apply them here too, at the same
//! point of the readings, so a restart keeps them and a replay publishes
//! what the daemon published.

use crate::control::{OperatorCommand, Outcome};
use crate::event::{Event, EventKind, Millis};
use crate::sink::record::GameLog;
use crate::tournament::Player;

use super::{BoardPipeline, Diagnostic};

/// The reason a result set by the operator carries.
pub const OPERATOR_RESULT: &str = "set by the operator";

/// What the pipeline has published of the board's games, as far as
/// corrections need it.
#[derive(Clone, Debug, Default)]
pub(super) struct Published {
    /// The board's games folded as screens and the PGN folder fold them
    /// (so a result voided by a withdrawn ply is voided here too).
    log: GameLog,
    /// The players the last `set_players` fixed.
    players: Option<(Player, Player)>,
}

impl Published {
    /// Folds in an event the pipeline publishes.
    pub(super) fn note(&mut self, event: &Event) {
        self.log.handle(event);
    }

    /// None before the first game; else the current game's result (None
    /// while it goes on).
    fn result(&self) -> Option<Option<&str>> {
        self.log.current().map(|g| g.result.as_deref())
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
        self.advance_to(t);
        self.now = self.now.max(t);
        let done = |changed: bool, message: String| Outcome {
            accepted: true,
            changed,
            message,
        };
        let outcome = match command {
            OperatorCommand::SetResult { result } => match self.published_game.result() {
                None => Outcome {
                    accepted: false,
                    changed: false,
                    message: "no game on this board yet: no result to set".into(),
                },
                Some(Some(r)) if r == result => {
                    done(false, format!("the result is already {result}"))
                }
                Some(before) => {
                    let before = before.map(str::to_owned);
                    self.set_result(t, result, OPERATOR_RESULT);
                    if self.published_game.result() != Some(Some(result.as_str())) {
                        // The game had already ended (a result piece, the
                        // operator, a restart): its record is corrected.
                        let winner = self.game().winner(result);
                        self.push_event(
                            t,
                            EventKind::GameEnd {
                                result: result.clone(),
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
            },
            OperatorCommand::Restart => {
                self.restart(t);
                done(true, "game restarted".to_string())
            }
            OperatorCommand::SetPlayers { white, black } => {
                self.published_game.players = Some((white.clone(), black.clone()));
                done(
                    true,
                    format!("players set: {} - {}", white.name, black.name),
                )
            }
            OperatorCommand::Decide { .. } => Outcome {
                accepted: false,
                changed: false,
                message: "a decision is not a correction".into(),
            },
        };
        if outcome.changed {
            self.push_correction(t, command.name(), &outcome.message);
        }
        outcome
    }

    /// A correction as a capture holds it (the command's JSON): applied
    /// as [`BoardPipeline::correct`] does; one that cannot be read is
    /// reported as a diagnostic and changes nothing.
    pub(super) fn correct_recorded(&mut self, t: Millis, json: &[u8]) {
        match OperatorCommand::parse(json) {
            Ok(command) => {
                self.correct(t, &command);
            }
            Err(reason) => self.diagnostics.push_back(Diagnostic::BadFrame {
                t_ms: t,
                reason: format!("a recorded operator command cannot be read: {reason}"),
            }),
        }
    }

    /// The players the last `set_players` correction fixed (a resume
    /// gives them back to the round).
    pub fn players_set(&self) -> Option<&(Player, Player)> {
        self.published_game.players.as_ref()
    }
}
