//! The event type every sink consumes, for every game (interface sections
//! 4 and 7).
//!
//! A board's reconstructor emits [`EventKind`]s with the time of the reading
//! that caused them; the pipeline stamps the board id and the game to make
//! an [`Event`]. Serialised as one flat JSON object: `{"board": "1",
//! "t_ms": 5684, "game": "chess", "type": "move", "ply": 1, ...}`.
//!
//! Design: one event type for all games. A move, a retraction, a takeback
//! and a game start carry the game's own `notation`, `id` and `position`
//! (for chess: SAN, UCI and FEN); chess events also carry them under the
//! names of interface §4 (`san`, `uci`, `fen`, and `chess960` on
//! `game_start`), which the serialiser adds for chess and only for chess,
//! so existing chess subscribers see exactly the fields they always did.
//! Events written before the generic fields existed still read (the chess
//! names fill them).

use serde::{Deserialize, Serialize};

/// Milliseconds of capture (or daemon) time.
pub type Millis = u64;

/// The game a board plays, as events name it (`"game"`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameId {
    /// Chess (FIDE Laws).
    #[default]
    Chess,
    /// English draughts (WCDF rules).
    Draughts,
    /// Xiangqi.
    Xiangqi,
}

impl GameId {
    /// The name events carry.
    pub fn name(self) -> &'static str {
        match self {
            GameId::Chess => "chess",
            GameId::Draughts => "draughts",
            GameId::Xiangqi => "xiangqi",
        }
    }

    /// The game of a name [`GameId::name`] gives.
    pub fn from_name(name: &str) -> Option<GameId> {
        [GameId::Chess, GameId::Draughts, GameId::Xiangqi]
            .into_iter()
            .find(|g| g.name() == name)
    }

    /// The two sides in the order they move: chess White then Black,
    /// draughts Black then White, xiangqi Red then Black.
    pub fn sides(self) -> [Side; 2] {
        match self {
            GameId::Chess => [Side::White, Side::Black],
            GameId::Draughts => [Side::Black, Side::White],
            GameId::Xiangqi => [Side::Red, Side::Black],
        }
    }

    /// Whether `side` is the first player's (who makes ply 1).
    pub fn moves_first(self, side: Side) -> bool {
        self.sides()[0] == side
    }

    /// The side of the first (`true`) or second player.
    pub fn side(self, first: bool) -> Side {
        self.sides()[usize::from(!first)]
    }

    /// The side a result names as the winner, `None` for a draw or an
    /// unfinished game: chess and xiangqi `1-0`/`0-1` (White or Red
    /// first), draughts `2-0`/`0-2` (Black, the first player, first).
    pub fn winner(self, result: &str) -> Option<Side> {
        match (self, result) {
            (GameId::Chess, "1-0") => Some(Side::White),
            (GameId::Chess | GameId::Xiangqi, "0-1") => Some(Side::Black),
            (GameId::Xiangqi, "1-0") => Some(Side::Red),
            (GameId::Draughts, "2-0") => Some(Side::Black),
            (GameId::Draughts, "0-2") => Some(Side::White),
            _ => None,
        }
    }
}

/// A player colour as events name it: the game's own colour names (chess
/// `white`/`black`, draughts `black`/`white` with Black moving first,
/// xiangqi `red`/`black`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// White.
    White,
    /// Black.
    Black,
    /// Red (xiangqi's first player).
    Red,
}

impl Side {
    /// The other side in chess (and draughts): White and Black. (Red's
    /// opponent is Black; Black's is taken to be White.)
    pub fn other(self) -> Side {
        match self {
            Side::White | Side::Red => Side::Black,
            Side::Black => Side::White,
        }
    }

    /// "White", "Black" or "Red", for messages.
    pub fn name(self) -> &'static str {
        match self {
            Side::White => "White",
            Side::Black => "Black",
            Side::Red => "Red",
        }
    }
}

/// What kind of thing an alert reports (interface section 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AlertKind {
    /// A completed move that is not legal (Law 7.5).
    IllegalMove,
    /// A position no legal play reaches (Law 3.10c).
    IllegalPosition,
    /// The board disagrees with the game for longer than the delay (Law 7.4/7.6).
    Misplaced,
    /// The initial position is set up wrongly (Law 7.2a).
    Setup,
    /// A touched piece that could move was put back and another moved (Law 4.3/4.4b).
    TouchMove,
    /// Threefold repetition: the game may be claimed drawn (Law 9.2).
    Threefold,
    /// Fifty moves without capture or pawn move: claimable (Law 9.3).
    FiftyMoves,
    /// Fivefold repetition: the game is drawn; the arbiter must step in (Law 9.6a).
    Fivefold,
    /// Seventy-five moves: the game is drawn; the arbiter must step in (Law 9.6b).
    SeventyFiveMoves,
    /// A flag fell (Law 6).
    Flag,
    /// A clock press with no move on the board.
    ClockPress,
    /// The board shows a position in play but no game is known on it (a
    /// game begun before boardcast started, with no capture to resume it
    /// from): its moves are not being published. The arbiter restores the
    /// game or has the start position set up.
    Unrecognised,
    /// A player may claim a draw (draughts: repetition, 40 moves; xiangqi:
    /// the event's move limit).
    DrawClaimable,
    /// A draughts or xiangqi board first read in the middle of a game: the
    /// game is followed from the position it showed (the side to move
    /// found from the first move made); the moves before are not known.
    StartNotSeen,
    /// Xiangqi: a side checks perpetually (the arbiter rules).
    PerpetualCheck,
    /// Xiangqi: a side chases perpetually (the arbiter rules).
    PerpetualChase,
    /// Xiangqi: another repetition ruling (mutual, idle).
    Repetition,
}

/// How much an alert asks of the arbiter (`severity` on MQTT and in the
/// events): errors and required actions are acted on; notices are kept
/// for claims (a player may claim under Law 4.3 or 9.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Something was done wrongly on the board (an illegal move, displaced
    /// pieces, an impossible position, a wrong set-up): the arbiter acts.
    Error,
    /// Nothing was done wrongly, but the Laws ask the arbiter to step in
    /// (a flag fell, a fivefold repetition or the 75-move rule ended the
    /// game).
    Action,
    /// For the record: touch-move, a claimable draw, a clock pressed with
    /// no move. Kept so a player's claim can be checked, never sounded.
    Notice,
}

impl AlertKind {
    /// How much this kind asks of the arbiter.
    pub fn severity(self) -> Severity {
        match self {
            k if k.is_error() => Severity::Error,
            AlertKind::Flag
            | AlertKind::Fivefold
            | AlertKind::SeventyFiveMoves
            | AlertKind::Unrecognised
            | AlertKind::PerpetualCheck
            | AlertKind::PerpetualChase => Severity::Action,
            _ => Severity::Notice,
        }
    }

    /// Whether this kind is an error: a correctly played game never raises it.
    pub fn is_error(self) -> bool {
        matches!(
            self,
            AlertKind::IllegalMove
                | AlertKind::IllegalPosition
                | AlertKind::Misplaced
                | AlertKind::Setup
        )
    }
}

/// Something an arbiter must know. Serialised with its kind's
/// [`Severity`] as `severity`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Alert {
    /// What happened.
    pub kind: AlertKind,
    /// Who is concerned, when known.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub side: Option<Side>,
    /// The article of the game's rule book (chess: the FIDE Laws, see
    /// `games::chess::laws`), when one applies.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub law: Option<String>,
    /// One human sentence naming squares and pieces.
    pub message: String,
    /// True when this alert withdraws an earlier one of the same kind (the
    /// board was corrected).
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub cleared: bool,
    /// The sensor readings behind it (set by the pipeline; `None` for an
    /// alert made elsewhere, and in events from before evidence existed).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub evidence: Option<Evidence>,
}

/// The span of sensor readings behind an alert (`evidence` in its JSON):
/// from the last moment the board agreed with the game (or, outside a
/// game, the start of the board's session or the last game's end) to the
/// reading that raised it, plus a margin. The arbiter view replays them
/// (`GET /evidence/{board}/{seq}`) and `boardcast replay --evidence` cuts
/// a capture slice of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    /// The alert's number among the events the board's readings made: 1
    /// for the first since the start of its capture chain (operator
    /// corrections and decisions, which no capture holds, are not
    /// counted). So a replay of the captures numbers the alerts as the
    /// daemon did, and in `boardcast replay --events` of one capture it is
    /// the alert's line number; in a daemon session that resumed nothing
    /// and took no command, the alert's MQTT `seq`.
    pub seq: u64,
    /// The first reading's time (capture or daemon milliseconds).
    pub from_t_ms: Millis,
    /// The last reading's time.
    pub to_t_ms: Millis,
}

/// What an arbiter decided about an alert.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// It happened as reported (the arbiter acts on it, or did).
    Confirmed,
    /// It did not happen, or needs nothing (a false alarm, a player's
    /// adjustment).
    Dismissed,
    /// It happened and was dealt with at the board (pieces restored, time
    /// added, a claim decided).
    Handled,
}

impl Decision {
    /// The decision's name, as in its JSON.
    pub fn name(self) -> &'static str {
        match self {
            Decision::Confirmed => "confirmed",
            Decision::Dismissed => "dismissed",
            Decision::Handled => "handled",
        }
    }
}

/// The payload of an event, tagged by `type`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventKind {
    /// A game begins: the start position is on the board.
    GameStart {
        /// The game's FEN of the start position (chess: FEN, also sent as
        /// `fen`; draughts: PDN FEN; xiangqi: FEN with `w` for Red).
        #[serde(default)]
        position: String,
        /// Chess: whether it is a Chess960 start (`None` in other games).
        #[serde(skip_serializing_if = "Option::is_none", default)]
        chess960: Option<bool>,
        /// Whether the board stands turned round (chess: Black on ranks
        /// 1-2); false while a board without piece identity has not shown
        /// it yet.
        #[serde(default)]
        rotated: bool,
    },
    /// A move is final (see [`crate::track::finality`]): the mover
    /// pressed the clock, the opponent began to reply, or the board has
    /// stood long enough that no handling habit could still change it.
    Move {
        /// 1 = the first player's first move (White's in chess).
        ply: u32,
        /// The mover.
        side: Side,
        /// The game's standard notation (chess: SAN, also sent as `san`;
        /// draughts: short PDN; xiangqi: WXF).
        #[serde(default)]
        notation: String,
        /// The move's id (chess: UCI, also sent as `uci`; draughts: the
        /// full path; xiangqi: ICCS).
        #[serde(default)]
        id: String,
        /// The game's FEN after the move (chess: also sent as `fen`).
        #[serde(default)]
        position: String,
        /// True for an illegal move that stood: play went on from the
        /// position it made (chess: Law 7.5a was not applied). `notation`
        /// then holds the move as played (chess: long algebraic notation,
        /// `Bc1-h6`).
        #[serde(skip_serializing_if = "std::ops::Not::not", default)]
        irregular: bool,
    },
    /// A legal move the board shows that is not final yet: published as
    /// soon as it has stood its settle time, for screens that want speed.
    /// A later `provisional` or `move` event for the same ply supersedes
    /// it; no record (state, PGN, the delayed public view) ever holds it.
    /// See [`crate::track::finality`] for what makes a move final.
    Provisional {
        /// As in `move`.
        ply: u32,
        /// As in `move`.
        side: Side,
        /// As in `move` (chess: also sent as `san`).
        #[serde(default)]
        notation: String,
        /// As in `move` (chess: also sent as `uci`).
        #[serde(default)]
        id: String,
        /// The game's FEN after the move (chess: also sent as `fen`); for
        /// a withdrawn one, the position the board is back to.
        #[serde(default)]
        position: String,
        /// The board no longer shows this ply's move and nothing replaced
        /// it yet (the piece was put back where it came from, say).
        #[serde(skip_serializing_if = "std::ops::Not::not", default)]
        withdrawn: bool,
    },
    /// A final move turns out not to have been played.
    Retract {
        /// The ply withdrawn.
        ply: u32,
        /// Its id (chess: UCI, also sent as `uci`).
        #[serde(default)]
        id: String,
    },
    /// The players restored an earlier position.
    Takeback {
        /// The ply count after the takeback.
        to_ply: u32,
        /// The game's FEN of the restored position (chess: also sent as
        /// `fen`).
        #[serde(default)]
        position: String,
    },
    /// Something an arbiter must know.
    Alert(Alert),
    /// The clock: both players' times, which side runs, presses.
    Clock {
        /// White's seconds, once the clock's faces are matched to colours
        /// (chess and draughts).
        #[serde(skip_serializing_if = "Option::is_none", default)]
        white: Option<u32>,
        /// Black's seconds, likewise (every game).
        #[serde(skip_serializing_if = "Option::is_none", default)]
        black: Option<u32>,
        /// Red's seconds, likewise (xiangqi).
        #[serde(skip_serializing_if = "Option::is_none", default)]
        red: Option<u32>,
        /// The left face's seconds (a physical side, not a colour).
        #[serde(skip_serializing_if = "Option::is_none", default)]
        left: Option<u32>,
        /// The right face's seconds.
        #[serde(skip_serializing_if = "Option::is_none", default)]
        right: Option<u32>,
        /// The side whose clock runs, when known.
        #[serde(skip_serializing_if = "Option::is_none", default)]
        running: Option<Side>,
        /// The side that just pressed (completed its move, Law 6.2a).
        #[serde(skip_serializing_if = "Option::is_none", default)]
        pressed: Option<Side>,
        /// Whether a clock is connected to the board.
        connected: bool,
        /// The clock shows a low battery.
        #[serde(skip_serializing_if = "std::ops::Not::not", default)]
        battery_low: bool,
        /// The times are estimated from move times (no clock reports).
        #[serde(skip_serializing_if = "std::ops::Not::not", default)]
        estimated: bool,
    },
    /// An operator's correction (set result, restart, players, ...).
    Correction {
        /// The command (`set_result`, `restart`, `set_players`, ...).
        command: String,
        /// What it did, in words.
        message: String,
        /// Who made it, when known: `desk: <operator>` for the operator's
        /// desk; absent for a signed command from outside.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<String>,
    },
    /// An arbiter's decision about an alert (confirmed, dismissed,
    /// handled), given with a signed command or from the arbiter view.
    Decision {
        /// The alert's `evidence.seq`.
        alert: u64,
        /// What was decided.
        decision: Decision,
        /// The arbiter's words, if any.
        #[serde(skip_serializing_if = "Option::is_none", default)]
        note: Option<String>,
    },
    /// The game is over on the board.
    GameEnd {
        /// As the game's record writes it (chess and xiangqi `1-0`, `0-1`,
        /// `1/2-1/2`; draughts `2-0`, `0-2`, `1-1`; `*` unfinished).
        result: String,
        /// Why, in words (e.g. `checkmate`).
        reason: String,
        /// The winning side, `None` for a draw (or an unfinished game).
        #[serde(default)]
        winner: Option<Side>,
    },
}

/// An event with its board, game and time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    /// The board's id.
    pub board: String,
    /// Time of the sensor reading that caused it.
    pub t_ms: Millis,
    /// The game played on the board.
    pub game: GameId,
    /// What happened.
    pub kind: EventKind,
}

impl Event {
    /// The event as one line of JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("events always serialise")
    }
}

/// How an event is written: the fields every game has, in order.
#[derive(Serialize)]
struct Plain<'a> {
    board: &'a str,
    t_ms: Millis,
    game: GameId,
    #[serde(flatten)]
    kind: &'a EventKind,
}

/// How a chess game start, move, retraction or takeback is written: the
/// fields of interface §4 beside the generic ones.
#[derive(Serialize)]
struct ChessWire<'a> {
    board: &'a str,
    t_ms: Millis,
    game: GameId,
    #[serde(flatten)]
    kind: ChessKind<'a>,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum ChessKind<'a> {
    GameStart {
        fen: &'a str,
        chess960: bool,
        rotated: bool,
        position: &'a str,
    },
    Move {
        ply: u32,
        side: Side,
        san: &'a str,
        uci: &'a str,
        fen: &'a str,
        notation: &'a str,
        id: &'a str,
        position: &'a str,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        irregular: bool,
    },
    Provisional {
        ply: u32,
        side: Side,
        san: &'a str,
        uci: &'a str,
        fen: &'a str,
        notation: &'a str,
        id: &'a str,
        position: &'a str,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        withdrawn: bool,
    },
    Retract {
        ply: u32,
        uci: &'a str,
        id: &'a str,
    },
    Takeback {
        to_ply: u32,
        fen: &'a str,
        position: &'a str,
    },
}

impl Serialize for Event {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.game == GameId::Chess
            && let Some(kind) = chess_kind(&self.kind)
        {
            return ChessWire {
                board: &self.board,
                t_ms: self.t_ms,
                game: self.game,
                kind,
            }
            .serialize(s);
        }
        Plain {
            board: &self.board,
            t_ms: self.t_ms,
            game: self.game,
            kind: &self.kind,
        }
        .serialize(s)
    }
}

/// A chess event's kind with its chess-only field names beside the
/// generic ones (`san` beside `notation`, `uci` beside `id`, `fen` beside
/// `position`); `None` for a kind written alike in every game.
fn chess_kind(kind: &EventKind) -> Option<ChessKind<'_>> {
    Some(match kind {
        EventKind::GameStart {
            position,
            chess960,
            rotated,
        } => ChessKind::GameStart {
            fen: position,
            chess960: chess960.unwrap_or(false),
            rotated: *rotated,
            position,
        },
        EventKind::Move {
            ply,
            side,
            notation,
            id,
            position,
            irregular,
        } => ChessKind::Move {
            ply: *ply,
            side: *side,
            san: notation,
            uci: id,
            fen: position,
            notation,
            id,
            position,
            irregular: *irregular,
        },
        EventKind::Provisional {
            ply,
            side,
            notation,
            id,
            position,
            withdrawn,
        } => ChessKind::Provisional {
            ply: *ply,
            side: *side,
            san: notation,
            uci: id,
            fen: position,
            notation,
            id,
            position,
            withdrawn: *withdrawn,
        },
        EventKind::Retract { ply, id } => ChessKind::Retract {
            ply: *ply,
            uci: id,
            id,
        },
        EventKind::Takeback { to_ply, position } => ChessKind::Takeback {
            to_ply: *to_ply,
            fen: position,
            position,
        },
        _ => return None,
    })
}

/// How an event is read.
#[derive(Deserialize)]
struct Read {
    board: String,
    t_ms: Millis,
    #[serde(default)]
    game: GameId,
    #[serde(flatten)]
    kind: EventKind,
}

impl<'de> Deserialize<'de> for Event {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Event, D::Error> {
        use serde::de::Error;
        let mut v = serde_json::Value::deserialize(d)?;
        // An event written before the generic fields existed: its chess
        // names give them.
        if let Some(map) = v.as_object_mut() {
            for (chess, generic) in [("san", "notation"), ("uci", "id"), ("fen", "position")] {
                if !map.contains_key(generic)
                    && let Some(value) = map.get(chess).cloned()
                {
                    map.insert(generic.to_owned(), value);
                }
            }
        }
        let read: Read = serde_json::from_value(v).map_err(D::Error::custom)?;
        Ok(Event {
            board: read.board,
            t_ms: read.t_ms,
            game: read.game,
            kind: read.kind,
        })
    }
}

impl Serialize for Alert {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Alert", 7)?;
        st.serialize_field("kind", &self.kind)?;
        if let Some(side) = &self.side {
            st.serialize_field("side", side)?;
        }
        if let Some(law) = &self.law {
            st.serialize_field("law", law)?;
        }
        st.serialize_field("message", &self.message)?;
        if self.cleared {
            st.serialize_field("cleared", &true)?;
        }
        st.serialize_field("severity", &self.kind.severity())?;
        if let Some(evidence) = &self.evidence {
            st.serialize_field("evidence", evidence)?;
        }
        st.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chess_move() -> Event {
        Event {
            board: "1".into(),
            t_ms: 5684,
            game: GameId::Chess,
            kind: EventKind::Move {
                ply: 1,
                side: Side::White,
                notation: "e4".into(),
                id: "e2e4".into(),
                position: "x".into(),
                irregular: false,
            },
        }
    }

    #[test]
    fn move_event_serialises_flat_with_type_tag() {
        let e = chess_move();
        let json = e.to_json();
        assert!(json.starts_with(r#"{"board":"1","t_ms":5684,"game":"chess","type":"move""#));
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["type"], "move");
        assert_eq!(v["board"], "1");
        assert_eq!(v["t_ms"], 5684);
        assert_eq!(v["side"], "white");
        assert!(v.get("irregular").is_none());
        let back: Event = serde_json::from_value(v).unwrap();
        assert_eq!(back, e);
    }

    #[test]
    fn chess_events_keep_the_chess_fields_and_gain_the_generic_ones() {
        let v: serde_json::Value = serde_json::from_str(&chess_move().to_json()).unwrap();
        assert_eq!(
            (&v["san"], &v["uci"], &v["fen"]),
            (&"e4".into(), &"e2e4".into(), &"x".into())
        );
        assert_eq!(
            (&v["notation"], &v["id"], &v["position"]),
            (&"e4".into(), &"e2e4".into(), &"x".into())
        );
        let start = Event {
            kind: EventKind::GameStart {
                position: "s".into(),
                chess960: Some(false),
                rotated: false,
            },
            ..chess_move()
        };
        let v: serde_json::Value = serde_json::from_str(&start.to_json()).unwrap();
        assert_eq!(
            (&v["fen"], &v["chess960"], &v["position"]),
            (&"s".into(), &false.into(), &"s".into())
        );
        let retract = Event {
            kind: EventKind::Retract {
                ply: 3,
                id: "g1f3".into(),
            },
            ..chess_move()
        };
        let v: serde_json::Value = serde_json::from_str(&retract.to_json()).unwrap();
        assert_eq!((&v["uci"], &v["id"]), (&"g1f3".into(), &"g1f3".into()));
    }

    #[test]
    fn other_games_events_never_carry_the_chess_fields() {
        let e = Event {
            board: "3".into(),
            t_ms: 10,
            game: GameId::Draughts,
            kind: EventKind::Move {
                ply: 1,
                side: Side::Black,
                notation: "11-15".into(),
                id: "11-15".into(),
                position: "W:W21,22:B15".into(),
                irregular: false,
            },
        };
        let v: serde_json::Value = serde_json::from_str(&e.to_json()).unwrap();
        assert_eq!(v["game"], "draughts");
        assert_eq!(v["id"], "11-15");
        assert!(v.get("san").is_none() && v.get("uci").is_none() && v.get("fen").is_none());
        let back: Event = serde_json::from_value(v).unwrap();
        assert_eq!(back, e);
        let end = Event {
            kind: EventKind::GameEnd {
                winner: None,
                result: "1-1".into(),
                reason: "r".into(),
            },
            ..e
        };
        let v: serde_json::Value = serde_json::from_str(&end.to_json()).unwrap();
        assert!(v["winner"].is_null());
    }

    #[test]
    fn an_event_written_before_the_generic_fields_reads_as_chess() {
        let old = r#"{"board":"1","t_ms":5,"type":"move","ply":1,"side":"white","san":"e4","uci":"e2e4","fen":"x"}"#;
        let e: Event = serde_json::from_str(old).unwrap();
        assert_eq!(
            e,
            Event {
                t_ms: 5,
                ..chess_move()
            }
        );
    }

    #[test]
    fn alert_serialises_kind_law_and_message() {
        let e = Event {
            board: "7".into(),
            t_ms: 1,
            game: GameId::Chess,
            kind: EventKind::Alert(Alert {
                kind: AlertKind::IllegalMove,
                side: Some(Side::Black),
                law: Some("7.5a".into()),
                message: "m".into(),
                cleared: false,
                evidence: None,
            }),
        };
        let v: serde_json::Value = serde_json::from_str(&e.to_json()).unwrap();
        assert_eq!(v["type"], "alert");
        assert_eq!(v["kind"], "illegal_move");
        assert_eq!(v["law"], "7.5a");
        assert!(v.get("cleared").is_none());
    }
}
