//! The event around the boards: its name and site, the round, and each
//! board's players, so that PGN tags and MQTT state carry them.
//!
//! A pairings file maps boards to players for one round. Three formats:
//! FIDE's TRF, as pairing programs export it ([`trf`]: `.trf`, `.trfx`,
//! or any other file, `.txt` included, with a line starting `012 ` or
//! `001 `), and these two:
//!
//! CSV, with a header row; `board`, `white`, `black` are required, the rest
//! optional and in any order:
//!
//! ```text
//! board,white,black,white_fide_id,white_title,white_federation,white_rating,black_fide_id,black_title,black_federation,black_rating
//! 1,"Carlsen, Magnus","Caruana, Fabiano",1503014,GM,NOR,2830,2020009,GM,USA,2805
//! ```
//!
//! TOML:
//!
//! ```toml
//! round = 3
//! [[pairing]]
//! board = 1
//! white = { name = "Carlsen, Magnus", fide_id = 1503014, title = "GM", federation = "NOR", rating = 2830 }
//! black = { name = "Caruana, Fabiano" }
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

pub mod config;
pub mod last_good;
pub mod load;
pub mod pgn_match;
mod round_choice;
pub mod trf;

pub use load::{MAX_PAIRINGS_BYTES, read_pairings_bytes};
pub use round_choice::{NotPaired, RoundOfRecord};

/// A player as PGN tags and relay tools know them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Player {
    /// "Last, First", as PGN writes names.
    pub name: String,
    /// FIDE id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fide_id: Option<u64>,
    /// Title (GM, IM, WGM, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Federation (three letters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub federation: Option<String>,
    /// Rating.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<u32>,
}

impl Player {
    /// First and last name, from "Last, First" (or a single name).
    pub fn split_name(&self) -> (String, String) {
        match self.name.split_once(',') {
            Some((last, first)) => (first.trim().to_string(), last.trim().to_string()),
            None => (String::new(), self.name.trim().to_string()),
        }
    }
}

/// The players of one board.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pairing {
    /// Board number (1-based).
    pub board: u32,
    /// White.
    pub white: Player,
    /// Black.
    pub black: Player,
}

/// A round's pairings.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pairings {
    /// The round, when the file names it.
    #[serde(default)]
    pub round: Option<u32>,
    /// Board by board.
    #[serde(default, rename = "pairing")]
    pub pairings: Vec<Pairing>,
}

impl Pairings {
    /// The pairing of a board.
    pub fn board(&self, board: u32) -> Option<&Pairing> {
        self.pairings.iter().find(|p| p.board == board)
    }
}

/// The event's metadata.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventInfo {
    /// Event name (`Event` tag).
    #[serde(default = "unknown")]
    pub name: String,
    /// Site (`Site` tag).
    #[serde(default = "unknown")]
    pub site: String,
    /// Date as `YYYY.MM.DD` (`Date` tag); unknown parts as `??`.
    #[serde(default = "unknown_date")]
    pub date: String,
    /// The round being played.
    #[serde(default = "first")]
    pub round: u32,
}

fn unknown() -> String {
    "?".into()
}

fn unknown_date() -> String {
    "????.??.??".into()
}

fn first() -> u32 {
    1
}

impl Default for EventInfo {
    fn default() -> Self {
        EventInfo {
            name: unknown(),
            site: unknown(),
            date: unknown_date(),
            round: 1,
        }
    }
}

/// Why a pairings file could not be read.
///
/// Design: each message holds its cause, and no variant has a `source`,
/// so an error chain (`anyhow`'s, the daemon's log line) says it once.
#[derive(Debug, thiserror::Error)]
pub enum PairingsError {
    /// The file could not be read.
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        error: std::io::Error,
    },
    /// The file is larger than [`MAX_PAIRINGS_BYTES`].
    #[error(
        "{path}: larger than {} MiB, the limit for a pairings file (a 500-player, 15-round TRF file is about 100 KB): is it the right file?",
        .limit / (1024 * 1024)
    )]
    TooLarge {
        /// The file.
        path: String,
        /// The limit, in bytes.
        limit: u64,
    },
    /// The file cannot be a pairings file (empty, UTF-16, binary, a TRF
    /// file without players).
    #[error("{path}: {what}")]
    Unusable {
        /// The file.
        path: String,
        /// What it is, and what to do.
        what: String,
    },
    /// A CSV row is wrong.
    #[error("{path}: line {line}: {reason}")]
    Csv {
        /// The file.
        path: String,
        /// 1-based line.
        line: u64,
        /// What is wrong.
        reason: CsvError,
    },
    /// The TOML is wrong.
    #[error("{path}: {reason}")]
    Toml {
        /// The file.
        path: String,
        /// What is wrong (with its line).
        reason: String,
    },
    /// A TRF file is wrong (a line that does not read, a pairing the two
    /// players do not agree on).
    #[error("{path}: {error}")]
    Trf {
        /// The file.
        path: String,
        /// The line and what is wrong with it.
        error: trf::TrfError,
    },
    /// Two pairings for one board.
    #[error("{path}: board {board} is paired twice")]
    Duplicate {
        /// The file.
        path: String,
        /// The board.
        board: u32,
    },
}

/// What is wrong with a line of a CSV pairings file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CsvError {
    /// The CSV reader's own error (a line with too many fields, bad
    /// quoting).
    #[error("{0}")]
    Read(String),
    /// A header the file may not have.
    #[error("unknown column `{column}`; known: {}", CSV_COLUMNS.join(", "))]
    UnknownColumn {
        /// The header.
        column: String,
    },
    /// `board`, `white` or `black` is not among the headers.
    #[error("missing column `{0}`")]
    MissingColumn(&'static str),
    /// A number column holds something else.
    #[error("`{column}` is not a number: `{value}`")]
    NotANumber {
        /// The column.
        column: String,
        /// What it holds.
        value: String,
    },
    /// `board`, `white` or `black` is empty on this line.
    #[error("`{0}` is empty")]
    Empty(String),
    /// The board number is 0 or above [`crate::text::MAX_BOARD_NUMBER`].
    #[error(
        "`board` {board} is out of range (1 to {})",
        crate::text::MAX_BOARD_NUMBER
    )]
    BoardOutOfRange {
        /// The number given.
        board: u64,
    },
    /// A name, title or federation that is not allowed.
    #[error(transparent)]
    Text(#[from] crate::text::TextError),
}

/// Reads a pairings file: `.toml` as TOML, TRF (see [`read_pairings_file`])
/// for its round to be played, anything else as CSV.
pub fn read_pairings(path: &Path) -> Result<Pairings, PairingsError> {
    read_pairings_file(path, None).map(|f| f.pairings)
}

/// A pairings file as read: the round's pairings, and the whole TRF file
/// when it is one (its results are written back from it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairingsFile {
    /// The pairings of the round (a TRF file names its round).
    pub pairings: Pairings,
    /// The TRF file, when the pairings come from one.
    pub trf: Option<std::sync::Arc<trf::Trf>>,
    /// Why a TRF file gives no boards: its next round is not paired yet
    /// (see [`trf::Trf::choose_round`]); the pairings are then empty.
    pub not_paired: Option<NotPaired>,
}

/// Reads a pairings file ([`read_pairings_bytes`], then
/// [`parse_pairings`]).
pub fn read_pairings_file(path: &Path, round: Option<u32>) -> Result<PairingsFile, PairingsError> {
    parse_pairings(&read_pairings_bytes(path)?, path, round)
}

/// Parses a pairings file's bytes: `.toml` as TOML; `.trf`, `.trfx` or
/// another file (`.txt`) with a line starting `012 ` or `001 ` as FIDE
/// TRF, whose round `round` (the configured `[event] round`) is read when
/// the file pairs it, else its last paired round
/// ([`trf::Trf::choose_round`]); anything else as CSV. `path` names the
/// file and gives its extension.
pub fn parse_pairings(
    bytes: &[u8],
    path: &Path,
    round: Option<u32>,
) -> Result<PairingsFile, PairingsError> {
    let name = path.display().to_string();
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    // Design: `.txt` is also what CSV files are saved as, so a `.txt` file
    // is TRF by its content (a line starting `012 ` or `001 `).
    let is_trf = matches!(extension.as_deref(), Some("trf" | "trfx"))
        || (extension.as_deref() != Some("toml") && trf::looks_like_trf(bytes));
    if is_trf {
        let file = parse_trf(bytes, &name)?;
        let (pairings, not_paired) = match file.choose_round(round) {
            Ok(r) => (file.pairings(r), None),
            Err(why) => {
                let round = why.round();
                (
                    Pairings {
                        round,
                        pairings: Vec::new(),
                    },
                    Some(why),
                )
            }
        };
        let pairings = check_unique(pairings, &name)?;
        return Ok(PairingsFile {
            pairings,
            trf: Some(std::sync::Arc::new(file)),
            not_paired,
        });
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = String::from_utf8(bytes.to_vec()).map_err(|e| PairingsError::Unusable {
        path: name.clone(),
        what: format!("not UTF-8 ({e}): save it as UTF-8"),
    })?;
    let pairings = if extension.as_deref() == Some("toml") {
        parse_toml(&text, &name)?
    } else {
        parse_csv(&text, &name)?
    };
    Ok(PairingsFile {
        pairings,
        trf: None,
        not_paired: None,
    })
}

/// Parses a TRF file; `name` names the source in errors. A file without
/// player lines is refused.
pub fn parse_trf(bytes: &[u8], name: &str) -> Result<trf::Trf, PairingsError> {
    let file = trf::parse(bytes).map_err(|error| PairingsError::Trf {
        path: name.to_string(),
        error,
    })?;
    if file.players.is_empty() {
        return Err(PairingsError::Unusable {
            path: name.to_string(),
            what: format!(
                "no player lines (001): {} line(s), none a player; export the tournament with its players from the pairing program",
                file.line_count()
            ),
        });
    }
    Ok(file)
}

/// Parses TOML pairings; `name` names the source in errors.
pub fn parse_toml(text: &str, name: &str) -> Result<Pairings, PairingsError> {
    let p: Pairings = toml::from_str(text).map_err(|e| PairingsError::Toml {
        path: name.to_string(),
        reason: one_line(&e.to_string()),
    })?;
    check_unique(p, name)
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn check_unique(p: Pairings, name: &str) -> Result<Pairings, PairingsError> {
    let invalid = |reason: String| PairingsError::Toml {
        path: name.to_string(),
        reason,
    };
    if let Some(round) = p.round
        && !(1..=crate::text::MAX_ROUND).contains(&round)
    {
        return Err(invalid(format!(
            "round {round} is out of range (1 to {})",
            crate::text::MAX_ROUND
        )));
    }
    let mut seen = BTreeMap::new();
    for pairing in &p.pairings {
        if !(1..=crate::text::MAX_BOARD_NUMBER).contains(&pairing.board) {
            return Err(invalid(format!(
                "board {} is out of range (1 to {})",
                pairing.board,
                crate::text::MAX_BOARD_NUMBER
            )));
        }
        for player in [&pairing.white, &pairing.black] {
            for (key, value) in [
                ("name", Some(player.name.as_str())),
                ("title", player.title.as_deref()),
                ("federation", player.federation.as_deref()),
            ] {
                crate::text::check_text(&format!("board {} {key}", pairing.board), value)
                    .map_err(|e| invalid(e.to_string()))?;
            }
        }
        if seen.insert(pairing.board, ()).is_some() {
            return Err(PairingsError::Duplicate {
                path: name.to_string(),
                board: pairing.board,
            });
        }
    }
    Ok(p)
}

/// The columns a CSV pairings file may have.
const CSV_COLUMNS: [&str; 11] = [
    "board",
    "white",
    "black",
    "white_fide_id",
    "white_title",
    "white_federation",
    "white_rating",
    "black_fide_id",
    "black_title",
    "black_federation",
    "black_rating",
];

/// Parses CSV pairings (see the module documentation for the columns).
pub fn parse_csv(text: &str, name: &str) -> Result<Pairings, PairingsError> {
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let err = |line: u64, reason: CsvError| PairingsError::Csv {
        path: name.to_string(),
        line,
        reason,
    };
    let headers = reader
        .headers()
        .map_err(|e| err(1, CsvError::Read(e.to_string())))?
        .clone();
    check_csv_headers(&headers).map_err(|m| err(1, m))?;
    let mut pairings = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| {
            let line = e.position().map_or(0, |p| p.line());
            err(line, CsvError::Read(e.to_string()))
        })?;
        let line = record.position().map_or(0, |p| p.line());
        pairings.push(csv_pairing(&headers, &record).map_err(|m| err(line, m))?);
    }
    check_unique(
        Pairings {
            round: None,
            pairings,
        },
        name,
    )
}

/// The header line: known columns only, `board`, `white` and `black`
/// among them.
fn check_csv_headers(headers: &csv::StringRecord) -> Result<(), CsvError> {
    if let Some(h) = headers.iter().find(|h| !CSV_COLUMNS.contains(h)) {
        return Err(CsvError::UnknownColumn {
            column: h.to_string(),
        });
    }
    match ["board", "white", "black"]
        .into_iter()
        .find(|needed| !headers.iter().any(|h| h == *needed))
    {
        Some(needed) => Err(CsvError::MissingColumn(needed)),
        None => Ok(()),
    }
}

/// One line of a CSV pairings file: its board and players. The error
/// says which field is wrong.
fn csv_pairing(
    headers: &csv::StringRecord,
    record: &csv::StringRecord,
) -> Result<Pairing, CsvError> {
    let get = |col: &str| {
        headers
            .iter()
            .position(|h| h == col)
            .and_then(|i| record.get(i))
            .filter(|v| !v.is_empty())
            .map(str::to_string)
    };
    let number = |col: &str| -> Result<Option<u64>, CsvError> {
        get(col)
            .map(|v| {
                v.parse::<u64>().map_err(|_| CsvError::NotANumber {
                    column: col.to_string(),
                    value: v,
                })
            })
            .transpose()
    };
    let text = |col: &str| -> Result<Option<String>, CsvError> {
        let v = get(col);
        crate::text::check_text(&format!("`{col}`"), v.as_deref())?;
        Ok(v)
    };
    let player = |side: &str| -> Result<Player, CsvError> {
        Ok(Player {
            name: text(side)?.ok_or_else(|| CsvError::Empty(side.to_string()))?,
            fide_id: number(&format!("{side}_fide_id"))?,
            title: text(&format!("{side}_title"))?,
            federation: text(&format!("{side}_federation"))?,
            rating: number(&format!("{side}_rating"))?.map(|r| r as u32),
        })
    };
    let board = number("board")?.ok_or_else(|| CsvError::Empty("board".to_string()))?;
    if !(1..=u64::from(crate::text::MAX_BOARD_NUMBER)).contains(&board) {
        return Err(CsvError::BoardOutOfRange { board });
    }
    Ok(Pairing {
        board: board as u32,
        white: player("white")?,
        black: player("black")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_newline_in_a_pairings_name_is_refused_naming_the_line() {
        let csv = "board,white,black\n1,\"Carlsen, Magnus\",\"Evil\n1. f3 e5\"\n";
        let err = parse_csv(csv, "p.csv").unwrap_err().to_string();
        assert!(
            err.contains("p.csv: line 2: `black`: control character"),
            "{err}"
        );
        let toml = "round = 4\n[[pairing]]\nboard = 1\nwhite = { name = \"A\\nB\" }\nblack = { name = \"C\" }\n";
        let err = parse_toml(toml, "p.toml").unwrap_err().to_string();
        assert!(err.contains("board 1 name: control character"), "{err}");
        let toml = "round = 4000\n";
        assert!(
            parse_toml(toml, "p.toml")
                .unwrap_err()
                .to_string()
                .contains("round 4000 is out of range")
        );
    }

    #[test]
    fn csv_pairings_with_quoted_names_and_optional_columns() {
        let text = "board,white,black,white_rating,black_title\n1,\"Carlsen, Magnus\",\"Caruana, Fabiano\",2830,GM\n2,Anand,Ding,,\n";
        let p = parse_csv(text, "p.csv").unwrap();
        assert_eq!(p.pairings.len(), 2);
        assert_eq!(p.board(1).unwrap().white.name, "Carlsen, Magnus");
        assert_eq!(p.board(1).unwrap().white.rating, Some(2830));
        assert_eq!(p.board(1).unwrap().black.title.as_deref(), Some("GM"));
        assert_eq!(p.board(2).unwrap().black.rating, None);
        assert_eq!(
            p.board(1).unwrap().white.split_name(),
            ("Magnus".into(), "Carlsen".into())
        );
    }

    #[test]
    fn csv_errors_name_the_line() {
        let e = parse_csv("board,white,black\n1,a,b\nx,c,d\n", "p.csv").unwrap_err();
        assert_eq!(e.to_string(), "p.csv: line 3: `board` is not a number: `x`");
        let e = parse_csv("board,white,blak\n", "p.csv").unwrap_err();
        assert!(e.to_string().contains("unknown column `blak`"));
        let e = parse_csv("board,white,black\n1,a,b\n1,c,d\n", "p.csv").unwrap_err();
        assert_eq!(e.to_string(), "p.csv: board 1 is paired twice");
    }

    #[test]
    fn toml_pairings_read_and_reject_unknown_keys() {
        let text = "round = 3\n[[pairing]]\nboard = 1\nwhite = { name = \"A\", fide_id = 7 }\nblack = { name = \"B\" }\n";
        let p = parse_toml(text, "p.toml").unwrap();
        assert_eq!(p.round, Some(3));
        assert_eq!(p.board(1).unwrap().white.fide_id, Some(7));
        let e = parse_toml(
            "[[pairing]]\nboard = 1\nwhite = { name = \"A\", elo = 7 }\nblack = { name = \"B\" }\n",
            "p.toml",
        )
        .unwrap_err();
        assert!(e.to_string().contains("elo"), "{e}");
    }
}
