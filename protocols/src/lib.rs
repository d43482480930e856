//! Sans-IO wire protocols for electronic chess boards.
//!
//! This crate only turns bytes into typed messages and typed commands back
//! into bytes. It never opens a port, never sleeps and never reads a clock:
//! the caller owns the serial line (or BLE link) and the timers, and feeds
//! whatever bytes arrive into a decoder.
//!
//! # Layout
//!
//! | Path | What lives there |
//! |---|---|
//! | [`dgt`] | The DGT e-board serial protocol (USB, Bluetooth, Revelation II, Pegasus framing) |
//! | `dgt::field` | [`dgt::Field`]: square numbering as the board counts, rotation |
//! | `dgt::piece` | [`dgt::PieceCode`]: the 4-bit piece codes |
//! | `dgt::message` | [`dgt::Message`]: board → host messages, their ids and their encoding |
//! | `dgt::decoder` | [`dgt::Decoder`]: framing, resynchronisation, garbage reporting |
//! | `dgt::clock` | Clock times and clock acknowledgements carried by the BWTIME message |
//! | `dgt::battery` | [`dgt::BatteryStatus`] |
//! | `dgt::eeprom` | [`dgt::EeRecord`]: records of the board's EEPROM move log |
//! | `dgt::command` | [`dgt::Command`], [`dgt::ClockCommand`], [`dgt::CommandDecoder`]: host → board |
//! | `dgt::error` | [`dgt::DecodeError`] |
//!
//! A prose description of the DGT protocol as implemented here is kept in
//! `protocols/dgt.md` next to this crate's `Cargo.toml`.
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

pub mod dgt;
