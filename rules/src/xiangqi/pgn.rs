//! The PGN record of a xiangqi game: the seven-tag roster with `Red` and
//! `Black` in place of White and Black, `[Variant "xiangqi"]`, `[FEN "..."]`
//! (with `w` for Red), and WXF movetext (`1. C2.5 H8+7`), results `1-0` (Red
//! wins), `0-1`, `1/2-1/2`, `*`.
//!
//! Design: the few tools that read xiangqi PGN (xqbase's `pgnfile.cpp`,
//! python `cchess`) key on the `FEN` and `Format` tags; we write
//! `[Format "WXF"]` so they know the movetext, and `Red`/`Black` for the
//! players as xqbase does. [`read`] reads what [`write`] writes (and WXF with
//! `=`, or ICCS movetext), so records round-trip. `cchess` reads movetext
//! in Chinese or ICCS only, so [`write_iccs`] writes the ICCS form
//! (`[Format "ICCS"]`, `H2-E2`) that it (and xqbase) reads; the WXF form is
//! checked move by move against Fairy-Stockfish's WXF (pyffish) in the
//! tests.

use super::notation::{NotationError, parse_iccs, parse_wxf, wxf};
use super::{IllegalMove, Move, Position, START_FEN, Side};

/// The result of a game as PGN writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GameResult {
    /// The side won (`1-0` for Red, `0-1` for Black).
    Win(Side),
    /// `1/2-1/2`.
    Draw,
    /// `*`: unfinished.
    Unfinished,
}

impl GameResult {
    /// The PGN result token.
    pub fn token(self) -> &'static str {
        match self {
            GameResult::Win(Side::Red) => "1-0",
            GameResult::Win(Side::Black) => "0-1",
            GameResult::Draw => "1/2-1/2",
            GameResult::Unfinished => "*",
        }
    }

    /// Reads a result token.
    pub fn from_token(s: &str) -> Option<GameResult> {
        Some(match s {
            "1-0" => GameResult::Win(Side::Red),
            "0-1" => GameResult::Win(Side::Black),
            "1/2-1/2" => GameResult::Draw,
            "*" => GameResult::Unfinished,
            _ => return None,
        })
    }
}

/// A game to write or as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// Tags other than Variant, FEN, Format and Result, in order (Event,
    /// Site, Date, Round, Red, Black, ...).
    pub tags: Vec<(String, String)>,
    /// The start position.
    pub start: Position,
    /// The moves.
    pub moves: Vec<Move>,
    /// The result.
    pub result: GameResult,
}

/// Errors reading or writing a record.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PgnError {
    /// A move is illegal.
    #[error(transparent)]
    Illegal(#[from] IllegalMove),
    /// A move cannot be read.
    #[error(transparent)]
    Notation(#[from] NotationError),
    /// The FEN tag is bad.
    #[error(transparent)]
    Fen(#[from] super::FenError),
    /// A tag line is malformed.
    #[error("bad tag line {0:?}")]
    Tag(String),
}

fn quote(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Writes the record with WXF movetext (`[Format "WXF"]`).
pub fn write(rec: &Record) -> Result<String, PgnError> {
    write_with(rec, false)
}

/// Writes the record with ICCS movetext (`[Format "ICCS"]`, moves as
/// `H2-E2`), the form xqbase's tools and the `cchess` reader take.
pub fn write_iccs(rec: &Record) -> Result<String, PgnError> {
    write_with(rec, true)
}

/// Writes the record as [`write`] does, with a comment after each move
/// that has one (`comments[i]` follows move `i`; its text goes inside
/// `{}`, e.g. `[%clk 0:04:58]`).
pub fn write_with_comments(rec: &Record, comments: &[Option<String>]) -> Result<String, PgnError> {
    write_commented(rec, false, comments)
}

fn write_with(rec: &Record, iccs: bool) -> Result<String, PgnError> {
    write_commented(rec, iccs, &[])
}

fn write_commented(
    rec: &Record,
    iccs: bool,
    comments: &[Option<String>],
) -> Result<String, PgnError> {
    let mut out = String::new();
    let get = |k: &str| {
        rec.tags
            .iter()
            .find(|(t, _)| t == k)
            .map(|(_, v)| v.as_str())
    };
    for k in ["Event", "Site", "Date", "Round", "Red", "Black"] {
        out += &format!("[{} \"{}\"]\n", k, quote(get(k).unwrap_or("?")));
    }
    out += &format!("[Result \"{}\"]\n", rec.result.token());
    for (k, v) in &rec.tags {
        if ![
            "Event", "Site", "Date", "Round", "Red", "Black", "Result", "Variant", "FEN", "Format",
        ]
        .contains(&k.as_str())
        {
            out += &format!("[{} \"{}\"]\n", k, quote(v));
        }
    }
    out += "[Variant \"xiangqi\"]\n";
    out += &format!("[FEN \"{}\"]\n", rec.start.fen());
    out += if iccs {
        "[Format \"ICCS\"]\n\n"
    } else {
        "[Format \"WXF\"]\n\n"
    };
    let mut pos = rec.start.clone();
    let mut line = String::new();
    let mut tokens = Vec::new();
    for (i, m) in rec.moves.iter().enumerate() {
        if pos.turn() == Side::Red {
            tokens.push(format!("{}.", pos.fullmoves));
        } else if i == 0 {
            tokens.push(format!("{}...", pos.fullmoves));
        }
        tokens.push(if iccs {
            let id = m.to_string().to_ascii_uppercase();
            format!("{}-{}", &id[..2], &id[2..])
        } else {
            wxf(&pos, *m)
        });
        if let Some(Some(c)) = comments.get(i) {
            tokens.push(format!("{{{}}}", c.replace(['{', '}'], "")));
        }
        pos.play(*m)?;
    }
    tokens.push(rec.result.token().to_string());
    for t in tokens {
        if !line.is_empty() && line.len() + 1 + t.len() > 79 {
            out += &line;
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line += &t;
    }
    out += &line;
    out += "\n\n";
    Ok(out)
}

/// Reads every record of a file (records start at a tag line after a
/// blank line), as [`read`] reads one.
pub fn read_all(text: &str) -> Result<Vec<Record>, PgnError> {
    let mut chunks: Vec<String> = Vec::new();
    let mut in_moves = false;
    for line in text.lines() {
        let tag = line.trim_start().starts_with('[');
        if tag && (in_moves || chunks.is_empty()) {
            chunks.push(String::new());
            in_moves = false;
        }
        if !tag && !line.trim().is_empty() {
            in_moves = true;
        }
        if let Some(c) = chunks.last_mut() {
            c.push_str(line);
            c.push('\n');
        }
    }
    chunks.iter().map(|c| read(c)).collect()
}

/// Reads one record written by [`write`] (or by tools writing WXF with `=`,
/// or ICCS movetext under `[Format "ICCS"]`).
pub fn read(text: &str) -> Result<Record, PgnError> {
    let mut tags = Vec::new();
    let mut fen = START_FEN.to_string();
    let mut iccs = false;
    let mut movetext = String::new();
    for line in text.lines() {
        let l = line.trim();
        if let Some(inner) = l.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
            let (k, v) = inner
                .split_once(' ')
                .ok_or_else(|| PgnError::Tag(l.into()))?;
            let v = v
                .trim()
                .trim_matches('"')
                .replace("\\\"", "\"")
                .replace("\\\\", "\\");
            match k {
                "FEN" => fen = v,
                "Format" => iccs = v.eq_ignore_ascii_case("ICCS"),
                "Variant" | "Result" => {}
                _ => tags.push((k.to_string(), v)),
            }
        } else {
            movetext += l;
            movetext.push(' ');
        }
    }
    let start = Position::from_fen(&fen)?;
    let mut pos = start.clone();
    let mut moves = Vec::new();
    let mut result = GameResult::Unfinished;
    // Comments (`{...}`, such as clock times) are skipped.
    let mut bare = String::with_capacity(movetext.len());
    let mut depth = 0usize;
    for c in movetext.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            c if depth == 0 => bare.push(c),
            _ => {}
        }
    }
    for tok in bare.split_whitespace() {
        if let Some(r) = GameResult::from_token(tok) {
            result = r;
            break;
        }
        if tok.ends_with('.') {
            continue;
        }
        let m = if iccs {
            parse_iccs(tok)?
        } else {
            parse_wxf(&pos, tok)?
        };
        pos.play(m)?;
        moves.push(m);
    }
    Ok(Record {
        tags,
        start,
        moves,
        result,
    })
}
