//! Game records rebuilt from events alone.
//!
//! Every sink that needs "the game so far" (PGN files, MQTT state, the live
//! page) folds the event stream into a [`GameLog`], so they all agree with
//! what was published, retractions and takebacks included.

use crate::event::{Alert, Event, EventKind, Millis};

/// One game as published.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameRecord {
    /// FEN of the start position.
    pub start_fen: String,
    /// Whether it is a Chess960 game.
    pub chess960: bool,
    /// Whether the board stands turned round.
    pub rotated: bool,
    /// Mainline SAN.
    pub sans: Vec<String>,
    /// Mainline UCI.
    pub ucis: Vec<String>,
    /// Time of each move's completing reading.
    pub times: Vec<Millis>,
    /// FEN after each move.
    pub fens: Vec<String>,
    /// Whether each move was an illegal move that stood (play went on from
    /// it); its SAN entry then holds long algebraic notation.
    pub irregular: Vec<bool>,
    /// FEN of the current position.
    pub fen: String,
    /// Result, once the game ended.
    pub result: Option<String>,
    /// Why it ended.
    pub reason: Option<String>,
    /// Error alerts raised during the game (the game is irregular).
    pub irregularities: Vec<Alert>,
    /// When the game started.
    pub started_ms: Millis,
}

impl GameRecord {
    /// Whether an illegal move stood in this game.
    pub fn is_irregular(&self) -> bool {
        self.irregular.iter().any(|&i| i)
    }

    /// The PGN result token: the result, or `*` while the game goes on.
    pub fn result_token(&self) -> &str {
        self.result.as_deref().unwrap_or("*")
    }
}

/// All games seen on one board, oldest first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameLog {
    games: Vec<GameRecord>,
}

impl GameLog {
    /// An empty log.
    pub fn new() -> GameLog {
        GameLog::default()
    }

    /// Folds one event in.
    pub fn handle(&mut self, e: &Event) {
        match &e.kind {
            EventKind::GameStart {
                fen,
                chess960,
                rotated,
            } => self.games.push(GameRecord {
                start_fen: fen.clone(),
                fen: fen.clone(),
                chess960: *chess960,
                rotated: *rotated,
                started_ms: e.t_ms,
                ..GameRecord::default()
            }),
            EventKind::Move {
                ply,
                san,
                uci,
                fen,
                irregular,
                ..
            } => {
                self.truncate((*ply as usize).saturating_sub(1));
                if let Some(g) = self.games.last_mut() {
                    g.sans.push(san.clone());
                    g.ucis.push(uci.clone());
                    g.times.push(e.t_ms);
                    g.fens.push(fen.clone());
                    g.irregular.push(*irregular);
                    g.fen = fen.clone();
                }
            }
            EventKind::Retract { ply, .. } => self.truncate((*ply as usize).saturating_sub(1)),
            EventKind::Takeback { to_ply, fen } => {
                self.truncate(*to_ply as usize);
                if let Some(g) = self.games.last_mut() {
                    g.fen = fen.clone();
                }
            }
            EventKind::GameEnd { result, reason } => {
                if let Some(g) = self.games.last_mut() {
                    g.result = Some(result.clone());
                    g.reason = Some(reason.clone());
                }
            }
            EventKind::Alert(a) => {
                if let Some(g) = self.games.last_mut()
                    && a.kind.is_error()
                    && !a.cleared
                {
                    g.irregularities.push(a.clone());
                }
            }
        }
    }

    fn truncate(&mut self, plies: usize) {
        if let Some(g) = self.games.last_mut() {
            g.sans.truncate(plies);
            g.ucis.truncate(plies);
            g.times.truncate(plies);
            g.fens.truncate(plies);
            g.irregular.truncate(plies);
            g.fen = g.fens.last().unwrap_or(&g.start_fen).clone();
        }
    }

    /// Every game, oldest first.
    pub fn games(&self) -> &[GameRecord] {
        &self.games
    }

    /// The game on the board now.
    pub fn current(&self) -> Option<&GameRecord> {
        self.games.last()
    }
}
