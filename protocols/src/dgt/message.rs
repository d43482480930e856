//! Board → host messages: their ids, their payloads and their encoding.
//!
//! Every message is `id, len_hi, len_lo, payload...` where the id has its top
//! bit set, the 14-bit length counts the whole frame (header included) and
//! is split into two 7-bit bytes, and no payload byte has its top bit set.

use super::battery::BatteryStatus;
use super::clock::{ClockAck, ClockTimes, is_ack_payload};
use super::eeprom::EeRecord;
use super::field::Field;
use super::piece::PieceCode;

/// Largest total frame length the 14-bit length field can express.
pub const MAX_FRAME_LEN: usize = 0x3fff;

/// Length of the frame header (id and two length bytes).
pub(crate) const HEADER_LEN: usize = 3;

/// Largest payload a frame can carry.
const MAX_PAYLOAD_LEN: usize = MAX_FRAME_LEN - HEADER_LEN;

/// Message ids as they appear on the wire (top bit already set).
pub mod msg {
    /// Board dump: 64 piece codes (67 bytes in all).
    pub const BOARD_DUMP: u8 = 0x86;
    /// Clock times or clock acknowledgement (DGT_MSG_BWTIME, 10 bytes).
    pub const BWTIME: u8 = 0x8d;
    /// One square changed (5 bytes).
    pub const FIELD_UPDATE: u8 = 0x8e;
    /// The EEPROM move log (variable; 0x1f03 bytes on current boards).
    pub const EE_MOVES: u8 = 0x8f;
    /// Bus address (5 bytes).
    pub const BUS_ADDRESS: u8 = 0x90;
    /// Five-character serial number (8 bytes).
    pub const SERIAL_NUMBER: u8 = 0x91;
    /// Trademark text (variable).
    pub const TRADEMARK: u8 = 0x92;
    /// Firmware version (5 bytes).
    pub const VERSION: u8 = 0x93;
    /// Draughts board dump, 50 squares (53 bytes); not decoded.
    pub const BOARD_DUMP_50B: u8 = 0x94;
    /// Draughts board dump, 50 squares, other orientation (53 bytes); not decoded.
    pub const BOARD_DUMP_50W: u8 = 0x95;
    /// Battery status (12 bytes).
    pub const BATTERY_STATUS: u8 = 0xa0;
    /// Ten-character serial number (13 bytes).
    pub const LONG_SERIAL_NUMBER: u8 = 0xa2;
}

/// How long a frame with a given id must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FrameLen {
    /// Exactly this many bytes, header included.
    Fixed(usize),
    /// Anything from the bare header up to [`MAX_FRAME_LEN`].
    Variable,
}

/// The frame length rule for an id this crate decodes, or `None` for ids it
/// treats as garbage.
pub(crate) fn frame_len(id: u8) -> Option<FrameLen> {
    Some(match id {
        msg::BOARD_DUMP => FrameLen::Fixed(HEADER_LEN + 64),
        msg::BWTIME => FrameLen::Fixed(HEADER_LEN + 7),
        msg::FIELD_UPDATE => FrameLen::Fixed(HEADER_LEN + 2),
        msg::EE_MOVES => FrameLen::Variable,
        msg::BUS_ADDRESS => FrameLen::Fixed(HEADER_LEN + 2),
        msg::SERIAL_NUMBER => FrameLen::Fixed(HEADER_LEN + 5),
        msg::TRADEMARK => FrameLen::Variable,
        msg::VERSION => FrameLen::Fixed(HEADER_LEN + 2),
        msg::BATTERY_STATUS => FrameLen::Fixed(HEADER_LEN + BatteryStatus::PAYLOAD_LEN),
        msg::LONG_SERIAL_NUMBER => FrameLen::Fixed(HEADER_LEN + 10),
        _ => return None,
    })
}

/// A message from the board to the host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Message {
    /// The whole board; the array index is the [`Field`] index (0 = a8).
    BoardDump(Box<[PieceCode; 64]>),
    /// One square changed.
    FieldUpdate {
        /// The square.
        field: Field,
        /// What is on it now ([`PieceCode::Empty`] when a piece was lifted).
        piece: PieceCode,
    },
    /// The clock's times and status.
    ClockTimes(ClockTimes),
    /// The clock acknowledged a command or reports an event.
    ClockAck(ClockAck),
    /// The five-character serial number.
    SerialNumber(String),
    /// The ten-character serial number (last character least significant).
    LongSerialNumber(String),
    /// The board's firmware version, e.g. 1.02 is `major: 1, minor: 2`.
    Version {
        /// Major version (1 on a Pegasus).
        major: u8,
        /// Minor version.
        minor: u8,
    },
    /// Free ASCII text naming the maker (may contain CR/LF line breaks).
    Trademark(String),
    /// The 14-bit bus address; it equals the numeric value of the serial number.
    BusAddress(u16),
    /// Battery state (Bluetooth boards, Pegasus).
    BatteryStatus(BatteryStatus),
    /// The EEPROM move log, oldest record first.
    EeMoves(Vec<EeRecord>),
}

impl Message {
    /// The id byte this message is sent with.
    pub fn id(&self) -> u8 {
        match self {
            Message::BoardDump(_) => msg::BOARD_DUMP,
            Message::FieldUpdate { .. } => msg::FIELD_UPDATE,
            Message::ClockTimes(_) | Message::ClockAck(_) => msg::BWTIME,
            Message::SerialNumber(_) => msg::SERIAL_NUMBER,
            Message::LongSerialNumber(_) => msg::LONG_SERIAL_NUMBER,
            Message::Version { .. } => msg::VERSION,
            Message::Trademark(_) => msg::TRADEMARK,
            Message::BusAddress(_) => msg::BUS_ADDRESS,
            Message::BatteryStatus(_) => msg::BATTERY_STATUS,
            Message::EeMoves(_) => msg::EE_MOVES,
        }
    }

    /// The whole frame exactly as a board sends it.
    ///
    /// The wire can only carry 7-bit payload bytes, so values that do not fit
    /// are made to fit rather than producing an invalid frame:
    /// numbers are masked to 7 bits (the bus address to 14), non-ASCII
    /// characters become `?`, serial numbers are cut or padded with spaces to
    /// 5 or 10 characters, and a trademark or EEPROM log too long for one
    /// frame is cut (the log only at a record boundary). Such values do not
    /// decode back unchanged; everything a [`Decoder`](crate::dgt::Decoder)
    /// produces does.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut payload = Vec::new();
        match self {
            Message::BoardDump(pieces) => payload.extend(pieces.iter().map(|p| p.to_u8())),
            Message::FieldUpdate { field, piece } => {
                payload.extend([field.index(), piece.to_u8()]);
            }
            Message::ClockTimes(times) => payload.extend(times.to_payload()),
            Message::ClockAck(ack) => payload.extend(ack.to_payload()),
            Message::SerialNumber(s) => push_fixed_ascii(&mut payload, s, 5),
            Message::LongSerialNumber(s) => push_fixed_ascii(&mut payload, s, 10),
            Message::Version { major, minor } => payload.extend([major & 0x7f, minor & 0x7f]),
            Message::Trademark(s) => {
                payload.extend(s.chars().map(ascii_byte).take(MAX_PAYLOAD_LEN));
            }
            Message::BusAddress(addr) => {
                payload.extend([((addr >> 7) & 0x7f) as u8, (addr & 0x7f) as u8]);
            }
            Message::BatteryStatus(status) => payload.extend(status.to_payload()),
            Message::EeMoves(records) => {
                for record in records {
                    if payload.len() + record.encoded_len() > MAX_PAYLOAD_LEN {
                        break;
                    }
                    record.write_to(&mut payload);
                }
            }
        }
        let len = HEADER_LEN + payload.len();
        let mut out = Vec::with_capacity(len);
        out.push(self.id());
        out.push(((len >> 7) & 0x7f) as u8);
        out.push((len & 0x7f) as u8);
        out.extend(payload);
        out
    }
}

fn ascii_byte(c: char) -> u8 {
    if c.is_ascii() { c as u8 } else { b'?' }
}

fn push_fixed_ascii(out: &mut Vec<u8>, s: &str, width: usize) {
    out.extend(
        s.chars()
            .map(ascii_byte)
            .chain(std::iter::repeat(b' '))
            .take(width),
    );
}

fn ascii_string(payload: &[u8]) -> String {
    payload.iter().map(|&b| char::from(b)).collect()
}

/// Turns the payload of a frame with a known id into a message.
///
/// The caller has checked that the frame length matches [`frame_len`] and
/// that no payload byte has its top bit set.
pub(crate) fn decode_payload(id: u8, p: &[u8]) -> Result<Message, &'static str> {
    Ok(match id {
        msg::BOARD_DUMP => {
            let mut pieces = Box::new([PieceCode::Empty; 64]);
            for (slot, &b) in pieces.iter_mut().zip(p) {
                *slot = PieceCode::from_u8(b).ok_or("piece code above 15 in board dump")?;
            }
            Message::BoardDump(pieces)
        }
        msg::FIELD_UPDATE => Message::FieldUpdate {
            field: Field::new(p[0]).ok_or("field index above 63")?,
            // Bits 4..6 are reserved (a later "S bit" may live there).
            piece: PieceCode::from_u8(p[1] & 0x0f).ok_or("piece code above 15")?,
        },
        msg::BWTIME => {
            let payload: [u8; 7] = p.try_into().map_err(|_| "clock payload is not 7 bytes")?;
            if is_ack_payload(&payload) {
                Message::ClockAck(ClockAck::from_payload(payload))
            } else {
                Message::ClockTimes(ClockTimes::from_payload(payload))
            }
        }
        msg::EE_MOVES => Message::EeMoves(EeRecord::parse_all(p)),
        msg::BUS_ADDRESS => Message::BusAddress(u16::from(p[0]) << 7 | u16::from(p[1])),
        msg::SERIAL_NUMBER => Message::SerialNumber(ascii_string(p)),
        msg::TRADEMARK => Message::Trademark(ascii_string(p)),
        msg::VERSION => Message::Version {
            major: p[0],
            minor: p[1],
        },
        msg::BATTERY_STATUS => {
            let payload: [u8; 9] = p.try_into().map_err(|_| "battery payload is not 9 bytes")?;
            Message::BatteryStatus(BatteryStatus::from_payload(payload))
        }
        msg::LONG_SERIAL_NUMBER => Message::LongSerialNumber(ascii_string(p)),
        _ => return Err("unsupported message id"),
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::dgt::clock::{ClockSide, ClockStatus};

    fn start_position() -> Box<[PieceCode; 64]> {
        use PieceCode::*;
        let back_black = [
            BlackRook,
            BlackKnight,
            BlackBishop,
            BlackQueen,
            BlackKing,
            BlackBishop,
            BlackKnight,
            BlackRook,
        ];
        let back_white = [
            WhiteRook,
            WhiteKnight,
            WhiteBishop,
            WhiteQueen,
            WhiteKing,
            WhiteBishop,
            WhiteKnight,
            WhiteRook,
        ];
        let mut board = Box::new([Empty; 64]);
        board[0..8].copy_from_slice(&back_black);
        board[8..16].fill(BlackPawn);
        board[48..56].fill(WhitePawn);
        board[56..64].copy_from_slice(&back_white);
        board
    }

    /// The board dump of the start position, as the board sends it.
    pub(crate) fn start_position_bytes() -> Vec<u8> {
        let mut bytes = vec![0x86, 0x00, 0x43];
        bytes.extend([0x08, 0x09, 0x0a, 0x0c, 0x0b, 0x0a, 0x09, 0x08]);
        bytes.extend([0x07; 8]);
        bytes.extend([0x00; 32]);
        bytes.extend([0x01; 8]);
        bytes.extend([0x02, 0x03, 0x04, 0x06, 0x05, 0x04, 0x03, 0x02]);
        bytes
    }

    /// Decodes a frame that is known to be complete and valid.
    fn decode_frame(bytes: &[u8]) -> Message {
        let len = usize::from(bytes[1]) << 7 | usize::from(bytes[2]);
        assert_eq!(len, bytes.len());
        decode_payload(bytes[0], &bytes[HEADER_LEN..]).unwrap()
    }

    fn assert_both_ways(message: Message, bytes: &[u8]) {
        assert_eq!(message.to_bytes(), bytes, "encoding {message:?}");
        assert_eq!(decode_frame(bytes), message, "decoding {bytes:02x?}");
    }

    #[test]
    fn start_position_dump_encodes_and_decodes() {
        let bytes = start_position_bytes();
        assert_eq!(bytes.len(), 67);
        assert_both_ways(Message::BoardDump(start_position()), &bytes);
    }

    #[test]
    fn white_king_is_on_e1_in_the_start_dump() {
        let Message::BoardDump(board) = decode_frame(&start_position_bytes()) else {
            panic!("not a dump");
        };
        let e1 = Field::from_file_rank(4, 0).unwrap();
        let d8 = Field::from_file_rank(3, 7).unwrap();
        assert_eq!(board[usize::from(e1.index())], PieceCode::WhiteKing);
        assert_eq!(board[usize::from(d8.index())], PieceCode::BlackQueen);
    }

    #[test]
    fn dump_with_a_code_above_15_is_rejected() {
        let mut payload = vec![0u8; 64];
        payload[10] = 0x10;
        assert!(decode_payload(msg::BOARD_DUMP, &payload).is_err());
    }

    #[test]
    fn lifting_e2_and_placing_on_e4_are_two_field_updates() {
        let e2 = Field::from_file_rank(4, 1).unwrap();
        let e4 = Field::from_file_rank(4, 3).unwrap();
        assert_both_ways(
            Message::FieldUpdate {
                field: e2,
                piece: PieceCode::Empty,
            },
            &[0x8e, 0x00, 0x05, 0x34, 0x00],
        );
        assert_both_ways(
            Message::FieldUpdate {
                field: e4,
                piece: PieceCode::WhitePawn,
            },
            &[0x8e, 0x00, 0x05, 0x24, 0x01],
        );
    }

    #[test]
    fn field_update_ignores_reserved_bits_and_rejects_bad_fields() {
        assert_eq!(
            decode_payload(msg::FIELD_UPDATE, &[0x00, 0x71]).unwrap(),
            Message::FieldUpdate {
                field: Field::new(0).unwrap(),
                piece: PieceCode::WhitePawn
            }
        );
        assert!(decode_payload(msg::FIELD_UPDATE, &[0x40, 0x01]).is_err());
    }

    #[test]
    fn clock_times_example_encodes_and_decodes() {
        let times = ClockTimes {
            right: ClockSide {
                hours: 1,
                minutes: 30,
                seconds: 0,
                ..ClockSide::default()
            },
            left: ClockSide {
                hours: 1,
                minutes: 29,
                seconds: 59,
                ..ClockSide::default()
            },
            status: ClockStatus {
                running: true,
                right_to_move: true,
                ..ClockStatus::default()
            },
        };
        assert_both_ways(
            Message::ClockTimes(times),
            &[0x8d, 0x00, 0x0a, 0x01, 0x30, 0x00, 0x01, 0x29, 0x59, 0x09],
        );
    }

    #[test]
    fn all_zero_clock_message_decodes_to_all_zero_times() {
        let message = decode_frame(&[0x8d, 0x00, 0x0a, 0, 0, 0, 0, 0, 0, 0]);
        let Message::ClockTimes(times) = message else {
            panic!("not times");
        };
        assert!(times.is_all_zero());
    }

    #[test]
    fn clock_ack_for_display_command_encodes_and_decodes() {
        assert_both_ways(
            Message::ClockAck(ClockAck::new([0x10, 0x01, 0x00, 0x00])),
            &[0x8d, 0x00, 0x0a, 0x0a, 0x10, 0x01, 0x0a, 0x00, 0x00, 0x00],
        );
    }

    #[test]
    fn clock_ack_with_top_bits_encodes_and_decodes() {
        // Button pressed: ack1 = 0x88 needs its top bit in p3 bit 5.
        assert_both_ways(
            Message::ClockAck(ClockAck::new([0x10, 0x88, 0x05, 0x31])),
            &[0x8d, 0x00, 0x0a, 0x0a, 0x10, 0x08, 0x2a, 0x05, 0x31, 0x00],
        );
    }

    #[test]
    fn ack_marker_in_p3_alone_is_enough() {
        let message = decode_frame(&[0x8d, 0x00, 0x0a, 0x00, 0x10, 0x09, 0x0a, 0x21, 0x00, 0x00]);
        let Message::ClockAck(ack) = message else {
            panic!("not an ack");
        };
        assert_eq!(ack.version(), Some((2, 1)));
    }

    #[test]
    fn serial_numbers_encode_and_decode() {
        assert_both_ways(
            Message::SerialNumber("01025".into()),
            &[0x91, 0x00, 0x08, b'0', b'1', b'0', b'2', b'5'],
        );
        assert_both_ways(
            Message::LongSerialNumber("3.25001000".into()),
            b"\xa2\x00\x0d3.25001000",
        );
    }

    #[test]
    fn serial_numbers_of_the_wrong_width_are_padded_or_cut() {
        assert_eq!(
            Message::SerialNumber("12".into()).to_bytes(),
            b"\x91\x00\x0812   "
        );
        assert_eq!(
            Message::SerialNumber("1234567".into()).to_bytes(),
            b"\x91\x00\x0812345"
        );
        assert_eq!(
            Message::SerialNumber("12é45".into()).to_bytes(),
            b"\x91\x00\x0812?45"
        );
    }

    #[test]
    fn bus_address_of_serial_01025_is_08_01() {
        assert_both_ways(Message::BusAddress(1025), &[0x90, 0x00, 0x05, 0x08, 0x01]);
    }

    #[test]
    fn version_encodes_and_decodes() {
        assert_both_ways(
            Message::Version { major: 1, minor: 2 },
            &[0x93, 0x00, 0x05, 0x01, 0x02],
        );
    }

    #[test]
    fn trademark_encodes_and_decodes_including_line_breaks() {
        let text = "Digital Game Technology\r\nCopyright (c) 2021 DGT";
        let mut bytes = vec![0x92, 0x00, (3 + text.len()) as u8];
        bytes.extend(text.as_bytes());
        assert_both_ways(Message::Trademark(text.into()), &bytes);
        assert_both_ways(Message::Trademark(String::new()), &[0x92, 0x00, 0x03]);
    }

    #[test]
    fn long_trademark_uses_both_length_bytes() {
        let text = "x".repeat(200);
        let bytes = Message::Trademark(text.clone()).to_bytes();
        assert_eq!(&bytes[..3], &[0x92, 0x01, 0x4b]); // 203 = 1 * 128 + 75
        assert_eq!(decode_frame(&bytes), Message::Trademark(text));
    }

    #[test]
    fn oversized_trademark_is_cut_to_the_largest_frame() {
        let bytes = Message::Trademark("y".repeat(20_000)).to_bytes();
        assert_eq!(bytes.len(), MAX_FRAME_LEN);
        assert_eq!(&bytes[..3], &[0x92, 0x7f, 0x7f]);
    }

    #[test]
    fn pegasus_battery_fixture_encodes_and_decodes() {
        let status = BatteryStatus {
            percent: 88,
            status: 0x02,
            ..BatteryStatus::default()
        };
        assert_both_ways(
            Message::BatteryStatus(status),
            &[0xa0, 0x00, 0x0c, 0x58, 0, 0, 0, 0, 0, 0, 0, 0x02],
        );
    }

    #[test]
    fn ee_moves_encode_and_decode() {
        let records = vec![
            EeRecord::Nop,
            EeRecord::PowerUp,
            EeRecord::PieceChange {
                field: Field::new(4).unwrap(),
                piece: PieceCode::BlackKing,
                rapid: true,
            },
            EeRecord::Time {
                left_display: false,
                hours: 0,
                minutes: 5,
                seconds: 0,
            },
            EeRecord::Eof,
        ];
        assert_both_ways(
            Message::EeMoves(records),
            &[
                0x8f, 0x00, 0x0b, 0x7f, 0x6a, 0x5b, 0x04, 0x60, 0x05, 0x00, 0x6b,
            ],
        );
    }

    #[test]
    fn full_size_ee_moves_frame_is_0x1f03_bytes() {
        let mut records = vec![EeRecord::Nop; 0x1eff];
        records.push(EeRecord::Eof);
        let bytes = Message::EeMoves(records.clone()).to_bytes();
        assert_eq!(bytes.len(), 0x1f03);
        assert_eq!(&bytes[..3], &[0x8f, 0x3e, 0x03]);
        assert_eq!(decode_frame(&bytes), Message::EeMoves(records));
    }

    #[test]
    fn oversized_ee_log_is_cut_at_a_record_boundary() {
        let records = vec![
            EeRecord::Time {
                left_display: true,
                hours: 1,
                minutes: 2,
                seconds: 3
            };
            6000
        ];
        let bytes = Message::EeMoves(records).to_bytes();
        // 16380 payload bytes hold exactly 5460 three-byte records.
        assert_eq!(bytes.len(), 3 + 5460 * 3);
        assert!(bytes.len() <= MAX_FRAME_LEN);
    }

    #[test]
    fn every_message_id_has_a_length_rule() {
        for id in [
            msg::BOARD_DUMP,
            msg::BWTIME,
            msg::FIELD_UPDATE,
            msg::EE_MOVES,
            msg::BUS_ADDRESS,
            msg::SERIAL_NUMBER,
            msg::TRADEMARK,
            msg::VERSION,
            msg::BATTERY_STATUS,
            msg::LONG_SERIAL_NUMBER,
        ] {
            assert!(frame_len(id).is_some(), "id {id:02x}");
        }
        assert_eq!(frame_len(msg::BOARD_DUMP_50B), None);
        assert_eq!(frame_len(0x80), None);
    }
}
