//! The `boardcast` command line: the words in [`args`], each subcommand's
//! runner in its own module.

mod args;
mod check;
mod correct;
mod demo;
mod inspect;
mod pipe;
mod platform;
mod replay;
mod report;
mod serve;
mod simulate;
mod trf;

use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Parser;

use args::{Cli, Command, YesNo};
use serve::Start;

fn main() -> ExitCode {
    pipe::quiet_on_closed_pipe();
    // No arguments: the help in a terminal (clap's, as ever); the work
    // itself when started without one (a double-click, the Start menu).
    if std::env::args_os().len() == 1 && platform::started_without_terminal() {
        return serve::double_click();
    }
    pipe::exit_code(run(Cli::parse()))
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Run {
            config,
            web,
            broker,
            data,
        } => match config {
            Some(path) => serve::run_daemon(&path),
            None if platform::default_config().exists() => {
                serve::run_daemon(&platform::default_config())
            }
            None => serve::first_run(
                web,
                broker,
                data.unwrap_or_else(platform::data_dir),
                Start::Terminal,
            ),
        },
        Command::Hub { config } => serve::run_hub(&config),
        Command::Demo(args) => serve::demo(args),
        Command::Correct {
            config,
            board,
            timeout,
            correction,
        } => correct::send_correction(&config, &board, correction, timeout),
        Command::Check { config, wait } => check::check_boards(&config, wait),
        Command::Ports => inspect::ports(),
        Command::Trf { command } => trf::run(command),
        Command::CheckConfig { file } => {
            inspect::check_config(&file.unwrap_or_else(platform::default_config))
        }
        Command::Report {
            config,
            round,
            format,
            out,
        } => report::report(&config, round, format, out.as_deref()),
        Command::Replay {
            capture,
            pgn,
            events,
            evidence,
        } => {
            replay::replay(&capture, pgn.as_deref(), events.as_deref())?;
            match evidence {
                Some(dir) => replay::evidence_slices(&capture, &dir),
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
        } => simulate::simulate_open(
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
        } => simulate::simulate(
            &pgn.context("--pgn names the games")?,
            &out,
            profile,
            seed,
            rotated,
            limit,
        ),
    }
}
