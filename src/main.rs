//! The `boardcast` command line.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand, ValueEnum};

use boardcast::board::Config;
use boardcast::replay::replay_file;
use boardcast::sim::{self, Clean, Human, Profile};
use boardcast::sink::pgn::{Tags, render};

/// Bridges electronic chess boards to live broadcasts and arbiters.
#[derive(Debug, Parser)]
#[command(name = "boardcast", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
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
    },
    /// Play the games of a PGN file on a simulated DGT board and write one
    /// capture per game.
    Simulate {
        /// Games to play.
        #[arg(long)]
        pgn: PathBuf,
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
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ProfileName {
    /// Textbook handling: lift, set down.
    Clean,
    /// Real players' habits (design section 3).
    Human,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // One line: the error and its causes.
            let chain: Vec<String> = e.chain().map(|c| c.to_string()).collect();
            eprintln!("boardcast: {}", chain.join(": "));
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Replay {
            capture,
            pgn,
            events,
        } => replay(&capture, pgn.as_deref(), events.as_deref()),
        Command::Simulate {
            pgn,
            out,
            profile,
            seed,
            rotated,
            limit,
        } => simulate(&pgn, &out, profile, seed, rotated, limit),
    }
}

fn replay(capture: &Path, pgn: Option<&Path>, events: Option<&Path>) -> Result<()> {
    let replay = replay_file(capture, Config::default())?;
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
    let mut text = String::new();
    for game in replay.log.games() {
        text.push_str(&render(game, &Tags::default()));
    }
    match pgn {
        Some(path) => {
            fs::write(path, text).with_context(|| format!("writing {}", path.display()))?
        }
        None if events.is_none() => std::io::stdout().write_all(text.as_bytes())?,
        None => {}
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
        };
        let session = sim::simulate(game, profile.as_mut(), seed.wrapping_add(i as u64), rotated);
        let meta = vec![("board".to_string(), "1".to_string())];
        let path = out.join(format!("game-{:04}.capture", i + 1));
        let text = sim::dgt::capture_text(&session, &meta);
        fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}
