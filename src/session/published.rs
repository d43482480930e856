//! A resumed game checked against what the earlier session published:
//! the PGN file the recorder keeps beside its capture. A resume that
//! finds fewer games or moves than that record (readings lost in a gap
//! of the recording, a capture cut short) raises an action alert, so the
//! arbiter restores the game rather than the board going on from an
//! earlier move unnoticed.

use std::path::Path;

use tracing::warn;

use super::Session;
use crate::event::{Alert, AlertKind, EventKind};

/// How many games a PGN text holds and how many plies its last one has
/// (`None` for a text without a game). Tags, comments, variations, move
/// numbers, NAGs and result tokens are not moves.
pub fn games_and_last_plies(pgn: &str) -> Option<(usize, usize)> {
    let mut games = 0;
    let mut plies = 0;
    let mut result = String::new();
    let mut depth = 0usize;
    for line in pgn.lines() {
        let line = line.trim();
        if let Some(tag) = line.strip_prefix('[') {
            if tag.starts_with("Event ") {
                games += 1;
                plies = 0;
            }
            if let Some(v) = tag.strip_prefix("Result ") {
                result = v.trim_end_matches(']').trim().trim_matches('"').to_string();
            }
            continue;
        }
        if line.starts_with(';') || line.starts_with('%') {
            continue;
        }
        let mut text = String::with_capacity(line.len());
        for c in line.chars() {
            match c {
                '{' | '(' => depth += 1,
                '}' | ')' => depth = depth.saturating_sub(1),
                c if depth == 0 => text.push(c),
                _ => {}
            }
        }
        for token in text.split_whitespace() {
            let mv = token.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
            let numbered = mv.len() < token.len() && token[..token.len() - mv.len()].contains('.');
            let mv = if numbered { mv } else { token };
            let not_a_move = mv.is_empty()
                || mv.starts_with('$')
                || mv == result
                || ["1-0", "0-1", "1/2-1/2", "*"].contains(&mv);
            if !not_a_move {
                plies += 1;
            }
        }
    }
    (games > 0).then_some((games, plies))
}

impl Session {
    /// After a resume from `capture`: the game taken up against the PGN
    /// the earlier session wrote beside it. Fewer games, or fewer moves
    /// in the last one, raise an [`AlertKind::Unrecognised`] action alert
    /// (published with the board's first events) and a warning.
    pub(super) fn check_resume_against_record(&mut self, capture: &Path) {
        let pgn = capture.with_extension("pgn");
        let Ok(text) = std::fs::read_to_string(&pgn) else {
            return;
        };
        let Some((games, plies)) = games_and_last_plies(&text) else {
            return;
        };
        let have = (
            self.log.games().len(),
            self.log.current().map_or(0, |g| g.sans.len()),
        );
        if have >= (games, plies) {
            return;
        }
        warn!(
            record = %pgn.display(),
            published_games = games,
            published_plies = plies,
            resumed_games = have.0,
            resumed_plies = have.1,
            "the resumed game is shorter than the record the earlier session published"
        );
        let message = if have.0 < games {
            format!(
                "Taken up after a restart, the board's record has {} game(s) but {games} were published: \
                 the recording lost readings (a gap). Restore the game from the published record ({}).",
                have.0,
                file_name(&pgn)
            )
        } else {
            format!(
                "Taken up after a restart, the game has {} of the {plies} moves (plies) published: \
                 the recording lost readings (a gap), and the moves after ply {} are not known. \
                 Restore the game from the published record ({}).",
                have.1,
                have.1,
                file_name(&pgn)
            )
        };
        let at = self.pipeline.now();
        self.pipeline.push_event(
            at,
            EventKind::Alert(Alert {
                kind: AlertKind::Unrecognised,
                side: None,
                law: None,
                message,
                cleared: false,
                evidence: None,
            }),
        );
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_and_plies_are_counted_without_numbers_comments_or_results() {
        let pgn = "[Event \"?\"]\n[Result \"1-0\"]\n\n1. e4 {[%clk 1:30:00]} e5 2. Nf3 (2. f4 exf4) Nc6 $1 3... a6 1-0\n\n\
                   [Event \"?\"]\n[Result \"*\"]\n\n1.d4 d5 2.c4 *\n";
        assert_eq!(games_and_last_plies(pgn), Some((2, 3)));
        let pdn =
            "[Event \"?\"]\n[GameType \"21\"]\n[Result \"2-0\"]\n\n1. 11-15 22-18 2. 15x22 2-0\n";
        assert_eq!(games_and_last_plies(pdn), Some((1, 3)));
        assert_eq!(games_and_last_plies(""), None);
    }
}
