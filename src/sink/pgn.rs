//! PGN text of a published game.

use super::record::GameRecord;

/// Tags of a game beyond the moves: the Seven Tag Roster values and any
/// extra tags, in order. Unknown values are `?`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tags {
    /// `Event`.
    pub event: String,
    /// `Site`.
    pub site: String,
    /// `Date` as `YYYY.MM.DD` (with `??` where unknown).
    pub date: String,
    /// `Round`.
    pub round: String,
    /// `White`.
    pub white: String,
    /// `Black`.
    pub black: String,
    /// Further tags after the roster.
    pub extra: Vec<(String, String)>,
}

impl Default for Tags {
    fn default() -> Self {
        Tags {
            event: "?".into(),
            site: "?".into(),
            date: "????.??.??".into(),
            round: "?".into(),
            white: "?".into(),
            black: "?".into(),
            extra: Vec::new(),
        }
    }
}

/// FEN of the standard start position.
pub const STANDARD_START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

fn escape(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Renders a game as PGN: the Seven Tag Roster, `Variant`/`SetUp`/`FEN`
/// for Chess960, extra tags, the mainline in SAN wrapped at 79 columns,
/// and the result.
pub fn render(game: &GameRecord, tags: &Tags) -> String {
    let mut out = String::new();
    let mut tag = |name: &str, value: &str| {
        out.push_str(&format!("[{name} \"{}\"]\n", escape(value)));
    };
    tag("Event", &tags.event);
    tag("Site", &tags.site);
    tag("Date", &tags.date);
    tag("Round", &tags.round);
    tag("White", &tags.white);
    tag("Black", &tags.black);
    tag("Result", game.result_token());
    if game.chess960 {
        tag("Variant", "Chess960");
    }
    if game.chess960 || game.start_fen != STANDARD_START {
        tag("SetUp", "1");
        tag("FEN", &game.start_fen);
    }
    for (name, value) in &tags.extra {
        tag(name, value);
    }
    if !game.irregularities.is_empty() {
        let first = &game.irregularities[0];
        tag("Annotator", "boardcast");
        out.push_str(&format!(
            "{{ Irregular game: {} }}\n",
            first.message.replace(['{', '}'], "")
        ));
    }
    out.push('\n');
    let black_starts = game.start_fen.split(' ').nth(1) == Some("b");
    let mut words = Vec::with_capacity(game.sans.len() * 3 / 2 + 1);
    for (i, san) in game.sans.iter().enumerate() {
        let ply = i + usize::from(black_starts);
        if ply % 2 == 0 {
            words.push(format!("{}.", ply / 2 + 1));
        } else if i == 0 {
            words.push(format!("{}...", ply / 2 + 1));
        }
        words.push(san.clone());
    }
    words.push(game.result_token().to_string());
    let mut line = String::new();
    for w in words {
        if !line.is_empty() && line.len() + 1 + w.len() > 79 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&w);
    }
    out.push_str(&line);
    out.push_str("\n\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_game_has_the_roster_and_numbered_moves() {
        let g = GameRecord {
            start_fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into(),
            sans: vec!["e4".into(), "e5".into(), "Nf3".into()],
            ..GameRecord::default()
        };
        let pgn = render(&g, &Tags::default());
        assert!(pgn.starts_with("[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n"));
        assert!(pgn.contains("[Result \"*\"]\n\n1. e4 e5 2. Nf3 *\n"));
        assert!(!pgn.contains("FEN"));
    }

    #[test]
    fn chess960_game_names_variant_and_fen() {
        let g = GameRecord {
            start_fen: "nrqkbrnb/pppppppp/8/8/8/8/PPPPPPPP/NRQKBRNB w KQkq - 0 1".into(),
            chess960: true,
            result: Some("1-0".into()),
            ..GameRecord::default()
        };
        let pgn = render(&g, &Tags::default());
        assert!(pgn.contains("[Variant \"Chess960\"]\n[SetUp \"1\"]\n[FEN \"nrqkbrnb/"));
        assert!(pgn.trim_end().ends_with("1-0"));
    }

    #[test]
    fn long_games_wrap_below_80_columns() {
        let g = GameRecord {
            start_fen: STANDARD_START.into(),
            sans: vec!["Nf3".into(); 200],
            ..GameRecord::default()
        };
        assert!(render(&g, &Tags::default()).lines().all(|l| l.len() < 80));
    }
}
