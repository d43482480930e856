//! PDN records for English draughts (`[GameType "21"]`).
//!
//! Results are written `2-0` (Black, the first player, wins), `0-2` (White
//! wins), `1-1` (draw) or `*`: PDN scores a win as 2, and for GameType 21
//! the first player named in the game type (`21,B,...`) is Black, whose
//! score comes first. The reader also accepts `1-0`, `0-1`, `1/2-1/2`.

use std::fmt::Write as _;

use thiserror::Error;

use super::geometry::Color;
use super::moves::Move;
use super::notation::NotationError;
use super::position::{FenError, Position};

/// How a game ended, for the `Result` tag and the movetext.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// A side won.
    Win(Color),
    /// A draw.
    Draw,
    /// Unfinished or unknown.
    Unknown,
}

impl Outcome {
    /// As PDN writes it: `2-0`, `0-2`, `1-1`, `*`.
    #[must_use]
    pub fn pdn(self) -> &'static str {
        match self {
            Outcome::Win(Color::Black) => "2-0",
            Outcome::Win(Color::White) => "0-2",
            Outcome::Draw => "1-1",
            Outcome::Unknown => "*",
        }
    }

    fn parse(s: &str) -> Option<Outcome> {
        Some(match s {
            "2-0" | "1-0" => Outcome::Win(Color::Black),
            "0-2" | "0-1" => Outcome::Win(Color::White),
            "1-1" | "1/2-1/2" => Outcome::Draw,
            "*" => Outcome::Unknown,
            _ => return None,
        })
    }
}

/// One game of a PDN file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PdnGame {
    /// Tags other than `GameType`, `FEN` and `Result`, in order.
    pub tags: Vec<(String, String)>,
    /// The start position (from the `FEN` tag, else the standard start).
    pub start: Position,
    /// The moves, legal in sequence from `start`.
    pub moves: Vec<Move>,
    /// The result.
    pub outcome: Outcome,
}

/// A PDN text that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PdnError {
    /// A tag line that is not `[Name "value"]`.
    #[error("bad tag line {0:?}")]
    Tag(String),
    /// A `GameType` other than 21 (English draughts).
    #[error("game type {0:?} is not English draughts (21)")]
    GameType(String),
    /// A bad `FEN` tag.
    #[error("bad FEN tag")]
    Fen(#[from] FenError),
    /// A move that cannot be played.
    #[error("game {game}, ply {ply}: {source}")]
    Move {
        /// 1-based game number in the file.
        game: usize,
        /// 1-based ply.
        ply: usize,
        /// Why.
        source: NotationError,
    },
}

impl PdnGame {
    /// A game from the start position with the usual seven tags set to `?`.
    #[must_use]
    pub fn new() -> PdnGame {
        PdnGame {
            tags: ["Event", "Site", "Date", "Round", "Black", "White"]
                .iter()
                .map(|t| ((*t).to_owned(), "?".to_owned()))
                .collect(),
            start: Position::start(),
            moves: Vec::new(),
            outcome: Outcome::Unknown,
        }
    }

    /// Sets (or adds) tag `name`.
    pub fn set_tag(&mut self, name: &str, value: &str) {
        match self.tags.iter_mut().find(|(n, _)| n == name) {
            Some((_, v)) => *v = value.to_owned(),
            None => self.tags.push((name.to_owned(), value.to_owned())),
        }
    }

    /// The value of tag `name`.
    #[must_use]
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The position after every move.
    #[must_use]
    pub fn final_position(&self) -> Position {
        let mut pos = self.start;
        for m in &self.moves {
            pos.play(m);
        }
        pos
    }

    /// The game as PDN: tags (`GameType "21"` first, `FEN` when not the
    /// standard start, `Result`), then numbered moves in short notation,
    /// then the result, lines wrapped before 80 columns.
    #[must_use]
    pub fn to_pdn(&self) -> String {
        self.to_pdn_with_comments(&[])
    }

    /// The game as PDN, as [`PdnGame::to_pdn`] writes it, with a comment
    /// after each move that has one (`comments[i]` follows move `i`; its
    /// text goes inside `{}`, e.g. `[%clk 0:04:58]`).
    #[must_use]
    pub fn to_pdn_with_comments(&self, comments: &[Option<String>]) -> String {
        let mut out = String::new();
        out.push_str("[GameType \"21\"]\n");
        for (n, v) in &self.tags {
            let v = v.replace('\\', "\\\\").replace('"', "\\\"");
            let _ = writeln!(out, "[{n} \"{v}\"]");
        }
        if self.start != Position::start() {
            let _ = writeln!(out, "[FEN \"{}\"]", self.start.fen());
        }
        let _ = writeln!(out, "[Result \"{}\"]", self.outcome.pdn());
        out.push('\n');
        let mut tokens = Vec::new();
        let mut pos = self.start;
        let mut number = 1;
        for (i, m) in self.moves.iter().enumerate() {
            let text = m.notation(&pos);
            if pos.turn() == Color::Black {
                tokens.push(format!("{number}. {text}"));
            } else if i == 0 {
                tokens.push(format!("{number}... {text}"));
            } else {
                tokens.push(text);
            }
            if let Some(Some(c)) = comments.get(i) {
                tokens.push(format!("{{{}}}", c.replace(['{', '}'], "")));
            }
            if pos.turn() == Color::White {
                number += 1;
            }
            pos.play(m);
        }
        tokens.push(self.outcome.pdn().to_owned());
        let mut line = String::new();
        for t in tokens {
            if !line.is_empty() && line.len() + 1 + t.len() > 79 {
                out.push_str(&line);
                out.push('\n');
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&t);
        }
        out.push_str(&line);
        out.push_str("\n\n");
        out
    }
}

impl Default for PdnGame {
    fn default() -> PdnGame {
        PdnGame::new()
    }
}

/// Writes several games, one after another.
#[must_use]
pub fn write_pdn(games: &[PdnGame]) -> String {
    games.iter().map(PdnGame::to_pdn).collect()
}

/// Reads the games of a PDN file as this crate writes them (and similar
/// files): tag pairs, movetext with move numbers, `{comments}` and
/// `(variations)` skipped, a result token ending each game.
pub fn read_pdn(text: &str) -> Result<Vec<PdnGame>, PdnError> {
    let mut games = Vec::new();
    let mut tags: Vec<(String, String)> = Vec::new();
    let mut tokens: Vec<String> = Vec::new();
    let mut in_moves = false;
    let finish = |tags: &mut Vec<(String, String)>,
                  tokens: &mut Vec<String>,
                  games: &mut Vec<PdnGame>|
     -> Result<(), PdnError> {
        if tags.is_empty() && tokens.is_empty() {
            return Ok(());
        }
        let n = games.len() + 1;
        games.push(build(n, std::mem::take(tags), std::mem::take(tokens))?);
        Ok(())
    };
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            if in_moves {
                finish(&mut tags, &mut tokens, &mut games)?;
                in_moves = false;
            }
            tags.push(parse_tag(line)?);
        } else if !line.is_empty() {
            in_moves = true;
            tokens.extend(line.split_whitespace().map(str::to_owned));
        }
    }
    finish(&mut tags, &mut tokens, &mut games)?;
    Ok(games)
}

fn parse_tag(line: &str) -> Result<(String, String), PdnError> {
    let bad = || PdnError::Tag(line.to_owned());
    let inner = line
        .strip_prefix('[')
        .and_then(|l| l.strip_suffix(']'))
        .ok_or_else(bad)?;
    let (name, value) = inner.split_once(' ').ok_or_else(bad)?;
    let value = value
        .trim()
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .ok_or_else(bad)?;
    Ok((
        name.to_owned(),
        value.replace("\\\"", "\"").replace("\\\\", "\\"),
    ))
}

fn build(n: usize, tags: Vec<(String, String)>, tokens: Vec<String>) -> Result<PdnGame, PdnError> {
    let mut game = PdnGame {
        tags: Vec::new(),
        start: Position::start(),
        moves: Vec::new(),
        outcome: Outcome::Unknown,
    };
    for (name, value) in tags {
        match name.as_str() {
            "GameType" => {
                if value.split(',').next().map(str::trim) != Some("21") {
                    return Err(PdnError::GameType(value));
                }
            }
            "FEN" => game.start = Position::from_fen(&value)?,
            "Result" => game.outcome = Outcome::parse(&value).unwrap_or(Outcome::Unknown),
            _ => game.tags.push((name, value)),
        }
    }
    let text = tokens.join(" ");
    let text = strip_nested(&strip_nested(&text, '{', '}'), '(', ')');
    let mut pos = game.start;
    for raw in text.split_whitespace() {
        // Drop a move number prefix such as `12.` or `12...`.
        let tok = raw.trim_start_matches(|c: char| c.is_ascii_digit());
        let tok = if tok.starts_with('.') {
            tok.trim_start_matches('.')
        } else {
            raw
        };
        let tok = tok.trim_end_matches(['!', '?', '*']);
        if tok.is_empty() {
            continue;
        }
        if let Some(o) = Outcome::parse(raw) {
            game.outcome = o;
            continue;
        }
        let mv = Move::parse(tok, &pos).map_err(|source| PdnError::Move {
            game: n,
            ply: game.moves.len() + 1,
            source,
        })?;
        pos.play(&mv);
        game.moves.push(mv);
    }
    Ok(game)
}

fn strip_nested(s: &str, open: char, close: char) -> String {
    let mut depth = 0usize;
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c == open {
            depth += 1;
            out.push(' ');
        } else if c == close && depth > 0 {
            depth -= 1;
            out.push(' ');
        } else if depth == 0 {
            out.push(c);
        }
    }
    out
}
