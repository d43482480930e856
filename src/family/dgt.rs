//! DGT e-boards, one per line: 9600 8N1, field updates and dumps.

use boardcast_protocols::dgt::{Command, DecodeError, Decoder, Message, memory};
use bytes::BytesMut;

use super::{Driver, DriverEvent, Family, LineSettings};

/// How often the serial number is asked for as a keepalive.
const KEEPALIVE_MS: u64 = 3000;

/// The driver for a single DGT board.
///
/// Hello: reset, serial number, version, board dump, then update mode
/// (`SendUpdateNice`: field updates, clock only when it changes). Keepalive:
/// the serial number every 3 s, as other DGT drivers do. Board dumps are
/// passed on whole (the reconstructor uses a whole-board read to explain
/// what happened while the board was away); field updates as square
/// changes.
#[derive(Debug, Default)]
pub struct DgtDriver {
    decoder: Decoder,
    buf: BytesMut,
    next_keepalive: u64,
    /// The keepalive period set by the port (`serial.poll_ms`), else
    /// [`KEEPALIVE_MS`].
    keepalive_ms: Option<u64>,
}

impl DgtDriver {
    /// A driver before its line is opened.
    pub fn new() -> DgtDriver {
        DgtDriver::default()
    }

    /// The bytes that ask the board for its memory (the EEPROM move log,
    /// about 8 KB: several seconds at 9600 baud). The answer comes back as
    /// [`DriverEvent::Memory`].
    pub fn request_memory(&self) -> Vec<u8> {
        Command::EeMoves.to_bytes()
    }

    fn keepalive(&self) -> u64 {
        self.keepalive_ms.unwrap_or(KEEPALIVE_MS)
    }
}

impl Driver for DgtDriver {
    fn pending(&self) -> usize {
        self.buf.len()
    }

    fn family(&self) -> Family {
        Family::Dgt
    }

    fn line(&self) -> LineSettings {
        LineSettings::eight_n_one(9600)
    }

    fn reopen(&mut self) {
        self.decoder = Decoder::new();
        self.buf.clear();
    }

    fn hello(&mut self, now_ms: u64) -> Vec<u8> {
        self.next_keepalive = now_ms + self.keepalive();
        [
            Command::Reset,
            Command::SerialNumber,
            Command::Version,
            Command::SendBoard,
            Command::SendUpdateNice,
        ]
        .iter()
        .flat_map(Command::to_bytes)
        .collect()
    }

    fn tick_ms(&self) -> u64 {
        self.keepalive()
    }

    fn poll(&mut self, now_ms: u64, _out: &mut Vec<DriverEvent>) -> Vec<u8> {
        if now_ms < self.next_keepalive {
            return Vec::new();
        }
        self.next_keepalive = now_ms + self.keepalive();
        Command::SerialNumber.to_bytes()
    }

    fn feed(&mut self, _now_ms: u64, bytes: &[u8], out: &mut Vec<DriverEvent>) {
        self.buf.extend_from_slice(bytes);
        loop {
            match self.decoder.decode(&mut self.buf) {
                Ok(None) => break,
                Ok(Some(Message::EeMoves(records))) => {
                    out.push(DriverEvent::Memory {
                        unit: 0,
                        records: memory(&records),
                    });
                }
                Ok(Some(message)) => {
                    if let Some(reading) = message.reading() {
                        out.push(DriverEvent::Reading { unit: 0, reading });
                    }
                }
                Err(DecodeError::Skipped { bytes }) => {
                    out.push(DriverEvent::Skipped { bytes: bytes.len() })
                }
                Err(e @ DecodeError::BadFrame { .. }) => out.push(DriverEvent::Dropped {
                    reason: e.to_string(),
                    bytes: match &e {
                        DecodeError::Skipped { bytes } | DecodeError::BadFrame { bytes, .. } => {
                            bytes.len()
                        }
                    },
                }),
            }
        }
    }

    /// Reset and serial number first; version, board dump and update mode
    /// once the board has named itself.
    fn identify_first(&mut self, now_ms: u64) -> Option<(Vec<u8>, Vec<u8>)> {
        let mut hello = self.hello(now_ms);
        let start = hello.split_off(2);
        Some((hello, start))
    }

    fn request_memory_of(&mut self, _unit: u16) -> Vec<u8> {
        self.request_memory()
    }

    fn set_keepalive_ms(&mut self, ms: u64) -> bool {
        self.keepalive_ms = Some(ms.max(1));
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use boardcast_protocols::dgt::{EeRecord, Field, PieceCode};
    use boardcast_protocols::reading::{Content, Reading, Square, SquareChange};

    #[test]
    fn hello_resets_identifies_and_starts_updates() {
        let mut d = DgtDriver::new();
        assert_eq!(d.hello(0), [0x40, 0x45, 0x4d, 0x42, 0x4b]);
        assert_eq!(d.line().to_string(), "9600 8N1");
        let mut out = Vec::new();
        assert!(d.poll(2999, &mut out).is_empty());
        assert_eq!(d.poll(3000, &mut out), [0x45]);
        assert!(d.poll(3001, &mut out).is_empty());
    }

    #[test]
    fn the_hello_asks_who_the_board_is_before_it_starts_the_reports() {
        let mut d = DgtDriver::new();
        let (ask, start) = d.identify_first(0).unwrap();
        assert_eq!(ask, [0x40, 0x45]);
        assert_eq!(start, [0x4d, 0x42, 0x4b]);
        assert_eq!(d.request_memory_of(0), [0x49]);
        assert!(d.set_keepalive_ms(500));
        assert_eq!(d.tick_ms(), 500);
        d.hello(0);
        let mut out = Vec::new();
        assert!(d.poll(499, &mut out).is_empty());
        assert_eq!(d.poll(500, &mut out), [0x45]);
    }

    #[test]
    fn the_memory_comes_back_as_history() {
        let mut d = DgtDriver::new();
        d.hello(0);
        assert_eq!(d.request_memory(), [0x49]);
        let records = vec![
            EeRecord::BeginPos,
            EeRecord::PieceChange {
                field: Field::new(52).unwrap(),
                piece: PieceCode::Empty,
                rapid: false,
            },
            EeRecord::Eof,
        ];
        let mut out = Vec::new();
        d.feed(1, &Message::EeMoves(records.clone()).to_bytes(), &mut out);
        assert_eq!(
            out,
            [DriverEvent::Memory {
                unit: 0,
                records: memory(&records)
            }]
        );
    }

    #[test]
    fn field_updates_split_across_reads_become_square_readings() {
        let mut d = DgtDriver::new();
        d.hello(0);
        let mut bytes = vec![0x01, 0x02];
        bytes.extend(
            Message::FieldUpdate {
                field: Field::new(52).unwrap(),
                piece: PieceCode::Empty,
            }
            .to_bytes(),
        );
        let mut out = Vec::new();
        d.feed(10, &bytes[..4], &mut out);
        d.feed(11, &bytes[4..], &mut out);
        assert_eq!(
            out,
            [
                DriverEvent::Skipped { bytes: 2 },
                DriverEvent::Reading {
                    unit: 0,
                    reading: Reading::Square(SquareChange {
                        square: Square::new(4, 1),
                        content: Content::Empty
                    })
                }
            ]
        );
    }
}
