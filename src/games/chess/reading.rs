//! How chess boards are read ([`Sensing`] for [`Chess`]): pieces named by
//! the sensors, occupancy-only boards followed by a tracker, a DGT board's
//! memory, and the report of a position in play that no game explains.

use boardcast_protocols::reading::{
    Content, MemoryRecord, Reading, Snapshot, Square as At, SquareChange,
};

use super::occupancy::OccupancyTracker;
use super::{Bitboard, Chess, Color, Role, Square, sensors};
use crate::event::{Alert, AlertKind, EventKind, Millis, Side};
use crate::games::sensing::{Heard, Sensing, Tracker};
use crate::games::{Cell, Game, Placement};

/// What a chess reader keeps of the board.
#[derive(Debug)]
pub struct ChessSensors {
    /// Follows the pieces of a board that senses occupancy only; made when
    /// the first reading without piece identity comes.
    occupancy: Option<OccupancyTracker>,
    /// The squares as last read, in the board's own orientation (to find
    /// where a board's memory log takes up).
    sensed: [Cell; 64],
    /// An `unrecognised` alert is open (see [`AlertKind::Unrecognised`]).
    unrecognised: bool,
}

impl Sensing for Chess {
    type Sensors = ChessSensors;

    fn sensors(&self) -> ChessSensors {
        ChessSensors {
            occupancy: None,
            sensed: [Cell::Empty; 64],
            unrecognised: false,
        }
    }

    fn read(
        s: &mut ChessSensors,
        tracker: &mut impl Tracker<Chess>,
        t: Millis,
        reading: &Reading,
        heard: &mut Heard,
    ) {
        match reading {
            Reading::Square(change) => square_reading(s, tracker, t, *change, heard),
            Reading::Snapshot(snapshot) => snapshot_reading(s, tracker, t, snapshot, heard),
            Reading::Clock(_) | Reading::NoClock | Reading::Identity(_) => {}
        }
    }

    /// The board's memory (its EEPROM move log, oldest first): the piece
    /// changes it logged after it last stood as this reader last read it
    /// are fed in order, at `t`, so the reconstructor explains the moves
    /// made while nobody listened one by one, in their order (a whole-board
    /// read alone shows where the pieces went, not in which order, and
    /// only a few plies deep). Nothing is done without a game on, or when
    /// the log never shows the board as last read (overwritten, another
    /// game): the board dump that follows is explained as usual.
    fn recover(
        s: &mut ChessSensors,
        tracker: &mut impl Tracker<Chess>,
        t: Millis,
        records: &[MemoryRecord],
        heard: &mut Heard,
    ) {
        if tracker.game().is_none() {
            return;
        }
        let Some(changes) = sensors::memory_since(records, &s.sensed) else {
            return;
        };
        tracing::debug!(
            changes = changes.len(),
            "board memory: changes made while away"
        );
        for (sq, cell) in changes {
            heard.square_readings += 1;
            s.sensed[sq as usize] = cell;
            tracker.handle_square(t, sq, cell);
        }
    }

    fn taken_up(s: &mut ChessSensors, tracker: &impl Tracker<Chess>) {
        s.unrecognised = false;
        let sensed = tracker.sensed();
        for (i, cell) in s.sensed.iter_mut().enumerate() {
            let sq = tracker.rules().square(i);
            *cell = match Placement::piece_at(sensed, sq) {
                Some(p) => Cell::Piece(p),
                None => Cell::Empty,
            };
        }
    }

    /// A game start withdraws an open unrecognised-position report first.
    fn before(s: &mut ChessSensors, _: Millis, kind: &EventKind) -> Option<EventKind> {
        if !matches!(kind, EventKind::GameStart { .. }) || !s.unrecognised {
            return None;
        }
        s.unrecognised = false;
        let message =
            "A game has started on the board; the unrecognised-position report is withdrawn.";
        Some(unrecognised_alert(message.into(), true))
    }

    /// The moves `side` has made, and whether its opponent cannot
    /// checkmate by any series of legal moves (Law 6.9).
    fn flag_facts(tracker: &impl Tracker<Chess>, side: Side) -> (u32, bool) {
        let Some(game) = tracker.game() else {
            return (0, false);
        };
        let first = Side::from(game.start().turn());
        let n = game.len() as u32;
        let own = if first == side { n.div_ceil(2) } else { n / 2 };
        let opponent = chess_color(side.other());
        (own, game.position().cannot_checkmate(opponent))
    }
}

/// One square's new content: a piece named goes to the reconstructor;
/// on a board that senses occupancy only, the tracker names it.
fn square_reading(
    s: &mut ChessSensors,
    tracker: &mut impl Tracker<Chess>,
    t: Millis,
    change: SquareChange,
    heard: &mut Heard,
) {
    let Some(sq) = sensors::square(change.square) else {
        return;
    };
    match change.content {
        // A board that names a piece needs no tracking (a Certabo board
        // once calibrated).
        Content::Piece(_) => s.occupancy = None,
        Content::Occupied if s.occupancy.is_none() => {
            s.occupancy = Some(Default::default());
        }
        _ => {}
    }
    if let Some(occupancy) = &mut s.occupancy
        && matches!(change.content, Content::Empty | Content::Occupied)
    {
        // An occupancy board: its occupancy tracker names the piece (nothing
        // before a start position was seen).
        let occupied = change.content == Content::Occupied;
        // The side to move after a move still settling, if any: the
        // opponent may already be lifting a piece to reply.
        let turn = match tracker.last_mover() {
            (_, Some(mover)) => Some(chess_color(mover.other())),
            (_, None) => tracker.game().map(|g| g.position().turn()),
        };
        let cell = occupancy.square(t, sq, occupied, turn);
        for (other, c) in occupancy.take_changes() {
            tracker.handle_square(t, other, c);
        }
        if let Some(cell) = cell {
            heard.square_readings += 1;
            tracker.handle_square(t, sq, cell);
        }
        return;
    }
    match sensors::cell(change.content) {
        Some(cell) => {
            heard.square_readings += 1;
            s.sensed[sq as usize] = cell;
            tracker.handle_square(t, sq, cell);
        }
        None => unidentified(t, heard),
    }
}

/// A whole board: pieces named go to the reconstructor; a board that
/// senses occupancy only goes through the tracker.
fn snapshot_reading(
    s: &mut ChessSensors,
    tracker: &mut impl Tracker<Chess>,
    t: Millis,
    snapshot: &Snapshot,
    heard: &mut Heard,
) {
    let cell_at = |i: usize| snapshot.get(At::new((i % 8) as u8, (i / 8) as u8));
    let (mut occupied_seen, mut pieces_seen) = (false, false);
    for c in (0..64).map(cell_at) {
        occupied_seen |= c == Some(Content::Occupied);
        pieces_seen |= matches!(c, Some(Content::Piece(_)));
    }
    if pieces_seen {
        // Pieces named: no tracking (unknown cards among them are
        // unidentified, below).
        s.occupancy = None;
    } else if occupied_seen || s.occupancy.is_some() {
        return occupancy_snapshot(s, tracker, t, snapshot, heard);
    }
    let mut cells = [Cell::Empty; 64];
    for (i, cell) in cells.iter_mut().enumerate() {
        match sensors::cell(cell_at(i).unwrap_or(Content::Empty)) {
            Some(c) => *cell = c,
            None => return unidentified(t, heard),
        }
    }
    heard.square_readings += 64;
    s.sensed = cells;
    tracker.handle_board(t, &cells);
    check_unrecognised(s, tracker, t, &cells, heard);
}

/// A whole board read by occupancy only: the tracker names the pieces.
fn occupancy_snapshot(
    s: &mut ChessSensors,
    tracker: &mut impl Tracker<Chess>,
    t: Millis,
    snapshot: &Snapshot,
    heard: &mut Heard,
) {
    let mut occupied = Bitboard::EMPTY;
    for i in 0..64u32 {
        let at = At::new((i % 8) as u8, (i / 8) as u8);
        if matches!(
            snapshot.get(at),
            Some(Content::Occupied | Content::Piece(_))
        ) {
            occupied.add(Square::new(i));
        }
    }
    let occupancy = s.occupancy.get_or_insert_with(Default::default);
    if let Some(cells) = occupancy.board(t, occupied) {
        heard.square_readings += 64;
        tracker.handle_board(t, &cells);
    }
}

/// A whole board read with no game known and no set-up being judged:
/// a position in play (both kings and more) that nobody can explain
/// raises [`AlertKind::Unrecognised`] once, rather than staying silent.
fn check_unrecognised(
    s: &mut ChessSensors,
    tracker: &impl Tracker<Chess>,
    t: Millis,
    cells: &[Cell; 64],
    heard: &mut Heard,
) {
    if s.unrecognised || tracker.game().is_some() || tracker.poll_timeout().is_some() {
        return;
    }
    let king = |color| {
        cells
            .iter()
            .any(|c| matches!(c, Cell::Piece(p) if p.role == Role::King && p.color == color))
    };
    let pieces = cells.iter().filter(|c| matches!(c, Cell::Piece(_))).count();
    if !(king(Color::White) && king(Color::Black)) || pieces < 3 {
        return;
    }
    s.unrecognised = true;
    heard.events.push_back((
        t,
        unrecognised_alert(
            format!(
                "The board shows a position in play ({pieces} pieces) but no game is known on it: \
                 its moves are not being published (a game begun before boardcast started, with no \
                 capture to resume it from). Restore the game or set up the start position."
            ),
            false,
        ),
    ));
}

/// The chess colour an event's side names.
fn chess_color(side: Side) -> Color {
    match side {
        Side::White => Color::White,
        Side::Black | Side::Red => Color::Black,
    }
}

/// The unrecognised-position report, or its withdrawal.
fn unrecognised_alert(message: String, cleared: bool) -> EventKind {
    EventKind::Alert(Alert {
        kind: AlertKind::Unrecognised,
        side: None,
        law: None,
        message,
        cleared,
        evidence: None,
    })
}

/// A reading without piece identity that no tracker can follow.
fn unidentified(t: Millis, heard: &mut Heard) {
    let why = "a reading without piece identity: chess boards must identify pieces";
    heard.unreadable.push((t, why.into()));
}
