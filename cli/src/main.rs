//! The `boardcast` command line.

mod check;
mod demo;
mod pipe;
mod platform;
mod trf;

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand, ValueEnum};

use boardcast::config::{self, Config as DaemonConfig};
use boardcast::daemon;
use boardcast::replay::replay_file;
use boardcast::track::Config;
use boardcast_sim::{self as sim, Clean, Human, Profile, Real};

/// Bridges electronic chess boards to live broadcasts and arbiters.
#[derive(Debug, Parser)]
#[command(name = "boardcast", version = platform::VERSION, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// See it work: simulated boards playing real games through the live
    /// daemon, an embedded MQTT broker, and the live page in a browser.
    Demo(DemoArgs),
    /// Run the live daemon: read every configured board and publish over
    /// MQTT until SIGINT or SIGTERM (Ctrl-C).
    Run {
        /// The configuration file (TOML; see config/default.toml). Default:
        /// /etc/boardcast/boardcast.toml (Linux),
        /// %ProgramData%\boardcast\boardcast.toml (Windows).
        #[arg(long)]
        config: Option<PathBuf>,
        /// First run only (no configuration file anywhere): where the live
        /// page and the operator's desk are served.
        #[arg(long, default_value = "127.0.0.1:8080")]
        web: std::net::SocketAddr,
        /// First run only: the embedded MQTT broker's address.
        #[arg(long, default_value = "127.0.0.1:18830")]
        broker: std::net::SocketAddr,
        /// First run only: the folder that keeps the captures and what the
        /// desk sets up (default: the user's data folder, `boardcast`).
        #[arg(long)]
        data: Option<PathBuf>,
    },
    /// Gather every board of every bridge on the broker (cluster): the live
    /// page, the arbiter view, the PGN folder and the delayed public view
    /// for the whole event, until SIGINT or SIGTERM.
    Hub {
        /// The hub's configuration file (TOML: `[hub]`, `[mqtt]`, `[web]`,
        /// `[event]`, `[broadcast]`, `[control]`; see docs/deployment.md).
        #[arg(long)]
        config: PathBuf,
    },
    /// Send an operator correction to a board of a running daemon (over
    /// its MQTT command topic, signed with the `[control]` secret) and wait
    /// for the daemon's acknowledgement; it is published as a `correction`
    /// event. Exits non-zero when refused or unanswered.
    #[command(name = "command")]
    Correct {
        /// The daemon's configuration file (broker, prefix, bridge name and
        /// operator secret).
        #[arg(long)]
        config: PathBuf,
        /// The board id.
        #[arg(long)]
        board: String,
        /// Seconds to wait for the daemon's acknowledgement.
        #[arg(long, default_value_t = 5.0)]
        timeout: f64,
        /// The correction.
        #[command(subcommand)]
        correction: Correction,
    },
    /// The round's report for the arbiter: every game, its result, and
    /// every error or action alert with its time, move number, article,
    /// evidence span and decision, made from the recorder's captures and
    /// the decisions journals (as `run` would take the boards up).
    Report {
        /// The daemon's configuration file.
        #[arg(long)]
        config: PathBuf,
        /// The round (default: the latest any board played).
        #[arg(long)]
        round: Option<u32>,
        /// `html` (a printable page) or `json`.
        #[arg(long, value_enum, default_value_t = ReportFormat::Html)]
        format: ReportFormat,
        /// Write it to this file (default: standard output).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Check every configured board before the round: connected, identity,
    /// battery, orientation, set-up, piece codes, clock against the time
    /// control. Prints one line per board; exits non-zero when a board is
    /// not ready. Run it while the daemon is stopped (it reads the boards'
    /// lines itself); a running daemon shows the same at /check.
    Check {
        /// The daemon's configuration file.
        #[arg(long)]
        config: PathBuf,
        /// Seconds to read the boards (less when every board is found with
        /// nothing to say).
        #[arg(long, default_value_t = 5.0)]
        wait: f64,
    },
    /// List the serial ports of this machine (`/dev/ttyACM0`, `COM5`):
    /// USB ids, maker, product and serial number, and the boards known by
    /// their USB id (DGT, Certabo) with the `[[board]]` keys that read them.
    Ports,
    /// Validate a configuration file and print what it configures.
    CheckConfig {
        /// The configuration file (default: as for `run`).
        file: Option<PathBuf>,
    },
    /// Replay a capture file through the live pipeline (decoder, move
    /// reconstruction, rules) with the capture's timestamps.
    Replay {
        /// The capture file.
        capture: PathBuf,
        /// Write the games as PGN to this file.
        #[arg(long)]
        pgn: Option<PathBuf>,
        /// Write every event as JSON lines to this file.
        #[arg(long)]
        events: Option<PathBuf>,
        /// Write, for every error or action alert, the readings behind it
        /// as a capture slice `DIR/{board}-{seq}.capture` that replays to
        /// the same alert (its header names the game so far).
        #[arg(long, value_name = "DIR")]
        evidence: Option<PathBuf>,
    },
    /// Play the games of a PGN file on a simulated DGT board (or, with
    /// `--game draughts|xiangqi`, of a PDN or xiangqi PGN file on a simulated
    /// open-protocol board) and write one capture per game.
    Simulate {
        /// Games to play (chess PGN; xiangqi PGN with `--game xiangqi`).
        #[arg(long, required_unless_present = "pdn")]
        pgn: Option<PathBuf>,
        /// Draughts games to play (PDN, with `--game draughts`).
        #[arg(long)]
        pdn: Option<PathBuf>,
        /// Another game than chess, on an open-protocol board.
        #[arg(long, value_enum)]
        game: Option<OpenGameName>,
        /// Whether the open-protocol board identifies pieces.
        #[arg(long, value_enum, default_value_t = YesNo::Yes)]
        pieces: YesNo,
        /// With `--game draughts`: the board family (`tabutronic`: an 8x8
        /// vendor board reporting occupancy only).
        #[arg(long, value_enum, default_value_t = GameBoard::Open)]
        board: GameBoard,
        /// Folder for the captures (created if missing).
        #[arg(long)]
        out: PathBuf,
        /// How the pieces are handled.
        #[arg(long, value_enum, default_value_t = ProfileName::Clean)]
        profile: ProfileName,
        /// Seed of the random habits and timings.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Stand the board turned round (Black on ranks 1-2).
        #[arg(long)]
        rotated: bool,
        /// Play at most this many games.
        #[arg(long)]
        limit: Option<usize>,
    },
    /// FIDE TRF files of pairing programs (Swiss-Manager, Vega): a round's
    /// pairings as read, and its results written back from the PGN games.
    Trf {
        /// What to do.
        #[command(subcommand)]
        command: trf::TrfCommand,
    },
}

#[derive(Debug, Subcommand)]
enum Correction {
    /// Set the current game's result.
    SetResult {
        /// `1-0`, `0-1`, `1/2-1/2` or `*`.
        result: String,
    },
    /// End the current game; a new one begins when the start position is set up.
    Restart,
    /// Fix the players of the board.
    SetPlayers {
        /// White's name ("Last, First").
        #[arg(long)]
        white: String,
        /// Black's name ("Last, First").
        #[arg(long)]
        black: String,
    },
    /// Record the arbiter's decision about one of the board's alerts (its
    /// `evidence.seq`): confirmed, dismissed or handled.
    Decide {
        /// The alert's number (`evidence.seq` in its event).
        alert: u64,
        /// `confirmed`, `dismissed` or `handled`.
        decision: DecisionArg,
        /// A note for the round's report.
        #[arg(long)]
        note: Option<String>,
    },
}

/// How `boardcast report` writes the report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ReportFormat {
    Html,
    Json,
}

/// An arbiter's decision, as typed.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum DecisionArg {
    Confirmed,
    Dismissed,
    Handled,
}

#[derive(Debug, clap::Args)]
struct DemoArgs {
    /// Simulated boards.
    #[arg(long, default_value_t = 8)]
    boards: usize,
    /// How many times faster than real play (long thinks are cut short).
    #[arg(long, default_value_t = 6.0)]
    speed: f64,
    /// Address of the live page.
    #[arg(long, default_value = "127.0.0.1:8080")]
    web: std::net::SocketAddr,
    /// The MQTT broker; an embedded one is started there if none listens.
    #[arg(long, default_value = "127.0.0.1:18830")]
    broker: std::net::SocketAddr,
    /// Address of the LiveChess-compatible API (skipped with a warning
    /// when the port is taken).
    #[arg(long, default_value = "127.0.0.1:1982")]
    livechess: std::net::SocketAddr,
    /// Seed of the players' habits, the games' order and the faults.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Board families to mix, given to the boards in turn: dgt,
    /// millennium, open (chess boards on the open protocol).
    #[arg(long, value_delimiter = ',', default_value = "dgt", value_parser = parse_family)]
    families: Vec<boardcast::family::Family>,
    /// Games to mix, given to the boards in turn: chess (on the families
    /// above), draughts, xiangqi (open-protocol boards, one game each).
    #[arg(long, value_delimiter = ',', default_value = "chess", value_parser = parse_demo_game)]
    games: Vec<boardcast::event::GameId>,
    /// Put the boards on pseudo-terminals in a temporary folder (Unix)
    /// instead of in-process lines, so other programs can open them as
    /// serial ports too.
    #[cfg(unix)]
    #[arg(long)]
    pty: bool,
}

/// A game the demo can simulate.
fn parse_demo_game(name: &str) -> Result<boardcast::event::GameId, String> {
    use boardcast::event::GameId;
    match name {
        "chess" => Ok(GameId::Chess),
        "draughts" => Ok(GameId::Draughts),
        "xiangqi" => Ok(GameId::Xiangqi),
        other => Err(format!(
            "unknown game `{other}` (the demo plays chess, draughts, xiangqi)"
        )),
    }
}

/// A family the demo can simulate.
fn parse_family(name: &str) -> Result<boardcast::family::Family, String> {
    use boardcast::family::Family;
    match name.parse::<Family>().ok() {
        Some(p @ (Family::Dgt | Family::Millennium | Family::Open)) => Ok(p),
        Some(Family::Certabo) => Err("certabo boards are not simulated yet".into()),
        Some(Family::DgtBus) => Err("the demo does not simulate dgt-bus lines yet".into()),
        None => Err(format!(
            "unknown family `{name}` (the demo simulates dgt, millennium, open)"
        )),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ProfileName {
    /// Textbook handling: lift, set down.
    Clean,
    /// Real players' habits (design section 3).
    Human,
    /// The habits seen in real recordings of people playing on a DGT
    /// board (swap captures, stops on the way, the captured piece set
    /// down beside; stops last at most 2 s). Chess only.
    Real,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum OpenGameName {
    /// English draughts (PDN games).
    Draughts,
    /// Xiangqi (PGN games with WXF or ICCS movetext).
    Xiangqi,
}

/// The board a draughts or xiangqi game is simulated on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum GameBoard {
    /// The open protocol (`hello`, `board`, `up`/`down` lines).
    Open,
    /// A Certabo board in occupancy mode (Tabutronic frames; draughts only).
    Tabutronic,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum YesNo {
    /// Yes.
    Yes,
    /// No.
    No,
}

fn main() -> ExitCode {
    pipe::quiet_on_closed_pipe();
    // No arguments: the help in a terminal (clap's, as ever); the work
    // itself when started without one (a double-click, the Start menu).
    if std::env::args_os().len() == 1 && platform::started_without_terminal() {
        return double_click();
    }
    pipe::exit_code(run(Cli::parse()))
}

/// Where the desk is served when `boardcast` starts without a terminal and
/// without a configuration file: `BOARDCAST_WEB`, else 127.0.0.1:8080 (as
/// `run`'s `--web`).
const WEB_VAR: &str = "BOARDCAST_WEB";
/// The embedded broker's address then: `BOARDCAST_BROKER`, else
/// 127.0.0.1:18830 (as `run`'s `--broker`).
const BROKER_VAR: &str = "BOARDCAST_BROKER";

/// `boardcast` with no arguments and no terminal (a double-click in
/// Explorer, the Start menu's "boardcast desk"; see
/// [`platform::started_without_terminal`]): `run` with the configuration
/// when there is one where `run` looks, else the first run with the
/// user's data folder, and the browser opened at the desk once it
/// answers. An error is shown until Enter is pressed: the window closes
/// with the program.
fn double_click() -> ExitCode {
    let address = |var: &str, default: &str| -> Result<std::net::SocketAddr> {
        let text = std::env::var(var).unwrap_or_else(|_| default.to_string());
        text.parse()
            .with_context(|| format!("{var}={text}: not an address such as {default}"))
    };
    let result = (|| -> Result<()> {
        let config = platform::default_config();
        if config.exists() {
            run_daemon_with(&config, Start::DoubleClick)
        } else {
            first_run(
                address(WEB_VAR, "127.0.0.1:8080")?,
                address(BROKER_VAR, "127.0.0.1:18830")?,
                platform::data_dir(),
                Start::DoubleClick,
            )
        }
    })();
    let failed = result.is_err();
    let code = pipe::exit_code(result);
    if failed {
        eprintln!("Press Enter to close this window.");
        let _ = std::io::stdin().read_line(&mut String::new());
    }
    code
}

/// How the daemon was started: from a terminal, or without one (it then
/// says how to stop it and opens the browser at the desk).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Start {
    /// A command typed in a terminal.
    Terminal,
    /// A double-click or the Start menu.
    DoubleClick,
}

/// Where this machine reaches a web address: an unspecified address
/// (listening on every interface) on loopback.
fn reachable(web: std::net::SocketAddr) -> std::net::SocketAddr {
    use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
    let ip = match web.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    SocketAddr::new(ip, web.port())
}

/// The desk's URL on this machine for a web address.
fn desk_url(web: std::net::SocketAddr) -> String {
    format!("http://{}/desk", reachable(web))
}

/// Opens the browser at the desk once `web` takes connections (the desk is
/// served from the daemon's start); gives up after a minute.
async fn open_desk_when_listening(web: std::net::SocketAddr) {
    let url = desk_url(web);
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(60);
    while tokio::net::TcpStream::connect(reachable(web))
        .await
        .is_err()
    {
        if tokio::time::Instant::now() > deadline {
            tracing::warn!(%url, "the desk did not answer within a minute; the browser was not opened");
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    match platform::open_browser(&url) {
        Ok(program) => tracing::info!(%url, %program, "browser opened at the desk"),
        Err(e) => {
            tracing::warn!(%url, error = %e, "the browser did not open: open the desk's address yourself")
        }
    }
}

fn send_correction(path: &Path, board: &str, correction: Correction, timeout: f64) -> Result<()> {
    use boardcast::control::{self, OperatorCommand};
    use boardcast::tournament::Player;
    let config = boardcast::config::Config::load(path)?;
    if !config.boards.iter().any(|b| b.id == board) {
        bail!("{}: no board `{board}`", path.display());
    }
    let Some(secret) = &config.control.secret else {
        bail!(
            "{}: no operator secret ([control] secret or secret_file): the daemon refuses unsigned commands",
            path.display()
        );
    };
    if !(timeout > 0.0 && timeout <= 600.0) {
        bail!("--timeout must be between 0 and 600 seconds");
    }
    let command = match correction {
        Correction::SetResult { result } => OperatorCommand::SetResult { result },
        Correction::Restart => OperatorCommand::Restart,
        Correction::Decide {
            alert,
            decision,
            note,
        } => OperatorCommand::Decide {
            alert,
            decision: match decision {
                DecisionArg::Confirmed => boardcast::event::Decision::Confirmed,
                DecisionArg::Dismissed => boardcast::event::Decision::Dismissed,
                DecisionArg::Handled => boardcast::event::Decision::Handled,
            },
            note,
        },
        Correction::SetPlayers { white, black } => OperatorCommand::SetPlayers {
            white: Player {
                name: white,
                ..Player::default()
            },
            black: Player {
                name: black,
                ..Player::default()
            },
        },
    };
    // Checked here so a typo never reaches the board.
    OperatorCommand::parse(&serde_json::to_vec(&command)?).map_err(anyhow::Error::msg)?;
    let topics = boardcast::mqtt::Topics::new(&config.mqtt.prefix, &config.bridge.name);
    let nonce = control::new_nonce();
    let payload = control::sign(
        secret,
        &topics.command(board),
        &command,
        boardcast::wall::unix_ms(),
        &nonce,
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let ack = runtime.block_on(boardcast::mqtt::send_command(
        &config.mqtt,
        &topics,
        board,
        payload,
        &nonce,
        std::time::Duration::from_secs_f64(timeout),
    ))?;
    if !ack.accepted {
        bail!("board {board}: {} {}", command.name(), ack.message);
    }
    println!("board {board}: {}: {}", command.name(), ack.message);
    Ok(())
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Run {
            config,
            web,
            broker,
            data,
        } => match config {
            Some(path) => run_daemon(&path),
            None if platform::default_config().exists() => run_daemon(&platform::default_config()),
            None => first_run(
                web,
                broker,
                data.unwrap_or_else(platform::data_dir),
                Start::Terminal,
            ),
        },
        Command::Hub { config } => run_hub(&config),
        Command::Demo(args) => demo(args),
        Command::Correct {
            config,
            board,
            timeout,
            correction,
        } => send_correction(&config, &board, correction, timeout),
        Command::Check { config, wait } => check_boards(&config, wait),
        Command::Ports => ports(),
        Command::Trf { command } => trf::run(command),
        Command::CheckConfig { file } => {
            check_config(&file.unwrap_or_else(platform::default_config))
        }
        Command::Report {
            config,
            round,
            format,
            out,
        } => report(&config, round, format, out.as_deref()),
        Command::Replay {
            capture,
            pgn,
            events,
            evidence,
        } => {
            replay(&capture, pgn.as_deref(), events.as_deref())?;
            match evidence {
                Some(dir) => evidence_slices(&capture, &dir),
                None => Ok(()),
            }
        }
        Command::Simulate {
            game: Some(game),
            pgn,
            pdn,
            out,
            profile,
            seed,
            rotated,
            limit,
            pieces,
            board,
        } => simulate_open(
            game,
            pgn.or(pdn).context("--pgn or --pdn names the games")?,
            &out,
            profile,
            seed,
            rotated,
            limit,
            pieces == YesNo::Yes,
            board,
        ),
        Command::Simulate {
            pgn,
            out,
            profile,
            seed,
            rotated,
            limit,
            ..
        } => simulate(
            &pgn.context("--pgn names the games")?,
            &out,
            profile,
            seed,
            rotated,
            limit,
        ),
    }
}

/// `boardcast report`: the round's report for the arbiter, as HTML or
/// JSON, to a file or standard output.
fn report(
    config: &Path,
    round: Option<u32>,
    format: ReportFormat,
    out: Option<&Path>,
) -> Result<()> {
    let cfg =
        boardcast::config::Config::load(config).with_context(|| format!("{}", config.display()))?;
    let report = boardcast::daemon::round_report(&cfg, round)?;
    let text = match format {
        ReportFormat::Html => report.to_html(),
        ReportFormat::Json => report.to_json() + "\n",
    };
    match out {
        Some(path) => {
            fs::write(path, text).with_context(|| format!("writing {}", path.display()))?
        }
        None => print!("{text}"),
    }
    Ok(())
}

fn run_daemon(path: &Path) -> Result<()> {
    run_daemon_with(path, Start::Terminal)
}

/// `run` with a configuration file; started without a terminal, it says
/// what runs and how to stop it, and opens the browser at the desk.
fn run_daemon_with(path: &Path, start: Start) -> Result<()> {
    let config = DaemonConfig::load(path)?;
    init_logging(&config.log)?;
    platform::raise_open_files();
    let web = config.web;
    if start == Start::DoubleClick {
        println!(
            "boardcast {}: running the configuration {}\n  the operator's desk: {}\n  To stop boardcast, close this window (or press Ctrl-C).",
            platform::VERSION,
            path.display(),
            web.map_or_else(
                || "none (the configuration serves no [web] page)".to_string(),
                |w| format!("{} (opening in the browser)", desk_url(w))
            ),
        );
    }
    until_stopped(|shutdown| async move {
        if let (Start::DoubleClick, Some(web)) = (start, web) {
            tokio::spawn(open_desk_when_listening(web));
        }
        Ok(daemon::run(config, shutdown).await?)
    })
}

fn run_hub(path: &Path) -> Result<()> {
    let config = boardcast::hub::config::HubConfig::load(path)?;
    init_logging(&config.log)?;
    platform::raise_open_files();
    until_stopped(|shutdown| async move { Ok(boardcast::hub::run(config, shutdown, None).await?) })
}

/// Runs `job` on a multi-threaded runtime with a future that resolves on
/// SIGINT or SIGTERM.
fn until_stopped<F, Fut>(job: F) -> Result<()>
where
    F: FnOnce(std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>) -> Fut,
    Fut: std::future::Future<Output = Result<()>>,
{
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(async {
        let shutdown = Box::pin(platform::stop_signal()?);
        job(shutdown).await
    })
}

/// `boardcast run` with no configuration file: the demo's simulated boards
/// with the operator's desk, everything the desk sets up kept in `data`,
/// so the operator sets up the event from the browser. Started without a
/// terminal, it opens the browser at the desk.
fn first_run(
    web: std::net::SocketAddr,
    broker: std::net::SocketAddr,
    data: PathBuf,
    start: Start,
) -> Result<()> {
    use crate::demo::{self, DemoOptions};
    std::fs::create_dir_all(&data)
        .with_context(|| format!("creating the data folder {}", data.display()))?;
    let opts = DemoOptions {
        web,
        broker,
        livechess: None,
        ..DemoOptions::default()
    };
    let folder = PathBuf::from(format!("{}first-run", boardcast::port::memory::PREFIX));
    let mut config = demo::config(&opts, &folder)?;
    config.recorder = Some(data.clone());
    init_logging(&config.log)?;
    let (opening, stop) = match start {
        Start::Terminal => ("", "Ctrl-C stops."),
        Start::DoubleClick => (
            "opening in the browser; ",
            "To stop boardcast, close this window (or press Ctrl-C).",
        ),
    };
    println!(
        "boardcast {}: no configuration file ({}): first run with {} simulated boards\n  the operator's desk: {} ({opening}choose its password there, on this machine)\n  live page: http://{web}/\n  data folder: {}\n  {stop}",
        platform::VERSION,
        platform::default_config().display(),
        opts.boards,
        desk_url(web),
        data.display()
    );
    until_stopped(|shutdown| async move {
        if start == Start::DoubleClick {
            tokio::spawn(open_desk_when_listening(web));
        }
        Ok(demo::run(opts, config, &folder, shutdown).await?)
    })
}

fn demo(args: DemoArgs) -> Result<()> {
    use crate::demo::{self, DemoOptions};
    if args.boards == 0 || args.speed < 1.0 {
        bail!("--boards must be at least 1 and --speed at least 1");
    }
    let opts = DemoOptions {
        boards: args.boards,
        speed: args.speed,
        web: args.web,
        broker: args.broker,
        livechess: Some(args.livechess),
        seed: args.seed,
        folder: None,
        families: args.families,
        games: args.games,
    };
    // In-process lines on every OS (the same port task and drivers read
    // them as serial ports); pseudo-terminals on request.
    #[cfg(unix)]
    let pty = args.pty;
    #[cfg(not(unix))]
    let pty = false;
    let folder = if pty {
        std::env::temp_dir().join(format!("boardcast-demo-{}", std::process::id()))
    } else {
        PathBuf::from(format!("{}demo", boardcast::port::memory::PREFIX))
    };
    let mut config = demo::config(&opts, &folder)?;
    config.broadcast.public_alerts = true; // one page shows all (docs/broadcast.md)
    init_logging(&config.log)?;
    println!(
        "boardcast demo: {} simulated boards at {}x speed\n  live page: http://{}/   (arbiter view: http://{}/?arbiter)\n  MQTT: mqtt://{} topics {}/#\n  Ctrl-C stops.",
        opts.boards, opts.speed, opts.web, opts.web, opts.broker, config.mqtt.prefix
    );
    if let Some(addr) = config.livechess {
        println!("  LiveChess API: ws://{addr}/api/v1.0 (DGT board pages, LiveChess clients)");
    }
    until_stopped(|shutdown| async move { Ok(demo::run(opts, config, &folder, shutdown).await?) })
}

/// The tracing subscriber: text or JSON on stderr, filtered by RUST_LOG or
/// the configured level. rumqttc logs through the `log` crate; the
/// subscriber's `tracing-log` bridge (on by default) carries those records.
fn init_logging(log: &config::Log) -> Result<()> {
    use tracing_subscriber::EnvFilter;
    let filter = match std::env::var("RUST_LOG") {
        Ok(v) if !v.is_empty() => EnvFilter::try_new(v).context("RUST_LOG")?,
        _ => EnvFilter::try_new(&log.level).context("log.level")?,
    };
    use std::io::IsTerminal;
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr);
    let result = match log.format {
        config::LogFormat::Text => builder.try_init(),
        config::LogFormat::Json => builder.json().try_init(),
    };
    result.map_err(|e| anyhow::anyhow!("setting up logging: {e}"))
}

/// `boardcast check`: one line per board, an error when any is not ready.
fn check_boards(path: &Path, wait: f64) -> Result<()> {
    let config = DaemonConfig::load(path)?;
    let Some(wait) = check::wait_of(wait) else {
        bail!("--wait must be between 0 and 600 seconds");
    };
    if config.boards.is_empty() {
        bail!("{}: no boards to check", path.display());
    }
    // Quiet unless asked: the lines below are the report.
    if std::env::var_os("RUST_LOG").is_some() {
        init_logging(&config.log)?;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    let found = runtime.block_on(check::check(&config, wait))?;
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

fn ports() -> Result<()> {
    let ports = tokio_serial::available_ports().context("listing serial ports")?;
    if ports.is_empty() {
        println!("no serial ports found");
    }
    for p in ports {
        println!("{}", platform::describe_port(&p.port_name, &p.port_type));
    }
    Ok(())
}

fn check_config(path: &Path) -> Result<()> {
    let c = DaemonConfig::load(path)?;
    // The pairings file is read as the daemon reads it: one that does not
    // read fails the check before anything is said to be ok.
    let pairings = c
        .event
        .pairings
        .as_deref()
        .map(|p| trf::check_pairings(p, c.event.asked_round))
        .transpose()?;
    // The lichess token is read as the daemon reads it (never printed).
    let lichess = c
        .lichess
        .as_ref()
        .map(|l| {
            boardcast::lichess::Token::read(&l.token_file).map(|_| {
                format!(
                    "pushing to lichess round {} at {} (token read from {})",
                    l.round,
                    l.base_url,
                    l.token_file.display()
                )
            })
        })
        .transpose()?;
    println!(
        "{}: ok: bridge `{}`, broker {}:{}{}, prefix `{}`, {} board(s)",
        path.display(),
        c.bridge.name,
        c.mqtt.host,
        c.mqtt.port,
        if c.mqtt.tls.is_some() { " (tls)" } else { "" },
        c.mqtt.prefix,
        c.boards.len()
    );
    for b in &c.boards {
        println!(
            "  board {}: {} {} baud {}{}{}",
            b.id,
            b.port,
            b.protocol.name(),
            b.baud,
            b.bus_address
                .map(|a| format!(", bus address {a}"))
                .unwrap_or_default(),
            b.serial
                .as_ref()
                .map(|s| format!(", serial {s}"))
                .unwrap_or_default()
        );
    }
    if let Some(dir) = &c.recorder {
        println!("  recording to {}", dir.display());
    }
    if let Some(line) = pairings {
        println!("  {line}");
    }
    if let Some(line) = lichess {
        println!("  {line}");
    }
    Ok(())
}

/// `boardcast replay --evidence DIR`: one capture slice per error or
/// action alert, each checked to raise its alert again.
fn evidence_slices(capture: &Path, dir: &Path) -> Result<()> {
    let slices = boardcast::replay::slice::write_slices(capture, Config::default(), dir)?;
    for s in &slices {
        if !s.reproduced {
            eprintln!(
                "boardcast: warning: {}: does not raise its alert again",
                s.path.display()
            );
        }
    }
    eprintln!(
        "boardcast: {} evidence slice(s) written to {}",
        slices.len(),
        dir.display()
    );
    Ok(())
}

fn replay(capture: &Path, pgn: Option<&Path>, events: Option<&Path>) -> Result<()> {
    // One route for every board: the header names the family and the game
    // (an open-protocol board's `hello` names its game).
    let replay = replay_file(capture, Config::default())?;
    if !replay.resumed_from.is_empty() {
        eprintln!(
            "boardcast: {}: resumes an earlier session; replayed first: {}",
            capture.display(),
            replay
                .resumed_from
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if let Some(prev) = &replay.missing_prefix {
        eprintln!(
            "boardcast: warning: {}: resumes {}, which is missing; the earlier moves of its game are not in the output",
            capture.display(),
            prev.display()
        );
    }
    if let Some(line) = replay.cut_last_line {
        eprintln!(
            "boardcast: warning: {}: line {line} was cut short (the recording stopped mid-line); replayed everything before it",
            capture.display()
        );
    }
    for d in &replay.diagnostics {
        if !matches!(d, boardcast::pipeline::Diagnostic::Serial { .. }) {
            eprintln!("boardcast: {}: {d:?}", capture.display());
        }
    }
    if let Some(path) = events {
        let mut text = String::new();
        for (_, e) in &replay.events {
            text.push_str(&e.to_json());
            text.push('\n');
        }
        fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    // Chess as PGN; draughts as PDN, xiangqi as its PGN, each in its own
    // record format.
    let text = replay.records();
    match pgn {
        Some(path) => {
            fs::write(path, text).with_context(|| format!("writing {}", path.display()))?
        }
        None if events.is_none() => std::io::stdout().write_all(text.as_bytes())?,
        None => {}
    }
    Ok(())
}

/// Draughts or xiangqi games on a simulated open-protocol board, one
/// capture per game.
#[allow(clippy::too_many_arguments)]
fn simulate_open(
    game: OpenGameName,
    games: PathBuf,
    out: &Path,
    profile: ProfileName,
    seed: u64,
    rotated: bool,
    limit: Option<usize>,
    pieces: bool,
    board: GameBoard,
) -> Result<()> {
    use boardcast_sim::open::{self, OpenProfile};
    if board == GameBoard::Tabutronic && game != OpenGameName::Draughts {
        bail!("--board tabutronic carries draughts only (an 8x8 board)");
    }
    let text =
        fs::read_to_string(&games).with_context(|| format!("reading {}", games.display()))?;
    if profile == ProfileName::Real {
        bail!("--profile real plays chess only; draughts and xiangqi take clean or human");
    }
    let profile = OpenProfile {
        human: profile == ProfileName::Human,
        pieces,
        rotated,
        real: false,
    };
    let sessions: Vec<(String, open::OpenSession)> = match game {
        OpenGameName::Draughts => {
            let games_read = boardcast_rules::draughts::read_pdn(&text)
                .with_context(|| format!("reading {}", games.display()))?;
            games_read
                .iter()
                .take(limit.unwrap_or(usize::MAX))
                .enumerate()
                .map(|(i, g)| {
                    (
                        "draughts".to_string(),
                        open::simulate_draughts(&g.moves, profile, seed.wrapping_add(i as u64)),
                    )
                })
                .collect()
        }
        OpenGameName::Xiangqi => open::read_xiangqi_games(&text)
            .with_context(|| format!("reading {}", games.display()))?
            .iter()
            .take(limit.unwrap_or(usize::MAX))
            .enumerate()
            .map(|(i, moves)| {
                (
                    "xiangqi".to_string(),
                    open::simulate_xiangqi(moves, profile, seed.wrapping_add(i as u64)),
                )
            })
            .collect(),
    };
    if sessions.is_empty() {
        bail!("{}: no games", games.display());
    }
    fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    for (i, (name, session)) in sessions.iter().enumerate() {
        let meta = vec![
            ("board".to_string(), "1".to_string()),
            ("game".to_string(), name.clone()),
        ];
        let path = out.join(format!("game-{:04}.capture", i + 1));
        let text = match board {
            GameBoard::Open => open::capture_text(session, &meta, profile.human),
            GameBoard::Tabutronic => open::tabutronic_capture_text(session, &meta[..1]),
        };
        fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

fn simulate(
    pgn: &Path,
    out: &Path,
    profile: ProfileName,
    seed: u64,
    rotated: bool,
    limit: Option<usize>,
) -> Result<()> {
    let file = fs::File::open(pgn).with_context(|| format!("opening {}", pgn.display()))?;
    let games = sim::read_games(std::io::BufReader::new(file))
        .with_context(|| format!("reading {}", pgn.display()))?;
    if games.is_empty() {
        bail!("{}: no games", pgn.display());
    }
    fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    for (i, game) in games.iter().take(limit.unwrap_or(usize::MAX)).enumerate() {
        let mut profile: Box<dyn Profile> = match profile {
            ProfileName::Clean => Box::new(Clean),
            ProfileName::Human => Box::new(Human::default()),
            ProfileName::Real => Box::new(Real::default()),
        };
        let session = sim::simulate(game, profile.as_mut(), seed.wrapping_add(i as u64), rotated);
        let meta = vec![("board".to_string(), "1".to_string())];
        let path = out.join(format!("game-{:04}.capture", i + 1));
        let text = sim::dgt::capture_text(&session, &meta);
        fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_desk_is_opened_where_this_machine_reaches_it() {
        let at = |a: &str| desk_url(a.parse().unwrap());
        assert_eq!(at("127.0.0.1:8080"), "http://127.0.0.1:8080/desk");
        assert_eq!(at("0.0.0.0:8081"), "http://127.0.0.1:8081/desk");
        assert_eq!(at("[::]:8080"), "http://[::1]:8080/desk");
        assert_eq!(at("192.168.1.5:80"), "http://192.168.1.5:80/desk");
    }
}
