//! What the push did last, for the operator's desk (`/desk/state`'s
//! `lichess`), and the reading of lichess's answer.

use std::collections::BTreeMap;
use std::sync::Mutex;

use serde::Deserialize;

/// lichess's answer to a push (`200`): one entry per game of the PGN,
/// in its order, each with the tags lichess read and either the number
/// of moves it took or why it refused the game.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
pub struct PushAnswer {
    /// The games.
    #[serde(default)]
    pub games: Vec<GameAnswer>,
}

/// One game of [`PushAnswer`].
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
pub struct GameAnswer {
    /// The PGN tags lichess read (`White`, `Black`, `Round`, ...).
    #[serde(default)]
    pub tags: BTreeMap<String, serde_json::Value>,
    /// The moves taken (a game taken).
    pub moves: Option<u64>,
    /// Why the game was refused.
    pub error: Option<String>,
}

impl GameAnswer {
    /// The game as the operator knows it: `Round 1.2: White - Black`
    /// (a tag lichess did not give is `?`).
    pub fn name(&self) -> String {
        let tag = |k: &str| match self.tags.get(k) {
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(v) => v.to_string(),
            None => "?".into(),
        };
        format!(
            "Round {}: {} - {}",
            tag("Round"),
            tag("White"),
            tag("Black")
        )
    }
}

/// The `error` of a JSON error answer (`{"error": "..."}`), else the start
/// of the body.
pub fn error_text(body: &[u8]) -> String {
    #[derive(Deserialize)]
    struct Error {
        error: serde_json::Value,
    }
    if let Ok(e) = serde_json::from_slice::<Error>(body) {
        return match e.error {
            serde_json::Value::String(s) => s,
            v => v.to_string(),
        };
    }
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    match text.char_indices().nth(200) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

/// Where the push stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// Nothing pushed yet (no game in the round).
    Waiting,
    /// The last push was taken.
    Pushed,
    /// lichess answered 429: waiting before the next push.
    RateLimited,
    /// The last push failed (no answer, or an error status): retrying
    /// with back-off.
    Failing,
}

impl State {
    fn word(self) -> &'static str {
        match self {
            State::Waiting => "waiting",
            State::Pushed => "pushed",
            State::RateLimited => "rate limited",
            State::Failing => "failing",
        }
    }
}

/// The push's status, shared with the desk.
#[derive(Debug)]
pub struct Status {
    inner: Mutex<Inner>,
}

#[derive(Debug)]
struct Inner {
    round: String,
    url: String,
    event_round: Option<u32>,
    state: State,
    message: Option<String>,
    note: Option<String>,
    pushes: u64,
    last_push_ms: Option<u64>,
    last_status: Option<u16>,
    games: usize,
    moves: u64,
    errors: Vec<(String, String)>,
    retry_at_ms: Option<u64>,
}

impl Status {
    /// A push to lichess round `round`, shown at `url`.
    pub fn new(round: &str, url: String) -> Status {
        Status {
            inner: Mutex::new(Inner {
                round: round.to_string(),
                url,
                event_round: None,
                state: State::Waiting,
                message: None,
                note: None,
                pushes: 0,
                last_push_ms: None,
                last_status: None,
                games: 0,
                moves: 0,
                errors: Vec::new(),
                retry_at_ms: None,
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The event's round whose games are pushed.
    pub fn set_event_round(&self, round: u32) {
        self.lock().event_round = Some(round);
    }

    /// A note for the operator (the event moved to another round), or
    /// none.
    pub fn set_note(&self, note: Option<String>) {
        self.lock().note = note;
    }

    /// A push was answered `200` at `at_ms` with `answer`; returns the
    /// refused games (name, why).
    pub fn pushed(&self, at_ms: u64, answer: &PushAnswer) -> Vec<(String, String)> {
        let errors: Vec<(String, String)> = answer
            .games
            .iter()
            .filter_map(|g| Some((g.name(), g.error.clone()?)))
            .collect();
        let mut s = self.lock();
        s.state = State::Pushed;
        s.message = None;
        s.pushes += 1;
        s.last_push_ms = Some(at_ms);
        s.last_status = Some(200);
        s.games = answer.games.iter().filter(|g| g.error.is_none()).count();
        s.moves = answer.games.iter().filter_map(|g| g.moves).sum();
        s.errors = errors.clone();
        s.retry_at_ms = None;
        errors
    }

    /// A push was not taken at `at_ms` (`status`: the HTTP status, when
    /// there was an answer): `state`, `message`, and the next try at
    /// `retry_at_ms`.
    pub fn not_taken(
        &self,
        at_ms: u64,
        status: Option<u16>,
        state: State,
        message: String,
        retry_at_ms: u64,
    ) {
        let mut s = self.lock();
        s.state = state;
        s.message = Some(message);
        s.pushes += 1;
        s.last_push_ms = Some(at_ms);
        s.last_status = status;
        s.retry_at_ms = Some(retry_at_ms);
    }

    /// The status as the desk shows it (JSON; see docs/lichess.md).
    pub fn json(&self) -> serde_json::Value {
        let s = self.lock();
        serde_json::json!({
            "round": s.round,
            "url": s.url,
            "event_round": s.event_round,
            "state": s.state.word(),
            "message": s.message,
            "note": s.note,
            "pushes": s.pushes,
            "last_push_ms": s.last_push_ms,
            "last_status": s.last_status,
            "games": s.games,
            "moves": s.moves,
            "errors": s.errors.iter().map(|(game, error)| serde_json::json!({
                "game": game,
                "error": error,
            })).collect::<Vec<_>>(),
            "retry_at_ms": s.retry_at_ms,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_as_lichess_documents_it_reads_with_its_refused_games() {
        let body = br#"{"games":[
            {"tags":{"White":"Player 1","Black":"Player 2","Round":"1.1","Result":"*"},"moves":2},
            {"tags":{"White":"Player 3","Black":"Player 4","Round":"1.2"},"error":"Invalid move: Nxe5"}
        ]}"#;
        let answer: PushAnswer = serde_json::from_slice(body).unwrap();
        assert_eq!(answer.games.len(), 2);
        let status = Status::new(
            "abcdefgh",
            "https://lichess.org/broadcast/-/-/abcdefgh".into(),
        );
        let refused = status.pushed(1_000, &answer);
        assert_eq!(
            refused,
            vec![(
                "Round 1.2: Player 3 - Player 4".to_string(),
                "Invalid move: Nxe5".to_string()
            )]
        );
        let j = status.json();
        assert_eq!(j["state"], "pushed");
        assert_eq!(
            (j["games"].as_u64(), j["moves"].as_u64()),
            (Some(1), Some(2))
        );
        assert_eq!(j["errors"][0]["error"], "Invalid move: Nxe5");
        assert_eq!(j["last_push_ms"], 1_000);
    }

    #[test]
    fn an_error_answer_says_its_error_or_the_start_of_its_body() {
        assert_eq!(error_text(br#"{"error":"Not found"}"#), "Not found");
        assert_eq!(error_text(b"  Too many requests\n"), "Too many requests");
        let long = "x".repeat(500);
        assert_eq!(error_text(long.as_bytes()).chars().count(), 201);
    }

    #[test]
    fn a_failure_keeps_the_games_of_the_last_push_taken() {
        let status = Status::new("abcdefgh", String::new());
        let answer = PushAnswer {
            games: vec![GameAnswer {
                moves: Some(7),
                ..GameAnswer::default()
            }],
        };
        status.pushed(1, &answer);
        status.not_taken(2, Some(429), State::RateLimited, "wait".into(), 62_000);
        let j = status.json();
        assert_eq!(j["state"], "rate limited");
        assert_eq!(j["moves"], 7);
        assert_eq!(j["last_status"], 429);
        assert_eq!(j["retry_at_ms"], 62_000);
        assert_eq!(j["pushes"], 2);
    }
}
