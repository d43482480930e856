//! The DGT e-board serial protocol.
//!
//! DGT boards (USB, classic Bluetooth, Revelation II and, with the same
//! framing, the BLE Pegasus) talk a simple binary protocol:
//!
//! * the host sends one-byte commands (plus a framed wrapper for clock
//!   commands), modelled by [`Command`] and encoded with
//!   [`Command::to_bytes`];
//! * the board answers with framed messages: an id byte with its top bit set,
//!   a 14-bit total length split over two 7-bit bytes, and a payload whose
//!   bytes all have the top bit clear. These are modelled by [`Message`] and
//!   turned from bytes into values by [`Decoder`].
//!
//! Because only the id byte may carry the top bit, a receiver that lost track
//! of the framing (line noise, a reconnect in the middle of a message) can find
//! the next message again. [`Decoder`] does that and reports the bytes it threw
//! away as [`DecodeError::Skipped`].
//!
//! For tests and for simulated boards the reverse directions exist too:
//! [`Message::to_bytes`] produces exactly what a board would send, and
//! [`CommandDecoder`] reads what a host sends.

mod battery;
pub mod bus;
mod clock;
mod command;
mod decoder;
mod eeprom;
mod error;
mod field;
mod message;
mod piece;
mod reading;

pub use battery::BatteryStatus;
pub use clock::{ClockAck, ClockButton, ClockSide, ClockStatus, ClockTimes};
pub use command::{ClockCommand, Command, CommandDecoder, clock_cmd, cmd};
pub use decoder::Decoder;
pub use eeprom::EeRecord;
pub use error::{DecodeError, MAX_SKIPPED_CHUNK};
pub use field::Field;
pub use message::{MAX_FRAME_LEN, Message, msg};
pub use piece::PieceCode;
pub use reading::{memory, snapshot};
