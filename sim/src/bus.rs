//! Simulated DGT boards in bus mode: several boards on one
//! pseudo-terminal, as a chain of DGT boards on one serial line.
//!
//! Each unit answers only the requests addressed to it (or to every board,
//! address 0), with the bus framing and checksums of
//! [`boardcast_protocols::dgt::bus`]: a ping, its whole board, the changes
//! since the host last asked (again after a lost answer), the changes
//! since the start mark (its memory). Each unit plays its own simulator
//! session (the same human handling as [`super::pty::SimBoard`]) on its
//! own clock, from the first time the host asks it for changes. A unit can
//! be unplugged from the chain ([`SimBus::unplug_unit`]: it stops
//! answering, play goes on) and plugged back.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use boardcast_protocols::dgt::bus::{BusBody, BusCommand, BusMessage, BusRequestDecoder};
use boardcast_protocols::dgt::{EeRecord, PieceCode};
use bytes::BytesMut;
use tokio::sync::Notify;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::dgt::{code_of, field_of};
use super::pty::{Line, Pace, PtyError, open_line, read_host, write_all};
use super::{Sensed, Session, SourceGame};
use boardcast::games::chess::Square;
use boardcast::track::Cell;

/// One board of a simulated bus.
#[derive(Clone, Debug)]
pub struct BusUnit {
    /// Its bus address (its serial number as a number).
    pub address: u16,
    /// The game it plays.
    pub game: SourceGame,
    /// The session it plays.
    pub session: Session,
}

struct UnitState {
    address: u16,
    cells: [Cell; 64],
    rotated: bool,
    /// Changes since the host last asked.
    pending: Vec<EeRecord>,
    /// The last change list sent (for `RepeatChanges`).
    last: Vec<EeRecord>,
    /// Every change since the start mark (the board's memory).
    memory: Vec<EeRecord>,
    /// Plugged into the chain.
    answering: bool,
    /// Readings of the session applied so far.
    applied: usize,
    started: Arc<Notify>,
    playing: bool,
}

struct Shared {
    units: Vec<UnitState>,
    master: Option<Arc<Line>>,
}

fn lock(shared: &Mutex<Shared>) -> MutexGuard<'_, Shared> {
    shared.lock().unwrap_or_else(|e| e.into_inner())
}

/// Several simulated DGT boards on one pty, in bus mode.
pub struct SimBus {
    shared: Arc<Mutex<Shared>>,
    path: PathBuf,
    server: JoinHandle<()>,
    players: Vec<JoinHandle<()>>,
    /// The boards, in the order given.
    pub units: Vec<BusUnit>,
}

impl std::fmt::Debug for SimBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimBus")
            .field("path", &self.path)
            .field("units", &self.units.len())
            .finish_non_exhaustive()
    }
}

impl SimBus {
    /// Plugs the bus in as `{folder}/{name}` with `units` on it; each plays
    /// its session at `pace`, `lead_in` after the host first asks it for
    /// changes. Call inside a tokio runtime.
    pub fn start(
        folder: &Path,
        name: &str,
        units: Vec<BusUnit>,
        pace: Pace,
        lead_in: Duration,
    ) -> Result<SimBus, PtyError> {
        let path = folder.join(name);
        let master = open_line(&path)?;
        let states = units
            .iter()
            .map(|u| UnitState {
                address: u.address,
                cells: *u.session.initial,
                rotated: u.session.rotated,
                pending: Vec::new(),
                last: Vec::new(),
                memory: super::pty::initial_memory(&u.session.initial, u.session.rotated),
                answering: true,
                applied: 0,
                started: Arc::new(Notify::new()),
                playing: false,
            })
            .collect();
        let shared = Arc::new(Mutex::new(Shared {
            units: states,
            master: Some(master.clone()),
        }));
        let players = units
            .iter()
            .enumerate()
            .map(|(i, u)| tokio::spawn(play(shared.clone(), i, u.session.clone(), pace, lead_in)))
            .collect();
        let server = tokio::spawn(serve(shared.clone(), master));
        Ok(SimBus {
            shared,
            path,
            server,
            players,
            units,
        })
    }

    /// The line's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Takes the unit at `address` out of the chain: it stops answering;
    /// its players go on.
    pub fn unplug_unit(&self, address: u16) {
        self.set_answering(address, false);
    }

    /// Puts the unit at `address` back in the chain.
    pub fn plug_unit(&self, address: u16) {
        self.set_answering(address, true);
    }

    fn set_answering(&self, address: u16, on: bool) {
        let mut s = lock(&self.shared);
        if let Some(u) = s.units.iter_mut().find(|u| u.address == address) {
            u.answering = on;
        }
    }

    /// Readings of the unit's session applied so far.
    pub fn applied(&self, address: u16) -> usize {
        lock(&self.shared)
            .units
            .iter()
            .find(|u| u.address == address)
            .map_or(0, |u| u.applied)
    }

    /// Plies of the unit's game completed on its board so far (after the
    /// takebacks its session made).
    pub fn plies(&self, address: u16) -> usize {
        let Some((i, spec)) = self
            .units
            .iter()
            .enumerate()
            .find(|(_, u)| u.address == address)
        else {
            return 0;
        };
        let applied = lock(&self.shared).units[i].applied;
        let Some(now) = applied
            .checked_sub(1)
            .and_then(|n| spec.session.readings.get(n))
            .map(|r| r.0)
        else {
            return 0;
        };
        let mut plies = 0;
        for truth in &spec.session.truth {
            match *truth {
                super::Truth::Ply { ply, at } if at <= now => plies = ply,
                super::Truth::Takeback { to_ply, at } if at <= now => plies = to_ply,
                super::Truth::Shown { at, .. } if at <= now => {}
                _ => break,
            }
        }
        plies
    }

    /// Whether every unit has played its whole session.
    pub fn done(&self) -> bool {
        let s = lock(&self.shared);
        self.units
            .iter()
            .zip(&s.units)
            .all(|(spec, u)| u.applied == spec.session.readings.len())
    }
}

impl Drop for SimBus {
    fn drop(&mut self) {
        self.server.abort();
        for p in &self.players {
            p.abort();
        }
        let _ = std::fs::remove_file(&self.path);
        let mut s = lock(&self.shared);
        if let Some(m) = s.master.take() {
            m.close();
        }
    }
}

/// Answers the host's bus requests.
async fn serve(shared: Arc<Mutex<Shared>>, master: Arc<Line>) {
    let mut decoder = BusRequestDecoder::new();
    let mut buf = BytesMut::new();
    read_host(&master, |chunk| {
        buf.extend_from_slice(chunk);
        loop {
            let request = match decoder.decode(&mut buf) {
                Ok(Some(r)) => r,
                Ok(None) => break,
                Err(_) => continue,
            };
            let mut s = lock(&shared);
            let mut out = Vec::new();
            for u in s.units.iter_mut() {
                if !u.answering || (request.address != 0 && request.address != u.address) {
                    continue;
                }
                if let Some(body) = answer(u, request.command) {
                    out.extend(
                        BusMessage {
                            address: u.address,
                            body,
                        }
                        .to_bytes(),
                    );
                }
            }
            write_all(&master, &out);
        }
    })
    .await;
}

/// What a unit answers to `command`.
fn answer(u: &mut UnitState, command: BusCommand) -> Option<BusBody> {
    Some(match command {
        BusCommand::Ping => BusBody::Ping,
        BusCommand::SendBoard => {
            // The whole board supersedes the changes not yet sent.
            u.pending.clear();
            let mut codes = [PieceCode::Empty; 64];
            for sq in Square::ALL {
                codes[field_of(sq, u.rotated).index() as usize] = code_of(u.cells[sq as usize]);
            }
            BusBody::BoardDump(Box::new(codes))
        }
        BusCommand::SendChanges => {
            if !u.playing {
                u.playing = true;
                u.started.notify_one();
            }
            u.last = std::mem::take(&mut u.pending);
            BusBody::Changes(u.last.clone())
        }
        BusCommand::RepeatChanges => BusBody::Changes(u.last.clone()),
        BusCommand::SendFromStart => BusBody::FromStart(u.memory.clone()),
        BusCommand::SetStartGame => {
            u.memory.clear();
            BusBody::StartGameWritten
        }
        BusCommand::SendVersion => BusBody::Version { major: 1, minor: 8 },
        _ => return None,
    })
}

/// Plays unit `i`'s session on its own clock once the host has asked it
/// for changes.
async fn play(
    shared: Arc<Mutex<Shared>>,
    i: usize,
    session: Session,
    pace: Pace,
    lead_in: Duration,
) {
    let started = lock(&shared).units[i].started.clone();
    started.notified().await;
    let start = Instant::now() + lead_in;
    let mut wall = 0.0;
    let mut prev = session.readings.first().map_or(0, |r| r.0);
    for (n, (t, reading)) in session.readings.iter().enumerate() {
        wall += pace.gap(t.saturating_sub(prev));
        prev = *t;
        tokio::time::sleep_until(start + Duration::from_millis(wall as u64)).await;
        let mut s = lock(&shared);
        let u = &mut s.units[i];
        match reading {
            Sensed::Square(sq, cell) => {
                u.cells[*sq as usize] = *cell;
                let record = EeRecord::PieceChange {
                    field: field_of(*sq, u.rotated),
                    piece: code_of(*cell),
                    rapid: false,
                };
                u.pending.push(record);
                u.memory.push(record);
            }
            Sensed::Dump(cells) => u.cells = **cells,
        }
        u.applied = n + 1;
    }
}
