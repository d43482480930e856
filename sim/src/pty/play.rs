//! A session played on the board's own clock: readings and clock signals
//! scheduled on the wall clock, each written as the board's family writes
//! it, the board's memory kept, and the next game set up.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

use super::{NextSession, Pace, Shared, SimOptions, lock, write_all};
use crate::clock::Signal;
use crate::dgt::{clock_message, reading_message};
use crate::{Sensed, Session};
use boardcast::event::Millis;
use boardcast::family::Family;
use boardcast::track::Cell;

/// One thing to write on the line at a wall time (ms from the session's
/// start).
enum Step<'a> {
    Sensed(usize, &'a Sensed),
    Clock(usize, &'a Signal),
}

/// The session's readings and clock signals on the wall clock. Readings
/// are paced gap by gap; a clock signal is placed between the readings
/// around it in proportion, and the once-a-second faces are thinned to
/// one a wall second (a press, which changes the running face, always
/// goes out).
fn schedule(session: &Session, pace: Pace) -> Vec<(u64, Step<'_>)> {
    let mut walls = Vec::with_capacity(session.readings.len());
    let mut wall = 0.0;
    let mut prev = session.readings.first().map_or(0, |r| r.0);
    for (t, _) in &session.readings {
        wall += pace.gap(t.saturating_sub(prev));
        prev = *t;
        walls.push(wall);
    }
    let mut steps: Vec<(u64, Step<'_>)> = session
        .readings
        .iter()
        .enumerate()
        .map(|(i, (_, r))| (walls[i] as u64, Step::Sensed(i, r)))
        .collect();
    let mut last_kept: Option<(f64, Option<boardcast::clock::Face>)> = None;
    for (k, (t, signal)) in session.clock.iter().enumerate() {
        // The first reading at or after t.
        let i = session.readings.partition_point(|(rt, _)| rt < t);
        let w = if i == 0 {
            0.0
        } else if i == session.readings.len() {
            walls[i - 1] + pace.gap(t - session.readings[i - 1].0)
        } else {
            let (ta, tb) = (session.readings[i - 1].0, session.readings[i].0);
            let (wa, wb) = (walls[i - 1], walls[i]);
            if tb == ta {
                wa
            } else {
                wa + (t - ta) as f64 * (wb - wa) / (tb - ta) as f64
            }
        };
        let running = match signal {
            Signal::Times(r) => r.running,
            Signal::NoClock => None,
        };
        let keep = match last_kept {
            None => true,
            Some((lw, lr)) => lr != running || w - lw >= 1_000.0,
        };
        if keep {
            last_kept = Some((w, running));
            steps.push((w as u64, Step::Clock(k, signal)));
        }
    }
    // Stable: at equal times a reading goes before the clock signal.
    steps.sort_by_key(|(w, _)| *w);
    steps
}

/// Plays the session's readings (and clock) on the board's own clock, then
/// the next sessions, if any.
pub(super) async fn play(
    shared: Arc<Mutex<Shared>>,
    started: Arc<Notify>,
    first: Session,
    mut next: Option<NextSession>,
    opts: SimOptions,
) {
    {
        // The board's memory begins with what stands on it: the start
        // position mark, or an empty board and the pieces set up.
        let mut s = lock(&shared);
        let (cells, rotated) = (s.cells, s.rotated);
        s.memory = initial_memory(&cells, rotated);
    }
    started.notified().await;
    let mut start = Instant::now() + opts.lead_in;
    let mut session = first;
    let mut number = 0usize;
    loop {
        lock(&shared).sessions = number + 1;
        for (wall, step) in schedule(&session, opts.pace) {
            tokio::time::sleep_until(start + Duration::from_millis(wall)).await;
            let mut s = lock(&shared);
            match step {
                Step::Sensed(i, reading) => apply_reading(&mut s, i, reading, number),
                Step::Clock(k, signal) => {
                    if let Some(p) = &s.plugged
                        && p.updates
                        && s.protocol == Family::Dgt
                    {
                        write_all(&p.master, &clock_message(signal).to_bytes());
                        if number == 0 {
                            s.clock_written[k] = Some(Instant::now());
                        }
                    }
                }
            }
        }
        let Some(make) = next.as_mut() else {
            return;
        };
        tokio::time::sleep(opts.between_games).await;
        let cells = lock(&shared).cells;
        session = make(&cells);
        prepend_setup(&cells, &mut session);
        lock(&shared).rotated = session.rotated;
        number += 1;
        start = Instant::now();
    }
}

/// Applies reading `i` of session `number` to the board and sends what
/// the board sends for it (with garbage now and then, if asked for).
pub(super) fn apply_reading(s: &mut Shared, i: usize, reading: &Sensed, number: usize) {
    let rotated = s.rotated;
    let was = s.cells;
    match reading {
        Sensed::Square(sq, cell) => {
            s.cells[*sq as usize] = *cell;
            s.memory.push(memory_record(*sq, *cell, rotated));
        }
        Sensed::Dump(cells) => {
            for sq in boardcast::games::chess::Square::ALL {
                if s.cells[sq as usize] != cells[sq as usize] {
                    s.memory
                        .push(memory_record(sq, cells[sq as usize], rotated));
                }
            }
            s.cells = **cells;
        }
    }
    // A Certabo board's cards travel with the pieces.
    let now = s.cells;
    if let Some(cards) = &mut s.cards {
        for sq in boardcast::games::chess::Square::ALL {
            if was[sq as usize] != now[sq as usize] {
                cards.set(sq, was[sq as usize], now[sq as usize]);
            }
        }
    }
    if number == 0 {
        s.applied = i + 1;
    }
    let garbage = s.garbage_every.is_some_and(|n| (i + 1).is_multiple_of(n));
    let mut wrote = false;
    if let Some(p) = &s.plugged
        && p.updates
    {
        match (s.protocol, reading) {
            (_, Sensed::Dump(_)) => {}
            (Family::Dgt, _) => write_all(&p.master, &reading_message(reading, rotated).to_bytes()),
            (Family::Certabo, _) => {
                if let Some(frame) = s.certabo_frame(false) {
                    write_all(&p.master, &frame);
                }
            }
            (protocol, Sensed::Square(sq, _)) => write_all(
                &p.master,
                &crate::family::update_bytes(protocol, *sq, &s.cells, rotated),
            ),
        }
        if garbage {
            // Noise without a top bit, a frame of an unknown
            // id, a field update cut short by a new header,
            // a bad length.
            write_all(
                &p.master,
                &[
                    0x00, 0x13, 0x7f, 0xfe, 0x01, 0x02, 0x8e, 0x00, 0x05, 0x8e, 0x7f, 0x7f,
                ],
            );
        }
        wrote = true;
    }
    if wrote && number == 0 {
        s.written[i] = Some(Instant::now());
    }
}

/// The memory record of square `sq` now holding `cell`.
pub(crate) fn memory_record(
    sq: boardcast::games::chess::Square,
    cell: Cell,
    rotated: bool,
) -> boardcast_protocols::dgt::EeRecord {
    boardcast_protocols::dgt::EeRecord::PieceChange {
        field: crate::dgt::field_of(sq, rotated),
        piece: crate::dgt::code_of(cell),
        rapid: false,
    }
}

/// What a board's memory holds when play begins on `cells`: the start
/// position mark, or an empty board and the pieces set up.
pub(crate) fn initial_memory(
    cells: &[Cell; 64],
    rotated: bool,
) -> Vec<boardcast_protocols::dgt::EeRecord> {
    use boardcast_protocols::dgt::EeRecord;
    if *cells == boardcast::games::chess::sensors::start_cells(rotated) {
        return vec![if rotated {
            EeRecord::BeginPosRotated
        } else {
            EeRecord::BeginPos
        }];
    }
    let mut out = vec![EeRecord::EmptyBoard];
    for sq in boardcast::games::chess::Square::ALL {
        if cells[sq as usize] != Cell::Empty {
            out.push(memory_record(sq, cells[sq as usize], rotated));
        }
    }
    out
}

/// Prepends to `next` the readings of players clearing the board and
/// setting up its start position from `cells`, in simulated time: a piece
/// every 300 ms, then a pause of two seconds before its own readings
/// (and clock), which are shifted accordingly.
fn prepend_setup(cells: &[Cell; 64], next: &mut Session) {
    let mut out = Vec::new();
    let mut t: Millis = 0;
    let target = *next.initial;
    let mut now = *cells;
    for sq in 0..64 {
        if now[sq] != Cell::Empty && now[sq] != target[sq] {
            t += 300;
            now[sq] = Cell::Empty;
            out.push((t, Sensed::Square(square(sq), Cell::Empty)));
        }
    }
    for sq in 0..64 {
        if now[sq] != target[sq] {
            t += 300;
            now[sq] = target[sq];
            out.push((t, Sensed::Square(square(sq), target[sq])));
        }
    }
    let base = next.readings.first().map_or(0, |r| r.0);
    let shift = (t + 2_000).saturating_sub(base);
    for (rt, r) in next.readings.drain(..) {
        out.push((rt + shift, r));
    }
    next.readings = out;
    for (ct, _) in &mut next.clock {
        *ct += shift;
    }
}

fn square(i: usize) -> boardcast::games::chess::Square {
    boardcast::games::chess::Square::new(i as u32)
}
