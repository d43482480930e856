//! The daemon's configuration: TOML text in, a validated [`Config`] out.
//!
//! Two steps, as in ripgrep's low-level and high-level arguments:
//!
//! 1. The text is parsed into raw tables ([`RawConfig`], serde with
//!    `deny_unknown_fields`), so a misspelt key is an error that names the
//!    key and its line.
//! 2. The raw tables of the user's file are laid over those of
//!    `config/default.toml` (built into the binary: the bottom layer, and
//!    the commented reference of every key), and the result is checked and
//!    turned into typed values by [`Config::from_raw`], one function per
//!    section ([`bridge`], [`mqtt`], [`control`], [`serial`], [`log`],
//!    [`event`], [`boards`], [`web`], [`broadcast`] ...), which the hub's
//!    configuration ([`crate::hub::config`]) shares: paths resolved
//!    against the file's folder, board ids and ports checked for
//!    duplicates, protocol names turned into an enum, the broker URL
//!    parsed.
//!
//! Every error is one line: `FILE: line N: what is wrong`.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use toml::Spanned;

use crate::backoff::BackoffConfig;
use crate::family::Family;
use crate::text::{MAX_BOARD_NUMBER, MAX_ROUND, check_text};
use crate::track::{self, Limits, SettleRule};

/// The default configuration, every key commented: the bottom layer.
pub const DEFAULT_TOML: &str = include_str!("../config/default.toml");

/// Why a configuration was rejected. Displayed as one line.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("{path}: {error}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// The text is not valid TOML, or a key is unknown or has the wrong type.
    #[error("{path}: line {line}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based line of the offending key or value.
        line: usize,
        /// The parser's message (names the key).
        message: String,
    },
    /// The values are well formed but do not make sense together.
    #[error("{path}: {}{message}", line.map(|l| format!("line {l}: ")).unwrap_or_default())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// 1-based line, when the value has one.
        line: Option<usize>,
        /// What is wrong.
        message: String,
    },
}

/// The configuration as written: every key optional, unknown keys rejected.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawConfig {
    /// `[bridge]`.
    pub bridge: Option<RawBridge>,
    /// `[mqtt]`.
    pub mqtt: Option<RawMqtt>,
    /// `[serial]`.
    pub serial: Option<RawSerial>,
    /// `[recorder]`.
    pub recorder: Option<RawRecorder>,
    /// `[log]`.
    pub log: Option<RawLog>,
    /// `[reconstructor]`.
    pub reconstructor: Option<RawReconstructor>,
    /// `[event]`.
    pub event: Option<RawEvent>,
    /// `[web]`.
    pub web: Option<RawWeb>,
    /// `[broadcast]`.
    pub broadcast: Option<RawBroadcast>,
    /// `[control]`.
    pub control: Option<RawControl>,
    /// `[livechess]`.
    pub livechess: Option<RawLiveChess>,
    /// `[[board]]`.
    pub board: Option<Vec<RawBoard>>,
}

/// `[control]` as written.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawControl {
    /// The operator secret.
    pub secret: Option<String>,
    /// A file holding the operator secret.
    pub secret_file: Option<String>,
    /// Tolerated clock difference, in seconds.
    pub window_s: Option<u64>,
}

/// `[control]`: who may send operator commands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Control {
    /// The operator secret; `None`: every command is refused.
    pub secret: Option<crate::control::Secret>,
    /// How far a command's signing time may be from the daemon's clock
    /// (at most [`crate::control::MAX_WINDOW_S`]).
    pub window: Duration,
    /// Where the nonces of the commands accepted are kept across
    /// restarts (`nonces.jsonl` in the recorder folder), if anywhere.
    pub nonces: Option<PathBuf>,
}

impl Control {
    /// The verifier of these settings: with their nonce file (when a
    /// recorder folder is configured), the nonces in it still live at
    /// `now_ms` (Unix milliseconds) taken up. A nonce file that cannot be
    /// used is warned about: the nonces then live in memory.
    pub fn verifier(&self, now_ms: u64) -> crate::control::Verifier {
        let v = crate::control::Verifier::new(self.secret.clone(), self.window.as_millis() as u64);
        match &self.nonces {
            Some(path) => v.with_nonce_file(path, now_ms),
            None => v,
        }
    }
}

/// `[web]` as written.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawWeb {
    /// Address of the live page; empty means off.
    pub listen: Option<Spanned<String>>,
    /// Connections served at once.
    pub max_connections: Option<usize>,
    /// Live streams (`/events`) served at once.
    pub max_streams: Option<usize>,
    /// Seconds a client has to send a request's headers (also how long an
    /// idle connection is kept).
    pub header_timeout_s: Option<u64>,
    /// Connections one peer address may hold at once.
    pub max_connections_per_peer: Option<usize>,
    /// Live streams kept for the arbiter view beside `max_streams`.
    pub arbiter_streams: Option<usize>,
    /// Seconds a client has to send a request's whole body.
    pub body_timeout_s: Option<u64>,
    /// Seconds a write may wait for a peer that reads nothing.
    pub write_timeout_s: Option<u64>,
    /// The arbiter view's own password (not the operator secret).
    pub arbiter_password: Option<String>,
    /// The operator's desk's own password (neither of the others).
    pub desk_password: Option<String>,
    /// How long an arbiter's login lasts, in seconds.
    pub session_s: Option<u64>,
}

/// `[broadcast]` as written.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawBroadcast {
    /// How far the public outputs lag the live game (`"15m"`, `"90s"`,
    /// `"0"`).
    pub delay: Option<Spanned<String>>,
}

/// `[livechess]` as written.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawLiveChess {
    /// Address of the LiveChess-compatible API; empty means off.
    pub listen: Option<Spanned<String>>,
    /// Connections (and WebSockets) served at once.
    pub max_connections: Option<usize>,
    /// Seconds a client has to send a request's headers.
    pub header_timeout_s: Option<u64>,
    /// Feeds one WebSocket may subscribe to.
    pub max_subscriptions: Option<usize>,
    /// Seconds a WebSocket may stay silent (no frame, no answer to the
    /// server's pings) before it is closed.
    pub idle_timeout_s: Option<u64>,
    /// Browser origins the WebSocket lets in.
    pub origins: Option<Vec<String>>,
    /// Connections one peer address may hold at once.
    pub max_connections_per_peer: Option<usize>,
    /// Feeds of one WebSocket that may carry a `setup`.
    pub max_setups: Option<usize>,
    /// Host names the API answers to beside loopback and its address.
    pub hosts: Option<Vec<String>>,
}

/// `[event]` as written.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawEvent {
    /// PGN `Event`.
    pub name: Option<String>,
    /// PGN `Site`.
    pub site: Option<String>,
    /// PGN `Date` (`YYYY.MM.DD`).
    pub date: Option<Spanned<String>>,
    /// The round being played.
    pub round: Option<u32>,
    /// Pairings file (CSV, TOML or FIDE TRF).
    pub pairings: Option<String>,
    /// PGN folder for relay tools.
    pub pgn_dir: Option<String>,
    /// Time control of every board.
    pub time_control: Option<Spanned<String>>,
    /// `auto`, `standard` or `chess960`.
    pub variant: Option<Spanned<String>>,
    /// The xiangqi move limit (`60/6`, `none`).
    pub move_limit: Option<Spanned<String>>,
}

/// `[bridge]` as written.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawBridge {
    /// Bridge name.
    pub name: Option<Spanned<String>>,
    /// PGN `Event` tag.
    pub event: Option<String>,
    /// PGN `Site` tag.
    pub site: Option<String>,
}

/// `[mqtt] url` as written: one broker, or several to fail over between.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum BrokerUrls {
    /// `url = "mqtt://host:1883"`.
    One(String),
    /// `url = ["mqtt://a:1883", "mqtt://b:1883"]`.
    Many(Vec<String>),
}

/// `[mqtt]` as written.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawMqtt {
    /// Broker URL, or a list of them (the nodes of a cluster, tried in
    /// turn).
    pub url: Option<Spanned<BrokerUrls>>,
    /// Topic prefix.
    pub prefix: Option<Spanned<String>>,
    /// Client id.
    pub client_id: Option<String>,
    /// Keep-alive in seconds.
    pub keep_alive_s: Option<u64>,
    /// Seconds between heartbeats (0: none).
    pub heartbeat_s: Option<u64>,
    /// Milliseconds an event may wait for the broker before a copy goes
    /// through a standby connection (0: no standby connections).
    pub standby_after_ms: Option<u64>,
    /// Username.
    pub username: Option<String>,
    /// Password.
    pub password: Option<String>,
    /// Unacknowledged events kept per board.
    pub queue: Option<Spanned<usize>>,
    /// First reconnection delay.
    pub reconnect_min_ms: Option<u64>,
    /// Longest reconnection delay.
    pub reconnect_max_ms: Option<u64>,
    /// `[mqtt.tls]`.
    pub tls: Option<RawTls>,
    /// `auto` or `never`: start an embedded broker when none listens.
    pub embedded: Option<Spanned<String>>,
}

/// `[mqtt.tls]` as written.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTls {
    /// Use TLS.
    pub enabled: Option<bool>,
    /// CA file.
    pub ca_file: Option<String>,
    /// Client certificate.
    pub client_cert_file: Option<String>,
    /// Client key.
    pub client_key_file: Option<String>,
}

/// `[serial]` as written.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSerial {
    /// Liveness poll period.
    pub poll_ms: Option<u64>,
    /// Silence that means "unplugged".
    pub silence_ms: Option<Spanned<u64>>,
    /// Time allowed for the serial number after opening.
    pub handshake_ms: Option<u64>,
    /// First reopening delay.
    pub reconnect_min_ms: Option<u64>,
    /// Longest reopening delay.
    pub reconnect_max_ms: Option<u64>,
    /// Time between two requests on a DGT bus line.
    pub bus_gap_ms: Option<u64>,
}

/// `[recorder]` as written.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRecorder {
    /// Capture folder.
    pub dir: Option<String>,
}

/// `[log]` as written.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawLog {
    /// `text` or `json`.
    pub format: Option<Spanned<String>>,
    /// Filter directives.
    pub level: Option<String>,
}

/// `[reconstructor]` as written.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawReconstructor {
    /// Settle time of plain moves.
    pub settle_base_ms: Option<u64>,
    /// Settle time of extendable moves.
    pub settle_extendable_ms: Option<u64>,
    /// Settle time of takebacks.
    pub settle_takeback_ms: Option<u64>,
    /// Settle time of chess moves whose piece could land on no square
    /// beside its own.
    pub settle_sole_landing_ms: Option<u64>,
    /// How long a move must stand, the board quiet, before it is final
    /// without a clock press or a reply.
    pub final_ms: Option<u64>,
    /// How long a move must stand before screens are shown it as
    /// provisional.
    pub provisional_ms: Option<u64>,
    /// Streaming search depth.
    pub stream_depth: Option<usize>,
    /// Resynchronising search depth.
    pub depth: Option<usize>,
    /// Plies that may be withdrawn.
    pub back: Option<usize>,
    /// Node budget.
    pub budget: Option<usize>,
}

/// A port given as one path or a list.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum RawPorts {
    /// One path or pattern.
    One(String),
    /// Several.
    Many(Vec<String>),
}

/// One `[[board]]` as written.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawBoard {
    /// Board id.
    pub id: Spanned<String>,
    /// Port path(s) or pattern(s).
    pub port: Spanned<RawPorts>,
    /// Expected serial number.
    pub serial: Option<Spanned<String>>,
    /// Family name.
    pub protocol: Option<Spanned<String>>,
    /// Baud rate.
    pub baud: Option<u32>,
    /// PGN `White` (when no pairings file names this board).
    pub white: Option<String>,
    /// PGN `Black` (likewise).
    pub black: Option<String>,
    /// Board number in the round (pairings, `Round` tag).
    pub number: Option<u32>,
    /// This board's time control, when it differs from the event's.
    pub time_control: Option<Spanned<String>>,
    /// Its address on a DGT bus (`protocol = "dgt-bus"`).
    pub bus_address: Option<Spanned<u32>>,
    /// The game played on it: `chess` (the default), `draughts` (on any
    /// 8 × 8 family) or `xiangqi` (on `protocol = "open"` only).
    pub game: Option<Spanned<String>>,
    /// A Certabo board that senses occupancy only (Tabutronic).
    pub occupancy: Option<Spanned<bool>>,
}

/// `[event]`, validated.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// Name, site, date and round.
    pub info: crate::tournament::EventInfo,
    /// The pairings file, reloaded when saved (and on SIGHUP, on Unix).
    pub pairings: Option<PathBuf>,
    /// `[event] round` when the file sets it (not the default layer): the
    /// round a TRF pairings file is read for; unset, its last paired round.
    pub asked_round: Option<u32>,
    /// The PGN folder relay tools read.
    pub pgn_dir: Option<PathBuf>,
    /// The event's time control.
    pub time_control: Option<crate::clock::TimeControl>,
    /// The rules it fixes for its games: the chess variant
    /// (`[event] variant`), the xiangqi move limit (`[event] move_limit`;
    /// Art. 6: the event fixes it).
    pub options: crate::games::GameOptions,
}

/// The validated configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// This process.
    pub bridge: Bridge,
    /// The broker.
    pub mqtt: Mqtt,
    /// Serial line behaviour common to all boards.
    pub serial: Serial,
    /// Where captures go, if anywhere.
    pub recorder: Option<PathBuf>,
    /// Logging.
    pub log: Log,
    /// Reconstructor tunables.
    pub reconstructor: track::Config,
    /// The event around the boards.
    pub event: Event,
    /// The boards, in file order.
    pub boards: Vec<Board>,
    /// Where the live page is served, if anywhere (`[web] listen`).
    pub web: Option<std::net::SocketAddr>,
    /// Operator commands.
    pub control: Control,
    /// The public broadcast delay (`[broadcast]`).
    pub broadcast: Broadcast,
    /// Where the LiveChess-compatible API is served, if anywhere
    /// (`[livechess] listen`).
    pub livechess: Option<std::net::SocketAddr>,
    /// The live page's limits (`[web]`).
    pub web_limits: crate::listener::Limits,
    /// The arbiter view's login (`[web] arbiter_password`, `session_s`).
    pub web_login: WebLogin,
    /// The LiveChess API's limits (`[livechess]`).
    pub livechess_limits: (crate::listener::Limits, crate::listener::SocketLimits),
}

/// `[web]`: the arbiter view's login.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WebLogin {
    /// The view password; `None`: the operator secret opens the view, as
    /// before there was one (a warning says so at start).
    pub password: Option<String>,
    /// The operator's desk's password (`[web] desk_password`); `None`:
    /// the one chosen on the desk at first run, kept hashed in the
    /// recorder folder.
    pub desk_password: Option<String>,
    /// How long a login lasts (default 12 h).
    pub session: Duration,
}

impl Default for WebLogin {
    fn default() -> WebLogin {
        WebLogin {
            password: None,
            desk_password: None,
            session: Duration::from_secs(12 * 3600),
        }
    }
}

/// `[broadcast]`: what the public sees, and when.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Broadcast {
    /// How long the public outputs (the `{prefix}/board/...` topics, the
    /// PGN folder, the live page) lag the live game, in milliseconds; 0
    /// shows the public everything live, as the arbiters see it.
    pub delay_ms: u64,
}

/// Parses a duration as venues write it: `"15m"`, `"90s"`, `"1h"`,
/// `"1h30m"`, `"500ms"`, or `"0"`. Returns milliseconds.
pub fn parse_duration(text: &str) -> Option<u64> {
    let text = text.trim();
    if text == "0" {
        return Some(0);
    }
    let mut total: u64 = 0;
    let mut rest = text;
    if rest.is_empty() {
        return None;
    }
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        if digits == 0 {
            return None;
        }
        let n: u64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(rest.len());
        let scale = match &rest[..unit_len] {
            "h" => 3_600_000,
            "m" | "min" => 60_000,
            "s" => 1_000,
            "ms" => 1,
            _ => return None,
        };
        total = total.checked_add(n.checked_mul(scale)?)?;
        rest = &rest[unit_len..];
    }
    Some(total)
}

/// Whether boardcast may start its own broker (`[mqtt] embedded`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Embedded {
    /// When nothing listens at the broker address (a loopback address
    /// without TLS), start an embedded broker there.
    Auto,
    /// Always use an external broker.
    Never,
}

/// `[bridge]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bridge {
    /// Name in the status topic.
    pub name: String,
    /// PGN `Event`.
    pub event: String,
    /// PGN `Site`.
    pub site: String,
}

/// TLS settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tls {
    /// CA bundle; `None` means the system roots.
    pub ca_file: Option<PathBuf>,
    /// Client certificate and key, if the broker wants one.
    pub client_auth: Option<(PathBuf, PathBuf)>,
}

/// `[mqtt]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mqtt {
    /// Broker host.
    pub host: String,
    /// Broker port.
    pub port: u16,
    /// Further brokers (host, port), the other nodes of a cluster: after a
    /// failed connection the bridge tries the next one in turn.
    pub failover: Vec<(String, u16)>,
    /// TLS, when on.
    pub tls: Option<Tls>,
    /// Topic prefix (no trailing slash).
    pub prefix: String,
    /// Client id.
    pub client_id: String,
    /// Keep-alive.
    pub keep_alive: Duration,
    /// Time between two heartbeats on `{prefix}/bridge/{name}/heartbeat`
    /// (zero: none).
    pub heartbeat: Duration,
    /// With several brokers: how long an event may wait for the broker's
    /// acknowledgement before a QoS 0 copy goes out through a standby
    /// connection to a node (zero: no standby connections).
    pub standby_after: Duration,
    /// Username and password.
    pub credentials: Option<(String, String)>,
    /// Unacknowledged events kept per board.
    pub queue: usize,
    /// Reconnection delays.
    pub reconnect: BackoffConfig,
    /// Whether an embedded broker may be started.
    pub embedded: Embedded,
}

impl Mqtt {
    /// Every broker to try, in turn: the first, then the other nodes of a
    /// cluster.
    pub fn brokers(&self) -> Vec<(String, u16)> {
        std::iter::once((self.host.clone(), self.port))
            .chain(self.failover.iter().cloned())
            .collect()
    }

    /// These settings for one broker of [`brokers`](Self::brokers).
    pub fn at(&self, (host, port): &(String, u16)) -> Mqtt {
        Mqtt {
            host: host.clone(),
            port: *port,
            ..self.clone()
        }
    }
}

/// `[serial]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Serial {
    /// Liveness poll period.
    pub poll: Duration,
    /// Silence taken for an unplugged board.
    pub silence: Duration,
    /// Time allowed for the serial number after opening.
    pub handshake: Duration,
    /// Reopening delays.
    pub reconnect: BackoffConfig,
    /// Time between two requests on a DGT bus line (each unit is polled
    /// once every `bus_gap` times the number of units).
    pub bus_gap: Duration,
}

/// Log output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line.
    Json,
}

/// `[log]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Log {
    /// Output format.
    pub format: LogFormat,
    /// Filter directives.
    pub level: String,
}

/// Where a board may be found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortSpec {
    /// Paths or glob patterns, tried in order.
    pub candidates: Vec<String>,
}

impl PortSpec {
    /// Whether the spec names exactly one fixed path (no pattern, no list).
    pub fn is_fixed(&self) -> bool {
        self.candidates.len() == 1 && !is_pattern(&self.candidates[0])
    }
}

impl std::fmt::Display for PortSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.candidates.join(","))
    }
}

/// The bus address of a board: `bus_address`, or (when absent) its
/// `serial` read as a number, for `dgt-bus` boards; none for the others.
/// A mistake comes back with the span to point at.
fn bus_address(
    id: &str,
    id_span: Range<usize>,
    given: Option<Spanned<u32>>,
    protocol: Family,
    serial: Option<&str>,
) -> Result<Option<u16>, (Range<usize>, String)> {
    use boardcast_protocols::dgt::bus::MAX_ADDRESS;
    if protocol != Family::DgtBus {
        return match given {
            Some(a) => Err((
                a.span(),
                format!("board `{id}`: `bus_address` is only for `protocol = \"dgt-bus\"` boards"),
            )),
            None => Ok(None),
        };
    }
    let from_serial = serial.and_then(|s| s.trim().parse::<u32>().ok());
    let (span, address) = match given {
        Some(a) => (a.span(), *a.get_ref()),
        None => match from_serial {
            Some(a) => (id_span, a),
            None => {
                return Err((
                    id_span,
                    format!(
                        "board `{id}`: a dgt-bus board needs `bus_address` (its serial number as a number, 1 to {MAX_ADDRESS})"
                    ),
                ));
            }
        },
    };
    if address == 0 || address > u32::from(MAX_ADDRESS) {
        return Err((
            span,
            format!("board `{id}`: bus address {address} is out of range (1 to {MAX_ADDRESS})"),
        ));
    }
    if let Some(s) = from_serial
        && s != address
    {
        return Err((
            span,
            format!(
                "board `{id}`: bus address {address} disagrees with serial {s} (a DGT board's bus address is its serial number)"
            ),
        ));
    }
    Ok(Some(address as u16))
}

/// Whether a port string is a glob pattern.
pub fn is_pattern(s: &str) -> bool {
    s.contains(['*', '?', '['])
}

/// One `[[board]]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Board {
    /// Id in topics and events.
    pub id: String,
    /// Where to find it.
    pub port: PortSpec,
    /// Its serial number, when configured.
    pub serial: Option<String>,
    /// Wire protocol.
    pub protocol: Family,
    /// Line speed.
    pub baud: u32,
    /// PGN `White` when no pairings file names this board.
    pub white: Option<String>,
    /// PGN `Black`, likewise.
    pub black: Option<String>,
    /// Board number in the round.
    pub number: u32,
    /// Time control (the board's own, or the event's).
    pub time_control: Option<crate::clock::TimeControl>,
    /// Its address on a DGT bus (`Some` exactly when the protocol is
    /// `dgt-bus`). Boards with the same `port` share one line.
    pub bus_address: Option<u16>,
    /// The game played on it (chess unless `game` says otherwise; other
    /// games on open-protocol boards only).
    pub game: crate::event::GameId,
    /// The rules the event fixes for its games (chess variant, xiangqi
    /// move limit).
    pub options: crate::games::GameOptions,
    /// A Certabo board that senses occupancy only (Tabutronic):
    /// `occupancy = true`.
    pub occupancy: bool,
}

impl Config {
    /// Reads and validates a configuration file.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|error| ConfigError::Read {
            path: path.to_owned(),
            error,
        })?;
        Config::parse(&text, path)
    }

    /// Validates configuration text; `path` names it in errors and anchors
    /// relative paths (its folder).
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        let raw = parse_raw(text, path)?;
        Config::from_raw(raw, defaults(), text, path)
    }

    /// Lays `raw` over `defaults` and validates the result, one section
    /// after the other. `text` is the user's file, for line numbers.
    pub fn from_raw(
        raw: RawConfig,
        defaults: RawConfig,
        text: &str,
        path: &Path,
    ) -> Result<Config, ConfigError> {
        let src = Source::new(text, path);
        let bridge = bridge(raw.bridge, defaults.bridge, &src)?;
        let mqtt = mqtt(
            raw.mqtt,
            defaults.mqtt,
            &format!("boardcast-{}", bridge.name),
            &src,
        )?;
        let mut control = control(raw.control, defaults.control, &src)?;
        let serial = serial(raw.serial, defaults.serial, &src)?;
        let recorder = recorder(raw.recorder, defaults.recorder, &src);
        control.nonces = recorder.as_ref().map(|d| d.join("nonces.jsonl"));
        let log = log(raw.log, defaults.log, &src)?;
        let reconstructor = reconstructor(raw.reconstructor, defaults.reconstructor);
        let event = event(raw.event, defaults.event, &bridge, &src)?;
        let boards = boards(raw.board.unwrap_or_default(), &event, &src)?;
        let web_login = web_login(raw.web.as_ref(), defaults.web.as_ref(), &src)?;
        let (web, web_limits) = web(raw.web, defaults.web, &src)?;
        let broadcast = broadcast(raw.broadcast, defaults.broadcast, &src)?;
        let livechess_limits =
            livechess_limits(raw.livechess.as_ref(), defaults.livechess.as_ref(), &src)?;
        let livechess = livechess(raw.livechess, defaults.livechess, &src)?;
        Ok(Config {
            bridge,
            mqtt,
            serial,
            recorder,
            log,
            reconstructor,
            event,
            boards,
            web,
            broadcast,
            control,
            livechess,
            web_limits,
            web_login,
            livechess_limits,
        })
    }
}

/// The built-in defaults ([`DEFAULT_TOML`]) as raw tables.
pub fn defaults() -> RawConfig {
    parse_raw(DEFAULT_TOML, Path::new("config/default.toml"))
        .expect("the built-in default configuration parses")
}

/// The file a section comes from: its text (for the line of a value) and
/// its path (named in errors, its folder anchoring relative paths).
#[derive(Debug)]
pub struct Source<'a> {
    path: &'a Path,
    text: &'a str,
    base: PathBuf,
}

impl<'a> Source<'a> {
    /// The file at `path` holding `text`.
    pub fn new(text: &'a str, path: &'a Path) -> Source<'a> {
        Source {
            path,
            text,
            base: path.parent().unwrap_or(Path::new(".")).to_owned(),
        }
    }

    /// A value that does not make sense, at `span` when it has one.
    pub fn invalid(&self, span: Option<Range<usize>>, message: String) -> ConfigError {
        ConfigError::Invalid {
            path: self.path.to_owned(),
            line: span.map(|s| line_of(self.text, s.start)),
            message,
        }
    }

    /// A key without a value, here or in the defaults.
    fn missing(&self, key: &str) -> ConfigError {
        self.invalid(None, format!("`{key}` has no value (and no default)"))
    }

    /// A path as written, taken from the file's folder when relative.
    fn resolve(&self, p: &str) -> PathBuf {
        let p = Path::new(p);
        if p.is_absolute() {
            p.to_owned()
        } else {
            self.base.join(p)
        }
    }
}

/// A string key's value, when it is not empty.
fn nonempty(s: Option<String>) -> Option<String> {
    s.filter(|s| !s.is_empty())
}

/// `[bridge]`: the bridge's name (checked as a topic level), PGN tags.
pub fn bridge(
    raw: Option<RawBridge>,
    defaults: Option<RawBridge>,
    src: &Source,
) -> Result<Bridge, ConfigError> {
    let (b, db) = (raw.unwrap_or_default(), defaults.unwrap_or_default());
    let name = b
        .name
        .or(db.name)
        .ok_or_else(|| src.missing("bridge.name"))?;
    check_topic_level(name.get_ref())
        .map_err(|m| src.invalid(Some(name.span()), format!("bridge.name: {m}")))?;
    Ok(Bridge {
        name: name.into_inner(),
        event: b.event.or(db.event).unwrap_or_else(|| "?".into()),
        site: b.site.or(db.site).unwrap_or_else(|| "?".into()),
    })
}

/// `[mqtt]`: the brokers (a URL or a list, all TLS or none), the prefix,
/// TLS files, credentials, queue and reconnection delays;
/// `default_client_id` when the file gives none.
pub fn mqtt(
    raw: Option<RawMqtt>,
    defaults: Option<RawMqtt>,
    default_client_id: &str,
    src: &Source,
) -> Result<Mqtt, ConfigError> {
    let (m, dm) = (raw.unwrap_or_default(), defaults.unwrap_or_default());
    let url = m.url.or(dm.url).ok_or_else(|| src.missing("mqtt.url"))?;
    let urls: Vec<&str> = match url.get_ref() {
        BrokerUrls::One(u) => vec![u.as_str()],
        BrokerUrls::Many(list) => list.iter().map(String::as_str).collect(),
    };
    if urls.is_empty() {
        return Err(src.invalid(
            Some(url.span()),
            "mqtt.url: the list of brokers is empty".into(),
        ));
    }
    let brokers = urls
        .iter()
        .map(|u| parse_url(u))
        .collect::<Result<Vec<BrokerUrl>, String>>()
        .map_err(|e| src.invalid(Some(url.span()), format!("mqtt.url: {e}")))?;
    if brokers.iter().any(|b| b.tls != brokers[0].tls) {
        return Err(src.invalid(
            Some(url.span()),
            "mqtt.url: the brokers of a list must all use mqtt:// or all mqtts://".into(),
        ));
    }
    let failover: Vec<(String, u16)> = brokers
        .iter()
        .skip(1)
        .map(|b| (b.host.clone(), b.port))
        .collect();
    let broker = brokers.into_iter().next().expect("checked non-empty");
    let prefix = m
        .prefix
        .or(dm.prefix)
        .ok_or_else(|| src.missing("mqtt.prefix"))?;
    let prefix_text = prefix.get_ref().trim_end_matches('/').to_string();
    if prefix_text.is_empty() || prefix_text.contains(['+', '#']) || prefix_text.starts_with('/') {
        return Err(src.invalid(
            Some(prefix.span()),
            "mqtt.prefix must be a non-empty topic without wildcards or a leading '/'".into(),
        ));
    }
    let tls = tls(m.tls, dm.tls, broker.tls, src)?;
    let client_id =
        nonempty(m.client_id.or(dm.client_id)).unwrap_or_else(|| default_client_id.to_string());
    let username = nonempty(m.username.or(dm.username));
    let password = m.password.or(dm.password).unwrap_or_default();
    let queue = m
        .queue
        .or(dm.queue)
        .ok_or_else(|| src.missing("mqtt.queue"))?;
    if *queue.get_ref() == 0 {
        return Err(src.invalid(Some(queue.span()), "mqtt.queue must be at least 1".into()));
    }
    let embedded = match m.embedded.or(dm.embedded) {
        None => Embedded::Never,
        Some(e) => match e.get_ref().as_str() {
            "auto" => Embedded::Auto,
            "never" => Embedded::Never,
            other => {
                return Err(src.invalid(
                    Some(e.span()),
                    format!("mqtt.embedded: `{other}`: use \"auto\" or \"never\""),
                ));
            }
        },
    };
    Ok(Mqtt {
        embedded,
        host: broker.host,
        port: broker.port,
        failover,
        tls,
        prefix: prefix_text,
        client_id,
        keep_alive: Duration::from_secs(
            m.keep_alive_s
                .or(dm.keep_alive_s)
                .ok_or_else(|| src.missing("mqtt.keep_alive_s"))?
                .max(1),
        ),
        heartbeat: Duration::from_secs(m.heartbeat_s.or(dm.heartbeat_s).unwrap_or(5)),
        standby_after: Duration::from_millis(
            m.standby_after_ms.or(dm.standby_after_ms).unwrap_or(1000),
        ),
        credentials: username.map(|u| (u, password)),
        queue: queue.into_inner(),
        reconnect: backoff(
            m.reconnect_min_ms.or(dm.reconnect_min_ms),
            m.reconnect_max_ms.or(dm.reconnect_max_ms),
        )
        .ok_or_else(|| src.missing("mqtt.reconnect_min_ms"))?,
    })
}

/// `[mqtt.tls]`: on when enabled or when the URL says `mqtts://`.
fn tls(
    raw: Option<RawTls>,
    defaults: Option<RawTls>,
    url_wants_tls: bool,
    src: &Source,
) -> Result<Option<Tls>, ConfigError> {
    let (t, dt) = (raw.unwrap_or_default(), defaults.unwrap_or_default());
    let on = t.enabled.or(dt.enabled).unwrap_or(false) || url_wants_tls;
    let ca_file = nonempty(t.ca_file.or(dt.ca_file)).map(|p| src.resolve(&p));
    let cert = nonempty(t.client_cert_file.or(dt.client_cert_file)).map(|p| src.resolve(&p));
    let key = nonempty(t.client_key_file.or(dt.client_key_file)).map(|p| src.resolve(&p));
    let client_auth = match (cert, key) {
        (Some(c), Some(k)) => Some((c, k)),
        (None, None) => None,
        _ => {
            return Err(src.invalid(
                None,
                "mqtt.tls: client_cert_file and client_key_file go together".into(),
            ));
        }
    };
    Ok(on.then_some(Tls {
        ca_file,
        client_auth,
    }))
}

/// `[control]`: the operator secret (inline or from a file, not both) and
/// the tolerated clock difference.
pub fn control(
    raw: Option<RawControl>,
    defaults: Option<RawControl>,
    src: &Source,
) -> Result<Control, ConfigError> {
    let (c, dc) = (raw.unwrap_or_default(), defaults.unwrap_or_default());
    let window_s = c
        .window_s
        .or(dc.window_s)
        .ok_or_else(|| src.missing("control.window_s"))?;
    if window_s > crate::control::MAX_WINDOW_S {
        return Err(src.invalid(
            None,
            format!(
                "control.window_s = {window_s}: at most {} s (a captured command can be replayed within the window)",
                crate::control::MAX_WINDOW_S
            ),
        ));
    }
    let secret_text = match (
        nonempty(c.secret.or(dc.secret)),
        nonempty(c.secret_file.or(dc.secret_file)),
    ) {
        (Some(_), Some(_)) => {
            return Err(src.invalid(None, "control: give secret or secret_file, not both".into()));
        }
        (Some(s), None) => Some(s),
        (None, Some(f)) => {
            let f = src.resolve(&f);
            Some(std::fs::read_to_string(&f).map_err(|e| {
                src.invalid(None, format!("control.secret_file: {}: {e}", f.display()))
            })?)
        }
        (None, None) => None,
    };
    Ok(Control {
        secret: secret_text
            .map(|t| crate::control::Secret::new(&t))
            .transpose()
            .map_err(|m| src.invalid(None, format!("control: {m}")))?,
        window: Duration::from_secs(window_s.max(1)),
        nonces: None,
    })
}

/// `[serial]`: polls, silence, handshake, reopening delays, the bus gap.
pub fn serial(
    raw: Option<RawSerial>,
    defaults: Option<RawSerial>,
    src: &Source,
) -> Result<Serial, ConfigError> {
    let (s, ds) = (raw.unwrap_or_default(), defaults.unwrap_or_default());
    let ms =
        |v: Option<u64>, key: &str| v.map(Duration::from_millis).ok_or_else(|| src.missing(key));
    let poll = ms(s.poll_ms.or(ds.poll_ms), "serial.poll_ms")?;
    let silence = s
        .silence_ms
        .or(ds.silence_ms)
        .ok_or_else(|| src.missing("serial.silence_ms"))?;
    if Duration::from_millis(*silence.get_ref()) <= poll {
        return Err(src.invalid(
            Some(silence.span()),
            "serial.silence_ms must be longer than serial.poll_ms".into(),
        ));
    }
    Ok(Serial {
        poll: poll.max(Duration::from_millis(10)),
        silence: Duration::from_millis(silence.into_inner()),
        handshake: ms(s.handshake_ms.or(ds.handshake_ms), "serial.handshake_ms")?,
        reconnect: backoff(
            s.reconnect_min_ms.or(ds.reconnect_min_ms),
            s.reconnect_max_ms.or(ds.reconnect_max_ms),
        )
        .ok_or_else(|| src.missing("serial.reconnect_min_ms"))?,
        bus_gap: ms(s.bus_gap_ms.or(ds.bus_gap_ms), "serial.bus_gap_ms")?
            .max(Duration::from_millis(5)),
    })
}

/// `[recorder]`: the capture folder, if any.
pub fn recorder(
    raw: Option<RawRecorder>,
    defaults: Option<RawRecorder>,
    src: &Source,
) -> Option<PathBuf> {
    let (r, dr) = (raw.unwrap_or_default(), defaults.unwrap_or_default());
    nonempty(r.dir.or(dr.dir)).map(|d| src.resolve(&d))
}

/// `[log]`: the format (`text` or `json`) and the filter.
pub fn log(
    raw: Option<RawLog>,
    defaults: Option<RawLog>,
    src: &Source,
) -> Result<Log, ConfigError> {
    let (l, dl) = (raw.unwrap_or_default(), defaults.unwrap_or_default());
    let format = l
        .format
        .or(dl.format)
        .ok_or_else(|| src.missing("log.format"))?;
    Ok(Log {
        format: match format.get_ref().as_str() {
            "text" => LogFormat::Text,
            "json" => LogFormat::Json,
            other => {
                return Err(src.invalid(
                    Some(format.span()),
                    format!("log.format: `{other}` is neither \"text\" nor \"json\""),
                ));
            }
        },
        level: l.level.or(dl.level).unwrap_or_else(|| "info".into()),
    })
}

/// `[reconstructor]`: settle times and search limits over the
/// reconstructor's own defaults (so tunables added there later keep their
/// values until they get a key here).
pub fn reconstructor(
    raw: Option<RawReconstructor>,
    defaults: Option<RawReconstructor>,
) -> track::Config {
    let (c, dc) = (raw.unwrap_or_default(), defaults.unwrap_or_default());
    let mut reconstructor = track::Config::default();
    let settle: &mut SettleRule = &mut reconstructor.settle;
    set(&mut settle.base_ms, c.settle_base_ms.or(dc.settle_base_ms));
    set(
        &mut settle.extendable_ms,
        c.settle_extendable_ms.or(dc.settle_extendable_ms),
    );
    set(
        &mut settle.takeback_ms,
        c.settle_takeback_ms.or(dc.settle_takeback_ms),
    );
    set(
        &mut settle.sole_landing_ms,
        c.settle_sole_landing_ms.or(dc.settle_sole_landing_ms),
    );
    set(&mut settle.final_ms, c.final_ms.or(dc.final_ms));
    set(
        &mut settle.provisional_ms,
        c.provisional_ms.or(dc.provisional_ms),
    );
    let limits: &mut Limits = &mut reconstructor.limits;
    set(&mut limits.stream_depth, c.stream_depth.or(dc.stream_depth));
    set(&mut limits.depth, c.depth.or(dc.depth));
    set(&mut limits.back, c.back.or(dc.back));
    set(&mut limits.budget, c.budget.or(dc.budget));
    reconstructor
}

/// `[event]`: name, site, date and round (checked: they reach PGN tags
/// and file names), the pairings file, the PGN folder, the time control,
/// and the chess variant when one is set. `[bridge] event` and `site`
/// (the first keys for these) still work.
pub fn event(
    raw: Option<RawEvent>,
    defaults: Option<RawEvent>,
    bridge: &Bridge,
    src: &Source,
) -> Result<Event, ConfigError> {
    let (e, de) = (raw.unwrap_or_default(), defaults.unwrap_or_default());
    let mut info = crate::tournament::EventInfo::default();
    let known = |v: &String| (v != "?").then(|| v.clone());
    set(&mut info.name, e.name.or(de.name).or(known(&bridge.event)));
    set(&mut info.site, e.site.or(de.site).or(known(&bridge.site)));
    if let Some(date) = e.date.or(de.date) {
        let ok = date.get_ref().len() == 10
            && date.get_ref().char_indices().all(|(i, c)| {
                if i == 4 || i == 7 {
                    c == '.'
                } else {
                    c.is_ascii_digit() || c == '?'
                }
            });
        if !ok {
            return Err(src.invalid(
                Some(date.span()),
                format!("event.date `{}` is not YYYY.MM.DD", date.get_ref()),
            ));
        }
        info.date = date.into_inner();
    }
    let asked_round = e.round;
    set(&mut info.round, e.round.or(de.round));
    let time_control = match e.time_control.or(de.time_control) {
        Some(tc) => Some(
            crate::clock::TimeControl::parse(tc.get_ref()).map_err(|err| {
                src.invalid(Some(tc.span()), format!("event.time_control: {err}"))
            })?,
        ),
        None => None,
    };
    let move_limit = match e.move_limit.or(de.move_limit) {
        Some(l) => Some(
            l.get_ref()
                .parse()
                .map_err(|err| src.invalid(Some(l.span()), format!("event.move_limit: {err}")))?,
        ),
        None => None,
    };
    let variant = match e.variant.or(de.variant) {
        Some(v) => v.get_ref().parse::<track::Variant>().map_err(|_| {
            src.invalid(
                Some(v.span()),
                format!(
                    "event.variant `{}`: expected auto, standard or chess960",
                    v.get_ref()
                ),
            )
        })?,
        None => track::Variant::default(),
    };
    for (key, value) in [("event.name", &info.name), ("event.site", &info.site)] {
        check_text(key, Some(value)).map_err(|m| src.invalid(None, m))?;
    }
    if !(1..=MAX_ROUND).contains(&info.round) {
        return Err(src.invalid(
            None,
            format!(
                "event.round {} is out of range (1 to {MAX_ROUND})",
                info.round
            ),
        ));
    }
    let event = Event {
        info,
        pairings: e.pairings.or(de.pairings).map(|p| src.resolve(&p)),
        asked_round,
        pgn_dir: e.pgn_dir.or(de.pgn_dir).map(|p| src.resolve(&p)),
        time_control,
        options: crate::games::GameOptions {
            variant,
            move_limit,
        },
    };
    Ok(event)
}

/// The game a board plays: `game`, chess by default.
///
/// Design: the configuration decides, not the board's `hello`: the
/// daemon must know how to read a board before it says anything (its
/// records, its retained state), and a board whose `hello` names another
/// game is then reported rather than followed (docs/boards.md). Draughts
/// reads on any 8 × 8 family, xiangqi on the open protocol only
/// ([`Family::carries`]).
fn board_game(
    id: &str,
    given: Option<Spanned<String>>,
    protocol: Family,
) -> Result<crate::event::GameId, (Option<Range<usize>>, String)> {
    use crate::event::GameId;
    let Some(name) = given else {
        return Ok(GameId::Chess);
    };
    let game = match name.get_ref().as_str() {
        "chess" => GameId::Chess,
        "draughts" => GameId::Draughts,
        "xiangqi" => GameId::Xiangqi,
        other => {
            return Err((
                Some(name.span()),
                format!("board `{id}`: unknown game `{other}` (chess, draughts or xiangqi)"),
            ));
        }
    };
    protocol
        .carries(game)
        .map_err(|e| (Some(name.span()), format!("board `{id}`: {e}")))?;
    Ok(game)
}

/// A board's `occupancy`: for a Certabo board that senses occupancy only
/// (Tabutronic), `false` when absent.
fn occupancy(
    id: &str,
    given: Option<Spanned<bool>>,
    protocol: Family,
) -> Result<bool, (Option<Range<usize>>, String)> {
    match given {
        Some(o) if *o.get_ref() && protocol != Family::Certabo => Err((
            Some(o.span()),
            format!(
                "board `{id}`: `occupancy` is for a Certabo board that senses occupancy only (Tabutronic); this one is {}",
                protocol.name()
            ),
        )),
        Some(o) => Ok(o.into_inner()),
        None => Ok(false),
    }
}

/// Every `[[board]]`, in file order, checked against the ones before it
/// (ids, ports, serial numbers, numbers and bus addresses given twice).
pub fn boards(raw: Vec<RawBoard>, event: &Event, src: &Source) -> Result<Vec<Board>, ConfigError> {
    let mut boards: Vec<Board> = Vec::new();
    for rb in raw {
        let b = board(rb, &boards, event, src)?;
        boards.push(b);
    }
    Ok(boards)
}

/// One `[[board]]`, after `before`.
fn board(
    rb: RawBoard,
    before: &[Board],
    event: &Event,
    src: &Source,
) -> Result<Board, ConfigError> {
    let id_span = rb.id.span();
    let id = rb.id.into_inner();
    check_board_id(&id).map_err(|m| src.invalid(Some(id_span.clone()), m))?;
    if before.iter().any(|b| b.id == id) {
        return Err(src.invalid(Some(id_span), format!("board id `{id}` is given twice")));
    }
    let port_span = rb.port.span();
    let candidates = port_candidates(&id, rb.port.into_inner(), src)
        .map_err(|m| src.invalid(Some(port_span.clone()), m))?;
    let serial = rb.serial.map(|s| (s.span(), s.into_inner()));
    let protocol = match rb.protocol {
        None => Family::Dgt,
        Some(p) => p.get_ref().parse::<Family>().ok().ok_or_else(|| {
            src.invalid(
                Some(p.span()),
                format!("board `{id}`: unknown protocol `{}`", p.get_ref()),
            )
        })?,
    };
    let game = board_game(&id, rb.game, protocol).map_err(|(span, m)| src.invalid(span, m))?;
    let occupancy =
        occupancy(&id, rb.occupancy, protocol).map_err(|(span, m)| src.invalid(span, m))?;
    check_ports(&id, &candidates, serial.is_some(), protocol, before)
        .map_err(|m| src.invalid(Some(port_span.clone()), m))?;
    if let Some((span, s)) = &serial
        && let Some(other) = before.iter().find(|b| b.serial.as_ref() == Some(s))
    {
        return Err(src.invalid(
            Some(span.clone()),
            format!("board `{id}`: serial `{s}` is also board `{}`'s", other.id),
        ));
    }
    let time_control = match rb.time_control {
        Some(tc) => Some(
            crate::clock::TimeControl::parse(tc.get_ref())
                .map_err(|e| src.invalid(Some(tc.span()), format!("board `{id}`: {e}")))?,
        ),
        None => event.time_control.clone(),
    };
    let number = rb.number.unwrap_or(before.len() as u32 + 1);
    if let Some(other) = before.iter().find(|b| b.number == number) {
        return Err(src.invalid(
            Some(port_span),
            format!(
                "board `{id}`: number {number} is also board `{}`'s",
                other.id
            ),
        ));
    }
    // Each family's own line speed unless the file says otherwise.
    let baud = rb.baud.unwrap_or_else(|| {
        crate::family::for_family(protocol, &Default::default())
            .line()
            .baud
    });
    let bus_address = bus_address(
        &id,
        id_span,
        rb.bus_address,
        protocol,
        serial.as_ref().map(|(_, s)| s.as_str()),
    )
    .map_err(|(span, m)| src.invalid(Some(span), m))?;
    if let Some(address) = bus_address {
        check_bus_line(&id, &candidates, address, baud, before)
            .map_err(|m| src.invalid(Some(port_span.clone()), m))?;
    }
    let board = Board {
        id,
        port: PortSpec { candidates },
        serial: serial.map(|(_, s)| s),
        protocol,
        baud,
        white: rb.white,
        black: rb.black,
        number,
        time_control,
        bus_address,
        game,
        options: event.options,
        occupancy,
    };
    check_board_text(&board).map_err(|m| src.invalid(None, m))?;
    Ok(board)
}

/// A board's port candidates (one path or pattern, or a list), resolved
/// against the config file's directory; an error message when one is
/// empty.
fn port_candidates(id: &str, ports: RawPorts, src: &Source) -> Result<Vec<String>, String> {
    let candidates: Vec<String> = match ports {
        RawPorts::One(p) => vec![p],
        RawPorts::Many(v) => v,
    };
    if candidates.is_empty() || candidates.iter().any(|c| c.trim().is_empty()) {
        return Err(format!("board `{id}`: port is empty"));
    }
    Ok(candidates
        .iter()
        .map(|c| {
            if is_device_name(c) {
                c.clone()
            } else {
                src.resolve(c).to_string_lossy().into_owned()
            }
        })
        .collect())
}

/// Whether a port is a device name rather than a path, kept as written
/// (never taken from the config file's folder): a Windows serial port
/// (`COM5`, `com12`, `\\.\COM12`) or an in-process line (`mem:...`,
/// [`crate::port::memory`]).
pub fn is_device_name(port: &str) -> bool {
    let com = port.get(..3).is_some_and(|p| p.eq_ignore_ascii_case("com"))
        && port.len() > 3
        && port[3..].bytes().all(|b| b.is_ascii_digit());
    com || port.starts_with(r"\\.\") || port.starts_with(MEMORY_PREFIX)
}

/// The prefix of an in-process line's name (`mem:demo/board1-1`): a board
/// simulated in the same process, opened by the same line task as a
/// device ([`crate::port::memory`]).
pub const MEMORY_PREFIX: &str = "mem:";

/// Names and numbers that reach PGN tags, file names and MQTT.
fn check_board_text(board: &Board) -> Result<(), String> {
    check_text(&format!("board `{}` id", board.id), Some(&board.id))?;
    for (side, name) in [("white", &board.white), ("black", &board.black)] {
        check_text(&format!("board `{}` {side}", board.id), name.as_deref())?;
    }
    if !(1..=MAX_BOARD_NUMBER).contains(&board.number) {
        return Err(format!(
            "board `{}`: number {} is out of range (1 to {MAX_BOARD_NUMBER})",
            board.id, board.number
        ));
    }
    Ok(())
}

/// The same fixed path on two boards is a mistake; shared patterns or
/// lists are fine when serial numbers tell the boards apart, and the
/// boards of one DGT bus share their port exactly.
fn check_ports(
    id: &str,
    candidates: &[String],
    has_serial: bool,
    protocol: Family,
    before: &[Board],
) -> Result<(), String> {
    let fixed = candidates.len() == 1 && !is_pattern(&candidates[0]);
    for c in candidates {
        let Some(other) = before.iter().find(|b| b.port.candidates.contains(c)) else {
            continue;
        };
        let same_bus = protocol == Family::DgtBus
            && other.protocol == Family::DgtBus
            && other.port.candidates == candidates;
        if same_bus {
            continue;
        }
        let both_have_serials = has_serial && other.serial.is_some();
        if fixed || !both_have_serials {
            return Err(format!(
                "board `{id}`: port `{c}` is also board `{}`'s{}",
                other.id,
                if fixed {
                    ""
                } else {
                    " (give both boards their `serial` to share candidates)"
                }
            ));
        }
    }
    Ok(())
}

/// A board at `address` on the bus line `candidates`: its address is its
/// own there, and the line has one speed.
fn check_bus_line(
    id: &str,
    candidates: &[String],
    address: u16,
    baud: u32,
    before: &[Board],
) -> Result<(), String> {
    for b in before.iter().filter(|b| b.port.candidates == candidates) {
        if b.bus_address == Some(address) {
            return Err(format!(
                "board `{id}`: bus address {address} on port `{}` is also board `{}`'s",
                candidates.join(", "),
                b.id
            ));
        }
        if b.baud != baud {
            return Err(format!(
                "board `{id}`: baud {baud} differs from board `{}`'s ({}) on the same bus line",
                b.id, b.baud
            ));
        }
    }
    Ok(())
}

/// `[web]`: where the live page listens (empty: off) and its limits.
pub fn web(
    raw: Option<RawWeb>,
    defaults: Option<RawWeb>,
    src: &Source,
) -> Result<(Option<std::net::SocketAddr>, crate::listener::Limits), ConfigError> {
    let (rw, dw) = (raw.unwrap_or_default(), defaults.unwrap_or_default());
    let d = crate::listener::Limits::default();
    let secs =
        |r: Option<u64>, d: Option<u64>, default| r.or(d).map_or(default, Duration::from_secs);
    let limits = crate::listener::Limits {
        max_connections: rw
            .max_connections
            .or(dw.max_connections)
            .unwrap_or(d.max_connections),
        max_per_peer: rw
            .max_connections_per_peer
            .or(dw.max_connections_per_peer)
            .unwrap_or(d.max_per_peer),
        max_streams: rw.max_streams.or(dw.max_streams).unwrap_or(d.max_streams),
        arbiter_streams: rw
            .arbiter_streams
            .or(dw.arbiter_streams)
            .unwrap_or(d.arbiter_streams),
        header_timeout: secs(rw.header_timeout_s, dw.header_timeout_s, d.header_timeout),
        body_timeout: secs(rw.body_timeout_s, dw.body_timeout_s, d.body_timeout),
        write_timeout: secs(rw.write_timeout_s, dw.write_timeout_s, d.write_timeout),
        ..d
    };
    if [
        limits.max_connections,
        limits.max_per_peer,
        limits.max_streams,
        limits.arbiter_streams,
    ]
    .contains(&0)
        || [
            limits.header_timeout,
            limits.body_timeout,
            limits.write_timeout,
        ]
        .iter()
        .any(Duration::is_zero)
    {
        return Err(src.invalid(
            None,
            "web: max_connections, max_connections_per_peer, max_streams, arbiter_streams, header_timeout_s, body_timeout_s and write_timeout_s must be at least 1".into(),
        ));
    }
    let addr = listen(rw.listen.or(dw.listen), "web.listen", "127.0.0.1:8080", src)?;
    Ok((addr, limits))
}

/// `[livechess]`: where the LiveChess-compatible API listens (empty: off).
pub fn livechess(
    raw: Option<RawLiveChess>,
    defaults: Option<RawLiveChess>,
    src: &Source,
) -> Result<Option<std::net::SocketAddr>, ConfigError> {
    let listen_at = raw.and_then(|w| w.listen);
    let listen_at = listen_at.or(defaults.and_then(|w| w.listen));
    listen(listen_at, "livechess.listen", "127.0.0.1:1982", src)
}

/// `[web] arbiter_password` and `session_s`: the arbiter view's login.
pub fn web_login(
    raw: Option<&RawWeb>,
    defaults: Option<&RawWeb>,
    src: &Source,
) -> Result<WebLogin, ConfigError> {
    let pick = |f: fn(&RawWeb) -> Option<&String>| raw.and_then(f).or(defaults.and_then(f));
    let password = pick(|w| w.arbiter_password.as_ref()).filter(|p| !p.is_empty());
    if let Some(p) = password
        && (p.chars().count() < 12 || p.chars().any(char::is_control))
    {
        return Err(src.invalid(
            None,
            "web.arbiter_password: at least 12 characters, no control characters".into(),
        ));
    }
    let desk_password = pick(|w| w.desk_password.as_ref()).filter(|p| !p.is_empty());
    if let Some(p) = desk_password
        && (p.chars().count() < crate::desk::MIN_PASSWORD_CHARS
            || p.chars().any(char::is_control)
            || Some(p) == password)
    {
        return Err(src.invalid(
            None,
            format!(
                "web.desk_password: at least {} characters, no control characters, not the arbiter password",
                crate::desk::MIN_PASSWORD_CHARS
            ),
        ));
    }
    let session_s = raw
        .and_then(|w| w.session_s)
        .or(defaults.and_then(|w| w.session_s));
    let d = WebLogin::default();
    let session = session_s.map_or(d.session, Duration::from_secs);
    if session.is_zero() || session > Duration::from_secs(7 * 24 * 3600) {
        return Err(src.invalid(None, "web.session_s: between 1 and 604800 (a week)".into()));
    }
    Ok(WebLogin {
        password: password.cloned(),
        desk_password: desk_password.cloned(),
        session,
    })
}

/// `[livechess]` limits: connections, header timeout, subscriptions per
/// socket, the browser origins let in.
pub fn livechess_limits(
    raw: Option<&RawLiveChess>,
    defaults: Option<&RawLiveChess>,
    src: &Source,
) -> Result<(crate::listener::Limits, crate::listener::SocketLimits), ConfigError> {
    let (d, ds) = (
        crate::listener::Limits::default(),
        crate::listener::SocketLimits::default(),
    );
    let num = |f: fn(&RawLiveChess) -> Option<usize>| raw.and_then(f).or(defaults.and_then(f));
    let limits = crate::listener::Limits {
        max_connections: num(|l| l.max_connections).unwrap_or(d.max_connections),
        max_per_peer: num(|l| l.max_connections_per_peer).unwrap_or(d.max_per_peer),
        header_timeout: raw
            .and_then(|l| l.header_timeout_s)
            .or(defaults.and_then(|l| l.header_timeout_s))
            .map_or(d.header_timeout, Duration::from_secs),
        ..d
    };
    let socket = crate::listener::SocketLimits {
        max_subscriptions: num(|l| l.max_subscriptions).unwrap_or(ds.max_subscriptions),
        idle_timeout: raw
            .and_then(|l| l.idle_timeout_s)
            .or(defaults.and_then(|l| l.idle_timeout_s))
            .map_or(ds.idle_timeout, Duration::from_secs),
        origins: raw
            .and_then(|l| l.origins.clone())
            .or(defaults.and_then(|l| l.origins.clone()))
            .unwrap_or(ds.origins),
        max_setups: num(|l| l.max_setups).unwrap_or(ds.max_setups),
        hosts: raw
            .and_then(|l| l.hosts.clone())
            .or(defaults.and_then(|l| l.hosts.clone()))
            .unwrap_or(ds.hosts),
        ..ds
    };
    if limits.max_connections == 0
        || limits.max_per_peer == 0
        || limits.header_timeout.is_zero()
        || socket.max_subscriptions == 0
        || socket.idle_timeout.is_zero()
    {
        return Err(src.invalid(
            None,
            "livechess: max_connections, max_connections_per_peer, header_timeout_s, max_subscriptions and idle_timeout_s must be at least 1"
                .into(),
        ));
    }
    if let Some(o) = socket
        .origins
        .iter()
        .find(|o| !o.contains("://") || o.chars().any(char::is_control))
    {
        return Err(src.invalid(
            None,
            format!("livechess.origins: {o:?} is not an origin such as https://lichess.org"),
        ));
    }
    Ok((limits, socket))
}

/// A `listen` address (`key`); empty means off.
fn listen(
    value: Option<Spanned<String>>,
    key: &str,
    example: &str,
    src: &Source,
) -> Result<Option<std::net::SocketAddr>, ConfigError> {
    match value {
        Some(l) if !l.get_ref().is_empty() => {
            let addr = l.get_ref().parse().map_err(|_| {
                let m = format!(
                    "{key}: `{}` is not an address such as {example}",
                    l.get_ref()
                );
                src.invalid(Some(l.span()), m)
            })?;
            Ok(Some(addr))
        }
        _ => Ok(None),
    }
}

/// `[broadcast]`: the public delay (`"15m"`, `"90s"`, `"0"`), at most an
/// hour.
pub fn broadcast(
    raw: Option<RawBroadcast>,
    defaults: Option<RawBroadcast>,
    src: &Source,
) -> Result<Broadcast, ConfigError> {
    let delay = raw.and_then(|b| b.delay);
    let Some(d) = delay.or(defaults.and_then(|b| b.delay)) else {
        return Ok(Broadcast::default());
    };
    let ms = parse_duration(d.get_ref()).ok_or_else(|| {
        let m = format!(
            "broadcast.delay: `{}` is not a duration such as \"15m\", \"90s\" or \"0\"",
            d.get_ref()
        );
        src.invalid(Some(d.span()), m)
    })?;
    if ms > crate::delay::MAX_DELAY_MS {
        let m = format!(
            "broadcast.delay: `{}` is longer than the 1 h allowed",
            d.get_ref()
        );
        return Err(src.invalid(Some(d.span()), m));
    }
    Ok(Broadcast { delay_ms: ms })
}

fn set<T>(field: &mut T, value: Option<T>) {
    if let Some(v) = value {
        *field = v;
    }
}

fn backoff(min: Option<u64>, max: Option<u64>) -> Option<BackoffConfig> {
    let min = Duration::from_millis(min?.max(1));
    let max = Duration::from_millis(max?).max(min);
    Some(BackoffConfig { min, max })
}

/// Parses TOML into raw tables, with one-line errors naming the line.
pub fn parse_raw(text: &str, path: &Path) -> Result<RawConfig, ConfigError> {
    parse_toml(text, path)
}

/// Parses TOML into `T` (raw tables of some file), with one-line errors
/// naming the line.
pub fn parse_toml<T: serde::de::DeserializeOwned>(
    text: &str,
    path: &Path,
) -> Result<T, ConfigError> {
    toml::from_str::<T>(text).map_err(|e| ConfigError::Parse {
        path: path.to_owned(),
        line: e.span().map_or(1, |s| line_of(text, s.start)),
        message: e.message().trim().replace('\n', " "),
    })
}

/// The 1-based line of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

fn check_board_id(id: &str) -> Result<(), String> {
    if id.is_empty() {
        return Err("board id is empty".into());
    }
    if !id
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(format!(
            "board id `{id}` may only hold letters, digits, '-' and '_'"
        ));
    }
    Ok(())
}

fn check_topic_level(s: &str) -> Result<(), String> {
    if s.is_empty() || s.contains(['/', '+', '#']) {
        return Err(format!(
            "`{s}` must be non-empty and hold no '/', '+' or '#'"
        ));
    }
    Ok(())
}

/// A broker address from a URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BrokerUrl {
    /// Host name or address (IPv6 without brackets).
    pub host: String,
    /// Port.
    pub port: u16,
    /// Whether the scheme asks for TLS.
    pub tls: bool,
}

/// Parses `mqtt://host[:port]` or `mqtts://host[:port]` (also `tcp://`,
/// `ssl://`). A trailing `/` is allowed; paths and queries are not.
pub fn parse_url(url: &str) -> Result<BrokerUrl, String> {
    let (scheme, rest) = url
        .split_once("://")
        .ok_or_else(|| format!("`{url}` is not a URL like mqtt://host:1883"))?;
    let tls = match scheme {
        "mqtt" | "tcp" => false,
        "mqtts" | "ssl" => true,
        other => return Err(format!("unknown scheme `{other}` (use mqtt or mqtts)")),
    };
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    if rest.contains(['/', '?', '@']) {
        return Err(format!(
            "`{url}`: only scheme, host and port are allowed (credentials go in mqtt.username)"
        ));
    }
    let default_port = if tls { 8883 } else { 1883 };
    let (host, port) = if let Some(v6) = rest.strip_prefix('[') {
        let (host, after) = v6
            .split_once(']')
            .ok_or_else(|| format!("`{url}`: unclosed '['"))?;
        let port = match after.strip_prefix(':') {
            Some(p) => Some(p),
            None if after.is_empty() => None,
            None => return Err(format!("`{url}`: unexpected `{after}`")),
        };
        (host.to_string(), port)
    } else {
        match rest.rsplit_once(':') {
            Some((h, p)) => (h.to_string(), Some(p)),
            None => (rest.to_string(), None),
        }
    };
    if host.is_empty() {
        return Err(format!("`{url}` has no host"));
    }
    let port = match port {
        None => default_port,
        Some(p) => p
            .parse::<u16>()
            .ok()
            .filter(|&p| p != 0)
            .ok_or_else(|| format!("`{p}` is not a port number"))?,
    };
    Ok(BrokerUrl { host, port, tls })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::parse(text, Path::new("/etc/boardcast/test.toml"))
    }

    #[test]
    fn the_default_file_is_a_valid_configuration_with_no_boards() {
        let c = parse("").unwrap();
        assert!(c.boards.is_empty());
        assert_eq!(c.mqtt.host, "127.0.0.1");
        assert_eq!(c.mqtt.port, 1883);
        assert_eq!(c.mqtt.prefix, "boardcast");
        assert_eq!(c.mqtt.client_id, "boardcast-boardcast");
        assert_eq!(c.reconstructor, track::Config::default());
        assert_eq!(c.log.format, LogFormat::Text);
        assert_eq!(c.recorder, None);
        assert_eq!(c.mqtt.tls, None);
    }

    #[test]
    fn the_default_file_sets_every_key_it_documents() {
        // Every key is given in default.toml (not only in comments), so the
        // layering never falls back to a value hidden in the code.
        let raw = parse_raw(DEFAULT_TOML, Path::new("default.toml")).unwrap();
        let m = raw.mqtt.unwrap();
        assert!(m.url.is_some() && m.prefix.is_some() && m.queue.is_some());
        assert!(m.keep_alive_s.is_some() && m.reconnect_max_ms.is_some());
        let t = m.tls.unwrap();
        assert!(t.enabled.is_some() && t.ca_file.is_some() && t.client_key_file.is_some());
        let s = raw.serial.unwrap();
        assert!(s.poll_ms.is_some() && s.silence_ms.is_some() && s.handshake_ms.is_some());
        assert!(s.bus_gap_ms.is_some());
        let r = raw.reconstructor.unwrap();
        assert!(r.settle_base_ms.is_some() && r.budget.is_some() && r.depth.is_some());
        assert!(r.final_ms.is_some() && r.provisional_ms.is_some());
        assert!(raw.log.unwrap().level.is_some());
        assert!(raw.recorder.unwrap().dir.is_some());
    }

    #[test]
    fn the_example_file_is_valid() {
        let text = include_str!("../config/example.toml");
        let c = parse(text).unwrap();
        assert_eq!(c.boards.len(), 5);
        assert_eq!(c.bridge.name, "hall-a");
        assert_eq!(
            c.mqtt.credentials,
            Some(("hall-a".into(), "change me".into()))
        );
        assert!(!c.boards[1].port.is_fixed());
        assert!(c.boards[0].port.is_fixed());
    }

    #[test]
    fn a_user_value_overrides_the_default_and_the_rest_stays() {
        let c =
            parse("[mqtt]\nprefix = \"venue\"\n[reconstructor]\nsettle_base_ms = 100\n").unwrap();
        assert_eq!(c.mqtt.prefix, "venue");
        assert_eq!(c.mqtt.port, 1883);
        assert_eq!(c.reconstructor.settle.base_ms, 100);
        assert_eq!(c.reconstructor.settle.extendable_ms, 850);
    }

    #[test]
    fn an_unknown_key_names_the_key_and_its_line() {
        let err = parse("[mqtt]\nurl = \"mqtt://h\"\nprefx = \"x\"\n").unwrap_err();
        let text = err.to_string();
        assert!(matches!(err, ConfigError::Parse { line: 3, .. }), "{text}");
        assert!(text.contains("prefx"), "{text}");
        assert!(
            text.starts_with("/etc/boardcast/test.toml: line 3: "),
            "{text}"
        );
        assert!(!text.contains('\n'), "{text}");
    }

    #[test]
    fn an_unknown_key_in_a_board_names_its_line() {
        let err = parse("[[board]]\nid = \"1\"\nport = \"/dev/x\"\nbuad = 9600\n").unwrap_err();
        assert!(matches!(err, ConfigError::Parse { line: 4, .. }), "{err}");
        assert!(err.to_string().contains("buad"));
    }

    #[test]
    fn duplicate_board_ids_and_ports_are_rejected_with_their_line() {
        let err = parse(
            "[[board]]\nid = \"1\"\nport = \"/dev/a\"\n[[board]]\nid = \"1\"\nport = \"/dev/b\"\n",
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .contains("line 5: board id `1` is given twice")
        );
        let err = parse(
            "[[board]]\nid = \"1\"\nport = \"/dev/a\"\n[[board]]\nid = \"2\"\nport = \"/dev/a\"\n",
        )
        .unwrap_err();
        assert!(err.to_string().contains("line 6: "), "{err}");
        assert!(err.to_string().contains("also board `1`"), "{err}");
    }

    #[test]
    fn shared_candidates_need_serial_numbers() {
        let two = |s1: &str, s2: &str| {
            format!(
                "[[board]]\nid = \"1\"\nport = [\"/dev/a\", \"/dev/b\"]\n{s1}\n[[board]]\nid = \"2\"\nport = [\"/dev/a\", \"/dev/b\"]\n{s2}\n"
            )
        };
        assert!(parse(&two("", "")).is_err());
        let c = parse(&two("serial = \"11111\"", "serial = \"22222\"")).unwrap();
        assert_eq!(c.boards[1].serial.as_deref(), Some("22222"));
        assert!(parse(&two("serial = \"11111\"", "serial = \"11111\"")).is_err());
    }

    #[test]
    fn protocol_names_become_an_enum_and_unknown_ones_are_rejected() {
        let c = parse("[[board]]\nid = \"a\"\nport = \"/dev/x\"\nprotocol = \"dgt\"\n").unwrap();
        assert_eq!(c.boards[0].protocol, Family::Dgt);
        assert_eq!(c.boards[0].baud, 9600);
        // Every family is read by the daemon, at its own line speed unless
        // the file gives one.
        for (name, protocol, baud) in [
            ("millennium", Family::Millennium, 38400),
            ("certabo", Family::Certabo, 38400),
            ("open", Family::Open, 115_200),
        ] {
            let c = parse(&format!(
                "[[board]]\nid = \"a\"\nport = \"/dev/x\"\nprotocol = \"{name}\"\n"
            ))
            .unwrap();
            assert_eq!((c.boards[0].protocol, c.boards[0].baud), (protocol, baud));
        }
        let c =
            parse("[[board]]\nid = \"a\"\nport = \"/dev/x\"\nprotocol = \"open\"\nbaud = 9600\n")
                .unwrap();
        assert_eq!(c.boards[0].baud, 9600);
        let err = parse("[[board]]\nid = \"a\"\nport = \"/dev/x\"\nprotocol = \"millenium\"\n")
            .unwrap_err();
        assert!(
            err.to_string()
                .contains("line 4: board `a`: unknown protocol `millenium`")
        );
    }

    #[test]
    fn a_board_plays_chess_unless_its_game_says_otherwise_on_the_open_protocol() {
        use crate::event::GameId;
        let board = |rest: &str| format!("[[board]]\nid = \"a\"\nport = \"/dev/x\"\n{rest}");
        assert_eq!(parse(&board("")).unwrap().boards[0].game, GameId::Chess);
        for (name, game) in [
            ("chess", GameId::Chess),
            ("draughts", GameId::Draughts),
            ("xiangqi", GameId::Xiangqi),
        ] {
            let c = parse(&board(&format!("protocol = \"open\"\ngame = \"{name}\"\n"))).unwrap();
            assert_eq!(c.boards[0].game, game);
        }
        let err = parse(&board("protocol = \"open\"\ngame = \"draugths\"\n"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("line 5: board `a`: unknown game `draugths` (chess, draughts or xiangqi)"),
            "{err}"
        );
        assert!(!err.contains('\n'), "{err}");
        let err = parse(&board("game = \"xiangqi\"\n"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("line 4: board `a`: a xiangqi board reads on `protocol = \"open\"`"),
            "{err}"
        );
        // Draughts reads on every 8x8 family, by occupancy; a Tabutronic
        // Certabo says it senses occupancy only.
        for family in ["dgt", "millennium", "certabo"] {
            let c = parse(&board(&format!(
                "protocol = \"{family}\"\ngame = \"draughts\"\n"
            )))
            .unwrap();
            assert_eq!(c.boards[0].game, GameId::Draughts, "{family}");
            assert!(!c.boards[0].occupancy);
        }
        let c = parse(&board(
            "protocol = \"certabo\"\ngame = \"draughts\"\noccupancy = true\n",
        ))
        .unwrap();
        assert!(c.boards[0].occupancy);
        let err = parse(&board("protocol = \"millennium\"\noccupancy = true\n"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("line 5: board `a`: `occupancy` is for a Certabo board"),
            "{err}"
        );
    }

    #[test]
    fn boards_on_one_dgt_bus_share_a_port_and_differ_by_address() {
        let bus = |a: &str, b: &str| {
            format!(
                "[[board]]\nid = \"a\"\nport = \"/dev/bus\"\nprotocol = \"dgt-bus\"\n{a}\n\
                 [[board]]\nid = \"b\"\nport = \"/dev/bus\"\nprotocol = \"dgt-bus\"\n{b}\n"
            )
        };
        let c = parse(&bus("bus_address = 1025", "serial = \"00300\"")).unwrap();
        assert_eq!(c.boards[0].bus_address, Some(1025));
        assert_eq!(c.boards[1].bus_address, Some(300));
        assert_eq!((c.boards[0].number, c.boards[1].number), (1, 2));
        assert_eq!(c.boards[0].baud, 9600);
        let err = |text: &str| parse(text).unwrap_err().to_string();
        assert!(
            err(&bus("bus_address = 7", "bus_address = 7"))
                .contains("board `b`: bus address 7 on port `/dev/bus` is also board `a`'s")
        );
        assert!(
            err(&bus("bus_address = 7", ""))
                .contains("board `b`: a dgt-bus board needs `bus_address`")
        );
        assert!(err(&bus("bus_address = 7", "bus_address = 16384")).contains("out of range"));
        assert!(
            err(&bus(
                "bus_address = 7",
                "bus_address = 8\nserial = \"00009\""
            ))
            .contains("bus address 8 disagrees with serial 9")
        );
        assert!(
            err(&bus("bus_address = 7", "bus_address = 8\nbaud = 19200"))
                .contains("baud 19200 differs from board `a`'s (9600) on the same bus line")
        );
        // A single board cannot share the bus's line, nor take an address.
        let mixed = "[[board]]\nid = \"a\"\nport = \"/dev/bus\"\nprotocol = \"dgt-bus\"\nbus_address = 7\n\
                     [[board]]\nid = \"b\"\nport = \"/dev/bus\"\n";
        assert!(
            err(mixed).contains("board `b`: port `/dev/bus` is also board `a`'s"),
            "{}",
            err(mixed)
        );
        assert!(
            err("[[board]]\nid = \"a\"\nport = \"/dev/x\"\nbus_address = 7\n")
                .contains("`bus_address` is only for `protocol = \"dgt-bus\"` boards")
        );
    }

    #[test]
    fn windows_ports_and_in_process_lines_are_kept_as_written() {
        let c = parse(
            "[[board]]\nid = \"a\"\nport = \"COM5\"\n[[board]]\nid = \"b\"\nport = ['\\\\.\\COM12', \"mem:demo/b-*\"]\n",
        )
        .unwrap();
        assert_eq!(c.boards[0].port.candidates, vec!["COM5"]);
        assert_eq!(
            c.boards[1].port.candidates,
            vec![r"\\.\COM12", "mem:demo/b-*"]
        );
        assert!(!is_device_name("COMPORT") && !is_device_name("com") && !is_device_name("tty*"));
    }

    #[test]
    fn relative_paths_are_taken_from_the_config_folder() {
        let c =
            parse("[recorder]\ndir = \"rec\"\n[[board]]\nid = \"a\"\nport = \"tty*\"\n").unwrap();
        assert_eq!(c.recorder, Some(PathBuf::from("/etc/boardcast/rec")));
        assert_eq!(c.boards[0].port.candidates, vec!["/etc/boardcast/tty*"]);
    }

    #[test]
    fn broker_urls_parse_with_default_ports_and_tls() {
        assert_eq!(
            parse_url("mqtt://broker:1884").unwrap(),
            BrokerUrl {
                host: "broker".into(),
                port: 1884,
                tls: false
            }
        );
        assert_eq!(parse_url("mqtts://b").unwrap().port, 8883);
        assert!(parse_url("mqtts://b").unwrap().tls);
        assert_eq!(parse_url("mqtt://[::1]:99/").unwrap().host, "::1");
        assert!(parse_url("http://b").is_err());
        assert!(parse_url("mqtt://b:x").is_err());
        assert!(parse_url("broker:1883").is_err());
        let c = parse("[mqtt]\nurl = \"mqtts://b\"\n").unwrap();
        assert_eq!(
            c.mqtt.tls,
            Some(Tls {
                ca_file: None,
                client_auth: None
            })
        );
    }

    #[test]
    fn a_list_of_brokers_is_the_first_and_its_failovers() {
        let c =
            parse("[mqtt]\nurl = [\"mqtt://a:1884\", \"mqtt://b\", \"mqtt://[::1]:7\"]\n").unwrap();
        assert_eq!((c.mqtt.host.as_str(), c.mqtt.port), ("a", 1884));
        assert_eq!(
            c.mqtt.failover,
            [("b".to_string(), 1883), ("::1".to_string(), 7)]
        );
        assert!(
            parse("[mqtt]\nurl = \"mqtt://a\"\n")
                .unwrap()
                .mqtt
                .failover
                .is_empty()
        );
        let err = parse("[mqtt]\nurl = [\"mqtt://a\", \"mqtts://b\"]\n").unwrap_err();
        assert!(
            err.to_string()
                .contains("must all use mqtt:// or all mqtts://"),
            "{err}"
        );
        let err = parse("[mqtt]\nurl = []\n").unwrap_err();
        assert!(
            err.to_string().contains("line 2") && err.to_string().contains("empty"),
            "{err}"
        );
        let err = parse("[mqtt]\nurl = [\"mqtt://a\", \"http://b\"]\n").unwrap_err();
        assert!(err.to_string().contains("mqtt.url"), "{err}");
    }

    #[test]
    fn broadcast_delays_are_written_as_venues_write_them() {
        assert_eq!(parse_duration("15m"), Some(900_000));
        assert_eq!(parse_duration("90s"), Some(90_000));
        assert_eq!(parse_duration("1h30m"), Some(5_400_000));
        assert_eq!(parse_duration("500ms"), Some(500));
        assert_eq!(parse_duration("0"), Some(0));
        for bad in ["", "15", "m", "15 minutes", "-5s", "1.5h"] {
            assert_eq!(parse_duration(bad), None, "{bad}");
        }
        let board = "[[board]]\nid = \"1\"\nport = \"/dev/ttyUSB0\"\n";
        let c = parse(&format!("[broadcast]\ndelay = \"15m\"\n{board}")).unwrap();
        assert_eq!(c.broadcast.delay_ms, 900_000);
        assert_eq!(parse(board).unwrap().broadcast.delay_ms, 0);
        let err = parse(&format!("[broadcast]\ndelay = \"2h\"\n{board}")).unwrap_err();
        assert!(
            err.to_string().contains("longer than the 1 h allowed"),
            "{err}"
        );
        let err = parse(&format!("[broadcast]\ndelay = \"soon\"\n{board}")).unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("line 2") && text.contains("broadcast.delay"),
            "{text}"
        );
    }

    #[test]
    fn names_with_control_characters_and_rounds_out_of_range_are_refused() {
        let board = "[[board]]\nid = \"1\"\nport = \"/dev/ttyUSB0\"\n";
        let err = parse(&format!("{board}white = \"Evil\\n1. f3 e5\"\n")).unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("board `1` white: control character '\\n'"),
            "{text}"
        );
        assert_eq!(text.lines().count(), 1, "{text}");
        let err = parse(&format!("[event]\nround = 4000000000\n{board}")).unwrap_err();
        assert!(err.to_string().contains("round"), "{err}");
        let err = parse(&format!("[event]\nround = 1000\n{board}")).unwrap_err();
        assert!(
            err.to_string().contains("event.round 1000 is out of range"),
            "{err}"
        );
        let long = "x".repeat(crate::text::MAX_TEXT + 1);
        let err = parse(&format!("[event]\nname = \"{long}\"\n{board}")).unwrap_err();
        assert!(
            err.to_string().contains("event.name: 201 characters"),
            "{err}"
        );
        assert!(
            parse(&format!(
                "[event]\nround = 12\n{board}white = \"Carlsen, Magnus\"\n"
            ))
            .is_ok()
        );
    }

    #[test]
    fn the_round_a_trf_file_is_read_for_is_the_one_the_file_sets() {
        let board = "[[board]]\nid = \"x\"\nport = \"/dev/ttyUSB0\"\n";
        // The default layer's round 1 asks for nothing: the file's last
        // paired round is read.
        let c = parse(&format!("[event]\npairings = \"round.trf\"\n{board}")).unwrap();
        assert_eq!((c.event.info.round, c.event.asked_round), (1, None));
        let c = parse(&format!("[event]\nround = 3\n{board}")).unwrap();
        assert_eq!((c.event.info.round, c.event.asked_round), (3, Some(3)));
    }

    #[test]
    fn the_events_xiangqi_move_limit_reaches_every_board() {
        let board = "[[board]]\nid = \"x\"\nport = \"/dev/ttyUSB0\"\nprotocol = \"open\"\ngame = \"xiangqi\"\n";
        let c = parse(&format!("[event]\nmove_limit = \"50/10\"\n{board}")).unwrap();
        assert_eq!(
            c.boards[0].options.move_limit.map(|l| l.to_string()),
            Some("50/10".into())
        );
        assert_eq!(parse(board).unwrap().boards[0].options.move_limit, None);
        let err = parse(&format!("[event]\nmove_limit = \"sixty\"\n{board}")).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("event.move_limit"), "{text}");
        assert_eq!(text.lines().count(), 1, "{text}");
    }

    #[test]
    fn a_bad_value_type_names_the_line() {
        let err = parse("[serial]\npoll_ms = \"fast\"\n").unwrap_err();
        assert!(matches!(err, ConfigError::Parse { line: 2, .. }), "{err}");
    }

    #[test]
    fn the_operator_secret_comes_from_the_file_or_a_file_and_is_checked() {
        use crate::control::Secret;
        let c = parse("").unwrap();
        assert_eq!(c.control.secret, None);
        assert_eq!(c.control.window, Duration::from_secs(30));
        let c = parse("[control]\nsecret = \"0123456789abcdef\"\nwindow_s = 10\n").unwrap();
        assert_eq!(
            c.control.secret,
            Some(Secret::new("0123456789abcdef").unwrap())
        );
        assert_eq!(c.control.window, Duration::from_secs(10));
        let err = parse("[control]\nsecret = \"0123456789abcdef\"\nwindow_s = 301\n").unwrap_err();
        assert!(err.to_string().contains("at most 300 s"), "{err}");
        let err = parse("[control]\nsecret = \"short\"\n").unwrap_err();
        assert!(err.to_string().contains("at least 16"), "{err}");
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("op.secret"), "from-a-file-0123456789\n").unwrap();
        let text = "[control]\nsecret_file = \"op.secret\"\n";
        let c = Config::parse(text, &dir.path().join("b.toml")).unwrap();
        assert_eq!(
            c.control.secret,
            Some(Secret::new("from-a-file-0123456789").unwrap())
        );
        let err = Config::parse(
            "[control]\nsecret_file = \"missing\"\n",
            &dir.path().join("b.toml"),
        )
        .unwrap_err();
        assert!(err.to_string().contains("control.secret_file"), "{err}");
        let err =
            parse("[control]\nsecret = \"0123456789abcdef\"\nsecret_file = \"x\"\n").unwrap_err();
        assert!(err.to_string().contains("not both"), "{err}");
        // The secret never shows in the configuration's debug output.
        let c = parse("[control]\nsecret = \"0123456789abcdef\"\n").unwrap();
        assert!(!format!("{c:?}").contains("0123456789abcdef"));
    }
}
