//! Host → board commands and a decoder for them.
//!
//! Almost every command is one byte. Clock commands are wrapped in a frame
//! `2b n 03 <clock command> <data...> 00`, where `n` counts the bytes after
//! itself (from the `03` start marker to the `00` end marker).

use bytes::{Buf, BytesMut};

use super::error::{DecodeError, MAX_SKIPPED_CHUNK};

/// Command bytes sent by the host.
pub mod cmd {
    /// Back to idle mode (ends any update mode); no answer.
    pub const RESET: u8 = 0x40;
    /// Answered with one clock message.
    pub const SEND_CLOCK: u8 = 0x41;
    /// Answered with one board dump; the mode does not change.
    pub const SEND_BOARD: u8 = 0x42;
    /// Update mode: field updates plus clock messages at least every second.
    pub const SEND_UPDATE: u8 = 0x43;
    /// Update-board mode: field updates only.
    pub const SEND_UPDATE_BOARD: u8 = 0x44;
    /// Answered with the five-character serial number.
    pub const SERIAL_NUMBER: u8 = 0x45;
    /// Answered with the bus address.
    pub const BUS_ADDRESS: u8 = 0x46;
    /// Answered with the trademark text.
    pub const TRADEMARK: u8 = 0x47;
    /// Answered with the whole EEPROM log (takes seconds).
    pub const EE_MOVES: u8 = 0x49;
    /// Switches to bus mode; not modelled by [`Command`](super::Command).
    pub const TO_BUS_MODE: u8 = 0x4a;
    /// Update-nice mode: field updates plus clock messages only when the
    /// clock changed.
    pub const SEND_UPDATE_NICE: u8 = 0x4b;
    /// Answered with the battery status.
    pub const BATTERY_STATUS: u8 = 0x4c;
    /// Answered with the firmware version.
    pub const VERSION: u8 = 0x4d;
    /// Answered with the ten-character serial number.
    pub const LONG_SERIAL_NUMBER: u8 = 0x55;
    /// Starts a framed clock command.
    pub const CLOCK_MESSAGE: u8 = 0x2b;
    /// Starts a framed LED command (Revelation II, Pegasus); not modelled.
    pub const SET_LEDS: u8 = 0x60;
    /// Starts a framed developer-key command (Pegasus); not modelled.
    pub const DEVELOPER_KEY: u8 = 0x63;
}

/// Clock command ids (inside a [`cmd::CLOCK_MESSAGE`] frame). Acknowledgements
/// name the command they answer with the same id.
pub mod clock_cmd {
    /// Show raw 7-segment patterns (DGT XL).
    pub const DISPLAY: u8 = 0x01;
    /// Set the icons (DGT3000).
    pub const ICONS: u8 = 0x02;
    /// Back to showing the times.
    pub const END: u8 = 0x03;
    /// Ask for the buttons.
    pub const BUTTON: u8 = 0x08;
    /// Ask for the clock's version.
    pub const VERSION: u8 = 0x09;
    /// Set both times and start or pause (clock mode 23 only).
    pub const SET_AND_RUN: u8 = 0x0a;
    /// Beep.
    pub const BEEP: u8 = 0x0b;
    /// Show eight ASCII characters (DGT3000).
    pub const ASCII: u8 = 0x0c;
}

/// First byte after the length in a clock frame.
const CLOCK_START: u8 = 0x03;
/// Last byte of a clock frame.
const CLOCK_END: u8 = 0x00;

/// A host → board command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `0x40`: back to idle mode.
    Reset,
    /// `0x41`: send the clock times once.
    SendClock,
    /// `0x42`: send a board dump once.
    SendBoard,
    /// `0x43`: update mode (field updates and clock messages).
    SendUpdate,
    /// `0x44`: update-board mode (field updates only).
    SendUpdateBoard,
    /// `0x4b`: update-nice mode (clock messages only when they change).
    SendUpdateNice,
    /// `0x45`: send the five-character serial number.
    SerialNumber,
    /// `0x55`: send the ten-character serial number.
    LongSerialNumber,
    /// `0x46`: send the bus address.
    BusAddress,
    /// `0x47`: send the trademark text.
    Trademark,
    /// `0x4d`: send the firmware version.
    Version,
    /// `0x4c`: send the battery status.
    BatteryStatus,
    /// `0x49`: send the EEPROM log.
    EeMoves,
    /// `0x2b ...`: a command passed on to the clock.
    Clock(ClockCommand),
}

impl Command {
    /// All one-byte commands.
    pub const SINGLE_BYTE: [Command; 13] = [
        Command::Reset,
        Command::SendClock,
        Command::SendBoard,
        Command::SendUpdate,
        Command::SendUpdateBoard,
        Command::SendUpdateNice,
        Command::SerialNumber,
        Command::LongSerialNumber,
        Command::BusAddress,
        Command::Trademark,
        Command::Version,
        Command::BatteryStatus,
        Command::EeMoves,
    ];

    /// The first byte of the command on the wire.
    pub fn code(&self) -> u8 {
        match self {
            Command::Reset => cmd::RESET,
            Command::SendClock => cmd::SEND_CLOCK,
            Command::SendBoard => cmd::SEND_BOARD,
            Command::SendUpdate => cmd::SEND_UPDATE,
            Command::SendUpdateBoard => cmd::SEND_UPDATE_BOARD,
            Command::SendUpdateNice => cmd::SEND_UPDATE_NICE,
            Command::SerialNumber => cmd::SERIAL_NUMBER,
            Command::LongSerialNumber => cmd::LONG_SERIAL_NUMBER,
            Command::BusAddress => cmd::BUS_ADDRESS,
            Command::Trademark => cmd::TRADEMARK,
            Command::Version => cmd::VERSION,
            Command::BatteryStatus => cmd::BATTERY_STATUS,
            Command::EeMoves => cmd::EE_MOVES,
            Command::Clock(_) => cmd::CLOCK_MESSAGE,
        }
    }

    /// The one-byte command with this code, if there is one.
    pub fn from_byte(b: u8) -> Option<Command> {
        Self::SINGLE_BYTE.into_iter().find(|c| c.code() == b)
    }

    /// The bytes the host sends.
    pub fn to_bytes(&self) -> Vec<u8> {
        match self {
            Command::Clock(clock) => clock.to_frame(),
            other => vec![other.code()],
        }
    }
}

/// A command for the clock, sent through the board.
///
/// Send at most one clock command at a time and wait for its
/// acknowledgement; the board acknowledges only in update and update-nice
/// modes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClockCommand {
    /// Raw 7-segment display (DGT XL).
    Display {
        /// Segment bytes in wire order (digits C, B, A, F, E, D). Bit 0 top,
        /// 1 top right, 2 bottom right, 3 bottom, 4 bottom left, 5 top left,
        /// 6 middle.
        segments: [u8; 6],
        /// Dots, colons and leading ones: 0x01 right dot, 0x02 right colon,
        /// 0x04 right "1", 0x08 left dot, 0x10 left colon, 0x20 left "1".
        icons: u8,
        /// Beep when showing (wire byte 0x03; 0x01 for silence).
        beep: bool,
    },
    /// Icons of a DGT3000: four icon bytes and a special byte (bit 0 clears
    /// everything), followed on the wire by three reserved zero bytes.
    Icons {
        /// The four icon bytes and the special byte.
        bytes: [u8; 5],
    },
    /// Return to the normal time display.
    End,
    /// Ask which buttons are pressed.
    Button,
    /// Ask for the clock's version (answered in the acknowledgement).
    Version,
    /// Set both times and start (clock mode 23 only). Values are binary.
    SetAndRun {
        /// Left side `(hours, minutes, seconds)`.
        left: (u8, u8, u8),
        /// Right side `(hours, minutes, seconds)`.
        right: (u8, u8, u8),
        /// One of [`ClockCommand::RUN_LEFT`], [`ClockCommand::RUN_RIGHT`],
        /// [`ClockCommand::PAUSE`], [`ClockCommand::TOGGLE_ON_LEVER`].
        mode: u8,
    },
    /// Beep for `duration` × 64 ms.
    Beep {
        /// Length in units of 64 ms.
        duration: u8,
    },
    /// Show eight ASCII characters (DGT3000).
    Ascii {
        /// The characters.
        text: [u8; 8],
        /// Beep length code (0 = silent).
        beep: u8,
    },
}

impl ClockCommand {
    /// [`ClockCommand::SetAndRun`] mode: the left clock runs.
    pub const RUN_LEFT: u8 = 0x01;
    /// [`ClockCommand::SetAndRun`] mode: the right clock runs.
    pub const RUN_RIGHT: u8 = 0x02;
    /// [`ClockCommand::SetAndRun`] mode: both clocks stand still.
    pub const PAUSE: u8 = 0x04;
    /// [`ClockCommand::SetAndRun`] mode: the lever decides which side runs.
    pub const TOGGLE_ON_LEVER: u8 = 0x08;

    /// The clock command id (see [`clock_cmd`]).
    pub fn id(&self) -> u8 {
        match self {
            ClockCommand::Display { .. } => clock_cmd::DISPLAY,
            ClockCommand::Icons { .. } => clock_cmd::ICONS,
            ClockCommand::End => clock_cmd::END,
            ClockCommand::Button => clock_cmd::BUTTON,
            ClockCommand::Version => clock_cmd::VERSION,
            ClockCommand::SetAndRun { .. } => clock_cmd::SET_AND_RUN,
            ClockCommand::Beep { .. } => clock_cmd::BEEP,
            ClockCommand::Ascii { .. } => clock_cmd::ASCII,
        }
    }

    fn data(&self) -> Vec<u8> {
        match self {
            ClockCommand::Display {
                segments,
                icons,
                beep,
            } => {
                let mut d = segments.to_vec();
                d.push(*icons);
                d.push(if *beep { 0x03 } else { 0x01 });
                d
            }
            ClockCommand::Icons { bytes } => {
                let mut d = bytes.to_vec();
                d.extend([0, 0, 0]);
                d
            }
            ClockCommand::End | ClockCommand::Button | ClockCommand::Version => Vec::new(),
            ClockCommand::SetAndRun { left, right, mode } => {
                vec![left.0, left.1, left.2, right.0, right.1, right.2, *mode]
            }
            ClockCommand::Beep { duration } => vec![*duration],
            ClockCommand::Ascii { text, beep } => {
                let mut d = text.to_vec();
                d.push(*beep);
                d
            }
        }
    }

    /// The whole `2b n 03 id data 00` frame.
    fn to_frame(&self) -> Vec<u8> {
        let data = self.data();
        let n = data.len() + 3;
        let mut out = Vec::with_capacity(n + 2);
        out.extend([cmd::CLOCK_MESSAGE, n as u8, CLOCK_START, self.id()]);
        out.extend(data);
        out.push(CLOCK_END);
        out
    }

    /// Number of data bytes a clock command with this id carries.
    fn data_len(id: u8) -> Option<usize> {
        Some(match id {
            clock_cmd::DISPLAY | clock_cmd::ICONS => 8,
            clock_cmd::END | clock_cmd::BUTTON | clock_cmd::VERSION => 0,
            clock_cmd::SET_AND_RUN => 7,
            clock_cmd::BEEP => 1,
            clock_cmd::ASCII => 9,
            _ => return None,
        })
    }

    /// Reads the data bytes of a clock command whose length was checked.
    fn from_data(id: u8, d: &[u8]) -> Option<ClockCommand> {
        Some(match id {
            clock_cmd::DISPLAY => ClockCommand::Display {
                segments: d[..6].try_into().ok()?,
                icons: d[6],
                beep: d[7] & 0x02 != 0,
            },
            clock_cmd::ICONS => ClockCommand::Icons {
                bytes: d[..5].try_into().ok()?,
            },
            clock_cmd::END => ClockCommand::End,
            clock_cmd::BUTTON => ClockCommand::Button,
            clock_cmd::VERSION => ClockCommand::Version,
            clock_cmd::SET_AND_RUN => ClockCommand::SetAndRun {
                left: (d[0], d[1], d[2]),
                right: (d[3], d[4], d[5]),
                mode: d[6],
            },
            clock_cmd::BEEP => ClockCommand::Beep { duration: d[0] },
            clock_cmd::ASCII => ClockCommand::Ascii {
                text: d[..8].try_into().ok()?,
                beep: d[8],
            },
            _ => return None,
        })
    }
}

/// Host → board decoder (used by a simulated board that answers a host over
/// a serial line).
///
/// * One-byte commands are taken as they come.
/// * A clock frame is checked for its start and end markers and for the
///   length its command needs; a frame that fails is reported as
///   [`DecodeError::BadFrame`]. If the start marker or the length is wrong
///   only the part up to the command id is consumed (at most 4 bytes), so a
///   corrupted length cannot swallow later commands.
/// * Framed commands this crate does not model (LEDs `0x60`, developer key
///   `0x63`, clock frames with an unknown clock command such as the
///   Revelation II text command `0x0d`) are consumed whole and reported as
///   [`DecodeError::Skipped`], so their data bytes are never mistaken for
///   commands.
/// * Any other byte (bus-mode switch, boot loader, draughts commands, noise)
///   is skipped together with the following bytes up to the next byte that
///   can start a command.
#[derive(Debug, Default)]
pub struct CommandDecoder {
    skipped: u64,
}

impl CommandDecoder {
    /// A decoder at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Total number of bytes reported as [`DecodeError::Skipped`] so far.
    pub fn skipped_bytes(&self) -> u64 {
        self.skipped
    }

    /// Takes one command off the front of `buf`.
    ///
    /// Same contract as [`Decoder::decode`](crate::dgt::Decoder::decode):
    /// `Ok(None)` means more bytes are needed and leaves `buf` alone; every
    /// other result consumed at least one byte.
    pub fn decode(&mut self, buf: &mut BytesMut) -> Result<Option<Command>, DecodeError> {
        let result = decode_command(buf);
        if let Err(DecodeError::Skipped { bytes }) = &result {
            self.skipped += bytes.len() as u64;
        }
        result
    }
}

fn starts_command(b: u8) -> bool {
    matches!(b, cmd::CLOCK_MESSAGE | cmd::SET_LEDS | cmd::DEVELOPER_KEY)
        || Command::from_byte(b).is_some()
}

fn decode_command(buf: &mut BytesMut) -> Result<Option<Command>, DecodeError> {
    let Some(&first) = buf.first() else {
        return Ok(None);
    };
    if let Some(command) = Command::from_byte(first) {
        buf.advance(1);
        return Ok(Some(command));
    }
    match first {
        cmd::CLOCK_MESSAGE => decode_clock_frame(buf),
        cmd::SET_LEDS | cmd::DEVELOPER_KEY => {
            let Some(&n) = buf.get(1) else {
                return Ok(None);
            };
            let total = usize::from(n) + 2;
            if buf.len() < total {
                return Ok(None);
            }
            Err(skipped(buf, total))
        }
        _ => {
            let end = buf[1..]
                .iter()
                .position(|&b| starts_command(b))
                .map_or(buf.len(), |i| i + 1);
            Err(skipped(buf, end.min(MAX_SKIPPED_CHUNK)))
        }
    }
}

fn decode_clock_frame(buf: &mut BytesMut) -> Result<Option<Command>, DecodeError> {
    let Some(&n) = buf.get(1) else {
        return Ok(None);
    };
    let n = usize::from(n);
    if n < 3 {
        return Err(bad(buf, 2, "clock frame shorter than its markers"));
    }
    let Some(&start) = buf.get(2) else {
        return Ok(None);
    };
    if start != CLOCK_START {
        return Err(bad(buf, 2, "clock frame without start marker"));
    }
    let Some(&id) = buf.get(3) else {
        return Ok(None);
    };
    let total = n + 2;
    match ClockCommand::data_len(id) {
        Some(data_len) if data_len + 3 != n => {
            return Err(bad(buf, 4, "wrong length for this clock command"));
        }
        Some(_) => {}
        None => {
            // A clock command we do not model: drop the whole frame.
            if buf.len() < total {
                return Ok(None);
            }
            return Err(skipped(buf, total));
        }
    }
    if buf.len() < total {
        return Ok(None);
    }
    if buf[total - 1] != CLOCK_END {
        return Err(bad(buf, total, "clock frame without end marker"));
    }
    match ClockCommand::from_data(id, &buf[4..total - 1]) {
        Some(clock) => {
            buf.advance(total);
            Ok(Some(Command::Clock(clock)))
        }
        None => Err(bad(buf, total, "malformed clock command")),
    }
}

fn skipped(buf: &mut BytesMut, n: usize) -> DecodeError {
    DecodeError::Skipped {
        bytes: buf.split_to(n.clamp(1, buf.len())).to_vec(),
    }
}

fn bad(buf: &mut BytesMut, n: usize, reason: &'static str) -> DecodeError {
    DecodeError::BadFrame {
        id: cmd::CLOCK_MESSAGE,
        reason,
        bytes: buf.split_to(n.min(buf.len())).to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_all(bytes: &[u8]) -> (Vec<Command>, Vec<DecodeError>, BytesMut) {
        let mut decoder = CommandDecoder::new();
        let mut buf = BytesMut::from(bytes);
        let mut commands = Vec::new();
        let mut errors = Vec::new();
        loop {
            let before = buf.len();
            match decoder.decode(&mut buf) {
                Ok(Some(c)) => commands.push(c),
                Ok(None) => {
                    assert_eq!(buf.len(), before);
                    break;
                }
                Err(e) => errors.push(e),
            }
            assert!(buf.len() < before);
        }
        (commands, errors, buf)
    }

    #[test]
    fn single_byte_commands_have_the_documented_codes() {
        let expected = [
            (Command::Reset, 0x40),
            (Command::SendClock, 0x41),
            (Command::SendBoard, 0x42),
            (Command::SendUpdate, 0x43),
            (Command::SendUpdateBoard, 0x44),
            (Command::SerialNumber, 0x45),
            (Command::BusAddress, 0x46),
            (Command::Trademark, 0x47),
            (Command::EeMoves, 0x49),
            (Command::SendUpdateNice, 0x4b),
            (Command::BatteryStatus, 0x4c),
            (Command::Version, 0x4d),
            (Command::LongSerialNumber, 0x55),
        ];
        for (command, byte) in expected.clone() {
            assert_eq!(command.to_bytes(), vec![byte], "{command:?}");
            assert_eq!(Command::from_byte(byte), Some(command.clone()));
            let (decoded, errors, _) = decode_all(&[byte]);
            assert_eq!(decoded, vec![command]);
            assert!(errors.is_empty());
        }
        assert_eq!(expected.len(), Command::SINGLE_BYTE.len());
    }

    #[test]
    fn clock_end_button_and_version_are_five_byte_frames() {
        assert_eq!(
            Command::Clock(ClockCommand::End).to_bytes(),
            vec![0x2b, 0x03, 0x03, 0x03, 0x00]
        );
        assert_eq!(
            Command::Clock(ClockCommand::Button).to_bytes(),
            vec![0x2b, 0x03, 0x03, 0x08, 0x00]
        );
        assert_eq!(
            Command::Clock(ClockCommand::Version).to_bytes(),
            vec![0x2b, 0x03, 0x03, 0x09, 0x00]
        );
    }

    #[test]
    fn clock_display_frame_has_six_segments_icons_and_beep() {
        let command = Command::Clock(ClockCommand::Display {
            segments: [0x3f, 0x06, 0x5b, 0x4f, 0x66, 0x6d],
            icons: 0x12,
            beep: true,
        });
        let bytes = vec![
            0x2b, 0x0b, 0x03, 0x01, 0x3f, 0x06, 0x5b, 0x4f, 0x66, 0x6d, 0x12, 0x03, 0x00,
        ];
        assert_eq!(command.to_bytes(), bytes);
        assert_eq!(decode_all(&bytes).0, vec![command]);
        let silent = Command::Clock(ClockCommand::Display {
            segments: [0; 6],
            icons: 0,
            beep: false,
        });
        assert_eq!(silent.to_bytes()[11], 0x01);
    }

    #[test]
    fn clock_icons_frame_ends_with_three_reserved_zeros() {
        let command = Command::Clock(ClockCommand::Icons {
            bytes: [1, 2, 3, 4, 1],
        });
        let bytes = vec![0x2b, 0x0b, 0x03, 0x02, 1, 2, 3, 4, 1, 0, 0, 0, 0x00];
        assert_eq!(command.to_bytes(), bytes);
        assert_eq!(decode_all(&bytes).0, vec![command]);
    }

    #[test]
    fn set_and_run_frame_carries_left_then_right_then_mode() {
        let command = Command::Clock(ClockCommand::SetAndRun {
            left: (1, 30, 0),
            right: (1, 29, 59),
            mode: ClockCommand::RUN_RIGHT,
        });
        let bytes = vec![0x2b, 0x0a, 0x03, 0x0a, 1, 30, 0, 1, 29, 59, 0x02, 0x00];
        assert_eq!(command.to_bytes(), bytes);
        assert_eq!(decode_all(&bytes).0, vec![command]);
    }

    #[test]
    fn beep_frame_carries_the_duration() {
        let command = Command::Clock(ClockCommand::Beep { duration: 8 });
        let bytes = vec![0x2b, 0x04, 0x03, 0x0b, 0x08, 0x00];
        assert_eq!(command.to_bytes(), bytes);
        assert_eq!(decode_all(&bytes).0, vec![command]);
    }

    #[test]
    fn ascii_frame_carries_eight_characters_and_beep() {
        let command = Command::Clock(ClockCommand::Ascii {
            text: *b"boardcst",
            beep: 0,
        });
        let mut bytes = vec![0x2b, 0x0c, 0x03, 0x0c];
        bytes.extend(b"boardcst");
        bytes.extend([0x00, 0x00]);
        assert_eq!(command.to_bytes(), bytes);
        assert_eq!(decode_all(&bytes).0, vec![command]);
    }

    #[test]
    fn every_clock_frame_length_byte_counts_the_bytes_after_it() {
        let commands = [
            ClockCommand::Display {
                segments: [0; 6],
                icons: 0,
                beep: false,
            },
            ClockCommand::Icons { bytes: [0; 5] },
            ClockCommand::End,
            ClockCommand::Button,
            ClockCommand::Version,
            ClockCommand::SetAndRun {
                left: (0, 0, 0),
                right: (0, 0, 0),
                mode: 0,
            },
            ClockCommand::Beep { duration: 0 },
            ClockCommand::Ascii {
                text: [b' '; 8],
                beep: 0,
            },
        ];
        let expected_n = [0x0b, 0x0b, 0x03, 0x03, 0x03, 0x0a, 0x04, 0x0c];
        for (command, n) in commands.into_iter().zip(expected_n) {
            let bytes = Command::Clock(command.clone()).to_bytes();
            assert_eq!(bytes[1], n, "{command:?}");
            assert_eq!(bytes.len(), usize::from(n) + 2);
            assert_eq!(bytes[3], command.id());
        }
    }

    #[test]
    fn picochess_start_up_sequence_decodes() {
        let bytes = [0x4b, 0x4d, 0x42, 0x2b, 0x03, 0x03, 0x09, 0x00, 0x4c];
        let (commands, errors, rest) = decode_all(&bytes);
        assert_eq!(
            commands,
            vec![
                Command::SendUpdateNice,
                Command::Version,
                Command::SendBoard,
                Command::Clock(ClockCommand::Version),
                Command::BatteryStatus
            ]
        );
        assert!(errors.is_empty());
        assert!(rest.is_empty());
    }

    #[test]
    fn split_clock_frame_waits_for_the_rest() {
        let bytes = Command::Clock(ClockCommand::Beep { duration: 3 }).to_bytes();
        for cut in 0..bytes.len() {
            let mut buf = BytesMut::from(&bytes[..cut]);
            assert_eq!(
                CommandDecoder::new().decode(&mut buf),
                Ok(None),
                "cut {cut}"
            );
            assert_eq!(buf.len(), cut);
        }
    }

    #[test]
    fn led_and_developer_key_frames_are_skipped_whole() {
        // Clearing the LEDs contains 0x40 (reset) as data; it must not leak.
        let bytes = [
            0x60, 0x04, 0x00, 0x40, 0x40, 0x00, 0x63, 0x07, 1, 2, 3, 4, 5, 6, 0x00, 0x42,
        ];
        let (commands, errors, _) = decode_all(&bytes);
        assert_eq!(commands, vec![Command::SendBoard]);
        assert_eq!(
            errors,
            vec![
                DecodeError::Skipped {
                    bytes: bytes[..6].to_vec()
                },
                DecodeError::Skipped {
                    bytes: bytes[6..15].to_vec()
                },
            ]
        );
    }

    #[test]
    fn unknown_clock_command_is_skipped_whole() {
        let mut bytes = vec![0x2b, 0x0f, 0x03, 0x0d];
        bytes.extend(b"hello world");
        bytes.extend([0x00, 0x00, 0x41]);
        let (commands, errors, _) = decode_all(&bytes);
        assert_eq!(commands, vec![Command::SendClock]);
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].skipped_count(), 17);
    }

    #[test]
    fn unknown_bytes_are_skipped_up_to_the_next_command() {
        let mut decoder = CommandDecoder::new();
        let mut buf = BytesMut::from(&[0x4a, 0x00, 0x13, 0x45][..]);
        assert_eq!(
            decoder.decode(&mut buf),
            Err(DecodeError::Skipped {
                bytes: vec![0x4a, 0x00, 0x13]
            })
        );
        assert_eq!(decoder.decode(&mut buf), Ok(Some(Command::SerialNumber)));
        assert_eq!(decoder.skipped_bytes(), 3);
    }

    #[test]
    fn clock_frame_with_wrong_length_is_a_bad_frame() {
        let bytes = [0x2b, 0x05, 0x03, 0x0b, 0x08, 0x00];
        let (_, errors, _) = decode_all(&bytes);
        assert!(matches!(
            &errors[0],
            DecodeError::BadFrame { id: 0x2b, reason: "wrong length for this clock command", bytes }
                if bytes == &[0x2b, 0x05, 0x03, 0x0b]
        ));
    }

    #[test]
    fn clock_frame_without_markers_is_a_bad_frame() {
        let (_, errors, _) = decode_all(&[0x2b, 0x04, 0x02, 0x0b, 0x08, 0x00]);
        assert!(matches!(
            &errors[0],
            DecodeError::BadFrame {
                reason: "clock frame without start marker",
                ..
            }
        ));
        let (commands, errors, _) = decode_all(&[0x2b, 0x04, 0x03, 0x0b, 0x08, 0x01, 0x41]);
        assert!(matches!(
            &errors[0],
            DecodeError::BadFrame { reason: "clock frame without end marker", bytes, .. }
                if bytes.len() == 6
        ));
        assert_eq!(commands, vec![Command::SendClock]);
        let (_, errors, _) = decode_all(&[0x2b, 0x02, 0x03]);
        assert!(matches!(
            &errors[0],
            DecodeError::BadFrame {
                reason: "clock frame shorter than its markers",
                ..
            }
        ));
    }
}
