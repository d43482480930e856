//! Framing and resynchronisation of the board → host byte stream.

use bytes::{Buf, BytesMut};

use super::error::{DecodeError, MAX_SKIPPED_CHUNK};
use super::message::{FrameLen, HEADER_LEN, Message, decode_payload, frame_len};

/// Board → host decoder.
///
/// Append whatever bytes arrive from the board to a [`BytesMut`] and call
/// [`Decoder::decode`] until it returns `Ok(None)`:
///
/// ```
/// use boardcast_protocols::dgt::{Decoder, DecodeError, Message};
/// use bytes::BytesMut;
///
/// let mut decoder = Decoder::new();
/// let mut buf = BytesMut::new();
/// // Two garbage bytes, then a version message.
/// buf.extend_from_slice(&[0x12, 0x34, 0x93, 0x00, 0x05, 0x01, 0x02]);
/// let mut messages = Vec::new();
/// loop {
///     match decoder.decode(&mut buf) {
///         Ok(Some(message)) => messages.push(message),
///         Ok(None) => break, // wait for more bytes
///         Err(DecodeError::Skipped { bytes }) => assert_eq!(bytes, [0x12, 0x34]),
///         Err(other) => panic!("{other}"),
///     }
/// }
/// assert_eq!(messages, [Message::Version { major: 1, minor: 2 }]);
/// assert_eq!(decoder.skipped_bytes(), 2);
/// ```
///
/// # What counts as garbage
///
/// Only a message id has its top bit set, so:
///
/// * bytes with the top bit clear at the start of the buffer are skipped, up
///   to the next byte with the top bit set;
/// * a byte with the top bit set that is not one of the ids this crate
///   decodes (draughts dumps, Pegasus extras, bus-mode replies, noise) is
///   skipped together with the top-bit-clear bytes after it. For a well
///   formed frame with an unknown id that is exactly the whole frame, so no
///   length has to be trusted;
/// * if a byte with the top bit set turns up where a length or payload byte
///   belongs, the frame begun so far is abandoned (skipped) and decoding
///   starts again at that byte.
///
/// A single [`DecodeError::Skipped`] carries at most
/// [`MAX_SKIPPED_CHUNK`] bytes; longer runs are reported in pieces.
///
/// # Bad frames
///
/// A known id with an impossible length (shorter than the header, or not the
/// fixed size of that message) is reported as [`DecodeError::BadFrame`] as
/// soon as the header is in; only the three header bytes are consumed and the
/// payload that may follow is skipped as garbage. A complete frame whose
/// payload makes no sense (a field index above 63, a piece code above 15 in a
/// dump) is consumed whole and reported as [`DecodeError::BadFrame`].
///
/// The decoder never reserves memory based on a received length; frames are
/// at most [`MAX_FRAME_LEN`](crate::dgt::MAX_FRAME_LEN) bytes by construction.
#[derive(Debug, Default)]
pub struct Decoder {
    /// Bytes at the front of the buffer already seen to belong to the
    /// frame being collected (top bit clear). Only saves rescanning a long
    /// frame that arrives in small pieces; a complete frame is checked again.
    checked: usize,
    skipped: u64,
    messages: u64,
    bad_frames: u64,
}

impl Decoder {
    /// A decoder at the start of a stream.
    pub fn new() -> Decoder {
        Decoder::default()
    }

    /// Takes whole frames off the front of `buf`.
    ///
    /// * `Ok(Some(message))`: one frame was consumed and decoded.
    /// * `Ok(None)`: `buf` is empty or holds the beginning of a frame; append
    ///   more bytes and call again. `buf` is left untouched. Never an error.
    /// * `Err(DecodeError::Skipped { .. })`: garbage was removed from the
    ///   front of `buf` before the next plausible header; call again.
    /// * `Err(DecodeError::BadFrame { .. })`: a frame with a known id had an
    ///   invalid length or payload and was consumed; call again.
    ///
    /// Every call that does not return `Ok(None)` consumes at least one byte.
    pub fn decode(&mut self, buf: &mut BytesMut) -> Result<Option<Message>, DecodeError> {
        let result = self.decode_frame(buf);
        match &result {
            Ok(None) => return result,
            Ok(Some(_)) => self.messages += 1,
            Err(DecodeError::Skipped { bytes }) => self.skipped += bytes.len() as u64,
            Err(DecodeError::BadFrame { .. }) => self.bad_frames += 1,
        }
        self.checked = 0;
        result
    }

    /// Total number of garbage bytes skipped so far.
    pub fn skipped_bytes(&self) -> u64 {
        self.skipped
    }

    /// Total number of messages decoded so far.
    pub fn messages(&self) -> u64 {
        self.messages
    }

    /// Total number of bad frames reported so far.
    pub fn bad_frames(&self) -> u64 {
        self.bad_frames
    }

    fn decode_frame(&mut self, buf: &mut BytesMut) -> Result<Option<Message>, DecodeError> {
        let Some(&id) = buf.first() else {
            return Ok(None);
        };
        let Some(rule) = frame_len(id) else {
            // Not a frame we decode: drop it with everything up to the next id.
            let end = next_id(buf, 1).unwrap_or(buf.len());
            return Err(skip(buf, end));
        };

        // Header: the two length bytes must have their top bit clear.
        let header_end = buf.len().min(HEADER_LEN);
        if let Some(at) = next_id(&buf[..header_end], 1) {
            return Err(skip(buf, at));
        }
        if buf.len() < HEADER_LEN {
            return Ok(None);
        }
        let len = usize::from(buf[1]) << 7 | usize::from(buf[2]);
        let length_ok = match rule {
            FrameLen::Fixed(expected) => len == expected,
            FrameLen::Variable => len >= HEADER_LEN,
        };
        if !length_ok {
            let reason = if len < HEADER_LEN {
                "length shorter than the header"
            } else {
                "wrong length for this message id"
            };
            return Err(bad_frame(buf, id, HEADER_LEN, reason));
        }

        // Payload collected so far: abandon the frame at any id byte.
        let available = buf.len().min(len);
        let from = self.checked.max(HEADER_LEN).min(available);
        if let Some(at) = next_id(&buf[..available], from) {
            return Err(skip(buf, at));
        }
        if buf.len() < len {
            self.checked = available;
            return Ok(None);
        }
        // Complete. Check the whole payload once more in case the buffer was
        // not the one the cached progress refers to.
        if let Some(at) = next_id(&buf[..len], HEADER_LEN) {
            return Err(skip(buf, at));
        }
        match decode_payload(id, &buf[HEADER_LEN..len]) {
            Ok(message) => {
                buf.advance(len);
                Ok(Some(message))
            }
            Err(reason) => Err(bad_frame(buf, id, len, reason)),
        }
    }
}

/// True for a byte that can start a frame (top bit set).
const fn is_id(b: u8) -> bool {
    b & 0x80 != 0
}

/// Position of the first byte at or after `from` with its top bit set.
fn next_id(bytes: &[u8], from: usize) -> Option<usize> {
    bytes
        .get(from..)?
        .iter()
        .position(|&b| is_id(b))
        .map(|i| i + from)
}

/// Removes up to `n` bytes (at most [`MAX_SKIPPED_CHUNK`]) as garbage.
fn skip(buf: &mut BytesMut, n: usize) -> DecodeError {
    let n = n.clamp(1, MAX_SKIPPED_CHUNK).min(buf.len());
    DecodeError::Skipped {
        bytes: buf.split_to(n).to_vec(),
    }
}

fn bad_frame(buf: &mut BytesMut, id: u8, n: usize, reason: &'static str) -> DecodeError {
    DecodeError::BadFrame {
        id,
        reason,
        bytes: buf.split_to(n).to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dgt::{
        BatteryStatus, ClockAck, ClockTimes, EeRecord, Field, MAX_FRAME_LEN, PieceCode,
    };

    use crate::dgt::message::tests::start_position_bytes as start_dump;

    /// One frame of every kind, as a board sends them.
    fn sample_stream() -> Vec<Vec<u8>> {
        vec![
            start_dump(),
            vec![0x8e, 0x00, 0x05, 0x34, 0x00],
            vec![0x8e, 0x00, 0x05, 0x24, 0x01],
            vec![0x8d, 0x00, 0x0a, 0x01, 0x30, 0x00, 0x01, 0x29, 0x59, 0x09],
            vec![0x8d, 0x00, 0x0a, 0x0a, 0x10, 0x08, 0x2a, 0x05, 0x31, 0x00],
            b"\x91\x00\x0801025".to_vec(),
            b"\xa2\x00\x0d3.25001000".to_vec(),
            vec![0x93, 0x00, 0x05, 0x01, 0x02],
            b"\x92\x00\x06DGT".to_vec(),
            vec![0x90, 0x00, 0x05, 0x08, 0x01],
            vec![0xa0, 0x00, 0x0c, 0x58, 0, 0, 0, 0, 0, 0, 0, 0x02],
            vec![0x8f, 0x00, 0x08, 0x7f, 0x6a, 0x45, 0x3c, 0x6b],
        ]
    }

    /// Feeds `chunks` one after another, collecting everything the decoder says.
    fn run(chunks: &[&[u8]]) -> (Vec<Message>, Vec<DecodeError>, BytesMut) {
        let mut decoder = Decoder::new();
        let mut buf = BytesMut::new();
        let mut messages = Vec::new();
        let mut errors = Vec::new();
        for chunk in chunks {
            buf.extend_from_slice(chunk);
            loop {
                let before = buf.len();
                match decoder.decode(&mut buf) {
                    Ok(Some(m)) => messages.push(m),
                    Ok(None) => {
                        assert_eq!(buf.len(), before, "Ok(None) must not consume");
                        break;
                    }
                    Err(e) => errors.push(e),
                }
                assert!(buf.len() < before, "no progress");
            }
        }
        let skipped: usize = errors.iter().map(DecodeError::skipped_count).sum();
        assert_eq!(decoder.skipped_bytes(), skipped as u64);
        (messages, errors, buf)
    }

    fn skipped(errors: &[DecodeError]) -> Vec<u8> {
        errors
            .iter()
            .filter_map(|e| match e {
                DecodeError::Skipped { bytes } => Some(bytes.clone()),
                DecodeError::BadFrame { .. } => None,
            })
            .flatten()
            .collect()
    }

    #[test]
    fn empty_buffer_needs_more_bytes() {
        let mut buf = BytesMut::new();
        assert_eq!(Decoder::new().decode(&mut buf), Ok(None));
    }

    #[test]
    fn every_sample_frame_decodes_on_its_own() {
        for frame in sample_stream() {
            let (messages, errors, rest) = run(&[&frame]);
            assert_eq!(messages.len(), 1, "{frame:02x?}");
            assert!(errors.is_empty(), "{errors:?}");
            assert!(rest.is_empty());
        }
    }

    #[test]
    fn decoded_samples_have_the_expected_values() {
        let frames = sample_stream();
        let all: Vec<u8> = frames.concat();
        let (messages, errors, _) = run(&[&all]);
        assert!(errors.is_empty());
        assert_eq!(messages.len(), frames.len());
        assert!(matches!(&messages[0], Message::BoardDump(b) if b[60] == PieceCode::WhiteKing));
        assert_eq!(
            messages[1],
            Message::FieldUpdate {
                field: Field::from_file_rank(4, 1).unwrap(),
                piece: PieceCode::Empty
            }
        );
        let Message::ClockTimes(ClockTimes { right, left, .. }) = messages[3] else {
            panic!("not times");
        };
        assert_eq!((right.hours, right.minutes, right.seconds), (1, 30, 0));
        assert_eq!((left.hours, left.minutes, left.seconds), (1, 29, 59));
        assert_eq!(
            messages[4],
            Message::ClockAck(ClockAck::new([0x10, 0x88, 0x05, 0x31]))
        );
        assert_eq!(messages[5], Message::SerialNumber("01025".into()));
        assert_eq!(messages[6], Message::LongSerialNumber("3.25001000".into()));
        assert_eq!(messages[7], Message::Version { major: 1, minor: 2 });
        assert_eq!(messages[8], Message::Trademark("DGT".into()));
        assert_eq!(messages[9], Message::BusAddress(1025));
        assert!(matches!(
            messages[10],
            Message::BatteryStatus(BatteryStatus { percent: 88, .. })
        ));
        assert_eq!(
            messages[11],
            Message::EeMoves(vec![
                EeRecord::Nop,
                EeRecord::PowerUp,
                EeRecord::PieceChange {
                    field: Field::new(60).unwrap(),
                    piece: PieceCode::WhiteKing,
                    rapid: false
                },
                EeRecord::Eof
            ])
        );
    }

    #[test]
    fn frames_split_at_every_byte_boundary_decode_identically() {
        let all: Vec<u8> = sample_stream().concat();
        let (expected, _, _) = run(&[&all]);
        for cut in 0..=all.len() {
            let (messages, errors, rest) = run(&[&all[..cut], &all[cut..]]);
            assert_eq!(messages, expected, "cut at {cut}");
            assert!(errors.is_empty());
            assert!(rest.is_empty());
        }
    }

    #[test]
    fn frames_fed_one_byte_at_a_time_decode_identically() {
        let all: Vec<u8> = sample_stream().concat();
        let (expected, _, _) = run(&[&all]);
        let chunks: Vec<&[u8]> = all.chunks(1).collect();
        let (messages, errors, rest) = run(&chunks);
        assert_eq!(messages, expected);
        assert!(errors.is_empty());
        assert!(rest.is_empty());
    }

    #[test]
    fn leading_garbage_is_skipped_and_reported() {
        let mut bytes = vec![0x00, 0x41, 0x7f];
        bytes.extend([0x93, 0x00, 0x05, 0x01, 0x02]);
        let (messages, errors, _) = run(&[&bytes]);
        assert_eq!(messages, vec![Message::Version { major: 1, minor: 2 }]);
        assert_eq!(
            errors,
            vec![DecodeError::Skipped {
                bytes: vec![0x00, 0x41, 0x7f]
            }]
        );
    }

    #[test]
    fn garbage_between_frames_is_skipped_and_later_frames_still_decode() {
        let frames = sample_stream();
        let mut bytes = Vec::new();
        let mut garbage = Vec::new();
        for (i, frame) in frames.iter().enumerate() {
            bytes.extend(frame);
            let noise = [0x01, 0x02 + i as u8, 0x7e];
            bytes.extend(noise);
            garbage.extend(noise);
        }
        let (messages, errors, _) = run(&[&bytes]);
        assert_eq!(messages.len(), frames.len());
        assert_eq!(skipped(&errors), garbage);
    }

    #[test]
    fn unknown_id_is_skipped_with_its_payload() {
        // A draughts dump header with a little payload, then a field update.
        let bytes = [
            0x94, 0x00, 0x06, 0x01, 0x02, 0x03, 0x8e, 0x00, 0x05, 0x00, 0x02,
        ];
        let (messages, errors, _) = run(&[&bytes]);
        assert_eq!(messages.len(), 1);
        assert_eq!(skipped(&errors), &bytes[..6]);
    }

    #[test]
    fn top_bit_byte_inside_a_payload_abandons_the_frame() {
        // A board dump cut short by a field update.
        let mut bytes = vec![0x86, 0x00, 0x43, 0x08, 0x09];
        bytes.extend([0x8e, 0x00, 0x05, 0x34, 0x00]);
        let (messages, errors, _) = run(&[&bytes]);
        assert_eq!(messages.len(), 1);
        assert!(matches!(messages[0], Message::FieldUpdate { .. }));
        assert_eq!(
            errors,
            vec![DecodeError::Skipped {
                bytes: vec![0x86, 0x00, 0x43, 0x08, 0x09]
            }]
        );
    }

    #[test]
    fn top_bit_byte_in_the_length_abandons_the_header() {
        let bytes = [0x8e, 0x93, 0x00, 0x05, 0x01, 0x02];
        let (messages, errors, _) = run(&[&bytes]);
        assert_eq!(messages, vec![Message::Version { major: 1, minor: 2 }]);
        assert_eq!(skipped(&errors), vec![0x8e]);
    }

    #[test]
    fn abandoning_works_when_the_frame_arrives_in_pieces() {
        let bytes = [0x86, 0x00, 0x43, 0x08, 0x09, 0x90, 0x00, 0x05, 0x08, 0x01];
        let chunks: Vec<&[u8]> = bytes.chunks(2).collect();
        let (messages, errors, _) = run(&chunks);
        assert_eq!(messages, vec![Message::BusAddress(1025)]);
        assert_eq!(skipped(&errors), &bytes[..5]);
    }

    #[test]
    fn incomplete_frame_waits_without_consuming() {
        let mut decoder = Decoder::new();
        let mut buf = BytesMut::from(&[0x86, 0x00, 0x43, 0x00][..]);
        assert_eq!(decoder.decode(&mut buf), Ok(None));
        assert_eq!(buf.len(), 4);
    }

    #[test]
    fn wrong_fixed_length_is_a_bad_frame_consuming_only_the_header() {
        let bytes = [
            0x8e, 0x00, 0x06, 0x34, 0x00, 0x00, 0x93, 0x00, 0x05, 0x01, 0x02,
        ];
        let (messages, errors, _) = run(&[&bytes]);
        assert_eq!(messages, vec![Message::Version { major: 1, minor: 2 }]);
        assert_eq!(
            errors,
            vec![
                DecodeError::BadFrame {
                    id: 0x8e,
                    reason: "wrong length for this message id",
                    bytes: vec![0x8e, 0x00, 0x06]
                },
                DecodeError::Skipped {
                    bytes: vec![0x34, 0x00, 0x00]
                },
            ]
        );
    }

    #[test]
    fn huge_declared_length_for_a_fixed_size_message_does_not_stall() {
        let mut decoder = Decoder::new();
        let mut buf = BytesMut::from(&[0x86, 0x7f, 0x7f][..]);
        assert!(matches!(
            decoder.decode(&mut buf),
            Err(DecodeError::BadFrame { id: 0x86, .. })
        ));
        assert!(buf.is_empty());
        assert_eq!(decoder.bad_frames(), 1);
    }

    #[test]
    fn variable_length_shorter_than_the_header_is_a_bad_frame() {
        let mut buf = BytesMut::from(&[0x92, 0x00, 0x02][..]);
        assert!(matches!(
            Decoder::new().decode(&mut buf),
            Err(DecodeError::BadFrame {
                reason: "length shorter than the header",
                ..
            })
        ));
    }

    #[test]
    fn bad_payload_consumes_the_whole_frame() {
        let bytes = [0x8e, 0x00, 0x05, 0x40, 0x01, 0x93, 0x00, 0x05, 0x01, 0x02];
        let (messages, errors, _) = run(&[&bytes]);
        assert_eq!(messages, vec![Message::Version { major: 1, minor: 2 }]);
        assert_eq!(
            errors,
            vec![DecodeError::BadFrame {
                id: 0x8e,
                reason: "field index above 63",
                bytes: vec![0x8e, 0x00, 0x05, 0x40, 0x01]
            }]
        );
    }

    #[test]
    fn long_garbage_runs_are_reported_in_bounded_pieces() {
        let bytes = vec![0x11; 2000];
        let (messages, errors, rest) = run(&[&bytes]);
        assert!(messages.is_empty());
        assert!(rest.is_empty());
        assert_eq!(errors.len(), 4); // 512 + 512 + 512 + 464
        assert!(errors.iter().all(|e| e.consumed() <= MAX_SKIPPED_CHUNK));
        assert_eq!(skipped(&errors).len(), 2000);
    }

    #[test]
    fn largest_ee_moves_frame_decodes_in_small_pieces() {
        let records = vec![EeRecord::Nop; MAX_FRAME_LEN - 3];
        let bytes = Message::EeMoves(records.clone()).to_bytes();
        assert_eq!(bytes.len(), MAX_FRAME_LEN);
        let chunks: Vec<&[u8]> = bytes.chunks(7).collect();
        let (messages, errors, rest) = run(&chunks);
        assert_eq!(messages, vec![Message::EeMoves(records)]);
        assert!(errors.is_empty());
        assert!(rest.is_empty());
    }

    #[test]
    fn counters_track_messages_garbage_and_bad_frames() {
        let mut decoder = Decoder::new();
        let mut buf = BytesMut::from(
            &[
                0x01, 0x02, 0x93, 0x00, 0x05, 0x01, 0x02, 0x8e, 0x00, 0x09, 0x93, 0x00, 0x05, 0x01,
                0x02,
            ][..],
        );
        while buf.has_remaining() {
            let _ = decoder.decode(&mut buf);
        }
        assert_eq!(decoder.messages(), 2);
        assert_eq!(decoder.skipped_bytes(), 2);
        assert_eq!(decoder.bad_frames(), 1);
    }
}
