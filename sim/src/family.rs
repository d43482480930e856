//! The simulated board's session written as another family's bytes: a
//! Millennium ChessLink board (a status report of the whole board after
//! every change) or a chess board on the open protocol (`hello`, `board`,
//! then `up`/`down` lines). The same human handling as the DGT simulator
//! ([`super::dgt`]), so every family's decoder and the core are exercised
//! by the same games.

use boardcast_protocols::certabo::{CardId, Frame};
use boardcast_protocols::millennium::{Orientation, Reply, StatusReport};
use boardcast_protocols::open::{Game, Hello, Line};
use boardcast_protocols::reading::{Content, Geometry, Piece, Snapshot, Square as At};

use super::{Sensed, Session};
use boardcast::capture::{Direction, Header, Writer};
use boardcast::family::Family;
use boardcast::games::chess::Square;
use boardcast::track::Cell;

/// Where the game's square `sq` is on the physical board (turned round
/// when the session's board stands rotated).
fn physical(sq: Square, rotated: bool) -> At {
    let (file, rank) = (sq.file() as u8, sq.rank() as u8);
    if rotated {
        At::new(7 - file, 7 - rank)
    } else {
        At::new(file, rank)
    }
}

fn content(cell: Cell) -> Content {
    match cell {
        Cell::Empty | Cell::Token(_) => Content::Empty,
        Cell::Piece(p) => Content::Piece(Piece::from_letter(p.char()).expect("a piece letter")),
    }
}

fn snapshot(cells: &[Cell; 64], rotated: bool) -> Snapshot {
    let mut snap = Snapshot::empty(Geometry::CHESS);
    for sq in Square::ALL {
        snap.set(physical(sq, rotated), content(cells[sq as usize]));
    }
    snap
}

/// A session as a capture of `protocol` (Millennium, Certabo, or the open
/// protocol with piece identity). DGT captures are
/// [`super::dgt::capture_text`].
pub fn capture_text(session: &Session, protocol: Family) -> String {
    capture(session, protocol, true)
}

/// A session as a capture of an open-protocol chess board that senses
/// occupancy only (`pieces: false`: `down` lines name no piece).
pub fn occupancy_capture_text(session: &Session) -> String {
    capture(session, Family::Open, false)
}

fn capture(session: &Session, protocol: Family, pieces: bool) -> String {
    let header = Header {
        protocol,
        meta: Vec::new(),
    };
    let mut w = Writer::new(Vec::new(), &header).expect("writing to memory");
    let mut write = |t: u64, bytes: &[u8]| {
        w.write_chunk(t, Direction::FromBoard, bytes)
            .expect("writing to memory");
    };
    match protocol {
        Family::Millennium => millennium_chunks(session, &mut write),
        Family::Open => open_chunks(session, pieces, &mut write),
        Family::Certabo => certabo_chunks(session, &mut write),
        Family::Dgt | Family::DgtBus => {
            unreachable!("DGT captures come from sim::dgt (bus lines from sim::bus)")
        }
    }
    w.flush().expect("writing to memory");
    String::from_utf8(w.into_inner()).expect("captures are ASCII")
}

/// A capture's chunks from the board, by time.
type Chunks<'a> = dyn FnMut(u64, &[u8]) + 'a;

/// A session as a Millennium board sends it: a status report per change.
fn millennium_chunks(session: &Session, write: &mut Chunks<'_>) {
    let mut cells = *session.initial;
    let rotated = session.rotated;
    let report = |cells: &[Cell; 64]| {
        Reply::Status(StatusReport::from_snapshot(
            &snapshot(cells, rotated),
            Orientation::Documented,
        ))
        .to_bytes()
    };
    write(0, &Reply::Version { major: 1, minor: 3 }.to_bytes());
    write(20, &report(&cells));
    for (t, reading) in &session.readings {
        match reading {
            Sensed::Square(sq, cell) => cells[*sq as usize] = *cell,
            Sensed::Dump(all) => cells = **all,
        }
        write((*t).max(20), &report(&cells));
    }
}

/// A session as an open-protocol chess board sends it (`pieces`: with
/// piece identity).
fn open_chunks(session: &Session, pieces: bool, write: &mut Chunks<'_>) {
    let mut cells = *session.initial;
    let rotated = session.rotated;
    let hello = Line::Hello(Hello {
        game: Game::Chess,
        geometry: Geometry::CHESS,
        id: Some("sim-1".into()),
        pieces: Some(pieces),
        name: Some("simulated".into()),
        extra: Vec::new(),
    });
    write(0, hello.encode(Game::Chess).as_bytes());
    let board = |cells: &[Cell; 64]| {
        let mut snap = snapshot(cells, rotated);
        if !pieces {
            for sq in Square::ALL {
                let at = physical(sq, rotated);
                if matches!(snap.get(at), Some(Content::Piece(_))) {
                    snap.set(at, Content::Occupied);
                }
            }
        }
        Line::Board(snap)
    };
    write(20, board(&cells).encode(Game::Chess).as_bytes());
    for (t, reading) in &session.readings {
        let line = match reading {
            Sensed::Square(sq, cell) => {
                cells[*sq as usize] = *cell;
                let square = physical(*sq, rotated);
                match content(*cell) {
                    Content::Piece(p) => Line::Down {
                        square,
                        piece: pieces.then_some(p),
                    },
                    _ => Line::Up(square),
                }
            }
            Sensed::Dump(all) => {
                cells = **all;
                board(&cells)
            }
        };
        write((*t).max(20), line.encode(Game::Chess).as_bytes());
    }
}

/// A session as a Certabo board sends it: calibration, then a frame of
/// card numbers per change.
fn certabo_chunks(session: &Session, write: &mut Chunks<'_>) {
    let mut cells = *session.initial;
    let rotated = session.rotated;
    let mut cards = Cards::new(&cells);
    // Calibration as Certabo's software asks for it: the start
    // position with a spare queen of each colour on d3 and d6,
    // then the spares taken off.
    write(0, &cards.frame(rotated, true));
    write(20, &cards.frame(rotated, false));
    for (t, reading) in &session.readings {
        match reading {
            Sensed::Square(sq, cell) => {
                cards.set(*sq, cells[*sq as usize], *cell);
                cells[*sq as usize] = *cell;
            }
            Sensed::Dump(all) => {
                for sq in Square::ALL {
                    if cells[sq as usize] != all[sq as usize] {
                        cards.set(sq, cells[sq as usize], all[sq as usize]);
                    }
                }
                cells = **all;
            }
        }
        write((*t).max(20), &cards.frame(rotated, false));
    }
}

/// The RFID cards of a simulated Certabo board: one card per piece, that
/// travels with it; a spare queen card per colour for promotions.
pub(crate) struct Cards {
    /// The card on each square (game coordinates).
    on: [Option<CardId>; 64],
    /// Cards lifted, with the piece they are, last lifted last.
    in_hand: Vec<(Cell, CardId)>,
    /// The spare queens (white, black), until used.
    spares: [Option<CardId>; 2],
    /// The last fresh card given (a piece from outside the set).
    next: u8,
}

impl Cards {
    /// One card for every piece of `cells`, and the two spare queens.
    pub(crate) fn new(cells: &[Cell; 64]) -> Cards {
        let mut on = [None; 64];
        let mut next = 0u8;
        for sq in Square::ALL {
            if matches!(cells[sq as usize], Cell::Piece(_)) {
                next += 1;
                on[sq as usize] = Some(CardId([next, 17, 17, 17, 17]));
            }
        }
        Cards {
            on,
            in_hand: Vec::new(),
            spares: [
                Some(CardId([200, 17, 17, 17, 1])),
                Some(CardId([201, 17, 17, 17, 2])),
            ],
            next: 100,
        }
    }

    /// Square `sq` changed from `was` to `now`: its card goes to the hand,
    /// or a card from the hand (the same piece; a spare queen for a
    /// promotion) comes onto it.
    pub(crate) fn set(&mut self, sq: Square, was: Cell, now: Cell) {
        if let Some(card) = self.on[sq as usize].take() {
            self.in_hand.push((was, card));
        }
        let Cell::Piece(p) = now else {
            return;
        };
        let card = if let Some(i) = self.in_hand.iter().rposition(|(c, _)| *c == now) {
            Some(self.in_hand.remove(i).1)
        } else if p.role == boardcast::games::chess::Role::Queen {
            self.spares[usize::from(p.color == boardcast::games::chess::Color::Black)].take()
        } else {
            None
        };
        self.on[sq as usize] = Some(card.unwrap_or_else(|| {
            self.next = self.next.wrapping_add(1).max(100);
            CardId([self.next, 99, 99, 99, 99])
        }));
    }

    /// The frame the board sends (a8 of the physical board first), with
    /// the spare queens on d3 and d6 if `spares`.
    pub(crate) fn frame(&self, rotated: bool, spares: bool) -> Vec<u8> {
        let mut ids = Box::new([CardId::default(); 64]);
        let index = |at: At| usize::from(7 - at.rank) * 8 + usize::from(at.file);
        for sq in Square::ALL {
            if let Some(card) = self.on[sq as usize] {
                ids[index(physical(sq, rotated))] = card;
            }
        }
        if spares {
            for (sq, card) in [(Square::D3, self.spares[0]), (Square::D6, self.spares[1])] {
                if let Some(card) = card {
                    ids[index(physical(sq, rotated))] = card;
                }
            }
        }
        Frame::Rfid(ids).to_bytes()
    }
}

/// A Tabutronic (Certabo occupancy) frame of `cells`: one byte per rank
/// of the physical board, rank 8 first, bit 7 = file a.
pub(crate) fn occupancy_frame(cells: &[Cell; 64], rotated: bool) -> Vec<u8> {
    let mut ranks = [0u8; 8];
    for sq in Square::ALL {
        if cells[sq as usize] != Cell::Empty {
            let at = physical(sq, rotated);
            ranks[usize::from(7 - at.rank)] |= 0x80 >> at.file;
        }
    }
    Frame::Occupancy(ranks).to_bytes()
}

/// A Millennium status report of the whole board.
fn millennium_report(cells: &[Cell; 64], rotated: bool) -> Vec<u8> {
    Reply::Status(StatusReport::from_snapshot(
        &snapshot(cells, rotated),
        Orientation::Documented,
    ))
    .to_bytes()
}

/// An open-protocol chess board's `hello` line, naming itself `id`.
fn open_hello(id: &str) -> Vec<u8> {
    Line::Hello(Hello {
        game: Game::Chess,
        geometry: Geometry::CHESS,
        id: Some(id.into()),
        pieces: Some(true),
        name: Some("simulated".into()),
        extra: Vec::new(),
    })
    .encode(Game::Chess)
    .into_bytes()
}

/// What a board of `protocol` says when asked who it is: Millennium its
/// version, an open board its `hello` (with `serial` as its id).
pub(crate) fn identity_bytes(protocol: Family, serial: &str) -> Vec<u8> {
    match protocol {
        Family::Millennium => Reply::Version { major: 1, minor: 3 }.to_bytes(),
        Family::Open => open_hello(serial),
        Family::Dgt | Family::DgtBus | Family::Certabo => Vec::new(),
    }
}

/// The whole board as a board of `protocol` reports it (a Millennium
/// status report, an open `board` line).
pub(crate) fn board_bytes(protocol: Family, cells: &[Cell; 64], rotated: bool) -> Vec<u8> {
    match protocol {
        Family::Millennium => millennium_report(cells, rotated),
        Family::Open => Line::Board(snapshot(cells, rotated))
            .encode(Game::Chess)
            .into_bytes(),
        Family::Dgt | Family::DgtBus | Family::Certabo => Vec::new(),
    }
}

/// What a board of `protocol` writes on its own after the square `sq`
/// changed to `cells[sq]`: a Millennium board its whole status, an open
/// board an `up` or `down` line.
pub(crate) fn update_bytes(
    protocol: Family,
    sq: Square,
    cells: &[Cell; 64],
    rotated: bool,
) -> Vec<u8> {
    match protocol {
        Family::Millennium => millennium_report(cells, rotated),
        Family::Open => {
            let square = physical(sq, rotated);
            let line = match content(cells[sq as usize]) {
                Content::Piece(p) => Line::Down {
                    square,
                    piece: Some(p),
                },
                _ => Line::Up(square),
            };
            line.encode(Game::Chess).into_bytes()
        }
        Family::Dgt | Family::DgtBus | Family::Certabo => Vec::new(),
    }
}
