//! FIDE's Tournament Report File (TRF-16, FIDE Handbook C.04 Annex 2), the
//! file every pairing program (Swiss-Manager, Vega, JaVaFo, bbpPairings)
//! exports: read into the pairings of one round, and written back with that
//! round's results filled in from the boards, every other byte as read.
//!
//! The lines this reader uses (columns 1-based, as the specification counts
//! them):
//!
//! ```text
//! 012 name   022 city   032 federation   042 start   052 end   122 time control
//! 132 round dates: YY/MM/DD at 92-99 (round 1), 102-109 (round 2), ...
//! XXR number of rounds (JaVaFo's TRFx)
//! 001 player:  5-8 start rank   10 sex   11-13 title   15-47 name
//!             49-52 rating   54-56 federation   58-68 FIDE id   70-79 birth date
//!             81-84 points   86-89 rank
//!             then one block of 10 columns per round, round 1 at 92:
//!             92-95 opponent's start rank (0000 or blank: none)
//!             97 colour w, b, - (blank = -)
//!             99 result 1 = 0 (played), + - (forfeit), W D L (under one
//!                move), H F U Z (byes), blank (not played yet, or Z)
//! ```
//!
//! Every other line (`062`, `102`, `XXC`, `DAT`, `###` comments, team
//! lines, blank lines) is kept as read and never looked at.
//!
//! Tolerated, as real exports have them: CR LF, LF or CR alone as line ends
//! (the last line with or without one), a UTF-8 byte-order mark, short
//! lines (a round not paired yet simply is not there), blank fields,
//! lower-case codes, FIDE's one-letter titles (`g`, `m`, `wg`, ...), names
//! in Windows-1252 (Swiss-Manager) as well as UTF-8, and UTF-8 names padded
//! by bytes rather than characters (tried when the columns by characters
//! do not read).
//!
//! Strict where it matters: a player line whose start rank, rating, FIDE id
//! or a round block does not read, two lines for one start rank, and a
//! pairing the two players do not agree on (A says he plays B with white, B
//! says she plays A with white, or someone else) are errors naming the line.
//!
//! Design: the file is kept as its lines of bytes, and writing results back
//! replaces only the result column of this round and the points of the
//! players who played it, so the pairing program imports exactly what it
//! exported plus the results.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use super::{Pairing, Pairings, Player};

mod player;
mod results;
mod round;

pub use player::PlayerLineError;
use player::parse_player;

use results::describe;
pub use results::{Conflict, Filled};

pub use super::pgn_match::{GameMismatch, pgn_results};

/// A TRF file as read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trf {
    lines: Vec<RawLine>,
    /// The tournament lines.
    pub tournament: Tournament,
    /// The players, by start rank.
    pub players: BTreeMap<u32, TrfPlayer>,
}

/// One line as read: its bytes and its line end (`\r\n`, `\n`, `\r` or
/// none).
#[derive(Clone, Debug, PartialEq, Eq)]
struct RawLine {
    bytes: Vec<u8>,
    end: &'static [u8],
}

/// The tournament lines of a TRF file (`0x2`, `XXR`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tournament {
    /// `012`: the tournament's name.
    pub name: Option<String>,
    /// `022`: the city.
    pub city: Option<String>,
    /// `032`: the host federation.
    pub federation: Option<String>,
    /// `042`: the date of start, as written.
    pub start: Option<String>,
    /// `052`: the date of end, as written.
    pub end: Option<String>,
    /// `122`: the time control, free text.
    pub time_control: Option<String>,
    /// `132`: each round's date as PGN writes dates (`YYYY.MM.DD`), round
    /// 1 first; `None` for a round with no (readable) date.
    pub round_dates: Vec<Option<String>>,
    /// `XXR`: the number of rounds.
    pub rounds: Option<u32>,
}

impl Tournament {
    /// The date of `round` as PGN writes dates: its `132` date, else the
    /// `042` start date, when either reads.
    pub fn date(&self, round: Option<u32>) -> Option<String> {
        round
            .and_then(|r| self.round_dates.get(r.checked_sub(1)? as usize).cloned())
            .flatten()
            .or_else(|| pgn_date(self.start.as_deref()?))
    }
}

/// A player line (`001`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrfPlayer {
    /// Start rank (columns 5-8).
    pub start_rank: u32,
    /// Sex (column 10), `m` or `w`.
    pub sex: Option<char>,
    /// Title (11-13), as PGN writes them (`GM`; FIDE's one-letter codes
    /// `g`, `m`, `f`, `c`, `wg`, ... are spelled out).
    pub title: Option<String>,
    /// Name (15-47), "Last, First" as written.
    pub name: String,
    /// FIDE rating (49-52); none when blank or 0.
    pub rating: Option<u32>,
    /// Federation (54-56).
    pub federation: Option<String>,
    /// FIDE id (58-68); none when blank or 0.
    pub fide_id: Option<u64>,
    /// Birth date (70-79), as written.
    pub birth: Option<String>,
    /// Points (81-84), in tenths.
    pub points: Option<u32>,
    /// Rank (86-89).
    pub rank: Option<u32>,
    /// Round by round, round 1 first (as far as the line goes).
    pub rounds: Vec<RoundEntry>,
    /// The line (1-based).
    pub line: usize,
    columns: Columns,
}

/// A player's block of one round.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RoundEntry {
    /// The scheduled opponent's start rank; none for a bye or no pairing.
    pub opponent: Option<u32>,
    /// The scheduled colour; none for `-` or blank.
    pub colour: Option<Colour>,
    /// The result; none when blank (a game not played yet).
    pub result: Option<Code>,
}

/// A scheduled colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Colour {
    /// `w`.
    White,
    /// `b`.
    Black,
}

impl Colour {
    fn name(self) -> &'static str {
        match self {
            Colour::White => "white",
            Colour::Black => "black",
        }
    }
}

/// A result code of one player in one round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Code {
    /// `1`: a win.
    Win,
    /// `=`: a draw.
    Draw,
    /// `0`: a loss.
    Loss,
    /// `+`: a forfeit win.
    ForfeitWin,
    /// `-`: a forfeit loss.
    ForfeitLoss,
    /// `W`: a win in a game of less than one move (not rated).
    UnratedWin,
    /// `D`: a draw in a game of less than one move.
    UnratedDraw,
    /// `L`: a loss in a game of less than one move.
    UnratedLoss,
    /// `H`: a half-point bye.
    HalfBye,
    /// `F`: a full-point bye.
    FullBye,
    /// `U`: the pairing-allocated bye.
    PairingBye,
    /// `Z`: a zero-point bye (known absence).
    ZeroBye,
}

/// Each code, its letter and its points in tenths (the default 1 - ½ - 0
/// scoring, a pairing-allocated bye worth a win).
const CODES: [(Code, char, u32); 12] = [
    (Code::Win, '1', 10),
    (Code::Draw, '=', 5),
    (Code::Loss, '0', 0),
    (Code::ForfeitWin, '+', 10),
    (Code::ForfeitLoss, '-', 0),
    (Code::UnratedWin, 'W', 10),
    (Code::UnratedDraw, 'D', 5),
    (Code::UnratedLoss, 'L', 0),
    (Code::HalfBye, 'H', 5),
    (Code::FullBye, 'F', 10),
    (Code::PairingBye, 'U', 10),
    (Code::ZeroBye, 'Z', 0),
];

impl Code {
    /// The code of a letter (case-insensitive).
    pub fn from_char(c: char) -> Option<Code> {
        let c = c.to_ascii_uppercase();
        CODES
            .iter()
            .find(|(_, l, _)| *l == c)
            .map(|(code, _, _)| *code)
    }

    /// The letter the file writes.
    pub fn letter(self) -> char {
        CODES
            .iter()
            .find(|(c, _, _)| *c == self)
            .map_or('?', |e| e.1)
    }

    /// Points in tenths.
    pub fn tenths(self) -> u32 {
        CODES.iter().find(|(c, _, _)| *c == self).map_or(0, |e| e.2)
    }

    /// A bye (`H`, `F`, `U`, `Z`): no opponent.
    pub fn is_bye(self) -> bool {
        matches!(
            self,
            Code::HalfBye | Code::FullBye | Code::PairingBye | Code::ZeroBye
        )
    }
}

/// How a player line's columns are counted: by characters (UTF-8 padded
/// by characters, and any ASCII line), or by bytes (Windows-1252, or UTF-8
/// padded by bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Columns {
    Chars,
    Bytes,
}

/// Why a TRF file could not be read: the line and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {reason}")]
pub struct TrfError {
    /// The line (1-based).
    pub line: usize,
    /// What is wrong.
    pub reason: String,
}

/// One board of a round: two players paired with colours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrfBoard {
    /// Board number, in the order pairing programs print (see
    /// [`Trf::boards`]).
    pub board: u32,
    /// White's start rank.
    pub white: u32,
    /// Black's start rank.
    pub black: u32,
    /// White's result in the file, if any.
    pub white_result: Option<Code>,
    /// Black's result in the file, if any.
    pub black_result: Option<Code>,
}

impl TrfBoard {
    /// The result in the file, as words (`1-0`, `0-1 by forfeit`, ...);
    /// none when both results are blank.
    pub fn file_result(&self) -> Option<String> {
        describe(self.white_result, self.black_result)
    }
}

/// Whether `bytes` look like a TRF file: a line starting `012 ` or `001 `.
pub fn looks_like_trf(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    split_lines(bytes)
        .iter()
        .any(|l| l.bytes.starts_with(b"012 ") || l.bytes.starts_with(b"001 "))
}

/// Parses a TRF file.
pub fn parse(bytes: &[u8]) -> Result<Trf, TrfError> {
    let mut lines = split_lines(bytes);
    let mut tournament = Tournament::default();
    let mut players: BTreeMap<u32, TrfPlayer> = BTreeMap::new();
    for (i, line) in lines.iter_mut().enumerate() {
        let number = i + 1;
        let raw: &[u8] = match line.bytes.strip_prefix(b"\xEF\xBB\xBF") {
            Some(rest) if i == 0 => rest,
            _ => &line.bytes,
        };
        let tag = raw.get(..3).unwrap_or(raw);
        match tag {
            b"001" => {
                let player = parse_player(raw, number)?;
                if let Some(first) = players.get(&player.start_rank) {
                    return Err(TrfError {
                        line: number,
                        reason: format!(
                            "start rank {} is on line {} already",
                            player.start_rank, first.line
                        ),
                    });
                }
                players.insert(player.start_rank, player);
            }
            _ => tournament_line(&mut tournament, tag, raw, number)?,
        }
    }
    let trf = Trf {
        lines,
        tournament,
        players,
    };
    trf.check_pairings()?;
    Ok(trf)
}

/// Splits bytes into lines, keeping each line's end.
fn split_lines(bytes: &[u8]) -> Vec<RawLine> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        let (end, next): (&'static [u8], usize) = match bytes[i] {
            b'\r' if bytes.get(i + 1) == Some(&b'\n') => (b"\r\n", i + 2),
            b'\r' => (b"\r", i + 1),
            b'\n' => (b"\n", i + 1),
            _ => {
                i += 1;
                continue;
            }
        };
        lines.push(RawLine {
            bytes: bytes[start..i].to_vec(),
            end,
        });
        start = next;
        i = next;
    }
    if start < bytes.len() {
        lines.push(RawLine {
            bytes: bytes[start..].to_vec(),
            end: b"",
        });
    }
    lines
}

/// Text from bytes: UTF-8 when it is, else Windows-1252 (what Swiss-Manager
/// writes on Windows).
fn decode(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => bytes.iter().map(|&b| cp1252(b)).collect(),
    }
}

/// A Windows-1252 byte as a character (undefined bytes as Latin-1).
fn cp1252(b: u8) -> char {
    const HIGH: [char; 32] = [
        '€', '\u{81}', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u{8d}', 'Ž',
        '\u{8f}', '\u{90}', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u{9d}',
        'ž', 'Ÿ',
    ];
    match b {
        0x80..=0x9f => HIGH[usize::from(b - 0x80)],
        _ => char::from(b),
    }
}

/// A line's columns: where each column starts in its bytes.
struct View<'a> {
    raw: &'a [u8],
    starts: Vec<usize>,
}

impl<'a> View<'a> {
    fn new(raw: &'a [u8], columns: Columns) -> Option<View<'a>> {
        let starts = match columns {
            Columns::Chars => std::str::from_utf8(raw)
                .ok()?
                .char_indices()
                .map(|(i, _)| i)
                .collect(),
            Columns::Bytes => (0..raw.len()).collect(),
        };
        Some(View { raw, starts })
    }

    /// Where column `col` (1-based) starts in the bytes, if the line
    /// reaches it.
    fn offset(&self, col: usize) -> Option<usize> {
        self.starts.get(col.checked_sub(1)?).copied()
    }

    /// Columns `a` to `b` (1-based, both included, cut at the line's end),
    /// trimmed; none when blank.
    fn field(&self, a: usize, b: usize) -> Option<String> {
        let from = self.offset(a)?;
        let to = self.offset(b + 1).unwrap_or(self.raw.len());
        let text = decode(&self.raw[from..to]);
        let text = text.trim();
        (!text.is_empty()).then(|| text.to_string())
    }
}

/// A tournament line: fills what this reader uses, keeps the rest.
fn tournament_line(
    t: &mut Tournament,
    tag: &[u8],
    raw: &[u8],
    number: usize,
) -> Result<(), TrfError> {
    let rest = || {
        let text = decode(raw.get(4..).unwrap_or_default());
        let text = text.trim();
        (!text.is_empty()).then(|| text.to_string())
    };
    let slot = match tag {
        b"012" => &mut t.name,
        b"022" => &mut t.city,
        b"032" => &mut t.federation,
        b"042" => &mut t.start,
        b"052" => &mut t.end,
        b"122" => &mut t.time_control,
        b"132" => {
            t.round_dates = round_dates(raw);
            return Ok(());
        }
        b"XXR" => {
            t.rounds = rest().and_then(|r| r.parse().ok());
            return Ok(());
        }
        _ => return Ok(()),
    };
    *slot = rest();
    if let Some(text) = slot.as_deref() {
        crate::text::check_text(&String::from_utf8_lossy(tag), Some(text)).map_err(|reason| {
            TrfError {
                line: number,
                reason: reason.to_string(),
            }
        })?;
    }
    Ok(())
}

/// The round dates of a `132` line: one at column 92, 102, ...; a line
/// that ends before column 92 lists them after the tag, space-separated.
fn round_dates(raw: &[u8]) -> Vec<Option<String>> {
    let text = decode(raw);
    let chars: Vec<char> = text.chars().collect();
    if chars.len() < 92 {
        return text
            .get(4..)
            .unwrap_or_default()
            .split_whitespace()
            .map(pgn_date)
            .collect();
    }
    chars[91..]
        .chunks(10)
        .map(|c| pgn_date(c.iter().collect::<String>().trim()))
        .collect()
}

/// `YY/MM/DD` or `YYYY/MM/DD` (`/`, `.` or `-`) as a PGN date.
fn pgn_date(s: &str) -> Option<String> {
    let parts: Vec<&str> = s.split(['/', '.', '-']).collect();
    let [y, m, d] = parts[..] else {
        return None;
    };
    let digits = |p: &str, n: usize| p.len() == n && p.bytes().all(|b| b.is_ascii_digit());
    if !(digits(m, 2) && digits(d, 2)) {
        return None;
    }
    let year = if digits(y, 4) {
        y.to_string()
    } else if digits(y, 2) {
        format!("20{y}")
    } else {
        return None;
    };
    Some(format!("{year}.{m}.{d}"))
}

impl Trf {
    /// The lines' count.
    pub fn line_count(&self) -> usize {
        self.lines.len()
    }

    /// A line's bytes (1-based), without its line end.
    pub fn line(&self, number: usize) -> Option<&[u8]> {
        self.lines
            .get(number.checked_sub(1)?)
            .map(|l| l.bytes.as_slice())
    }

    /// The file as read, byte for byte.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for l in &self.lines {
            out.extend_from_slice(&l.bytes);
            out.extend_from_slice(l.end);
        }
        out
    }

    /// Every pairing agrees with the opponent's line.
    fn check_pairings(&self) -> Result<(), TrfError> {
        for p in self.players.values() {
            for (i, e) in p.rounds.iter().enumerate() {
                let Some(o) = e.opponent else { continue };
                let round = i as u32 + 1;
                let err = |reason: String| TrfError {
                    line: p.line,
                    reason: format!("round {round}: {reason}"),
                };
                let says = format!(
                    "player {} ({}) plays {o}{}",
                    p.start_rank,
                    p.name,
                    e.colour
                        .map_or(String::new(), |c| format!(" with {}", c.name()))
                );
                if o == p.start_rank {
                    return Err(err(format!("{says}: himself")));
                }
                let Some(q) = self.players.get(&o) else {
                    return Err(err(format!("{says}, who has no player line")));
                };
                let theirs = q.rounds.get(i).copied().unwrap_or_default();
                let agrees = theirs.opponent == Some(p.start_rank)
                    && matches!(
                        (e.colour, theirs.colour),
                        (Some(Colour::White), Some(Colour::Black))
                            | (Some(Colour::Black), Some(Colour::White))
                            | (None, None)
                    );
                if !agrees {
                    let other = match (theirs.opponent, theirs.colour) {
                        (None, _) => "no opponent".to_string(),
                        (Some(x), Some(c)) => format!("{x} with {}", c.name()),
                        (Some(x), None) => format!("{x} without a colour"),
                    };
                    return Err(err(format!(
                        "{says}, but line {} has {o} ({}) playing {other}",
                        q.line, q.name
                    )));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::results::{edit_columns, format_tenths};
    use super::*;

    #[test]
    fn lines_keep_their_ends_and_a_last_line_without_one() {
        let lines = split_lines(b"a\r\nb\nc\rd");
        let ends: Vec<&[u8]> = lines.iter().map(|l| l.end).collect();
        assert_eq!(ends, [&b"\r\n"[..], b"\n", b"\r", b""]);
        assert_eq!(lines[3].bytes, b"d");
    }

    #[test]
    fn round_dates_read_two_and_four_digit_years() {
        assert_eq!(pgn_date("23/05/01").as_deref(), Some("2023.05.01"));
        assert_eq!(pgn_date("2023/05/01").as_deref(), Some("2023.05.01"));
        assert_eq!(pgn_date("2023.05"), None);
    }

    #[test]
    fn points_read_with_a_comma_and_write_with_a_point() {
        assert_eq!(player::parse_tenths("4,5"), Some(45));
        assert_eq!(player::parse_tenths("11.5"), Some(115));
        assert_eq!(player::parse_tenths("3"), Some(30));
        assert_eq!(player::parse_tenths("x"), None);
        assert_eq!(format_tenths(115), "11.5");
    }

    #[test]
    fn windows_1252_names_decode() {
        assert_eq!(decode(b"Ba\x9aa"), "Baša");
        assert_eq!(decode("Baša".as_bytes()), "Baša");
    }

    #[test]
    fn a_swapped_board_gives_each_player_the_points_and_colour_they_played() {
        let example: &[u8] = include_bytes!("../../../tests/data/trf/fide-example.trf");
        let trf = parse(example).unwrap();
        let b = trf.boards(4)[0];
        let (paired_white, paired_black) = (b.white, b.black);
        // Played the other way round, and White (the paired Black) won.
        let results = BTreeMap::from([(b.board, "1-0".to_string())]);
        let filled = trf.fill_played(4, &results, &BTreeSet::from([b.board]));
        assert_eq!(filled.written, [b.board]);
        let back = parse(&filled.bytes).unwrap();
        let entry = |rank: u32| back.players[&rank].rounds[3];
        assert_eq!(entry(paired_black).result, Some(Code::Win));
        assert_eq!(entry(paired_black).colour, Some(Colour::White));
        assert_eq!(entry(paired_white).result, Some(Code::Loss));
        assert_eq!(entry(paired_white).colour, Some(Colour::Black));
        // The points add up: one point more in the file than before.
        let total = |t: &Trf| t.players.values().filter_map(|p| p.points).sum::<u32>();
        assert_eq!(total(&back), total(&trf) + 10);
        // Read as paired, the same result credits the paired White.
        let plain = parse(&trf.fill_results(4, &results).bytes).unwrap();
        assert_eq!(
            plain.players[&paired_white].rounds[3].result,
            Some(Code::Win)
        );
        // Read back, the pairing program sees the game as played.
        let played = back.boards(4).into_iter().find(|x| x.white == paired_black);
        assert_eq!(played.and_then(|x| x.file_result()).as_deref(), Some("1-0"));
    }

    #[test]
    fn edits_pad_a_short_line_and_keep_multibyte_names() {
        let mut edits = BTreeMap::new();
        edits.insert(3, b'x');
        edits.insert(6, b'y');
        assert_eq!(
            edit_columns("ša".as_bytes(), Columns::Chars, &edits),
            "šax  y".as_bytes()
        );
    }
}
