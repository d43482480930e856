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

mod line;
mod play;
mod serve;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::{Clean, Sensed, Session, SourceGame};
use boardcast::event::Millis;
use boardcast::family::Family;
use boardcast::track::Cell;

pub use line::Line;
pub(crate) use line::{open_line, read_host, write_all};
pub(crate) use play::initial_memory;
use play::{apply_reading, play};
use serve::{serve, serve_certabo, serve_family};

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

/// The board's line while it is plugged in.
pub(super) struct Plugged {
    pub(super) master: Arc<Line>,
    pub(super) updates: bool,
    pub(super) symlink: PathBuf,
}

/// What the board's tasks share: the squares, the line, the records.
pub(super) struct Shared {
    pub(super) cells: [Cell; 64],
    pub(super) rotated: bool,
    pub(super) serial: String,
    pub(super) plugged: Option<Plugged>,
    /// Wall time each reading of the first session was written to the
    /// line (if it was).
    pub(super) written: Vec<Option<Instant>>,
    /// Wall time each clock signal of the first session was written to
    /// the line (if it was: the once-a-second faces are thinned).
    pub(super) clock_written: Vec<Option<Instant>>,
    /// Readings of the first session applied so far.
    pub(super) applied: usize,
    /// Sessions begun (1 while the first plays).
    pub(super) sessions: usize,
    pub(super) garbage_every: Option<usize>,
    pub(super) protocol: Family,
    /// The board's memory (EEPROM move log) since the first session began.
    pub(super) memory: Vec<boardcast_protocols::dgt::EeRecord>,
    /// A Certabo board's RFID cards (which card stands where).
    pub(super) cards: Option<crate::family::Cards>,
    /// A Certabo board sensing occupancy only (Tabutronic).
    pub(super) occupancy: bool,
}

impl Shared {
    /// A Certabo board's frame of the board as it stands (`spares`: with
    /// the calibration's spare queens, on an RFID board).
    pub(super) fn certabo_frame(&self, spares: bool) -> Option<Vec<u8>> {
        if self.occupancy {
            return Some(crate::family::occupancy_frame(&self.cells, self.rotated));
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

/// The shared state, even after a task panicked holding it.
pub(super) fn lock(shared: &Mutex<Shared>) -> MutexGuard<'_, Shared> {
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
        let session = crate::simulate(&game, &mut Clean, seed, false);
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
                .then(|| crate::family::Cards::new(&session.initial)),
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
