//! Sans-IO wire protocols for electronic game boards.
//!
//! This crate only turns bytes into typed messages and typed commands back
//! into bytes. It never opens a port, never sleeps and never reads a clock:
//! the caller owns the serial line (or BLE link) and the timers, and feeds
//! whatever bytes arrive into a decoder.
//!
//! # Layout
//!
//! | File | What lives there |
//! |---|---|
//! | `src/dgt/mod.rs` | [`dgt`]: the DGT e-board serial protocol (USB, Bluetooth, Revelation II, Pegasus framing); re-exports everything below |
//! | `src/dgt/field.rs` | [`dgt::Field`]: square numbering as the board counts, rotation |
//! | `src/dgt/piece.rs` | [`dgt::PieceCode`]: the 4-bit piece codes |
//! | `src/dgt/message.rs` | [`dgt::Message`], message ids ([`dgt::msg`]), encoding of board → host frames |
//! | `src/dgt/decoder.rs` | [`dgt::Decoder`]: framing, resynchronisation, garbage reporting |
//! | `src/dgt/clock.rs` | [`dgt::ClockTimes`], [`dgt::ClockAck`] and friends, carried by the clock message |
//! | `src/dgt/battery.rs` | [`dgt::BatteryStatus`] |
//! | `src/dgt/eeprom.rs` | [`dgt::EeRecord`]: records of the board's EEPROM move log |
//! | `src/dgt/command.rs` | [`dgt::Command`], [`dgt::ClockCommand`], [`dgt::CommandDecoder`]: host → board |
//! | `src/dgt/error.rs` | [`dgt::DecodeError`] |
//! | `src/dgt/reading.rs` | DGT messages, fields, piece codes, clock times and memory logs as the neutral readings of [`reading`] |
//! | `src/dgt/bus.rs` | [`dgt::bus`]: bus mode, several boards on one line (requests, replies, checksums) |
//! | `src/millennium.rs` | [`millennium`]: Millennium ChessLink (parity in bit 7, XOR block checksum, status reports, orientation) |
//! | `src/certabo.rs` | [`certabo`]: Certabo RFID frames, Tabutronic occupancy frames, [`certabo::Calibration`] |
//! | `src/open.rs` | [`open`]: the open text protocol for any board (spec in `protocols/open.md`) |
//! | `src/reading.rs` | [`reading`]: what every family gives the core: [`reading::Reading`], geometry, squares, neutral clock readings and memory records, [`reading::SnapshotDiff`]; it knows no family |
//! | `src/stream.rs` | [`stream::StreamError`], [`stream::Counters`]: what the non-DGT decoders report when they drop input |
//! | `tests/properties.rs` | property tests (arbitrary streams, round trips) |
//! | `fuzz/` | cargo-fuzz targets (standalone crate) |
//!
//! A prose description of each protocol as implemented here is kept next to
//! this crate's `Cargo.toml`: `protocols/dgt.md` (with bus mode),
//! `protocols/millennium.md`, `protocols/certabo.md`, and `protocols/open.md`
//! (the published specification of the open protocol).
//!
//! # Example
//!
//! ```
//! use boardcast_protocols::dgt::{Decoder, Field, Message, PieceCode};
//! use bytes::BytesMut;
//!
//! let mut decoder = Decoder::new();
//! let mut buf = BytesMut::from(&[0x8e, 0x00, 0x05, 0x34, 0x00][..]);
//! let message = decoder.decode(&mut buf).unwrap();
//! assert_eq!(
//!     message,
//!     Some(Message::FieldUpdate {
//!         field: Field::from_file_rank(4, 1).unwrap(),
//!         piece: PieceCode::Empty,
//!     })
//! );
//! assert!(buf.is_empty());
//! ```

#![warn(missing_docs, unreachable_pub, missing_debug_implementations)]

pub mod certabo;
pub mod dgt;
pub mod millennium;
pub mod open;
pub mod reading;
pub mod stream;
