//! A player line (`001`): its fields read by their columns, by
//! characters first, then by bytes (a UTF-8 name padded by bytes shifts
//! the columns after it), and what can be wrong with it.

use super::{Code, Colour, Columns, RoundEntry, TrfError, TrfPlayer, View};
use crate::text::shown;

/// What is wrong with a player line (`001`); [`TrfError`] adds the line.
/// Texts from the file are shown escaped ([`shown`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayerLineError {
    /// A number field holds something else.
    #[error("{what} `{text}` (columns {first}-{last}) is not a number")]
    NotANumber {
        /// The field (`rating`, `FIDE id`, ...).
        what: &'static str,
        /// What it holds.
        text: String,
        /// Its first column.
        first: usize,
        /// Its last column.
        last: usize,
    },
    /// No start rank, or one out of range.
    #[error("no start rank (1 to 9999) in columns 5-8")]
    NoStartRank,
    /// A name, title or federation that is not allowed.
    #[error(transparent)]
    Text(#[from] crate::text::TextError),
    /// The points do not read as a number with tenths.
    #[error("points `{0}` (columns 81-84) do not read")]
    Points(String),
    /// A round's opponent is not a start rank.
    #[error("round {round}: opponent `{text}` (columns {at}-{}) is not a start rank", at + 3)]
    Opponent {
        /// The round.
        round: u32,
        /// What the field holds.
        text: String,
        /// The block's first column.
        at: usize,
    },
    /// A one-column field holds more than one character.
    #[error("round {round}: `{text}` in column {column}")]
    Wide {
        /// The round.
        round: u32,
        /// What the field holds.
        text: String,
        /// The column.
        column: usize,
    },
    /// A round's colour is not `w`, `b` or `-`.
    #[error("round {round}: colour `{text}` (column {column}) is not w, b or -")]
    Colour {
        /// The round.
        round: u32,
        /// What the column holds.
        text: String,
        /// The column.
        column: usize,
    },
    /// A round's result code is not one of the TRF's.
    #[error(
        "round {round}: result `{text}` (column {column}) is not one of 1 = 0 + - W D L H F U Z"
    )]
    Result {
        /// The round.
        round: u32,
        /// What the column holds.
        text: String,
        /// The column.
        column: usize,
    },
    /// A separator column between a round's fields holds something.
    #[error("round {round}: column {column} is not blank")]
    NotBlank {
        /// The round.
        round: u32,
        /// The column.
        column: usize,
    },
}

/// A player line, by characters first, then (a UTF-8 name padded by
/// bytes shifts the columns after it) by bytes.
pub(super) fn parse_player(raw: &[u8], number: usize) -> Result<TrfPlayer, TrfError> {
    let by_bytes = || {
        read_player(
            &View::new(raw, Columns::Bytes).expect("bytes"),
            Columns::Bytes,
        )
    };
    let read = match View::new(raw, Columns::Chars) {
        Some(v) if raw.is_ascii() => read_player(&v, Columns::Chars),
        Some(v) => read_player(&v, Columns::Chars).or_else(|first| by_bytes().map_err(|_| first)),
        None => by_bytes(),
    };
    read.map(|p| TrfPlayer { line: number, ..p })
        .map_err(|reason| TrfError {
            line: number,
            reason: reason.to_string(),
        })
}

/// A player line's fields by its columns.
fn read_player(v: &View<'_>, columns: Columns) -> Result<TrfPlayer, PlayerLineError> {
    let number = |a: usize, b: usize, what: &'static str| -> Result<Option<u64>, PlayerLineError> {
        match v.field(a, b) {
            None => Ok(None),
            Some(s) => s
                .parse::<u64>()
                .map(Some)
                .map_err(|_| PlayerLineError::NotANumber {
                    what,
                    text: shown(&s),
                    first: a,
                    last: b,
                }),
        }
    };
    let start_rank = number(5, 8, "start rank")?
        .filter(|r| (1..=9999).contains(r))
        .ok_or(PlayerLineError::NoStartRank)? as u32;
    let name = v.field(15, 47).unwrap_or_default();
    let title = v.field(11, 13).map(|t| spell_title(&t));
    let federation = v.field(54, 56);
    for (key, value) in [
        ("name", Some(name.as_str())),
        ("title", title.as_deref()),
        ("federation", federation.as_deref()),
    ] {
        crate::text::check_text(key, value)?;
    }
    let points = match v.field(81, 84) {
        None => None,
        Some(p) => Some(parse_tenths(&p).ok_or_else(|| PlayerLineError::Points(shown(&p)))?),
    };
    let rating = number(49, 52, "rating")?.filter(|r| *r > 0);
    let mut rounds = Vec::new();
    let mut at = 92;
    while v.offset(at).is_some() {
        rounds.push(read_round(v, at, rounds.len() as u32 + 1)?);
        at += 10;
    }
    // Trailing empty blocks (trailing spaces) are no rounds.
    while rounds.last() == Some(&RoundEntry::default()) {
        rounds.pop();
    }
    Ok(TrfPlayer {
        start_rank,
        sex: v.field(10, 10).and_then(|s| s.chars().next()),
        title,
        name,
        rating: rating.map(|r| r.min(u64::from(u32::MAX)) as u32),
        federation,
        fide_id: number(58, 68, "FIDE id")?.filter(|id| *id > 0),
        birth: v.field(70, 79),
        points,
        rank: number(86, 89, "rank")?.map(|r| r.min(9999) as u32),
        rounds,
        line: 0,
        columns,
    })
}

/// One round's block, starting at column `at` (the opponent's 4 columns,
/// then colour at `at + 5`, result at `at + 7`).
fn read_round(v: &View<'_>, at: usize, round: u32) -> Result<RoundEntry, PlayerLineError> {
    let opponent = match v.field(at, at + 3) {
        None => None,
        Some(s) => {
            let n: u32 = s.parse().map_err(|_| PlayerLineError::Opponent {
                round,
                text: shown(&s),
                at,
            })?;
            (n > 0).then_some(n)
        }
    };
    let one = |col: usize| -> Result<Option<char>, PlayerLineError> {
        match v.field(col, col) {
            None => Ok(None),
            Some(s) if s.chars().count() == 1 => Ok(s.chars().next()),
            Some(s) => Err(PlayerLineError::Wide {
                round,
                text: shown(&s),
                column: col,
            }),
        }
    };
    let colour = match one(at + 5)? {
        None | Some('-') => None,
        Some('w' | 'W') => Some(Colour::White),
        Some('b' | 'B') => Some(Colour::Black),
        Some(c) => {
            return Err(PlayerLineError::Colour {
                round,
                text: shown(&c.to_string()),
                column: at + 5,
            });
        }
    };
    let result = match one(at + 7)? {
        None => None,
        Some(c) => Some(Code::from_char(c).ok_or_else(|| PlayerLineError::Result {
            round,
            text: shown(&c.to_string()),
            column: at + 7,
        })?),
    };
    // The separators between the fields are blank.
    for col in [at + 4, at + 6] {
        if v.field(col, col).is_some() {
            return Err(PlayerLineError::NotBlank { round, column: col });
        }
    }
    Ok(RoundEntry {
        opponent,
        colour,
        result,
    })
}

/// FIDE's one-letter title codes spelled out; other titles as written,
/// upper case.
fn spell_title(t: &str) -> String {
    match t.to_ascii_lowercase().as_str() {
        "g" => "GM".into(),
        "m" => "IM".into(),
        "f" => "FM".into(),
        "c" => "CM".into(),
        "wg" => "WGM".into(),
        "wm" => "WIM".into(),
        "wf" => "WFM".into(),
        "wc" => "WCM".into(),
        _ => t.to_ascii_uppercase(),
    }
}

/// `11.5`, `4,5` or `4` in tenths.
pub(super) fn parse_tenths(s: &str) -> Option<u32> {
    let s = s.replace(',', ".");
    let (whole, frac) = s.split_once('.').unwrap_or((&s, "0"));
    let whole: u32 = whole.parse().ok()?;
    let tenth: u32 = match frac.len() {
        0 => 0,
        _ if frac.bytes().all(|b| b.is_ascii_digit()) => u32::from(frac.as_bytes()[0] - b'0'),
        _ => return None,
    };
    Some(whole.checked_mul(10)? + tenth)
}
