//! Board families behind one seam: a sans-IO [`Driver`] per wire protocol.
//!
//! Every family (DGT single board, DGT bus mode, Millennium ChessLink,
//! Certabo, the open protocol) is driven the same way by the port code:
//!
//! 1. open the device with the family's [`LineSettings`];
//! 2. write [`Driver::hello`] (identification, start of reporting);
//! 3. feed every byte read to [`Driver::feed`], which appends
//!    [`DriverEvent`]s: readings ([`Reading`]: a square's new content, a whole
//!    board, a clock, the board's identity) for one unit (a board; several on
//!    a DGT bus), input dropped, units missing from a bus and back;
//! 4. call [`Driver::poll`] at least every [`Driver::tick_ms`] and write what
//!    it returns (keepalives, bus polling).
//!
//! Drivers never touch a port, never sleep and never read a clock: time is
//! passed in, so a capture replays through a driver exactly as it ran live.
//! Boards that send whole snapshots (Millennium, Certabo, open `board`
//! lines) go through a [`SnapshotDiff`](boardcast_protocols::reading::SnapshotDiff):
//! the first snapshot is passed on whole, later ones as the squares that
//! changed.
//!
//! [`for_family`] is the entry point. Live, each line task (`crate::port`)
//! has one driver for its life: it opens the line, says the hello, keeps
//! the board alive, and decodes every byte once, handing each board of the
//! line the events ([`DriverEvent::concerns`]: its own unit's, and the
//! line's). `replay` makes the same driver for a capture and reopens it
//! where the capture says the line was opened ([`Driver::reopen`]), so it
//! reads the bytes as the line did. A DGT bus line is one line task with
//! a [`DgtBusDriver`]; each board takes its own address's readings.

mod certabo;
mod dgt;
mod dgt_bus;
mod millennium;
mod open;

use std::fmt;
use std::str::FromStr;

pub use boardcast_protocols::reading::Reading;

pub use self::certabo::CertaboDriver;
pub use self::dgt::DgtDriver;
pub use self::dgt_bus::{BusOptions, DgtBusDriver};
pub use self::millennium::MillenniumDriver;
pub use self::open::OpenDriver;

use crate::event::GameId;

/// The board families boardcast can read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// DGT e-boards, one per serial line (`dgt`).
    Dgt,
    /// DGT e-boards in bus mode, several on one line (`dgt-bus`).
    DgtBus,
    /// Millennium ChessLink (`millennium`).
    Millennium,
    /// Certabo RFID boards (`certabo`).
    Certabo,
    /// The open protocol (`open`).
    Open,
}

impl Family {
    /// Every family.
    pub const ALL: [Family; 5] = [
        Family::Dgt,
        Family::DgtBus,
        Family::Millennium,
        Family::Certabo,
        Family::Open,
    ];

    /// The name used in the config (`protocol = "..."`) and in capture
    /// headers (`protocol=...`).
    pub const fn name(self) -> &'static str {
        match self {
            Family::Dgt => "dgt",
            Family::DgtBus => "dgt-bus",
            Family::Millennium => "millennium",
            Family::Certabo => "certabo",
            Family::Open => "open",
        }
    }

    /// Parses the family named in a capture header: the names above, in
    /// any case, or one of the aliases other writers may use
    /// ([`Family::ALIASES`]). The config's `protocol` is parsed exactly
    /// ([`str::parse`]): a misspelling there is a mistake to report.
    pub fn from_header_name(name: &str) -> Option<Family> {
        // Design: captures may come from other programs; names that can
        // only mean one family are taken (`_` or a space for `-`, any
        // case, quotes around), nothing that could mean two.
        let name = name
            .trim_matches(|c| c == '"' || c == '\'')
            .to_ascii_lowercase()
            .replace(['_', ' '], "-");
        let name = name.as_str();
        Family::ALL
            .into_iter()
            .find(|f| f.name() == name)
            .or_else(|| {
                Family::ALIASES
                    .iter()
                    .find(|(alias, _)| *alias == name)
                    .map(|&(_, f)| f)
            })
    }

    /// Whether a board of this family can carry `game`: chess on every
    /// family, draughts on every 8 × 8 family (its 32 dark squares, read by
    /// occupancy), xiangqi on the open protocol only (a 9 × 10 grid). The
    /// error is one line, for the config and the capture header alike.
    pub fn carries(self, game: GameId) -> Result<(), CannotCarry> {
        match (game, self) {
            (GameId::Chess | GameId::Draughts, _) | (GameId::Xiangqi, Family::Open) => Ok(()),
            (GameId::Xiangqi, _) => Err(CannotCarry::Xiangqi(self)),
        }
    }

    /// Other names a capture header may give each family (compared in
    /// lower case, with `_` and spaces read as `-`).
    pub const ALIASES: &'static [(&'static str, Family)] = &[
        ("dgt-single", Family::Dgt),
        ("dgt-serial", Family::Dgt),
        ("dgt-usb", Family::Dgt),
        ("dgtbus", Family::DgtBus),
        ("dgt-busmode", Family::DgtBus),
        ("dgt-bus-mode", Family::DgtBus),
        ("millenium", Family::Millennium),
        ("chesslink", Family::Millennium),
        ("chess-link", Family::Millennium),
        ("millennium-chesslink", Family::Millennium),
        ("certabo-rfid", Family::Certabo),
        ("open-protocol", Family::Open),
        ("openboard", Family::Open),
        ("open-board", Family::Open),
    ];
}

/// A game a family's grid cannot carry ([`Family::carries`]); one line,
/// for the config and the capture header alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CannotCarry {
    /// Xiangqi on a family with an 8 × 8 grid.
    #[error(
        "a xiangqi board reads on `protocol = \"open\"` (the {0} protocol has an 8x8 grid; xiangqi needs 9x10)"
    )]
    Xiangqi(Family),
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

// What a capture header leaves unsaid, told by the families themselves
// (a `dgt` line that is a bus, a bus board, an open board's game).
pub use dgt_bus::{is_bus_line as is_dgt_bus_line, units as dgt_bus_units};
pub use open::board_game as open_board_game;

/// The open protocol's name of a game.
pub fn open_game(game: GameId) -> boardcast_protocols::open::Game {
    use boardcast_protocols::open::Game;
    match game {
        GameId::Chess => Game::Chess,
        GameId::Draughts => Game::Draughts,
        GameId::Xiangqi => Game::Xiangqi,
    }
}

/// A protocol name no family answers to.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown protocol `{0}` (known: dgt, dgt-bus, millennium, certabo, open)")]
pub struct UnknownFamily(pub String);

impl FromStr for Family {
    type Err = UnknownFamily;

    fn from_str(s: &str) -> Result<Family, UnknownFamily> {
        Family::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| UnknownFamily(s.to_owned()))
    }
}

/// Parity of the serial line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Parity {
    /// No parity bit.
    None,
    /// Odd parity.
    Odd,
    /// Even parity.
    Even,
}

/// How to open the serial line for a family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineSettings {
    /// Baud rate.
    pub baud: u32,
    /// Data bits (7 or 8).
    pub data_bits: u8,
    /// Parity.
    pub parity: Parity,
    /// Stop bits.
    pub stop_bits: u8,
    /// Assert DTR and RTS after opening (Certabo's CP210x bridge).
    pub dtr_rts: bool,
}

impl LineSettings {
    /// `baud` 8N1 without modem lines.
    pub const fn eight_n_one(baud: u32) -> LineSettings {
        LineSettings {
            baud,
            data_bits: 8,
            parity: Parity::None,
            stop_bits: 1,
            dtr_rts: false,
        }
    }
}

impl fmt::Display for LineSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parity = match self.parity {
            Parity::None => 'N',
            Parity::Odd => 'O',
            Parity::Even => 'E',
        };
        write!(
            f,
            "{} {}{}{}",
            self.baud, self.data_bits, parity, self.stop_bits
        )
    }
}

/// What a driver reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DriverEvent {
    /// A reading from one unit (0 on single-board lines; the bus address on
    /// a DGT bus).
    Reading {
        /// Which board on the line.
        unit: u16,
        /// What it read.
        reading: Reading,
    },
    /// Bytes that start no frame were skipped (DGT boards); nothing fatal,
    /// to be logged and counted.
    Skipped {
        /// How many bytes were skipped.
        bytes: usize,
    },
    /// Input was dropped (garbage, a bad checksum, a malformed frame or
    /// line); nothing fatal, to be logged and counted.
    Dropped {
        /// What was wrong, in a few words.
        reason: String,
        /// How many bytes were dropped.
        bytes: usize,
    },
    /// A unit stopped answering (DGT bus).
    UnitMissing {
        /// Its address.
        unit: u16,
    },
    /// A unit answers again, or answered for the first time (DGT bus).
    UnitFound {
        /// Its address.
        unit: u16,
    },
    /// An open-protocol board's `hello` named another game than the one it
    /// is read as ([`DriverOptions::open_game`]): its lines are still read
    /// as that one's.
    OtherGame {
        /// The game its `hello` names.
        said: String,
    },
    /// The move log a DGT board kept in its memory (single board: the
    /// EEPROM dump; bus: the changes since the start mark), oldest first,
    /// as neutral records.
    /// History, not live readings: the core uses it to explain, in order,
    /// what happened while it was not listening.
    Memory {
        /// Which board.
        unit: u16,
        /// The records.
        records: Vec<boardcast_protocols::reading::MemoryRecord>,
    },
}

impl DriverEvent {
    /// The board on the line this event is about; `None` for what
    /// concerns the whole line (input dropped, a game named).
    pub fn unit(&self) -> Option<u16> {
        match self {
            DriverEvent::Reading { unit, .. }
            | DriverEvent::Memory { unit, .. }
            | DriverEvent::UnitMissing { unit }
            | DriverEvent::UnitFound { unit } => Some(*unit),
            DriverEvent::Skipped { .. }
            | DriverEvent::Dropped { .. }
            | DriverEvent::OtherGame { .. } => None,
        }
    }

    /// Whether the board at `unit` (a DGT bus address; `None` for a board
    /// on its own line, which takes all) takes this event: every board of
    /// a line hears what concerns the whole line, and its own readings.
    pub fn concerns(&self, unit: Option<u16>) -> bool {
        match (unit, self.unit()) {
            (Some(mine), Some(its)) => mine == its,
            _ => true,
        }
    }
}

/// A board family's sans-IO driver.
pub trait Driver: Send + Sync + fmt::Debug {
    /// The family.
    fn family(&self) -> Family;

    /// How to open the line.
    fn line(&self) -> LineSettings;

    /// Bytes to write right after the line is opened (or reopened):
    /// identification and start of reporting. The decoder is left as it
    /// is: the caller says where the byte stream starts afresh
    /// ([`Driver::reopen`]).
    fn hello(&mut self, now_ms: u64) -> Vec<u8>;

    /// The line was opened (again), or the board is to be read whole
    /// again: a frame cut by the last connection is dropped and the next
    /// whole board is passed on whole. What was learnt of the board (a
    /// Certabo's calibration, a Millennium's square order, a bus's units)
    /// is kept.
    ///
    /// Design: decoding depends on the bytes from the board and on these
    /// calls only, never on what was written or when: a capture marks
    /// each one ([`Direction::Opened`](crate::capture::Direction::Opened)),
    /// so `replay` decodes its bytes exactly as the line did.
    fn reopen(&mut self);

    /// How often, at most, [`Driver::poll`] wants to be called.
    fn tick_ms(&self) -> u64;

    /// Bytes to write at `now_ms` (keepalives, bus polling), and events
    /// that time alone causes (a bus unit missing).
    fn poll(&mut self, now_ms: u64, out: &mut Vec<DriverEvent>) -> Vec<u8>;

    /// Bytes read from the board at `now_ms`; appends what they mean.
    fn feed(&mut self, now_ms: u64, bytes: &[u8], out: &mut Vec<DriverEvent>);

    /// The hello in two steps, for a family whose board must name itself
    /// before its reports start: `Some((ask, start))`, where `ask` asks
    /// for the identity (a [`Reading::Identity`] with a serial number is
    /// then required) and `start` starts the reports. `None` (the default):
    /// [`Driver::hello`] goes at once, and the board may name itself or
    /// not.
    fn identify_first(&mut self, _now_ms: u64) -> Option<(Vec<u8>, Vec<u8>)> {
        None
    }

    /// Asks `unit` for its memory (the move log it kept while nobody
    /// listened): the bytes to write now, or none when the driver sends
    /// the request itself at the unit's turn (a bus). Default: the family
    /// keeps no memory.
    fn request_memory_of(&mut self, _unit: u16) -> Vec<u8> {
        Vec::new()
    }

    /// Bytes read but not yet a whole frame (a message cut across reads):
    /// 0 when the next bytes start a frame.
    fn pending(&self) -> usize {
        0
    }

    /// Sets the keepalive to every `ms` (the operator's `serial.poll_ms`)
    /// for a family whose keepalive is a configured poll (DGT: the serial
    /// number); returns whether the driver took it. Default: the family
    /// keeps its own pace ([`Driver::tick_ms`]).
    fn set_keepalive_ms(&mut self, _ms: u64) -> bool {
        false
    }
}

/// Options a family may need beyond its defaults.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DriverOptions {
    /// DGT bus: the addresses expected on the line (more are discovered).
    pub bus: BusOptions,
    /// Millennium: the board's square order is fixed rather than detected
    /// from the start position (`Some(true)`: rotated, h1 first).
    pub millennium_rotated: Option<bool>,
    /// Certabo: the board reports occupancy only (Tabutronic).
    pub certabo_occupancy: bool,
    /// Open protocol: the game the board is read as, whatever its `hello`
    /// says (`None`: the `hello`'s game, chess until one comes).
    pub open_game: Option<boardcast_protocols::open::Game>,
}

/// The driver for `family`.
pub fn for_family(family: Family, options: &DriverOptions) -> Box<dyn Driver> {
    match family {
        Family::Dgt => Box::new(DgtDriver::new()),
        Family::DgtBus => Box::new(DgtBusDriver::new(options.bus.clone())),
        Family::Millennium => Box::new(MillenniumDriver::new(options.millennium_rotated)),
        Family::Certabo => Box::new(CertaboDriver::new(options.certabo_occupancy)),
        Family::Open => Box::new(match options.open_game {
            Some(game) => OpenDriver::for_game(game),
            None => OpenDriver::new(),
        }),
    }
}

/// A dropped-input event from a stream error.
fn dropped(e: &boardcast_protocols::stream::StreamError) -> DriverEvent {
    DriverEvent::Dropped {
        reason: e.to_string(),
        bytes: e.bytes().len(),
    }
}

/// Pushes the readings a snapshot stands for: the snapshot itself the first
/// time, then the squares that changed.
fn push_snapshot(
    diff: &mut boardcast_protocols::reading::SnapshotDiff,
    unit: u16,
    snapshot: boardcast_protocols::reading::Snapshot,
    out: &mut Vec<DriverEvent>,
) {
    use boardcast_protocols::reading::DiffOutcome;
    let mut changes = Vec::new();
    match diff.update(&snapshot, &mut changes) {
        DiffOutcome::First => out.push(DriverEvent::Reading {
            unit,
            reading: Reading::Snapshot(snapshot),
        }),
        DiffOutcome::Changed(_) => out.extend(changes.into_iter().map(|c| DriverEvent::Reading {
            unit,
            reading: Reading::Square(c),
        })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_has_a_name_that_parses_back_and_a_driver() {
        for family in Family::ALL {
            assert_eq!(family.name().parse::<Family>(), Ok(family));
            let driver = for_family(family, &DriverOptions::default());
            assert_eq!(driver.family(), family);
            assert!(driver.tick_ms() > 0);
        }
        assert_eq!(
            "chesslink".parse::<Family>().unwrap_err().to_string(),
            "unknown protocol `chesslink` (known: dgt, dgt-bus, millennium, certabo, open)"
        );
    }

    #[test]
    fn line_settings_print_like_a_terminal_program() {
        assert_eq!(LineSettings::eight_n_one(9600).to_string(), "9600 8N1");
        let seven_odd = LineSettings {
            data_bits: 7,
            parity: Parity::Odd,
            ..LineSettings::eight_n_one(38400)
        };
        assert_eq!(seven_odd.to_string(), "38400 7O1");
    }
}
