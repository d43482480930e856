//! A simulated DGT board: turns a session's readings into the bytes a DGT
//! board exchanges with its host, written as a capture. Chess squares and
//! cells become DGT fields and piece codes here only: the daemon reads
//! them through the neutral readings and never goes the other way.

use std::io::{self, Write};

use boardcast_protocols::dgt::{
    ClockSide, ClockStatus, ClockTimes, Command, Field, Message, PieceCode,
};

use super::clock::Signal;
use super::{Sensed, Session};
use boardcast::capture::{Direction, Header, Writer};
use boardcast::clock::Face;
use boardcast::family::Family;
use boardcast::games::Token;
use boardcast::games::chess::Square;
use boardcast::track::Cell;

/// The board field a game square is read on: DGT counts its fields from
/// a8 as if the board stood the normal way round, so a board turned round
/// (`rotated`) reads each square on the opposite field.
pub fn field_of(sq: Square, rotated: bool) -> Field {
    let field = Field::from_file_rank(sq.file() as u8, sq.rank() as u8).expect("8 × 8");
    if rotated { field.rotated() } else { field }
}

/// The DGT piece code of a cell.
pub fn code_of(cell: Cell) -> PieceCode {
    match cell {
        Cell::Empty => PieceCode::Empty,
        Cell::Token(Token::Draw) => PieceCode::Draw,
        Cell::Token(Token::WhiteWins) => PieceCode::WhiteWins,
        Cell::Token(Token::BlackWins) => PieceCode::BlackWins,
        Cell::Piece(p) => PieceCode::from_fen_char(p.char()).expect("DGT codes every chess piece"),
    }
}

/// The dump message of a whole board in game orientation.
pub fn dump_message(cells: &[Cell; 64], rotated: bool) -> Message {
    let mut codes = [PieceCode::Empty; 64];
    for sq in Square::ALL {
        codes[field_of(sq, rotated).index() as usize] = code_of(cells[sq as usize]);
    }
    Message::BoardDump(Box::new(codes))
}

/// The messages of one reading.
pub fn reading_message(reading: &Sensed, rotated: bool) -> Message {
    match reading {
        Sensed::Square(sq, cell) => Message::FieldUpdate {
            field: field_of(*sq, rotated),
            piece: code_of(*cell),
        },
        Sensed::Dump(cells) => dump_message(cells, rotated),
    }
}

/// The clock message of a clock signal, as a DGT board sends it.
pub fn clock_message(signal: &Signal) -> Message {
    let side = |secs: u32, flag: bool| ClockSide {
        hours: (secs / 3600).min(9) as u8,
        minutes: (secs / 60 % 60) as u8,
        seconds: (secs % 60) as u8,
        flag_fallen: flag,
        time_per_move: false,
        flag_shown: false,
    };
    match signal {
        Signal::NoClock => Message::ClockTimes(ClockTimes {
            status: ClockStatus {
                no_clock: true,
                ..ClockStatus::default()
            },
            ..ClockTimes::default()
        }),
        Signal::Times(r) => Message::ClockTimes(ClockTimes {
            left: side(r.left, r.flag == Some(Face::Left)),
            right: side(r.right, r.flag == Some(Face::Right)),
            status: ClockStatus {
                running: r.running.is_some(),
                lever_right_high: r.running == Some(Face::Right),
                battery_low: r.battery_low,
                right_to_move: r.running == Some(Face::Right),
                left_to_move: r.running == Some(Face::Left),
                no_clock: false,
            },
        }),
    }
}

/// The serial number the simulated board reports.
pub const SERIAL: &str = "12345";

/// Writes the host/board handshake the daemon performs at connection:
/// reset, serial number, version, board dump, update mode.
pub fn write_handshake<W: Write>(
    w: &mut Writer<W>,
    t: u64,
    cells: &[Cell; 64],
    rotated: bool,
) -> io::Result<()> {
    w.write_chunk(t, Direction::ToBoard, &Command::Reset.to_bytes())?;
    w.write_chunk(t, Direction::ToBoard, &Command::SerialNumber.to_bytes())?;
    w.write_chunk(
        t + 20,
        Direction::FromBoard,
        &Message::SerialNumber(SERIAL.into()).to_bytes(),
    )?;
    w.write_chunk(t + 20, Direction::ToBoard, &Command::Version.to_bytes())?;
    w.write_chunk(
        t + 40,
        Direction::FromBoard,
        &Message::Version { major: 1, minor: 2 }.to_bytes(),
    )?;
    w.write_chunk(t + 40, Direction::ToBoard, &Command::SendBoard.to_bytes())?;
    w.write_chunk(
        t + 110,
        Direction::FromBoard,
        &dump_message(cells, rotated).to_bytes(),
    )?;
    w.write_chunk(
        t + 110,
        Direction::ToBoard,
        &Command::SendUpdateBoard.to_bytes(),
    )?;
    Ok(())
}

/// Like [`write_handshake`], then asks for update mode with clock messages
/// (0x43) instead of board updates only.
fn write_handshake_with_clock<W: Write>(
    w: &mut Writer<W>,
    cells: &[Cell; 64],
    rotated: bool,
) -> io::Result<()> {
    write_handshake(w, 0, cells, rotated)?;
    w.write_chunk(110, Direction::ToBoard, &Command::SendUpdate.to_bytes())
}

/// Writes a whole session as a DGT capture.
pub fn write_capture<W: Write>(
    out: W,
    session: &Session,
    meta: &[(String, String)],
) -> io::Result<W> {
    let header = Header {
        protocol: Family::Dgt,
        meta: meta.to_vec(),
    };
    let mut w = Writer::new(out, &header)?;
    if session.clock.is_empty() {
        write_handshake(&mut w, 0, &session.initial, session.rotated)?;
    } else {
        write_handshake_with_clock(&mut w, &session.initial, session.rotated)?;
    }
    // Board readings and clock messages, merged in time order.
    let mut clock = session.clock.iter().peekable();
    for (t, reading) in &session.readings {
        while let Some((ct, signal)) = clock.next_if(|(ct, _)| ct < t) {
            w.write_chunk(
                (*ct).max(110),
                Direction::FromBoard,
                &clock_message(signal).to_bytes(),
            )?;
        }
        if let Sensed::Dump(_) = reading {
            w.write_chunk(*t, Direction::ToBoard, &Command::SendBoard.to_bytes())?;
        }
        let bytes = reading_message(reading, session.rotated).to_bytes();
        w.write_chunk((*t).max(110), Direction::FromBoard, &bytes)?;
    }
    for (ct, signal) in clock {
        w.write_chunk(
            (*ct).max(110),
            Direction::FromBoard,
            &clock_message(signal).to_bytes(),
        )?;
    }
    w.flush()?;
    Ok(w.into_inner())
}

/// A session as capture text.
pub fn capture_text(session: &Session, meta: &[(String, String)]) -> String {
    let bytes = write_capture(Vec::new(), session, meta).expect("writing to memory");
    String::from_utf8(bytes).expect("captures are ASCII")
}

#[cfg(test)]
mod tests {
    use super::*;
    use boardcast::games::chess::sensors::{at, cell, square};

    #[test]
    fn dgt_fields_and_codes_map_both_ways() {
        for field in Field::all() {
            let sq = square(field.square()).unwrap();
            assert_eq!(field_of(sq, false), field);
            assert_eq!(at(sq), field.square());
            assert_eq!(field_of(sq, true), field.rotated());
        }
        assert_eq!(square(Field::new(0).unwrap().square()), Some(Square::A8));
        for code in PieceCode::ALL {
            assert_eq!(code_of(cell(code.content()).unwrap()), code);
        }
    }
}
