//! Millennium ChessLink (Exclusive, eONE, the ChessLink module).
//!
//! The board talks printable ASCII at 38400 baud with **7 data bits and odd
//! parity**. Most hosts open the line as 8 data bits without parity and
//! carry the parity bit in bit 7 of every byte themselves; so does this
//! module: the encoders set it ([`Parity::InBit7`]); the decoders check and
//! strip it, and also read bytes without it, as a 7O1 UART or another
//! program's capture delivers them ([`Parity::Either`], the default).
//!
//! A message is a command letter, its data characters and two upper-case hex
//! digits: the XOR of all preceding characters (7-bit values). Replies use
//! the lower-case letter of the command. There is no terminator; lengths are
//! fixed per letter:
//!
//! | Host sends | Board answers | Reply length |
//! |---|---|---|
//! | `S` status | `s` + 64 square characters | 67 |
//! | `V` version | `v` + 2 hex major + 2 hex minor | 7 |
//! | `L` + slot time + 81 LED patterns | `l` | 3 |
//! | `X` LEDs off | `x` | 3 |
//! | `W` + address + value | `w` + address + value | 7 |
//! | `R` + address | `r` + address + value | 7 |
//! | `T` reset | nothing | |
//!
//! Square characters are `KQRBNP` (white), `kqrbnp` (black) and `.` (empty).
//! The documented order is a8, b8, ..., h8, a7, ..., h1; some boards (and
//! the drivers written against them) use its 180° rotation, h1 first.
//! [`Orientation::detect`] tells them apart from the start position.
//!
//! Garbage (bytes with wrong parity, letters that start no reply, frames
//! cut short) is skipped up to the next byte that can start a valid frame
//! and reported once; a complete frame with a wrong checksum is dropped and
//! reported as [`StreamError::BadChecksum`].

use bytes::{Buf, BytesMut};

use crate::reading::{Content, Geometry, Piece, Snapshot, Square};
use crate::stream::{Counters, MAX_REPORTED, StreamError};

/// How the parity bit reaches the decoder.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Parity {
    /// The line is read as 8N1 and bit 7 of each byte is the odd-parity bit
    /// (the usual way): checked and stripped. Encoders set it.
    InBit7,
    /// The UART checks parity itself (7O1): bit 7 is always clear.
    Stripped,
    /// Either of the above, byte by byte (what [`Decoder::new`] reads): a
    /// byte with bit 7 set must have odd parity, a byte with bit 7 clear is
    /// taken as it is (plain 7-bit ASCII, or a character whose parity bit
    /// is 0). Encoders set the parity bit, as [`Parity::InBit7`].
    ///
    /// Design: a capture written by another program may hold the bytes with
    /// the parity bit (as the board sends them on an 8N1 line) or without
    /// it (as a 7O1 UART delivers them); the block checksum still guards
    /// every frame.
    #[default]
    Either,
}

impl Parity {
    /// The 7-bit character carried by a wire byte, or `None` if the parity
    /// is wrong.
    pub const fn strip(self, byte: u8) -> Option<u8> {
        match self {
            Parity::InBit7 | Parity::Either if byte.count_ones() % 2 == 1 => Some(byte & 0x7f),
            Parity::Stripped | Parity::Either if byte & 0x80 == 0 => Some(byte),
            _ => None,
        }
    }

    /// The wire byte for a 7-bit character.
    pub const fn apply(self, ch: u8) -> u8 {
        let ch = ch & 0x7f;
        match self {
            Parity::InBit7 | Parity::Either if ch.count_ones().is_multiple_of(2) => ch | 0x80,
            _ => ch,
        }
    }
}

/// The square characters of a status report in wire order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StatusReport {
    /// 64 characters exactly as sent: `KQRBNPkqrbnp` or `.`.
    pub cells: [u8; 64],
}

/// Which square the first character of a status report stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Orientation {
    /// The documented order: a8, b8, ..., h8, a7, ..., h1.
    #[default]
    Documented,
    /// The rotation of the documented order: h1, g1, ..., a1, h2, ..., a8.
    Rotated,
}

/// The start position in the documented order.
const START: &[u8; 64] = b"rnbqkbnrpppppppp................................PPPPPPPPRNBQKBNR";

impl Orientation {
    /// The orientation under which `report` shows the chess start position,
    /// or `None` if it shows neither it nor its rotation.
    pub fn detect(report: &StatusReport) -> Option<Orientation> {
        if &report.cells == START {
            Some(Orientation::Documented)
        } else if report.cells.iter().eq(START.iter().rev()) {
            Some(Orientation::Rotated)
        } else {
            None
        }
    }

    /// The square the character at `index` (0..64) stands for.
    pub const fn square(self, index: usize) -> Square {
        let i = match self {
            Orientation::Documented => index % 64,
            Orientation::Rotated => 63 - index % 64,
        };
        Square::new((i % 8) as u8, 7 - (i / 8) as u8)
    }
}

impl StatusReport {
    /// The board as a snapshot, reading the characters in `orientation`.
    pub fn snapshot(&self, orientation: Orientation) -> Snapshot {
        let mut cells: Vec<Content> = self.cells.iter().map(|&c| cell(c)).collect();
        if orientation == Orientation::Rotated {
            cells.reverse();
        }
        Snapshot::new(Geometry::CHESS, cells).unwrap_or_else(|| Snapshot::empty(Geometry::CHESS))
    }

    /// The report a board in `orientation` sends for `snapshot` (8 × 8;
    /// pieces other than chess letters and unidentified pieces become `.`).
    pub fn from_snapshot(snapshot: &Snapshot, orientation: Orientation) -> StatusReport {
        let mut cells = [b'.'; 64];
        for (i, c) in cells.iter_mut().enumerate() {
            if let Some(Content::Piece(p)) = snapshot.get(orientation.square(i))
                && is_piece(p.letter() as u8)
            {
                *c = p.letter() as u8;
            }
        }
        StatusReport { cells }
    }
}

fn cell(c: u8) -> Content {
    match Piece::from_letter(char::from(c)) {
        Some(p) => Content::Piece(p),
        None => Content::Empty,
    }
}

const fn is_piece(c: u8) -> bool {
    matches!(
        c,
        b'K' | b'Q' | b'R' | b'B' | b'N' | b'P' | b'k' | b'q' | b'r' | b'b' | b'n' | b'p'
    )
}

/// A board → host reply.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Reply {
    /// `s`: the board's squares.
    Status(StatusReport),
    /// `v`: firmware version.
    Version {
        /// Major version.
        major: u8,
        /// Minor version.
        minor: u8,
    },
    /// `l`: LED patterns accepted.
    LedsSet,
    /// `x`: LEDs switched off.
    LedsOff,
    /// `w`: E2ROM byte written.
    E2romWritten {
        /// Address.
        address: u8,
        /// Value written.
        value: u8,
    },
    /// `r`: E2ROM byte read.
    E2romValue {
        /// Address.
        address: u8,
        /// Value read.
        value: u8,
    },
}

/// A host → board command.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Command {
    /// `S`: send a status report.
    Status,
    /// `V`: send the firmware version.
    Version,
    /// `X`: all LEDs off.
    LedsOff,
    /// `T`: hardware reset (about 3 s, no reply).
    Reset,
    /// `R`: read an E2ROM byte.
    ReadE2rom {
        /// Address.
        address: u8,
    },
    /// `W`: write an E2ROM byte (address 2 sets the auto-report mode).
    WriteE2rom {
        /// Address.
        address: u8,
        /// Value.
        value: u8,
    },
    /// `L`: LED blink patterns; LED `column·9 + row` (column 0 on the a-file
    /// edge, row 0 on the rank-8 edge), each byte 8 time slots, bit 7 first.
    Leds {
        /// Length of one slot in units of 4.096 ms.
        slot_time: u8,
        /// The 81 patterns.
        patterns: Box<[u8; 81]>,
    },
}

/// Appends `chars` with their hex XOR checksum, applying `parity`.
fn frame(chars: &[u8], parity: Parity) -> Vec<u8> {
    let sum = chars.iter().fold(0u8, |a, &c| a ^ (c & 0x7f));
    let mut out: Vec<u8> = chars.iter().map(|&c| parity.apply(c)).collect();
    for h in hex2(sum) {
        out.push(parity.apply(h));
    }
    out
}

fn hex2(b: u8) -> [u8; 2] {
    const DIGITS: &[u8; 16] = b"0123456789ABCDEF";
    [DIGITS[usize::from(b >> 4)], DIGITS[usize::from(b & 0x0f)]]
}

fn unhex(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'A'..=b'F' => Some(c - b'A' + 10),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    }
}

fn unhex2(hi: u8, lo: u8) -> Option<u8> {
    Some(unhex(hi)? << 4 | unhex(lo)?)
}

impl Reply {
    /// The bytes a board sends for this reply (with parity in bit 7).
    pub fn to_bytes(&self) -> Vec<u8> {
        self.to_bytes_with(Parity::InBit7)
    }

    /// The bytes for this reply with the given parity handling.
    pub fn to_bytes_with(&self, parity: Parity) -> Vec<u8> {
        let mut chars = Vec::with_capacity(67);
        match self {
            Reply::Status(report) => {
                chars.push(b's');
                chars.extend(report.cells.iter().map(|c| c & 0x7f));
            }
            Reply::Version { major, minor } => {
                chars.push(b'v');
                chars.extend(hex2(*major));
                chars.extend(hex2(*minor));
            }
            Reply::LedsSet => chars.push(b'l'),
            Reply::LedsOff => chars.push(b'x'),
            Reply::E2romWritten { address, value } | Reply::E2romValue { address, value } => {
                chars.push(if matches!(self, Reply::E2romWritten { .. }) {
                    b'w'
                } else {
                    b'r'
                });
                chars.extend(hex2(*address));
                chars.extend(hex2(*value));
            }
        }
        frame(&chars, parity)
    }
}

impl Command {
    /// The bytes a host sends for this command (with parity in bit 7).
    pub fn to_bytes(&self) -> Vec<u8> {
        self.to_bytes_with(Parity::InBit7)
    }

    /// The bytes for this command with the given parity handling.
    pub fn to_bytes_with(&self, parity: Parity) -> Vec<u8> {
        let mut chars = Vec::new();
        match self {
            Command::Status => chars.push(b'S'),
            Command::Version => chars.push(b'V'),
            Command::LedsOff => chars.push(b'X'),
            Command::Reset => chars.push(b'T'),
            Command::ReadE2rom { address } => {
                chars.push(b'R');
                chars.extend(hex2(*address));
            }
            Command::WriteE2rom { address, value } => {
                chars.push(b'W');
                chars.extend(hex2(*address));
                chars.extend(hex2(*value));
            }
            Command::Leds {
                slot_time,
                patterns,
            } => {
                chars.push(b'L');
                chars.extend(hex2(*slot_time));
                for p in patterns.iter() {
                    chars.extend(hex2(*p));
                }
            }
        }
        frame(&chars, parity)
    }
}

/// What a character position in a frame may hold.
#[derive(Clone, Copy)]
enum Slot {
    Hex,
    Square,
}

/// Total length and content rule of the frame a letter starts.
type Layout = fn(u8) -> Option<(usize, Slot)>;

fn reply_layout(letter: u8) -> Option<(usize, Slot)> {
    match letter {
        b's' => Some((67, Slot::Square)),
        b'v' | b'w' | b'r' => Some((7, Slot::Hex)),
        b'l' | b'x' => Some((3, Slot::Hex)),
        _ => None,
    }
}

fn command_layout(letter: u8) -> Option<(usize, Slot)> {
    match letter {
        b'S' | b'V' | b'X' | b'T' => Some((3, Slot::Hex)),
        b'R' => Some((5, Slot::Hex)),
        b'W' => Some((7, Slot::Hex)),
        b'L' => Some((167, Slot::Hex)),
        _ => None,
    }
}

/// How the bytes at the front of a buffer look as a frame.
enum Shape {
    /// Cannot be a frame.
    Invalid,
    /// A valid beginning; more bytes needed.
    Partial,
    /// A complete frame of this many bytes (checksum not yet checked).
    Complete(usize),
}

/// The shared framing machinery of [`Decoder`] and [`CommandDecoder`].
#[derive(Debug, Default)]
struct Framer {
    parity: Parity,
    counters: Counters,
}

impl Framer {
    fn shape(&self, bytes: &[u8], layout: Layout) -> Shape {
        let Some((len, slot)) = bytes
            .first()
            .and_then(|&b| self.parity.strip(b))
            .and_then(layout)
        else {
            return Shape::Invalid;
        };
        for (i, &b) in bytes.iter().enumerate().take(len).skip(1) {
            let Some(c) = self.parity.strip(b) else {
                return Shape::Invalid;
            };
            let ok = if i >= len - 2 {
                unhex(c).is_some()
            } else {
                match slot {
                    Slot::Hex => unhex(c).is_some(),
                    Slot::Square => c == b'.' || is_piece(c),
                }
            };
            if !ok {
                return Shape::Invalid;
            }
        }
        if bytes.len() >= len {
            Shape::Complete(len)
        } else {
            Shape::Partial
        }
    }

    /// Takes one checked frame (as 7-bit characters) off the front of `buf`.
    fn next(&mut self, buf: &mut BytesMut, layout: Layout) -> Result<Option<Vec<u8>>, StreamError> {
        let result = self.next_frame(buf, layout);
        self.counters.count(&result);
        result
    }

    fn next_frame(
        &mut self,
        buf: &mut BytesMut,
        layout: Layout,
    ) -> Result<Option<Vec<u8>>, StreamError> {
        if buf.is_empty() {
            return Ok(None);
        }
        match self.shape(buf, layout) {
            Shape::Partial => Ok(None),
            Shape::Invalid => {
                let mut at = 1;
                while at < buf.len() && at < MAX_REPORTED {
                    if !matches!(self.shape(&buf[at..], layout), Shape::Invalid) {
                        break;
                    }
                    at += 1;
                }
                Err(StreamError::Skipped {
                    bytes: buf.split_to(at).to_vec(),
                })
            }
            Shape::Complete(len) => {
                let chars: Vec<u8> = buf[..len].iter().map(|&b| b & 0x7f).collect();
                let sum = chars[..len - 2].iter().fold(0u8, |a, &c| a ^ c);
                if unhex2(chars[len - 2], chars[len - 1]) == Some(sum) {
                    buf.advance(len);
                    Ok(Some(chars))
                } else {
                    Err(StreamError::BadChecksum {
                        bytes: buf.split_to(len).to_vec(),
                    })
                }
            }
        }
    }
}

/// Board → host decoder.
///
/// ```
/// use boardcast_protocols::millennium::{Decoder, Reply};
/// use bytes::BytesMut;
///
/// // The version reply of a real board: "v010374".
/// let mut buf = BytesMut::from(&[0x76, 0xb0, 0x31, 0xb0, 0xb3, 0x37, 0x34][..]);
/// let reply = Decoder::new().decode(&mut buf).unwrap();
/// assert_eq!(reply, Some(Reply::Version { major: 1, minor: 3 }));
/// ```
#[derive(Debug, Default)]
pub struct Decoder {
    framer: Framer,
}

impl Decoder {
    /// A decoder for a line read as 8N1, with or without the parity bit in
    /// bit 7 ([`Parity::Either`]).
    pub fn new() -> Decoder {
        Decoder::default()
    }

    /// A decoder with the given parity handling.
    pub fn with_parity(parity: Parity) -> Decoder {
        Decoder {
            framer: Framer {
                parity,
                counters: Counters::default(),
            },
        }
    }

    /// What the decoder has seen so far.
    pub fn counters(&self) -> Counters {
        self.framer.counters
    }

    /// Takes one reply off the front of `buf`: `Ok(None)` when more bytes
    /// are needed (nothing consumed), an error when bytes were dropped (call
    /// again). Every call that does not return `Ok(None)` consumes bytes.
    pub fn decode(&mut self, buf: &mut BytesMut) -> Result<Option<Reply>, StreamError> {
        let Some(chars) = self.framer.next(buf, reply_layout)? else {
            return Ok(None);
        };
        let hex = |i: usize| unhex2(chars[i], chars[i + 1]).unwrap_or(0);
        Ok(Some(match chars[0] {
            b's' => {
                let mut cells = [b'.'; 64];
                cells.copy_from_slice(&chars[1..65]);
                Reply::Status(StatusReport { cells })
            }
            b'v' => Reply::Version {
                major: hex(1),
                minor: hex(3),
            },
            b'l' => Reply::LedsSet,
            b'x' => Reply::LedsOff,
            b'w' => Reply::E2romWritten {
                address: hex(1),
                value: hex(3),
            },
            _ => Reply::E2romValue {
                address: hex(1),
                value: hex(3),
            },
        }))
    }
}

/// Host → board decoder (for simulated boards).
#[derive(Debug, Default)]
pub struct CommandDecoder {
    framer: Framer,
}

impl CommandDecoder {
    /// A decoder for a line read as 8N1, with or without the parity bit in
    /// bit 7 ([`Parity::Either`]).
    pub fn new() -> CommandDecoder {
        CommandDecoder::default()
    }

    /// What the decoder has seen so far.
    pub fn counters(&self) -> Counters {
        self.framer.counters
    }

    /// Takes one command off the front of `buf` (same contract as
    /// [`Decoder::decode`]).
    pub fn decode(&mut self, buf: &mut BytesMut) -> Result<Option<Command>, StreamError> {
        let Some(chars) = self.framer.next(buf, command_layout)? else {
            return Ok(None);
        };
        let hex = |i: usize| unhex2(chars[i], chars[i + 1]).unwrap_or(0);
        Ok(Some(match chars[0] {
            b'S' => Command::Status,
            b'V' => Command::Version,
            b'X' => Command::LedsOff,
            b'T' => Command::Reset,
            b'R' => Command::ReadE2rom { address: hex(1) },
            b'W' => Command::WriteE2rom {
                address: hex(1),
                value: hex(3),
            },
            _ => {
                let mut patterns = Box::new([0u8; 81]);
                for (i, p) in patterns.iter_mut().enumerate() {
                    *p = hex(3 + 2 * i);
                }
                Command::Leds {
                    slot_time: hex(1),
                    patterns,
                }
            }
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_all(bytes: &[u8]) -> (Vec<Reply>, Vec<StreamError>) {
        let mut decoder = Decoder::new();
        let mut buf = BytesMut::from(bytes);
        let mut replies = Vec::new();
        let mut errors = Vec::new();
        loop {
            let before = buf.len();
            match decoder.decode(&mut buf) {
                Ok(Some(r)) => replies.push(r),
                Ok(None) => break,
                Err(e) => errors.push(e),
            }
            assert!(buf.len() < before);
        }
        (replies, errors)
    }

    fn start() -> StatusReport {
        StatusReport { cells: *START }
    }

    #[test]
    fn recorded_version_reply_from_a_real_board_decodes() {
        // python-mchess BLE trace: host "V56" -> board "v010374".
        assert_eq!(Command::Version.to_bytes(), [0xd6, 0xb5, 0xb6]);
        let (replies, errors) = decode_all(&[0x76, 0xb0, 0x31, 0xb0, 0xb3, 0x37, 0x34]);
        assert!(errors.is_empty());
        assert_eq!(replies, [Reply::Version { major: 1, minor: 3 }]);
    }

    #[test]
    fn commands_match_the_published_byte_examples() {
        assert_eq!(Command::Status.to_bytes(), [0xd3, 0xb5, 0xb3]);
        assert_eq!(Command::LedsOff.to_bytes(), [0x58, 0xb5, 0x38]);
        assert_eq!(Command::Reset.to_bytes(), [0x54, 0xb5, 0x34]);
        assert_eq!(
            Command::ReadE2rom { address: 0 }.to_bytes(),
            [0x52, 0xb0, 0xb0, 0xb5, 0x32]
        );
    }

    #[test]
    fn start_position_report_has_checksum_73() {
        let bytes = Reply::Status(start()).to_bytes_with(Parity::Stripped);
        assert_eq!(&bytes[65..], b"73");
        let (replies, _) = decode_all(&Reply::Status(start()).to_bytes());
        assert_eq!(replies, [Reply::Status(start())]);
    }

    #[test]
    fn orientation_is_detected_from_the_start_position() {
        assert_eq!(Orientation::detect(&start()), Some(Orientation::Documented));
        let mut cells = *START;
        cells.reverse();
        let rotated = StatusReport { cells };
        assert_eq!(Orientation::detect(&rotated), Some(Orientation::Rotated));
        assert_eq!(
            rotated.snapshot(Orientation::Rotated),
            start().snapshot(Orientation::Documented)
        );
        let snap = start().snapshot(Orientation::Documented);
        assert_eq!(
            snap.get(Square::new(4, 0)),
            Some(Content::Piece(Piece::from_letter('K').unwrap()))
        );
        assert_eq!(
            StatusReport::from_snapshot(&snap, Orientation::Rotated),
            rotated
        );
        assert_eq!(
            Orientation::detect(&StatusReport { cells: [b'.'; 64] }),
            None
        );
    }

    #[test]
    fn wrong_parity_and_stray_letters_are_skipped_once() {
        let mut bytes = vec![0x76, 0x41, 0x30, 0x99]; // 'v' cut short, bad parity bytes
        let good = Reply::LedsOff.to_bytes();
        bytes.extend(&good);
        let (replies, errors) = decode_all(&bytes);
        assert_eq!(replies, [Reply::LedsOff]);
        assert_eq!(
            errors,
            [StreamError::Skipped {
                bytes: vec![0x76, 0x41, 0x30, 0x99]
            }]
        );
    }

    #[test]
    fn bad_checksum_drops_the_frame() {
        let mut bytes = Reply::Version { major: 1, minor: 3 }.to_bytes();
        let last = bytes.len() - 1;
        bytes[last] = Parity::InBit7.apply(b'5');
        bytes.extend(Reply::LedsSet.to_bytes());
        let (replies, errors) = decode_all(&bytes);
        assert_eq!(replies, [Reply::LedsSet]);
        assert!(matches!(&errors[..], [StreamError::BadChecksum { bytes }] if bytes.len() == 7));
    }

    #[test]
    fn a_status_report_cut_by_another_reply_is_skipped() {
        let status = Reply::Status(start()).to_bytes();
        let mut bytes = status[..30].to_vec();
        bytes.extend(Reply::LedsOff.to_bytes());
        let (replies, errors) = decode_all(&bytes);
        assert_eq!(replies, [Reply::LedsOff]);
        let skipped: usize = errors.iter().map(StreamError::skipped_count).sum();
        assert_eq!(skipped, 30);
        assert_eq!(errors.len(), 1, "{errors:?}");
    }

    /// Another writer's bytes: plain 7-bit ASCII (no parity bit), lower-case
    /// checksum digits, replies to LED and E2ROM commands between status
    /// reports, and the report in the rotated order, all in one stream.
    #[test]
    fn plain_ascii_lower_case_checksums_and_interleaved_replies_decode() {
        let mut rotated = *START;
        rotated.reverse();
        let mut text = b"s".to_vec();
        text.extend(&rotated);
        text.extend(b"73"); // the XOR does not depend on the order
        text.extend(b"x78w020376");
        text.extend(b"l6C");
        let mut after = *START;
        after[52] = b'.';
        after[36] = b'P';
        text.push(b's');
        text.extend(after);
        let sum = after.iter().fold(b's', |a, c| a ^ c);
        text.extend(format!("{sum:02x}").as_bytes());
        text.extend(b"v010374");
        let (replies, errors) = decode_all(&text);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(
            replies,
            [
                Reply::Status(StatusReport { cells: rotated }),
                Reply::LedsOff,
                Reply::E2romWritten {
                    address: 2,
                    value: 3
                },
                Reply::LedsSet,
                Reply::Status(StatusReport { cells: after }),
                Reply::Version { major: 1, minor: 3 },
            ]
        );
        assert_eq!(
            Orientation::detect(&StatusReport { cells: rotated }),
            Some(Orientation::Rotated)
        );
        // Bytes with the parity bit and without it may even be mixed.
        let mut mixed = Reply::LedsOff.to_bytes();
        mixed.extend(b"x78");
        let (replies, errors) = decode_all(&mixed);
        assert!(errors.is_empty());
        assert_eq!(replies, [Reply::LedsOff, Reply::LedsOff]);
    }

    #[test]
    fn a_byte_with_bit_7_set_and_even_parity_is_still_refused() {
        // "l6C" with the parity bit set on 'C' (0x43, three 1 bits) as well:
        // even parity, a line error.
        let (replies, errors) = decode_all(&[0xec, 0xb6, 0xc3]);
        assert!(replies.is_empty());
        assert_eq!(errors.len(), 1);
    }

    #[test]
    fn stripped_parity_reads_plain_ascii() {
        let mut buf = BytesMut::from(&b"v010374"[..]);
        let reply = Decoder::with_parity(Parity::Stripped).decode(&mut buf);
        assert_eq!(reply, Ok(Some(Reply::Version { major: 1, minor: 3 })));
    }

    #[test]
    fn commands_round_trip_through_the_command_decoder() {
        let mut patterns = Box::new([0u8; 81]);
        patterns[40] = 0xc4;
        let commands = [
            Command::Status,
            Command::Version,
            Command::LedsOff,
            Command::Reset,
            Command::ReadE2rom { address: 2 },
            Command::WriteE2rom {
                address: 2,
                value: 7,
            },
            Command::Leds {
                slot_time: 0x10,
                patterns,
            },
        ];
        let bytes: Vec<u8> = commands.iter().flat_map(Command::to_bytes).collect();
        let mut buf = BytesMut::from(&bytes[..]);
        let mut decoder = CommandDecoder::new();
        let mut out = Vec::new();
        while let Ok(Some(c)) = decoder.decode(&mut buf) {
            out.push(c);
        }
        assert_eq!(out, commands);
        assert_eq!(decoder.counters().decoded, 7);
    }
}
