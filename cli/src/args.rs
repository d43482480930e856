//! The command line's words: clap's definitions of every subcommand and
//! its options (the help text is their doc comments).

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

use crate::{platform, trf};

/// Bridges electronic chess boards to live broadcasts and arbiters.
#[derive(Debug, Parser)]
#[command(name = "boardcast", version = platform::VERSION, about)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
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
        game: Option<OtherGameName>,
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
pub(crate) enum Correction {
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
pub(crate) enum ReportFormat {
    Html,
    Json,
}

/// An arbiter's decision, as typed.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub(crate) enum DecisionArg {
    Confirmed,
    Dismissed,
    Handled,
}

#[derive(Debug, clap::Args)]
pub(crate) struct DemoArgs {
    /// Simulated boards.
    #[arg(long, default_value_t = 8)]
    pub(crate) boards: usize,
    /// How many times faster than real play (long thinks are cut short).
    #[arg(long, default_value_t = 6.0)]
    pub(crate) speed: f64,
    /// Address of the live page.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub(crate) web: std::net::SocketAddr,
    /// The MQTT broker; an embedded one is started there if none listens.
    #[arg(long, default_value = "127.0.0.1:18830")]
    pub(crate) broker: std::net::SocketAddr,
    /// Address of the LiveChess-compatible API (skipped with a warning
    /// when the port is taken).
    #[arg(long, default_value = "127.0.0.1:1982")]
    pub(crate) livechess: std::net::SocketAddr,
    /// Seed of the players' habits, the games' order and the faults.
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    /// Board families to mix, given to the boards in turn: dgt,
    /// millennium, open (chess boards on the open protocol).
    #[arg(long, value_delimiter = ',', default_value = "dgt", value_parser = parse_family)]
    pub(crate) families: Vec<boardcast::family::Family>,
    /// Games to mix, given to the boards in turn: chess (on the families
    /// above), draughts, xiangqi (open-protocol boards, one game each).
    #[arg(long, value_delimiter = ',', default_value = "chess", value_parser = parse_demo_game)]
    pub(crate) games: Vec<boardcast::event::GameId>,
    /// Put the boards on pseudo-terminals in a temporary folder (Unix)
    /// instead of in-process lines, so other programs can open them as
    /// serial ports too.
    #[cfg(unix)]
    #[arg(long)]
    pub(crate) pty: bool,
}

/// A game the demo can simulate.
pub(crate) fn parse_demo_game(name: &str) -> Result<boardcast::event::GameId, String> {
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
pub(crate) fn parse_family(name: &str) -> Result<boardcast::family::Family, String> {
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
pub(crate) enum ProfileName {
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
pub(crate) enum OtherGameName {
    /// English draughts (PDN games).
    Draughts,
    /// Xiangqi (PGN games with WXF or ICCS movetext).
    Xiangqi,
}

/// The board a draughts or xiangqi game is simulated on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum GameBoard {
    /// The open protocol (`hello`, `board`, `up`/`down` lines).
    Open,
    /// A Certabo board in occupancy mode (Tabutronic frames; draughts only).
    Tabutronic,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum YesNo {
    /// Yes.
    Yes,
    /// No.
    No,
}
