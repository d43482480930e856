//! A simulated draughts or xiangqi session written as a capture: the open
//! protocol's lines, a Tabutronic board's occupancy frames, or the readings
//! of an 8x8 chess-family board.

use boardcast_protocols::reading::{Geometry, Square};

use boardcast::event::Millis;

use super::OtherGameSession;

/// The session as an open-protocol capture (interface §2): the header
/// with `protocol=open` and `meta`, then one `<` line per board line, the
/// line's bytes in hex (`\n` included). With `split`, some lines are cut
/// across two capture lines, as a serial port delivers them.
pub fn capture_text(session: &OtherGameSession, meta: &[(String, String)], split: bool) -> String {
    let mut out = String::from("# boardcast capture v1 protocol=open");
    for (k, v) in meta {
        out += &format!(" {k}={v}");
    }
    out.push('\n');
    let hex = |b: &[u8]| {
        b.iter()
            .map(|x| format!("{x:02x}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    for (i, (t, line)) in session.lines.iter().enumerate() {
        let bytes = format!("{line}\n").into_bytes();
        if split && i % 7 == 3 && bytes.len() > 3 {
            let cut = bytes.len() / 2;
            // The rest 2 ms later, never after the next line.
            let next = session.lines.get(i + 1).map_or(Millis::MAX, |(t, _)| *t);
            out += &format!(
                "{t} < {}\n{} < {}\n",
                hex(&bytes[..cut]),
                (t + 2).min(next).max(*t),
                hex(&bytes[cut..])
            );
        } else {
            out += &format!("{t} < {}\n", hex(&bytes));
        }
    }
    out
}

/// A draughts session as a capture of an 8x8 vendor board that reports
/// occupancy only: a Certabo board in occupancy mode (Tabutronic frames,
/// one occupancy byte per rank), one frame after every change, with the
/// header `protocol=certabo occupancy=yes game=draughts` and `meta`. The
/// board's own squares are the open protocol's (the session's lines name
/// them); pieces are not identified.
pub fn tabutronic_capture_text(session: &OtherGameSession, meta: &[(String, String)]) -> String {
    use boardcast_protocols::certabo::Frame;
    use boardcast_protocols::open::{Decoder, Game, Line};
    use boardcast_protocols::reading::Content;

    use boardcast::capture::{Direction, Header, Writer};
    use boardcast::family::Family;
    let mut words = vec![
        ("occupancy".to_string(), "yes".to_string()),
        ("game".to_string(), "draughts".to_string()),
    ];
    words.extend(meta.iter().cloned());
    let header = Header {
        protocol: Family::Certabo,
        meta: words,
    };
    let mut w = Writer::new(Vec::new(), &header).expect("writing to memory");
    let decoder = Decoder::with_game(Game::Draughts, Geometry::CHESS);
    // Rank 8 first, bit 7 = file a.
    let mut ranks = [0u8; 8];
    let set = |ranks: &mut [u8; 8], sq: Square, on: bool| {
        let (r, bit) = (7 - sq.rank as usize, 0x80u8 >> sq.file);
        if on {
            ranks[r] |= bit;
        } else {
            ranks[r] &= !bit;
        }
    };
    for (t, text) in &session.lines {
        match decoder.parse(text) {
            Ok(Line::Board(snap)) => {
                for i in 0..Geometry::CHESS.len() {
                    let sq = Geometry::CHESS.square(i).expect("in range");
                    let on = !matches!(snap.get(sq), Some(Content::Empty) | None);
                    set(&mut ranks, sq, on);
                }
            }
            Ok(Line::Up(sq)) => set(&mut ranks, sq, false),
            Ok(Line::Down { square, .. }) => set(&mut ranks, square, true),
            _ => continue,
        }
        w.write_chunk(
            *t,
            Direction::FromBoard,
            &Frame::Occupancy(ranks).to_bytes(),
        )
        .expect("writing to memory");
    }
    w.flush().expect("writing to memory");
    String::from_utf8(w.into_inner()).expect("captures are ASCII")
}

/// A draughts session as an 8 × 8 board of a chess family plays it (DGT,
/// Millennium, a Tabutronic Certabo): the men stand on the dark squares as
/// pieces the board can sense (white pawns for the first player's, black
/// pawns for the other's; a board without piece identity shows occupancy),
/// and every line of the session becomes the squares it changed. The
/// session's first whole board is the board as it stands when play begins;
/// the lines are in the board's own orientation, so the session does not
/// stand turned round.
pub fn draughts_on_a_vendor_board(session: &OtherGameSession) -> crate::Session {
    use boardcast::games::chess::{Color, Piece, Role};
    use boardcast::track::Cell;
    use boardcast_protocols::open::{Decoder, Game, Line};
    use boardcast_protocols::reading::Content;
    let decoder = Decoder::with_game(Game::Draughts, Geometry::CHESS);
    let index = |sq: Square| usize::from(sq.rank) * 8 + usize::from(sq.file);
    let cell = |content: Option<Content>| match content {
        None | Some(Content::Empty) => Cell::Empty,
        Some(Content::Piece(p)) if p.letter().is_ascii_lowercase() => Cell::Piece(Piece {
            color: Color::Black,
            role: Role::Pawn,
        }),
        Some(_) => Cell::Piece(Piece {
            color: Color::White,
            role: Role::Pawn,
        }),
    };
    let mut cells: Option<[Cell; 64]> = None;
    let mut initial = [Cell::Empty; 64];
    let mut readings = Vec::new();
    for (t, text) in &session.lines {
        let mut next = cells.unwrap_or(initial);
        match decoder.parse(text) {
            Ok(Line::Board(snap)) => {
                for i in 0..Geometry::CHESS.len() {
                    let sq = Geometry::CHESS.square(i).expect("in range");
                    next[index(sq)] = cell(snap.get(sq));
                }
            }
            Ok(Line::Up(sq)) => next[index(sq)] = Cell::Empty,
            Ok(Line::Down { square, piece }) => {
                next[index(square)] = cell(Some(piece.map_or(Content::Occupied, Content::Piece)));
            }
            _ => continue,
        }
        let Some(before) = cells else {
            initial = next;
            cells = Some(next);
            continue;
        };
        for (i, (was, now)) in before.iter().zip(next.iter()).enumerate() {
            if was != now {
                let sq = boardcast::games::chess::Square::new(i as u32);
                readings.push((*t, crate::Sensed::Square(sq, *now)));
            }
        }
        cells = Some(next);
    }
    crate::Session {
        readings,
        truth: Vec::new(),
        rotated: false,
        initial: Box::new(initial),
        clock: Vec::new(),
    }
}
