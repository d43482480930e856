//! Move notation: ICCS / UCCI ids and WXF.
//!
//! - ICCS / UCCI: files `a`-`i` left to right from Red, ranks `0`-`9` from
//!   Red's back rank: `h2e2`. [`parse_iccs`] also reads the ICCS form with a
//!   dash, `H2-E2`.
//! - WXF: piece letter (K A E H R C P; B and N read too), the file the piece
//!   stands on counted from its own player's right (Red's file 1 is `i`,
//!   Black's file 1 is `a`), a direction (`+` forward, `-` backward, `.`
//!   sideways), then the file it lands on (sideways moves, and every move of
//!   the diagonal movers A, E, H) or the number of ranks it travels.
//!   Two pieces of a kind on one file: `+` (front) or `-` (rear) in place of
//!   the file, `R+.4`. Soldiers: three or more on one file, or two files each
//!   with two or more: the piece letter gives way to the soldier's place on
//!   its file counted from the front (1, 2, ...) and the file, `29.8`; this is
//!   the form Fairy-Stockfish writes (`NOTATION_XIANGQI_WXF`).
//!
//! Design: we WRITE `.` for a sideways move, as the interface shows
//! (`C2.5`); we READ both `.` and `=` (the WXF texts and Fairy-Stockfish
//! write `=`).

use super::{Kind, Move, Position, Side, Square};

/// Errors reading a move.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotationError {
    /// Not well formed.
    #[error("cannot read move {0:?}")]
    Syntax(String),
    /// Well formed but names no legal move.
    #[error("no legal move {0:?} in this position")]
    NoSuchMove(String),
    /// Names more than one legal move.
    #[error("move {0:?} is ambiguous")]
    Ambiguous(String),
}

/// Reads an ICCS / UCCI id (`h2e2`, `H2-E2`) into a move (not checked for
/// legality).
pub fn parse_iccs(s: &str) -> Result<Move, NotationError> {
    let b: Vec<u8> = s
        .bytes()
        .filter(|c| *c != b'-')
        .map(|c| c.to_ascii_lowercase())
        .collect();
    let err = || NotationError::Syntax(s.into());
    if b.len() != 4 {
        return Err(err());
    }
    let sq = |f: u8, r: u8| -> Option<Square> {
        if !(b'a'..=b'i').contains(&f) || !r.is_ascii_digit() {
            return None;
        }
        Square::new((f - b'a') as i8, (r - b'0') as i8)
    };
    Ok(Move {
        from: sq(b[0], b[1]).ok_or_else(err)?,
        to: sq(b[2], b[3]).ok_or_else(err)?,
    })
}

/// Writes the ICCS / UCCI id, `h2e2`.
pub fn iccs(m: Move) -> String {
    m.to_string()
}

/// The WXF file number (1-9) of a point for `side`: counted from that
/// player's right.
pub fn wxf_file(sq: Square, side: Side) -> i8 {
    match side {
        Side::Red => 9 - sq.file(),
        Side::Black => sq.file() + 1,
    }
}

fn forward(side: Side) -> i8 {
    if side == Side::Red { 1 } else { -1 }
}

/// How a piece is named in WXF in this position.
fn designator(pos: &Position, from: Square) -> String {
    let p = pos.piece_at(from).expect("a piece");
    let fwd = forward(p.side);
    let same_file = |file: i8| -> Vec<Square> {
        let mut v: Vec<Square> = pos
            .pieces(p.side)
            .filter(|(s, q)| q.kind == p.kind && s.file() == file)
            .map(|(s, _)| s)
            .collect();
        // Front first.
        v.sort_by_key(|s| -s.rank() * fwd);
        v
    };
    let mine = same_file(from.file());
    if p.kind == Kind::Soldier {
        let crowded_files = (0..9).filter(|f| same_file(*f).len() >= 2).count();
        if mine.len() >= 3 || (mine.len() == 2 && crowded_files >= 2) {
            let idx = mine.iter().position(|s| *s == from).expect("itself") + 1;
            return format!("{}{}", idx, wxf_file(from, p.side));
        }
    }
    if mine.len() == 2 && !matches!(p.kind, Kind::Advisor | Kind::Elephant) {
        let front = mine[0] == from;
        return format!("{}{}", p.kind.wxf_letter(), if front { '+' } else { '-' });
    }
    format!("{}{}", p.kind.wxf_letter(), wxf_file(from, p.side))
}

/// Writes a move of the side to move in WXF (`C2.5`, `H2+3`, `R+.4`).
/// The move must be one of the position's (pseudo-)moves.
pub fn wxf(pos: &Position, m: Move) -> String {
    let p = pos
        .piece_at(m.from)
        .expect("a piece on the move's from point");
    let fwd = forward(p.side);
    let dr = (m.to.rank() - m.from.rank()) * fwd;
    let dir = match dr.signum() {
        1 => '+',
        -1 => '-',
        _ => '.',
    };
    let diagonal = matches!(p.kind, Kind::Advisor | Kind::Elephant | Kind::Horse);
    let last = if dr == 0 || diagonal {
        wxf_file(m.to, p.side)
    } else {
        dr.abs()
    };
    format!("{}{}{}", designator(pos, m.from), dir, last)
}

/// Reads a WXF move (`.` or `=` for sideways) and finds the legal move it
/// names.
pub fn parse_wxf(pos: &Position, s: &str) -> Result<Move, NotationError> {
    let norm: String = s.trim().replace('=', ".");
    let chars: Vec<char> = norm.chars().collect();
    if chars.len() != 4 {
        return Err(NotationError::Syntax(s.into()));
    }
    let mut found = None;
    for m in pos.legal_moves() {
        if wxf(pos, m) == norm || alias(pos, m, &chars) {
            if found.is_some_and(|f| f != m) {
                return Err(NotationError::Ambiguous(s.into()));
            }
            found = Some(m);
        }
    }
    found.ok_or_else(|| NotationError::NoSuchMove(s.into()))
}

/// Accepts the letters B and N for elephant and horse, lower case, and a
/// plain file for a tandem piece where the file alone is unambiguous.
fn alias(pos: &Position, m: Move, chars: &[char]) -> bool {
    let written: Vec<char> = wxf(pos, m).chars().collect();
    if written[2..] != chars[2..] {
        return false;
    }
    let p = pos.piece_at(m.from).expect("a piece");
    let letter_ok = |c: char| Kind::from_letter(c) == Some(p.kind);
    if written[0].is_ascii_digit() {
        return false;
    }
    letter_ok(chars[0])
        && (chars[1] == written[1]
            || chars[1]
                .to_digit(10)
                .is_some_and(|d| d as i8 == wxf_file(m.from, p.side)))
}
