//! The push to lichess: the round's public PGN (with a broadcast delay,
//! the delayed games: what the PGN folder holds) sent to a lichess
//! broadcast round through its push endpoint whenever it changes, at most
//! once a second, as lichess's own broadcaster app does.
//!
//! What lichess asks (docs/lichess.md has the sources):
//!
//! - `POST {base_url}/api/broadcast/round/{id}/push`, `Authorization:
//!   Bearer <token>` (a token with the `study:write` scope, of a
//!   contributor to the broadcast), body: the PGN of every game of the
//!   round, `Content-Type: text/plain`. Only for a round without a source
//!   URL.
//! - The answer (`200`): `{"games": [{"tags": {...}, "moves": N} |
//!   {"tags": {...}, "error": "..."}]}`, one entry per game pushed: a
//!   game lichess refused carries its `error`; the push itself was taken.
//! - `429`: too many requests; lichess's API asks for a full minute's
//!   wait (this module waits `Retry-After` when the answer gives one).
//!
//! Design: one tokio task ([`Pusher::run`]) woken by the round's public
//! changes ([`crate::sink::round::Round::public_changes`]); changes that
//! come while it waits (the one-second spacing, a back-off) are
//! coalesced into the next push of the whole round, so nothing is lost
//! across a refused push: the next one carries everything. [`Pacer`] is
//! the pure timing (spacing, 429, back-off on errors). The token is read
//! from its file at start and kept only as a sensitive header value; it
//! is never logged ([`Token`]'s `Debug` hides it).
//!
//! - [`config`]: the `[lichess]` section.
//! - [`http`]: one POST, over TLS for `https://`.
//! - [`status`]: lichess's answer read, and the status the desk shows.

pub mod config;
pub mod http;
pub mod status;

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hyper::header::HeaderValue;
use tokio_rustls::rustls;
use tracing::{debug, info, warn};

use self::http::HttpError;
use crate::backoff::{Backoff, BackoffConfig};
use crate::sink::round::Round;
pub use config::{BaseUrl, Lichess, RawLichess, lichess};
pub use status::{PushAnswer, State, Status};

/// The shortest time between two pushes.
pub const SPACING: Duration = Duration::from_secs(1);

/// The wait after a `429` that gives no `Retry-After`: lichess's API
/// asks for a full minute.
pub const RATE_LIMITED_WAIT: Duration = Duration::from_secs(60);

/// The back-off after a failed push: 1 s, doubling, at most a minute.
pub const ERROR_BACKOFF: BackoffConfig = BackoffConfig {
    min: Duration::from_secs(1),
    max: Duration::from_secs(60),
};

/// How long one push may take (connection, TLS, answer).
pub const PUSH_TIMEOUT: Duration = Duration::from_secs(20);

/// How long the last push at shutdown may take.
const LAST_PUSH_TIMEOUT: Duration = Duration::from_secs(5);

/// Why the push cannot start.
#[derive(Debug, thiserror::Error)]
pub enum LichessError {
    /// The token file does not read.
    #[error("lichess.token_file: {path}: {error}")]
    TokenFile {
        /// The file.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// The token file holds no usable token.
    #[error("lichess.token_file: {path}: {why}")]
    BadToken {
        /// The file.
        path: PathBuf,
        /// What is wrong (never the token).
        why: &'static str,
    },
    /// TLS cannot be set up (no certificate roots).
    #[error("lichess: {0}")]
    Tls(HttpError),
}

/// The API token, kept only as the `Authorization` header's value
/// (marked sensitive); its `Debug` never shows it.
#[derive(Clone)]
pub struct Token {
    header: HeaderValue,
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(<redacted>)")
    }
}

impl Token {
    /// The token in `text` (a token file's content): one word of visible
    /// ASCII, surrounding whitespace ignored.
    pub fn parse(text: &str) -> Result<Token, &'static str> {
        let token = text.trim();
        if token.is_empty() {
            return Err("the file is empty: it should hold the lichess API token");
        }
        if !token.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(
                "the file holds more than one word, or characters a token never has: it should hold the lichess API token alone",
            );
        }
        let mut header = HeaderValue::from_str(&format!("Bearer {token}"))
            .map_err(|_| "the token cannot be sent in a header")?;
        header.set_sensitive(true);
        Ok(Token { header })
    }

    /// Reads the token from `path`.
    pub fn read(path: &Path) -> Result<Token, LichessError> {
        let text = std::fs::read_to_string(path).map_err(|error| LichessError::TokenFile {
            path: path.to_owned(),
            error,
        })?;
        let token = Token::parse(&text).map_err(|why| LichessError::BadToken {
            path: path.to_owned(),
            why,
        })?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            if let Ok(meta) = std::fs::metadata(path)
                && meta.permissions().mode() & 0o077 != 0
            {
                warn!(path = %path.display(), "the lichess token file may be read by other users than boardcast's: chmod 600 it");
            }
        }
        Ok(token)
    }

    /// The `Authorization` header's value: `Bearer <token>`.
    pub fn bearer(&self) -> HeaderValue {
        self.header.clone()
    }
}

/// When the next push may go: at most one a second, none before a
/// back-off ends. Pure: time is an argument.
#[derive(Debug)]
pub struct Pacer {
    last_start: Option<Instant>,
    not_before: Option<Instant>,
    backoff: Backoff,
}

impl Default for Pacer {
    fn default() -> Self {
        Pacer {
            last_start: None,
            not_before: None,
            backoff: Backoff::new(ERROR_BACKOFF),
        }
    }
}

impl Pacer {
    /// The earliest time the next push may start, seen at `now`.
    pub fn next_at(&self, now: Instant) -> Instant {
        let spaced = self.last_start.map_or(now, |t| t + SPACING);
        spaced.max(self.not_before.unwrap_or(now)).max(now)
    }

    /// A push starts at `now`.
    pub fn started(&mut self, now: Instant) {
        self.last_start = Some(now);
    }

    /// The push was taken: the back-off starts again from its shortest.
    pub fn taken(&mut self) {
        self.not_before = None;
        self.backoff.reset();
    }

    /// lichess answered `429` at `now`: no push for `retry_after`, else
    /// [`RATE_LIMITED_WAIT`]. Returns the wait.
    pub fn rate_limited(&mut self, now: Instant, retry_after: Option<Duration>) -> Duration {
        let wait = retry_after.unwrap_or(RATE_LIMITED_WAIT);
        self.not_before = Some(now + wait);
        wait
    }

    /// The push failed at `now` (no answer, an error status): the next
    /// waits the back-off's next delay. Returns it.
    pub fn failed(&mut self, now: Instant) -> Duration {
        let wait = self.backoff.next_delay();
        self.not_before = Some(now + wait);
        wait
    }
}

/// What became of one push.
#[derive(Debug)]
enum Outcome {
    /// Taken (`200`).
    Taken,
    /// Not taken: try again (after the pacer's wait).
    Again,
}

/// The push task of one daemon.
#[derive(Debug)]
pub struct Pusher {
    config: Lichess,
    token: Token,
    round: Arc<Round>,
    status: Arc<Status>,
    tls: Option<Arc<rustls::ClientConfig>>,
    /// The event's round whose games are pushed, once known.
    pinned: Option<u32>,
    /// The event round the operator was last told about (moved on).
    told: Option<u32>,
    /// The PGN lichess last took.
    taken: Option<String>,
    /// The games lichess refused last (name, why), said once.
    refused: Vec<(String, String)>,
    /// A push failed and it has not been said yet that one works again.
    failing: bool,
    pacer: Pacer,
}

impl Pusher {
    /// The push `config` asks for, of `round`'s public games: its token
    /// read, TLS set up for an `https://` server.
    pub fn new(config: &Lichess, round: Arc<Round>) -> Result<Pusher, LichessError> {
        let token = Token::read(&config.token_file)?;
        let tls = if config.base_url.tls {
            Some(http::tls_config().map_err(LichessError::Tls)?)
        } else {
            None
        };
        let url = format!("{}/broadcast/-/-/{}", config.base_url, config.round);
        let status = Arc::new(Status::new(&config.round, url));
        if let Some(r) = config.event_round {
            status.set_event_round(r);
        }
        Ok(Pusher {
            config: config.clone(),
            token,
            round,
            status,
            tls,
            pinned: config.event_round,
            told: None,
            taken: None,
            refused: Vec::new(),
            failing: false,
            pacer: Pacer::default(),
        })
    }

    /// The status the desk shows.
    pub fn status(&self) -> Arc<Status> {
        Arc::clone(&self.status)
    }

    /// Pushes every change of the round's public games until `stop`
    /// resolves, then pushes what is left once (a second after the last
    /// push at most; not when lichess asked to wait or a back-off runs).
    pub async fn run(mut self, stop: impl Future<Output = ()>) {
        info!(
            lichess_round = %self.config.round,
            base_url = %self.config.base_url,
            "pushing the round's public PGN to lichess"
        );
        let mut changes = self.round.public_changes();
        // What the round holds at start is pushed too.
        let mut pending = true;
        tokio::pin!(stop);
        loop {
            if !pending {
                tokio::select! {
                    _ = &mut stop => break,
                    changed = changes.changed() => if changed.is_err() { break },
                }
            }
            let at = self.pacer.next_at(Instant::now());
            tokio::select! {
                _ = &mut stop => break,
                _ = tokio::time::sleep_until(at.into()) => {}
            }
            // Every change so far goes in this push.
            changes.mark_unchanged();
            tokio::select! {
                _ = &mut stop => break,
                outcome = self.push_now(PUSH_TIMEOUT) => {
                    pending = matches!(outcome, Outcome::Again);
                }
            }
        }
        // The last push keeps the spacing; a longer wait (a 429, a
        // back-off) is not waited out at shutdown.
        let now = Instant::now();
        let at = self.pacer.next_at(now);
        if at <= now + SPACING {
            tokio::time::sleep_until(at.into()).await;
            self.push_now(LAST_PUSH_TIMEOUT).await;
        }
    }

    /// The PGN to push now: the pinned event round's public games (the
    /// first round with games pins itself), or none (no game yet, or
    /// nothing new since lichess last took it).
    fn pgn(&mut self) -> Option<String> {
        let current = self.round.current();
        let round = self.pinned.unwrap_or(current);
        let pgn = self.round.public_pgn(round);
        if pgn.is_empty() {
            return None;
        }
        if self.pinned.is_none() {
            self.pinned = Some(round);
            self.status.set_event_round(round);
        }
        if current != round && self.told != Some(current) {
            self.told = Some(current);
            let note = format!(
                "the event is at round {current}; lichess round {} gets round {round}'s games only: set [lichess] round to round {current}'s broadcast round and restart",
                self.config.round
            );
            warn!(lichess_round = %self.config.round, event_round = round, current, "{note}");
            self.status.set_note(Some(note));
        }
        (self.taken.as_deref() != Some(pgn.as_str())).then_some(pgn)
    }

    /// One push of the round's public PGN, if it changed, within
    /// `timeout`.
    async fn push_now(&mut self, timeout: Duration) -> Outcome {
        let Some(pgn) = self.pgn() else {
            return Outcome::Taken;
        };
        let path = format!("/api/broadcast/round/{}/push", self.config.round);
        let started = Instant::now();
        self.pacer.started(started);
        let sent = http::post(
            &self.config.base_url,
            &path,
            &self.token,
            pgn.clone(),
            self.tls.as_ref(),
            timeout,
        )
        .await;
        let at_ms = crate::wall::unix_ms();
        match sent {
            Ok(answer) if answer.status == 200 => {
                self.taken_answer(&answer.body, at_ms);
                self.taken = Some(pgn);
                self.pacer.taken();
                Outcome::Taken
            }
            Ok(answer) if answer.status == 429 => {
                let wait = self.pacer.rate_limited(started, answer.retry_after);
                let message = format!(
                    "lichess asks to wait (429: too many requests): the next push in {} s",
                    wait.as_secs()
                );
                warn!(lichess_round = %self.config.round, wait_s = wait.as_secs(), "{message}");
                self.status.not_taken(
                    at_ms,
                    Some(429),
                    State::RateLimited,
                    message,
                    at_ms + wait.as_millis() as u64,
                );
                Outcome::Again
            }
            Ok(answer) => {
                let why = format!(
                    "lichess answered {}: {}",
                    answer.status,
                    status::error_text(&answer.body)
                );
                self.failed(started, at_ms, Some(answer.status), why);
                Outcome::Again
            }
            Err(e) => {
                self.failed(started, at_ms, None, e.to_string());
                Outcome::Again
            }
        }
    }

    /// A `200`: the games lichess refused are logged (each once while it
    /// stays refused) and shown on the desk.
    fn taken_answer(&mut self, body: &[u8], at_ms: u64) {
        let answer: PushAnswer = match serde_json::from_slice(body) {
            Ok(a) => a,
            Err(e) => {
                warn!(lichess_round = %self.config.round, error = %e, "lichess took the push but its answer does not read");
                PushAnswer::default()
            }
        };
        let refused = self.status.pushed(at_ms, &answer);
        for (game, error) in &refused {
            if !self.refused.contains(&(game.clone(), error.clone())) {
                warn!(lichess_round = %self.config.round, %game, %error, "lichess refused a game of the push");
            }
        }
        self.refused = refused;
        if std::mem::take(&mut self.failing) {
            info!(lichess_round = %self.config.round, "lichess takes the pushes again");
        }
        debug!(
            lichess_round = %self.config.round,
            games = answer.games.len(),
            moves = answer.games.iter().filter_map(|g| g.moves).sum::<u64>(),
            "pushed to lichess"
        );
    }

    /// A push not taken (`why`): back-off, said once per streak of
    /// failures (then at debug level).
    fn failed(&mut self, started: Instant, at_ms: u64, status: Option<u16>, why: String) {
        let wait = self.pacer.failed(started);
        if std::mem::replace(&mut self.failing, true) {
            debug!(lichess_round = %self.config.round, error = %why, wait_ms = wait.as_millis() as u64, "the push to lichess failed again");
        } else {
            warn!(lichess_round = %self.config.round, error = %why, "the push to lichess failed; retrying with back-off (at most a minute apart)");
        }
        self.status.not_taken(
            at_ms,
            status,
            State::Failing,
            why,
            at_ms + wait.as_millis() as u64,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sink::ledger::GameKey;
    use crate::sink::record::GameRecord;
    use crate::tournament::{EventInfo, Pairings};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    fn record(sans: &[&str]) -> GameRecord {
        GameRecord {
            start_fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
            sans: sans.iter().map(|s| s.to_string()).collect(),
            ucis: vec!["e2e4".into(); sans.len()],
            ..GameRecord::default()
        }
    }

    /// One request read from `stream`: its head and body.
    async fn request(stream: &mut tokio::net::TcpStream) -> (String, String) {
        let mut buf = Vec::new();
        let mut chunk = [0u8; 4096];
        loop {
            let n = stream.read(&mut chunk).await.unwrap();
            buf.extend_from_slice(&chunk[..n]);
            let text = String::from_utf8_lossy(&buf).into_owned();
            if let Some((head, body)) = text.split_once("\r\n\r\n") {
                let length: usize = head
                    .lines()
                    .find_map(|l| {
                        l.to_ascii_lowercase()
                            .strip_prefix("content-length:")
                            .map(|v| v.trim().parse().unwrap())
                    })
                    .unwrap_or(0);
                if body.len() >= length || n == 0 {
                    return (head.to_string(), body.to_string());
                }
            }
            assert!(n > 0, "the request was cut");
        }
    }

    /// A server that answers its first request 503, drops the second
    /// without an answer, and takes the others (`200`): each request's
    /// time, head and body.
    async fn flaky_server() -> (u16, Arc<std::sync::Mutex<Vec<(Instant, String, String)>>>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        tokio::spawn(async move {
            loop {
                let (mut stream, _) = listener.accept().await.unwrap();
                let (head, body) = request(&mut stream).await;
                let n = {
                    let mut log = log.lock().unwrap();
                    log.push((Instant::now(), head, body));
                    log.len()
                };
                let (status, json) = match n {
                    1 => (
                        "503 Service Unavailable",
                        r#"{"error":"down for maintenance"}"#,
                    ),
                    2 => continue,
                    _ => (
                        "200 OK",
                        r#"{"games":[{"tags":{"Round":"1.1","White":"A","Black":"B"},"moves":2}]}"#,
                    ),
                };
                let answer = format!(
                    "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{json}",
                    json.len()
                );
                stream.write_all(answer.as_bytes()).await.unwrap();
            }
        });
        (port, seen)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_failing_server_is_tried_again_with_back_off_and_gets_every_change() {
        let (port, seen) = flaky_server().await;
        let dir = tempfile::tempdir().unwrap();
        let token_file = dir.path().join("token");
        std::fs::write(&token_file, "lip_unit61\n").unwrap();
        let event = EventInfo {
            round: 1,
            ..EventInfo::default()
        };
        let round = Round::new(event, Pairings::default(), None, None).unwrap();
        let key = GameKey {
            board: "t".into(),
            started_ms: 0,
        };
        round.update(1, 1, &key, &record(&["e4"]));
        let config = Lichess {
            round: "abcdefgh".into(),
            token_file,
            base_url: BaseUrl::parse(&format!("http://127.0.0.1:{port}")).unwrap(),
            event_round: None,
        };
        let pusher = Pusher::new(&config, Arc::clone(&round)).unwrap();
        let status = pusher.status();
        let (stop, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(pusher.run(async {
            let _ = stop_rx.await;
        }));
        let count = || seen.lock().unwrap().len();
        let wait_for = |n: usize| async move {
            let deadline = Instant::now() + Duration::from_secs(15);
            while count() < n {
                assert!(Instant::now() < deadline, "{} requests, not {n}", count());
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        };
        wait_for(1).await;
        tokio::time::sleep(Duration::from_millis(100)).await;
        let failing = status.json();
        assert_eq!(failing["state"], "failing", "{failing}");
        assert_eq!(failing["last_status"], 503);
        assert!(
            failing["message"]
                .as_str()
                .unwrap()
                .contains("down for maintenance")
        );
        // A move while the push backs off: the next push carries it.
        round.update(1, 1, &key, &record(&["e4", "e5"]));
        wait_for(3).await;
        tokio::time::sleep(Duration::from_millis(100)).await;
        let log = seen.lock().unwrap().clone();
        let gaps: Vec<Duration> = log.windows(2).map(|w| w[1].0 - w[0].0).collect();
        assert!(gaps[0] >= Duration::from_millis(950), "{gaps:?}");
        assert!(gaps[1] >= Duration::from_millis(1_950), "{gaps:?}");
        let (head, body) = (&log[2].1, &log[2].2);
        assert!(
            head.starts_with("POST /api/broadcast/round/abcdefgh/push HTTP/1.1"),
            "{head}"
        );
        assert!(head.contains("authorization: Bearer lip_unit61"), "{head}");
        assert!(head.contains("content-type: text/plain"), "{head}");
        assert!(body.contains("1. e4 e5"), "{body}");
        let taken = status.json();
        assert_eq!(taken["state"], "pushed", "{taken}");
        assert_eq!(taken["moves"], 2);
        // Nothing new: nothing pushed again.
        tokio::time::sleep(Duration::from_millis(1_500)).await;
        assert_eq!(count(), 3);
        // A move as the daemon stops: pushed before the task ends.
        round.update(1, 1, &key, &record(&["e4", "e5", "Nf3"]));
        let _ = stop.send(());
        tokio::time::timeout(Duration::from_secs(8), task)
            .await
            .expect("the task stops")
            .unwrap();
        let log = seen.lock().unwrap().clone();
        assert!(log.len() >= 4, "{} requests", log.len());
        assert!(log.last().unwrap().2.contains("2. Nf3"), "{:?}", log.last());
    }

    #[test]
    fn pushes_are_a_second_apart_and_wait_out_a_429_and_the_back_off() {
        let t0 = Instant::now();
        let s = |n: u64| Duration::from_millis(n);
        let mut p = Pacer::default();
        assert_eq!(p.next_at(t0), t0, "the first push goes at once");
        p.started(t0);
        p.taken();
        assert_eq!(p.next_at(t0 + s(200)), t0 + s(1_000));
        assert_eq!(p.next_at(t0 + s(3_000)), t0 + s(3_000));
        // A 429 with Retry-After, then one without.
        p.started(t0 + s(3_000));
        assert_eq!(p.rate_limited(t0 + s(3_000), Some(s(5_000))), s(5_000));
        assert_eq!(p.next_at(t0 + s(3_100)), t0 + s(8_000));
        p.started(t0 + s(8_000));
        assert_eq!(p.rate_limited(t0 + s(8_000), None), RATE_LIMITED_WAIT);
        assert_eq!(p.next_at(t0 + s(8_000)), t0 + s(8_000) + RATE_LIMITED_WAIT);
        // Errors back off 1 s, 2 s, 4 s; a push taken starts again.
        let t1 = t0 + s(100_000);
        p.started(t1);
        assert_eq!(p.failed(t1), s(1_000));
        p.started(t1 + s(1_000));
        assert_eq!(p.failed(t1 + s(1_000)), s(2_000));
        assert_eq!(p.next_at(t1 + s(1_500)), t1 + s(3_000));
        p.started(t1 + s(3_000));
        assert_eq!(p.failed(t1 + s(3_000)), s(4_000));
        p.started(t1 + s(7_000));
        p.taken();
        p.started(t1 + s(8_000));
        assert_eq!(p.failed(t1 + s(8_000)), s(1_000));
    }

    #[test]
    fn the_token_is_one_word_and_never_shown() {
        let t = Token::parse("  lip_secret123\n").unwrap();
        assert_eq!(t.bearer().to_str().unwrap(), "Bearer lip_secret123");
        assert!(t.bearer().is_sensitive());
        assert_eq!(format!("{t:?}"), "Token(<redacted>)");
        assert!(!format!("{:?}", t.bearer()).contains("secret"));
        for bad in ["", " \n", "two words", "tab\there", "é"] {
            assert!(Token::parse(bad).is_err(), "{bad:?}");
        }
    }
}
