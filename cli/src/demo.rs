//! `boardcast demo`: the whole product on one machine, with no boards and
//! no broker at hand.
//!
//! [`run`] plugs in N simulated DGT boards ([`boardcast_sim::pty`]), each on
//! a line of its own (an in-process line, [`boardcast::port::memory`], on
//! every OS; or a pseudo-terminal with `--pty` on Unix), and runs the real
//! daemon ([`daemon::run`]) on them, which opens each line with the same
//! port task and driver as a USB board: the same serial handshake, reconstruction, arbiter checks, MQTT
//! publication and live page as `boardcast run`. The boards play real games
//! ([`GAMES`], built into the binary) with the human profile and a DGT
//! clock, one game after another; every other game or so carries a fault
//! for the arbiter (an illegal move taken back, displaced pieces, a wrong
//! set-up) and a finished game is reported by putting both kings in the
//! centre, as players do.
//!
//! Time runs `speed` times faster than real play (long thinks are cut
//! short too), and the daemon's settle times and alert delays are divided
//! by the same factor, so the reconstructor sees the same play it would
//! see at real speed.

use std::future::Future;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tracing::{info, warn};

use boardcast::clock::TimeControl;
use boardcast::config::{Config, ConfigError};
use boardcast::daemon::{self, DaemonError};
use boardcast::event::{GameId, Side};
use boardcast::family::Family;
use boardcast_sim::clock::{ClockSetup, add_clock};
use boardcast_sim::faults::{self, FaultKind};
use boardcast_sim::open::{OtherGame, OtherGameProfile};
use boardcast_sim::open_line::OtherGameBoard;
use boardcast_sim::pty::{NextSession, Pace, PtyError, SimBoard, SimOptions};
use boardcast_sim::{self as sim, Human, Session, SourceGame, Truth};

/// The demo's games (public-domain master games), built into the binary.
pub const GAMES: &str = include_str!("../../assets/demo-games.pgn");

/// Why the demo could not run.
#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    /// The built-in games or the options made a bad configuration.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The built-in games could not be read (a bug).
    #[error("demo games: {0}")]
    Games(String),
    /// A simulated board could not be plugged in.
    #[error("simulated board: {0}")]
    Pty(PtyError),
    /// The folder of the boards' device links could not be made.
    #[error("{path}: {error}")]
    Folder {
        /// The folder.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// The daemon failed.
    #[error(transparent)]
    Daemon(#[from] DaemonError),
}

impl From<PtyError> for DemoError {
    fn from(e: PtyError) -> Self {
        DemoError::Pty(e)
    }
}

/// What the demo runs.
#[derive(Clone, Debug, PartialEq)]
pub struct DemoOptions {
    /// Simulated boards.
    pub boards: usize,
    /// How many times faster than real play.
    pub speed: f64,
    /// Where the live page is served.
    pub web: SocketAddr,
    /// The broker (an embedded one is started there if none listens).
    pub broker: SocketAddr,
    /// Where the LiveChess-compatible API is served (left out, with a
    /// warning, when that port is taken).
    pub livechess: Option<SocketAddr>,
    /// Seed of the players' habits, the games' order and the faults.
    pub seed: u64,
    /// Folder for the boards' device links (a fresh one under the system's
    /// temporary folder when `None`).
    pub folder: Option<PathBuf>,
    /// The board families, given to the boards in turn (DGT,
    /// Millennium, chess boards on the open protocol).
    pub families: Vec<Family>,
    /// The games, given to the boards in turn: chess boards take the
    /// families above; draughts and xiangqi boards speak the open protocol
    /// and play one game of the bundled corpora each.
    pub games: Vec<GameId>,
}

impl DemoOptions {
    /// The family of board `i` (from 0).
    fn family(&self, i: usize) -> Family {
        if self.game(i) != GameId::Chess {
            return Family::Open;
        }
        if self.families.is_empty() {
            Family::Dgt
        } else {
            self.families[i % self.families.len()]
        }
    }
}

impl DemoOptions {
    /// The game of board `i` (from 0).
    fn game(&self, i: usize) -> GameId {
        if self.games.is_empty() {
            GameId::Chess
        } else {
            self.games[i % self.games.len()]
        }
    }
}

impl Default for DemoOptions {
    fn default() -> Self {
        DemoOptions {
            boards: 8,
            speed: 6.0,
            web: SocketAddr::from(([127, 0, 0, 1], 8080)),
            // Not 1883: a system Mosquitto may own that one.
            broker: SocketAddr::from(([127, 0, 0, 1], 18830)),
            livechess: Some(SocketAddr::from(([127, 0, 0, 1], 1982))),
            seed: 1,
            folder: None,
            families: vec![Family::Dgt],
            games: vec![GameId::Chess],
        }
    }
}

/// The built-in games.
pub fn games() -> Result<Vec<SourceGame>, DemoError> {
    let games = sim::read_games(GAMES.as_bytes()).map_err(|e| DemoError::Games(e.to_string()))?;
    if games.is_empty() {
        return Err(DemoError::Games("no games".into()));
    }
    Ok(games)
}

/// The daemon configuration of the demo: boards found as
/// `{folder}/board{N}-*`, the embedded broker allowed, the page on, and
/// the reconstructor's times divided by the speed.
pub fn config(opts: &DemoOptions, folder: &Path) -> Result<Config, DemoError> {
    let mut text = format!(
        r#"[bridge]
name = "demo"
event = "boardcast demo"
site = "Simulated hall"

[mqtt]
url = "mqtt://{broker}"
embedded = "auto"

[web]
listen = "{web}"

[log]
level = "info,rumqttd=off,rumqttc=warn"
"#,
        broker = opts.broker,
        web = opts.web,
    );
    // LiveChess's port may belong to a real LiveChess: then the demo goes
    // on without it (`run` warns).
    if let Some(addr) = opts
        .livechess
        .filter(|a| std::net::TcpListener::bind(a).is_ok())
    {
        text.push_str(&format!("\n[livechess]\nlisten = \"{addr}\"\n"));
    }
    for i in 0..opts.boards {
        let game = opts.game(i);
        text.push_str(&format!(
            "\n[[board]]\nid = \"{n}\"\nport = \"{dir}/board{n}-*\"\nserial = \"{serial}\"\nprotocol = \"{protocol}\"\ngame = \"{game}\"\n",
            n = i + 1,
            protocol = opts.family(i).name(),
            dir = folder.display(),
            // A simulated open board names itself after its device link.
            serial = if game == GameId::Chess {
                serial(i)
            } else {
                format!("sim-board{}", i + 1)
            },
            game = game.name(),
        ));
    }
    let mut config = Config::parse(&text, Path::new("demo.toml"))?;
    let speed = opts.speed.max(1.0);
    let scale = |ms: &mut u64| *ms = ((*ms as f64 / speed) as u64).max(1);
    let s = &mut config.reconstructor.settle;
    for ms in [
        &mut s.base_ms,
        &mut s.extendable_ms,
        &mut s.takeback_ms,
        &mut s.king_centre_ms,
        &mut s.kings_signal_ms,
        &mut s.final_ms,
        &mut s.provisional_ms,
    ] {
        scale(ms);
    }
    let d = &mut config.reconstructor.delays;
    for ms in [
        &mut d.misplaced_ms,
        &mut d.in_hand_ms,
        &mut d.setup_ms,
        &mut d.touch_ms,
    ] {
        scale(ms);
    }
    Ok(config)
}

fn serial(board: usize) -> String {
    format!("{:05}", 20_000 + board)
}

/// The fault of a board's `game`-th game, if any: about every other game
/// has one, and the boards start on different kinds.
fn fault_for(board: usize, game: usize) -> Option<FaultKind> {
    const CYCLE: [Option<FaultKind>; 6] = [
        Some(FaultKind::IllegalTakenBack),
        None,
        Some(FaultKind::Displaced),
        None,
        Some(FaultKind::WrongSetup),
        None,
    ];
    CYCLE[(board + game) % CYCLE.len()]
}

/// The session of one game: played with the human profile (or with a
/// fault), a clock when the session allows one, and the result reported
/// with the kings in the centre.
pub fn session(game: &SourceGame, board: usize, number: usize, seed: u64) -> Session {
    let seed = seed
        .wrapping_mul(1_000_003)
        .wrapping_add((board * 7_919 + number) as u64);
    let fault = fault_for(board, number).and_then(|k| faults::chess::inject(game, k, seed));
    let faulty = fault.is_some();
    let mut session = match fault {
        Some(case) => case.session,
        None => {
            let mut human = Human {
                // The clock simulation wants a session without takebacks.
                takeback: 0.0,
                ..Human::default()
            };
            sim::simulate(game, &mut human, seed, false)
        }
    };
    let plain = session
        .truth
        .iter()
        .all(|t| matches!(t, Truth::Ply { .. } | Truth::Shown { .. }));
    if plain && let Ok(tc) = TimeControl::parse("5400+30") {
        add_clock(&mut session, &ClockSetup::new(tc), Side::White, seed);
    }
    let result = game
        .tags
        .iter()
        .find(|(k, _)| k == "Result")
        .map(|(_, v)| v.as_str());
    // A fault session plays only part of the game: it simply stops, and
    // the next game is set up after a pause.
    if let Some(result) = result.filter(|r| *r != "*" && !faulty) {
        let mut last = game.start.clone();
        for &m in &game.moves {
            last = last.play(m);
        }
        // When the centre is taken, the game simply stops too.
        let _ = faults::chess::kings_to_centre(&mut session, &last, result, seed);
    }
    session
}

/// Runs the demo until `shutdown` resolves: plugs in the boards, then
/// runs the daemon on them. `config` is [`config`]'s result for the same
/// options and folder.
pub async fn run(
    opts: DemoOptions,
    config: Config,
    folder: &Path,
    shutdown: impl Future<Output = ()>,
) -> Result<(), DemoError> {
    // An in-process folder is only a name.
    let on_disk = !boardcast::port::memory::is_memory(&folder.to_string_lossy());
    if on_disk {
        std::fs::create_dir_all(folder).map_err(|error| DemoError::Folder {
            path: folder.to_owned(),
            error,
        })?;
    }
    let games = Arc::new(games()?);
    let pace = Pace::Scaled {
        divisor: opts.speed.max(1.0),
        // Long thinks are cut to 12 s of play: longer than any alert delay
        // that matters for a fault (displaced pieces: 6 s).
        cap_ms: 12_000,
    };
    let mut boards = Vec::with_capacity(opts.boards);
    let mut open_boards = Vec::new();
    for i in 0..opts.boards {
        if opts.game(i) != GameId::Chess {
            open_boards.push(open_board(&opts, i, folder, pace)?);
            continue;
        }
        let pick = {
            let games = Arc::clone(&games);
            move |n: usize| games[(i + n * opts.boards.max(1)) % games.len()].clone()
        };
        let first = pick(0);
        let first_session = session(&first, i, 0, opts.seed);
        let mut number = 0;
        let seed = opts.seed;
        let next: NextSession = Box::new(move |_cells| {
            number += 1;
            session(&pick(number), i, number, seed)
        });
        let sim_opts = SimOptions {
            serial: serial(i),
            pace,
            garbage_every: None,
            // Boards start a little apart, as in a hall.
            lead_in: Duration::from_millis(300 + 250 * i as u64),
            between_games: Duration::from_secs(4),
            protocol: opts.family(i),
            occupancy: false,
        };
        boards.push(SimBoard::start(
            folder,
            &format!("board{}", i + 1),
            first,
            first_session,
            Some(next),
            sim_opts,
        )?);
    }
    if let (Some(addr), None) = (opts.livechess, config.livechess) {
        warn!(%addr, "the LiveChess port is taken: the demo runs without the LiveChess API");
    }
    info!(boards = boards.len(), folder = %folder.display(), "simulated boards plugged in");
    let r = daemon::run(config, shutdown).await;
    drop(boards);
    drop(open_boards);
    if on_disk {
        let _ = std::fs::remove_dir_all(folder);
    }
    Ok(r?)
}

/// The draughts games a demo board plays (English draughts, PDN).
const DRAUGHTS_GAMES: &str = include_str!("../../rules/tests/data/english-draughts.pdn");
/// The xiangqi games a demo board plays (xiangqi PGN).
const XIANGQI_GAMES: &str = include_str!("../../rules/tests/data/xiangqi-random.pgn");

/// Board `i`, a draughts or xiangqi board on the open protocol, playing
/// one game of the bundled corpus with human handling.
fn open_board(
    opts: &DemoOptions,
    i: usize,
    folder: &Path,
    pace: Pace,
) -> Result<OtherGameBoard, DemoError> {
    let profile = OtherGameProfile {
        human: true,
        pieces: true,
        rotated: false,
        real: false,
    };
    let seed = opts.seed.wrapping_add(i as u64);
    let (game, session) = match opts.game(i) {
        GameId::Xiangqi => {
            let games = sim::open::read_xiangqi_games(XIANGQI_GAMES)
                .map_err(|e| DemoError::Games(e.to_string()))?;
            let moves = games
                .get((seed as usize) % games.len().max(1))
                .ok_or_else(|| DemoError::Games("no xiangqi games".into()))?;
            (
                OtherGame::Xiangqi,
                sim::open::simulate_xiangqi(moves, profile, seed),
            )
        }
        _ => {
            let games = boardcast_rules::draughts::read_pdn(DRAUGHTS_GAMES)
                .map_err(|e| DemoError::Games(e.to_string()))?;
            let g = games
                .get((seed as usize) % games.len().max(1))
                .ok_or_else(|| DemoError::Games("no draughts games".into()))?;
            (
                OtherGame::Draughts,
                sim::open::simulate_draughts(&g.moves, profile, seed),
            )
        }
    };
    Ok(OtherGameBoard::start(
        folder,
        &format!("board{}", i + 1),
        game,
        session,
        pace,
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_games_are_enough_for_a_hall() {
        let games = games().unwrap();
        assert!(games.len() >= 24, "{} games", games.len());
    }

    #[test]
    fn every_demo_game_makes_a_session_and_some_have_faults() {
        let games = games().unwrap();
        let mut with_clock = 0;
        for (n, g) in games.iter().enumerate().take(12) {
            let s = session(g, n % 8, n / 8, 1);
            assert!(!s.readings.is_empty());
            with_clock += usize::from(!s.clock.is_empty());
        }
        assert!(with_clock > 0);
        assert!((0..6).filter_map(|g| fault_for(0, g)).count() >= 3);
    }

    #[test]
    fn the_demos_kings_in_the_centre_results_raise_no_error_alert() {
        use boardcast::event::EventKind;
        let games = games().unwrap();
        let mut results = 0;
        for (n, g) in games.iter().enumerate().take(40) {
            let (board, number) = (n % 8, n / 8);
            if fault_for(board, number).is_some() {
                continue;
            }
            let s = session(g, board, number, 1);
            let text = boardcast_sim::dgt::capture_text(&s, &[]);
            let replay = boardcast::replay::replay_reader(
                text.as_bytes(),
                boardcast::track::Config::default(),
                "demo".as_ref(),
            )
            .unwrap();
            let errors: Vec<_> = replay
                .events
                .iter()
                .filter_map(|(_, e)| match &e.kind {
                    EventKind::Alert(a) if a.kind.is_error() && !a.cleared => Some(&a.message),
                    _ => None,
                })
                .collect();
            assert!(errors.is_empty(), "demo game {n}: {errors:?}");
            results += replay
                .events
                .iter()
                .filter(|(_, e)| {
                    matches!(&e.kind, EventKind::GameEnd { reason, .. } if reason == "kings in the centre")
                })
                .count();
        }
        assert!(
            results >= 10,
            "only {results} results signalled with the kings"
        );
    }

    /// A free loopback port.
    fn free_port() -> SocketAddr {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_demos_boards_play_through_the_daemon_on_in_process_lines() {
        // As on Windows: no pseudo-terminal, the boards on in-process
        // lines that the daemon's port task opens by name.
        let rec = tempfile::tempdir().unwrap();
        let opts = DemoOptions {
            boards: 2,
            speed: 30.0,
            web: free_port(),
            broker: free_port(),
            livechess: None,
            families: vec![Family::Dgt, Family::Millennium],
            ..DemoOptions::default()
        };
        let folder = PathBuf::from("mem:demo-test");
        let mut config = config(&opts, &folder).unwrap();
        config.recorder = Some(rec.path().to_owned());
        let reconstructor = config.reconstructor;
        run(
            opts,
            config,
            &folder,
            tokio::time::sleep(Duration::from_secs(8)),
        )
        .await
        .unwrap();
        assert!(
            boardcast::port::memory::matching("mem:demo-test/*").is_empty(),
            "the lines are unplugged when the demo stops"
        );
        for (board, family) in [("1", "dgt"), ("2", "millennium")] {
            let capture = std::fs::read_dir(rec.path())
                .unwrap()
                .flatten()
                .map(|e| e.path())
                .find(|p| {
                    let name = p.file_name().unwrap().to_string_lossy().into_owned();
                    name.starts_with(&format!("{board}-")) && name.ends_with(".capture")
                })
                .unwrap_or_else(|| panic!("no capture of board {board}"));
            let text = std::fs::read_to_string(&capture).unwrap();
            assert!(text.contains(&format!("protocol={family}")), "{text:.200}");
            let replay = boardcast::replay::replay_file(&capture, reconstructor).unwrap();
            let moves = replay
                .events
                .iter()
                .filter(|(_, e)| matches!(e.kind, boardcast::event::EventKind::Move { .. }))
                .count();
            assert!(moves >= 4, "board {board}: {moves} moves in 8 s");
        }
    }

    #[test]
    fn the_demo_configuration_divides_times_by_the_speed() {
        let opts = DemoOptions {
            boards: 3,
            speed: 5.0,
            // Never LiveChess's own port in tests.
            livechess: None,
            ..DemoOptions::default()
        };
        let c = config(&opts, Path::new("/tmp/x")).unwrap();
        assert_eq!(c.boards.len(), 3);
        assert_eq!(c.web, Some(opts.web));
        assert_eq!(c.mqtt.embedded, boardcast::config::Embedded::Auto);
        assert_eq!(c.reconstructor.settle.base_ms, 90);
        assert_eq!(c.reconstructor.delays.misplaced_ms, 1_200);
    }

    #[test]
    fn demo_games_go_to_the_boards_in_turn_and_other_games_on_the_open_protocol() {
        let opts = DemoOptions {
            boards: 4,
            livechess: None,
            families: vec![Family::Millennium],
            games: vec![GameId::Chess, GameId::Draughts, GameId::Xiangqi],
            ..DemoOptions::default()
        };
        let c = config(&opts, Path::new("/tmp/x")).unwrap();
        let got: Vec<(GameId, Family)> = c.boards.iter().map(|b| (b.game, b.protocol)).collect();
        assert_eq!(
            got,
            [
                (GameId::Chess, Family::Millennium),
                (GameId::Draughts, Family::Open),
                (GameId::Xiangqi, Family::Open),
                (GameId::Chess, Family::Millennium),
            ]
        );
        assert_eq!(c.boards[1].serial.as_deref(), Some("sim-board2"));
    }
}
