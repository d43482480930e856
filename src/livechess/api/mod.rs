//! The pure half of the LiveChess imitation: each board's view (built from
//! the retained state and the events the daemon publishes), the calls a
//! client sends, and the replies, feed frames and REST bodies, shaped as
//! DGT LiveChess 2 shapes them. No I/O, no clock: times are passed in.

use crate::games::chess::{Bitboard, Board, Position, Square, board_fen, notation};
use serde::Serialize;
use serde_json::Value;

mod rest;

pub use rest::*;

/// The placement of an empty board (before the first game).
pub const EMPTY_BOARD: &str = "8/8/8/8/8/8/8/8";

/// A serial number for a board: the configured one when there is one,
/// else five digits derived from the bridge name and the board id (the
/// same on every start).
pub fn serial_for(bridge: &str, id: &str, configured: Option<&str>) -> String {
    if let Some(s) = configured.filter(|s| !s.is_empty()) {
        return s.to_string();
    }
    format!("{}", 10_000 + fnv(&format!("{bridge}\u{0}{id}")) % 90_000)
}

/// FNV-1a, 64 bits: stable across builds and platforms.
fn fnv(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// A UUID-shaped identifier derived from `key` (stable across starts).
pub fn uuid_for(key: &str) -> String {
    let a = fnv(key);
    let b = fnv(&format!("{key}\u{1}"));
    format!(
        "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xfff,
        b >> 52,
        b & 0xffff_ffff_ffff
    )
}

/// The clock object of an e-board or a feed frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ClockView {
    /// White's seconds.
    pub white: u32,
    /// Black's seconds.
    pub black: u32,
    /// `true`: White's clock runs; `false`: Black's; `null`: stopped.
    pub run: Option<bool>,
    /// When the times were read (ms since the epoch).
    pub time: u64,
}

impl ClockView {
    fn same(&self, other: &ClockView) -> bool {
        (self.white, self.black, self.run) == (other.white, other.black, other.run)
    }
}

/// What the imitation knows about one board.
#[derive(Clone, Debug, PartialEq)]
pub struct BoardView {
    /// The board id in boardcast's configuration.
    pub id: String,
    /// Its LiveChess serial number.
    pub serialnr: String,
    /// Its number in the round (from the configuration, then the state).
    pub number: u32,
    /// The device path, once known.
    pub source: Option<String>,
    /// The line is up.
    pub connected: bool,
    /// FEN placement of the position on the board.
    pub placement: String,
    /// The board stands turned round (from the state).
    pub rotated: bool,
    /// A client asked for the board to be flipped.
    pub flip: bool,
    /// The clock, once reported.
    pub clock: Option<ClockView>,
    /// The running side from the last clock event.
    run: Option<bool>,
    /// Games started since the daemon started.
    pub game: usize,
    /// FEN the current game started from.
    pub start_fen: Option<String>,
    /// Whether the game is Chess960.
    pub chess960: bool,
    /// Mainline SAN.
    pub sans: Vec<String>,
    /// Mainline UCI.
    pub ucis: Vec<String>,
    /// The mover's clock after each move, when known.
    pub clks: Vec<Option<u32>>,
    /// A game is on and the board agrees with it.
    pub recognised: bool,
    /// `1-0`, `0-1`, `1/2-1/2`, `*` or none.
    pub result: Option<String>,
    /// The round of the current game.
    pub round: u32,
    /// White (from the pairings).
    pub white: Option<Value>,
    /// Black.
    pub black: Option<Value>,
}

impl BoardView {
    /// A board not heard of yet.
    pub fn new(id: &str, serialnr: String, number: u32, round: u32) -> BoardView {
        BoardView {
            id: id.to_string(),
            serialnr,
            number,
            source: None,
            connected: false,
            placement: EMPTY_BOARD.to_string(),
            rotated: false,
            flip: false,
            clock: None,
            run: None,
            game: 0,
            start_fen: None,
            chess960: false,
            sans: Vec::new(),
            ucis: Vec::new(),
            clks: Vec::new(),
            recognised: false,
            result: None,
            round,
            white: None,
            black: None,
        }
    }

    /// Takes in the board's retained state (the JSON published on
    /// `{prefix}/board/{id}/state`) received at `now_ms`.
    pub fn apply_state(&mut self, state: &Value, now_ms: u64) {
        let s = |k: &str| state.get(k).and_then(Value::as_str).map(str::to_string);
        let list = |k: &str| -> Vec<String> {
            state
                .get(k)
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default()
        };
        self.connected = s("status").as_deref() == Some("connected");
        if let Some(p) = s("port") {
            self.source = Some(p);
        }
        // The board as sensed (a piece in the air is missing) when the
        // bridge publishes it live, else the game's position.
        self.placement = s("placement")
            .or_else(|| s("fen").and_then(|f| f.split(' ').next().map(str::to_string)))
            .unwrap_or_else(|| EMPTY_BOARD.to_string());
        self.rotated = state.get("rotated").and_then(Value::as_bool) == Some(true);
        self.recognised = state.get("recognised").and_then(Value::as_bool) == Some(true);
        self.chess960 = state.get("chess960").and_then(Value::as_bool) == Some(true);
        let game = state.get("game").and_then(Value::as_u64).unwrap_or(0) as usize;
        let sans = list("moves");
        if game != self.game {
            self.clks.clear();
            self.run = None;
        }
        self.game = game;
        self.start_fen = s("start_fen");
        self.result = s("result");
        if let Some(r) = state.get("round").and_then(Value::as_u64) {
            self.round = r as u32;
        }
        if let Some(n) = state.get("number").and_then(Value::as_u64) {
            self.number = n as u32;
        }
        self.white = state.get("white").filter(|v| !v.is_null()).cloned();
        self.black = state.get("black").filter(|v| !v.is_null()).cloned();
        let clock = state.get("clock").filter(|c| c.is_object()).map(|c| {
            let secs = |k: &str| c.get(k).and_then(Value::as_u64).unwrap_or(0) as u32;
            (secs("white"), secs("black"))
        });
        // The mover's clock after each new move.
        self.clks.truncate(sans.len());
        let white_first = self
            .start_fen
            .as_deref()
            .is_none_or(|f| f.split(' ').nth(1) != Some("b"));
        while self.clks.len() < sans.len() {
            let i = self.clks.len();
            let white_moved = i.is_multiple_of(2) == white_first;
            let clk = if i + 1 == sans.len() {
                clock.map(|(w, b)| if white_moved { w } else { b })
            } else {
                None
            };
            self.clks.push(clk);
        }
        self.sans = sans;
        self.ucis = list("uci");
        self.clock = clock.map(|(white, black)| ClockView {
            white,
            black,
            run: if self.result.is_some() {
                None
            } else {
                self.run
            },
            time: now_ms,
        });
    }

    /// Takes in one event (the JSON published on `{prefix}/board/{id}/event`)
    /// received at `now_ms`: clock events tell which side runs.
    pub fn apply_event(&mut self, event: &Value, now_ms: u64) {
        match event.get("type").and_then(Value::as_str) {
            Some("clock") => {
                self.run = match event.get("running").and_then(Value::as_str) {
                    Some("white") => Some(true),
                    Some("black") => Some(false),
                    _ => None,
                };
                let secs = |k: &str| event.get(k).and_then(Value::as_u64).map(|v| v as u32);
                let (w, b) = match (secs("white"), secs("black"), &self.clock) {
                    (Some(w), Some(b), _) => (w, b),
                    (_, _, Some(c)) => (c.white, c.black),
                    _ => return,
                };
                self.clock = Some(ClockView {
                    white: w,
                    black: b,
                    run: self.run,
                    time: now_ms,
                });
            }
            Some("game_start") => self.run = None,
            _ => {}
        }
    }

    /// The LiveChess state: `ACTIVE` while the line is up, else
    /// `NOTRESPONDING`.
    pub fn state(&self) -> &'static str {
        if self.connected {
            "ACTIVE"
        } else {
            "NOTRESPONDING"
        }
    }

    /// Whether clients see the board flipped.
    pub fn flipped(&self) -> bool {
        self.rotated != self.flip
    }

    /// The moves since the position `setup` (a FEN), when that position
    /// occurs in the current game; `None` when it does not.
    pub fn san_since(&self, setup: &str) -> Option<Vec<String>> {
        let key = |fen: &str| -> String { fen.split(' ').take(2).collect::<Vec<_>>().join(" ") };
        let want = key(setup);
        let start = self.start_fen.as_deref()?;
        let mut pos = Position::from_fen(start, self.chess960)?;
        if key(&pos.fen()) == want {
            return Some(self.sans.clone());
        }
        for (i, u) in self.ucis.iter().enumerate() {
            let m = pos.parse_uci(u)?;
            pos = pos.play(m);
            if key(&pos.fen()) == want {
                return Some(self.sans.get(i + 1..).unwrap_or_default().to_vec());
            }
        }
        None
    }
}

/// An e-board as `eboards` and `GET /api/v1.0/eboards` list it: the eight
/// keys LiveChess sends, in its order, `null`s included.
#[derive(Debug, Serialize)]
pub struct EBoard {
    /// Serial number.
    pub serialnr: String,
    /// Device path, or `null`.
    pub source: Option<String>,
    /// `ACTIVE` or `NOTRESPONDING`.
    pub state: &'static str,
    /// Always `null` (wired boards report none).
    pub battery: Option<String>,
    /// Always `null`.
    pub comment: Option<String>,
    /// FEN placement.
    pub board: String,
    /// Flipped.
    pub flipped: bool,
    /// Clock or `null`.
    pub clock: Option<ClockView>,
}

/// The e-board object of `view`.
pub fn eboard(view: &BoardView) -> EBoard {
    EBoard {
        serialnr: view.serialnr.clone(),
        source: view.source.clone(),
        state: view.state(),
        battery: None,
        comment: None,
        board: view.placement.clone(),
        flipped: view.flipped(),
        clock: view.clock,
    }
}

/// One entry of `sources`.
#[derive(Debug, Serialize)]
pub struct Source {
    /// Always `"SERIAL"`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The device path, or `null`.
    pub device: Option<String>,
    /// The board id.
    pub name: String,
    /// The line is up.
    pub present: bool,
    /// Always `true`: every configured board is read.
    pub active: bool,
    /// `ACTIVE` or `NOTRESPONDING`.
    pub status: &'static str,
}

/// The `sources` entry of `view`.
pub fn source(view: &BoardView) -> Source {
    Source {
        kind: "SERIAL",
        device: view.source.clone(),
        name: view.id.clone(),
        present: view.connected,
        active: true,
        status: view.state(),
    }
}

/// A client's call, parsed.
#[derive(Clone, Debug, PartialEq)]
pub enum Call {
    /// `eboards`.
    Eboards,
    /// `sources`.
    Sources,
    /// `subscribe` to the `eboardevent` feed of a board.
    Subscribe {
        /// The feed id the client chose.
        feed: Value,
        /// The board.
        serialnr: String,
    },
    /// `unsubscribe`.
    Unsubscribe {
        /// The feed id.
        feed: Value,
    },
    /// `call` … `setup`: moves are reported from this FEN on.
    Setup {
        /// The feed id.
        feed: Value,
        /// The position.
        fen: String,
    },
    /// `call` … `flip`.
    Flip {
        /// The feed id.
        feed: Value,
        /// Flipped or not.
        flip: bool,
    },
}

/// Why a WebSocket request cannot be served; its text is the error
/// reply's `message`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CallError {
    /// The message is not JSON (the parser's reason).
    #[error("not JSON: {0}")]
    NotJson(String),
    /// No `call`.
    #[error("`call` is missing")]
    MissingCall,
    /// A call this API does not serve.
    #[error("unknown call `{0}`")]
    UnknownCall(String),
    /// A subscription to a feed other than `eboardevent`.
    #[error("unknown feed `{0}`: only eboardevent is served")]
    UnknownFeed(String),
    /// A call without its feed id.
    #[error("param.id (the feed id) is missing")]
    MissingFeedId,
    /// A subscription without the board's serial number.
    #[error("param.param.serialnr is missing")]
    MissingSerial,
    /// A `setup` whose position is not a FEN.
    #[error("setup: `{0}` is not a FEN")]
    NotAFen(String),
    /// A `setup` without its position.
    #[error("setup: param.fen is missing")]
    MissingFen,
    /// A `flip` without its value.
    #[error("flip: param.flip (true or false) is missing")]
    MissingFlip,
    /// A method this API does not serve.
    #[error("unknown method `{0}`")]
    UnknownMethod(String),
}

/// A request: its id (echoed in the reply) and the call, or why it
/// cannot be served.
pub type Request = (Value, Result<Call, CallError>);

/// Parses one WebSocket text message.
pub fn parse_request(text: &str) -> Request {
    let v: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => return (Value::Null, Err(CallError::NotJson(e.to_string()))),
    };
    let id = v.get("id").cloned().unwrap_or(Value::Null);
    let call = v.get("call").and_then(Value::as_str).unwrap_or("");
    let param = v.get("param").cloned().unwrap_or(Value::Null);
    (id, parse_call(call, &param))
}

fn parse_call(call: &str, param: &Value) -> Result<Call, CallError> {
    let feed = |p: &Value| -> Result<Value, CallError> {
        p.get("id")
            .filter(|v| !v.is_null())
            .cloned()
            .ok_or(CallError::MissingFeedId)
    };
    match call {
        "eboards" => Ok(Call::Eboards),
        "sources" => Ok(Call::Sources),
        "subscribe" => {
            let kind = param.get("feed").and_then(Value::as_str).unwrap_or("");
            if kind != "eboardevent" {
                return Err(CallError::UnknownFeed(kind.to_string()));
            }
            let serialnr = match param.get("param").and_then(|p| p.get("serialnr")) {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Number(n)) => n.to_string(),
                _ => return Err(CallError::MissingSerial),
            };
            Ok(Call::Subscribe {
                feed: feed(param)?,
                serialnr,
            })
        }
        "unsubscribe" => Ok(Call::Unsubscribe { feed: feed(param)? }),
        "call" => {
            let method = param.get("method").and_then(Value::as_str).unwrap_or("");
            let inner = param.get("param").cloned().unwrap_or(Value::Null);
            method_call(method, feed(param)?, &inner)
        }
        // Tolerated: the method named directly, the feed id in param.
        "setup" | "flip" => method_call(call, feed(param)?, param),
        "" => Err(CallError::MissingCall),
        other => Err(CallError::UnknownCall(other.to_string())),
    }
}

fn method_call(method: &str, feed: Value, param: &Value) -> Result<Call, CallError> {
    match method {
        "setup" => match param.get("fen").and_then(Value::as_str) {
            Some(fen) if notation::is_fen(fen) => Ok(Call::Setup {
                feed,
                fen: fen.to_string(),
            }),
            Some(fen) => Err(CallError::NotAFen(fen.to_string())),
            None => Err(CallError::MissingFen),
        },
        "flip" => match param.get("flip").and_then(Value::as_bool) {
            Some(flip) => Ok(Call::Flip { feed, flip }),
            None => Err(CallError::MissingFlip),
        },
        other => Err(CallError::UnknownMethod(other.to_string())),
    }
}

#[derive(Serialize)]
struct Envelope<'a, T: Serialize> {
    response: &'a str,
    id: &'a Value,
    param: T,
    time: u64,
}

/// A call's reply: `{"response":"call","id":…,"param":…,"time":…}`.
pub fn reply<T: Serialize>(id: &Value, param: T, now_ms: u64) -> String {
    envelope("call", id, param, now_ms)
}

/// A feed frame: `{"response":"feed","id":<feed id>,"param":…,"time":…}`.
pub fn feed_frame<T: Serialize>(feed: &Value, param: T, now_ms: u64) -> String {
    envelope("feed", feed, param, now_ms)
}

/// An error: `{"response":"error","id":…,"param":{"message","stacktrace"},"time":…}`.
pub fn error(id: &Value, message: &str, now_ms: u64) -> String {
    #[derive(Serialize)]
    struct ErrorParam<'a> {
        message: &'a str,
        stacktrace: &'a str,
    }
    envelope(
        "error",
        id,
        ErrorParam {
            message,
            stacktrace: "",
        },
        now_ms,
    )
}

fn envelope<T: Serialize>(response: &str, id: &Value, param: T, now_ms: u64) -> String {
    serde_json::to_string(&Envelope {
        response,
        id,
        param,
        time: now_ms,
    })
    .expect("replies serialise")
}

/// The param of an `eboardevent` frame, keys in LiveChess's order; absent
/// keys are left out (unchanged board or clock; no setup yet).
#[derive(Debug, PartialEq, Serialize)]
pub struct FeedParam {
    /// Serial number.
    pub serialnr: String,
    /// Flipped.
    pub flipped: bool,
    /// FEN placement, when changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub board: Option<String>,
    /// The clock (or `null`), when changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clock: Option<Option<ClockView>>,
    /// The setup FEN, once set up.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    /// Moves since the setup position, once set up.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub san: Option<Vec<String>>,
    /// The board matches the game, once set up.
    #[serde(rename = "match", skip_serializing_if = "Option::is_none")]
    pub matches: Option<bool>,
}

/// What a feed last sent, to send only changes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sent {
    placement: String,
    flipped: bool,
    clock: Option<ClockView>,
    san: Option<Vec<String>>,
    matches: Option<bool>,
}

/// Boards one [`Setup::follow`] compares at most: the bound on the work
/// one setup does at one change of its board, whatever the position
/// (a legal position with nine queens a side has some 200 moves and
/// 40,000 two-ply lines; only those that touch a changed square are
/// tried, and never more than this).
pub const MAX_FOLLOW_TRIES: usize = 4096;

/// The moves since a setup's FEN in a board's own game, as last worked
/// out, and the game they were worked out for.
#[derive(Clone, Debug, Default)]
struct Since {
    game: usize,
    start_fen: Option<String>,
    ucis: Vec<String>,
    san: Option<Vec<String>>,
}

impl Since {
    fn is_for(&self, view: &BoardView) -> bool {
        self.game == view.game && self.start_fen == view.start_fen && self.ucis == view.ucis
    }
}

/// A feed's `setup`: the FEN a client set up, and the moves seen on the
/// board since that position when the bridge's game does not go through
/// it (a position set up by hand, an adjourned game).
///
/// Design: as LiveChess does after `setup`, the board is followed from
/// that position on its own: each placement the board shows is matched
/// against the positions one legal move (or two: a reply made before the
/// feed saw the first) further on; a placement that matches none (a piece
/// in the air, a knocked piece) changes nothing. Only moves that touch a
/// square where the board differs can explain it, so only those are
/// tried, at most [`MAX_FOLLOW_TRIES`] boards per change. When the
/// bridge's own game goes through the position, its moves are used
/// instead (worked out once per change of the game, not per frame).
#[derive(Clone, Debug)]
pub struct Setup {
    fen: String,
    /// The position followed from the FEN (`None`: not a legal FEN).
    pos: Option<Position>,
    san: Vec<String>,
    since: Since,
}

impl Setup {
    /// A setup of `fen` (a full FEN).
    pub fn new(fen: &str) -> Setup {
        let pos = Position::from_fen(fen, false).or_else(|| Position::from_fen(fen, true));
        Setup {
            fen: fen.to_string(),
            pos,
            san: Vec::new(),
            since: Since::default(),
        }
    }

    /// The FEN set up.
    pub fn fen(&self) -> &str {
        &self.fen
    }

    /// Brings the setup up to date with `view`: the moves of the board's
    /// game since the FEN, and the board followed on its own.
    pub fn update(&mut self, view: &BoardView) {
        if !self.since.is_for(view) {
            self.since = Since {
                game: view.game,
                start_fen: view.start_fen.clone(),
                ucis: view.ucis.clone(),
                san: view.san_since(&self.fen),
            };
        }
        self.follow(&view.placement);
    }

    /// The moves of `view`'s game since the FEN (`None`: the game does
    /// not go through it), from [`Setup::update`] when it saw this game.
    fn san_since(&self, view: &BoardView) -> Option<Vec<String>> {
        if self.since.is_for(view) {
            return self.since.san.clone();
        }
        view.san_since(&self.fen)
    }

    /// Follows the board to `placement` (the board part of a FEN).
    pub fn follow(&mut self, placement: &str) {
        let Some(pos) = &self.pos else {
            return;
        };
        let Ok(target) = placement.parse::<Board>() else {
            return;
        };
        let changed: Bitboard = Square::ALL
            .into_iter()
            .filter(|&sq| pos.board().piece_at(sq) != target.piece_at(sq))
            .collect();
        // Two plies change at most eight squares (two castlings).
        if changed.is_empty() || changed.count() > 8 {
            return;
        }
        if let Some((next, sans)) = explain(pos, &target, changed) {
            self.san.extend(sans);
            self.pos = Some(next);
        }
    }

    /// Whether the board shows the position followed (`placement`).
    fn shows(&self, placement: &str) -> bool {
        self.pos
            .as_ref()
            .is_some_and(|p| board_fen(p.board()) == placement)
    }
}

/// The one or two legal plies from `pos` that leave `target` (which
/// differs from `pos` on `changed`): the position after them and their
/// SAN. At most [`MAX_FOLLOW_TRIES`] boards are compared.
fn explain(pos: &Position, target: &Board, changed: Bitboard) -> Option<(Position, Vec<String>)> {
    let mut tries = 0;
    for m in pos
        .legal_moves()
        .filter(|m| m.touched().intersects(changed))
    {
        tries += 1;
        if pos.board_after(m) == *target {
            return Some((pos.play(m), vec![pos.san(m)]));
        }
        let next = pos.play(m);
        for reply in next.legal_moves() {
            let both = m.touched() | reply.touched();
            if !reply.touched().intersects(changed) || !changed.is_subset(both) {
                continue;
            }
            tries += 1;
            if next.board_after(reply) == *target {
                return Some((next.play(reply), vec![pos.san(m), next.san(reply)]));
            }
            if tries >= MAX_FOLLOW_TRIES {
                return None;
            }
        }
        if tries >= MAX_FOLLOW_TRIES {
            return None;
        }
    }
    None
}

/// The next frame of a feed on `view` (`setup`: the feed's `setup`, if
/// any), given what it `last` sent: the first frame carries everything;
/// later ones only what changed, `None` when nothing did.
pub fn next_frame(
    view: &BoardView,
    setup: Option<&Setup>,
    last: Option<&Sent>,
) -> Option<(FeedParam, Sent)> {
    let (san, matches) = match setup {
        Some(s) => match s.san_since(view) {
            Some(san) => (Some(san), Some(view.recognised)),
            None => (Some(s.san.clone()), Some(s.shows(&view.placement))),
        },
        None => (None, None),
    };
    let setup = setup.map(Setup::fen);
    let now = Sent {
        placement: view.placement.clone(),
        flipped: view.flipped(),
        clock: view.clock,
        san,
        matches,
    };
    let clock_changed = |l: &Sent| match (&l.clock, &now.clock) {
        (Some(a), Some(b)) => !a.same(b),
        (None, None) => false,
        _ => true,
    };
    let param = match last {
        None => FeedParam {
            serialnr: view.serialnr.clone(),
            flipped: now.flipped,
            board: Some(now.placement.clone()),
            clock: Some(now.clock),
            start: setup.map(str::to_string),
            san: now.san.clone(),
            matches: now.matches,
        },
        Some(l) => {
            let board_changed = l.placement != now.placement;
            let clock_changed = clock_changed(l);
            if !board_changed
                && !clock_changed
                && l.flipped == now.flipped
                && l.san == now.san
                && l.matches == now.matches
            {
                return None;
            }
            FeedParam {
                serialnr: view.serialnr.clone(),
                flipped: now.flipped,
                board: board_changed.then(|| now.placement.clone()),
                clock: clock_changed.then_some(now.clock),
                start: setup.map(str::to_string),
                san: now.san.clone(),
                matches: now.matches,
            }
        }
    };
    Some((param, now))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    fn view() -> BoardView {
        let mut v = BoardView::new("1", serial_for("hall", "1", None), 1, 1);
        v.apply_state(
            &json!({"board":"1","status":"connected","port":"/dev/ttyUSB0","recognised":true,
                "rotated":false,"game":1,"start_fen":START,"chess960":false,
                "fen":"rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2",
                "moves":["e4","e5"],"uci":["e2e4","e7e5"],"result":null,
                "clock":{"white":5390,"black":5395,"estimated":false},"round":1,"number":1,
                "white":{"name":"Carlsen, Magnus","fide_id":1503014},"black":{"name":"Nepo"}}),
            1_000,
        );
        v
    }

    #[test]
    fn serial_numbers_are_stable_and_configured_ones_win() {
        let a = serial_for("hall", "1", None);
        assert_eq!(a, serial_for("hall", "1", None));
        assert_eq!(a.len(), 5);
        assert!(a.chars().all(|c| c.is_ascii_digit()));
        assert_ne!(a, serial_for("hall", "2", None));
        assert_eq!(serial_for("hall", "1", Some("23946")), "23946");
        assert_eq!(serial_for("hall", "1", Some("")), a);
    }

    #[test]
    fn an_eboard_has_the_eight_keys_in_livechess_order_with_nulls() {
        let v = view();
        let text = serde_json::to_string(&eboard(&v)).unwrap();
        let expected = format!(
            r#"{{"serialnr":"{}","source":"/dev/ttyUSB0","state":"ACTIVE","battery":null,"comment":null,"board":"rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR","flipped":false,"clock":{{"white":5390,"black":5395,"run":null,"time":1000}}}}"#,
            v.serialnr
        );
        assert_eq!(text, expected);
        let fresh = BoardView::new("2", "12345".into(), 2, 1);
        assert_eq!(
            serde_json::to_string(&eboard(&fresh)).unwrap(),
            r#"{"serialnr":"12345","source":null,"state":"NOTRESPONDING","battery":null,"comment":null,"board":"8/8/8/8/8/8/8/8","flipped":false,"clock":null}"#
        );
    }

    #[test]
    fn calls_parse_as_public_clients_send_them() {
        let (id, c) = parse_request(r#"{"id":1,"call":"eboards"}"#);
        assert_eq!((id, c), (json!(1), Ok(Call::Eboards)));
        let (id, c) = parse_request(
            r#"{"id":2,"call":"subscribe","param":{"feed":"eboardevent","id":1,"param":{"serialnr":"23946"}}}"#,
        );
        assert_eq!(id, json!(2));
        assert_eq!(
            c,
            Ok(Call::Subscribe {
                feed: json!(1),
                serialnr: "23946".into()
            })
        );
        let (_, c) = parse_request(&format!(
            r#"{{"id":3,"call":"call","param":{{"id":1,"method":"setup","param":{{"fen":"{START}"}}}}}}"#
        ));
        assert_eq!(
            c,
            Ok(Call::Setup {
                feed: json!(1),
                fen: START.into()
            })
        );
        let (_, c) = parse_request(
            r#"{"id":4,"call":"call","param":{"id":1,"method":"flip","param":{"flip":true}}}"#,
        );
        assert_eq!(
            c,
            Ok(Call::Flip {
                feed: json!(1),
                flip: true
            })
        );
        // livechess-go's flip helper sends method setup with a flip param.
        let (_, c) = parse_request(
            r#"{"id":5,"call":"call","param":{"id":1,"method":"setup","param":{"flip":true}}}"#,
        );
        assert_eq!(c, Err(CallError::MissingFen));
        assert_eq!(
            CallError::MissingFen.to_string(),
            "setup: param.fen is missing"
        );
        let (id, c) = parse_request("{nope");
        assert_eq!(id, Value::Null);
        assert!(c.unwrap_err().to_string().starts_with("not JSON: "));
        let (_, c) = parse_request(r#"{"id":6,"call":"frobnicate"}"#);
        assert_eq!(c, Err(CallError::UnknownCall("frobnicate".into())));
        assert_eq!(c.unwrap_err().to_string(), "unknown call `frobnicate`");
        let (_, c) = parse_request(r#"{"call":"unsubscribe","id":7,"param":{"id":1}}"#);
        assert_eq!(c, Ok(Call::Unsubscribe { feed: json!(1) }));
    }

    #[test]
    fn envelopes_have_livechess_keys_in_order() {
        assert_eq!(
            reply(&json!(2), Value::Null, 7),
            r#"{"response":"call","id":2,"param":null,"time":7}"#
        );
        assert_eq!(
            error(&json!(9), "no such board", 7),
            r#"{"response":"error","id":9,"param":{"message":"no such board","stacktrace":""},"time":7}"#
        );
    }

    #[test]
    fn feeds_send_everything_first_then_only_changes() {
        let mut v = BoardView::new("1", "11111".into(), 1, 1);
        let (first, sent) = next_frame(&v, None, None).unwrap();
        assert_eq!(
            serde_json::to_string(&first).unwrap(),
            r#"{"serialnr":"11111","flipped":false,"board":"8/8/8/8/8/8/8/8","clock":null}"#
        );
        assert!(next_frame(&v, None, Some(&sent)).is_none());
        v.placement = "8/8/8/8/8/8/8/K6k".into();
        let (second, sent) = next_frame(&v, None, Some(&sent)).unwrap();
        assert_eq!(
            serde_json::to_string(&second).unwrap(),
            r#"{"serialnr":"11111","flipped":false,"board":"8/8/8/8/8/8/8/K6k"}"#
        );
        v.clock = Some(ClockView {
            white: 60,
            black: 61,
            run: Some(true),
            time: 5,
        });
        let (third, sent) = next_frame(&v, None, Some(&sent)).unwrap();
        assert_eq!(
            serde_json::to_string(&third).unwrap(),
            r#"{"serialnr":"11111","flipped":false,"clock":{"white":60,"black":61,"run":true,"time":5}}"#
        );
        // Only the read time moved: nothing to send.
        v.clock.as_mut().unwrap().time = 6;
        assert!(next_frame(&v, None, Some(&sent)).is_none());
    }

    #[test]
    fn after_setup_frames_carry_start_san_and_match() {
        let v = view();
        let (p, _) = next_frame(&v, Some(&Setup::new(START)), None).unwrap();
        assert_eq!(p.start.as_deref(), Some(START));
        assert_eq!(p.san, Some(vec!["e4".to_string(), "e5".to_string()]));
        assert_eq!(p.matches, Some(true));
        let text = serde_json::to_string(&p).unwrap();
        let keys: Vec<&str> = [
            "serialnr", "flipped", "board", "clock", "start", "san", "match",
        ]
        .to_vec();
        let mut at = 0;
        for k in keys {
            let i = text.find(&format!("\"{k}\":")).unwrap();
            assert!(i >= at, "{k} out of order in {text}");
            at = i;
        }
        // Set up after 1. e4: only Black's reply follows.
        let after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
        assert_eq!(v.san_since(after_e4), Some(vec!["e5".to_string()]));
        // A position not in the game: no moves, no match.
        let other = "8/8/8/8/8/8/8/K6k w - - 0 1";
        let (p, _) = next_frame(&v, Some(&Setup::new(other)), None).unwrap();
        assert_eq!(p.san, Some(vec![]));
        assert_eq!(p.matches, Some(false));
    }

    #[test]
    fn a_position_set_up_by_hand_is_followed_from_its_fen() {
        // An endgame set up on the board (no game of the bridge's goes
        // through it): the feed follows the board from the FEN.
        let fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1";
        let mut v = view();
        v.placement = "4k3/8/8/8/8/8/4P3/4K3".into();
        let mut setup = Setup::new(fen);
        setup.follow(&v.placement);
        let (p, sent) = next_frame(&v, Some(&setup), None).unwrap();
        assert_eq!((p.san.clone(), p.matches), (Some(vec![]), Some(true)));
        // The pawn in the air: nothing follows, no match.
        v.placement = "4k3/8/8/8/8/8/8/4K3".into();
        setup.follow(&v.placement);
        let (p, sent) = next_frame(&v, Some(&setup), Some(&sent)).unwrap();
        assert_eq!((p.san.clone(), p.matches), (Some(vec![]), Some(false)));
        // Set down on e4: 1. e4.
        v.placement = "4k3/8/8/8/4P3/8/8/4K3".into();
        setup.follow(&v.placement);
        let (p, sent) = next_frame(&v, Some(&setup), Some(&sent)).unwrap();
        assert_eq!(p.san, Some(vec!["e4".to_string()]));
        assert_eq!(p.matches, Some(true));
        // Two plies seen at once (the reply came before the next look).
        v.placement = "3k4/8/8/4P3/8/8/8/4K3".into();
        setup.follow(&v.placement);
        let (p, _) = next_frame(&v, Some(&setup), Some(&sent)).unwrap();
        assert_eq!(
            p.san,
            Some(vec!["e4".to_string(), "Kd8".to_string(), "e5".to_string()])
        );
    }

    #[test]
    fn clock_events_say_which_side_runs_and_moves_get_their_clock() {
        let mut v = view();
        v.apply_event(
            &json!({"type":"clock","white":5390,"black":5380,"running":"white","connected":true}),
            2_000,
        );
        let c = v.clock.unwrap();
        assert_eq!(
            (c.white, c.black, c.run, c.time),
            (5390, 5380, Some(true), 2_000)
        );
        assert_eq!(v.clks, vec![None, Some(5395)]);
    }

    #[test]
    fn tournament_round_and_game_bodies() {
        let v = view();
        let info = TournamentInfo {
            uuid: uuid_for("hall/Open"),
            name: "Open".into(),
            site: "Hall".into(),
            date: "2026.11.23".into(),
            round: 1,
        };
        let views = vec![v.clone()];
        let raw = tournament(&info, &views);
        assert!(raw.starts_with(r#"{"uuid":"#), "{raw}");
        let key_at = |k: &str| raw.find(&format!("\"{k}\":")).unwrap();
        assert!(key_at("name") < key_at("description") && key_at("rounds") < key_at("eboards"));
        let t: Value = serde_json::from_str(&raw).unwrap();
        assert_eq!(t["eboards"], json!([v.serialnr]));
        assert_eq!(t["rounds"], json!(1));
        let raw = round(&info, &views, 0);
        assert!(
            raw.starts_with(r#"{"nr":1,"date":"2026-11-23","pairings":[{"nr":1,"uuid":"#),
            "{raw}"
        );
        let r: Value = serde_json::from_str(&raw).unwrap();
        assert_eq!(r["nr"], json!(1));
        assert_eq!(r["date"], json!("2026-11-23"));
        let p = &r["pairings"][0];
        assert_eq!(p["white"]["fname"], json!("Magnus"));
        assert_eq!(p["white"]["lname"], json!("Carlsen"));
        assert_eq!(p["white"]["fideid"], json!(1503014));
        assert_eq!(p["live"], json!(true));
        assert_eq!(p["result"], Value::Null);
        let g = game(&info, &views, p["uuid"].as_str().unwrap()).unwrap();
        assert!(
            g.starts_with(r#"{"chess960":518,"result":null,"comment":null,"clock":{"#),
            "{g}"
        );
        let g: Value = serde_json::from_str(&g).unwrap();
        assert_eq!(g["moves"], json!(["e4", "e5 5395"]));
        assert_eq!(g["chess960"], json!(518));
        assert!(game(&info, &views, "nope").is_none());
        assert!(round(&info, &views, 3).ends_with(r#""pairings":[]}"#));
        let ts: Value = serde_json::from_str(&tournaments(&info, &views)).unwrap();
        assert_eq!(
            ts,
            json!([{"uuid": info.uuid, "description": "Open", "rounds": 1}])
        );
    }
}
