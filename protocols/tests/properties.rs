//! Property tests for the DGT decoders: robustness on arbitrary input and
//! encode → decode round trips.

use boardcast_protocols::dgt::{
    BatteryStatus, ClockAck, ClockCommand, ClockSide, ClockStatus, ClockTimes, Command,
    CommandDecoder, DecodeError, Decoder, EeRecord, Field, MAX_FRAME_LEN, MAX_SKIPPED_CHUNK,
    Message, PieceCode,
};
use bytes::BytesMut;
use proptest::prelude::*;

// ---------------------------------------------------------------------------
// Strategies

fn piece() -> impl Strategy<Value = PieceCode> {
    (0u8..16).prop_map(|b| PieceCode::from_u8(b).unwrap())
}

fn field() -> impl Strategy<Value = Field> {
    (0u8..64).prop_map(|b| Field::new(b).unwrap())
}

fn seven_bit() -> impl Strategy<Value = u8> {
    0u8..0x80
}

fn ascii(len: impl Into<prop::collection::SizeRange>) -> impl Strategy<Value = String> {
    prop::collection::vec(seven_bit(), len)
        .prop_map(|bytes| bytes.into_iter().map(char::from).collect())
}

fn clock_side() -> impl Strategy<Value = ClockSide> {
    (
        0u8..=9,
        0u8..=59,
        0u8..=59,
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(hours, minutes, seconds, flag_fallen, time_per_move, flag_shown)| ClockSide {
                hours,
                minutes,
                seconds,
                flag_fallen,
                time_per_move,
                flag_shown,
            },
        )
}

fn clock_status() -> impl Strategy<Value = ClockStatus> {
    (0u8..0x40).prop_map(ClockStatus::from_byte)
}

fn clock_times() -> impl Strategy<Value = ClockTimes> {
    (clock_side(), clock_side(), clock_status()).prop_map(|(right, left, status)| ClockTimes {
        right,
        left,
        status,
    })
}

fn battery() -> impl Strategy<Value = BatteryStatus> {
    prop::array::uniform9(seven_bit()).prop_map(BatteryStatus::from_payload)
}

fn ee_record() -> impl Strategy<Value = EeRecord> {
    prop_oneof![
        (field(), piece(), any::<bool>()).prop_map(|(field, piece, rapid)| {
            EeRecord::PieceChange {
                field,
                piece,
                rapid,
            }
        }),
        (any::<bool>(), 0u8..=9, 0u8..=59, 0u8..=59).prop_map(
            |(left_display, hours, minutes, seconds)| EeRecord::Time {
                left_display,
                hours,
                minutes,
                seconds,
            }
        ),
        prop::sample::select(vec![
            EeRecord::PowerUp,
            EeRecord::Eof,
            EeRecord::FourRows,
            EeRecord::EmptyBoard,
            EeRecord::Downloaded,
            EeRecord::BeginPos,
            EeRecord::BeginPosRotated,
            EeRecord::StartTag,
            EeRecord::WatchdogAction,
            EeRecord::Nop,
        ]),
        // Bytes that never start a record.
        prop_oneof![0x01u8..0x40, Just(0x7d), Just(0x7e)].prop_map(EeRecord::Unknown),
    ]
}

fn message() -> impl Strategy<Value = Message> {
    prop_oneof![
        prop::collection::vec(piece(), 64)
            .prop_map(|v| Message::BoardDump(Box::new(v.try_into().unwrap()))),
        (field(), piece()).prop_map(|(field, piece)| Message::FieldUpdate { field, piece }),
        clock_times().prop_map(Message::ClockTimes),
        any::<[u8; 4]>().prop_map(|bytes| Message::ClockAck(ClockAck::new(bytes))),
        ascii(5).prop_map(Message::SerialNumber),
        ascii(10).prop_map(Message::LongSerialNumber),
        (seven_bit(), seven_bit()).prop_map(|(major, minor)| Message::Version { major, minor }),
        ascii(0..300).prop_map(Message::Trademark),
        (0u16..0x4000).prop_map(Message::BusAddress),
        battery().prop_map(Message::BatteryStatus),
        prop::collection::vec(ee_record(), 0..200).prop_map(Message::EeMoves),
    ]
}

fn clock_command() -> impl Strategy<Value = ClockCommand> {
    prop_oneof![
        (any::<[u8; 6]>(), any::<u8>(), any::<bool>()).prop_map(|(segments, icons, beep)| {
            ClockCommand::Display {
                segments,
                icons,
                beep,
            }
        }),
        any::<[u8; 5]>().prop_map(|bytes| ClockCommand::Icons { bytes }),
        Just(ClockCommand::End),
        Just(ClockCommand::Button),
        Just(ClockCommand::Version),
        (any::<(u8, u8, u8)>(), any::<(u8, u8, u8)>(), any::<u8>())
            .prop_map(|(left, right, mode)| ClockCommand::SetAndRun { left, right, mode }),
        any::<u8>().prop_map(|duration| ClockCommand::Beep { duration }),
        (any::<[u8; 8]>(), any::<u8>()).prop_map(|(text, beep)| ClockCommand::Ascii { text, beep }),
    ]
}

fn command() -> impl Strategy<Value = Command> {
    prop_oneof![
        prop::sample::select(Command::SINGLE_BYTE.to_vec()),
        clock_command().prop_map(Command::Clock),
    ]
}

/// A frame with a known id and a well-formed header whose payload is
/// random 7-bit data (so its contents may or may not make sense).
fn plausible_frame() -> impl Strategy<Value = Vec<u8>> {
    let shapes = prop_oneof![
        Just((0x86u8, 64usize)),
        Just((0x8d, 7)),
        Just((0x8e, 2)),
        Just((0x90, 2)),
        Just((0x91, 5)),
        Just((0x93, 2)),
        Just((0xa0, 9)),
        Just((0xa2, 10)),
        (0usize..300).prop_map(|n| (0x8f, n)),
        (0usize..40).prop_map(|n| (0x92, n)),
    ];
    shapes.prop_flat_map(|(id, n)| {
        // Small values are likelier to be valid piece codes and fields.
        let byte = prop_oneof![0u8..16, 0u8..64, seven_bit()];
        prop::collection::vec(byte, n).prop_map(move |payload| {
            let len = payload.len() + 3;
            let mut frame = vec![id, (len >> 7) as u8, (len & 0x7f) as u8];
            frame.extend(payload);
            frame
        })
    })
}

/// Chunk sizes used to cut a byte stream into reads.
fn chunk_sizes() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(1usize..64, 1..16)
}

/// Bytes a decoder must treat as garbage between frames: top bit clear, or
/// a top-bit byte that is not a message id the crate decodes.
fn garbage() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop_oneof![
            4 => seven_bit(),
            1 => prop::sample::select(vec![0x80u8, 0x81, 0x94, 0x95, 0x96, 0xa3, 0xff]),
        ],
        0..20,
    )
}

// ---------------------------------------------------------------------------
// Drivers

/// What a decoder produced from a stream.
#[derive(Debug, Default)]
struct Outcome<T> {
    values: Vec<T>,
    errors: Vec<DecodeError>,
    consumed: usize,
    rest: Vec<u8>,
}

/// Feeds `bytes` in reads of the given sizes (cycled), calling `decode`
/// until it asks for more after each read, and checks the progress contract.
fn feed<T>(
    bytes: &[u8],
    sizes: &[usize],
    mut decode: impl FnMut(&mut BytesMut) -> Result<Option<T>, DecodeError>,
) -> Outcome<T> {
    let mut out = Outcome {
        values: Vec::new(),
        errors: Vec::new(),
        consumed: 0,
        rest: Vec::new(),
    };
    let mut buf = BytesMut::new();
    let mut pos = 0;
    let mut sizes = sizes.iter().cycle();
    while pos < bytes.len() {
        let n = (*sizes.next().unwrap()).min(bytes.len() - pos);
        buf.extend_from_slice(&bytes[pos..pos + n]);
        pos += n;
        loop {
            let before = buf.len();
            let result = decode(&mut buf);
            let used = before - buf.len();
            match result {
                Ok(None) => {
                    assert_eq!(used, 0, "Ok(None) consumed bytes");
                    break;
                }
                Ok(Some(value)) => out.values.push(value),
                Err(e) => {
                    assert_eq!(e.consumed(), used, "error does not match consumption");
                    assert!(e.consumed() <= MAX_FRAME_LEN);
                    if let DecodeError::Skipped { bytes } = &e {
                        assert!(!bytes.is_empty() && bytes.len() <= MAX_SKIPPED_CHUNK);
                    }
                    out.errors.push(e);
                }
            }
            assert!(used > 0, "no progress");
            out.consumed += used;
        }
    }
    out.rest = buf.to_vec();
    out
}

fn decode_messages(bytes: &[u8], sizes: &[usize]) -> Outcome<Message> {
    let mut decoder = Decoder::new();
    let out = feed(bytes, sizes, |buf| decoder.decode(buf));
    let skipped: usize = out.errors.iter().map(DecodeError::skipped_count).sum();
    assert_eq!(decoder.skipped_bytes(), skipped as u64);
    assert_eq!(decoder.messages(), out.values.len() as u64);
    out
}

fn decode_commands(bytes: &[u8], sizes: &[usize]) -> Outcome<Command> {
    let mut decoder = CommandDecoder::new();
    let out = feed(bytes, sizes, |buf| decoder.decode(buf));
    let skipped: usize = out.errors.iter().map(DecodeError::skipped_count).sum();
    assert_eq!(decoder.skipped_bytes(), skipped as u64);
    out
}

// ---------------------------------------------------------------------------
// Properties

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_bytes_never_panic_and_always_make_progress(
        bytes in prop::collection::vec(any::<u8>(), 0..2000),
        sizes in chunk_sizes(),
    ) {
        let out = decode_messages(&bytes, &sizes);
        // Whatever is left over is the start of one frame with a known id.
        prop_assert_eq!(out.consumed + out.rest.len(), bytes.len());
        prop_assert!(out.rest.len() < MAX_FRAME_LEN);
        if let Some(&first) = out.rest.first() {
            prop_assert!(first & 0x80 != 0);
            prop_assert!(out.rest[1..].iter().all(|b| b & 0x80 == 0));
        }
    }

    #[test]
    fn arbitrary_bytes_made_of_frame_like_pieces_never_panic(
        pieces in prop::collection::vec(
            prop_oneof![
                message().prop_map(|m| m.to_bytes()),
                garbage(),
                // A frame cut short, or with a random length.
                (message(), 0usize..80).prop_map(|(m, cut)| {
                    let mut b = m.to_bytes();
                    b.truncate(cut.max(1));
                    b
                }),
                (prop::sample::select(vec![0x86u8, 0x8d, 0x8e, 0x8f, 0x90, 0x91, 0x92, 0x93, 0xa0, 0xa2]),
                 seven_bit(), seven_bit(), prop::collection::vec(any::<u8>(), 0..40))
                    .prop_map(|(id, hi, lo, rest)| {
                        let mut b = vec![id, hi, lo];
                        b.extend(rest);
                        b
                    }),
            ],
            0..12,
        ),
        sizes in chunk_sizes(),
    ) {
        let bytes = pieces.concat();
        let out = decode_messages(&bytes, &sizes);
        prop_assert_eq!(out.consumed + out.rest.len(), bytes.len());
    }

    #[test]
    fn every_decoded_message_survives_re_encoding(
        pieces in prop::collection::vec(
            prop_oneof![
                3 => plausible_frame(),
                1 => prop::collection::vec(any::<u8>(), 0..8),
            ],
            0..12,
        ),
    ) {
        let out = decode_messages(&pieces.concat(), &[usize::MAX]);
        for message in out.values {
            let again = decode_messages(&message.to_bytes(), &[usize::MAX]);
            prop_assert!(again.errors.is_empty(), "{:?}", again.errors);
            prop_assert_eq!(again.values, vec![message]);
        }
    }

    #[test]
    fn messages_round_trip_through_encode_and_decode(
        messages in prop::collection::vec(message(), 0..8),
        sizes in chunk_sizes(),
    ) {
        let bytes: Vec<u8> = messages.iter().flat_map(Message::to_bytes).collect();
        let out = decode_messages(&bytes, &sizes);
        prop_assert!(out.errors.is_empty(), "{:?}", out.errors);
        prop_assert!(out.rest.is_empty());
        prop_assert_eq!(out.values, messages);
    }

    #[test]
    fn garbage_between_messages_is_skipped_and_reported_exactly(
        parts in prop::collection::vec((garbage(), message()), 0..8),
        tail in garbage(),
        sizes in chunk_sizes(),
    ) {
        let mut bytes: Vec<u8> = Vec::new();
        let mut noise: Vec<u8> = Vec::new();
        for (g, m) in &parts {
            bytes.extend(g);
            noise.extend(g);
            bytes.extend(m.to_bytes());
        }
        bytes.extend(&tail);
        let out = decode_messages(&bytes, &sizes);
        let expected: Vec<Message> = parts.iter().map(|(_, m)| m.clone()).collect();
        prop_assert_eq!(out.values, expected);
        let only_skips = out.errors.iter().all(|e| matches!(e, DecodeError::Skipped { .. }));
        prop_assert!(only_skips, "{:?}", out.errors);
        let skipped: Vec<u8> = out.errors.iter().flat_map(|e| e.bytes().to_vec()).collect();
        // A trailing top-bit id may still be waiting for its frame.
        let mut all_noise = noise;
        all_noise.extend(&tail);
        prop_assert_eq!(skipped.len() + out.rest.len(), all_noise.len());
        prop_assert_eq!(&all_noise[..skipped.len()], &skipped[..]);
    }

    #[test]
    fn commands_round_trip_through_encode_and_decode(
        commands in prop::collection::vec(command(), 0..16),
        sizes in chunk_sizes(),
    ) {
        let bytes: Vec<u8> = commands.iter().flat_map(Command::to_bytes).collect();
        let out = decode_commands(&bytes, &sizes);
        prop_assert!(out.errors.is_empty(), "{:?}", out.errors);
        prop_assert!(out.rest.is_empty());
        prop_assert_eq!(out.values, commands);
    }

    #[test]
    fn arbitrary_host_bytes_never_panic_and_always_make_progress(
        bytes in prop::collection::vec(any::<u8>(), 0..1000),
        sizes in chunk_sizes(),
    ) {
        let out = decode_commands(&bytes, &sizes);
        prop_assert_eq!(out.consumed + out.rest.len(), bytes.len());
        prop_assert!(out.rest.len() <= 257);
    }

    #[test]
    fn field_rotation_is_an_involution_that_flips_file_and_rank(index in 0u8..64) {
        let f = Field::new(index).unwrap();
        prop_assert_eq!(f.rotated().rotated(), f);
        prop_assert_eq!(f.rotated().index(), 63 - index);
        prop_assert_eq!(Field::from_file_rank(f.file(), f.rank()), Some(f));
    }
}
