//! What a session publishes about its board: the retained state
//! (`{prefix}/board/{id}/state`, the live page's boards).

use serde::Serialize;

use crate::event::{GameId, Millis};
use crate::sink::record::GameRecord;
use crate::tournament::Player;

/// Whether the board's line is up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkStatus {
    /// Open and identified.
    Connected,
    /// Not open (never found, unplugged, or the daemon stopped).
    Offline,
}

/// The last move of the game: `san` and `uci` on a chess board,
/// `notation` and `id` (as in `move` events) on the others.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LastMove {
    /// Its ply (1 = the first player's first move).
    pub ply: usize,
    /// Chess: SAN.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub san: Option<String>,
    /// Chess: UCI.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uci: Option<String>,
    /// Other games: the game's notation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notation: Option<String>,
    /// Other games: the move's id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

/// The game fields of a chess board's state (as they always were).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChessState {
    /// FEN of the start position (`null` before the first game).
    pub start_fen: Option<String>,
    /// Whether the game is Chess960.
    pub chess960: bool,
    /// FEN of the current position (`null` before the first game).
    pub fen: Option<String>,
    /// The mainline in SAN.
    pub moves: Vec<String>,
    /// The mainline in UCI.
    pub uci: Vec<String>,
}

/// The game fields of a draughts or xiangqi board's state, named as the
/// events name them (interface §7).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GameState {
    /// The game's FEN of the start position (`null` before the first
    /// game).
    pub start_position: Option<String>,
    /// The game's FEN of the current position (`null` before the first
    /// game).
    pub position: Option<String>,
    /// The mainline in the game's notation (PDN short form, WXF).
    pub notation: Vec<String>,
    /// The mainline's move ids (draughts: squares joined by `-` or `x`;
    /// xiangqi: ICCS).
    pub id: Vec<String>,
}

/// The clocks in a board's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ClockState {
    /// White's seconds (chess and draughts).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub white: Option<u32>,
    /// Black's seconds (every game).
    pub black: u32,
    /// Red's seconds (xiangqi).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub red: Option<u32>,
    /// Estimated from move times (no clock reports).
    pub estimated: bool,
}

/// The retained state of a board (`{prefix}/board/{id}/state`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StateMessage {
    /// The board id.
    pub board: String,
    /// `connected` or `offline`.
    pub status: LinkStatus,
    /// The device path in use (or last used).
    pub port: Option<String>,
    /// The serial number the board reported.
    pub serial: Option<String>,
    /// The model the board named in its greeting, if it named one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The firmware version the board reported in its greeting, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub firmware: Option<String>,
    /// The board's family (its wire protocol: `dgt`, `open`, ...).
    pub family: &'static str,
    /// A game is on and the board agrees with it: a start position was
    /// recognised and no displaced-pieces or impossible-position alert is
    /// open.
    pub recognised: bool,
    /// The board stands turned round (Black on ranks 1-2, Law 7.2b).
    pub rotated: bool,
    /// An error alert was raised in this game (see the events).
    pub irregular: bool,
    /// Games started on this board since the daemon started (0: none yet).
    pub game: usize,
    /// The game the board plays (`chess`, `draughts`, `xiangqi`; events
    /// call it `game`, a name this message already gave the count above).
    pub game_type: GameId,
    /// A chess board's game: `start_fen`, `chess960`, `fen`, `moves`,
    /// `uci`.
    #[serde(flatten)]
    pub chess: Option<ChessState>,
    /// Another game's: `start_position`, `position`, `notation`, `id`.
    #[serde(flatten)]
    pub other: Option<GameState>,
    /// The pieces as the board's sensors see them now, as the board part
    /// of a FEN in the game's orientation: a piece in the air is missing,
    /// a displaced piece stands where it is. Live states only (the
    /// arbiters' topics, and the public ones without a delay); left out
    /// of a delayed public state, which shows only the game.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub placement: Option<String>,
    /// The board check before the first move of a game (none yet, or
    /// the last one over): connected, identity, battery, orientation,
    /// set-up, piece codes, clock, each `ok`/`warn`/`fail` with a sentence
    /// (see [`crate::readiness`]). Live states only; left out once a move
    /// is played.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub readiness: Option<crate::readiness::Readiness>,
    /// Plies played (the length of `moves`, or `notation`).
    pub ply: usize,
    /// The last move, if any.
    pub last_move: Option<LastMove>,
    /// `1-0`, `0-1`, `1/2-1/2` or `*` once the game ended, else `null`.
    pub result: Option<String>,
    /// Why the game ended.
    pub reason: Option<String>,
    /// The clocks as last reported (or estimated).
    pub clock: Option<ClockState>,
    /// The round the game belongs to.
    pub round: u32,
    /// The board's number in the round.
    pub number: u32,
    /// White, from the pairings (or the operator).
    pub white: Option<Player>,
    /// Black, likewise.
    pub black: Option<Player>,
    /// Daemon milliseconds when this state was made.
    pub t_ms: Millis,
}

/// The last move of a game, if any (`chess`: as SAN and UCI, else as
/// notation and id).
pub(super) fn last_move(g: &GameRecord, chess: bool) -> Option<LastMove> {
    let (text, id) = (g.sans.last()?.clone(), g.ucis.last()?.clone());
    Some(if chess {
        LastMove {
            ply: g.sans.len(),
            san: Some(text),
            uci: Some(id),
            notation: None,
            id: None,
        }
    } else {
        LastMove {
            ply: g.sans.len(),
            san: None,
            uci: None,
            notation: Some(text),
            id: Some(id),
        }
    })
}
