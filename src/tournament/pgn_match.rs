//! A round's results from PGN games, for writing them back into a TRF
//! file: each game is matched to its pairing by its players (`White`,
//! `Black`), and a `Round` tag whose board number names another pairing is
//! an error naming both.
//!
//! Design: the players are what the arbiter checks on the scoresheet; a
//! board number is easy to get wrong (a board moved, a game recorded on
//! the wrong board), and a result written on the wrong pairing is a wrong
//! rating report. So the players decide, and a disagreement stops the
//! write-back instead of being guessed at.

use std::collections::BTreeMap;

use super::{Pairing, Pairings};

/// A game whose `Round` tag and players disagree with the round's
/// pairings.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct GameMismatch(pub String);

/// The results of `round` in PGN text (as the PGN folder writes
/// `games.pgn`), board by board: each game with a `Result` whose `Round`
/// tag (`round` or `round.board`) is this round, or has no round, is
/// matched to the pairing of its `White` and `Black` (case and spacing
/// aside; a game naming no players, by its board number). A game whose
/// board number names another pairing than its
/// players', or whose players are paired with the colours the other way
/// round, is an error naming both; a game whose players are not paired
/// and whose board is not paired either (a spare board) is skipped. A
/// later game of a board wins over an earlier one.
pub fn pgn_results(
    text: &str,
    round: u32,
    pairings: &Pairings,
) -> Result<BTreeMap<u32, String>, GameMismatch> {
    let mut results = BTreeMap::new();
    for tags in pgn_headers(text) {
        let get = |k: &str| {
            tags.iter()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v.trim().to_string())
        };
        let Some(result) = get("Result") else {
            continue;
        };
        let tag = get("Round").unwrap_or_default();
        let (r, b) = tag.split_once('.').unwrap_or((&tag, ""));
        if r.trim().parse::<u32>().is_ok_and(|r| r != round) {
            continue;
        }
        let (white, black) = (
            get("White").unwrap_or_default(),
            get("Black").unwrap_or_default(),
        );
        let board = b.trim().parse::<u32>().ok();
        if let Some(found) = match_game(&white, &black, board, &tag, round, pairings)? {
            results.insert(found, result);
        }
    }
    Ok(results)
}

/// The board of the game `white` - `black` whose `Round` tag `tag` names
/// `board`: its players' pairing (see [`pgn_results`]).
fn match_game(
    white: &str,
    black: &str,
    board: Option<u32>,
    tag: &str,
    round: u32,
    pairings: &Pairings,
) -> Result<Option<u32>, GameMismatch> {
    let same = |a: &str, b: &str| words(a).eq_ignore_ascii_case(&words(b));
    let by_players = pairings
        .pairings
        .iter()
        .find(|p| same(&p.white.name, white) && same(&p.black.name, black));
    let tagged = board.and_then(|b| pairings.board(b));
    let game = format!("game {white} - {black} (Round \"{tag}\")");
    let says = |b: u32, p: Option<&Pairing>| match p {
        Some(p) => format!("board {b} ({} - {})", p.white.name, p.black.name),
        None => format!("board {b} (not paired)"),
    };
    match (by_players, board) {
        (Some(p), Some(b)) if p.board != b => Err(GameMismatch(format!(
            "{game}: its Round tag names {}, its players are paired on {}",
            says(b, tagged),
            says(p.board, Some(p))
        ))),
        (Some(p), _) => Ok(Some(p.board)),
        // No players named: nothing contradicts the board number.
        (None, Some(b)) if [white, black].iter().all(|n| matches!(n.trim(), "" | "?")) => {
            Ok(tagged.map(|_| b))
        }
        (None, _) => {
            if let Some(p) = pairings
                .pairings
                .iter()
                .find(|p| same(&p.white.name, black) && same(&p.black.name, white))
            {
                return Err(GameMismatch(format!(
                    "{game}: round {round} pairs them with the other colours, on {}",
                    says(p.board, Some(p))
                )));
            }
            match (board, tagged) {
                (Some(b), Some(_)) => Err(GameMismatch(format!(
                    "{game}: its Round tag names {}, and round {round} does not pair its players",
                    says(b, tagged)
                ))),
                _ => Ok(None),
            }
        }
    }
}

/// A name with its runs of spaces as one space.
fn words(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The tag pairs of each game of a PGN text: a run of `[Key "value"]`
/// lines is one game's header.
fn pgn_headers(text: &str) -> Vec<Vec<(String, String)>> {
    let mut games: Vec<Vec<(String, String)>> = Vec::new();
    let mut in_header = false;
    for line in text.lines() {
        let line = line.trim();
        if let Some(tag) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            if !in_header {
                games.push(Vec::new());
                in_header = true;
            }
            if let Some((key, value)) = tag.split_once(' ') {
                let value = value.trim();
                let value = value
                    .strip_prefix('"')
                    .and_then(|v| v.strip_suffix('"'))
                    .unwrap_or(value)
                    .replace("\\\"", "\"")
                    .replace("\\\\", "\\");
                if let Some(g) = games.last_mut() {
                    g.push((key.to_string(), value));
                }
            }
        } else if !line.is_empty() {
            in_header = false;
        }
    }
    games
}
