//! The live daemon (`boardcast run`): every configured board, one MQTT
//! connection, and a planned shutdown.
//!
//! [`run`] starts one [`PortTask`] per line (a board's own, or a DGT bus
//! with its boards) and the MQTT task, then waits
//! for the shutdown future (SIGINT/SIGTERM in `main`). Shutdown goes in
//! order, as in mini-redis: the board tasks are told to stop and each
//! reaches a safe point (pending moves published, capture flushed, PGN
//! written, board published `offline`); only then is the MQTT task told to
//! stop, so it can hand the broker everything they left, publish the bridge
//! `offline` and disconnect cleanly.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinSet;
use tracing::{error, info, warn};

use crate::config::Config;
use crate::control::Router;
use crate::delay::PublicView;
use crate::mqtt::{self, MqttError, Outbox, Topics};
use crate::port::find::Claims;
use crate::port::recorder::{Recorder, latest_capture};
use crate::port::{BoardTask, Clock, PortTask};
use crate::session::{Outputs, Session};
use crate::setup::BoardSetup;
use crate::sink::round::Round;
use crate::tournament::last_good::LastGood;
use crate::wall::session_stamp;

/// Why the daemon could not run.
///
/// Design: each message holds its cause and no variant is a `source`, so
/// the one-line error chain says each cause once.
#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    /// The MQTT settings cannot be used (a TLS file, say).
    #[error("mqtt: {0}")]
    Mqtt(MqttError),
    /// The embedded broker could not be started.
    #[error("{0}")]
    Broker(crate::broker::BrokerError),
    /// The live page's address could not be bound.
    #[error("web: {addr}: {error}")]
    Web {
        /// The address.
        addr: std::net::SocketAddr,
        /// Why.
        error: std::io::Error,
    },
    /// The LiveChess-compatible API could not be started.
    #[error("livechess: {0}")]
    LiveChess(crate::livechess::LiveChessError),
    /// A signal handler could not be installed.
    #[error("signal: {0}")]
    Signal(std::io::Error),
    /// The push to lichess cannot start (its token file, TLS).
    #[error("{0}")]
    Lichess(crate::lichess::LichessError),
    /// The round's report needs the recorder's captures.
    #[error(
        "the configuration names no recorder folder ([recorder] dir): the report is made from its captures"
    )]
    NoRecorder,
}

impl From<MqttError> for DaemonError {
    fn from(e: MqttError) -> Self {
        DaemonError::Mqtt(e)
    }
}

impl From<crate::broker::BrokerError> for DaemonError {
    fn from(e: crate::broker::BrokerError) -> Self {
        DaemonError::Broker(e)
    }
}

impl From<crate::livechess::LiveChessError> for DaemonError {
    fn from(e: crate::livechess::LiveChessError) -> Self {
        DaemonError::LiveChess(e)
    }
}

/// How old (last written) a capture may be for its game to be resumed.
pub const RESUME_WITHIN: std::time::Duration = std::time::Duration::from_secs(12 * 3600);

/// Whether `capture` was written within [`RESUME_WITHIN`].
fn recent(capture: &std::path::Path) -> bool {
    std::fs::metadata(capture)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok())
        .is_none_or(|age| age <= RESUME_WITHIN)
}

fn player(name: Option<&str>) -> crate::tournament::Player {
    crate::tournament::Player {
        name: name.unwrap_or("?").to_string(),
        ..crate::tournament::Player::default()
    }
}

/// The delayed public view of board `id` (`None` without a delay): its
/// waiting events journalled beside the captures, when there is a recorder
/// folder, so that a restart shows nothing early and loses nothing. `now`
/// (its wall-clock epoch is set once the board's clock is known).
fn public_view(config: &Config, id: &str) -> Option<PublicView> {
    let delay = config.broadcast.delay_ms;
    if delay == 0 {
        return None;
    }
    let epoch = crate::wall::unix_ms();
    let Some(dir) = &config.recorder else {
        warn!(board = %id, "no recorder folder: the broadcast delay's waiting events are not journalled and a restart loses them for the public");
        return Some(
            PublicView::new(delay, epoch).with_public_alerts(config.broadcast.public_alerts),
        );
    };
    let path = dir.join(format!("{id}.public.jsonl"));
    match PublicView::with_journal(delay, epoch, &path) {
        Ok(view) => Some(view.with_public_alerts(config.broadcast.public_alerts)),
        Err(e) => {
            warn!(board = %id, error = %e, "the broadcast delay journal cannot be used; the delay goes on without it");
            Some(PublicView::new(delay, epoch).with_public_alerts(config.broadcast.public_alerts))
        }
    }
}

/// Runs the daemon until `shutdown` resolves, then stops gracefully.
pub async fn run(config: Config, shutdown: impl Future<Output = ()>) -> Result<(), DaemonError> {
    let clock = Clock::start();
    let services = Services::start(&config).await?;
    let (round, mut pairings) = round(&config);
    let (stop_writer, writer_stop_rx) = oneshot::channel::<()>();
    let writer = tokio::spawn(Arc::clone(&round).run_writer(async {
        let _ = writer_stop_rx.await;
    }));
    // The desk takes up the round it last started before the boards take
    // up their games.
    // It is served from now on: a page opened while the boards still take
    // up their games finds it (their commands are routed once they run).
    if let Some(web) = &services.web {
        web.set_desk(desk(&config, &round));
        info!(url = %format!("http://{}/desk", web.addr), "the operator's desk");
    }
    let lichess = start_lichess(&config, services.web.as_ref(), &round)?;
    let (stop_boards, stop_rx) = watch::channel(false);
    let session = session_stamp();
    let (mut boards, routes) = start_boards(&config, &services, &round, clock, &session, &stop_rx);
    if let Some(web) = &services.web {
        web.route_commands(routes.clone());
    }
    services.outbox.route_commands(routes);
    // The broker connection starts once every board's command route is
    // known: a command the broker delivers at subscription (a retained
    // one, refused as such) must find its board, not be taken for
    // another bridge's.
    let (stop_mqtt, mqtt_stop_rx) = oneshot::channel::<()>();
    let mut mqtt_task = tokio::spawn(mqtt::run(
        config.mqtt.clone(),
        Arc::clone(&services.outbox),
        async {
            let _ = mqtt_stop_rx.await;
        },
    ));
    info!(
        boards = config.boards.len(),
        bridge = %config.bridge.name,
        session = %session,
        round = round.current(),
        "running"
    );
    let mqtt_done = supervise(
        &mut boards,
        &round,
        pairings.as_mut(),
        &mut mqtt_task,
        shutdown,
    )
    .await?;

    // Shutdown in order: the boards publish their last moves, then the
    // folder is written, then the MQTT task hands the broker what is left.
    let _ = stop_boards.send(true);
    boards.join_all().await;
    let _ = stop_writer.send(());
    if let Err(e) = writer.await {
        error!(error = %e, "the PGN folder writer failed");
    }
    if let Some((stop, task)) = lichess {
        // The push sends what the boards left (its last push is bounded).
        let _ = stop.send(());
        if let Err(e) = task.await {
            error!(error = %e, "the lichess push failed");
        }
    }
    let _ = stop_mqtt.send(());
    let r = match mqtt_done {
        Some(r) => r,
        None => mqtt_task.await,
    };
    match r {
        Ok(r) => r?,
        Err(e) => error!(error = %e, "the MQTT task failed"),
    }
    info!(unacknowledged = services.outbox.unacknowledged(), "stopped");
    Ok(())
}

/// The lichess push's stop sender and task.
type LichessTask = (oneshot::Sender<()>, tokio::task::JoinHandle<()>);

/// The push to lichess, when `[lichess] round` is set: its status on the
/// desk, its task, and the sender that stops it.
fn start_lichess(
    config: &Config,
    web: Option<&crate::web::WebServer>,
    round: &Arc<Round>,
) -> Result<Option<LichessTask>, DaemonError> {
    let Some(lichess) = &config.lichess else {
        return Ok(None);
    };
    let pusher =
        crate::lichess::Pusher::new(lichess, Arc::clone(round)).map_err(DaemonError::Lichess)?;
    if let Some(web) = web {
        web.set_lichess(pusher.status());
    }
    let (stop, stop_rx) = oneshot::channel::<()>();
    let task = tokio::spawn(pusher.run(async {
        let _ = stop_rx.await;
    }));
    Ok(Some((stop, task)))
}

/// What the boards publish to, started before them: the MQTT outbox (its
/// settings checked, the embedded broker started when allowed and
/// needed), the live page and the LiveChess-compatible API when
/// configured (both stop when dropped, at the end).
struct Services {
    outbox: Arc<Outbox>,
    web: Option<crate::web::WebServer>,
    _livechess: Option<crate::livechess::LiveChessServer>,
}

impl Services {
    async fn start(config: &Config) -> Result<Services, DaemonError> {
        let topics = Topics::new(&config.mqtt.prefix, &config.bridge.name);
        // Check the MQTT settings before anything starts.
        mqtt::options(&config.mqtt, &topics)?;
        let ids: Vec<String> = config.boards.iter().map(|b| b.id.clone()).collect();
        let outbox = Outbox::new(topics, &ids, config.mqtt.queue);
        outbox.set_control(&config.control);
        let mqtt_config = config.mqtt.clone();
        tokio::task::spawn_blocking(move || crate::broker::ensure(&mqtt_config))
            .await
            .expect("the broker check does not panic")?;
        let web = match config.web {
            Some(addr) => Some(
                crate::web::WebServer::start_for(
                    addr,
                    &ids,
                    crate::web::Audience::new(
                        config.broadcast.delay_ms,
                        config.web_login.password.as_deref(),
                        config.control.secret.as_ref().map(|s| s.as_str()),
                        config.web_login.session,
                    )
                    .with_public_alerts(config.broadcast.public_alerts),
                    config.web_limits,
                )
                .await
                .map_err(|error| DaemonError::Web { addr, error })?,
            ),
            None => None,
        };
        let livechess = match config.livechess {
            Some(addr) => {
                let served = crate::livechess::Served {
                    bridge: &config.bridge,
                    mqtt: &config.mqtt,
                    event: &config.event.info,
                    boards: &config.boards,
                    limits: &config.livechess_limits,
                };
                Some(crate::livechess::LiveChessServer::start(addr, served).await?)
            }
            None => None,
        };
        Ok(Services {
            outbox,
            web,
            _livechess: livechess,
        })
    }

    /// The sinks of board `i`: its public and arbiters' topics, and the
    /// page's two views when the page is on (first, as always served).
    fn outputs(&self, i: usize) -> Outputs {
        let mut outputs = Outputs::none();
        if let Some(w) = &self.web {
            outputs = outputs
                .with_public(w.feed(i))
                .with_arbiter(w.arbiter_feed(i));
        }
        outputs
            .with_public(self.outbox.board(i))
            .with_arbiter(self.outbox.arbiter(i))
    }
}

/// The round's report (`boardcast report`), made as `run` would take the
/// boards up: each board's latest capture chain in the recorder folder is
/// replayed, with the arbiter's decisions from its journal. `round`: the
/// round to report (default: the latest any board played).
pub fn round_report(
    config: &Config,
    round: Option<u32>,
) -> Result<crate::report::RoundReport, DaemonError> {
    let dir = config.recorder.as_ref().ok_or(DaemonError::NoRecorder)?;
    let mut offline = config.clone();
    // Nothing is written: no PGN folder, no last good copy of the pairings.
    offline.event.pgn_dir = None;
    offline.recorder = None;
    let (the_round, _) = self::round(&offline);
    let mut parts = Vec::new();
    for b in &config.boards {
        let setup = BoardSetup::of_config(b);
        let mut s = Session::new(
            &setup,
            config.reconstructor,
            crate::session::Outputs::none(),
            Arc::clone(&the_round),
            b.number,
        );
        if let Some(capture) = crate::port::recorder::latest_capture(dir, &b.id) {
            match s.resume(&capture) {
                Ok(chain) => {
                    if let Some(first) = chain.first() {
                        s.set_decisions(crate::session::Journal::of_chain(first));
                    }
                }
                Err(e) => {
                    warn!(board = %b.id, error = %e, "the board's capture cannot be replayed: left out of the report")
                }
            }
        }
        parts.push(s.report());
    }
    let latest = parts
        .iter()
        .flat_map(|p| p.games.iter().map(|g| g.round))
        .max()
        .unwrap_or(the_round.current());
    let event = parts
        .iter()
        .find_map(|p| p.event.clone())
        .unwrap_or_else(|| "?".into());
    Ok(crate::report::RoundReport::of_round(
        &event,
        round.unwrap_or(latest),
        parts,
    ))
}

/// The operator's desk over `round`, with what it kept in the recorder
/// folder.
fn desk(config: &Config, round: &Arc<Round>) -> Arc<crate::desk::live::Desk> {
    if config.recorder.is_none() {
        warn!(
            "no recorder folder: what is set up on the operator's desk is forgotten at a restart"
        );
    }
    Arc::new(crate::desk::live::Desk::new(
        crate::desk::store::Store::new(config.recorder.as_deref()),
        Arc::clone(round),
        config.event.pairings.clone(),
        config.web_login.desk_password.clone(),
    ))
}

/// The round: event metadata, pairings (the file, else the boards'
/// `white`/`black` keys), the PGN folder writer.
fn round(config: &Config) -> (Arc<Round>, Option<LastGood>) {
    // Design: an unset date is left unknown here; each game's PGN then
    // carries the day it started (a daemon runs for days at an event).
    let fallback = crate::tournament::Pairings {
        round: None,
        pairings: config
            .boards
            .iter()
            .filter(|b| b.white.is_some() || b.black.is_some())
            .map(|b| crate::tournament::Pairing {
                board: b.number,
                white: player(b.white.as_deref()),
                black: player(b.black.as_deref()),
            })
            .collect(),
    };
    let round = Round::starting(
        config.event.info.clone(),
        fallback,
        config.event.pairings.clone(),
        config.event.asked_round,
        config.event.pgn_dir.clone(),
    );
    // Results kept beside the captures: a restart finds every game that
    // ended, whatever the board has played since.
    if let Some(dir) = &config.recorder {
        round.keep_ledger_in(dir);
    }
    let mut keeper = config
        .event
        .pairings
        .as_deref()
        .map(|p| LastGood::new(p, config.recorder.as_deref()));
    if let Some(keeper) = &mut keeper {
        load_pairings(&round, keeper, true);
    }
    (round, keeper)
}

/// Reads the pairings file into `round`, keeping its last good copy when it
/// reads, and warning (at most once a minute) when it does not: at
/// `start`, the last good copy is read instead, else the round starts
/// without pairings (see [`crate::tournament::last_good`]).
fn load_pairings(round: &Round, keeper: &mut LastGood, start: bool) {
    let Some(path) = round.pairings_path() else {
        return;
    };
    match round.reload_from(path) {
        Ok(bytes) => {
            if !start {
                info!(round = round.current(), "pairings reloaded");
            }
            match keeper.read_well(&bytes) {
                Ok(true) => info!(path = %path.display(), "the pairings file reads again"),
                Ok(false) => {}
                Err(e) => {
                    warn!(copy = ?keeper.copy_path(), error = %e, "cannot keep the last good copy of the pairings")
                }
            }
        }
        Err(e) => {
            let warn_now = keeper.read_badly(e.to_string(), std::time::Instant::now());
            let fallback = match (start, keeper.copy()) {
                (true, Some(copy)) => match round.reload_from(copy) {
                    Ok(_) => format!("broadcasting with its last good copy, {}", copy.display()),
                    Err(c) => format!(
                        "its last good copy does not read either ({c}); starting without pairings"
                    ),
                },
                (true, None) => "no last good copy: starting without pairings".to_string(),
                (false, _) => "keeping the pairings in force".to_string(),
            };
            if warn_now {
                warn!("pairings: {e}; {fallback}");
            }
        }
    }
}

/// The running board tasks (one per board, one per DGT bus line), by the
/// boards they read.
struct Boards {
    tasks: JoinSet<()>,
    names: HashMap<tokio::task::Id, String>,
}

impl Boards {
    /// Design: a board task that panics (a bug) takes only its own board
    /// down; it is reported, and the other boards never notice.
    fn report(&self, r: Result<(), tokio::task::JoinError>) {
        if let Err(e) = r {
            let board = self.names.get(&e.id()).map_or("?", String::as_str);
            error!(%board, error = %e, "a board task failed");
        }
    }

    /// Waits for every task to end (after the stop signal).
    async fn join_all(&mut self) {
        while let Some(r) = self.tasks.join_next().await {
            self.report(r);
        }
    }
}

/// Starts every configured board: its session (a game resumed from the
/// recorder when there is one), capture, and task; the boards of a DGT bus
/// line share one task. Returns the tasks and where each board's operator
/// commands go.
fn start_boards(
    config: &Config,
    services: &Services,
    round: &Arc<Round>,
    clock: Clock,
    session: &str,
    stop: &watch::Receiver<bool>,
) -> (Boards, Router) {
    let claims = Claims::new();
    let routes = Router::new();
    let mut boards = Boards {
        tasks: JoinSet::new(),
        names: HashMap::new(),
    };
    // The boards of each DGT bus line, in file order.
    let mut buses: Vec<(Vec<String>, Vec<BoardTask>)> = Vec::new();
    for (i, b) in config.boards.iter().enumerate() {
        let (command_tx, commands) = mpsc::channel(16);
        routes.add(&b.id, command_tx);
        let (mut live, board_clock, resumed_from, first) =
            board_session(config, services, round, i, clock);
        let recorder = recorder(config, b, session, resumed_from.as_deref());
        // The arbiter's decisions are kept beside the first capture of the
        // chain whose alerts they name, and so is the record of what was
        // published (for the next resume).
        if let Some(first) =
            first.or_else(|| recorder.as_ref().map(|r| r.capture_path().to_owned()))
        {
            live.set_decisions(crate::session::Journal::of_chain(&first));
            live.keep_published_in(&first);
        }
        let task = BoardTask::new(
            b.clone(),
            config.serial,
            board_clock,
            Arc::clone(&claims),
            live,
            recorder,
            commands,
        );
        if b.bus_address.is_some() {
            // One task per bus line: gathered below.
            match buses
                .iter_mut()
                .find(|(port, _)| *port == b.port.candidates)
            {
                Some((_, tasks)) => tasks.push(task),
                None => buses.push((b.port.candidates.clone(), vec![task])),
            }
            continue;
        }
        let handle = boards.tasks.spawn(PortTask::single(task).run(stop.clone()));
        boards.names.insert(handle.id(), b.id.clone());
    }
    for (_, tasks) in buses {
        let ids = tasks
            .iter()
            .map(|t| t.board.id.as_str())
            .collect::<Vec<_>>()
            .join(",");
        match PortTask::bus(tasks) {
            Ok(bus) => {
                let handle = boards.tasks.spawn(bus.run(stop.clone()));
                boards.names.insert(handle.id(), ids);
            }
            Err(e) => error!(boards = %ids, error = %e, "a bus line cannot be read"),
        }
    }
    (boards, routes)
}

/// The session of board `i`, announced: its arbiters' topics and its
/// public view (delayed, with the waiting events of an earlier session
/// taken up from the journal) are in place before a resume replays the
/// game of an earlier session from its captures. Returns it with the
/// board's clock (going on from the resumed game's time) and the capture
/// it resumed.
fn board_session(
    config: &Config,
    services: &Services,
    round: &Arc<Round>,
    i: usize,
    clock: Clock,
) -> (Session, Clock, Option<String>, Option<std::path::PathBuf>) {
    let b = &config.boards[i];
    let setup = BoardSetup::of_config(b);
    let fresh = || {
        Session::new(
            &setup,
            config.reconstructor,
            services
                .outputs(i)
                .with_public_alerts(config.broadcast.public_alerts),
            Arc::clone(round),
            b.number,
        )
        .with_delay(public_view(config, &b.id))
    };
    let mut live = fresh();
    let mut board_clock = clock;
    let mut resumed_from = None;
    let mut first_capture = None;
    if let Some(dir) = &config.recorder
        && let Some(prev) = latest_capture(dir, &b.id).filter(|p| recent(p))
    {
        match live.resume(&prev) {
            Ok(chain) if live.has_game() => {
                board_clock = clock.offset_by(live.now() + 1);
                first_capture = chain.first().cloned();
                resumed_from = prev.file_name().map(|n| n.to_string_lossy().into_owned());
                info!(
                    board = %b.id,
                    capture = %prev.display(),
                    captures = chain.len(),
                    in_progress = live.game_in_progress(),
                    "game resumed from the recorder"
                );
            }
            Ok(_) => {
                live = fresh();
            }
            Err(e) => {
                warn!(board = %b.id, error = %e, "the earlier capture cannot be replayed; starting afresh");
                live = fresh();
            }
        }
    }
    live.set_wall_epoch(crate::wall::unix_ms().saturating_sub(board_clock.now_ms()));
    live.announce(board_clock.now_ms());
    (live, board_clock, resumed_from, first_capture)
}

/// The recorder of board `b` in daemon session `session`, naming the
/// capture it resumed; `None` without a recorder folder, or when the
/// capture cannot be created (the boards matter more than their
/// captures).
fn recorder(
    config: &Config,
    b: &crate::config::Board,
    session: &str,
    resumed_from: Option<&str>,
) -> Option<Recorder> {
    let dir = config.recorder.as_ref()?;
    // A board on a DGT bus records the whole line; `unit=` names its
    // address for replay.
    let extra = BoardSetup::of_config(b).header_words();
    match Recorder::create_with(dir, &b.id, session, resumed_from, b.protocol, &extra) {
        Ok(r) => {
            if let Some(prev) = resumed_from {
                info!(board = %b.id, capture = %r.capture_path().display(), resumed_from = %prev, "recording");
            }
            Some(r)
        }
        Err(e) => {
            // Design: the boards matter more than their captures.
            warn!(board = %b.id, dir = %dir.display(), error = %e, "cannot record this board; running without its capture");
            None
        }
    }
}

/// Runs until `shutdown` resolves or the MQTT task ends (returned then);
/// reloads the pairings when their file changes (and on SIGHUP, on Unix),
/// and reports a board task that ends early (a bug in that board's task).
async fn supervise(
    boards: &mut Boards,
    round: &Round,
    mut pairings: Option<&mut LastGood>,
    mqtt_task: &mut tokio::task::JoinHandle<Result<(), MqttError>>,
    shutdown: impl Future<Output = ()>,
) -> Result<Option<MqttOutcome>, DaemonError> {
    let mut hangup = Hangup::new()?;
    // Design: the file is polled (its length and modification time) rather
    // than watched through an OS notification API: it works the same on
    // every OS and on network shares, and a round changes a few times a day.
    let mut watched = PairingsWatch::new(round.pairings_path());
    let mut poll = tokio::time::interval(PAIRINGS_POLL);
    poll.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tokio::pin!(shutdown);
    loop {
        let reload = tokio::select! {
            _ = hangup.recv() => true,
            _ = poll.tick() => {
                if let Some(k) = pairings.as_deref_mut()
                    && k.due(std::time::Instant::now())
                {
                    warn!("pairings: {}; the file still does not read", k.failing().unwrap_or_default());
                }
                watched.changed()
            }
            _ = &mut shutdown => {
                info!("shutting down");
                return Ok(None);
            }
            r = &mut *mqtt_task => return Ok(Some(r)),
            // Board tasks end only when told to: anything earlier is a
            // bug in that board's task, reported at once.
            Some(r) = boards.tasks.join_next(), if !boards.tasks.is_empty() => {
                boards.report(r);
                false
            }
        };
        if reload && let Some(k) = pairings.as_deref_mut() {
            load_pairings(round, k, false);
        }
    }
}

/// How often the pairings file is looked at.
const PAIRINGS_POLL: std::time::Duration = std::time::Duration::from_secs(2);

/// The pairings file as last seen: a save changes its length or its
/// modification time.
#[derive(Debug)]
struct PairingsWatch {
    path: Option<std::path::PathBuf>,
    seen: Option<(u64, std::time::SystemTime)>,
}

impl PairingsWatch {
    fn new(path: Option<&std::path::Path>) -> PairingsWatch {
        let mut w = PairingsWatch {
            path: path.map(ToOwned::to_owned),
            seen: None,
        };
        w.seen = w.stamp();
        w
    }

    fn stamp(&self) -> Option<(u64, std::time::SystemTime)> {
        let m = std::fs::metadata(self.path.as_ref()?).ok()?;
        Some((m.len(), m.modified().ok()?))
    }

    /// Whether the file changed since last asked (a file that went away
    /// is no change: the pairings in force stay).
    fn changed(&mut self) -> bool {
        match self.stamp() {
            Some(now) if Some(now) != self.seen => {
                self.seen = Some(now);
                true
            }
            _ => false,
        }
    }
}

/// SIGHUP, which reloads the pairings on Unix.
#[cfg(unix)]
struct Hangup(tokio::signal::unix::Signal);

#[cfg(unix)]
impl Hangup {
    fn new() -> Result<Hangup, DaemonError> {
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup())
            .map(Hangup)
            .map_err(DaemonError::Signal)
    }

    async fn recv(&mut self) -> Option<()> {
        self.0.recv().await
    }
}

/// No SIGHUP off Unix: the file is watched.
#[cfg(not(unix))]
struct Hangup;

#[cfg(not(unix))]
impl Hangup {
    fn new() -> Result<Hangup, DaemonError> {
        Ok(Hangup)
    }

    async fn recv(&mut self) -> Option<()> {
        std::future::pending().await
    }
}

/// How the MQTT task ended.
type MqttOutcome = Result<Result<(), MqttError>, tokio::task::JoinError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saved_pairings_file_is_a_change_and_a_missing_one_is_none() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pairings.csv");
        std::fs::write(&path, "board,white,black\n").unwrap();
        let mut w = PairingsWatch::new(Some(&path));
        assert!(!w.changed(), "nothing changed yet");
        std::fs::write(&path, "board,white,black\n1,\"A, B\",\"C, D\"\n").unwrap();
        assert!(w.changed());
        assert!(!w.changed(), "one change is one reload");
        std::fs::remove_file(&path).unwrap();
        assert!(!w.changed());
        assert!(!PairingsWatch::new(None).changed());
    }
}
