//! The `[[board]]` tables: each board's id, family, ports or bus
//! address, game and options, checked for duplicates across the file.

use std::ops::Range;

use serde::Deserialize;
use toml::Spanned;

use crate::config_file::{ConfigError, Source};
use crate::family::Family;
use crate::text::{MAX_BOARD_NUMBER, check_text};
use crate::tournament::config::Event;

/// What is wrong with one `[[board]]` on its own or beside the boards
/// before it; one line that names the board.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BoardError {
    /// An empty `id`.
    #[error("board id is empty")]
    EmptyId,
    /// An `id` with other characters than letters, digits, `-` and `_`.
    #[error("board id `{0}` may only hold letters, digits, '-' and '_'")]
    IdCharacters(String),
    /// An empty `port`, or an empty entry in its list.
    #[error("board `{0}`: port is empty")]
    EmptyPort(String),
    /// A board number another board has.
    #[error("board `{id}`: number {number} is also board `{other}`'s")]
    NumberTaken {
        /// The board.
        id: String,
        /// Its number.
        number: u32,
        /// The board before it with that number.
        other: String,
    },
    /// A board number out of range.
    #[error("board `{id}`: number {number} is out of range (1 to {MAX_BOARD_NUMBER})")]
    NumberOutOfRange {
        /// The board.
        id: String,
        /// Its number.
        number: u32,
    },
    /// A port another board has (a fixed path, or candidates shared
    /// without serial numbers to tell the boards apart).
    #[error(
        "board `{id}`: port `{port}` is also board `{other}`'s{}",
        if *fixed { "" } else { " (give both boards their `serial` to share candidates)" }
    )]
    PortTaken {
        /// The board.
        id: String,
        /// The port.
        port: String,
        /// The board before it with that port.
        other: String,
        /// Whether the port is one fixed path.
        fixed: bool,
    },
    /// A bus address another board on the same line has.
    #[error("board `{id}`: bus address {address} on port `{port}` is also board `{other}`'s")]
    BusAddressTaken {
        /// The board.
        id: String,
        /// Its bus address.
        address: u16,
        /// The line's candidates, comma-separated.
        port: String,
        /// The board before it with that address.
        other: String,
    },
    /// Two speeds on one bus line.
    #[error(
        "board `{id}`: baud {baud} differs from board `{other}`'s ({other_baud}) on the same bus line"
    )]
    BaudDiffers {
        /// The board.
        id: String,
        /// Its speed.
        baud: u32,
        /// The board before it on the line.
        other: String,
        /// That board's speed.
        other_baud: u32,
    },
    /// An id or player name that is not allowed ([`check_text`]).
    #[error(transparent)]
    Text(#[from] crate::text::TextError),
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
    check_board_id(&id).map_err(|m| src.invalid(Some(id_span.clone()), m.to_string()))?;
    if before.iter().any(|b| b.id == id) {
        return Err(src.invalid(Some(id_span), format!("board id `{id}` is given twice")));
    }
    let port_span = rb.port.span();
    let candidates = port_candidates(&id, rb.port.into_inner(), src)
        .map_err(|m| src.invalid(Some(port_span.clone()), m.to_string()))?;
    let serial = rb.serial.map(|s| (s.span(), s.into_inner()));
    let protocol = protocol(&id, rb.protocol, src)?;
    let game = board_game(&id, rb.game, protocol).map_err(|(span, m)| src.invalid(span, m))?;
    let occupancy =
        occupancy(&id, rb.occupancy, protocol).map_err(|(span, m)| src.invalid(span, m))?;
    check_ports(&id, &candidates, serial.is_some(), protocol, before)
        .map_err(|m| src.invalid(Some(port_span.clone()), m.to_string()))?;
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
    check_number(&id, number, before)
        .map_err(|m| src.invalid(Some(port_span.clone()), m.to_string()))?;
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
            .map_err(|m| src.invalid(Some(port_span.clone()), m.to_string()))?;
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
    check_board_text(&board).map_err(|m| src.invalid(None, m.to_string()))?;
    Ok(board)
}

/// A board's `protocol`, DGT when not given.
fn protocol(id: &str, raw: Option<Spanned<String>>, src: &Source) -> Result<Family, ConfigError> {
    let Some(p) = raw else {
        return Ok(Family::Dgt);
    };
    p.get_ref().parse::<Family>().map_err(|_| {
        src.invalid(
            Some(p.span()),
            format!("board `{id}`: unknown protocol `{}`", p.get_ref()),
        )
    })
}

/// A board's number, unless a board before it has it.
fn check_number(id: &str, number: u32, before: &[Board]) -> Result<(), BoardError> {
    match before.iter().find(|b| b.number == number) {
        Some(other) => Err(BoardError::NumberTaken {
            id: id.to_string(),
            number,
            other: other.id.clone(),
        }),
        None => Ok(()),
    }
}

/// A board's port candidates (one path or pattern, or a list), resolved
/// against the config file's directory; an error message when one is
/// empty.
fn port_candidates(id: &str, ports: RawPorts, src: &Source) -> Result<Vec<String>, BoardError> {
    let candidates: Vec<String> = match ports {
        RawPorts::One(p) => vec![p],
        RawPorts::Many(v) => v,
    };
    if candidates.is_empty() || candidates.iter().any(|c| c.trim().is_empty()) {
        return Err(BoardError::EmptyPort(id.to_string()));
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
fn check_board_text(board: &Board) -> Result<(), BoardError> {
    check_text(&format!("board `{}` id", board.id), Some(&board.id))?;
    for (side, name) in [("white", &board.white), ("black", &board.black)] {
        check_text(&format!("board `{}` {side}", board.id), name.as_deref())?;
    }
    if !(1..=MAX_BOARD_NUMBER).contains(&board.number) {
        return Err(BoardError::NumberOutOfRange {
            id: board.id.clone(),
            number: board.number,
        });
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
) -> Result<(), BoardError> {
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
            return Err(BoardError::PortTaken {
                id: id.to_string(),
                port: c.clone(),
                other: other.id.clone(),
                fixed,
            });
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
) -> Result<(), BoardError> {
    for b in before.iter().filter(|b| b.port.candidates == candidates) {
        if b.bus_address == Some(address) {
            return Err(BoardError::BusAddressTaken {
                id: id.to_string(),
                address,
                port: candidates.join(", "),
                other: b.id.clone(),
            });
        }
        if b.baud != baud {
            return Err(BoardError::BaudDiffers {
                id: id.to_string(),
                baud,
                other: b.id.clone(),
                other_baud: b.baud,
            });
        }
    }
    Ok(())
}

fn check_board_id(id: &str) -> Result<(), BoardError> {
    if id.is_empty() {
        return Err(BoardError::EmptyId);
    }
    if !id
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(BoardError::IdCharacters(id.to_string()));
    }
    Ok(())
}
