//! How chess boards are read ([`Sensing`] for [`Chess`]): pieces named by
//! the sensors, occupancy-only boards followed by a tracker, a DGT board's
//! memory, and the report of a position in play that no game explains.

use boardcast_protocols::reading::{
    Content, MemoryRecord, Reading, Snapshot, Square as At, SquareChange,
};

use super::Diagnostic;
use super::reader::{Reader, Report, Sensing};
use crate::event::{Alert, AlertKind, EventKind, Millis, Side};
use crate::games::chess::occupancy::OccupancyTracker;
use crate::games::chess::{Chess, Color, Role, sensors};
use crate::track::Cell;

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

    fn read(r: &mut Reader<Chess>, t: Millis, reading: &Reading, report: Report<'_>) {
        match reading {
            Reading::Square(change) => square_reading(r, t, *change, report),
            Reading::Snapshot(snapshot) => snapshot_reading(r, t, snapshot, report),
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
    fn recover(r: &mut Reader<Chess>, t: Millis, records: &[MemoryRecord], report: Report<'_>) {
        if r.recon.game().is_none() {
            return;
        }
        let Some(changes) = sensors::memory_since(records, &r.sensors.sensed) else {
            return;
        };
        tracing::debug!(
            changes = changes.len(),
            "board memory: changes made while away"
        );
        for (sq, cell) in changes {
            report.stats.square_readings += 1;
            r.sensors.sensed[sq as usize] = cell;
            r.recon.handle_square(t, sq, cell);
        }
    }

    fn taken_up(r: &mut Reader<Chess>) {
        r.sensors.unrecognised = false;
        let sensed = r.recon.sensed().clone();
        for (i, cell) in r.sensors.sensed.iter_mut().enumerate() {
            let sq = crate::games::Game::square(r.recon.rules(), i);
            *cell = match crate::games::Placement::piece_at(&sensed, sq) {
                Some(p) => Cell::Piece(p),
                None => Cell::Empty,
            };
        }
    }

    /// A game start withdraws an open unrecognised-position report first.
    fn before(r: &mut Reader<Chess>, _: Millis, kind: &EventKind) -> Option<EventKind> {
        if !matches!(kind, EventKind::GameStart { .. }) || !r.sensors.unrecognised {
            return None;
        }
        r.sensors.unrecognised = false;
        let message =
            "A game has started on the board; the unrecognised-position report is withdrawn.";
        Some(unrecognised_alert(message.into(), true))
    }

    /// The moves `side` has made, and whether its opponent cannot
    /// checkmate by any series of legal moves (Law 6.9).
    fn flag_facts(r: &Reader<Chess>, side: Side) -> (u32, bool) {
        let Some(game) = r.recon.game() else {
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
fn square_reading(r: &mut Reader<Chess>, t: Millis, change: SquareChange, report: Report<'_>) {
    let Some(sq) = sensors::square(change.square) else {
        return;
    };
    match change.content {
        // A board that names a piece needs no tracking (a Certabo board
        // once calibrated).
        Content::Piece(_) => r.sensors.occupancy = None,
        Content::Occupied if r.sensors.occupancy.is_none() => {
            r.sensors.occupancy = Some(Default::default());
        }
        _ => {}
    }
    if let Some(tracker) = &mut r.sensors.occupancy
        && matches!(change.content, Content::Empty | Content::Occupied)
    {
        // An occupancy board: the tracker names the piece (nothing
        // before a start position was seen).
        let occupied = change.content == Content::Occupied;
        // The side to move after a move still settling, if any: the
        // opponent may already be lifting a piece to reply.
        let turn = match r.recon.last_mover() {
            (_, Some(mover)) => Some(chess_color(mover.other())),
            (_, None) => r.recon.game().map(|g| g.position().turn()),
        };
        let cell = tracker.square(t, sq, occupied, turn);
        for (other, c) in tracker.take_changes() {
            r.recon.handle_square(t, other, c);
        }
        if let Some(cell) = cell {
            report.stats.square_readings += 1;
            r.recon.handle_square(t, sq, cell);
        }
        return;
    }
    match sensors::cell(change.content) {
        Some(cell) => {
            report.stats.square_readings += 1;
            r.sensors.sensed[sq as usize] = cell;
            r.recon.handle_square(t, sq, cell);
        }
        None => unidentified(t, report),
    }
}

/// A whole board: pieces named go to the reconstructor; a board that
/// senses occupancy only goes through the tracker.
fn snapshot_reading(r: &mut Reader<Chess>, t: Millis, snapshot: &Snapshot, report: Report<'_>) {
    let cell_at = |i: usize| snapshot.get(At::new((i % 8) as u8, (i / 8) as u8));
    let (mut occupied_seen, mut pieces_seen) = (false, false);
    for c in (0..64).map(cell_at) {
        occupied_seen |= c == Some(Content::Occupied);
        pieces_seen |= matches!(c, Some(Content::Piece(_)));
    }
    if pieces_seen {
        // Pieces named: no tracking (unknown cards among them are
        // unidentified, below).
        r.sensors.occupancy = None;
    } else if occupied_seen || r.sensors.occupancy.is_some() {
        return occupancy_snapshot(r, t, snapshot, report);
    }
    let mut cells = [Cell::Empty; 64];
    for (i, cell) in cells.iter_mut().enumerate() {
        match sensors::cell(cell_at(i).unwrap_or(Content::Empty)) {
            Some(c) => *cell = c,
            None => return unidentified(t, report),
        }
    }
    report.stats.square_readings += 64;
    r.sensors.sensed = cells;
    r.recon.handle_board(t, &cells);
    check_unrecognised(r, t, &cells);
}

/// A whole board read by occupancy only: the tracker names the pieces.
fn occupancy_snapshot(r: &mut Reader<Chess>, t: Millis, snapshot: &Snapshot, report: Report<'_>) {
    let mut occupied = crate::games::chess::Bitboard::EMPTY;
    for i in 0..64u32 {
        let at = At::new((i % 8) as u8, (i / 8) as u8);
        if matches!(
            snapshot.get(at),
            Some(Content::Occupied | Content::Piece(_))
        ) {
            occupied.add(crate::games::chess::Square::new(i));
        }
    }
    let tracker = r.sensors.occupancy.get_or_insert_with(Default::default);
    if let Some(cells) = tracker.board(t, occupied) {
        report.stats.square_readings += 64;
        r.recon.handle_board(t, &cells);
    }
}

/// A whole board read with no game known and no set-up being judged:
/// a position in play (both kings and more) that nobody can explain
/// raises [`AlertKind::Unrecognised`] once, rather than staying silent.
fn check_unrecognised(r: &mut Reader<Chess>, t: Millis, cells: &[Cell; 64]) {
    if r.sensors.unrecognised || r.recon.game().is_some() || r.recon.poll_timeout().is_some() {
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
    r.sensors.unrecognised = true;
    r.own.push_back((
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
fn unidentified(t: Millis, report: Report<'_>) {
    report.stats.bad_frames += 1;
    report.diagnostics.push_back(Diagnostic::BadFrame {
        t_ms: t,
        reason: "a reading without piece identity: chess boards must identify pieces".into(),
    });
}
