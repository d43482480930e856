//! Records of the board's EEPROM move log (payload of the EE_MOVES message).
//!
//! The log is a ring buffer the board writes by itself. Each record starts
//! with a tag byte that tells its kind and length:
//!
//! | Tag | Bytes | Record |
//! |---|---|---|
//! | `0x40..=0x5f` | 2 | piece change: `010r cccc` then field `00ff ffff` (see below) |
//! | `0x60..=0x69`, `0x70..=0x79` | 3 | time: `011f hhhh`, BCD minutes, BCD seconds |
//! | `0x6a` | 1 | power up |
//! | `0x6b` | 1 | end of the log |
//! | `0x6c` | 1 | four full rows that are not the start position |
//! | `0x6d` | 1 | empty board |
//! | `0x6e` | 1 | log was downloaded |
//! | `0x6f` | 1 | start position |
//! | `0x7a` | 1 | start position, board turned round |
//! | `0x7b` | 1 | start tag |
//! | `0x7c` | 1 | watchdog fired |
//! | `0x7f`, `0x00` | 1 | no operation |
//!
//! Anything else is kept as [`EeRecord::Unknown`].
//!
//! Piece changes occupy tags 0x40 to 0x5f, so bit 5 is always clear in them;
//! the "rapid" flag is therefore read from bit 4 and the piece code from the
//! low nibble. (One description of the format places the flag in bit 5, which
//! would collide with the time records; the tag range is what other drivers
//! agree on.)

use super::clock::{from_bcd_strict, to_bcd};
use super::field::Field;
use super::piece::PieceCode;

/// One record of the EEPROM move log.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EeRecord {
    /// A piece was put on (or, with [`PieceCode::Empty`], taken off) a square.
    PieceChange {
        /// The square.
        field: Field,
        /// What is on it now.
        piece: PieceCode,
        /// Less than about 250 ms passed since the previous record.
        rapid: bool,
    },
    /// Clock time written when the lever moved. Sides are physical and are
    /// not swapped for a turned board.
    Time {
        /// The time is the left display's (false = right display).
        left_display: bool,
        /// Hours, 0..=9.
        hours: u8,
        /// Minutes (binary; BCD on the wire).
        minutes: u8,
        /// Seconds (binary; BCD on the wire).
        seconds: u8,
    },
    /// The board was switched on.
    PowerUp,
    /// End of the log; always the last record of a dump.
    Eof,
    /// Sixteen pieces stand on files a, b, g and h but not in the start
    /// position (a hint for Chess960).
    FourRows,
    /// The board became empty.
    EmptyBoard,
    /// The log was downloaded by a host.
    Downloaded,
    /// The start position was set up.
    BeginPos,
    /// The start position was set up with the board turned round.
    BeginPosRotated,
    /// A start tag.
    StartTag,
    /// The board's watchdog fired.
    WatchdogAction,
    /// Filler (tag 0x7f, or 0x00 which is read the same way).
    Nop,
    /// A byte that does not start a valid record: a reserved tag, or the tag
    /// of a record that is cut off or holds impossible values. Decoding
    /// continues with the next byte.
    Unknown(u8),
}

mod tag {
    pub(super) const POWER_UP: u8 = 0x6a;
    pub(super) const EOF: u8 = 0x6b;
    pub(super) const FOUR_ROWS: u8 = 0x6c;
    pub(super) const EMPTY_BOARD: u8 = 0x6d;
    pub(super) const DOWNLOADED: u8 = 0x6e;
    pub(super) const BEGIN_POS: u8 = 0x6f;
    pub(super) const BEGIN_POS_ROT: u8 = 0x7a;
    pub(super) const START_TAG: u8 = 0x7b;
    pub(super) const WATCHDOG_ACTION: u8 = 0x7c;
    pub(super) const NOP: u8 = 0x7f;
    pub(super) const NOP2: u8 = 0x00;
}

impl EeRecord {
    /// Reads every record of an EE_MOVES payload. Never fails: bytes that do
    /// not form a record become [`EeRecord::Unknown`], one byte each.
    pub fn parse_all(mut data: &[u8]) -> Vec<EeRecord> {
        let mut records = Vec::new();
        while let Some((record, used)) = Self::parse_one(data) {
            records.push(record);
            data = &data[used..];
        }
        records
    }

    /// Reads the record at the start of `data`: the record and the number of
    /// bytes it used, or `None` if `data` is empty.
    pub fn parse_one(data: &[u8]) -> Option<(EeRecord, usize)> {
        let &first = data.first()?;
        let single = |r| Some((r, 1));
        match first {
            0x40..=0x5f => {
                let piece = PieceCode::from_u8(first & 0x0f);
                let field = data.get(1).and_then(|&b| Field::new(b));
                match (piece, field) {
                    (Some(piece), Some(field)) => Some((
                        EeRecord::PieceChange {
                            field,
                            piece,
                            rapid: first & 0x10 != 0,
                        },
                        2,
                    )),
                    _ => single(EeRecord::Unknown(first)),
                }
            }
            0x60..=0x69 | 0x70..=0x79 => {
                let minutes = data.get(1).and_then(|&b| from_bcd_strict(b));
                let seconds = data.get(2).and_then(|&b| from_bcd_strict(b));
                match (minutes, seconds) {
                    (Some(minutes), Some(seconds)) => Some((
                        EeRecord::Time {
                            left_display: first & 0x10 != 0,
                            hours: first & 0x0f,
                            minutes,
                            seconds,
                        },
                        3,
                    )),
                    _ => single(EeRecord::Unknown(first)),
                }
            }
            tag::POWER_UP => single(EeRecord::PowerUp),
            tag::EOF => single(EeRecord::Eof),
            tag::FOUR_ROWS => single(EeRecord::FourRows),
            tag::EMPTY_BOARD => single(EeRecord::EmptyBoard),
            tag::DOWNLOADED => single(EeRecord::Downloaded),
            tag::BEGIN_POS => single(EeRecord::BeginPos),
            tag::BEGIN_POS_ROT => single(EeRecord::BeginPosRotated),
            tag::START_TAG => single(EeRecord::StartTag),
            tag::WATCHDOG_ACTION => single(EeRecord::WatchdogAction),
            tag::NOP | tag::NOP2 => single(EeRecord::Nop),
            other => single(EeRecord::Unknown(other)),
        }
    }

    /// Number of bytes [`EeRecord::write_to`] appends.
    pub fn encoded_len(&self) -> usize {
        match self {
            EeRecord::PieceChange { .. } => 2,
            EeRecord::Time { .. } => 3,
            _ => 1,
        }
    }

    /// Appends the record's bytes as the board stores them.
    ///
    /// Values that cannot be represented are masked (hours to 4 bits,
    /// minutes and seconds above 79 become the invalid BCD byte 0x7f,
    /// unknown bytes to 7 bits), so such records do not read back unchanged.
    pub fn write_to(&self, out: &mut Vec<u8>) {
        match *self {
            EeRecord::PieceChange {
                field,
                piece,
                rapid,
            } => {
                out.push(0x40 | u8::from(rapid) << 4 | piece.to_u8());
                out.push(field.index());
            }
            EeRecord::Time {
                left_display,
                hours,
                minutes,
                seconds,
            } => {
                out.push(0x60 | u8::from(left_display) << 4 | (hours & 0x0f));
                out.push(to_bcd(minutes));
                out.push(to_bcd(seconds));
            }
            EeRecord::PowerUp => out.push(tag::POWER_UP),
            EeRecord::Eof => out.push(tag::EOF),
            EeRecord::FourRows => out.push(tag::FOUR_ROWS),
            EeRecord::EmptyBoard => out.push(tag::EMPTY_BOARD),
            EeRecord::Downloaded => out.push(tag::DOWNLOADED),
            EeRecord::BeginPos => out.push(tag::BEGIN_POS),
            EeRecord::BeginPosRotated => out.push(tag::BEGIN_POS_ROT),
            EeRecord::StartTag => out.push(tag::START_TAG),
            EeRecord::WatchdogAction => out.push(tag::WATCHDOG_ACTION),
            EeRecord::Nop => out.push(tag::NOP),
            EeRecord::Unknown(b) => out.push(b & 0x7f),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode(records: &[EeRecord]) -> Vec<u8> {
        let mut out = Vec::new();
        for r in records {
            r.write_to(&mut out);
        }
        out
    }

    #[test]
    fn piece_change_carries_piece_rapid_bit_and_field() {
        let e4 = Field::from_file_rank(4, 3).unwrap();
        let records = EeRecord::parse_all(&[0x41, 0x24]);
        assert_eq!(
            records,
            vec![EeRecord::PieceChange {
                field: e4,
                piece: PieceCode::WhitePawn,
                rapid: false
            }]
        );
        assert_eq!(encode(&records), vec![0x41, 0x24]);
        let records = EeRecord::parse_all(&[0x50, 0x34]);
        assert_eq!(
            records,
            vec![EeRecord::PieceChange {
                field: Field::new(0x34).unwrap(),
                piece: PieceCode::Empty,
                rapid: true
            }]
        );
    }

    #[test]
    fn time_record_has_binary_hours_and_bcd_minutes_and_seconds() {
        let records = EeRecord::parse_all(&[0x71, 0x29, 0x59, 0x60, 0x00, 0x05]);
        assert_eq!(
            records,
            vec![
                EeRecord::Time {
                    left_display: true,
                    hours: 1,
                    minutes: 29,
                    seconds: 59
                },
                EeRecord::Time {
                    left_display: false,
                    hours: 0,
                    minutes: 0,
                    seconds: 5
                },
            ]
        );
        assert_eq!(encode(&records), vec![0x71, 0x29, 0x59, 0x60, 0x00, 0x05]);
    }

    #[test]
    fn one_byte_tags_decode_and_encode() {
        let bytes = [
            0x6a, 0x6b, 0x6c, 0x6d, 0x6e, 0x6f, 0x7a, 0x7b, 0x7c, 0x7f, 0x7d, 0x7e, 0x01,
        ];
        let records = EeRecord::parse_all(&bytes);
        assert_eq!(
            records,
            vec![
                EeRecord::PowerUp,
                EeRecord::Eof,
                EeRecord::FourRows,
                EeRecord::EmptyBoard,
                EeRecord::Downloaded,
                EeRecord::BeginPos,
                EeRecord::BeginPosRotated,
                EeRecord::StartTag,
                EeRecord::WatchdogAction,
                EeRecord::Nop,
                EeRecord::Unknown(0x7d),
                EeRecord::Unknown(0x7e),
                EeRecord::Unknown(0x01),
            ]
        );
        assert_eq!(encode(&records), bytes);
    }

    #[test]
    fn zero_byte_is_a_second_kind_of_nop() {
        assert_eq!(EeRecord::parse_all(&[0x00]), vec![EeRecord::Nop]);
    }

    #[test]
    fn cut_off_or_impossible_records_become_unknown_one_byte_at_a_time() {
        // Piece change whose field byte is out of range.
        assert_eq!(
            EeRecord::parse_all(&[0x41, 0x6b]),
            vec![EeRecord::Unknown(0x41), EeRecord::Eof]
        );
        // Piece change cut off at the end.
        assert_eq!(EeRecord::parse_all(&[0x41]), vec![EeRecord::Unknown(0x41)]);
        // Time record with bad BCD seconds.
        assert_eq!(
            EeRecord::parse_all(&[0x61, 0x10, 0x6b]),
            vec![
                EeRecord::Unknown(0x61),
                EeRecord::Unknown(0x10),
                EeRecord::Eof
            ]
        );
        // Time record cut off.
        assert_eq!(
            EeRecord::parse_all(&[0x62, 0x10]),
            vec![EeRecord::Unknown(0x62), EeRecord::Unknown(0x10)]
        );
    }

    #[test]
    fn power_up_sequence_reads_as_expected() {
        let bytes = [0x7f, 0x7f, 0x7f, 0x6a, 0x45, 0x3c, 0x4b, 0x04, 0x6b];
        let records = EeRecord::parse_all(&bytes);
        assert_eq!(records.len(), 7);
        assert_eq!(records[3], EeRecord::PowerUp);
        assert_eq!(
            records[4],
            EeRecord::PieceChange {
                field: Field::from_file_rank(4, 0).unwrap(),
                piece: PieceCode::WhiteKing,
                rapid: false
            }
        );
        assert_eq!(
            records[5],
            EeRecord::PieceChange {
                field: Field::from_file_rank(4, 7).unwrap(),
                piece: PieceCode::BlackKing,
                rapid: false
            }
        );
        assert_eq!(records[6], EeRecord::Eof);
        let total: usize = records.iter().map(EeRecord::encoded_len).sum();
        assert_eq!(total, bytes.len());
    }
}
