//! `boardcast trf`: a round's pairings as boardcast reads them from a FIDE
//! TRF file, and the round's results written back into it from the PGN the
//! boards recorded (for the pairing program to import).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::Subcommand;

use boardcast::tournament::trf::{self, Trf};
use boardcast::tournament::{Pairings, parse_trf, read_pairings_bytes};

/// What `boardcast trf` does.
#[derive(Debug, Subcommand)]
pub(crate) enum TrfCommand {
    /// Print a round's boards as boardcast reads them from a TRF file
    /// (board order, players, byes).
    Pairings {
        /// The TRF file the pairing program exported.
        #[arg(long)]
        pairings: PathBuf,
        /// The round (default: the last round with a board; a later round
        /// with only byes entered is named, not read).
        #[arg(long)]
        round: Option<u32>,
    },
    /// Fill a round's results into a TRF file from PGN games (`Round` tags
    /// `round.board`, as the PGN folder writes them in
    /// `{pgn_dir}/round-N/games.pgn`), every other byte as read. Results
    /// the file holds already and the games contradict are listed.
    Results {
        /// The TRF file the pairing program exported.
        #[arg(long)]
        pairings: PathBuf,
        /// PGN files with the round's games (repeatable).
        #[arg(long, required = true)]
        pgn: Vec<PathBuf>,
        /// Where to write the TRF file with the results (default: standard
        /// output).
        #[arg(long)]
        out: Option<PathBuf>,
        /// The round (default: the last round with a board; a later round
        /// with only byes entered is named, not read).
        #[arg(long)]
        round: Option<u32>,
        /// Exit non-zero when a result differs between a game and the file.
        #[arg(long)]
        check: bool,
    },
}

/// Runs `boardcast trf ...`.
pub(crate) fn run(command: TrfCommand) -> Result<()> {
    match command {
        TrfCommand::Pairings { pairings, round } => print_pairings(&pairings, round),
        TrfCommand::Results {
            pairings,
            pgn,
            out,
            round,
            check,
        } => results(&pairings, &pgn, out.as_deref(), round, check),
    }
}

/// Reads a TRF file and the round to use: `asked` when the file pairs it,
/// else the last round with a board ([`Trf::round_of_record`]); a later
/// round with only byes entered is named on standard error, in one line.
fn read(path: &Path, asked: Option<u32>) -> Result<(Trf, u32)> {
    let bytes = read_pairings_bytes(path)?;
    let file = parse_trf(&bytes, &path.display().to_string())?;
    let round = match file.round_of_record(asked) {
        Ok(read) => {
            if let Some(later) = &read.later {
                eprintln!("boardcast: {}: {}", path.display(), later.note(read.round));
            }
            read.round
        }
        Err(why) => bail!("{}: {why}", path.display()),
    };
    if let Some(asked) = asked
        && asked != round
    {
        bail!(
            "{}: round {asked} is not paired (the file pairs rounds {:?})",
            path.display(),
            file.paired_rounds()
        );
    }
    Ok((file, round))
}

fn print_pairings(path: &Path, asked: Option<u32>) -> Result<()> {
    let (file, round) = read(path, asked)?;
    println!("round {round}");
    let name = |p: &boardcast::tournament::Player| {
        let mut s = p.name.clone();
        for extra in [p.title.clone(), p.rating.map(|r| r.to_string())]
            .into_iter()
            .flatten()
        {
            s.push_str(&format!(" {extra}"));
        }
        s
    };
    let pairings = file.pairings(round);
    for (b, p) in file.boards(round).iter().zip(&pairings.pairings) {
        println!(
            "board {}: {} - {}{}",
            p.board,
            name(&p.white),
            name(&p.black),
            b.file_result()
                .map(|r| format!("  ({r})"))
                .unwrap_or_default()
        );
    }
    for (rank, code) in file.byes(round) {
        let what = code.map_or("not paired".to_string(), |c| format!("bye {}", c.letter()));
        println!("no board: {} ({what})", file.player(rank).name);
    }
    Ok(())
}

fn results(
    path: &Path,
    pgn: &[PathBuf],
    out: Option<&Path>,
    asked: Option<u32>,
    check: bool,
) -> Result<()> {
    let (file, round) = read(path, asked)?;
    let pairings: Pairings = file.pairings(round);
    let mut games: BTreeMap<u32, String> = BTreeMap::new();
    for p in pgn {
        let text = fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?;
        let found = trf::pgn_results(&text, round, &pairings)
            .map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
        games.extend(found);
    }
    let filled = file.fill_results(round, &games);
    match out {
        Some(out) => {
            fs::write(out, &filled.bytes).with_context(|| format!("writing {}", out.display()))?
        }
        None => {
            use std::io::Write;
            std::io::stdout().write_all(&filled.bytes)?;
        }
    }
    let finished = games.values().filter(|r| r.trim() != "*").count();
    eprintln!(
        "boardcast: round {round}: {} boards, {finished} finished games, {} results written, {} differing",
        pairings.pairings.len(),
        filled.written.len(),
        filled.conflicts.len()
    );
    for c in &filled.conflicts {
        eprintln!("boardcast: result differs: {c}");
    }
    if check && !filled.conflicts.is_empty() {
        bail!(
            "{} result(s) differ between the games and {}",
            filled.conflicts.len(),
            path.display()
        );
    }
    Ok(())
}

/// `boardcast check-config`: the configured pairings file read as the
/// daemon reads it (`round`: `[event] round`); one line saying what it
/// gives, or the error.
pub(crate) fn check_pairings(path: &Path, round: Option<u32>) -> Result<String> {
    let file = boardcast::tournament::read_pairings_file(path, round)?;
    let p = &file.pairings;
    let round = p.round.map(|r| format!("round {r}, ")).unwrap_or_default();
    let mut line = format!(
        "pairings {}: {round}{} board(s)",
        path.display(),
        p.pairings.len()
    );
    if let Some(why) = &file.not_paired {
        line.push_str(&format!(" ({why})"));
    }
    Ok(line)
}
