//! Operator commands: what they are, how `boardcast command` signs them and
//! how the daemon checks them before a board obeys.
//!
//! # Format
//!
//! A command travels on `{prefix}/board/{id}/command` as a signed envelope
//! (JSON):
//!
//! ```json
//! {"ts":1763928000123,"nonce":"9f0c...","body":"{\"command\":\"set_result\",\"result\":\"1-0\"}","sig":"5be1..."}
//! ```
//!
//! - `ts`: milliseconds since the Unix epoch when it was signed;
//! - `nonce`: 16 to 64 characters from `[0-9A-Za-z_-]`, never used twice;
//! - `body`: the [`OperatorCommand`] as a JSON string;
//! - `sig`: lowercase hex of HMAC-SHA256, keyed with the operator secret,
//!   over `boardcast-command-v1`, the topic, `ts`, `nonce` and `body`,
//!   each followed by a newline (see [`signature`]).
//!
//! The topic is signed, so a command for board 1 cannot be moved to board 2
//! or to another prefix. The daemon refuses a command larger than
//! [`MAX_COMMAND_BYTES`], a retained one, one without a valid signature,
//! one whose `ts` is more than the window (30 s by default) away from its
//! own clock, and one whose nonce it has seen within the window. The
//! window is at most [`MAX_WINDOW_S`]. With a nonce file ([`nonces`], in
//! the recorder folder) the nonces seen survive a restart: a command
//! captured on the broker is refused after one as before it.
//!
//! Everything here is pure but the nonce file: time is passed in.

pub mod config;
pub mod nonces;

use std::collections::{HashMap, VecDeque};

use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use crate::tournament::Player;

/// Largest command payload accepted, in bytes.
pub const MAX_COMMAND_BYTES: usize = 4096;
/// Default tolerance between the signer's clock and the daemon's.
pub const DEFAULT_WINDOW_MS: u64 = 30_000;
/// The largest window a configuration may set (`control.window_s`), in
/// seconds: a command captured on the broker can be replayed within it.
pub const MAX_WINDOW_S: u64 = 300;
/// Shortest secret accepted, in bytes.
pub const MIN_SECRET_BYTES: usize = 16;
/// Nonces remembered at most (signed commands only can fill this).
const MAX_SEEN: usize = 10_000;
/// The domain-separation label of the signature.
const LABEL: &str = "boardcast-command-v1";

/// An operator's correction of a board.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(tag = "command", rename_all = "snake_case", deny_unknown_fields)]
pub enum OperatorCommand {
    /// Set the current game's result (`1-0`, `0-1`, `1/2-1/2`, `*`).
    SetResult {
        /// The result.
        result: String,
    },
    /// End the current game and wait for a start position.
    Restart,
    /// Fix the players of the board.
    SetPlayers {
        /// White.
        white: Player,
        /// Black.
        black: Player,
    },
    /// The board stands the other way round from what the game assumed
    /// (turned during the game, or read wrongly at its start): read it so
    /// from now on.
    TurnRound,
    /// Take the game up from a position (a FEN of the board's game): a new
    /// game starts there, the sensors taken to show it.
    TakeUp {
        /// The position.
        fen: String,
    },
    /// The board plays board `board` of round `round` from now on: its
    /// game ends (as `restart`) and the next one belongs to that round and
    /// pairing board (the operator's desk starts a round with it). With
    /// `keep_game`, a game in progress (a move played, no result) goes on
    /// and the seat is its next game's.
    StartGame {
        /// The round.
        round: u32,
        /// The pairing board.
        board: u32,
        /// White, when the sender knows the pairing (a hub's desk does; a
        /// bridge without the pairing file then shows the right players).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        white: Option<Player>,
        /// Black, likewise.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        black: Option<Player>,
        /// A game in progress goes on: the seat is the board's next game's
        /// (what the desk sends; without it the game ends as `restart`).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        keep_game: bool,
    },
    /// An arbiter's decision about one of the board's alerts.
    Decide {
        /// The alert's `evidence.seq`.
        alert: u64,
        /// Confirmed, dismissed or handled.
        decision: crate::event::Decision,
        /// The arbiter's words (one line, at most 300 characters).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
}

impl OperatorCommand {
    /// The command's name, as in its JSON.
    pub fn name(&self) -> &'static str {
        match self {
            OperatorCommand::SetResult { .. } => "set_result",
            OperatorCommand::Restart => "restart",
            OperatorCommand::SetPlayers { .. } => "set_players",
            OperatorCommand::TurnRound => "turn_round",
            OperatorCommand::TakeUp { .. } => "take_up",
            OperatorCommand::StartGame { .. } => "start_game",
            OperatorCommand::Decide { .. } => "decide",
        }
    }

    /// Parses a command (JSON) and checks it: a known result, player names
    /// without control characters and of bounded length.
    pub fn parse(json: &[u8]) -> Result<OperatorCommand, String> {
        let c: OperatorCommand = serde_json::from_slice(json).map_err(|e| e.to_string())?;
        match &c {
            OperatorCommand::SetResult { result }
                if !["1-0", "0-1", "1/2-1/2", "*"].contains(&result.as_str()) =>
            {
                return Err(format!(
                    "result `{result}`: expected 1-0, 0-1, 1/2-1/2 or *"
                ));
            }
            OperatorCommand::SetPlayers { white, black } => {
                check_player("white", white)?;
                check_player("black", black)?;
            }
            OperatorCommand::TakeUp { fen } => {
                crate::text::check_text("fen", Some(fen))?;
                if fen.is_empty() || fen.len() > 200 {
                    return Err("`fen`: a position, at most 200 characters".into());
                }
            }
            OperatorCommand::StartGame {
                round,
                board,
                white,
                black,
                ..
            } => {
                if *round == 0 || *board == 0 || *round > 99 || *board > 9999 {
                    return Err(format!(
                        "round {round}, board {board}: a round from 1 to 99 and a board from 1 to 9999"
                    ));
                }
                for (side, p) in [("white", white), ("black", black)] {
                    if let Some(p) = p {
                        check_player(side, p)?;
                    }
                }
            }
            OperatorCommand::Decide {
                note: Some(note), ..
            } => {
                crate::text::check_text("note", Some(note))?;
                if note.chars().count() > 300 {
                    return Err("the note is longer than 300 characters".into());
                }
            }
            _ => {}
        }
        Ok(c)
    }
}

/// A player's name, title and federation: no control characters, of
/// bounded length.
fn check_player(side: &str, p: &Player) -> Result<(), String> {
    crate::text::check_text(side, Some(&p.name))?;
    crate::text::check_text(side, p.title.as_deref())?;
    crate::text::check_text(side, p.federation.as_deref()).map_err(String::from)
}

/// The operator secret. Its `Debug` never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(Vec<u8>);

impl Secret {
    /// A secret from its text (surrounding whitespace, such as a file's
    /// last newline, is dropped). At least [`MIN_SECRET_BYTES`] bytes.
    pub fn new(text: &str) -> Result<Secret, String> {
        let t = text.trim();
        if t.len() < MIN_SECRET_BYTES {
            return Err(format!(
                "the secret is {} bytes long; at least {MIN_SECRET_BYTES} are needed",
                t.len()
            ));
        }
        Ok(Secret(t.as_bytes().to_vec()))
    }

    /// The secret's text (for the live page's arbiter view, which admits
    /// a browser whose user types it).
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.0).expect("made from a str")
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(..)")
    }
}

/// A signed command as it travels.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Envelope {
    /// Milliseconds since the Unix epoch when it was signed.
    pub ts: u64,
    /// Never used twice.
    pub nonce: String,
    /// The [`OperatorCommand`] as JSON.
    pub body: String,
    /// Lowercase hex HMAC-SHA256 (see [`signature`]).
    pub sig: String,
    /// Who sent it, when the sender says (the hub's desk: `desk:
    /// <address>`); signed with the rest when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
}

/// The longest `by` a signed command may carry.
pub const MAX_BY_CHARS: usize = 100;

/// The HMAC-SHA256 of a command for `topic`, keyed with `secret`.
pub fn signature(secret: &Secret, topic: &str, ts: u64, nonce: &str, body: &str) -> [u8; 32] {
    mac(secret, topic, ts, nonce, body, None)
        .finalize()
        .into_bytes()
        .into()
}

/// The MAC over a command's parts; `by`, when the envelope carries it, is
/// one more line (an envelope without it signs as before `by` existed).
fn mac(
    secret: &Secret,
    topic: &str,
    ts: u64,
    nonce: &str,
    body: &str,
    by: Option<&str>,
) -> Hmac<Sha256> {
    let mut mac = Hmac::<Sha256>::new_from_slice(&secret.0).expect("HMAC takes any key length");
    for part in [LABEL, topic, &ts.to_string(), nonce, body]
        .into_iter()
        .chain(by)
    {
        mac.update(part.as_bytes());
        mac.update(b"\n");
    }
    mac
}

/// Signs `command` for `topic` at `ts_ms` with `nonce`: the payload to
/// publish.
pub fn sign(
    secret: &Secret,
    topic: &str,
    command: &OperatorCommand,
    ts_ms: u64,
    nonce: &str,
) -> Vec<u8> {
    sign_by(secret, topic, command, ts_ms, nonce, None)
}

/// [`sign`], saying who sends it (`by`, signed with the rest): the
/// board's `correction` event and capture name them.
pub fn sign_by(
    secret: &Secret,
    topic: &str,
    command: &OperatorCommand,
    ts_ms: u64,
    nonce: &str,
    by: Option<&str>,
) -> Vec<u8> {
    let body = serde_json::to_string(command).expect("commands serialise");
    let sig = mac(secret, topic, ts_ms, nonce, &body, by)
        .finalize()
        .into_bytes();
    serde_json::to_vec(&Envelope {
        ts: ts_ms,
        nonce: nonce.to_string(),
        body,
        sig: hex::encode(sig),
        by: by.map(str::to_string),
    })
    .expect("envelopes serialise")
}

/// An envelope's `by`: one line of at most [`MAX_BY_CHARS`] characters.
fn check_by(by: Option<&str>) -> Result<(), Refusal> {
    match by {
        Some(by)
            if by.chars().count() > MAX_BY_CHARS
                || crate::text::check_text("by", Some(by)).is_err() =>
        {
            Err(Refusal::Invalid(format!(
                "`by`: one line of at most {MAX_BY_CHARS} characters"
            )))
        }
        _ => Ok(()),
    }
}

/// A fresh random nonce (32 hex digits).
pub fn new_nonce() -> String {
    use rand::RngCore;
    let mut b = [0u8; 16];
    rand::rngs::OsRng.fill_bytes(&mut b);
    hex::encode(b)
}

/// Why a command was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// No operator secret is configured: every command is refused.
    #[error("no operator secret is configured ([control] secret)")]
    NoSecret,
    /// Larger than [`MAX_COMMAND_BYTES`].
    #[error("{bytes} bytes, at most {MAX_COMMAND_BYTES} accepted")]
    Oversized {
        /// The payload's size.
        bytes: usize,
    },
    /// A retained message: it would act again at every reconnection.
    #[error("retained commands are not accepted")]
    Retained,
    /// Not a signed envelope.
    #[error("not signed: {0}")]
    Unsigned(String),
    /// The signature does not match (another secret, or changed on the
    /// way, or meant for another board).
    #[error("bad signature")]
    BadSignature,
    /// Signed too long ago (or in the future).
    #[error("stale: signed {skew_ms} ms away from this daemon's clock (window {window_ms} ms)")]
    Stale {
        /// Distance between the signing time and now.
        skew_ms: u64,
        /// The window.
        window_ms: u64,
    },
    /// This nonce was already used.
    #[error("replayed: nonce already used")]
    Replayed,
    /// Too many commands within the window.
    #[error("too many commands within the window")]
    Flood,
    /// Signed, but not a valid command.
    #[error("invalid command: {0}")]
    Invalid(String),
}

impl Refusal {
    /// A short machine-readable code (`bad_signature`, `stale`, ...).
    pub fn code(&self) -> &'static str {
        match self {
            Refusal::NoSecret => "no_secret",
            Refusal::Oversized { .. } => "oversized",
            Refusal::Retained => "retained",
            Refusal::Unsigned(_) => "unsigned",
            Refusal::BadSignature => "bad_signature",
            Refusal::Stale { .. } => "stale",
            Refusal::Replayed => "replayed",
            Refusal::Flood => "flood",
            Refusal::Invalid(_) => "invalid",
        }
    }
}

/// A refused command, with its nonce when one could be read (so the
/// sender's acknowledgement names it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejected {
    /// The envelope's nonce, if any.
    pub nonce: Option<String>,
    /// Why.
    pub refusal: Refusal,
}

/// A command that passed every check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verified {
    /// The command.
    pub command: OperatorCommand,
    /// Its nonce.
    pub nonce: String,
    /// Who sent it, when the envelope says (signed).
    pub by: Option<String>,
}

/// Checks incoming commands: signature, freshness, replays.
#[derive(Debug)]
pub struct Verifier {
    secret: Option<Secret>,
    window_ms: u64,
    /// Nonces accepted, with the time after which they can be forgotten.
    seen: HashMap<String, u64>,
    order: VecDeque<(u64, String)>,
    /// Where the nonces accepted are kept across restarts, if anywhere.
    file: Option<nonces::NonceFile>,
}

impl Verifier {
    /// A verifier for `secret` (none: every command is refused), accepting
    /// signing times within `window_ms` of the daemon's clock.
    pub fn new(secret: Option<Secret>, window_ms: u64) -> Verifier {
        Verifier {
            secret,
            window_ms,
            seen: HashMap::new(),
            order: VecDeque::new(),
            file: None,
        }
    }

    /// Keeps the nonces accepted in the file at `path`, taking up those
    /// in it still live at `now_ms`.
    pub fn with_nonce_file(mut self, path: &std::path::Path, now_ms: u64) -> Verifier {
        match nonces::NonceFile::open(path, now_ms) {
            Ok((file, live)) => {
                tracing::info!(file = %path.display(), nonces = live.len(), "operator command nonces taken up");
                for (nonce, expiry) in live {
                    self.order.push_back((expiry, nonce.clone()));
                    self.seen.insert(nonce, expiry);
                }
                self.file = Some(file);
            }
            Err(e) => {
                tracing::warn!(file = %path.display(), error = %e, "the nonce file cannot be used: a restart will forget the nonces seen");
            }
        }
        self
    }

    /// Checks a command that arrived on `topic` at `now_ms` (Unix
    /// milliseconds).
    pub fn verify(
        &mut self,
        topic: &str,
        payload: &[u8],
        retained: bool,
        now_ms: u64,
    ) -> Result<Verified, Rejected> {
        let reject = |nonce: Option<&str>, refusal| Rejected {
            nonce: nonce.map(str::to_string),
            refusal,
        };
        self.forget_until(now_ms);
        if payload.len() > MAX_COMMAND_BYTES {
            return Err(reject(
                None,
                Refusal::Oversized {
                    bytes: payload.len(),
                },
            ));
        }
        let envelope: Result<Envelope, _> = serde_json::from_slice(payload);
        let nonce = envelope
            .as_ref()
            .ok()
            .map(|e| e.nonce.clone())
            .filter(|n| valid_nonce(n));
        let nonce = nonce.as_deref();
        if retained {
            return Err(reject(nonce, Refusal::Retained));
        }
        let Some(secret) = &self.secret else {
            return Err(reject(nonce, Refusal::NoSecret));
        };
        let e = envelope.map_err(|e| reject(None, Refusal::Unsigned(one_line(&e.to_string()))))?;
        if !valid_nonce(&e.nonce) {
            return Err(reject(
                None,
                Refusal::Unsigned("the nonce must be 16 to 64 characters of [0-9A-Za-z_-]".into()),
            ));
        }
        let Ok(sig) = hex::decode(&e.sig) else {
            return Err(reject(nonce, Refusal::BadSignature));
        };
        let mac = mac(secret, topic, e.ts, &e.nonce, &e.body, e.by.as_deref());
        // Constant-time comparison.
        if mac.verify_slice(&sig).is_err() {
            return Err(reject(nonce, Refusal::BadSignature));
        }
        let skew_ms = now_ms.abs_diff(e.ts);
        if skew_ms > self.window_ms {
            return Err(reject(
                nonce,
                Refusal::Stale {
                    skew_ms,
                    window_ms: self.window_ms,
                },
            ));
        }
        if self.seen.contains_key(&e.nonce) {
            return Err(reject(nonce, Refusal::Replayed));
        }
        if self.seen.len() >= MAX_SEEN {
            return Err(reject(nonce, Refusal::Flood));
        }
        // Remembered for as long as the signing time stays in the window.
        let expiry = e.ts.saturating_add(self.window_ms);
        self.seen.insert(e.nonce.clone(), expiry);
        self.order.push_back((expiry, e.nonce.clone()));
        self.keep(&e.nonce, expiry);
        let command = OperatorCommand::parse(e.body.as_bytes())
            .map_err(|m| reject(nonce, Refusal::Invalid(one_line(&m))))?;
        check_by(e.by.as_deref()).map_err(|r| reject(nonce, r))?;
        Ok(Verified {
            command,
            nonce: e.nonce,
            by: e.by,
        })
    }

    /// Writes an accepted nonce to the nonce file (rewriting it without
    /// the expired ones when it has grown). A write that fails is warned
    /// about and the command still obeyed: only a restart within the
    /// window would forget it.
    fn keep(&mut self, nonce: &str, expiry: u64) {
        let Some(file) = &mut self.file else { return };
        let written = if file.wants_rewrite(self.seen.len()) {
            file.rewrite(self.seen.iter().map(|(n, e)| (n.as_str(), *e)))
        } else {
            file.record(nonce, expiry)
        };
        if let Err(e) = written {
            tracing::warn!(file = %file.path().display(), error = %e, "could not write the nonce file: this command could be replayed after a restart within the window");
        }
    }

    fn forget_until(&mut self, now_ms: u64) {
        // Expiries are not pushed in order (signing times differ): sort
        // out lazily, scanning only expired heads.
        self.order.make_contiguous().sort_unstable();
        while let Some((expiry, _)) = self.order.front() {
            if *expiry >= now_ms {
                break;
            }
            let (_, nonce) = self.order.pop_front().expect("a front");
            self.seen.remove(&nonce);
        }
    }
}

fn valid_nonce(n: &str) -> bool {
    (16..=64).contains(&n.len())
        && n.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn one_line(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
}

/// The daemon's answer to a command, published on
/// `{prefix}/bridge/{name}/ack` (not retained).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
pub struct Ack {
    /// The command's nonce (`null` when none could be read).
    pub nonce: Option<String>,
    /// The board the command was for.
    pub board: String,
    /// Whether the command was applied.
    pub accepted: bool,
    /// Whether it changed anything (a `correction` event was published).
    pub changed: bool,
    /// What happened, or why it was refused.
    pub message: String,
    /// The refusal's code (`bad_signature`, `stale`, `replayed`, ...), or
    /// `null` when accepted.
    pub code: Option<String>,
}

/// A verified command on its way to its board's task.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// The command.
    pub command: OperatorCommand,
    /// The nonce to acknowledge.
    pub nonce: Option<String>,
    /// Who sent it, when not a signed command on the command topic (the
    /// arbiter view names itself), for the decisions journal.
    pub by: Option<String>,
}

/// What a board did with a command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Applied (else refused, e.g. no game to set a result for).
    pub accepted: bool,
    /// Something changed (then a `correction` event was published).
    pub changed: bool,
    /// What happened or why not.
    pub message: String,
}

/// At most `max` events per `period_ms`; the rest are counted.
#[derive(Clone, Debug)]
pub struct RateLimit {
    period_ms: u64,
    max: u32,
    window_start: Option<u64>,
    used: u32,
    suppressed: u64,
}

impl RateLimit {
    /// A limit of `max` per `period_ms`.
    pub fn new(max: u32, period_ms: u64) -> RateLimit {
        RateLimit {
            period_ms,
            max,
            window_start: None,
            used: 0,
            suppressed: 0,
        }
    }

    /// Whether an event at `now_ms` may go out; if so, how many were
    /// suppressed since the last one that did.
    pub fn allow(&mut self, now_ms: u64) -> Option<u64> {
        match self.window_start {
            Some(s) if now_ms.saturating_sub(s) < self.period_ms => {}
            _ => {
                self.window_start = Some(now_ms);
                self.used = 0;
            }
        }
        if self.used < self.max {
            self.used += 1;
            Some(std::mem::take(&mut self.suppressed))
        } else {
            self.suppressed += 1;
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOPIC: &str = "bc/board/1/command";

    fn secret() -> Secret {
        Secret::new("correct horse battery staple").unwrap()
    }

    fn set_result() -> OperatorCommand {
        OperatorCommand::SetResult {
            result: "1-0".into(),
        }
    }

    fn nonce(i: u32) -> String {
        format!("{i:032x}")
    }

    #[test]
    fn a_signed_command_is_accepted_once() {
        let mut v = Verifier::new(Some(secret()), 30_000);
        let p = sign(&secret(), TOPIC, &set_result(), 1_000_000, &nonce(1));
        let ok = v.verify(TOPIC, &p, false, 1_000_500).unwrap();
        assert_eq!(ok.command, set_result());
        assert_eq!(ok.nonce, nonce(1));
        let again = v.verify(TOPIC, &p, false, 1_001_000).unwrap_err();
        assert_eq!(again.refusal, Refusal::Replayed);
        assert_eq!(again.nonce, Some(nonce(1)));
    }

    #[test]
    fn a_replay_after_the_window_is_stale_not_forgotten() {
        let mut v = Verifier::new(Some(secret()), 30_000);
        let p = sign(&secret(), TOPIC, &set_result(), 1_000_000, &nonce(1));
        v.verify(TOPIC, &p, false, 1_000_000).unwrap();
        // Long after: the nonce is forgotten, the time check refuses it.
        let late = v.verify(TOPIC, &p, false, 1_040_000).unwrap_err();
        assert_eq!(late.refusal.code(), "stale");
        assert!(v.seen.is_empty(), "expired nonces are forgotten");
    }

    #[test]
    fn stale_and_future_timestamps_are_refused() {
        let mut v = Verifier::new(Some(secret()), 30_000);
        let old = sign(&secret(), TOPIC, &set_result(), 1_000_000, &nonce(1));
        let e = v.verify(TOPIC, &old, false, 1_030_001).unwrap_err();
        assert_eq!(
            e.refusal,
            Refusal::Stale {
                skew_ms: 30_001,
                window_ms: 30_000
            }
        );
        let future = sign(&secret(), TOPIC, &set_result(), 1_100_000, &nonce(2));
        assert_eq!(
            v.verify(TOPIC, &future, false, 1_000_000)
                .unwrap_err()
                .refusal
                .code(),
            "stale"
        );
        // At the edge of the window it is fine.
        let edge = sign(&secret(), TOPIC, &set_result(), 1_000_000, &nonce(3));
        assert!(v.verify(TOPIC, &edge, false, 1_030_000).is_ok());
    }

    #[test]
    fn who_sent_a_command_is_signed_with_it() {
        let mut v = Verifier::new(Some(secret()), 30_000);
        let by = Some("hub desk: 10.0.0.5");
        let p = sign_by(&secret(), TOPIC, &set_result(), 5_000, &nonce(1), by);
        assert_eq!(v.verify(TOPIC, &p, false, 5_000).unwrap().by.as_deref(), by);
        // Without `by`, an envelope is what it always was.
        let plain = sign(&secret(), TOPIC, &set_result(), 5_000, &nonce(2));
        assert!(!String::from_utf8_lossy(&plain).contains("\"by\""));
        assert_eq!(v.verify(TOPIC, &plain, false, 5_000).unwrap().by, None);
        // Another name, or none, breaks the signature.
        for other in [Some("desk: 203.0.113.9".to_string()), None] {
            let mut e: Envelope = serde_json::from_slice(&p).unwrap();
            e.by = other;
            e.nonce = nonce(3);
            let p = serde_json::to_vec(&e).unwrap();
            assert_eq!(
                v.verify(TOPIC, &p, false, 5_000).unwrap_err().refusal,
                Refusal::BadSignature
            );
        }
        let long = "x".repeat(MAX_BY_CHARS + 1);
        let p = sign_by(
            &secret(),
            TOPIC,
            &set_result(),
            5_000,
            &nonce(4),
            Some(&long),
        );
        assert_eq!(
            v.verify(TOPIC, &p, false, 5_000)
                .unwrap_err()
                .refusal
                .code(),
            "invalid"
        );
    }

    #[test]
    fn another_secret_another_topic_or_a_changed_body_fail_the_signature() {
        let mut v = Verifier::new(Some(secret()), 30_000);
        let other = Secret::new("another secret of enough length").unwrap();
        let p = sign(&other, TOPIC, &set_result(), 5_000, &nonce(1));
        assert_eq!(
            v.verify(TOPIC, &p, false, 5_000).unwrap_err().refusal,
            Refusal::BadSignature
        );
        let p = sign(&secret(), TOPIC, &set_result(), 5_000, &nonce(2));
        assert_eq!(
            v.verify("bc/board/2/command", &p, false, 5_000)
                .unwrap_err()
                .refusal,
            Refusal::BadSignature
        );
        let mut e: Envelope = serde_json::from_slice(&p).unwrap();
        e.body = e.body.replace("1-0", "0-1");
        let tampered = serde_json::to_vec(&e).unwrap();
        assert_eq!(
            v.verify(TOPIC, &tampered, false, 5_000)
                .unwrap_err()
                .refusal,
            Refusal::BadSignature
        );
        // A refused signature does not burn the nonce.
        assert!(v.verify(TOPIC, &p, false, 5_000).is_ok());
    }

    #[test]
    fn unsigned_oversized_retained_and_secretless_commands_are_refused() {
        let mut v = Verifier::new(Some(secret()), 30_000);
        let plain = serde_json::to_vec(&set_result()).unwrap();
        let e = v.verify(TOPIC, &plain, false, 0).unwrap_err();
        assert_eq!(e.refusal.code(), "unsigned");
        assert_eq!(e.nonce, None);
        let big = vec![b' '; MAX_COMMAND_BYTES + 1];
        assert_eq!(
            v.verify(TOPIC, &big, false, 0).unwrap_err().refusal,
            Refusal::Oversized {
                bytes: MAX_COMMAND_BYTES + 1
            }
        );
        let p = sign(&secret(), TOPIC, &set_result(), 0, &nonce(1));
        let r = v.verify(TOPIC, &p, true, 0).unwrap_err();
        assert_eq!(r.refusal, Refusal::Retained);
        assert_eq!(r.nonce, Some(nonce(1)));
        let mut none = Verifier::new(None, 30_000);
        assert_eq!(
            none.verify(TOPIC, &p, false, 0).unwrap_err().refusal,
            Refusal::NoSecret
        );
        let short = sign(&secret(), TOPIC, &set_result(), 0, "abc");
        assert_eq!(
            v.verify(TOPIC, &short, false, 0)
                .unwrap_err()
                .refusal
                .code(),
            "unsigned"
        );
    }

    #[test]
    fn a_signed_but_invalid_command_is_refused_with_its_reason() {
        let mut v = Verifier::new(Some(secret()), 30_000);
        let bad = OperatorCommand::SetResult {
            result: "2-0".into(),
        };
        let p = sign(&secret(), TOPIC, &bad, 0, &nonce(1));
        let e = v.verify(TOPIC, &p, false, 0).unwrap_err();
        assert!(matches!(&e.refusal, Refusal::Invalid(m) if m.contains("2-0")));
        let names = OperatorCommand::SetPlayers {
            white: Player {
                name: "A\n1. f3 e5".into(),
                ..Player::default()
            },
            black: Player::default(),
        };
        let p = sign(&secret(), TOPIC, &names, 0, &nonce(2));
        assert_eq!(
            v.verify(TOPIC, &p, false, 0).unwrap_err().refusal.code(),
            "invalid"
        );
    }

    #[test]
    fn secrets_are_long_enough_and_never_printed() {
        assert!(Secret::new("short").is_err());
        let s = Secret::new("  sixteen-bytes-ok\n").unwrap();
        assert_eq!(s, Secret::new("sixteen-bytes-ok").unwrap());
        assert_eq!(format!("{s:?}"), "Secret(..)");
    }

    #[test]
    fn the_signature_is_hmac_sha256_over_the_documented_lines() {
        // Independent of `signature`: the documented layout, by hand.
        let mut mac = Hmac::<Sha256>::new_from_slice(b"correct horse battery staple").unwrap();
        mac.update(b"boardcast-command-v1\nbc/board/1/command\n42\nn0nce-n0nce-n0nce\n{}\n");
        let want: [u8; 32] = mac.finalize().into_bytes().into();
        assert_eq!(
            signature(&secret(), TOPIC, 42, "n0nce-n0nce-n0nce", "{}"),
            want
        );
        assert_eq!(new_nonce().len(), 32);
        assert_ne!(new_nonce(), new_nonce());
    }

    #[test]
    fn a_command_signed_by_the_documented_python_example_verifies() {
        // Made by the Python function in docs/mqtt.md (its own hmac and
        // json modules), ts and nonce fixed.
        let payload = br#"{"ts": 1763928000123, "nonce": "3f9c0e1d2b4a5968a7b6c5d4e3f20110", "body": "{\"command\": \"set_result\", \"result\": \"1-0\"}", "sig": "9b471b821676de4f519f0b73b4cb4cafb164ad6f3678c23a9e799ba580d033e7"}"#;
        let mut v = Verifier::new(Some(secret()), 30_000);
        let ok = v.verify(TOPIC, payload, false, 1_763_928_001_000).unwrap();
        assert_eq!(ok.command, set_result());
    }

    #[test]
    fn the_rate_limit_counts_what_it_holds_back() {
        let mut r = RateLimit::new(2, 1000);
        assert_eq!(r.allow(0), Some(0));
        assert_eq!(r.allow(10), Some(0));
        assert_eq!(r.allow(20), None);
        assert_eq!(r.allow(30), None);
        assert_eq!(r.allow(1000), Some(2));
    }
}
