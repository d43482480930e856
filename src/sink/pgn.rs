//! PGN text of a published game.

use super::record::GameRecord;
use crate::clock::hms;

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

/// A tag value as PGN writes it: backslash and quote escaped, and every
/// control character (a newline above all, which would let a name write
/// movetext) replaced by a space, so a value never leaves its tag line.
fn escape(value: &str) -> String {
    value
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
}

/// Renders a game as PGN: the Seven Tag Roster, `Variant`/`SetUp`/`FEN`
/// for Chess960 or another start, extra tags, the mainline in SAN wrapped at
/// 79 columns, and the result.
///
/// Design: an illegal move that stood (play went on from the position it
/// made) has no place in a PGN mainline, and a PGN reader rejects the whole
/// game if it is written there; relay tools then freeze the broadcast. So an
/// irregular game is written as consecutive PGN games: the legal part, ending
/// with a comment naming the illegal move, then the continuation from the
/// position after it (`SetUp`/`FEN`), and so on. Every part is valid PGN.
///
/// A game other than chess is written in its own record format instead
/// ([`render_record`]).
pub fn render(game: &GameRecord, tags: &Tags) -> String {
    // The event's date when configured, else the day the game started.
    let dated;
    let tags = match &game.date {
        Some(date) if tags.date.starts_with('?') => {
            dated = Tags {
                date: date.clone(),
                ..tags.clone()
            };
            &dated
        }
        _ => tags,
    };
    if game.game != crate::event::GameId::Chess {
        return render_record(game, tags);
    }
    let comments = clock_comments(game);
    let mut out = String::new();
    let mut begin = 0;
    let mut fen = game.start_fen.clone();
    let cuts: Vec<usize> = (0..game.sans.len())
        .filter(|&i| game.irregular.get(i) == Some(&true))
        .collect();
    for part in 0..=cuts.len() {
        let end = cuts.get(part).copied().unwrap_or(game.sans.len());
        let last = part == cuts.len();
        let result = if last { game.result_token() } else { "*" };
        write_tags(&mut out, tags, result, game.chess960, &fen);
        if last {
            write_clock_tags(&mut out, game, result);
        }
        out.push('\n');
        let mut words = Vec::new();
        if part > 0 {
            let i = cuts[part - 1];
            words.push(format!(
                "{{ Continued after the illegal move {} which stood (Law 7.5a). }}",
                numbered(&game.fens, &game.start_fen, i, &game.sans[i])
            ));
        } else if let Some(first) = game.irregularities.first().filter(|_| cuts.is_empty()) {
            words.push(format!("{{ {} }}", first.message.replace(['{', '}'], "")));
        }
        movetext(&mut words, game, &comments, begin..end, &fen);
        if !last {
            let i = cuts[part];
            words.push(format!(
                "{{ Here {} played the illegal move {}; play went on from the position after it, given in the next game. }}",
                if game.fens.get(i).and_then(|f| f.split(' ').nth(1)) == Some("w") { "Black" } else { "White" },
                numbered(&game.fens, &game.start_fen, i, &game.sans[i])
            ));
        }
        words.push(result.to_string());
        wrap(&mut out, &words);
        out.push_str("\n\n");
        if !last {
            begin = cuts[part] + 1;
            fen = game.fens[cuts[part]].clone();
        }
    }
    out
}

/// The clock tags of a game's last part: the clocks of a game in
/// progress (relay tools show them), and a note when the times are
/// estimated.
fn write_clock_tags(out: &mut String, game: &GameRecord, result: &str) {
    if result == "*"
        && let Some((white, black)) = game.clock
    {
        out.push_str(&format!(
            "[WhiteClock \"{}\"]\n[BlackClock \"{}\"]\n",
            hms(white),
            hms(black)
        ));
    }
    if game.clock_estimated {
        out.push_str("[ClockNote \"clock times estimated from move times, no clock connected\"]\n");
    }
}

/// The moves `plies` of `game`, played from `fen`, with their numbers and
/// clock comments, as movetext words.
fn movetext(
    words: &mut Vec<String>,
    game: &GameRecord,
    comments: &[Option<String>],
    plies: std::ops::Range<usize>,
    fen: &str,
) {
    let begin = plies.start;
    let (mut number, mut white) = move_number(fen);
    for (k, san) in game.sans[plies].iter().enumerate() {
        // A move number stays on the line of its move.
        if white {
            words.push(format!("{number}. {san}"));
        } else if k == 0 {
            words.push(format!("{number}... {san}"));
        } else {
            words.push(san.clone());
        }
        if let Some(Some(comment)) = comments.get(begin + k) {
            words.push(format!("{{{comment}}}"));
        }
        if !white {
            number += 1;
        }
        white = !white;
    }
}

fn write_tags(out: &mut String, tags: &Tags, result: &str, chess960: bool, fen: &str) {
    let mut tag = |name: &str, value: &str| {
        out.push_str(&format!("[{name} \"{}\"]\n", escape(value)));
    };
    tag("Event", &tags.event);
    tag("Site", &tags.site);
    tag("Date", &tags.date);
    tag("Round", &tags.round);
    tag("White", &tags.white);
    tag("Black", &tags.black);
    tag("Result", result);
    if chess960 {
        tag("Variant", "Chess960");
    }
    if chess960 || fen != STANDARD_START {
        tag("SetUp", "1");
        tag("FEN", fen);
    }
    for (name, value) in &tags.extra {
        tag(name, value);
    }
}

/// The move number and whether White moves, from a FEN.
fn move_number(fen: &str) -> (u32, bool) {
    let mut fields = fen.split(' ');
    let white = fields.nth(1) != Some("b");
    let number = fields.nth(3).and_then(|n| n.parse().ok()).unwrap_or(1);
    (number, white)
}

/// "23. Bc1-h6" or "23... Bc8-h3" for ply index `i`.
fn numbered(fens: &[String], start: &str, i: usize, san: &str) -> String {
    let before = if i == 0 { start } else { &fens[i - 1] };
    let (number, white) = move_number(before);
    format!("{number}{} {san}", if white { "." } else { "..." })
}

fn wrap(out: &mut String, words: &[String]) {
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
        line.push_str(w);
    }
    out.push_str(&line);
}

/// The clock comment of each ply, when a press told it: `[%clk 0:04:58]
/// [%emt 0:00:07]`, as the PGN of chess writes them.
fn clock_comments(game: &GameRecord) -> Vec<Option<String>> {
    (0..game.sans.len())
        .map(|i| {
            let clk = game.clks.get(i).copied().flatten()?;
            Some(match game.emts.get(i).copied().flatten() {
                Some(emt) => format!("[%clk {}] [%emt {}]", hms(clk), hms(emt)),
                None => format!("[%clk {}]", hms(clk)),
            })
        })
        .collect()
}

/// A draughts or xiangqi game in the game's own record format, with no
/// roster tags (PDN, xiangqi PGN: [`crate::games::Game::record_text`]);
/// `None` for chess, which [`render`] writes.
pub fn record_text(game: &GameRecord) -> Option<String> {
    use crate::event::GameId;
    use crate::games::Game;
    let plies: Vec<(String, String)> = game
        .ucis
        .iter()
        .cloned()
        .zip(game.fens.iter().cloned())
        .collect();
    let result = game.result.as_deref();
    let comments = clock_comments(game);
    Some(match game.game {
        GameId::Draughts => {
            crate::games::draughts::Draughts.record_text(&game.start_fen, &plies, &comments, result)
        }
        GameId::Xiangqi => crate::games::xiangqi::Xiangqi::default().record_text(
            &game.start_fen,
            &plies,
            &comments,
            result,
        ),
        GameId::Chess => return None,
    })
}

/// Renders a draughts or xiangqi game in the game's own record format
/// (PDN with `[GameType "21"]`; PGN with `[Variant "xiangqi"]`, a `FEN`
/// tag and WXF movetext), as `boardcast replay --pgn` writes it, with the
/// known roster values filled in: `Event`, `Site`, `Date`, `Round`, and the
/// players (`White`/`Black` in PDN; `Red` is the pairing's first player,
/// `white`, and `Black` the second, in xiangqi).
pub fn render_record(game: &GameRecord, tags: &Tags) -> String {
    use crate::event::GameId;
    let Some(text) = record_text(game) else {
        return String::new();
    };
    let first = if game.game == GameId::Xiangqi {
        "Red"
    } else {
        "White"
    };
    let roster = [
        ("Event", tags.event.as_str()),
        ("Site", tags.site.as_str()),
        ("Date", tags.date.as_str()),
        ("Round", tags.round.as_str()),
        (first, tags.white.as_str()),
        ("Black", tags.black.as_str()),
    ];
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut header_end = lines
        .iter()
        .position(|l| !l.starts_with('['))
        .unwrap_or(lines.len());
    // After the record's first tag (PDN's `GameType`).
    let mut insert_at = header_end.min(1);
    for (key, value) in roster {
        if value.starts_with('?') {
            continue;
        }
        let line = format!("[{key} \"{}\"]", escape(value));
        let prefix = format!("[{key} \"");
        match lines[..header_end]
            .iter()
            .position(|l| l.starts_with(&prefix))
        {
            Some(i) => lines[i] = line,
            None => {
                lines.insert(insert_at, line);
                insert_at += 1;
                header_end += 1;
            }
        }
    }
    let mut out = lines.join("\n");
    out.push('\n');
    if !out.ends_with("\n\n") {
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_game_has_the_roster_and_numbered_moves() {
        let g = GameRecord {
            start_fen: STANDARD_START.into(),
            sans: vec!["e4".into(), "e5".into(), "Nf3".into()],
            ..GameRecord::default()
        };
        let pgn = render(&g, &Tags::default());
        assert!(pgn.starts_with("[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n"));
        assert!(pgn.contains("[Result \"*\"]\n\n1. e4 e5 2. Nf3 *\n"));
        assert!(!pgn.contains("FEN"));
    }

    #[test]
    fn a_game_carries_the_day_it_started_unless_the_event_date_is_set() {
        let g = GameRecord {
            start_fen: STANDARD_START.into(),
            date: Some("2026.11.24".into()),
            ..GameRecord::default()
        };
        assert!(render(&g, &Tags::default()).contains("[Date \"2026.11.24\"]"));
        let tags = Tags {
            date: "2026.11.20".into(),
            ..Tags::default()
        };
        assert!(render(&g, &tags).contains("[Date \"2026.11.20\"]"));
        assert_eq!(crate::wall::pgn_date_at(1_795_478_400_000), "2026.11.24");
    }

    #[test]
    fn a_newline_in_a_tag_value_never_writes_movetext() {
        let tags = Tags {
            white: "Evil\n\n1. f3 e5 2. g4 Qh4#\n\"0-1\"".into(),
            ..Tags::default()
        };
        let g = GameRecord {
            start_fen: STANDARD_START.into(),
            ..GameRecord::default()
        };
        let text = render(&g, &tags);
        let white = text.lines().find(|l| l.starts_with("[White ")).unwrap();
        assert_eq!(white, "[White \"Evil  1. f3 e5 2. g4 Qh4# \\\"0-1\\\"\"]");
        assert!(!text.lines().any(|l| l.starts_with("1.")));
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

#[cfg(test)]
mod clock_tests {
    use super::*;

    #[test]
    fn moves_carry_clk_and_emt_and_a_game_in_progress_its_clocks() {
        let g = GameRecord {
            start_fen: STANDARD_START.into(),
            sans: vec!["e4".into(), "e5".into()],
            clks: vec![Some(5398), None],
            emts: vec![Some(2), None],
            clock: Some((5398, 5391)),
            ..GameRecord::default()
        };
        let pgn = render(&g, &Tags::default());
        assert!(
            pgn.contains("1. e4 {[%clk 1:29:58] [%emt 0:00:02]} e5 *"),
            "{pgn}"
        );
        assert!(pgn.contains("[WhiteClock \"1:29:58\"]\n[BlackClock \"1:29:51\"]\n"));
    }
}

#[cfg(test)]
mod irregular_tests {
    use super::*;

    #[test]
    fn an_illegal_move_that_stood_splits_the_game_into_valid_parts() {
        let g = GameRecord {
            start_fen: STANDARD_START.into(),
            sans: vec!["e4".into(), "Bc8-h3".into(), "gxh3".into(), "e5".into()],
            fens: vec![
                "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1".into(),
                "rn1qkbnr/pppppppp/8/8/4P3/7b/PPPP1PPP/RNBQKBNR w KQkq - 1 2".into(),
                "rn1qkbnr/pppppppp/8/8/4P3/7P/PPPP1P1P/RNBQKBNR b KQkq - 0 2".into(),
                "rn1qkbnr/pppp1ppp/8/4p3/4P3/7P/PPPP1P1P/RNBQKBNR w KQkq - 0 3".into(),
            ],
            irregular: vec![false, true, false, false],
            ..GameRecord::default()
        };
        let pgn = render(&g, &Tags::default());
        let flat = pgn.replace('\n', " ");
        let parts: Vec<&str> = flat.split("[Event").filter(|p| !p.is_empty()).collect();
        assert_eq!(parts.len(), 2);
        assert!(parts[0].contains("1. e4 { Here Black played the illegal move 1... Bc8-h3;"));
        assert!(
            parts[1]
                .contains("[FEN \"rn1qkbnr/pppppppp/8/8/4P3/7b/PPPP1PPP/RNBQKBNR w KQkq - 1 2\"]")
        );
        assert!(parts[1].contains("2. gxh3 e5 *"));
    }
}
