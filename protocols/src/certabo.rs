//! Certabo RFID boards (and Tabutronic / Sentio occupancy boards).
//!
//! The board (a CP210x bridge at 38400 8N1) sends ASCII text lines: a `:`,
//! then decimal numbers separated by spaces, then `\r\n`. A Certabo frame has
//! 320 numbers, the 5-byte RFID card id of each of the 64 squares in the
//! order a8, b8, ..., h8, a7, ..., h1; a Tabutronic frame has 8 numbers, one
//! occupancy byte per rank (rank 8 first, bit 7 = file a).
//!
//! Reads are noisy: an empty square may show a partial id such as
//! `0 0 56 0 0`, so a square counts as empty when more than two of its five
//! numbers are 0 ([`CardId::is_empty`]). Frames may carry marker letters
//! (`L`, `D`, `*`) and stray line breaks; both are tolerated.
//!
//! The board does not know which card is which piece: the host learns it
//! once from the start position ([`Calibration`]). The decoder itself only
//! reports raw ids per square ([`Frame::Rfid`]).
//!
//! The host sends 8 raw bytes to light LEDs ([`Leds`]), one per rank from
//! rank 8, bit value 2^file with file a = bit 0.

use std::collections::HashMap;

use bytes::{Buf, BytesMut};

use crate::reading::{Content, Geometry, Piece, Snapshot, Square};
use crate::stream::{Counters, MAX_REPORTED, StreamError};

/// Longest frame accepted, in bytes (320 numbers of up to 3 digits with
/// separators and markers fit comfortably).
pub const MAX_FRAME_BYTES: usize = 2048;

/// The five numbers an RFID reader returns for one square.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct CardId(pub [u8; 5]);

impl CardId {
    /// True when more than two of the five numbers are 0: no card, or noise.
    pub fn is_empty(&self) -> bool {
        self.0.iter().filter(|&&b| b == 0).count() > 2
    }
}

/// A board → host frame.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Frame {
    /// Certabo: the card id of every square, a8 first.
    Rfid(Box<[CardId; 64]>),
    /// Tabutronic: one occupancy byte per rank, rank 8 first, bit 7 = file a.
    Occupancy([u8; 8]),
}

impl Frame {
    /// The frame as the board sends it: `:` + numbers + `\r\n`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let numbers: Vec<u8> = match self {
            Frame::Rfid(ids) => ids.iter().flat_map(|id| id.0).collect(),
            Frame::Occupancy(ranks) => ranks.to_vec(),
        };
        let mut out = vec![b':'];
        for (i, n) in numbers.iter().enumerate() {
            if i > 0 {
                out.push(b' ');
            }
            out.extend(n.to_string().as_bytes());
        }
        out.extend(b"\r\n");
        out
    }

    /// The occupancy a Tabutronic frame reports (pieces unidentified).
    pub fn occupancy_snapshot(ranks: &[u8; 8]) -> Snapshot {
        let mut snap = Snapshot::empty(Geometry::CHESS);
        for (r, byte) in ranks.iter().enumerate() {
            for file in 0..8u8 {
                if byte & (0x80 >> file) != 0 {
                    snap.set(Square::new(file, 7 - r as u8), Content::Occupied);
                }
            }
        }
        snap
    }
}

/// Which frames the decoder expects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Kind {
    /// Certabo RFID frames (320 numbers).
    #[default]
    Rfid,
    /// Tabutronic occupancy frames (8 numbers).
    Occupancy,
}

impl Kind {
    const fn numbers(self) -> usize {
        match self {
            Kind::Rfid => 320,
            Kind::Occupancy => 8,
        }
    }
}

/// Board → host decoder.
///
/// A frame ends at the line end after its last number (`\r\n`, `\n` or a
/// lone `\r`), or at the `:` of the next frame when its line end is
/// missing; a line end earlier is a stray one and is ignored (a frame may
/// come in several lines). A new `:` before the frame is complete (a
/// partial line), a number above 255, a character other than digits,
/// spaces, `\r`, `\n`, `L`, `D` and `*`, or more numbers than a frame holds
/// make the frame malformed: it is dropped up to the next `:` and reported
/// as [`StreamError::Malformed`]. Line ends, spaces and markers between
/// frames are dropped silently; other bytes before a `:` are garbage
/// ([`StreamError::Skipped`]).
///
/// ```
/// use boardcast_protocols::certabo::{Decoder, Frame, Kind};
/// use bytes::BytesMut;
///
/// let mut decoder = Decoder::new(Kind::Occupancy);
/// let mut buf = BytesMut::from(&b":255 255 0 0 0 0 255 255 \r\n"[..]);
/// let frame = decoder.decode(&mut buf).unwrap();
/// assert_eq!(frame, Some(Frame::Occupancy([255, 255, 0, 0, 0, 0, 255, 255])));
/// ```
#[derive(Debug, Default)]
pub struct Decoder {
    kind: Kind,
    counters: Counters,
}

/// How the front of the buffer looks.
enum Scan {
    NeedMore,
    Complete { numbers: Vec<u8>, len: usize },
    Malformed(&'static str),
}

impl Decoder {
    /// A decoder for frames of `kind`.
    pub fn new(kind: Kind) -> Decoder {
        Decoder {
            kind,
            counters: Counters::default(),
        }
    }

    /// What the decoder has seen so far.
    pub fn counters(&self) -> Counters {
        self.counters
    }

    /// Takes one frame off the front of `buf`: `Ok(None)` when more bytes
    /// are needed (nothing consumed but line ends between frames), an error
    /// when bytes were dropped (call again).
    pub fn decode(&mut self, buf: &mut BytesMut) -> Result<Option<Frame>, StreamError> {
        let result = self.decode_frame(buf);
        self.counters.count(&result);
        result
    }

    fn decode_frame(&mut self, buf: &mut BytesMut) -> Result<Option<Frame>, StreamError> {
        // Line ends and markers between frames (the `\n` of a `\r\n` whose
        // `\r` ended the frame before it) are dropped without a report.
        let between = buf.iter().take_while(|&&b| is_filler(b)).count();
        buf.advance(between);
        if buf.is_empty() {
            return Ok(None);
        }
        if buf[0] != b':' {
            let end = buf.iter().position(|&b| b == b':').unwrap_or(buf.len());
            let n = end.min(MAX_REPORTED);
            return Err(StreamError::Skipped {
                bytes: buf.split_to(n).to_vec(),
            });
        }
        // A frame can only end (or be cut short) at a line end or a new
        // `:`; until one arrives there is nothing to decide.
        let decidable = buf.len() >= MAX_FRAME_BYTES
            || buf[1..]
                .iter()
                .any(|&b| b == b'\n' || b == b'\r' || b == b':');
        if !decidable {
            return Ok(None);
        }
        match self.scan(buf) {
            Scan::NeedMore => Ok(None),
            Scan::Complete { numbers, len } => {
                buf.advance(len);
                Ok(Some(match self.kind {
                    Kind::Occupancy => {
                        let mut ranks = [0u8; 8];
                        ranks.copy_from_slice(&numbers);
                        Frame::Occupancy(ranks)
                    }
                    Kind::Rfid => {
                        let mut ids = Box::new([CardId::default(); 64]);
                        for (id, chunk) in ids.iter_mut().zip(numbers.chunks_exact(5)) {
                            id.0.copy_from_slice(chunk);
                        }
                        Frame::Rfid(ids)
                    }
                }))
            }
            Scan::Malformed(reason) => {
                let end = buf[1..]
                    .iter()
                    .position(|&b| b == b':')
                    .map_or(buf.len(), |i| i + 1);
                let bytes = buf.split_to(end);
                Err(StreamError::Malformed {
                    reason,
                    bytes: bytes[..bytes.len().min(MAX_REPORTED)].to_vec(),
                })
            }
        }
    }

    fn scan(&self, buf: &[u8]) -> Scan {
        let want = self.kind.numbers();
        let mut numbers = Vec::with_capacity(want);
        let mut current: Option<u16> = None;
        for (i, &b) in buf.iter().enumerate().skip(1) {
            if i >= MAX_FRAME_BYTES {
                return Scan::Malformed("frame too long");
            }
            match b {
                b'0'..=b'9' => {
                    let value = current.unwrap_or(0) * 10 + u16::from(b - b'0');
                    if value > 255 {
                        return Scan::Malformed("number above 255");
                    }
                    current = Some(value);
                    continue;
                }
                b' ' | b'\r' | b'\n' | b'\t' | b':' | b'L' | b'D' | b'*' => {}
                _ => return Scan::Malformed("unexpected character"),
            }
            if let Some(value) = current.take() {
                if numbers.len() == want {
                    return Scan::Malformed("too many numbers");
                }
                numbers.push(value as u8);
            }
            let complete = numbers.len() == want;
            match b {
                // A frame ends at the line end (`\r\n`, `\n` or `\r`) after
                // its last number; a line end earlier is a stray one.
                b'\r' | b'\n' if complete => {
                    return Scan::Complete {
                        numbers,
                        len: i + 1,
                    };
                }
                // A whole frame followed by the next one without a line end.
                b':' if complete => return Scan::Complete { numbers, len: i },
                b':' => return Scan::Malformed("frame cut short by a new frame"),
                _ => {}
            }
        }
        Scan::NeedMore
    }
}

/// Bytes that may stand between frames: line ends, spaces and the marker
/// letters some firmware appends.
const fn is_filler(b: u8) -> bool {
    matches!(b, b'\r' | b'\n' | b' ' | b'\t' | b'L' | b'D' | b'*')
}

/// Host → board LED bytes: one per rank, rank 8 first; bit value 2^file
/// (file a = bit 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Leds(pub [u8; 8]);

impl Leds {
    /// The LED bytes lighting `squares` (8 × 8 squares off the board are
    /// ignored).
    pub fn lighting(squares: &[Square]) -> Leds {
        let mut bytes = [0u8; 8];
        for s in squares {
            if s.file < 8 && s.rank < 8 {
                bytes[usize::from(7 - s.rank)] |= 1 << s.file;
            }
        }
        Leds(bytes)
    }

    /// The 8 bytes sent to the board.
    pub fn to_bytes(self) -> [u8; 8] {
        self.0
    }

    /// Takes one LED command off the front of `buf` (for simulated boards):
    /// `None` until 8 bytes are there.
    pub fn decode(buf: &mut BytesMut) -> Option<Leds> {
        if buf.len() < 8 {
            return None;
        }
        let mut bytes = [0u8; 8];
        buf.copy_to_slice(&mut bytes);
        Some(Leds(bytes))
    }
}

/// Why a frame cannot serve as the calibration position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CalibrationError {
    /// A start square has no card.
    #[error("no piece on {0}: set up the start position before calibrating")]
    MissingPiece(Square),
    /// Two squares of different pieces report the same card.
    #[error("{0} and {1} report the same card for different pieces")]
    DuplicateCard(Square, Square),
}

/// The card id → piece map, learnt from the start position.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Calibration {
    pieces: HashMap<CardId, Piece>,
}

/// The start position, a8 first.
const START: &[u8; 64] = b"rnbqkbnrpppppppp................................PPPPPPPPRNBQKBNR";

/// Frame indices of the spare queens' calibration squares: d6 (black) and
/// d3 (white).
const SPARE_QUEENS: [(usize, char); 2] = [(19, 'q'), (43, 'Q')];

impl Calibration {
    /// Learns every card of the start position from `frame` (the board seen
    /// the normal way round, a8 first). Spare queens standing on d6 (black)
    /// and d3 (white) are learnt too.
    pub fn from_start_position(frame: &[CardId; 64]) -> Result<Calibration, CalibrationError> {
        let mut pieces = HashMap::new();
        let mut seen: HashMap<CardId, (usize, u8)> = HashMap::new();
        let square = |i: usize| Geometry::CHESS.square(i).unwrap_or(Square::new(0, 0));
        let spares = SPARE_QUEENS
            .iter()
            .filter(|(i, _)| !frame[*i].is_empty())
            .map(|&(i, c)| (i, c as u8));
        let start = START
            .iter()
            .enumerate()
            .filter(|(_, c)| **c != b'.')
            .map(|(i, &c)| (i, c));
        for (i, letter) in start.chain(spares) {
            let id = frame[i];
            if id.is_empty() {
                return Err(CalibrationError::MissingPiece(square(i)));
            }
            // Design: two pieces of the same kind may share a card id (a
            // simulated set, or a maker's board with one tag per kind):
            // harmless, the card reads as that kind. One card on two
            // different pieces cannot be calibrated.
            if let Some(&(j, other)) = seen.get(&id)
                && other != letter
            {
                return Err(CalibrationError::DuplicateCard(square(j), square(i)));
            }
            seen.insert(id, (i, letter));
            if let Some(piece) = Piece::from_letter(char::from(letter)) {
                pieces.insert(id, piece);
            }
        }
        Ok(Calibration { pieces })
    }

    /// Adds (or replaces) one card.
    pub fn insert(&mut self, id: CardId, piece: Piece) {
        self.pieces.insert(id, piece);
    }

    /// Number of cards known.
    pub fn len(&self) -> usize {
        self.pieces.len()
    }

    /// True if no card is known.
    pub fn is_empty(&self) -> bool {
        self.pieces.is_empty()
    }

    /// What a square holding `id` holds: empty, a known piece, or an
    /// unidentified piece for a card never calibrated.
    pub fn content(&self, id: &CardId) -> Content {
        if id.is_empty() {
            Content::Empty
        } else {
            self.pieces
                .get(id)
                .map_or(Content::Occupied, |&p| Content::Piece(p))
        }
    }

    /// The board a frame shows.
    pub fn snapshot(&self, frame: &[CardId; 64]) -> Snapshot {
        let cells = frame.iter().map(|id| self.content(id)).collect();
        Snapshot::new(Geometry::CHESS, cells).unwrap_or_else(|| Snapshot::empty(Geometry::CHESS))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A start position with distinct made-up ids on the 32 start squares.
    pub(crate) fn start_frame() -> Box<[CardId; 64]> {
        let mut ids = Box::new([CardId::default(); 64]);
        for (i, c) in START.iter().enumerate() {
            if *c != b'.' {
                ids[i] = CardId([i as u8 + 1, 10, 20, 30, 40]);
            }
        }
        ids
    }

    fn decode_all(kind: Kind, bytes: &[u8]) -> (Vec<Frame>, Vec<StreamError>) {
        let mut decoder = Decoder::new(kind);
        let mut buf = BytesMut::from(bytes);
        let mut frames = Vec::new();
        let mut errors = Vec::new();
        loop {
            let before = buf.len();
            match decoder.decode(&mut buf) {
                Ok(Some(f)) => frames.push(f),
                Ok(None) => break,
                Err(e) => errors.push(e),
            }
            assert!(buf.len() < before);
        }
        (frames, errors)
    }

    #[test]
    fn recorded_occupancy_frames_decode() {
        // Published examples: start-position occupancy, and h1 empty.
        let (frames, errors) = decode_all(
            Kind::Occupancy,
            b":255 255 0 0 0 0 255 255 \r\n:255 255 0 0 0 0 255 254\r\n",
        );
        assert!(errors.is_empty());
        assert_eq!(frames.len(), 2);
        let Frame::Occupancy(ranks) = frames[1] else {
            panic!()
        };
        let snap = Frame::occupancy_snapshot(&ranks);
        assert_eq!(snap.get(Square::new(7, 0)), Some(Content::Empty));
        assert_eq!(snap.get(Square::new(6, 0)), Some(Content::Occupied));
        assert_eq!(snap.get(Square::new(0, 7)), Some(Content::Occupied));
        assert_eq!(snap.get(Square::new(0, 5)), Some(Content::Empty));
    }

    #[test]
    fn noisy_partial_ids_count_as_empty() {
        assert!(CardId([0, 0, 56, 0, 0]).is_empty());
        assert!(CardId([201, 0, 0, 0, 0]).is_empty());
        assert!(!CardId([201, 3, 0, 0, 9]).is_empty());
    }

    #[test]
    fn rfid_frame_round_trips_with_markers_and_stray_newlines() {
        let frame = Frame::Rfid(start_frame());
        let mut bytes = b"junk".to_vec();
        let text = frame.to_bytes();
        // A stray line break in the middle and a marker before the end.
        bytes.extend(&text[..40]);
        bytes.extend(b"\n");
        bytes.extend(&text[40..text.len() - 2]);
        bytes.extend(b" L\r\n");
        let (frames, errors) = decode_all(Kind::Rfid, &bytes);
        assert_eq!(frames, [frame]);
        assert_eq!(
            errors,
            [StreamError::Skipped {
                bytes: b"junk".to_vec()
            }]
        );
    }

    /// Line ends as other writers send them: `\r\n`, `\n`, a lone `\r`, none
    /// at all before the next frame, a frame spread over two lines; none of
    /// them is reported as dropped input.
    #[test]
    fn every_line_end_variant_decodes_without_a_report() {
        let frames: Vec<Frame> = (1..=6u8)
            .map(|n| Frame::Occupancy([n, 2, 3, 4, 5, 6, 7, 8]))
            .collect();
        let body = |f: &Frame| {
            let b = f.to_bytes();
            b[..b.len() - 2].to_vec()
        };
        let mut bytes = Vec::new();
        bytes.extend(body(&frames[0]));
        bytes.extend(b"\r\n");
        bytes.extend(body(&frames[1]));
        bytes.extend(b"\n");
        bytes.extend(body(&frames[2]));
        bytes.extend(b"\r");
        bytes.extend(body(&frames[3])); // no line end at all
        let split = body(&frames[4]);
        bytes.extend(&split[..6]);
        bytes.extend(b"\r\n"); // the frame goes on on the next line
        bytes.extend(&split[6..]);
        bytes.extend(b" L D\r\n\r\n");
        bytes.extend(body(&frames[5]));
        bytes.extend(b"\r\n");
        let (decoded, errors) = decode_all(Kind::Occupancy, &bytes);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(decoded, frames);
        // Fed one byte at a time, the same frames.
        let mut decoder = Decoder::new(Kind::Occupancy);
        let mut buf = BytesMut::new();
        let mut one_by_one = Vec::new();
        for b in bytes {
            buf.extend_from_slice(&[b]);
            while let Ok(Some(f)) = decoder.decode(&mut buf) {
                one_by_one.push(f);
            }
        }
        assert_eq!(one_by_one, frames);
    }

    #[test]
    fn a_partial_line_cut_by_the_next_frame_is_dropped_alone() {
        let whole = Frame::Rfid(start_frame());
        let text = whole.to_bytes();
        let mut bytes = text[..200].to_vec();
        bytes.extend(b"\r\n");
        bytes.extend(&text);
        let (frames, errors) = decode_all(Kind::Rfid, &bytes);
        assert_eq!(frames, [whole]);
        assert!(
            matches!(&errors[..], [StreamError::Malformed { reason, .. }] if reason.contains("cut short")),
            "{errors:?}"
        );
    }

    #[test]
    fn frame_cut_by_a_new_frame_is_malformed_and_the_next_decodes() {
        let good = Frame::Occupancy([1, 2, 3, 4, 5, 6, 7, 8]).to_bytes();
        let mut bytes = b":1 2 3".to_vec();
        bytes.extend(&good);
        let (frames, errors) = decode_all(Kind::Occupancy, &bytes);
        assert_eq!(frames, [Frame::Occupancy([1, 2, 3, 4, 5, 6, 7, 8])]);
        assert!(matches!(
            &errors[..],
            [StreamError::Malformed { bytes, .. }] if bytes == b":1 2 3"
        ));
    }

    #[test]
    fn numbers_above_255_and_stray_letters_are_malformed() {
        for bad in [
            &b":1 2 3 4 5 6 7 256\r\n"[..],
            b":1 2 x 4 5 6 7 8\r\n",
            b":1 2 3 4 5 6 7 8 9\r\n",
        ] {
            let (frames, errors) = decode_all(Kind::Occupancy, bad);
            assert!(frames.is_empty());
            assert!(
                matches!(&errors[..], [StreamError::Malformed { .. }]),
                "{errors:?}"
            );
        }
    }

    #[test]
    fn calibration_maps_cards_to_pieces() {
        let frame = start_frame();
        let calibration = Calibration::from_start_position(&frame).unwrap();
        assert_eq!(calibration.len(), 32);
        let snap = calibration.snapshot(&frame);
        assert_eq!(snap.to_cells_string().as_bytes(), START);
        // A card never seen reads as an unidentified piece.
        assert_eq!(
            calibration.content(&CardId([9, 9, 9, 9, 9])),
            Content::Occupied
        );
        let mut missing = frame.clone();
        missing[60] = CardId([0, 0, 7, 0, 0]);
        assert_eq!(
            Calibration::from_start_position(&missing),
            Err(CalibrationError::MissingPiece(Square::new(4, 0)))
        );
        // Pieces of one kind may share a card; pieces of two kinds may not.
        let mut pawns = frame.clone();
        for i in 49..56 {
            pawns[i] = pawns[48];
        }
        assert_eq!(
            Calibration::from_start_position(&pawns)
                .unwrap()
                .content(&pawns[48]),
            Content::Piece(Piece::from_letter('P').unwrap())
        );
        let mut twice = frame.clone();
        twice[1] = twice[0];
        assert!(matches!(
            Calibration::from_start_position(&twice),
            Err(CalibrationError::DuplicateCard(..))
        ));
    }

    #[test]
    fn spare_queens_on_d6_and_d3_are_learnt() {
        let mut frame = start_frame();
        frame[19] = CardId([100, 1, 1, 1, 1]);
        frame[43] = CardId([101, 1, 1, 1, 1]);
        let calibration = Calibration::from_start_position(&frame).unwrap();
        assert_eq!(calibration.len(), 34);
        assert_eq!(
            calibration.content(&CardId([101, 1, 1, 1, 1])),
            Content::Piece(Piece::from_letter('Q').unwrap())
        );
    }

    #[test]
    fn leds_light_squares_by_rank_and_file() {
        let leds = Leds::lighting(&[Square::new(4, 1), Square::new(4, 3)]);
        assert_eq!(leds.to_bytes(), [0, 0, 0, 0, 0x10, 0, 0x10, 0]);
        let mut buf = BytesMut::from(&leds.to_bytes()[..]);
        assert_eq!(Leds::decode(&mut buf), Some(leds));
        assert!(buf.is_empty());
    }
}
