//! `boardcast check --config FILE [--wait SECS]`: the board check before
//! the round, from the command line. Every configured board is opened and
//! read for a few seconds, then one line per board says whether it is
//! ready or what is wrong (see `boardcast::readiness`).
//!
//! Design: the boards are read exactly as `boardcast run` reads them: one
//! `PortTask` per line (a DGT bus line with its boards) driving one
//! `Session` per board, with no MQTT, no live page, no recorder and no
//! PGN folder. Each session's only output is a sink that keeps its last
//! retained state, whose `readiness` is the check; so the command and the
//! daemon's `/check` page judge with the same code, over the same drivers,
//! handshakes and reconnections. A line another `boardcast` holds open (a
//! running daemon) is refused before anything is opened (Linux, from
//! `/proc`): two readers of one serial line would each lose the other's
//! bytes, and as root the line's exclusive lock does not keep a second
//! reader out. Elsewhere such a line does not answer, and its board is
//! reported not connected, with that hint.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use boardcast::config::Config;
use boardcast::port::find::Claims;
use boardcast::port::{BoardTask, Clock, PortTask};
use boardcast::readiness::{Readiness, Status};
use boardcast::session::{BoardSink, Outputs, Session};
use boardcast::setup::BoardSetup;
use boardcast::sink::round::Round;
use boardcast::tournament::{Pairings, PairingsError};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinSet;

/// How often the boards' states are looked at while waiting.
const LOOK_EVERY: Duration = Duration::from_millis(200);
/// How long the board tasks have to let go of their lines at the end.
const STOP_WITHIN: Duration = Duration::from_secs(5);

/// What the check found on one board.
#[derive(Clone, Debug)]
pub(crate) struct BoardCheck {
    /// The board id.
    pub(crate) id: String,
    /// Its configured port (a path, a pattern or a list).
    pub(crate) port: String,
    /// Its readiness, as its last state had it (`None`: a game is under
    /// way, or no state came).
    pub(crate) readiness: Option<Readiness>,
    /// Plies played, when a game is under way.
    pub(crate) ply: u64,
}

impl BoardCheck {
    /// Whether the board is ready.
    pub(crate) fn ready(&self) -> bool {
        self.readiness.as_ref().is_some_and(|r| r.ready)
    }

    /// One line for the arbiter: the verdict, then what fails, then what
    /// warns.
    pub(crate) fn line(&self, wait: Duration) -> String {
        let head = format!("board {}", self.id);
        let Some(r) = &self.readiness else {
            return format!(
                "{head}: NOT READY: a game is under way ({} plies): boards are checked before the first move",
                self.ply
            );
        };
        if r.connected.status == Status::Fail {
            return format!(
                "{head}: NOT READY: not connected: no board answered on {} within {} s (is it plugged in and switched on? if `boardcast run` is reading it, see the daemon's /check page instead)",
                self.port,
                wait.as_secs_f64()
            );
        }
        let mut text = if r.ready {
            format!("{head}: ready: {}", r.identity.message)
        } else {
            format!("{head}: NOT READY")
        };
        for status in [Status::Fail, Status::Warn] {
            for (name, item) in r.items() {
                if item.status == status {
                    text.push_str(&format!(" -- {name} ({}): {}", status.name(), item.message));
                }
            }
        }
        text
    }
}

/// A session's only sink: its last retained state.
#[derive(Clone, Debug, Default)]
struct LastState(Arc<Mutex<Option<String>>>);

impl LastState {
    fn get(&self) -> Option<String> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl BoardSink for LastState {
    fn event(&self, _event: &boardcast::event::Event) -> bool {
        true
    }

    fn state(&self, state: &str, _record: &str, _redraw: bool) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(state.to_owned());
    }
}

/// The check of one board from its last state.
fn judged(id: &str, port: String, state: Option<String>) -> BoardCheck {
    let state: serde_json::Value = state
        .and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or_default();
    BoardCheck {
        id: id.to_owned(),
        port,
        readiness: serde_json::from_value(state["readiness"].clone()).ok(),
        ply: state["ply"].as_u64().unwrap_or(0),
    }
}

/// Why the check could not be made.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CheckError {
    /// The event's round could not be set up.
    #[error(transparent)]
    Round(#[from] PairingsError),
    /// Another `boardcast` (a running daemon) reads a board's line.
    #[error(
        "board {board}: {} is busy: boardcast (process {pid}) is reading it; stop that daemon first, or open /check on its live page",
        device.display()
    )]
    Busy {
        /// The board.
        board: String,
        /// Its line.
        device: std::path::PathBuf,
        /// The process holding it.
        pid: u32,
    },
}

/// Refuses the lines another `boardcast` holds open.
fn refuse_busy(config: &Config) -> Result<(), CheckError> {
    for b in &config.boards {
        for path in boardcast::port::find::candidates(&b.port) {
            let device = boardcast::port::find::device_of(&path);
            if let Some(pid) = held_by_boardcast(&device) {
                return Err(CheckError::Busy {
                    board: b.id.clone(),
                    device,
                    pid,
                });
            }
        }
    }
    Ok(())
}

/// Another `boardcast` process holding `device` open, if any.
#[cfg(target_os = "linux")]
fn held_by_boardcast(device: &std::path::Path) -> Option<u32> {
    let me = std::process::id();
    let procs = std::fs::read_dir("/proc").ok()?;
    for entry in procs.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let comm = std::fs::read_to_string(entry.path().join("comm")).unwrap_or_default();
        if pid == me || comm.trim_end() != "boardcast" {
            continue;
        }
        let Ok(fds) = std::fs::read_dir(entry.path().join("fd")) else {
            continue;
        };
        if fds
            .flatten()
            .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|l| l == device))
        {
            return Some(pid);
        }
    }
    None
}

/// Elsewhere a held line simply does not answer.
#[cfg(not(target_os = "linux"))]
fn held_by_boardcast(_device: &std::path::Path) -> Option<u32> {
    None
}

/// Reads every board of `config` for up to `wait` (less when every board
/// is found with nothing to say) and returns what the check found on
/// each, in configuration order.
pub(crate) async fn check(config: &Config, wait: Duration) -> Result<Vec<BoardCheck>, CheckError> {
    refuse_busy(config)?;
    // No pairings file and no PGN folder: the check writes nothing.
    let round = Round::new(config.event.info.clone(), Pairings::default(), None, None)?;
    let clock = Clock::start();
    let claims = Claims::new();
    let (stop, stop_rx) = watch::channel(false);
    let mut tasks = JoinSet::new();
    let mut states = Vec::new();
    // The command channels stay open while the boards are read.
    let mut commands = Vec::new();
    let mut buses: Vec<(String, Vec<BoardTask>)> = Vec::new();
    for b in &config.boards {
        let sink = LastState::default();
        let mut session = Session::new(
            &BoardSetup::of_config(b),
            config.reconstructor,
            Outputs::none().with_arbiter(sink.clone()),
            Arc::clone(&round),
            b.number,
        );
        session.announce(clock.now_ms());
        states.push(sink);
        let (tx, rx) = mpsc::channel(1);
        commands.push(tx);
        let task = BoardTask::new(
            b.clone(),
            config.serial,
            clock,
            Arc::clone(&claims),
            session,
            None,
            rx,
        );
        if b.bus_address.is_none() {
            tasks.spawn(PortTask::single(task).run(stop_rx.clone()));
            continue;
        }
        // The boards of one DGT bus line share its task, as in the daemon.
        let line = b.port.to_string();
        match buses.iter_mut().find(|(port, _)| *port == line) {
            Some((_, on)) => on.push(task),
            None => buses.push((line, vec![task])),
        }
    }
    for (line, on) in buses {
        match PortTask::bus(on) {
            Ok(bus) => {
                tasks.spawn(bus.run(stop_rx.clone()));
            }
            Err(e) => tracing::error!(%line, error = %e, "a bus line cannot be read"),
        }
    }
    let found = look_until_quiet(config, &states, wait).await;
    // Taken before the stop: stopping publishes every board offline.
    let _ = stop.send(true);
    let _ = tokio::time::timeout(STOP_WITHIN, async {
        while tasks.join_next().await.is_some() {}
    })
    .await;
    drop(commands);
    Ok(found)
}

/// The boards' states as judged now, every `LOOK_EVERY`, until every board
/// is found with nothing to say or `wait` has passed.
async fn look_until_quiet(
    config: &Config,
    states: &[LastState],
    wait: Duration,
) -> Vec<BoardCheck> {
    let deadline = tokio::time::Instant::now() + wait;
    let look = |states: &[LastState]| -> Vec<BoardCheck> {
        config
            .boards
            .iter()
            .zip(states)
            .map(|(b, s)| judged(&b.id, b.port.to_string(), s.get()))
            .collect()
    };
    let mut found = look(states);
    while tokio::time::Instant::now() < deadline {
        let quiet = found.iter().all(|c| {
            c.readiness
                .as_ref()
                .is_some_and(|r| r.worst() == Status::Ok)
        });
        if quiet {
            break;
        }
        tokio::time::sleep(LOOK_EVERY).await;
        found = look(states);
    }
    found
}

/// `--wait`'s seconds as a duration, when sensible.
pub(crate) fn wait_of(seconds: f64) -> Option<Duration> {
    (seconds > 0.0 && seconds <= 600.0).then(|| Duration::from_secs_f64(seconds))
}

/// `boardcast check`: one line per board, an error when any is not ready.
pub(crate) fn check_boards(path: &Path, wait: f64) -> Result<()> {
    let config = Config::load(path)?;
    let Some(wait) = wait_of(wait) else {
        bail!("--wait must be between 0 and 600 seconds");
    };
    if config.boards.is_empty() {
        bail!("{}: no boards to check", path.display());
    }
    // Quiet unless asked: the lines below are the report.
    if std::env::var_os("RUST_LOG").is_some() {
        crate::serve::init_logging(&config.log)?;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let found = runtime.block_on(check(&config, wait))?;
    for board in &found {
        println!("{}", board.line(wait));
    }
    let not = found.iter().filter(|b| !b.ready()).count();
    if not > 0 {
        bail!("{not} of {} boards not ready", found.len());
    }
    println!("all {} boards ready", found.len());
    Ok(())
}
