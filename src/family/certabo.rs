//! Certabo RFID boards (and Tabutronic occupancy boards): 38400 8N1.

use boardcast_protocols::certabo::{Calibration, Decoder, Frame, Kind, Leds};
use boardcast_protocols::reading::{Identity, Reading, SnapshotDiff};
use bytes::BytesMut;

use super::{Driver, DriverEvent, Family, LineSettings, dropped, push_snapshot};

/// The driver for a Certabo board.
///
/// The board streams frames by itself; hello switches the LEDs off. Until
/// the start position has been seen once, RFID frames read as occupancy
/// (every card an unidentified piece); the first frame showing 32 distinct
/// cards on the start squares calibrates the board, and from then on the
/// cards read as pieces. Every frame goes through a snapshot diff.
#[derive(Debug)]
pub struct CertaboDriver {
    decoder: Decoder,
    kind: Kind,
    buf: BytesMut,
    diff: SnapshotDiff,
    calibration: Option<Calibration>,
}

impl CertaboDriver {
    /// A driver for RFID frames, or occupancy frames if `occupancy`.
    pub fn new(occupancy: bool) -> CertaboDriver {
        let kind = if occupancy {
            Kind::Occupancy
        } else {
            Kind::Rfid
        };
        CertaboDriver {
            decoder: Decoder::new(kind),
            kind,
            buf: BytesMut::new(),
            diff: SnapshotDiff::new(),
            calibration: None,
        }
    }

    /// The calibration learnt so far.
    pub fn calibration(&self) -> Option<&Calibration> {
        self.calibration.as_ref()
    }
}

impl Driver for CertaboDriver {
    fn pending(&self) -> usize {
        self.buf.len()
    }

    fn family(&self) -> Family {
        Family::Certabo
    }

    fn line(&self) -> LineSettings {
        LineSettings {
            dtr_rts: true,
            ..LineSettings::eight_n_one(38400)
        }
    }

    fn reopen(&mut self) {
        self.decoder = Decoder::new(self.kind);
        self.buf.clear();
        self.diff.reset();
    }

    fn hello(&mut self, _now_ms: u64) -> Vec<u8> {
        Leds::default().to_bytes().to_vec()
    }

    fn tick_ms(&self) -> u64 {
        1000
    }

    fn poll(&mut self, _now_ms: u64, _out: &mut Vec<DriverEvent>) -> Vec<u8> {
        Vec::new()
    }

    fn feed(&mut self, _now_ms: u64, bytes: &[u8], out: &mut Vec<DriverEvent>) {
        self.buf.extend_from_slice(bytes);
        loop {
            match self.decoder.decode(&mut self.buf) {
                Ok(None) => break,
                Ok(Some(Frame::Occupancy(ranks))) => {
                    push_snapshot(&mut self.diff, 0, Frame::occupancy_snapshot(&ranks), out);
                }
                Ok(Some(Frame::Rfid(ids))) => {
                    if self.calibration.is_none()
                        && let Ok(c) = Calibration::from_start_position(&ids)
                    {
                        self.calibration = Some(c);
                        out.push(DriverEvent::Reading {
                            unit: 0,
                            reading: Reading::Identity(Identity {
                                name: Some("Certabo (calibrated)".into()),
                                ..Identity::default()
                            }),
                        });
                    }
                    let calibration = self.calibration.clone().unwrap_or_default();
                    push_snapshot(&mut self.diff, 0, calibration.snapshot(&ids), out);
                }
                Err(e) => out.push(dropped(&e)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use boardcast_protocols::certabo::CardId;
    use boardcast_protocols::reading::{Content, Piece, Square, SquareChange};

    fn start() -> Box<[CardId; 64]> {
        let mut ids = Box::new([CardId::default(); 64]);
        for i in (0..16).chain(48..64) {
            ids[i] = CardId([i as u8, 7, 7, 7, 7]);
        }
        ids
    }

    #[test]
    fn calibrates_from_the_start_position_then_reads_pieces() {
        let mut d = CertaboDriver::new(false);
        assert_eq!(d.hello(0), [0; 8]);
        assert!(d.line().dtr_rts);
        let mut out = Vec::new();
        // Before the start position: occupancy only.
        let mut partial = start();
        partial[0] = CardId::default();
        d.feed(0, &Frame::Rfid(partial).to_bytes(), &mut out);
        assert!(d.calibration().is_none());
        let Some(DriverEvent::Reading {
            reading: Reading::Snapshot(s),
            ..
        }) = out.first()
        else {
            panic!("{out:?}")
        };
        assert_eq!(s.get(Square::new(0, 0)), Some(Content::Occupied));
        out.clear();
        d.feed(1000, &Frame::Rfid(start()).to_bytes(), &mut out);
        assert_eq!(d.calibration().map(Calibration::len), Some(32));
        // 1. e4 with a noisy read on e2.
        let mut moved = start();
        moved[36] = moved[52];
        moved[52] = CardId([0, 0, 56, 0, 0]);
        out.clear();
        d.feed(2000, &Frame::Rfid(moved).to_bytes(), &mut out);
        assert_eq!(
            out,
            [
                DriverEvent::Reading {
                    unit: 0,
                    reading: Reading::Square(SquareChange {
                        square: Square::new(4, 3),
                        content: Content::Piece(Piece::from_letter('P').unwrap())
                    })
                },
                DriverEvent::Reading {
                    unit: 0,
                    reading: Reading::Square(SquareChange {
                        square: Square::new(4, 1),
                        content: Content::Empty
                    })
                },
            ]
        );
    }

    #[test]
    fn occupancy_boards_and_garbage() {
        let mut d = CertaboDriver::new(true);
        d.hello(0);
        let mut out = Vec::new();
        d.feed(0, b"xx:255 255 0 0 0 0 255 255\r\n", &mut out);
        d.feed(1, b":255 255 0 0 0 0 255 254\r\n", &mut out);
        assert!(matches!(out[0], DriverEvent::Dropped { bytes: 2, .. }));
        assert!(matches!(
            out[1],
            DriverEvent::Reading {
                reading: Reading::Snapshot(_),
                ..
            }
        ));
        assert_eq!(
            out[2],
            DriverEvent::Reading {
                unit: 0,
                reading: Reading::Square(SquareChange {
                    square: Square::new(7, 0),
                    content: Content::Empty
                })
            }
        );
    }
}
