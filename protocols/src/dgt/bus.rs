//! DGT bus mode: several boards on one serial line (as DGT LiveChess uses).
//!
//! Boards power up in bus mode. The host addresses one board (or all, with
//! address 0) with a 4-byte request `<cmd> <addr hi7> <addr lo7> <sum>`; the
//! board answers with `<id> <len hi7> <len lo7> <addr hi7> <addr lo7>
//! <data...> <sum>`, where the length counts the whole frame and every
//! checksum is the sum of the preceding bytes of the frame, masked to 7 bits.
//! A board's address is the numeric value of its serial number (serial
//! `01025` answers to address 1025).
//!
//! Reply ids overlap the single-board ids (0x86 is a board dump in
//! single-board mode but "changes since start" here), so a line in bus mode
//! needs [`BusDecoder`], not [`Decoder`](super::Decoder).
//!
//! Only the reply id carries the top bit, so the decoder resynchronises as
//! the single-board one does; a frame whose checksum does not match is
//! dropped and reported ([`StreamError::BadChecksum`]): the host should ask
//! again (`RepeatChanges` after a lost `SendChanges`).

use bytes::{Buf, BytesMut};

use super::clock::{ClockAck, ClockTimes, is_ack_payload};
use super::eeprom::EeRecord;
use super::piece::PieceCode;
use crate::reading::{Identity, Reading, SquareChange};
use crate::stream::{Counters, MAX_REPORTED, StreamError};

/// Largest bus address (14 bits).
pub const MAX_ADDRESS: u16 = 0x3fff;

/// Largest total frame length.
pub const MAX_BUS_FRAME: usize = 0x3fff;

/// Header length: id, two length bytes, two address bytes.
const HEADER: usize = 5;

/// Sum of `bytes` masked to 7 bits.
fn checksum(bytes: &[u8]) -> u8 {
    (bytes.iter().map(|&b| u32::from(b)).sum::<u32>() & 0x7f) as u8
}

/// A host → board bus command.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum BusCommand {
    /// Send the clock.
    SendClock = 0x81,
    /// Send the whole board.
    SendBoard = 0x82,
    /// Send the changes since the last request.
    SendChanges = 0x83,
    /// Send the previous changes again (after a checksum error).
    RepeatChanges = 0x84,
    /// Mark the start of a game in the board's memory.
    SetStartGame = 0x85,
    /// Send every change since the start mark.
    SendFromStart = 0x86,
    /// Answer with a ping (address 0: every board, at a random time within
    /// 1100 ms).
    Ping = 0x87,
    /// Leave bus mode.
    EndBusMode = 0x88,
    /// Reset.
    Reset = 0x89,
    /// Do not answer the next broadcast ping (discovery of the others).
    IgnoreNextPing = 0x8a,
    /// Send the firmware version.
    SendVersion = 0x8b,
    /// Send the draughts 50-square board.
    SendBoard50 = 0x8c,
    /// Send changes, clock and board.
    SendAll = 0x8d,
}

impl BusCommand {
    /// Every command, in code order.
    pub const ALL: [BusCommand; 13] = [
        BusCommand::SendClock,
        BusCommand::SendBoard,
        BusCommand::SendChanges,
        BusCommand::RepeatChanges,
        BusCommand::SetStartGame,
        BusCommand::SendFromStart,
        BusCommand::Ping,
        BusCommand::EndBusMode,
        BusCommand::Reset,
        BusCommand::IgnoreNextPing,
        BusCommand::SendVersion,
        BusCommand::SendBoard50,
        BusCommand::SendAll,
    ];

    /// The command with wire code `b`.
    pub fn from_u8(b: u8) -> Option<BusCommand> {
        BusCommand::ALL.iter().copied().find(|c| *c as u8 == b)
    }
}

/// A command addressed to one board (or to all with address 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BusRequest {
    /// What to do.
    pub command: BusCommand,
    /// Which board (0 = every board); 14 bits.
    pub address: u16,
}

impl BusRequest {
    /// The four bytes on the wire.
    pub fn to_bytes(self) -> [u8; 4] {
        let a = self.address & MAX_ADDRESS;
        let head = [self.command as u8, (a >> 7) as u8, (a & 0x7f) as u8];
        [head[0], head[1], head[2], checksum(&head)]
    }
}

/// Host → board bus decoder (for simulated boards).
#[derive(Debug, Default)]
pub struct BusRequestDecoder {
    counters: Counters,
}

impl BusRequestDecoder {
    /// A decoder at the start of a stream.
    pub fn new() -> BusRequestDecoder {
        BusRequestDecoder::default()
    }

    /// What the decoder has seen so far.
    pub fn counters(&self) -> Counters {
        self.counters
    }

    /// Takes one request off the front of `buf` (`Ok(None)`: wait for more
    /// bytes, nothing consumed; errors consumed bytes, call again).
    pub fn decode(&mut self, buf: &mut BytesMut) -> Result<Option<BusRequest>, StreamError> {
        let result = decode_request(buf);
        self.counters.count(&result);
        result
    }
}

fn decode_request(buf: &mut BytesMut) -> Result<Option<BusRequest>, StreamError> {
    let Some(&first) = buf.first() else {
        return Ok(None);
    };
    let Some(command) = BusCommand::from_u8(first) else {
        return Err(skip(buf, next_top_bit(buf, 1)));
    };
    let have = buf.len().min(4);
    if let Some(at) = buf[1..have].iter().position(|&b| b & 0x80 != 0) {
        return Err(skip(buf, at + 1));
    }
    if buf.len() < 4 {
        return Ok(None);
    }
    if checksum(&buf[..3]) != buf[3] {
        return Err(StreamError::BadChecksum {
            bytes: buf.split_to(4).to_vec(),
        });
    }
    let address = u16::from(buf[1]) << 7 | u16::from(buf[2]);
    buf.advance(4);
    Ok(Some(BusRequest { command, address }))
}

/// Reply ids as they appear on the wire.
pub mod bus_msg {
    /// Whole board (64 piece codes).
    pub const BOARD_DUMP: u8 = 0x83;
    /// Clock (7 bytes as in single-board mode).
    pub const BWTIME: u8 = 0x84;
    /// Changes since the last request (EEPROM records).
    pub const UPDATE: u8 = 0x85;
    /// Changes since the start mark (EEPROM records).
    pub const FROM_START: u8 = 0x86;
    /// Ping answer (no data).
    pub const PING: u8 = 0x87;
    /// Start mark written (no data).
    pub const START_GAME_WRITTEN: u8 = 0x88;
    /// Firmware version (major, minor).
    pub const VERSION: u8 = 0x89;
    /// Draughts 50-square board.
    pub const BOARD_DUMP_50B: u8 = 0x8a;
}

/// What a bus reply carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BusBody {
    /// The whole board, a8 first.
    BoardDump(Box<[PieceCode; 64]>),
    /// Clock times.
    ClockTimes(ClockTimes),
    /// Clock acknowledgement.
    ClockAck(ClockAck),
    /// Changes since the last request, oldest first.
    Changes(Vec<EeRecord>),
    /// Changes since the start mark, oldest first.
    FromStart(Vec<EeRecord>),
    /// Ping answer.
    Ping,
    /// The start mark was written.
    StartGameWritten,
    /// Firmware version.
    Version {
        /// Major.
        major: u8,
        /// Minor.
        minor: u8,
    },
    /// Draughts 50-square dump, raw (50 bytes).
    BoardDump50(Vec<u8>),
}

/// A board → host bus reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BusMessage {
    /// The answering board's address.
    pub address: u16,
    /// What it says.
    pub body: BusBody,
}

/// Fixed total frame lengths (`None`: variable).
fn bus_frame_len(id: u8) -> Option<Option<usize>> {
    Some(match id {
        bus_msg::BOARD_DUMP => Some(HEADER + 64 + 1),
        bus_msg::BWTIME => Some(HEADER + 7 + 1),
        bus_msg::UPDATE | bus_msg::FROM_START => None,
        bus_msg::PING | bus_msg::START_GAME_WRITTEN => Some(HEADER + 1),
        bus_msg::VERSION => Some(HEADER + 2 + 1),
        bus_msg::BOARD_DUMP_50B => Some(HEADER + 50 + 1),
        _ => return None,
    })
}

impl BusMessage {
    /// The whole frame as a board sends it. Values that do not fit are
    /// masked to 7 bits; a record list too long for one frame is cut at a
    /// record boundary.
    pub fn to_bytes(&self) -> Vec<u8> {
        let (id, data): (u8, Vec<u8>) = match &self.body {
            BusBody::BoardDump(p) => (bus_msg::BOARD_DUMP, p.iter().map(|c| c.to_u8()).collect()),
            BusBody::ClockTimes(t) => (bus_msg::BWTIME, t.to_payload().to_vec()),
            BusBody::ClockAck(a) => (bus_msg::BWTIME, a.to_payload().to_vec()),
            BusBody::Changes(r) => (bus_msg::UPDATE, records(r)),
            BusBody::FromStart(r) => (bus_msg::FROM_START, records(r)),
            BusBody::Ping => (bus_msg::PING, Vec::new()),
            BusBody::StartGameWritten => (bus_msg::START_GAME_WRITTEN, Vec::new()),
            BusBody::Version { major, minor } => (bus_msg::VERSION, vec![*major, *minor]),
            BusBody::BoardDump50(d) => {
                let mut d: Vec<u8> = d.iter().take(50).copied().collect();
                d.resize(50, 0);
                (bus_msg::BOARD_DUMP_50B, d)
            }
        };
        let len = HEADER + data.len() + 1;
        let a = self.address & MAX_ADDRESS;
        let mut out = vec![
            id,
            (len >> 7) as u8 & 0x7f,
            (len & 0x7f) as u8,
            (a >> 7) as u8,
            (a & 0x7f) as u8,
        ];
        out.extend(data.iter().map(|b| b & 0x7f));
        out.push(checksum(&out));
        out
    }

    /// The readings this reply stands for, in order: a dump is a snapshot,
    /// each piece change of a change list a square change, the clock a
    /// clock reading, a ping or version the board's identity (its serial
    /// number is its address, five digits).
    pub fn readings(&self) -> Vec<Reading> {
        let serial = || Some(format!("{:05}", self.address));
        match &self.body {
            BusBody::BoardDump(d) => vec![Reading::Snapshot(super::snapshot(d))],
            BusBody::ClockTimes(t) => t.reading().into_iter().collect(),
            BusBody::ClockAck(_) => Vec::new(),
            BusBody::Changes(r) | BusBody::FromStart(r) => r
                .iter()
                .filter_map(|rec| match rec {
                    EeRecord::PieceChange { field, piece, .. } => {
                        Some(Reading::Square(SquareChange {
                            square: field.square(),
                            content: piece.content(),
                        }))
                    }
                    _ => None,
                })
                .collect(),
            BusBody::Ping | BusBody::StartGameWritten => vec![Reading::Identity(Identity {
                serial: serial(),
                ..Identity::default()
            })],
            BusBody::Version { major, minor } => vec![Reading::Identity(Identity {
                serial: serial(),
                version: Some(format!("{major}.{minor:02}")),
                name: None,
            })],
            BusBody::BoardDump50(_) => Vec::new(),
        }
    }
}

fn records(records: &[EeRecord]) -> Vec<u8> {
    let mut out = Vec::new();
    for r in records {
        if HEADER + out.len() + r.encoded_len() + 1 > MAX_BUS_FRAME {
            break;
        }
        r.write_to(&mut out);
    }
    out
}

/// Board → host bus decoder.
///
/// ```
/// use boardcast_protocols::dgt::bus::{BusBody, BusDecoder, BusMessage};
/// use bytes::BytesMut;
///
/// // "Nothing changed" from the board at address 0x0350 (as a DGT Centaur's
/// // controller answers).
/// let mut buf = BytesMut::from(&[0x85, 0x00, 0x06, 0x06, 0x50, 0x61][..]);
/// let message = BusDecoder::new().decode(&mut buf).unwrap();
/// assert_eq!(
///     message,
///     Some(BusMessage { address: 0x0350, body: BusBody::Changes(vec![]) })
/// );
/// ```
#[derive(Debug, Default)]
pub struct BusDecoder {
    counters: Counters,
}

impl BusDecoder {
    /// A decoder at the start of a stream.
    pub fn new() -> BusDecoder {
        BusDecoder::default()
    }

    /// What the decoder has seen so far.
    pub fn counters(&self) -> Counters {
        self.counters
    }

    /// Takes one reply off the front of `buf`: `Ok(None)` when more bytes
    /// are needed (nothing consumed); errors consumed bytes (call again).
    pub fn decode(&mut self, buf: &mut BytesMut) -> Result<Option<BusMessage>, StreamError> {
        let result = decode_message(buf);
        self.counters.count(&result);
        result
    }
}

fn decode_message(buf: &mut BytesMut) -> Result<Option<BusMessage>, StreamError> {
    let Some(&id) = buf.first() else {
        return Ok(None);
    };
    let Some(fixed) = bus_frame_len(id) else {
        return Err(skip(buf, next_top_bit(buf, 1)));
    };
    let head_end = buf.len().min(HEADER);
    if let Some(at) = buf[1..head_end].iter().position(|&b| b & 0x80 != 0) {
        return Err(skip(buf, at + 1));
    }
    if buf.len() < HEADER {
        return Ok(None);
    }
    let len = usize::from(buf[1]) << 7 | usize::from(buf[2]);
    let len_ok = match fixed {
        Some(n) => len == n,
        None => len > HEADER,
    };
    if !len_ok {
        return Err(StreamError::Malformed {
            reason: "wrong length for this bus message",
            bytes: buf.split_to(HEADER).to_vec(),
        });
    }
    let have = buf.len().min(len);
    if let Some(at) = buf[HEADER..have].iter().position(|&b| b & 0x80 != 0) {
        return Err(skip(buf, HEADER + at));
    }
    if buf.len() < len {
        return Ok(None);
    }
    if checksum(&buf[..len - 1]) != buf[len - 1] {
        return Err(StreamError::BadChecksum {
            bytes: buf.split_to(len).to_vec(),
        });
    }
    let address = u16::from(buf[3]) << 7 | u16::from(buf[4]);
    let data = &buf[HEADER..len - 1];
    let body = match id {
        bus_msg::BOARD_DUMP => {
            let mut pieces = Box::new([PieceCode::Empty; 64]);
            for (slot, &b) in pieces.iter_mut().zip(data) {
                match PieceCode::from_u8(b) {
                    Some(p) => *slot = p,
                    None => {
                        return Err(StreamError::Malformed {
                            reason: "piece code above 15 in bus board dump",
                            bytes: buf.split_to(len).to_vec(),
                        });
                    }
                }
            }
            BusBody::BoardDump(pieces)
        }
        bus_msg::BWTIME => {
            let mut p = [0u8; 7];
            p.copy_from_slice(data);
            if is_ack_payload(&p) {
                BusBody::ClockAck(ClockAck::from_payload(p))
            } else {
                BusBody::ClockTimes(ClockTimes::from_payload(p))
            }
        }
        bus_msg::UPDATE => BusBody::Changes(EeRecord::parse_all(data)),
        bus_msg::FROM_START => BusBody::FromStart(EeRecord::parse_all(data)),
        bus_msg::PING => BusBody::Ping,
        bus_msg::START_GAME_WRITTEN => BusBody::StartGameWritten,
        bus_msg::VERSION => BusBody::Version {
            major: data[0],
            minor: data[1],
        },
        _ => BusBody::BoardDump50(data.to_vec()),
    };
    buf.advance(len);
    Ok(Some(BusMessage { address, body }))
}

/// Position of the first byte at or after `from` with its top bit set, or
/// the buffer's length.
fn next_top_bit(buf: &[u8], from: usize) -> usize {
    buf.iter()
        .skip(from)
        .position(|&b| b & 0x80 != 0)
        .map_or(buf.len(), |i| i + from)
}

fn skip(buf: &mut BytesMut, n: usize) -> StreamError {
    let n = n.clamp(1, MAX_REPORTED).min(buf.len());
    StreamError::Skipped {
        bytes: buf.split_to(n).to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dgt::Field;
    use crate::reading::{Content, Square};

    fn decode_all(bytes: &[u8]) -> (Vec<BusMessage>, Vec<StreamError>) {
        let mut decoder = BusDecoder::new();
        let mut buf = BytesMut::from(bytes);
        let mut out = Vec::new();
        let mut errors = Vec::new();
        loop {
            let before = buf.len();
            match decoder.decode(&mut buf) {
                Ok(Some(m)) => out.push(m),
                Ok(None) => break,
                Err(e) => errors.push(e),
            }
            assert!(buf.len() < before);
        }
        (out, errors)
    }

    #[test]
    fn requests_match_the_published_checksums() {
        // dgtbrd.h: 81 10 06 -> checksum 0x17.
        let req = BusRequest {
            command: BusCommand::SendClock,
            address: 0x10 << 7 | 0x06,
        };
        assert_eq!(req.to_bytes(), [0x81, 0x10, 0x06, 0x17]);
        // DGT Centaur controller: send changes to 06 50 -> 0x59.
        let req = BusRequest {
            command: BusCommand::SendChanges,
            address: 0x06 << 7 | 0x50,
        };
        assert_eq!(req.to_bytes(), [0x83, 0x06, 0x50, 0x59]);
        let mut buf = BytesMut::from(&[0x00, 0x83, 0x06, 0x50, 0x59, 0x87, 0, 0, 0x07][..]);
        let mut decoder = BusRequestDecoder::new();
        assert!(matches!(
            decoder.decode(&mut buf),
            Err(StreamError::Skipped { .. })
        ));
        assert_eq!(decoder.decode(&mut buf), Ok(Some(req)));
        assert_eq!(
            decoder.decode(&mut buf),
            Ok(Some(BusRequest {
                command: BusCommand::Ping,
                address: 0
            }))
        );
    }

    #[test]
    fn recorded_empty_change_list_decodes_and_re_encodes() {
        let bytes = [0x85, 0x00, 0x06, 0x06, 0x50, 0x61];
        let (messages, errors) = decode_all(&bytes);
        assert!(errors.is_empty());
        assert_eq!(messages[0].to_bytes(), bytes);
        assert!(messages[0].readings().is_empty());
    }

    #[test]
    fn change_lists_become_square_readings_in_order() {
        let e2 = Field::new(52).unwrap();
        let e4 = Field::new(36).unwrap();
        let message = BusMessage {
            address: 1025,
            body: BusBody::Changes(vec![
                EeRecord::PieceChange {
                    field: e2,
                    piece: PieceCode::Empty,
                    rapid: false,
                },
                EeRecord::Time {
                    left_display: true,
                    hours: 1,
                    minutes: 2,
                    seconds: 3,
                },
                EeRecord::PieceChange {
                    field: e4,
                    piece: PieceCode::WhitePawn,
                    rapid: true,
                },
            ]),
        };
        let (messages, _) = decode_all(&message.to_bytes());
        assert_eq!(messages, std::slice::from_ref(&message));
        let readings = message.readings();
        assert_eq!(readings.len(), 2);
        assert_eq!(
            readings[1],
            Reading::Square(SquareChange {
                square: Square::new(4, 3),
                content: Content::Piece(crate::reading::Piece::from_letter('P').unwrap())
            })
        );
    }

    #[test]
    fn bad_checksum_is_dropped_and_the_next_reply_decodes() {
        let mut bytes = vec![0x87, 0x00, 0x06, 0x08, 0x01, 0x00];
        let ping = BusMessage {
            address: 1025,
            body: BusBody::Ping,
        };
        bytes.extend(ping.to_bytes());
        let (messages, errors) = decode_all(&bytes);
        assert_eq!(messages, [ping]);
        assert!(matches!(&errors[..], [StreamError::BadChecksum { .. }]));
        assert_eq!(
            messages[0].readings(),
            [Reading::Identity(Identity {
                serial: Some("01025".into()),
                ..Identity::default()
            })]
        );
    }

    #[test]
    fn single_board_ids_and_wrong_lengths_are_not_bus_replies() {
        // A single-board field update (0x8e) is garbage on a bus line; a
        // ping with a wrong length is malformed.
        let mut bytes = vec![0x8e, 0x00, 0x05, 0x34, 0x00, 0x87, 0x00, 0x07, 0x00, 0x01];
        let version = BusMessage {
            address: 7,
            body: BusBody::Version { major: 3, minor: 1 },
        };
        bytes.extend(version.to_bytes());
        let (messages, errors) = decode_all(&bytes);
        assert_eq!(messages, [version]);
        assert_eq!(errors.len(), 2);
        assert_eq!(errors[0].skipped_count(), 5);
        assert!(matches!(errors[1], StreamError::Malformed { .. }));
    }
}
