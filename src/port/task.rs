//! The line task: one serial line and its family's driver, whatever the
//! family: a board on its own line (one unit, 0) or the boards of a DGT
//! bus (one unit per address). Opening, the hello, identification,
//! keepalives, reading, recording and reconnecting are written here once.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::sync::watch;
use tokio::time::Instant;
use tracing::{Instrument, Span, debug, info, info_span, warn};

use super::BoardTask;
use super::bus::{self, BusError};
use super::config;
use super::find::{self, Claims, DeviceClaim};
use super::line::{self, LineTask, Lost, hex, keep_open, write};
use crate::capture::Direction;
use crate::family::{Driver, DriverEvent, DriverOptions, Family, LineSettings, Reading};

mod greet;

/// One board on the line: its address and its board's parts.
#[derive(Debug)]
struct Unit {
    /// 0 on a board's own line; the bus address on a DGT bus.
    address: u16,
    task: BoardTask,
    /// Answering now.
    present: bool,
    /// Its span on a bus (`board`, `unit`): its log lines name it. None
    /// on a board's own line, whose task span is the board's.
    span: Span,
}

/// Everything a line task needs: its line, its family, its boards.
#[derive(Debug)]
pub struct PortTask {
    /// The ids of the boards, joined (logs, device claims).
    name: String,
    port: crate::setup::config::PortSpec,
    baud: u32,
    family: Family,
    serial: config::Serial,
    claims: Arc<Claims>,
    units: Vec<Unit>,
    /// The boards are units of a DGT bus, told apart by address.
    bus: bool,
    /// The serial number a board on its own line must report: the
    /// configured one, else the first one seen (kept for the daemon's
    /// life).
    pinned: Option<String>,
    /// The drivers' time base.
    started: Instant,
    /// The options the line's driver is made with: the board's own (a
    /// Tabutronic Certabo, the game an open-protocol board is read as),
    /// as `replay` makes its decoder; on a bus, its addresses and pace.
    options: DriverOptions,
    /// The line's driver and pace between connections (a [`Link`] holds
    /// them while one is open). One for the task's life: it decodes
    /// every byte of the line once, for all its boards, and keeps what it
    /// learnt of the board (a Certabo's calibration, a Millennium's
    /// square order) across an unplug.
    idle_driver: Option<(Box<dyn Driver>, Pace)>,
}

/// How often a line's driver is polled, and the silence after which the
/// line is taken for gone (none on a bus: its driver reports units
/// missing).
type Pace = (Duration, Option<Duration>);

/// Bytes that went over the line at an instant, with what the line's
/// driver read in them (nothing in bytes written).
struct Heard {
    at: Instant,
    dir: Direction,
    bytes: Vec<u8>,
    events: Vec<DriverEvent>,
}

/// An open, identified line.
pub(super) struct Link {
    stream: Box<dyn line::Stream>,
    path: PathBuf,
    driver: Box<dyn Driver>,
    pace: Pace,
    /// The board's own serial number (a board on its own line that names
    /// itself).
    serial: Option<String>,
    /// What a board on its own line is known by: its serial number, else
    /// `{family}@{path}`. None on a bus.
    label: Option<String>,
    /// What to write once served: the rest of the hello.
    start: Vec<u8>,
    /// What the driver said during identification, not yet handled.
    pending: Vec<DriverEvent>,
    _claim: DeviceClaim,
}

/// What a line said to the hello.
struct Greeting {
    /// The traffic so far, not yet recorded (it may be another board's),
    /// with what the driver read in each part.
    chunks: Vec<Heard>,
    /// A configured unit answered.
    answered: bool,
    /// The serial number the board named (a board on its own line).
    serial: Option<String>,
    /// The rest of the hello, once the board named itself.
    start: Vec<u8>,
}

impl PortTask {
    /// The task of a board on its own line.
    pub fn single(task: BoardTask) -> PortTask {
        let pinned = task.board.serial.clone();
        let options = crate::setup::BoardSetup::of_config(&task.board).driver_options();
        let mut port = PortTask::of(
            vec![Unit {
                address: 0,
                task,
                present: false,
                span: Span::none(),
            }],
            options,
        );
        port.pinned = pinned;
        port
    }

    /// The task of `boards`, the boards of one DGT bus line (same port,
    /// each with its `bus_address`). Their pipelines must read their own
    /// unit (a [`BoardSetup`](crate::setup::BoardSetup) with its `bus_unit`).
    pub fn bus(boards: Vec<BoardTask>) -> Result<PortTask, BusError> {
        if boards.is_empty() {
            return Err(BusError::Empty);
        }
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
        let addresses: Vec<u16> = units.iter().map(|u| u.address).collect();
        let options = bus::options(addresses, units[0].task.serial.bus_gap);
        let mut port = PortTask::of(units, options);
        port.bus = true;
        Ok(port)
    }

    /// A task over `units` (at least one), configured as the first, whose
    /// drivers are made with `options`.
    fn of(units: Vec<Unit>, options: DriverOptions) -> PortTask {
        let first = &units[0].task;
        PortTask {
            name: units
                .iter()
                .map(|u| u.task.board.id.as_str())
                .collect::<Vec<_>>()
                .join(","),
            port: first.board.port.clone(),
            baud: first.board.baud,
            family: first.board.protocol,
            serial: first.serial,
            claims: Arc::clone(&first.claims),
            units,
            bus: false,
            pinned: None,
            started: Instant::now(),
            options,
            idle_driver: None,
        }
    }

    /// Runs until `shutdown` turns true, then flushes every board's
    /// capture and PGN and publishes every board `offline`. One span for
    /// the line: the board's, or the bus's.
    pub async fn run(mut self, mut shutdown: watch::Receiver<bool>) {
        let span = if self.bus {
            info_span!("bus", boards = %self.name, spec = %self.port)
        } else {
            info_span!("board", board = %self.name, spec = %self.port)
        };
        let reconnect = self.serial.reconnect;
        keep_open(&mut self, reconnect, &mut shutdown)
            .instrument(span)
            .await
    }

    /// The drivers' clock at `at`.
    fn line_ms(&self, at: Instant) -> u64 {
        at.saturating_duration_since(self.started).as_millis() as u64
    }

    /// The line's driver and pace, made at the first connection.
    fn line_driver(&mut self) -> (Box<dyn Driver>, Pace) {
        match self.idle_driver.take() {
            Some(driver) => driver,
            None => self.driver(),
        }
    }

    /// A fresh driver for the line, and how often to poll it (its
    /// keepalive at the configured pace when the family's is a configured
    /// poll) and the silence after which the line is gone.
    fn driver(&self) -> (Box<dyn Driver>, Pace) {
        let mut driver = crate::family::for_family(self.family, &self.options);
        let poll_ms = self.serial.poll.as_millis() as u64;
        if driver.set_keepalive_ms(poll_ms) {
            return (driver, (self.serial.poll, Some(self.serial.silence)));
        }
        // Other families keep themselves alive at their driver's pace (a
        // status request, a `board?`); silence is judged over at least
        // three of those.
        let tick = Duration::from_millis(driver.tick_ms());
        let pace = if self.bus {
            (tick, None)
        } else {
            (
                tick.min(self.serial.poll),
                Some(self.serial.silence.max(tick * 3)),
            )
        };
        (driver, pace)
    }

    /// Tries every candidate once; returns the first line where the board
    /// (a configured unit of the bus) answers, or on a fixed bus path the
    /// line itself.
    async fn find(&mut self, shutdown: &mut watch::Receiver<bool>) -> Option<Link> {
        let (mut driver, pace) = self.line_driver();
        for path in find::candidates(&self.port) {
            if *shutdown.borrow() {
                break;
            }
            let device = find::device_of(&path);
            let Some(claim) = self.claims.claim_device(&device, &self.name) else {
                continue;
            };
            let settings = LineSettings {
                baud: self.baud,
                ..driver.line()
            };
            let mut stream = match line::open(&path, &settings) {
                Ok(s) => s,
                Err(e) => {
                    debug!(path = %path.display(), error = %e, "cannot open");
                    continue;
                }
            };
            let greeting = match self.greet(stream.as_mut(), driver.as_mut()).await {
                Ok(g) => g,
                Err(e) => {
                    debug!(path = %path.display(), error = %e, "no board answered");
                    continue;
                }
            };
            let accepted = if self.bus {
                self.accept_bus(&path, &greeting)
            } else {
                self.accept_board(&path, &greeting)
            };
            if !accepted {
                continue;
            }
            // A board that names no serial number (Millennium, Certabo,
            // an open board without an `id`) is known by its device.
            let label = (!self.bus).then(|| {
                greeting
                    .serial
                    .clone()
                    .unwrap_or_else(|| format!("{}@{}", self.family, path.display()))
            });
            let mut link = Link {
                stream,
                path,
                driver,
                pace,
                serial: greeting.serial,
                label,
                start: Vec::new(),
                pending: greeting
                    .chunks
                    .iter()
                    .flat_map(|heard| heard.events.iter().cloned())
                    .collect(),
                _claim: claim,
            };
            self.connected(&mut link, greeting.chunks, greeting.start);
            return Some(link);
        }
        self.idle_driver = Some((driver, pace));
        None
    }

    /// The line is accepted: the identification traffic belongs to its
    /// boards (recorded and fed to their pipelines, in order, each at its
    /// own clock); a board on its own line is connected.
    fn connected(&mut self, link: &mut Link, chunks: Vec<Heard>, start: Vec<u8>) {
        let port = link.path.to_string_lossy().into_owned();
        if self.bus {
            let addresses: Vec<u16> = self.units.iter().map(|u| u.address).collect();
            info!(%port, units = ?addresses, "bus line connected");
        }
        let label = link.label.clone().unwrap_or_default();
        for u in &mut self.units {
            let _in = u.span.clone().entered();
            u.task.note(&if self.bus {
                format!(
                    "bus line connected {} unit {}",
                    link.path.display(),
                    u.address
                )
            } else {
                format!("connected {} serial {label}", link.path.display())
            });
            // Where the driver started afresh (before the hello): replay
            // reopens its decoder there.
            if let Some(first) = chunks.first() {
                u.task.opened(u.task.clock.at(first.at));
            }
            for heard in &chunks {
                let t = u.task.clock.at(heard.at);
                match heard.dir {
                    Direction::FromBoard => u.task.read(t, &heard.bytes, &heard.events),
                    dir => u.task.take_bytes(t, dir, &heard.bytes),
                }
            }
        }
        if !self.bus {
            info!(%port, serial = %label, "board connected");
            link.start = self.found(0, port, label, link.driver.as_mut());
        }
        link.start.extend(start);
    }

    /// Unit `index` answers on `port` (`label`: its serial number or
    /// address): connected; with a game on (after an unplug, or a resumed
    /// game) its memory is asked for first, for it tells in which order
    /// the moves made while nobody listened were played (the board dump
    /// after it then agrees). Returns the bytes to write.
    fn found(
        &mut self,
        index: usize,
        port: String,
        label: String,
        driver: &mut dyn Driver,
    ) -> Vec<u8> {
        let bus = self.bus;
        let u = &mut self.units[index];
        let _in = u.span.clone().entered();
        u.present = true;
        let t = u.task.clock.now_ms();
        if bus {
            info!(board = %u.task.board.id, unit = u.address, "bus unit answers");
            u.task.note(&format!("unit {} answers", u.address));
        }
        u.task.session.set_connected(t, port, label);
        if !u.task.session.game_in_progress() {
            return Vec::new();
        }
        debug!(unit = u.address, "asking for the board's memory");
        driver.request_memory_of(u.address)
    }

    /// Serves `link` until it is lost or the daemon stops; its driver is
    /// kept for the next connection.
    async fn serve(&mut self, mut link: Link, shutdown: &mut watch::Receiver<bool>) -> Lost {
        let why = self.serve_link(&mut link, shutdown).await;
        self.idle_driver = Some((link.driver, link.pace));
        why
    }

    /// The live loop: the rest of the hello, then bytes, keepalives and
    /// timers until the line is lost or the daemon stops.
    async fn serve_link(&mut self, link: &mut Link, shutdown: &mut watch::Receiver<bool>) -> Lost {
        let mut strangers = BTreeSet::new();
        let pending = std::mem::take(&mut link.pending);
        let mut out = std::mem::take(&mut link.start);
        out.extend(self.handle(pending, link, &mut strangers));
        if let Err(e) = self.send_any(link, &out).await {
            return e;
        }
        let (poll, silence) = link.pace;
        let flush_every = Duration::from_millis(500);
        let mut last_rx = Instant::now();
        let mut next_poll = Instant::now() + poll;
        let mut next_flush = Instant::now() + flush_every;
        let mut eofs = 0u32;
        let mut bytes = vec![0u8; 4096];
        loop {
            let silent_at = silence.map(|silence| last_rx + silence);
            let wake = self.wake_at(next_poll.min(next_flush), silent_at);
            tokio::select! {
                r = link.stream.read(&mut bytes) => match r {
                    Ok(0) => {
                        // A hung-up tty reads as end of file; a few in a
                        // row mean the device is gone.
                        eofs += 1;
                        if eofs >= 3 {
                            return Lost::Eof;
                        }
                        tokio::time::sleep(Duration::from_millis(20)).await;
                    }
                    Ok(n) => {
                        eofs = 0;
                        last_rx = Instant::now();
                        let chunk = &bytes[..n];
                        if let Err(e) = self.read(link, chunk, &mut strangers).await {
                            return e;
                        }
                    }
                    Err(e) => return Lost::Read(e),
                },
                _ = tokio::time::sleep_until(wake) => {
                    let now = Instant::now();
                    self.advance_all();
                    if let Some(silence) = silence
                        && now >= last_rx + silence
                    {
                        return Lost::Silent(silence);
                    }
                    if now >= next_poll {
                        // The driver's time is the poll's due time: a
                        // keepalive due every poll is sent every poll.
                        let due = self.line_ms(next_poll);
                        next_poll = now + poll;
                        if let Err(e) = self.poll_driver(link, due, &mut strangers).await {
                            return e;
                        }
                    }
                    if now >= next_flush {
                        next_flush = now + flush_every;
                        let again = self.flush_all(link.driver.as_mut());
                        if let Err(e) = self.send_any(link, &again).await {
                            return e;
                        }
                    }
                }
                (i, mut request) = next_command(&mut self.units) => self.apply(i, &mut request),
                _ = shutdown.changed() => return Lost::Shutdown,
            }
        }
    }

    /// Flushes every board's capture and PGN. A capture that resumed
    /// after a gap lost readings: its board is read whole again, as after
    /// an unplug (its memory with a game on, then the rest of the hello,
    /// a board dump among it; on a bus its memory). Returns the bytes to
    /// write.
    fn flush_all(&mut self, driver: &mut dyn Driver) -> Vec<u8> {
        let (bus, now) = (self.bus, self.line_ms(Instant::now()));
        let mut out = Vec::new();
        for u in &mut self.units {
            let _in = u.span.clone().entered();
            u.task.flush();
            if u.task.recording_resumed() {
                info!(
                    unit = u.address,
                    "recording resumed after a gap: reading the board whole again"
                );
                u.task.note("gap: the board is read whole again");
                if u.task.session.game_in_progress() {
                    out.extend(driver.request_memory_of(u.address));
                }
                // A bus keeps polling its units: the memory is enough there.
                // A board on its own line is greeted again, its decoder
                // afresh (marked in the capture, where replay does the same).
                if !bus {
                    driver.reopen();
                    u.task.opened(u.task.clock.now_ms());
                    let start = driver.identify_first(now).map(|(_, start)| start);
                    out.extend(start.unwrap_or_else(|| driver.hello(now)));
                }
            }
        }
        out
    }

    /// Bytes read from the line, decoded once by the line's driver:
    /// recorded by every board, and what they mean handed to its pipeline
    /// (each takes its own unit's readings); then what they mean for the
    /// line (units found and missing).
    async fn read(
        &mut self,
        link: &mut Link,
        chunk: &[u8],
        strangers: &mut BTreeSet<u16>,
    ) -> Result<(), Lost> {
        tracing::trace!(bytes = %hex(chunk), "read");
        let mut events = Vec::new();
        link.driver
            .feed(self.line_ms(Instant::now()), chunk, &mut events);
        for u in &mut self.units {
            let _in = u.span.clone().entered();
            let t = u.task.clock.now_ms();
            u.task.read(t, chunk, &events);
        }
        let out = self.handle(events, link, strangers);
        self.send_any(link, &out).await
    }

    /// The driver's keepalive at line time `due` (its poll), and what its
    /// events ask for, written.
    async fn poll_driver(
        &mut self,
        link: &mut Link,
        due: u64,
        strangers: &mut BTreeSet<u16>,
    ) -> Result<(), Lost> {
        let mut events = Vec::new();
        let out = link.driver.poll(due, &mut events);
        let more = self.handle(events, link, strangers);
        self.send_any(link, &out).await?;
        self.send_any(link, &more).await
    }

    /// When the live loop must wake: at `due` (the next poll or flush), the
    /// line's silence deadline `silent_at`, or a board's timer, whichever
    /// comes first.
    fn wake_at(&self, due: Instant, silent_at: Option<Instant>) -> Instant {
        [silent_at, self.next_timer()]
            .into_iter()
            .flatten()
            .fold(due, Instant::min)
    }

    /// What the driver reports: units found and missing (their boards'
    /// status, a log line, a note in their captures), input dropped, a
    /// board naming another serial number. Returns bytes to write (memory
    /// requests).
    fn handle(
        &mut self,
        events: Vec<DriverEvent>,
        link: &mut Link,
        strangers: &mut BTreeSet<u16>,
    ) -> Vec<u8> {
        let mut out = Vec::new();
        let port = link.path.to_string_lossy().into_owned();
        for e in events {
            match e {
                DriverEvent::UnitFound { unit } => match self.index(unit) {
                    Some(i) if !self.units[i].present => {
                        let label = format!("{unit:05}");
                        out.extend(self.found(i, port.clone(), label, link.driver.as_mut()));
                    }
                    Some(_) => {}
                    None => {
                        if strangers.insert(unit) {
                            warn!(unit, "a board not in the configuration answers on this bus");
                        }
                    }
                },
                DriverEvent::UnitMissing { unit } => {
                    if let Some(i) = self.index(unit) {
                        let u = &mut self.units[i];
                        let _in = u.span.clone().entered();
                        u.present = false;
                        warn!(board = %u.task.board.id, unit, "bus unit missing from the chain");
                        u.task.offline(&format!("unit {unit} missing"));
                    }
                }
                DriverEvent::Dropped { reason, bytes } => {
                    debug!(%reason, bytes, "input dropped");
                }
                DriverEvent::Reading {
                    reading: Reading::Identity(id),
                    ..
                } if !self.bus => {
                    if let (Some(serial), Some(expected)) = (
                        id.serial.as_deref().map(crate::text::board_text),
                        &link.serial,
                    ) && serial != *expected
                    {
                        warn!(%serial, %expected, "the board reports another serial number");
                    }
                }
                DriverEvent::Reading { .. }
                | DriverEvent::OtherGame { .. }
                | DriverEvent::Memory { .. }
                | DriverEvent::Skipped { .. } => {}
            }
        }
        out
    }

    /// The unit at `address`.
    fn index(&self, address: u16) -> Option<usize> {
        self.units.iter().position(|u| u.address == address)
    }

    /// Like [`Self::send`], but nothing at all (no record, no write) when
    /// `bytes` is empty.
    async fn send_any(&mut self, link: &mut Link, bytes: &[u8]) -> Result<(), Lost> {
        if bytes.is_empty() {
            return Ok(());
        }
        self.send(link, bytes).await
    }

    /// Records `bytes` for every board and writes them.
    async fn send(&mut self, link: &mut Link, bytes: &[u8]) -> Result<(), Lost> {
        for u in &mut self.units {
            let _in = u.span.clone().entered();
            let t = u.task.clock.now_ms();
            u.task.take_bytes(t, Direction::ToBoard, bytes);
        }
        write(&mut link.stream, bytes).await.map_err(Lost::Write)?;
        debug!(path = %link.path.display(), bytes = %hex(bytes), "sent");
        Ok(())
    }

    /// Waits `delay` while keeping every board's timers firing (a move
    /// settling when the cable was pulled is still published) and its
    /// operator corrections applied.
    async fn wait(&mut self, delay: Duration) {
        let until = Instant::now() + delay;
        loop {
            let next = self.next_timer().unwrap_or(until).min(until);
            tokio::select! {
                _ = tokio::time::sleep_until(next) => {
                    self.advance_all();
                    if next >= until {
                        return;
                    }
                }
                (i, mut request) = next_command(&mut self.units) => self.apply(i, &mut request),
            }
        }
    }

    /// Applies `request` to unit `i`'s board, in its span.
    fn apply(&mut self, i: usize, request: &mut crate::control::Request) {
        let u = &mut self.units[i];
        let _in = u.span.clone().entered();
        u.task.apply(request);
    }

    /// The earliest timer of any board.
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

    /// Fires every board's due timers.
    fn advance_all(&mut self) {
        for u in &mut self.units {
            let _in = u.span.clone().entered();
            u.task.advance();
        }
    }
}

impl LineTask for PortTask {
    type Link = Link;

    fn what(&self) -> &'static str {
        if self.bus { "bus line" } else { "board" }
    }

    async fn connect(&mut self, shutdown: &mut watch::Receiver<bool>) -> Option<Link> {
        self.find(shutdown).await
    }

    /// The device and the serial number it answered with.
    fn link_span(link: &Link) -> Span {
        match &link.label {
            Some(serial) => info_span!("link", port = %link.path.display(), %serial),
            None => info_span!("link", port = %link.path.display()),
        }
    }

    async fn serve(&mut self, link: Link, shutdown: &mut watch::Receiver<bool>) -> Lost {
        PortTask::serve(self, link, shutdown).await
    }

    fn lost(&mut self, why: &Lost) {
        let bus = self.bus;
        for u in &mut self.units {
            let _in = u.span.clone().entered();
            u.present = false;
            u.task.offline(&if bus {
                format!("bus line disconnected: {why}")
            } else {
                format!("disconnected: {why}")
            });
        }
    }

    async fn idle(&mut self, delay: Duration) {
        self.wait(delay).await
    }

    fn stop(&mut self) {
        for u in &mut self.units {
            let _in = u.span.clone().entered();
            u.task.stop();
        }
    }
}

/// The next operator command for any board of the line, with the board's
/// index: a branch of the line task's `select!`, so a command acts the
/// moment it arrives, whatever the line is doing.
fn next_command(
    units: &mut [Unit],
) -> impl std::future::Future<Output = (usize, crate::control::Request)> + '_ {
    std::future::poll_fn(move |cx| {
        for (i, u) in units.iter_mut().enumerate() {
            // A closed queue (`Ready(None)`) has nothing more to give.
            if let std::task::Poll::Ready(Some(r)) = u.task.commands.poll_recv(cx) {
                return std::task::Poll::Ready((i, r));
            }
        }
        std::task::Poll::Pending
    })
}
