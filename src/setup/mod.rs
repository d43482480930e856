//! What a board is, as the configuration or a capture header declares it:
//! the one place that turns either into a pipeline, so that `boardcast
//! run` and `boardcast replay` read a board the same way, and the words
//! the recorder writes on a capture's header line are the ones replay
//! reads back.

use crate::capture::Header;
use crate::clock::TimeControl;
use crate::event::GameId;
use crate::family::DriverOptions;
use crate::family::Family;
use crate::games::GameOptions;
use crate::games::chess::Variant;
use boardcast_rules::xiangqi::repetition::MoveLimit;

pub mod config;

/// The capture header key naming a DGT bus board's address.
pub const BUS_UNIT: &str = "unit";
/// The capture header key naming the board's id.
pub const BOARD: &str = "board";
/// The capture header key naming the game a board plays (written for
/// boards of games other than chess; absent means chess, or for an
/// open-protocol capture, the game its `hello` names).
pub const GAME: &str = "game";
/// The capture header key of the event's xiangqi move limit (`60/6`,
/// `none`), written for xiangqi boards when the event sets one.
pub const MOVE_LIMIT: &str = "move_limit";
/// The capture header key of the event's chess variant (`standard`,
/// `chess960`), written when the event restricts it.
pub const VARIANT: &str = "variant";
/// The capture header key of a Certabo board that senses occupancy only
/// (Tabutronic): `occupancy=yes`.
pub const OCCUPANCY: &str = "occupancy";
/// The capture header key of a time control (`40/5400:1800+30`).
pub const TIME_CONTROL: &str = "time_control";
/// The capture header key of the increment's kind (`bronstein`, `delay`),
/// read with [`TIME_CONTROL`].
pub const INCREMENT_MODE: &str = "increment_mode";

/// The capture header key of a capture slice's game: the FEN of its
/// start position, spaces written `_` (see [`GameRecordWords`]).
pub const START: &str = "start";
/// The capture header key of a capture slice's moves: their ids (UCI,
/// draughts paths, ICCS), comma-separated, played from [`START`].
pub const MOVES: &str = "moves";
/// The capture header key saying the board stands turned round
/// (`rotated=yes`), with [`START`].
pub const ROTATED: &str = "rotated";
/// The capture header key of the time (ms) the slice takes its game up at.
pub const AT: &str = "at";

/// What is wrong with a capture's header line (the board it declares,
/// the game a slice takes up); one line that names the word.
#[derive(Debug, thiserror::Error)]
pub enum HeaderError {
    /// A DGT bus capture without its board's address.
    #[error("a dgt-bus capture names its board's address (`{BUS_UNIT}=N`)")]
    NoBusUnit,
    /// A time control that does not read.
    #[error(transparent)]
    TimeControl(#[from] crate::clock::TimeControlError),
    /// A game this version does not know.
    #[error("`{GAME}={0}`: unknown game (chess, draughts or xiangqi)")]
    UnknownGame(String),
    /// A game the capture's family cannot carry.
    #[error("`{GAME}=`: {0}")]
    Game(#[from] crate::family::CannotCarry),
    /// A chess variant that does not read.
    #[error("`{VARIANT}={given}`: {error}")]
    Variant {
        /// The word as given.
        given: String,
        /// Why it does not read.
        error: crate::games::chess::UnknownVariant,
    },
    /// A xiangqi move limit that does not read.
    #[error("`{MOVE_LIMIT}={given}`: {error}")]
    MoveLimit {
        /// The word as given.
        given: String,
        /// Why it does not read.
        error: boardcast_rules::xiangqi::repetition::MoveLimitError,
    },
    /// A slice's `at=` that is not a number of milliseconds.
    #[error("`{AT}={0}`: expected milliseconds")]
    At(String),
}

/// A game taken up from a capture slice's header line: the board shows
/// the position `moves` reach from `start` when the slice begins.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameRecordWords {
    /// The start position's FEN.
    pub start: String,
    /// The moves' ids, in order.
    pub moves: Vec<String>,
    /// The board stands turned round.
    pub rotated: bool,
    /// When (capture ms) the game is taken up.
    pub at: crate::event::Millis,
}

impl GameRecordWords {
    /// The words of a capture header (`None` without `start=`).
    pub fn of_header(header: &Header) -> Result<Option<GameRecordWords>, HeaderError> {
        let Some(start) = header.word(START) else {
            return Ok(None);
        };
        let moves = header
            .word(MOVES)
            .map(|m| {
                m.split(',')
                    .filter(|id| !id.is_empty())
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        let at = match header.word(AT) {
            Some(t) => t.parse().map_err(|_| HeaderError::At(t.to_string()))?,
            None => 0,
        };
        Ok(Some(GameRecordWords {
            start: start.replace('_', " "),
            moves,
            rotated: header.word(ROTATED) == Some("yes"),
            at,
        }))
    }

    /// The `key=value` words that say it on a header line.
    pub fn header_words(&self) -> Vec<(String, String)> {
        let mut words = vec![
            (START.to_string(), self.start.replace(' ', "_")),
            (MOVES.to_string(), self.moves.join(",")),
            (AT.to_string(), self.at.to_string()),
        ];
        if self.rotated {
            words.push((ROTATED.to_string(), "yes".to_string()));
        }
        words
    }
}

/// One board's declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct BoardSetup {
    /// The board id (topics, events, file names).
    pub id: String,
    /// Its wire protocol (and so its family's driver).
    pub protocol: Family,
    /// Its address on a DGT bus: `Some` exactly for `dgt-bus` boards,
    /// whose bytes are the whole line's.
    pub bus_unit: Option<u16>,
    /// The time control its games are played to, when known.
    pub time_control: Option<TimeControl>,
    /// The game played on it.
    pub game: GameId,
    /// The rules the event fixes for its games (chess variant, xiangqi
    /// move limit).
    pub options: GameOptions,
    /// A Certabo board that senses occupancy only (Tabutronic).
    pub occupancy: bool,
}

impl BoardSetup {
    /// Board `id` of `protocol` playing `game` under the event's default
    /// options, with no bus address and no known time control.
    pub fn new(id: impl Into<String>, protocol: Family, game: GameId) -> BoardSetup {
        BoardSetup {
            id: id.into(),
            protocol,
            bus_unit: None,
            time_control: None,
            game,
            options: GameOptions::default(),
            occupancy: false,
        }
    }

    /// The board a `[[board]]` table of the configuration declares.
    pub fn of_config(board: &config::Board) -> BoardSetup {
        BoardSetup {
            id: board.id.clone(),
            protocol: board.protocol,
            bus_unit: board.bus_address,
            time_control: board.time_control.clone(),
            game: board.game,
            options: board.options,
            occupancy: board.occupancy,
        }
    }

    /// The board a capture's header line declares: `protocol=`, `board=`
    /// (`1` when absent), `unit=` (required for `dgt-bus`), and
    /// `time_control=` with `increment_mode=`. The error says what is
    /// wrong with the header line.
    pub fn of_header(header: &Header) -> Result<BoardSetup, HeaderError> {
        let meta = |key: &str| header.word(key).map(str::to_string);
        // A DGT bus capture holds the whole line: `unit=` names the board.
        let bus_unit = match header.protocol {
            Family::DgtBus => Some(
                meta(BUS_UNIT)
                    .and_then(|u| u.parse::<u16>().ok())
                    .ok_or(HeaderError::NoBusUnit)?,
            ),
            _ => None,
        };
        let time_control = match meta(TIME_CONTROL) {
            Some(tc) => {
                let text = match meta(INCREMENT_MODE) {
                    Some(mode) => format!("{tc} {mode}"),
                    None => tc,
                };
                Some(TimeControl::parse(&text)?)
            }
            None => None,
        };
        let game = match meta(GAME).as_deref() {
            None => GameId::Chess,
            Some(name) => {
                GameId::from_name(name).ok_or_else(|| HeaderError::UnknownGame(name.to_string()))?
            }
        };
        header.protocol.carries(game)?;
        let variant = match meta(VARIANT) {
            Some(v) => v
                .parse::<Variant>()
                .map_err(|error| HeaderError::Variant { given: v, error })?,
            None => Variant::default(),
        };
        let move_limit = match meta(MOVE_LIMIT) {
            Some(l) => Some(
                l.parse::<MoveLimit>()
                    .map_err(|error| HeaderError::MoveLimit { given: l, error })?,
            ),
            None => None,
        };
        Ok(BoardSetup {
            id: meta(BOARD).unwrap_or_else(|| "1".into()),
            game,
            options: GameOptions {
                variant,
                move_limit,
            },
            occupancy: header.protocol == Family::Certabo
                && meta(OCCUPANCY).as_deref() == Some("yes"),
            protocol: header.protocol,
            bus_unit,
            time_control,
        })
    }

    /// The `key=value` words the recorder writes on the header line beside
    /// `protocol=`, `board=` and the session's own, for
    /// [`BoardSetup::of_header`] to read back (`unit=` on a DGT bus).
    pub fn header_words(&self) -> Vec<(String, String)> {
        let game =
            (self.game != GameId::Chess).then(|| (GAME.to_string(), self.game.name().into()));
        let limit = self
            .options
            .move_limit
            .filter(|_| self.game == GameId::Xiangqi)
            .map(|l| (MOVE_LIMIT.to_string(), l.to_string()));
        let variant = (self.game == GameId::Chess && self.options.variant != Variant::default())
            .then(|| (VARIANT.to_string(), self.options.variant.name().into()));
        let occupancy = self
            .occupancy
            .then(|| (OCCUPANCY.to_string(), "yes".to_string()));
        self.bus_unit
            .map(|a| (BUS_UNIT.to_string(), a.to_string()))
            .into_iter()
            .chain(game)
            .chain(limit)
            .chain(variant)
            .chain(occupancy)
            .collect()
    }

    /// The options of this board's driver.
    pub fn driver_options(&self) -> DriverOptions {
        DriverOptions {
            certabo_occupancy: self.occupancy,
            open_game: Some(crate::family::open_game(self.game)),
            ..DriverOptions::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(protocol: Family, words: &[(&str, &str)]) -> Header {
        Header {
            protocol,
            meta: words
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    #[test]
    fn the_words_a_recorder_writes_are_read_back_as_the_same_board() {
        let setup = BoardSetup {
            id: "b7".into(),
            protocol: Family::DgtBus,
            bus_unit: Some(7),
            time_control: None,
            game: GameId::Chess,
            options: GameOptions::default(),
            occupancy: false,
        };
        let mut words = vec![(BOARD.to_string(), setup.id.clone())];
        words.extend(setup.header_words());
        let back = BoardSetup::of_header(&Header {
            protocol: setup.protocol,
            meta: words,
        })
        .unwrap();
        assert_eq!(back, setup);
        let draughts = BoardSetup {
            id: "d1".into(),
            protocol: Family::Open,
            bus_unit: None,
            time_control: None,
            game: GameId::Draughts,
            options: GameOptions::default(),
            occupancy: false,
        };
        let mut words = vec![(BOARD.to_string(), draughts.id.clone())];
        words.extend(draughts.header_words());
        assert!(words.contains(&(GAME.to_string(), "draughts".to_string())));
        let back = BoardSetup::of_header(&Header {
            protocol: Family::Open,
            meta: words,
        })
        .unwrap();
        assert_eq!(back, draughts);
        assert_eq!(
            crate::pipeline::BoardPipeline::new(&back, crate::track::Config::default()).game(),
            GameId::Draughts
        );
        let err = BoardSetup::of_header(&header(Family::Dgt, &[("game", "xiangqi")])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "`game=`: a xiangqi board reads on `protocol = \"open\"` (the dgt protocol has an 8x8 grid; xiangqi needs 9x10)"
        );
        // Draughts on an 8x8 vendor board, by occupancy (a Tabutronic
        // Certabo says so on its header).
        let tabutronic = BoardSetup::of_header(&header(
            Family::Certabo,
            &[("game", "draughts"), ("occupancy", "yes")],
        ))
        .unwrap();
        assert_eq!(
            (tabutronic.game, tabutronic.occupancy),
            (GameId::Draughts, true)
        );
        assert!(
            tabutronic
                .header_words()
                .contains(&(OCCUPANCY.to_string(), "yes".to_string()))
        );
        // A chess event restricted to one variant says so, for replay to
        // read the board as the daemon did.
        let standard = BoardSetup {
            options: GameOptions {
                variant: Variant::Standard,
                ..GameOptions::default()
            },
            ..BoardSetup::of_header(&header(Family::Dgt, &[])).unwrap()
        };
        let back = BoardSetup::of_header(&Header {
            protocol: Family::Dgt,
            meta: standard.header_words(),
        })
        .unwrap();
        assert_eq!(back.options.variant, Variant::Standard);
        // A xiangqi board carries the event's move limit (Art. 6).
        let xiangqi = BoardSetup {
            id: "x1".into(),
            protocol: Family::Open,
            bus_unit: None,
            time_control: None,
            game: GameId::Xiangqi,
            options: GameOptions {
                move_limit: Some("50/10".parse().unwrap()),
                ..GameOptions::default()
            },
            occupancy: false,
        };
        let mut words = vec![(BOARD.to_string(), xiangqi.id.clone())];
        words.extend(xiangqi.header_words());
        assert!(words.contains(&(MOVE_LIMIT.to_string(), "50/10".to_string())));
        let back = BoardSetup::of_header(&Header {
            protocol: Family::Open,
            meta: words,
        })
        .unwrap();
        assert_eq!(back, xiangqi);
        let err = BoardSetup::of_header(&header(
            Family::Open,
            &[("game", "xiangqi"), ("move_limit", "lots")],
        ))
        .unwrap_err()
        .to_string();
        assert!(err.contains("move_limit=lots"), "{err}");
    }

    #[test]
    fn a_header_without_board_is_board_one_and_a_bus_needs_its_unit() {
        let plain = BoardSetup::of_header(&header(Family::Millennium, &[])).unwrap();
        assert_eq!((plain.id.as_str(), plain.bus_unit), ("1", None));
        let err = BoardSetup::of_header(&header(Family::DgtBus, &[("board", "x")]))
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "a dgt-bus capture names its board's address (`unit=N`)"
        );
        let tc = BoardSetup::of_header(&header(
            Family::Dgt,
            &[("time_control", "5400+30"), ("increment_mode", "bronstein")],
        ))
        .unwrap();
        assert!(tc.time_control.is_some());
        assert!(BoardSetup::of_header(&header(Family::Dgt, &[("time_control", "soon")])).is_err());
    }
}
