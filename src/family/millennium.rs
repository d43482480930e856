//! Millennium ChessLink: 38400 baud, parity in bit 7, status reports.

use boardcast_protocols::millennium::{Command, Decoder, Orientation, Reply};
use boardcast_protocols::reading::{Identity, Reading, SnapshotDiff};
use bytes::BytesMut;

use super::{Driver, DriverEvent, Family, LineSettings, dropped, push_snapshot};

/// How often a status report is asked for (boards in the default mode
/// report after every scan anyway; this keeps a board that was set to
/// "poll only" alive).
const POLL_MS: u64 = 1000;

/// The driver for a Millennium board.
///
/// The line is opened 8N1 at 38400 and the decoder checks the odd parity
/// carried in bit 7 of each byte (the same bits on the wire as 7O1). Hello:
/// version and status requests. The square order is detected from the
/// start position (documented a8-first, or its rotation) unless fixed;
/// until a start position is seen, the documented order is used. Status
/// reports go through a snapshot diff.
#[derive(Debug)]
pub struct MillenniumDriver {
    decoder: Decoder,
    buf: BytesMut,
    diff: SnapshotDiff,
    fixed: Option<Orientation>,
    orientation: Orientation,
    next_poll: u64,
}

impl MillenniumDriver {
    /// A driver; `rotated`: `None` detects the square order, `Some(true)`
    /// fixes it to h1-first, `Some(false)` to the documented a8-first.
    pub fn new(rotated: Option<bool>) -> MillenniumDriver {
        let fixed = rotated.map(|r| {
            if r {
                Orientation::Rotated
            } else {
                Orientation::Documented
            }
        });
        MillenniumDriver {
            decoder: Decoder::new(),
            buf: BytesMut::new(),
            diff: SnapshotDiff::new(),
            fixed,
            orientation: fixed.unwrap_or_default(),
            next_poll: 0,
        }
    }

    /// The square order in use.
    pub fn orientation(&self) -> Orientation {
        self.orientation
    }
}

impl Driver for MillenniumDriver {
    fn pending(&self) -> usize {
        self.buf.len()
    }

    fn family(&self) -> Family {
        Family::Millennium
    }

    fn line(&self) -> LineSettings {
        LineSettings::eight_n_one(38400)
    }

    fn reopen(&mut self) {
        self.decoder = Decoder::new();
        self.buf.clear();
        self.diff.reset();
    }

    fn hello(&mut self, now_ms: u64) -> Vec<u8> {
        self.next_poll = now_ms + POLL_MS;
        let mut bytes = Command::Version.to_bytes();
        bytes.extend(Command::Status.to_bytes());
        bytes
    }

    fn tick_ms(&self) -> u64 {
        POLL_MS
    }

    fn poll(&mut self, now_ms: u64, _out: &mut Vec<DriverEvent>) -> Vec<u8> {
        if now_ms < self.next_poll {
            return Vec::new();
        }
        self.next_poll = now_ms + POLL_MS;
        Command::Status.to_bytes()
    }

    fn feed(&mut self, _now_ms: u64, bytes: &[u8], out: &mut Vec<DriverEvent>) {
        self.buf.extend_from_slice(bytes);
        loop {
            match self.decoder.decode(&mut self.buf) {
                Ok(None) => break,
                Ok(Some(Reply::Status(report))) => {
                    if self.fixed.is_none()
                        && let Some(found) = Orientation::detect(&report)
                        && found != self.orientation
                    {
                        self.orientation = found;
                        self.diff.reset();
                    }
                    push_snapshot(&mut self.diff, 0, report.snapshot(self.orientation), out);
                }
                Ok(Some(Reply::Version { major, minor })) => out.push(DriverEvent::Reading {
                    unit: 0,
                    reading: Reading::Identity(Identity {
                        version: Some(format!("{major}.{minor:02}")),
                        name: Some("Millennium ChessLink".into()),
                        serial: None,
                    }),
                }),
                Ok(Some(_)) => {}
                Err(e) => out.push(dropped(&e)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use boardcast_protocols::millennium::StatusReport;
    use boardcast_protocols::reading::{Content, Piece, Square, SquareChange};

    const START: &[u8; 64] = b"rnbqkbnrpppppppp................................PPPPPPPPRNBQKBNR";

    fn report(cells: &[u8; 64]) -> Vec<u8> {
        Reply::Status(StatusReport { cells: *cells }).to_bytes()
    }

    fn rotated(cells: &[u8; 64]) -> [u8; 64] {
        let mut c = *cells;
        c.reverse();
        c
    }

    #[test]
    fn a_rotated_board_is_detected_and_moves_come_out_as_two_squares() {
        let mut d = MillenniumDriver::new(None);
        assert_eq!(d.hello(0), [0xd6, 0xb5, 0xb6, 0xd3, 0xb5, 0xb3]);
        let mut out = Vec::new();
        d.feed(5, &report(&rotated(START)), &mut out);
        assert_eq!(d.orientation(), Orientation::Rotated);
        assert!(matches!(
            &out[..],
            [DriverEvent::Reading {
                reading: Reading::Snapshot(_),
                ..
            }]
        ));
        // The same report again costs nothing.
        out.clear();
        d.feed(50, &report(&rotated(START)), &mut out);
        assert!(out.is_empty());
        // 1. e4, in the board's rotated order, fed a byte at a time.
        let mut after = *START;
        after[52] = b'.';
        after[36] = b'P';
        for b in report(&rotated(&after)) {
            d.feed(100, &[b], &mut out);
        }
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
    fn a_fixed_orientation_is_kept_and_bad_checksums_are_reported() {
        let mut d = MillenniumDriver::new(Some(false));
        d.hello(0);
        let mut bytes = report(&rotated(START));
        let last = bytes.len() - 1;
        bytes[last] ^= 0x01; // flips a data bit and the parity
        bytes[last] ^= 0x80; // restore odd parity: a wrong digit
        let mut out = Vec::new();
        d.feed(1, &bytes, &mut out);
        d.feed(
            2,
            &Reply::Version { major: 1, minor: 3 }.to_bytes(),
            &mut out,
        );
        assert_eq!(d.orientation(), Orientation::Documented);
        assert!(
            matches!(out[0], DriverEvent::Dropped { bytes: 67, .. }),
            "{out:?}"
        );
        assert!(matches!(
            &out[1],
            DriverEvent::Reading { reading: Reading::Identity(id), .. } if id.version.as_deref() == Some("1.03")
        ));
        let mut none = Vec::new();
        assert!(d.poll(999, &mut none).is_empty());
        assert_eq!(d.poll(1000, &mut none), [0xd3, 0xb5, 0xb3]);
    }
}
