//! Property tests for the Millennium, Certabo, open-protocol and DGT
//! bus-mode decoders: frames split and glued anywhere, garbage between
//! frames skipped and reported once per run, bad checksums dropped, encode →
//! decode round trips, and no panic or stall on arbitrary bytes.

use boardcast_protocols::certabo::{self, CardId};
use boardcast_protocols::dgt::bus::{
    BusBody, BusCommand, BusDecoder, BusMessage, BusRequest, BusRequestDecoder,
};
use boardcast_protocols::dgt::{EeRecord, Field, PieceCode};
use boardcast_protocols::millennium::{self, Parity, StatusReport};
use boardcast_protocols::open::{self, Game, Hello, Line};
use boardcast_protocols::reading::{
    Content, DiffOutcome, Geometry, Piece, Snapshot, SnapshotDiff, Square,
};
use boardcast_protocols::stream::StreamError;
use bytes::BytesMut;
use proptest::prelude::*;

// ---------------------------------------------------------------------------
// A generic driver

/// Everything a decoder produced from a stream fed in `chunks`.
struct Outcome<T> {
    values: Vec<T>,
    errors: Vec<StreamError>,
}

impl<T> Outcome<T> {
    fn skipped(&self) -> Vec<u8> {
        self.errors
            .iter()
            .filter(|e| matches!(e, StreamError::Skipped { .. }))
            .flat_map(|e| e.bytes().to_vec())
            .collect()
    }
}

/// Feeds `bytes` in chunks of the given sizes (cycled). `strict`: `Ok(None)`
/// must not consume (all but the open protocol, which drops blank lines,
/// and Certabo, which drops line ends between frames).
fn feed<T>(
    bytes: &[u8],
    sizes: &[usize],
    strict: bool,
    mut decode: impl FnMut(&mut BytesMut) -> Result<Option<T>, StreamError>,
) -> Outcome<T> {
    let mut buf = BytesMut::new();
    let mut out = Outcome {
        values: Vec::new(),
        errors: Vec::new(),
    };
    let mut rest = bytes;
    let mut i = 0;
    while !rest.is_empty() {
        let n = sizes[i % sizes.len()].clamp(1, rest.len());
        i += 1;
        buf.extend_from_slice(&rest[..n]);
        rest = &rest[n..];
        loop {
            let before = buf.len();
            match decode(&mut buf) {
                Ok(None) => {
                    if strict {
                        assert_eq!(buf.len(), before, "Ok(None) consumed bytes");
                    }
                    assert!(buf.len() <= before);
                    break;
                }
                Ok(Some(v)) => out.values.push(v),
                Err(e) => out.errors.push(e),
            }
            assert!(buf.len() < before, "no progress");
        }
    }
    out
}

fn sizes() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(1usize..80, 1..12)
}

// ---------------------------------------------------------------------------
// Millennium

fn status_char() -> impl Strategy<Value = u8> {
    prop::sample::select(b"KQRBNPkqrbnp.".to_vec())
}

fn reply() -> impl Strategy<Value = millennium::Reply> {
    use millennium::Reply;
    prop_oneof![
        prop::collection::vec(status_char(), 64).prop_map(|v| Reply::Status(StatusReport {
            cells: v.try_into().unwrap()
        })),
        any::<(u8, u8)>().prop_map(|(major, minor)| Reply::Version { major, minor }),
        Just(Reply::LedsSet),
        Just(Reply::LedsOff),
        any::<(u8, u8)>().prop_map(|(address, value)| Reply::E2romWritten { address, value }),
        any::<(u8, u8)>().prop_map(|(address, value)| Reply::E2romValue { address, value }),
    ]
}

fn mill_command() -> impl Strategy<Value = millennium::Command> {
    use millennium::Command;
    prop_oneof![
        Just(Command::Status),
        Just(Command::Version),
        Just(Command::LedsOff),
        Just(Command::Reset),
        any::<u8>().prop_map(|address| Command::ReadE2rom { address }),
        any::<(u8, u8)>().prop_map(|(address, value)| Command::WriteE2rom { address, value }),
        (any::<u8>(), prop::collection::vec(any::<u8>(), 81)).prop_map(|(slot_time, p)| {
            Command::Leds {
                slot_time,
                patterns: Box::new(p.try_into().unwrap()),
            }
        }),
    ]
}

/// Bytes with the wrong (even) parity: garbage that can never start or
/// continue a Millennium frame.
/// Bytes no Millennium decoder takes for characters: bit 7 set with even
/// parity (a byte with bit 7 clear is a plain 7-bit character, read as such
/// by `Parity::Either`).
fn bad_parity_garbage() -> impl Strategy<Value = Vec<u8>> {
    let bad = |b: u8| {
        let b = b | 0x80;
        if b.count_ones() % 2 == 1 { b ^ 1 } else { b }
    };
    prop::collection::vec(any::<u8>().prop_map(bad), 0..12)
}

proptest! {
    #[test]
    fn millennium_replies_survive_any_split(replies in prop::collection::vec(reply(), 0..12), sizes in sizes()) {
        let bytes: Vec<u8> = replies.iter().flat_map(|r| r.to_bytes()).collect();
        let mut decoder = millennium::Decoder::new();
        let out = feed(&bytes, &sizes, true, |b| decoder.decode(b));
        prop_assert_eq!(out.values, replies);
        prop_assert!(out.errors.is_empty());
    }

    #[test]
    fn millennium_garbage_between_replies_is_skipped_once_per_run(
        items in prop::collection::vec((bad_parity_garbage(), reply()), 1..10),
    ) {
        let mut bytes = Vec::new();
        let mut garbage = Vec::new();
        let mut runs = 0;
        for (g, r) in &items {
            bytes.extend(g);
            garbage.extend(g);
            runs += usize::from(!g.is_empty());
            bytes.extend(r.to_bytes());
        }
        let mut decoder = millennium::Decoder::new();
        let out = feed(&bytes, &[bytes.len()], true, |b| decoder.decode(b));
        let expected: Vec<_> = items.iter().map(|(_, r)| r.clone()).collect();
        prop_assert_eq!(&out.values, &expected);
        prop_assert_eq!(out.skipped(), garbage);
        prop_assert_eq!(out.errors.len(), runs);
    }

    #[test]
    fn millennium_bad_checksums_are_dropped(replies in prop::collection::vec(reply(), 1..8), bad in any::<prop::sample::Index>()) {
        let bad = bad.index(replies.len());
        let mut bytes = Vec::new();
        for (i, r) in replies.iter().enumerate() {
            let mut frame = r.to_bytes();
            if i == bad {
                // Change the last checksum digit to another hex digit.
                let last = frame.len() - 1;
                let digit = frame[last] & 0x7f;
                let other = if digit == b'0' { b'1' } else { b'0' };
                frame[last] = Parity::InBit7.apply(other);
            }
            bytes.extend(frame);
        }
        let mut decoder = millennium::Decoder::new();
        let out = feed(&bytes, &[bytes.len()], true, |b| decoder.decode(b));
        let mut expected = replies.clone();
        expected.remove(bad);
        prop_assert_eq!(out.values, expected);
        prop_assert!(matches!(&out.errors[..], [StreamError::BadChecksum { .. }]), "{:?}", out.errors);
        prop_assert_eq!(decoder.counters().bad_checksums, 1);
    }

    #[test]
    fn millennium_commands_round_trip(commands in prop::collection::vec(mill_command(), 0..8), sizes in sizes()) {
        let bytes: Vec<u8> = commands.iter().flat_map(|c| c.to_bytes()).collect();
        let mut decoder = millennium::CommandDecoder::new();
        let out = feed(&bytes, &sizes, true, |b| decoder.decode(b));
        prop_assert_eq!(out.values, commands);
    }

    #[test]
    fn millennium_never_stalls_on_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..400), sizes in sizes()) {
        let mut decoder = millennium::Decoder::new();
        let out = feed(&bytes, &sizes, true, |b| decoder.decode(b));
        for r in out.values {
            let again = r.to_bytes();
            let mut buf = BytesMut::from(&again[..]);
            prop_assert_eq!(millennium::Decoder::new().decode(&mut buf), Ok(Some(r)));
        }
    }
}

// ---------------------------------------------------------------------------
// Certabo

fn card() -> impl Strategy<Value = CardId> {
    any::<[u8; 5]>().prop_map(CardId)
}

fn rfid_frame() -> impl Strategy<Value = certabo::Frame> {
    prop::collection::vec(card(), 64)
        .prop_map(|v| certabo::Frame::Rfid(Box::new(v.try_into().unwrap())))
}

/// Noise before a frame: anything but `:`.
fn text_garbage() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<u8>().prop_filter("no colon", |b| *b != b':'), 0..30)
}

proptest! {
    #[test]
    fn certabo_frames_survive_any_split_with_garbage_between(
        items in prop::collection::vec((text_garbage(), rfid_frame()), 1..5),
        sizes in sizes(),
    ) {
        let mut bytes = Vec::new();
        let mut garbage = Vec::new();
        for (g, f) in &items {
            bytes.extend(g);
            garbage.extend(g);
            bytes.extend(f.to_bytes());
        }
        let mut decoder = certabo::Decoder::new(certabo::Kind::Rfid);
        let out = feed(&bytes, &sizes, false, |b| decoder.decode(b));
        let expected: Vec<_> = items.iter().map(|(_, f)| f.clone()).collect();
        prop_assert_eq!(&out.values, &expected);
        // Line ends, spaces and markers between frames may be dropped
        // without a report; every other byte of garbage is reported.
        let filler = |b: &u8| b"\r\n \tLD*".contains(b);
        let reported: Vec<u8> = out.skipped().into_iter().filter(|b| !filler(b)).collect();
        let garbage: Vec<u8> = garbage.into_iter().filter(|b| !filler(b)).collect();
        prop_assert_eq!(reported, garbage);
        prop_assert!(out.errors.iter().all(|e| matches!(e, StreamError::Skipped { .. })), "{:?}", out.errors);
    }

    #[test]
    fn certabo_occupancy_frames_round_trip(frames in prop::collection::vec(any::<[u8; 8]>(), 0..10), sizes in sizes()) {
        let frames: Vec<_> = frames.into_iter().map(certabo::Frame::Occupancy).collect();
        let bytes: Vec<u8> = frames.iter().flat_map(|f| f.to_bytes()).collect();
        let mut decoder = certabo::Decoder::new(certabo::Kind::Occupancy);
        let out = feed(&bytes, &sizes, false, |b| decoder.decode(b));
        prop_assert_eq!(out.values, frames);
    }

    #[test]
    fn certabo_never_stalls_on_arbitrary_text(
        bytes in prop::collection::vec(prop_oneof![Just(b':'), Just(b' '), Just(b'\n'), b'0'..=b'9', any::<u8>()], 0..600),
        sizes in sizes(),
    ) {
        for kind in [certabo::Kind::Rfid, certabo::Kind::Occupancy] {
            let mut decoder = certabo::Decoder::new(kind);
            let _ = feed(&bytes, &sizes, false, |b| decoder.decode(b));
        }
    }
}

// ---------------------------------------------------------------------------
// Open protocol

fn game() -> impl Strategy<Value = Game> {
    prop::sample::select(vec![Game::Chess, Game::Draughts, Game::Xiangqi, Game::Any])
}

fn letters(game: Game) -> Vec<char> {
    match game {
        Game::Chess => "KQRBNPkqrbnp".chars().collect(),
        Game::Draughts => "MKmk".chars().collect(),
        Game::Xiangqi => "KABNRCPkabnrcp".chars().collect(),
        Game::Any => "ABCXYZabcxyz".chars().collect(),
    }
}

fn content(game: Game) -> impl Strategy<Value = Content> {
    prop_oneof![
        Just(Content::Empty),
        Just(Content::Occupied),
        prop::sample::select(letters(game))
            .prop_map(|c| Content::Piece(Piece::from_letter(c).unwrap())),
    ]
}

/// A game, a geometry for it and a session of lines a board of that game
/// sends after its hello.
fn session() -> impl Strategy<Value = (Hello, Vec<Line>)> {
    (game(), 1u8..=12, 1u8..=12)
        .prop_filter("fits a board line", |(_, f, r)| {
            usize::from(*f) * usize::from(*r) <= 194
        })
        .prop_flat_map(|(game, files, ranks)| {
            let geometry = Geometry::new(files, ranks).unwrap();
            let square = (0..files, 0..ranks).prop_map(|(f, r)| Square::new(f, r));
            let line = prop_oneof![
                prop::collection::vec(content(game), geometry.len())
                    .prop_map(move |cells| Line::Board(Snapshot::new(geometry, cells).unwrap())),
                square.clone().prop_map(Line::Up),
                (
                    square,
                    prop::option::of(prop::sample::select(letters(game)))
                )
                    .prop_map(|(square, piece)| Line::Down {
                        square,
                        piece: piece.and_then(Piece::from_letter)
                    }),
                "[ -~]{0,60}".prop_map(|t| Line::Diagnostic(t.trim().to_owned())),
            ];
            let hello = (
                prop::option::of("[A-Za-z0-9-]{1,12}"),
                prop::option::of(any::<bool>()),
            )
                .prop_map(move |(id, pieces)| Hello {
                    game,
                    geometry,
                    id,
                    pieces,
                    name: None,
                    extra: Vec::new(),
                });
            (hello, prop::collection::vec(line, 0..20))
        })
}

proptest! {
    #[test]
    fn open_sessions_round_trip_through_any_split((hello, lines) in session(), sizes in sizes(), crlf in any::<bool>()) {
        let game = hello.game;
        let mut all = vec![Line::Hello(hello)];
        all.extend(lines);
        let mut text = String::new();
        for l in &all {
            let mut s = l.encode(game);
            if crlf {
                s.insert(s.len() - 1, '\r');
            }
            text += &s;
        }
        let mut decoder = open::Decoder::new();
        let out = feed(text.as_bytes(), &sizes, false, |b| decoder.decode(b));
        prop_assert!(out.errors.is_empty(), "{:?}", out.errors);
        prop_assert_eq!(out.values, all);
    }

    #[test]
    fn open_garbage_lines_are_skipped_and_counted(
        (hello, lines) in session(),
        noise in prop::collection::vec(prop::collection::vec(0x80u8..=0xff, 1..30), 0..5),
    ) {
        let game = hello.game;
        let mut text = Line::Hello(hello.clone()).encode(game).into_bytes();
        for (i, l) in lines.iter().enumerate() {
            if let Some(n) = noise.get(i) {
                text.extend(n);
                text.push(b'\n');
            }
            text.extend(l.encode(game).into_bytes());
        }
        let injected = noise.len().min(lines.len());
        let mut decoder = open::Decoder::new();
        let out = feed(&text, &[text.len()], false, |b| decoder.decode(b));
        prop_assert_eq!(out.values.len(), lines.len() + 1);
        prop_assert_eq!(out.errors.len(), injected);
        prop_assert!(out.errors.iter().all(|e| matches!(e, StreamError::Skipped { .. })), "{:?}", out.errors);
    }

    #[test]
    fn open_never_stalls_on_arbitrary_bytes(
        bytes in prop::collection::vec(prop_oneof![Just(b'\n'), Just(b' '), b'a'..=b'z', any::<u8>()], 0..800),
        sizes in sizes(),
    ) {
        let mut decoder = open::Decoder::new();
        let out = feed(&bytes, &sizes, false, |b| decoder.decode(b));
        let c = decoder.counters();
        prop_assert_eq!(c.decoded as usize, out.values.len());
    }
}

// ---------------------------------------------------------------------------
// DGT bus mode

fn piece_code() -> impl Strategy<Value = PieceCode> {
    (0u8..16).prop_map(|b| PieceCode::from_u8(b).unwrap())
}

fn ee_record() -> impl Strategy<Value = EeRecord> {
    prop_oneof![
        ((0u8..64), piece_code(), any::<bool>()).prop_map(|(f, piece, rapid)| {
            EeRecord::PieceChange {
                field: Field::new(f).unwrap(),
                piece,
                rapid,
            }
        }),
        (any::<bool>(), 0u8..=9, 0u8..=59, 0u8..=59).prop_map(
            |(left_display, hours, minutes, seconds)| {
                EeRecord::Time {
                    left_display,
                    hours,
                    minutes,
                    seconds,
                }
            }
        ),
        Just(EeRecord::BeginPos),
        Just(EeRecord::Eof),
        Just(EeRecord::PowerUp),
    ]
}

fn bus_message() -> impl Strategy<Value = BusMessage> {
    let body = prop_oneof![
        prop::collection::vec(piece_code(), 64)
            .prop_map(|v| BusBody::BoardDump(Box::new(v.try_into().unwrap()))),
        prop::collection::vec(ee_record(), 0..40).prop_map(BusBody::Changes),
        prop::collection::vec(ee_record(), 0..40).prop_map(BusBody::FromStart),
        Just(BusBody::Ping),
        Just(BusBody::StartGameWritten),
        (0u8..0x80, 0u8..0x80).prop_map(|(major, minor)| BusBody::Version { major, minor }),
        prop::collection::vec(0u8..0x80, 50).prop_map(BusBody::BoardDump50),
    ];
    (0u16..0x4000, body).prop_map(|(address, body)| BusMessage { address, body })
}

/// Garbage on a bus line: top bit clear (cannot start a reply).
fn bus_garbage() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(0u8..0x80, 0..12)
}

proptest! {
    #[test]
    fn bus_replies_survive_any_split_with_garbage_between(
        items in prop::collection::vec((bus_garbage(), bus_message()), 1..8),
        sizes in sizes(),
    ) {
        let mut bytes = Vec::new();
        let mut garbage = Vec::new();
        for (g, m) in &items {
            bytes.extend(g);
            garbage.extend(g);
            bytes.extend(m.to_bytes());
        }
        let mut decoder = BusDecoder::new();
        let out = feed(&bytes, &sizes, true, |b| decoder.decode(b));
        let expected: Vec<_> = items.iter().map(|(_, m)| m.clone()).collect();
        prop_assert_eq!(out.skipped(), garbage);
        prop_assert_eq!(out.values, expected);
    }

    #[test]
    fn bus_bad_checksums_are_dropped(messages in prop::collection::vec(bus_message(), 1..6), bad in any::<prop::sample::Index>()) {
        let bad = bad.index(messages.len());
        let mut bytes = Vec::new();
        for (i, m) in messages.iter().enumerate() {
            let mut frame = m.to_bytes();
            if i == bad {
                let last = frame.len() - 1;
                frame[last] = (frame[last] + 1) & 0x7f;
            }
            bytes.extend(frame);
        }
        let mut decoder = BusDecoder::new();
        let out = feed(&bytes, &[bytes.len()], true, |b| decoder.decode(b));
        let mut expected = messages.clone();
        expected.remove(bad);
        prop_assert_eq!(out.values, expected);
        prop_assert!(matches!(&out.errors[..], [StreamError::BadChecksum { .. }]), "{:?}", out.errors);
    }

    #[test]
    fn bus_requests_round_trip(
        requests in prop::collection::vec((prop::sample::select(BusCommand::ALL.to_vec()), 0u16..0x4000), 0..20),
        sizes in sizes(),
    ) {
        let requests: Vec<_> = requests.into_iter().map(|(command, address)| BusRequest { command, address }).collect();
        let bytes: Vec<u8> = requests.iter().flat_map(|r| r.to_bytes()).collect();
        let mut decoder = BusRequestDecoder::new();
        let out = feed(&bytes, &sizes, true, |b| decoder.decode(b));
        prop_assert_eq!(out.values, requests);
    }

    #[test]
    fn bus_never_stalls_on_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..500), sizes in sizes()) {
        let mut decoder = BusDecoder::new();
        let out = feed(&bytes, &sizes, true, |b| decoder.decode(b));
        for m in out.values {
            let mut buf = BytesMut::from(&m.to_bytes()[..]);
            prop_assert_eq!(BusDecoder::new().decode(&mut buf), Ok(Some(m)));
        }
    }
}

// ---------------------------------------------------------------------------
// Snapshot diff

proptest! {
    #[test]
    fn snapshot_diff_reports_exactly_the_changed_squares(
        (files, ranks) in (1u8..=12, 1u8..=12),
        seeds in prop::collection::vec(prop::collection::vec(0u8..4, 144), 1..6),
    ) {
        let geometry = Geometry::new(files, ranks).unwrap();
        let to_snapshot = |seed: &Vec<u8>| {
            let cells = seed[..geometry.len()]
                .iter()
                .map(|s| match s {
                    0 => Content::Empty,
                    1 => Content::Occupied,
                    2 => Content::Piece(Piece::from_letter('P').unwrap()),
                    _ => Content::Piece(Piece::from_letter('k').unwrap()),
                })
                .collect();
            Snapshot::new(geometry, cells).unwrap()
        };
        let mut diff = SnapshotDiff::new();
        let mut out = Vec::new();
        let mut known: Option<Snapshot> = None;
        for seed in &seeds {
            let snap = to_snapshot(seed);
            out.clear();
            match diff.update(&snap, &mut out) {
                DiffOutcome::First => prop_assert!(known.is_none()),
                DiffOutcome::Changed(n) => {
                    let mut board = known.clone().unwrap();
                    let changed = board.cells().iter().zip(snap.cells()).filter(|(a, b)| a != b).count();
                    prop_assert_eq!(n, changed);
                    for c in &out {
                        prop_assert!(board.set(c.square, c.content));
                    }
                    prop_assert_eq!(&board, &snap);
                }
            }
            known = Some(snap);
        }
    }
}
