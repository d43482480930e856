//! Game records rebuilt from events alone.
//!
//! Every sink that needs "the game so far" (PGN files, MQTT state, the live
//! page) folds the event stream into a [`GameLog`], so they all agree with
//! what was published, retractions and takebacks included.

use crate::event::{Alert, Event, EventKind, Millis, Side};

/// One game as published.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GameRecord {
    /// The game played (chess unless its `game_start` said otherwise).
    pub game: crate::event::GameId,
    /// FEN of the start position (the game's FEN).
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
    /// The mover's clock after each move (seconds), when a press told it.
    pub clks: Vec<Option<u32>>,
    /// Seconds each move took (from the opponent's press to the mover's),
    /// when known.
    pub emts: Vec<Option<u32>>,
    /// The first and the second player's clocks as last reported
    /// (seconds): White's and Black's in chess, Black's and White's in
    /// draughts, Red's and Black's in xiangqi.
    pub clock: Option<(u32, u32)>,
    /// The clock times are estimated from move times.
    pub clock_estimated: bool,
    /// When the last press (or estimated move) came, for move times.
    pub last_press_ms: Option<Millis>,
    /// FEN of the current position.
    pub fen: String,
    /// Result, once the game ended.
    pub result: Option<String>,
    /// Why it ended.
    pub reason: Option<String>,
    /// How many plies the game had when its result came: withdrawing one
    /// of them (a knocked piece read as the mating move, then set back)
    /// voids the result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<usize>,
    /// Error alerts raised during the game (the game is irregular).
    pub irregularities: Vec<Alert>,
    /// When the game started.
    pub started_ms: Millis,
    /// The day it started (PGN `YYYY.MM.DD`), when the live daemon knew
    /// it; the PGN `Date` unless the event's date is configured.
    pub date: Option<String>,
}

impl GameRecord {
    /// The side that made ply index `i` (0-based), as the game names it.
    pub fn side_of_ply(&self, i: usize) -> crate::event::Side {
        use crate::event::GameId;
        // Who was to move in the start position: the FEN's second field
        // (chess, xiangqi), the first letter of a PDN FEN (draughts).
        let second_starts = match self.game {
            GameId::Draughts => self.start_fen.starts_with('W'),
            GameId::Chess | GameId::Xiangqi => self.start_fen.split(' ').nth(1) == Some("b"),
        };
        self.game.side((i % 2 == 1) == second_starts)
    }

    /// A move published: its notation, id, time and the position after
    /// it, with no clock reading yet.
    fn push_ply(&mut self, san: &str, uci: &str, t_ms: u64, fen: &str, irregular: bool) {
        self.sans.push(san.to_string());
        self.ucis.push(uci.to_string());
        self.times.push(t_ms);
        self.fens.push(fen.to_string());
        self.irregular.push(irregular);
        self.clks.push(None);
        self.emts.push(None);
        self.fen = fen.to_string();
    }

    /// A clock reading: both players' times (by side, as `time` gives
    /// them) when the clock shows both, and the press it reports, by whom
    /// and when.
    fn note_clock(
        &mut self,
        time: impl Fn(Side) -> Option<u32>,
        estimated: bool,
        pressed: Option<(Side, u64)>,
    ) {
        let [first, second] = self.game.sides();
        if let (Some(a), Some(b)) = (time(first), time(second)) {
            self.clock = Some((a, b));
            self.clock_estimated = estimated;
        }
        if let Some((side, t_ms)) = pressed {
            self.attach_press(side, t_ms);
        }
    }

    /// A press by `side` at `at`: its last move gets the clock reading and
    /// the time it took (Law 6.2a: the press completes the move).
    fn attach_press(&mut self, side: crate::event::Side, at: Millis) {
        // The first and the second player's.
        let Some((white, black)) = self.clock else {
            return;
        };
        let last = (0..self.sans.len())
            .rev()
            .find(|&i| self.side_of_ply(i) == side);
        if let Some(i) = last
            && self.clks[i].is_none()
        {
            self.clks[i] = Some(if self.game.moves_first(side) {
                white
            } else {
                black
            });
            self.emts[i] = self
                .last_press_ms
                .map(|t| (at.saturating_sub(t) / 1000) as u32);
        }
        self.last_press_ms = Some(at);
    }

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
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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
                position: fen,
                chess960,
                rotated,
            } => self.games.push(GameRecord {
                game: e.game,
                start_fen: fen.clone(),
                fen: fen.clone(),
                chess960: chess960.unwrap_or(false),
                rotated: *rotated,
                started_ms: e.t_ms,
                ..GameRecord::default()
            }),
            EventKind::Move {
                ply,
                notation: san,
                id: uci,
                position: fen,
                irregular,
                ..
            } => {
                self.truncate((*ply as usize).saturating_sub(1));
                if let Some(g) = self.games.last_mut() {
                    g.push_ply(san, uci, e.t_ms, fen, *irregular);
                }
            }
            EventKind::Clock {
                white,
                black,
                red,
                pressed,
                estimated,
                ..
            } => {
                if let Some(g) = self.games.last_mut() {
                    let time = |side| match side {
                        Side::White => *white,
                        Side::Black => *black,
                        Side::Red => *red,
                    };
                    g.note_clock(time, *estimated, pressed.map(|side| (side, e.t_ms)));
                }
            }
            EventKind::Retract { ply, .. } => self.truncate((*ply as usize).saturating_sub(1)),
            EventKind::Takeback {
                to_ply,
                position: fen,
            } => {
                self.truncate(*to_ply as usize);
                if let Some(g) = self.games.last_mut() {
                    g.fen = fen.clone();
                    // A game taken back past its end goes on.
                    g.result = None;
                    g.reason = None;
                }
            }
            EventKind::Correction { .. }
            | EventKind::Decision { .. }
            | EventKind::Provisional { .. } => {}
            EventKind::GameEnd { result, reason, .. } => {
                if let Some(g) = self.games.last_mut() {
                    g.result = Some(result.clone());
                    g.reason = Some(reason.clone());
                    g.ended_at = Some(g.sans.len());
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
            g.clks.truncate(plies);
            g.emts.truncate(plies);
            g.fen = g.fens.last().unwrap_or(&g.start_fen).clone();
            if g.ended_at.is_some_and(|n| plies < n) {
                // The ply that ended the game was withdrawn (a knocked
                // piece read as the mating move, then set back) or taken
                // back: the game goes on.
                g.result = None;
                g.reason = None;
                g.ended_at = None;
            }
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

    /// The game being played, to amend.
    pub fn current_mut(&mut self) -> Option<&mut GameRecord> {
        self.games.last_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::GameId;

    fn at(t_ms: Millis, kind: EventKind) -> Event {
        Event {
            board: "1".into(),
            t_ms,
            game: GameId::Chess,
            kind,
        }
    }

    fn ply(n: u32, san: &str) -> EventKind {
        EventKind::Move {
            ply: n,
            side: if n % 2 == 1 { Side::White } else { Side::Black },
            notation: san.into(),
            id: san.into(),
            position: format!("fen {n}"),
            irregular: false,
        }
    }

    fn end(result: &str, reason: &str) -> EventKind {
        EventKind::GameEnd {
            result: result.into(),
            reason: reason.into(),
            winner: None,
        }
    }

    fn game(plies: &[&str]) -> GameLog {
        let mut log = GameLog::new();
        log.handle(&at(
            0,
            EventKind::GameStart {
                position: "start".into(),
                chess960: None,
                rotated: false,
            },
        ));
        for (i, san) in plies.iter().enumerate() {
            log.handle(&at(i as Millis, ply(i as u32 + 1, san)));
        }
        log
    }

    #[test]
    fn withdrawing_the_ply_that_ended_the_game_voids_its_result() {
        // A knocked piece read as the mating move, then set back: the
        // ply is withdrawn and the real move follows.
        let mut log = game(&["f3", "e5", "g4", "Qh4#"]);
        log.handle(&at(10, end("0-1", "checkmate")));
        assert_eq!(log.games()[0].result.as_deref(), Some("0-1"));
        log.handle(&at(
            11,
            EventKind::Retract {
                ply: 4,
                id: "Qh4#".into(),
            },
        ));
        log.handle(&at(12, ply(4, "Qh5")));
        let g = &log.games()[0];
        assert_eq!(g.sans, ["f3", "e5", "g4", "Qh5"]);
        assert_eq!((g.result.as_ref(), g.reason.as_ref()), (None, None));

        // A dead position played on: withdrawing a later ply keeps the
        // result the position gave.
        let mut log = game(&["a", "b"]);
        log.handle(&at(10, end("1/2-1/2", "dead position")));
        log.handle(&at(11, ply(3, "c")));
        log.handle(&at(
            12,
            EventKind::Retract {
                ply: 3,
                id: "c".into(),
            },
        ));
        assert_eq!(log.games()[0].result.as_deref(), Some("1/2-1/2"));
    }
}
