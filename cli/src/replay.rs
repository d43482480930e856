//! `boardcast replay`: a capture replayed through the live pipeline, its
//! games and events written out, and the evidence slices of its alerts.

use std::fs;
use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};

use boardcast::replay::replay_file;
use boardcast::track::Config;

/// `boardcast replay --evidence DIR`: one capture slice per error or
/// action alert, each checked to raise its alert again.
pub(crate) fn evidence_slices(capture: &Path, dir: &Path) -> Result<()> {
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

/// `boardcast replay CAPTURE`: the games as PGN (PDN, xiangqi PGN) to
/// `pgn` or standard output, every event to `events`.
pub(crate) fn replay(capture: &Path, pgn: Option<&Path>, events: Option<&Path>) -> Result<()> {
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
