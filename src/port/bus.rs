//! A DGT bus: several DGT boards chained on one serial line, read by one
//! task.
//!
//! The task owns the line: it finds and opens the device, sends the bus
//! driver's ping, then polls the units in turn with the driver
//! ([`DgtBusDriver`]). Every byte read from the line goes to every unit's
//! [`Session`](crate::session::Session) (each pipeline keeps only the replies of its own address)
//! and to every unit's capture, so each unit is a board of its own in
//! every output (topics, PGN, page) and its capture replays alone.
//!
//! A unit that stops answering is reported missing (a warning, and the
//! board's state goes `offline`); the others are polled as before. When it
//! answers again it is asked for its whole board, and the reconstructor
//! explains the moves made while it was away, as after a single board's
//! replug. The line itself is lost only on a read or write error or a
//! hang-up; then every unit goes `offline` and the task reconnects after a
//! backoff.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::sync::watch;
use tokio::time::Instant;
use tokio_serial::SerialStream;
use tracing::{Instrument, debug, info, info_span, warn};

use super::BoardTask;
use super::find::{self, Claims, DeviceClaim};
use super::line::{self, LineTask, Lost, hex, keep_open, write};
use crate::capture::Direction;
use crate::config;
use crate::event::Millis;
use crate::family::{BusOptions, DgtBusDriver, Driver, DriverEvent, LineSettings};
use boardcast_protocols::dgt::bus::BusCommand;

/// How long a line found by a pattern (or a list) has for one configured
/// unit to answer the ping; real boards answer within 1100 ms.
const IDENTIFY_MIN: Duration = Duration::from_millis(1300);

/// One board on the bus: its address and its board task's parts.
#[derive(Debug)]
struct Unit {
    address: u16,
    task: BoardTask,
    /// Answering now.
    present: bool,
    /// Its span (`board`, `unit`): its log lines name it.
    span: tracing::Span,
}

/// Everything a bus task needs: the boards configured on one line.
#[derive(Debug)]
pub struct BusTask {
    /// The ids of the boards, joined (logs, device claims).
    name: String,
    port: config::PortSpec,
    baud: u32,
    serial: config::Serial,
    claims: Arc<Claims>,
    units: Vec<Unit>,
    /// The bus driver's time base.
    started: Instant,
}

/// An open bus line.
pub(super) struct BusLink {
    stream: SerialStream,
    path: PathBuf,
    driver: DgtBusDriver,
    /// What the driver said during identification, not yet handled.
    pending: Vec<DriverEvent>,
    _claim: DeviceClaim,
}

/// Why a bus task cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum BusError {
    /// No board was given.
    #[error("a bus needs at least one board")]
    Empty,
    /// A board is not configured on a DGT bus.
    #[error("board `{0}` has no bus address")]
    NotOnBus(String),
}

impl BusTask {
    /// A task for `boards`, the board tasks of one bus line (same port,
    /// each with its `bus_address`). Their pipelines must read their own
    /// unit (a [`BoardSetup`](crate::session::BoardSetup) with its `bus_unit`).
    pub fn new(boards: Vec<BoardTask>) -> Result<BusTask, BusError> {
        let first = boards.first().ok_or(BusError::Empty)?;
        let (port, baud, serial, claims) = (
            first.board.port.clone(),
            first.board.baud,
            first.serial,
            Arc::clone(&first.claims),
        );
        let name = boards
            .iter()
            .map(|b| b.board.id.as_str())
            .collect::<Vec<_>>()
            .join(",");
        let units = boards
            .into_iter()
            .map(|task| match task.board.bus_address {
                Some(address) => Ok(Unit {
                    address,
                    span: info_span!(parent: None, "board", board = %task.board.id, unit = address),
                    task,
                    present: false,
                }),
                None => Err(BusError::NotOnBus(task.board.id.clone())),
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(BusTask {
            name,
            port,
            baud,
            serial,
            claims,
            units,
            started: Instant::now(),
        })
    }

    /// The bus driver's clock.
    fn bus_ms(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    /// Runs until `shutdown` turns true, then flushes every unit's capture
    /// and PGN and publishes every unit `offline`.
    pub async fn run(mut self, mut shutdown: watch::Receiver<bool>) {
        let span = info_span!("bus", boards = %self.name, spec = %self.port);
        let reconnect = self.serial.reconnect;
        keep_open(&mut self, reconnect, &mut shutdown)
            .instrument(span)
            .await
    }

    /// Waits `delay` while keeping every unit's timers firing.
    async fn wait(&mut self, delay: Duration) {
        let until = Instant::now() + delay;
        loop {
            let next = self
                .next_timer()
                .unwrap_or(until)
                .min(until)
                .min(Instant::now() + Duration::from_secs(1));
            tokio::time::sleep_until(next).await;
            self.advance_all();
            if next >= until {
                return;
            }
        }
    }

    /// The earliest timer of any unit.
    fn next_timer(&self) -> Option<Instant> {
        self.units
            .iter()
            .filter_map(|u| {
                u.task
                    .session
                    .poll_timeout()
                    .map(|t| u.task.clock.instant(t))
            })
            .min()
    }

    /// Fires every unit's due timers and applies operator corrections.
    fn advance_all(&mut self) {
        for u in &mut self.units {
            let span = u.span.clone();
            let _in = span.enter();
            u.task.session.advance_to(u.task.clock.now_ms());
            u.task.apply_commands();
        }
    }

    /// Tries every candidate once; returns the first line where a
    /// configured unit answers (on a fixed path, the line itself).
    async fn find(&mut self, shutdown: &mut watch::Receiver<bool>) -> Option<BusLink> {
        let fixed = self.port.is_fixed();
        let addresses: Vec<u16> = self.units.iter().map(|u| u.address).collect();
        for path in find::candidates(&self.port) {
            if *shutdown.borrow() {
                return None;
            }
            let device = find::device_of(&path);
            let Some(claim) = self.claims.claim_device(&device, &self.name) else {
                continue;
            };
            let mut stream = match line::open(&path, &LineSettings::eight_n_one(self.baud)) {
                Ok(s) => s,
                Err(e) => {
                    debug!(path = %path.display(), error = %e, "cannot open");
                    continue;
                }
            };
            let gap_ms = self.serial.bus_gap.as_millis() as u64;
            let mut driver = DgtBusDriver::new(BusOptions {
                addresses: addresses.clone(),
                gap_ms,
                // Boards answer within ms (up to 20 ms writing their
                // memory): 80 ms, or the gap when that is shorter.
                timeout_ms: gap_ms.min(80),
                ..BusOptions::default()
            });
            let mut chunks: Vec<(Instant, Direction, Vec<u8>)> = Vec::new();
            let hello = driver.hello(self.bus_ms());
            chunks.push((Instant::now(), Direction::ToBoard, hello.clone()));
            if let Err(e) = write(&mut stream, &hello).await {
                debug!(path = %path.display(), error = %e, "cannot write");
                continue;
            }
            // Wait for a configured unit to answer the ping.
            let deadline = Instant::now() + self.serial.handshake.max(IDENTIFY_MIN);
            let mut pending = Vec::new();
            let mut bytes = [0u8; 1024];
            let answered = loop {
                let n = match tokio::time::timeout_at(deadline, stream.read(&mut bytes)).await {
                    Err(_) => break false,
                    Ok(Ok(0)) | Ok(Err(_)) => break false,
                    Ok(Ok(n)) => n,
                };
                chunks.push((Instant::now(), Direction::FromBoard, bytes[..n].to_vec()));
                driver.feed(self.bus_ms(), &bytes[..n], &mut pending);
                if pending.iter().any(
                    |e| matches!(e, DriverEvent::UnitFound { unit } if addresses.contains(unit)),
                ) {
                    break true;
                }
            };
            if !answered && !fixed {
                debug!(path = %path.display(), "no configured bus unit answered");
                continue;
            }
            if !answered {
                warn!(path = %path.display(), "no bus unit answered the ping; polling them anyway");
            }
            let port = path.to_string_lossy().into_owned();
            info!(%port, units = ?addresses, "bus line connected");
            for u in &mut self.units {
                let span = u.span.clone();
                let _in = span.enter();
                u.task.note(&format!(
                    "bus line connected {} unit {}",
                    path.display(),
                    u.address
                ));
                for (at, dir, bytes) in &chunks {
                    // Each unit's clock, at the instant the bytes went by.
                    let t = u
                        .task
                        .clock
                        .now_ms()
                        .saturating_sub(at.elapsed().as_millis() as Millis);
                    u.task.record(t, *dir, bytes);
                }
            }
            return Some(BusLink {
                stream,
                path,
                driver,
                pending,
                _claim: claim,
            });
        }
        None
    }

    /// The live loop: poll the units, read their answers, until the line
    /// is lost or the daemon stops.
    async fn serve(&mut self, mut link: BusLink, shutdown: &mut watch::Receiver<bool>) -> Lost {
        let pending = std::mem::take(&mut link.pending);
        let port = link.path.to_string_lossy().into_owned();
        let mut strangers = BTreeSet::new();
        self.handle_events(pending, &port, &mut strangers, &mut link.driver);
        let tick = Duration::from_millis(link.driver.tick_ms());
        let flush_every = Duration::from_millis(500);
        let mut next_tick = Instant::now();
        let mut next_flush = Instant::now() + flush_every;
        let mut eofs = 0u32;
        let mut bytes = vec![0u8; 4096];
        let mut events = Vec::new();
        loop {
            let mut wake = next_tick.min(next_flush);
            if let Some(t) = self.next_timer() {
                wake = wake.min(t);
            }
            tokio::select! {
                r = link.stream.read(&mut bytes) => match r {
                    Ok(0) => {
                        eofs += 1;
                        if eofs >= 3 {
                            return Lost::Eof;
                        }
                        tokio::time::sleep(Duration::from_millis(20)).await;
                    }
                    Ok(n) => {
                        eofs = 0;
                        let chunk = &bytes[..n];
                        tracing::trace!(bytes = %hex(chunk), "read");
                        for u in &mut self.units {
                let span = u.span.clone();
                let _in = span.enter();
                            let t = u.task.clock.now_ms();
                            u.task.record(t, Direction::FromBoard, chunk);
                        }
                        link.driver.feed(self.bus_ms(), chunk, &mut events);
                        let found = std::mem::take(&mut events);
                        self.handle_events(found, &port, &mut strangers, &mut link.driver);
                    }
                    Err(e) => return Lost::Read(e),
                },
                _ = tokio::time::sleep_until(wake) => {
                    let now = Instant::now();
                    self.advance_all();
                    if now >= next_tick {
                        next_tick = now + tick;
                        let out = link.driver.poll(self.bus_ms(), &mut events);
                        let found = std::mem::take(&mut events);
                        self.handle_events(found, &port, &mut strangers, &mut link.driver);
                        if !out.is_empty() {
                            for u in &mut self.units {
                let span = u.span.clone();
                let _in = span.enter();
                                let t = u.task.clock.now_ms();
                                u.task.record(t, Direction::ToBoard, &out);
                            }
                            if let Err(e) = write(&mut link.stream, &out).await {
                                return Lost::Write(e);
                            }
                        }
                    }
                    if now >= next_flush {
                        next_flush = now + flush_every;
                        for u in &mut self.units {
                let span = u.span.clone();
                let _in = span.enter();
                            u.task.flush();
                        }
                    }
                }
                _ = shutdown.changed() => return Lost::Shutdown,
            }
        }
    }

    /// Units found and missing: their boards' status, a log line, a note
    /// in their captures. A unit found with a game on (back in the chain,
    /// or a game resumed after a restart) is asked for its memory first.
    fn handle_events(
        &mut self,
        events: Vec<DriverEvent>,
        port: &str,
        strangers: &mut BTreeSet<u16>,
        driver: &mut DgtBusDriver,
    ) {
        for e in events {
            match e {
                DriverEvent::UnitFound { unit } => {
                    match self.units.iter_mut().find(|u| u.address == unit) {
                        Some(u) if !u.present => {
                            let _in = u.span.clone().entered();
                            u.present = true;
                            let t = u.task.clock.now_ms();
                            info!(board = %u.task.board.id, unit, "bus unit answers");
                            u.task.note(&format!("unit {unit} answers"));
                            u.task
                                .session
                                .set_connected(t, port.to_string(), format!("{unit:05}"));
                            if u.task.session.game_in_progress() {
                                // Its memory tells in which order the moves
                                // made while it was away were played.
                                driver.request(unit, BusCommand::SendFromStart);
                                debug!(unit, "asking for the board's memory");
                            }
                        }
                        Some(_) => {}
                        None => {
                            if strangers.insert(unit) {
                                warn!(unit, "a board not in the configuration answers on this bus");
                            }
                        }
                    }
                }
                DriverEvent::UnitMissing { unit } => {
                    if let Some(u) = self.units.iter_mut().find(|u| u.address == unit) {
                        let _in = u.span.clone().entered();
                        u.present = false;
                        let t = u.task.clock.now_ms();
                        warn!(board = %u.task.board.id, unit, "bus unit missing from the chain");
                        u.task.note(&format!("unit {unit} missing"));
                        u.task.session.advance_to(t);
                        u.task.session.set_offline(t);
                    }
                }
                DriverEvent::Dropped { reason, bytes } => {
                    debug!(%reason, bytes, "bus input dropped");
                }
                DriverEvent::Reading { .. }
                | DriverEvent::Memory { .. }
                | DriverEvent::Skipped { .. } => {}
            }
        }
    }
}

impl LineTask for BusTask {
    type Link = BusLink;
    const WHAT: &'static str = "bus line";

    async fn connect(&mut self, shutdown: &mut watch::Receiver<bool>) -> Option<BusLink> {
        self.find(shutdown).await
    }

    fn link_span(link: &BusLink) -> tracing::Span {
        info_span!("link", port = %link.path.display())
    }

    async fn serve(&mut self, link: BusLink, shutdown: &mut watch::Receiver<bool>) -> Lost {
        BusTask::serve(self, link, shutdown).await
    }

    fn lost(&mut self, why: &Lost) {
        for u in &mut self.units {
            let _in = u.span.clone().entered();
            let t = u.task.clock.now_ms();
            u.present = false;
            u.task.session.advance_to(t);
            u.task.session.set_offline(t);
            u.task.note(&format!("bus line disconnected: {why}"));
            u.task.flush();
        }
    }

    async fn idle(&mut self, delay: Duration) {
        self.wait(delay).await
    }

    fn stop(&mut self) {
        for u in &mut self.units {
            let _in = u.span.clone().entered();
            let t = u.task.clock.now_ms();
            u.task.session.finish(t);
            u.task.session.set_offline(t);
            u.task.flush();
            let pgn = u.task.session.all_games_pgn();
            if let Some(r) = &mut u.task.recorder {
                r.write_pgn(&pgn);
            }
        }
    }
}
