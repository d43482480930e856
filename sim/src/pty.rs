//! Simulated boards on pseudo-terminals or in-process lines: the far end
//! of a serial cable.
//!
//! A [`SimBoard`] holds the board's end of a [`Line`]: the master side of
//! a pty (Unix), whose slave side the daemon opens through its real serial
//! code exactly as it opens a USB board; or, when its folder is an
//! in-process one (`mem:...`, [`boardcast::port::memory`], every OS), a
//! line the daemon's same port task opens by name in the same process. The board answers the host's commands (decoded with the protocol
//! crate's `CommandDecoder`) and plays simulator sessions on its own clock,
//! whether or not it is plugged in, so moves made while it is unplugged
//! show in the board dump after a replug. Each plug creates a new pty and a
//! new symlink `{folder}/{name}-{n}`, so the daemon finds it by a glob
//! pattern, as it finds real boards under `/dev/serial/by-id/`.
//!
//! The integration tests, the live benchmark and `boardcast demo` use it.
//! A board plays one session, or (for the demo) session after session: a
//! [`NextSession`] is asked for the next game once one is over, and the
//! board then takes its pieces off and sets up the new start position
//! square by square, as players do.

use std::fs;
use std::io;
#[cfg(unix)]
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use boardcast::port::memory;
use boardcast_protocols::dgt::{Command as DgtCommand, CommandDecoder, Message};
use bytes::BytesMut;
#[cfg(unix)]
use tokio::io::unix::AsyncFd;
use tokio::sync::Notify;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::clock::Signal;
use super::dgt::{clock_message, dump_message, reading_message};
use super::{Clean, Sensed, Session, SourceGame};
use boardcast::event::Millis;
use boardcast::family::Family;
use boardcast::track::Cell;

/// Why a simulated board could not be plugged in.
#[derive(Debug, thiserror::Error)]
pub enum PtyError {
    /// The system refused a pseudo-terminal or its settings.
    #[cfg(unix)]
    #[error("pseudo-terminal: {0}")]
    Pty(#[from] nix::Error),
    /// Pseudo-terminals are Unix's: elsewhere a simulated board needs an
    /// in-process folder (`mem:...`).
    #[error("{0}: no pseudo-terminals on this OS; use an in-process folder (mem:...)")]
    NoPty(PathBuf),
    /// The symlink (or the runtime's registration) failed.
    #[error("{path}: {source}")]
    Io {
        /// The path concerned.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
}

/// How simulated time maps to wall time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Pace {
    /// As simulated: thinking takes seconds.
    Real,
    /// Gaps between moves (the simulator's thinking, a second or more)
    /// become `think_ms`; gaps within a move (hand travel) are divided by
    /// `factor`. Pair it with short settle times.
    Compressed {
        /// Wall milliseconds of every gap of a second or more.
        think_ms: u64,
        /// Divisor of shorter gaps.
        factor: u64,
    },
    /// Every gap divided by `divisor` after being capped at `cap_ms` of
    /// simulated time: time simply runs faster, so a daemon whose delays
    /// are divided by the same number sees the same play. The cap shortens
    /// long thinking, which only makes alerts rarer, never adds one.
    Scaled {
        /// How much faster than real time.
        divisor: f64,
        /// Longest simulated gap between two readings.
        cap_ms: Millis,
    },
}

impl Pace {
    /// The compression the integration tests use.
    pub fn fast() -> Pace {
        Pace::Compressed {
            think_ms: 160,
            factor: 10,
        }
    }

    /// Wall milliseconds of a simulated gap between two readings.
    pub fn gap(self, sim_gap: Millis) -> f64 {
        match self {
            Pace::Real => sim_gap as f64,
            Pace::Compressed { think_ms, factor } => {
                if sim_gap >= 1_000 {
                    think_ms as f64
                } else {
                    (sim_gap / factor).max(1) as f64
                }
            }
            Pace::Scaled { divisor, cap_ms } => sim_gap.min(cap_ms) as f64 / divisor,
        }
    }
}

/// Options of a simulated board.
#[derive(Clone, Debug)]
pub struct SimOptions {
    /// The serial number it reports.
    pub serial: String,
    /// How fast it plays.
    pub pace: Pace,
    /// Write a burst of garbage after every this many readings.
    pub garbage_every: Option<usize>,
    /// Wall time from update mode to the first reading.
    pub lead_in: Duration,
    /// Wall time between the end of a game and the set-up of the next one.
    pub between_games: Duration,
    /// The family it speaks: DGT (the default), Millennium, Certabo (an
    /// RFID card on every piece; the session must start from the standard
    /// position standing the normal way round, which calibrates it) or a
    /// chess board on the open protocol. Only DGT boards have a clock.
    pub protocol: Family,
    /// A Certabo board that senses occupancy only (Tabutronic): it sends
    /// occupancy frames, and any session will do (no calibration).
    pub occupancy: bool,
}

impl SimOptions {
    /// The tests' options: [`Pace::fast`], a short lead-in.
    pub fn fast(serial: &str) -> SimOptions {
        SimOptions {
            serial: serial.into(),
            pace: Pace::fast(),
            garbage_every: None,
            lead_in: Duration::from_millis(300),
            between_games: Duration::from_secs(3),
            protocol: Family::Dgt,
            occupancy: false,
        }
    }
}

/// Makes the next game of a board that plays on: given the squares as they
/// stand after the last game, returns the next session (its `initial`
/// squares are what the players set up).
pub type NextSession = Box<dyn FnMut(&[Cell; 64]) -> Session + Send>;

struct Plugged {
    master: Arc<Line>,
    updates: bool,
    symlink: PathBuf,
}

struct Shared {
    cells: [Cell; 64],
    rotated: bool,
    serial: String,
    plugged: Option<Plugged>,
    /// Wall time each reading of the first session was written to the
    /// line (if it was).
    written: Vec<Option<Instant>>,
    /// Wall time each clock signal of the first session was written to
    /// the line (if it was: the once-a-second faces are thinned).
    clock_written: Vec<Option<Instant>>,
    /// Readings of the first session applied so far.
    applied: usize,
    /// Sessions begun (1 while the first plays).
    sessions: usize,
    garbage_every: Option<usize>,
    protocol: Family,
    /// The board's memory (EEPROM move log) since the first session began.
    memory: Vec<boardcast_protocols::dgt::EeRecord>,
    /// A Certabo board's RFID cards (which card stands where).
    cards: Option<super::family::Cards>,
    /// A Certabo board sensing occupancy only (Tabutronic).
    occupancy: bool,
}

impl Shared {
    /// A Certabo board's frame of the board as it stands (`spares`: with
    /// the calibration's spare queens, on an RFID board).
    fn certabo_frame(&self, spares: bool) -> Option<Vec<u8>> {
        if self.occupancy {
            return Some(super::family::occupancy_frame(&self.cells, self.rotated));
        }
        self.cards.as_ref().map(|c| c.frame(self.rotated, spares))
    }
}

/// A simulated board (DGT, Millennium or open protocol) on a pty.
pub struct SimBoard {
    shared: Arc<Mutex<Shared>>,
    folder: PathBuf,
    name: String,
    plugs: usize,
    server: Option<JoinHandle<()>>,
    player: JoinHandle<()>,
    started: Arc<Notify>,
    /// The first (or only) session it plays.
    pub session: Session,
    /// The game of that session.
    pub game: SourceGame,
}

impl std::fmt::Debug for SimBoard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimBoard")
            .field("name", &self.name)
            .field("plugs", &self.plugs)
            .finish_non_exhaustive()
    }
}

fn lock(shared: &Mutex<Shared>) -> MutexGuard<'_, Shared> {
    shared.lock().unwrap_or_else(|e| e.into_inner())
}

impl SimBoard {
    /// A board that will play `game` cleanly (seeded), plugged in at once
    /// as `{folder}/{name}-1`. Play starts when the host first asks for
    /// update mode. Call inside a tokio runtime.
    ///
    /// # Panics
    ///
    /// When no pseudo-terminal can be had (see [`SimBoard::start`]).
    pub fn new(
        folder: &Path,
        name: &str,
        game: SourceGame,
        seed: u64,
        opts: SimOptions,
    ) -> SimBoard {
        let session = super::simulate(&game, &mut Clean, seed, false);
        Self::with_session(folder, name, game, session, opts)
    }

    /// A board that will play `session`.
    ///
    /// # Panics
    ///
    /// When no pseudo-terminal can be had (see [`SimBoard::start`]).
    pub fn with_session(
        folder: &Path,
        name: &str,
        game: SourceGame,
        session: Session,
        opts: SimOptions,
    ) -> SimBoard {
        Self::start(folder, name, game, session, None, opts).expect("a pseudo-terminal")
    }

    /// A board that plays `session`, then asks `next` for another game,
    /// and so on for as long as it lives (when `next` is given).
    pub fn start(
        folder: &Path,
        name: &str,
        game: SourceGame,
        session: Session,
        next: Option<NextSession>,
        opts: SimOptions,
    ) -> Result<SimBoard, PtyError> {
        let shared = Arc::new(Mutex::new(Shared {
            cells: *session.initial,
            rotated: session.rotated,
            serial: opts.serial.clone(),
            plugged: None,
            written: vec![None; session.readings.len()],
            clock_written: vec![None; session.clock.len()],
            applied: 0,
            sessions: 0,
            garbage_every: opts.garbage_every,
            protocol: opts.protocol,
            memory: Vec::new(),
            cards: (opts.protocol == Family::Certabo && !opts.occupancy)
                .then(|| super::family::Cards::new(&session.initial)),
            occupancy: opts.occupancy,
        }));
        let started = Arc::new(Notify::new());
        let player = tokio::spawn(play(
            shared.clone(),
            started.clone(),
            session.clone(),
            next,
            opts,
        ));
        let mut b = SimBoard {
            shared,
            folder: folder.to_owned(),
            name: name.to_string(),
            plugs: 0,
            server: None,
            player,
            started,
            session,
            game,
        };
        b.try_plug()?;
        Ok(b)
    }

    /// The glob pattern that finds this board on any of its plugs.
    pub fn pattern(&self) -> String {
        self.folder
            .join(format!("{}-*", self.name))
            .to_string_lossy()
            .into_owned()
    }

    /// The path of the current plug.
    pub fn path(&self) -> PathBuf {
        self.folder.join(format!("{}-{}", self.name, self.plugs))
    }

    /// Plugs the board in on a new pty (a new path).
    ///
    /// # Panics
    ///
    /// When it is plugged in already or no pty can be had.
    pub fn plug(&mut self) {
        self.try_plug().expect("a pseudo-terminal");
    }

    fn try_plug(&mut self) -> Result<(), PtyError> {
        assert!(self.server.is_none(), "already plugged");
        self.plugs += 1;
        let symlink = self.path();
        let master = open_line(&symlink)?;
        lock(&self.shared).plugged = Some(Plugged {
            master: master.clone(),
            updates: false,
            symlink,
        });
        let protocol = lock(&self.shared).protocol;
        self.server = Some(match protocol {
            Family::Dgt => tokio::spawn(serve(self.shared.clone(), master, self.started.clone())),
            Family::Certabo => tokio::spawn(serve_certabo(
                self.shared.clone(),
                master,
                self.started.clone(),
            )),
            _ => tokio::spawn(serve_family(
                self.shared.clone(),
                master,
                self.started.clone(),
            )),
        });
        Ok(())
    }

    /// Pulls the cable: the pty is closed (the daemon's reads fail) and its
    /// path disappears. Play goes on.
    pub fn unplug(&mut self) {
        if let Some(s) = self.server.take() {
            s.abort();
        }
        let p = lock(&self.shared).plugged.take();
        if let Some(p) = p {
            p.master.close();
            let _ = fs::remove_file(&p.symlink);
        }
    }

    /// Writes raw bytes on the line now.
    pub fn inject(&self, bytes: &[u8]) {
        let s = lock(&self.shared);
        if let Some(p) = &s.plugged {
            write_all(&p.master, bytes);
        }
    }

    /// A hand sets `cell` on `sq` now (`Cell::Empty`: lifts the piece):
    /// the board reports it as it reports its game's readings, and shows
    /// it from now on (a later board dump included).
    pub fn hand(&self, sq: boardcast::games::chess::Square, cell: boardcast::track::Cell) {
        let mut s = lock(&self.shared);
        // Not a reading of the first session: `applied` stays.
        apply_reading(&mut s, 0, &Sensed::Square(sq, cell), 1);
    }

    /// Readings of the first session applied so far.
    pub fn applied(&self) -> usize {
        lock(&self.shared).applied
    }

    /// Whether every reading of the first session has been played.
    pub fn done(&self) -> bool {
        self.applied() == self.session.readings.len()
    }

    /// Sessions begun so far (games played or playing).
    pub fn sessions(&self) -> usize {
        lock(&self.shared).sessions
    }

    /// When each reading of the first session was written to the line.
    pub fn written(&self) -> Vec<Option<Instant>> {
        lock(&self.shared).written.clone()
    }

    /// When each clock signal of the first session (`session.clock`) was
    /// written to the line, if it was.
    pub fn clock_written(&self) -> Vec<Option<Instant>> {
        lock(&self.shared).clock_written.clone()
    }
}

impl Drop for SimBoard {
    fn drop(&mut self) {
        self.unplug();
        self.player.abort();
    }
}

/// The board's end of one simulated line.
pub struct Line {
    inner: Inner,
}

enum Inner {
    /// A pseudo-terminal's master, and a slave descriptor kept open so the
    /// master never sees a hang-up between the daemon's connections.
    #[cfg(unix)]
    Pty {
        master: AsyncFd<OwnedFd>,
        _slave: OwnedFd,
    },
    /// An in-process line.
    Memory(memory::BoardEnd),
}

impl std::fmt::Debug for Line {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self.inner {
            #[cfg(unix)]
            Inner::Pty { .. } => "Line(pty)",
            Inner::Memory(_) => "Line(in-process)",
        })
    }
}

impl Line {
    /// Unplugs an in-process line at once (its name goes, the host's reads
    /// end); a pty closes when its last holder drops it.
    pub fn close(&self) {
        match &self.inner {
            #[cfg(unix)]
            Inner::Pty { .. } => {}
            Inner::Memory(end) => end.close(),
        }
    }
}

/// Plugs in a line at `path`: an in-process line when the path names one
/// (`mem:...`), else (Unix) a pseudo-terminal in raw mode with `path`
/// linked to its slave side.
pub(crate) fn open_line(path: &Path) -> Result<Arc<Line>, PtyError> {
    if memory::is_memory(&path.to_string_lossy()) {
        return Ok(Arc::new(Line {
            inner: Inner::Memory(memory::plug(&path.to_string_lossy())),
        }));
    }
    open_pty(path)
}

#[cfg(not(unix))]
fn open_pty(path: &Path) -> Result<Arc<Line>, PtyError> {
    Err(PtyError::NoPty(path.to_owned()))
}

/// Opens a pseudo-terminal in raw mode and links `symlink` to its slave
/// side; the master is registered with the runtime.
#[cfg(unix)]
fn open_pty(symlink: &Path) -> Result<Arc<Line>, PtyError> {
    let pty = nix::pty::openpty(None, None)?;
    // Not inherited by child processes (a daemon spawned later): a copy
    // of the master there would keep the line up after an unplug.
    for fd in [&pty.master, &pty.slave] {
        nix::fcntl::fcntl(
            fd,
            nix::fcntl::FcntlArg::F_SETFD(nix::fcntl::FdFlag::FD_CLOEXEC),
        )?;
    }
    // Raw line discipline before anyone talks: no echo, no line editing.
    let mut t = nix::sys::termios::tcgetattr(&pty.slave)?;
    nix::sys::termios::cfmakeraw(&mut t);
    nix::sys::termios::tcsetattr(&pty.slave, nix::sys::termios::SetArg::TCSANOW, &t)?;
    let flags = nix::fcntl::fcntl(&pty.master, nix::fcntl::FcntlArg::F_GETFL)?;
    let flags = nix::fcntl::OFlag::from_bits_truncate(flags) | nix::fcntl::OFlag::O_NONBLOCK;
    nix::fcntl::fcntl(&pty.master, nix::fcntl::FcntlArg::F_SETFL(flags))?;
    let tty = nix::unistd::ttyname(&pty.slave)?;
    let _ = fs::remove_file(symlink);
    std::os::unix::fs::symlink(&tty, symlink).map_err(|source| PtyError::Io {
        path: symlink.to_owned(),
        source,
    })?;
    // SAFETY: the OwnedFd is a valid descriptor owned by the AsyncFd,
    // never replaced or closed while registered.
    let master = unsafe { AsyncFd::register(pty.master) }.map_err(|e| PtyError::Io {
        path: tty.clone(),
        source: io::Error::other(e.to_string()),
    })?;
    Ok(Arc::new(Line {
        inner: Inner::Pty {
            master,
            _slave: pty.slave,
        },
    }))
}

/// Writes `bytes` to the host now (a full pty buffer is waited out for a
/// second at most; a line nobody reads drops them).
pub(crate) fn write_all(line: &Line, bytes: &[u8]) {
    match &line.inner {
        #[cfg(unix)]
        Inner::Pty { master, .. } => write_pty(master, bytes),
        Inner::Memory(end) => end.write(bytes),
    }
}

#[cfg(unix)]
fn write_pty(fd: &AsyncFd<OwnedFd>, mut bytes: &[u8]) {
    let mut spins = 0;
    while !bytes.is_empty() {
        match nix::unistd::write(fd.get_ref(), bytes) {
            Ok(n) => bytes = &bytes[n..],
            Err(nix::errno::Errno::EAGAIN) if spins < 2000 => {
                spins += 1;
                std::thread::sleep(Duration::from_micros(500));
            }
            Err(_) => return,
        }
    }
}

/// Reads what the host writes on one plug until it goes away, handing
/// each chunk to `answer`.
pub(crate) async fn read_host(line: &Line, answer: impl FnMut(&[u8])) {
    match &line.inner {
        #[cfg(unix)]
        Inner::Pty { master, .. } => read_pty(master, answer).await,
        Inner::Memory(end) => {
            let mut answer = answer;
            let mut bytes = [0u8; 512];
            loop {
                match end.read(&mut bytes).await {
                    0 => return,
                    n => answer(&bytes[..n]),
                }
            }
        }
    }
}

#[cfg(unix)]
async fn read_pty(master: &AsyncFd<OwnedFd>, mut answer: impl FnMut(&[u8])) {
    let mut bytes = [0u8; 512];
    loop {
        let Ok(mut guard) = master.readable().await else {
            return;
        };
        match guard
            .try_io(|fd| nix::unistd::read(fd.get_ref(), &mut bytes).map_err(io::Error::from))
        {
            Ok(Ok(0)) => return,
            Ok(Ok(n)) => answer(&bytes[..n]),
            Ok(Err(e)) if e.raw_os_error() == Some(nix::libc::EIO) => {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            Ok(Err(_)) => return,
            Err(_would_block) => {}
        }
    }
}

/// Answers the host's commands on one plug.
async fn serve(shared: Arc<Mutex<Shared>>, master: Arc<Line>, started: Arc<Notify>) {
    let mut decoder = CommandDecoder::new();
    let mut buf = BytesMut::new();
    read_host(&master, |chunk| {
        buf.extend_from_slice(chunk);
        loop {
            let cmd = match decoder.decode(&mut buf) {
                Ok(Some(c)) => c,
                Ok(None) => break,
                Err(_) => continue,
            };
            let mut s = lock(&shared);
            let reply = match cmd {
                DgtCommand::SerialNumber => Some(Message::SerialNumber(s.serial.clone())),
                DgtCommand::Version => Some(Message::Version { major: 2, minor: 7 }),
                DgtCommand::SendBoard => Some(dump_message(&s.cells, s.rotated)),
                DgtCommand::EeMoves => {
                    let mut records = s.memory.clone();
                    records.push(boardcast_protocols::dgt::EeRecord::Eof);
                    Some(Message::EeMoves(records))
                }
                DgtCommand::Reset => {
                    if let Some(p) = &mut s.plugged {
                        p.updates = false;
                    }
                    None
                }
                DgtCommand::SendUpdate
                | DgtCommand::SendUpdateNice
                | DgtCommand::SendUpdateBoard => {
                    if let Some(p) = &mut s.plugged {
                        p.updates = true;
                    }
                    started.notify_one();
                    None
                }
                _ => None,
            };
            if let Some(m) = reply {
                write_all(&master, &m.to_bytes());
            }
        }
    })
    .await;
}

/// Answers the host on one plug of a Millennium or open-protocol board:
/// its identity (`V`, `?`) and its whole board (`S`, `board?`). The first
/// request for the board starts play; from then on every change is
/// written as the family writes it.
async fn serve_family(shared: Arc<Mutex<Shared>>, master: Arc<Line>, started: Arc<Notify>) {
    use boardcast_protocols::{millennium, open};
    let protocol = lock(&shared).protocol;
    let mut millennium = millennium::CommandDecoder::new();
    let mut open = open::HostDecoder::new();
    let mut buf = BytesMut::new();
    read_host(&master, |chunk| {
        buf.extend_from_slice(chunk);
        loop {
            // What the host asked: who are you, or the whole board.
            let asked = match protocol {
                Family::Millennium => match millennium.decode(&mut buf) {
                    Ok(Some(millennium::Command::Version)) => Some(false),
                    Ok(Some(millennium::Command::Status)) => Some(true),
                    Ok(Some(_)) | Err(_) => continue,
                    Ok(None) => None,
                },
                _ => match open.decode(&mut buf) {
                    Ok(Some(open::HostLine::Hello)) => Some(false),
                    Ok(Some(open::HostLine::Board)) => Some(true),
                    Err(_) => continue,
                    Ok(None) => None,
                },
            };
            let Some(board) = asked else { break };
            let mut s = lock(&shared);
            let reply = if board {
                if let Some(p) = &mut s.plugged {
                    p.updates = true;
                }
                started.notify_one();
                super::family::board_bytes(protocol, &s.cells, s.rotated)
            } else {
                super::family::identity_bytes(protocol, &s.serial)
            };
            write_all(&master, &reply);
        }
    })
    .await;
}

/// How often a simulated Certabo board sends its frame when nothing
/// changes (the real board streams about once a second).
const CERTABO_FRAME_MS: u64 = 500;

/// One plug of a Certabo board: it asks nothing and answers nothing (the
/// host's 8 LED bytes are read and dropped). The host's first bytes start
/// it: the calibration frame (the start position with the spare queens on
/// d3 and d6), then the frame without them, then play; the current frame
/// goes out every [`CERTABO_FRAME_MS`] and after every change.
async fn serve_certabo(shared: Arc<Mutex<Shared>>, master: Arc<Line>, started: Arc<Notify>) {
    let first = Arc::new(Notify::new());
    let frames = {
        let (shared, master, first) = (shared.clone(), master.clone(), first.clone());
        async move {
            first.notified().await;
            {
                let mut s = lock(&shared);
                if let Some(p) = &mut s.plugged {
                    p.updates = true;
                }
                for spares in [true, false] {
                    if let Some(frame) = s.certabo_frame(spares) {
                        write_all(&master, &frame);
                    }
                }
            }
            started.notify_one();
            loop {
                tokio::time::sleep(Duration::from_millis(CERTABO_FRAME_MS)).await;
                let s = lock(&shared);
                if let Some(frame) = s.certabo_frame(false) {
                    write_all(&master, &frame);
                }
            }
        }
    };
    let host = read_host(&master, |_| first.notify_one());
    tokio::join!(frames, host);
}

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
async fn play(
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
fn apply_reading(s: &mut Shared, i: usize, reading: &Sensed, number: usize) {
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
                &super::family::update_bytes(protocol, *sq, &s.cells, rotated),
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
        field: super::dgt::field_of(sq, rotated),
        piece: super::dgt::code_of(cell),
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
