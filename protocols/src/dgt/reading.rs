//! DGT messages as the neutral readings of [`crate::reading`]: square
//! numbering, piece codes, board dumps, clock times and the memory log.
//! The neutral types know nothing of DGT; this is the only place where the
//! two meet.

use crate::reading::{
    ClockReading, Content, Face, Geometry, Identity, MemoryRecord, Piece, Reading, ResultToken,
    Snapshot, Square, SquareChange,
};

use super::{ClockSide, ClockTimes, EeRecord, Field, Message, PieceCode};

impl Field {
    /// The square this field names (a8 = 0), seen the normal way round.
    pub const fn square(self) -> Square {
        Square::new(self.file(), self.rank())
    }
}

impl PieceCode {
    /// The content this code stands for (the three magic pieces are result
    /// tokens).
    pub const fn content(self) -> Content {
        match self {
            PieceCode::Empty => Content::Empty,
            PieceCode::Draw => Content::Token(ResultToken::Draw),
            PieceCode::WhiteWins => Content::Token(ResultToken::FirstWins),
            PieceCode::BlackWins => Content::Token(ResultToken::SecondWins),
            other => match other.fen_char() {
                Some(c) => match Piece::from_letter(c) {
                    Some(piece) => Content::Piece(piece),
                    None => Content::Occupied,
                },
                None => Content::Occupied,
            },
        }
    }
}

/// A board dump as a snapshot (seen the normal way round).
pub fn snapshot(dump: &[PieceCode; 64]) -> Snapshot {
    // Fields count from a8 like the snapshot's cells.
    Snapshot::new(Geometry::CHESS, dump.iter().map(|c| c.content()).collect()).expect("64 cells")
}

impl ClockTimes {
    /// The clock reading these times stand for: [`Reading::NoClock`] when
    /// the board says no clock is connected, `None` for the all-zero and
    /// out-of-range readings boards send now and then. The running face is
    /// the lever's side when the clock does not say.
    pub fn reading(&self) -> Option<Reading> {
        if self.status.no_clock {
            return Some(Reading::NoClock);
        }
        if self.is_all_zero() || !self.left.is_valid() || !self.right.is_valid() {
            return None;
        }
        let status = self.status;
        let running = if !status.running {
            None
        } else if status.right_to_move {
            Some(Face::Right)
        } else if status.left_to_move {
            Some(Face::Left)
        } else if status.lever_right_high {
            Some(Face::Right)
        } else {
            Some(Face::Left)
        };
        let flag = |side: &ClockSide| side.flag_fallen || side.flag_shown;
        Some(Reading::Clock(ClockReading {
            left: self.left.total_seconds(),
            right: self.right.total_seconds(),
            running,
            flag: if flag(&self.left) {
                Some(Face::Left)
            } else if flag(&self.right) {
                Some(Face::Right)
            } else {
                None
            },
            battery_low: status.battery_low,
        }))
    }
}

impl EeRecord {
    /// The memory record this log record stands for (`None`: times, power
    /// ups and other marks that say nothing of the board).
    pub const fn memory(&self) -> Option<MemoryRecord> {
        Some(match *self {
            EeRecord::BeginPos => MemoryRecord::Start { rotated: false },
            EeRecord::BeginPosRotated => MemoryRecord::Start { rotated: true },
            EeRecord::EmptyBoard => MemoryRecord::Empty,
            EeRecord::PieceChange { field, piece, .. } => MemoryRecord::Change(SquareChange {
                square: field.square(),
                content: piece.content(),
            }),
            _ => return None,
        })
    }
}

/// A memory log as neutral records, oldest first.
pub fn memory(records: &[EeRecord]) -> Vec<MemoryRecord> {
    records.iter().filter_map(EeRecord::memory).collect()
}

impl Message {
    /// The reading this single-board message stands for, if any. Square
    /// numbers are the board's own (a8 = 0 as if seen the normal way round).
    /// The memory log, bus address, battery status and clock
    /// acknowledgements are not readings.
    pub fn reading(&self) -> Option<Reading> {
        Some(match self {
            Message::BoardDump(dump) => Reading::Snapshot(snapshot(dump)),
            Message::FieldUpdate { field, piece } => Reading::Square(SquareChange {
                square: field.square(),
                content: piece.content(),
            }),
            Message::ClockTimes(times) => return times.reading(),
            Message::SerialNumber(s) | Message::LongSerialNumber(s) => {
                Reading::Identity(Identity {
                    serial: Some(s.clone()),
                    ..Identity::default()
                })
            }
            Message::Version { major, minor } => Reading::Identity(Identity {
                version: Some(format!("{major}.{minor:02}")),
                ..Identity::default()
            }),
            Message::Trademark(text) => Reading::Identity(Identity {
                name: Some(text.lines().next().unwrap_or_default().trim().to_owned()),
                ..Identity::default()
            }),
            Message::ClockAck(_)
            | Message::BusAddress(_)
            | Message::BatteryStatus(_)
            | Message::EeMoves(_) => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(c: char) -> Content {
        Content::Piece(Piece::from_letter(c).unwrap())
    }

    #[test]
    fn dgt_codes_map_to_contents() {
        assert_eq!(PieceCode::Empty.content(), Content::Empty);
        assert_eq!(PieceCode::WhiteKing.content(), p('K'));
        assert_eq!(PieceCode::BlackQueen.content(), p('q'));
        assert_eq!(PieceCode::Draw.content(), Content::Token(ResultToken::Draw));
        assert_eq!(
            PieceCode::BlackWins.content(),
            Content::Token(ResultToken::SecondWins)
        );
    }

    #[test]
    fn dgt_messages_become_readings() {
        let update = Message::FieldUpdate {
            field: Field::new(52).unwrap(),
            piece: PieceCode::Empty,
        };
        assert_eq!(
            update.reading(),
            Some(Reading::Square(SquareChange {
                square: Square::new(4, 1),
                content: Content::Empty
            }))
        );
        let version = Message::Version { major: 1, minor: 2 };
        let Some(Reading::Identity(id)) = version.reading() else {
            panic!("no identity");
        };
        assert_eq!(id.version.as_deref(), Some("1.02"));
        assert_eq!(Message::BusAddress(3).reading(), None);
    }

    #[test]
    fn clock_times_become_neutral_clock_readings() {
        let mut times = ClockTimes::default();
        assert_eq!(times.reading(), None, "all zeros");
        times.left.minutes = 5;
        times.right.minutes = 4;
        times.status.running = true;
        times.status.lever_right_high = true;
        times.right.flag_fallen = true;
        assert_eq!(
            times.reading(),
            Some(Reading::Clock(ClockReading {
                left: 300,
                right: 240,
                running: Some(Face::Right),
                flag: Some(Face::Right),
                battery_low: false,
            }))
        );
        times.left.minutes = 60;
        assert_eq!(times.reading(), None, "out of range");
        times.status.no_clock = true;
        assert_eq!(times.reading(), Some(Reading::NoClock));
    }

    #[test]
    fn the_memory_log_becomes_neutral_records() {
        let log = [
            EeRecord::PowerUp,
            EeRecord::BeginPosRotated,
            EeRecord::PieceChange {
                field: Field::new(52).unwrap(),
                piece: PieceCode::Empty,
                rapid: false,
            },
            EeRecord::Eof,
        ];
        assert_eq!(
            memory(&log),
            [
                MemoryRecord::Start { rotated: true },
                MemoryRecord::Change(SquareChange {
                    square: Square::new(4, 1),
                    content: Content::Empty
                })
            ]
        );
    }
}
