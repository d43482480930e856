//! The open board protocol: text lines for boards of any size and game.
//!
//! Published for makers in `protocols/open.md`; this module is its
//! reference implementation. In short: ASCII lines ending in `\n` (a `\r`
//! before it is ignored), at most [`MAX_LINE`] characters; the board sends
//! `hello`, `board`, `up`, `down` and `#` lines, the host sends `?` and
//! `board?`. Unknown or malformed lines are skipped and counted, never
//! fatal.
//!
//! ```
//! use boardcast_protocols::open::{Decoder, Line};
//! use boardcast_protocols::reading::{Geometry, Square};
//! use bytes::BytesMut;
//!
//! let mut decoder = Decoder::new();
//! let mut buf = BytesMut::from(&b"hello xiangqi 9x10 id=42\r\nup h2\n"[..]);
//! let Ok(Some(Line::Hello(hello))) = decoder.decode(&mut buf) else { panic!() };
//! assert_eq!(hello.geometry, Geometry::XIANGQI);
//! assert_eq!(decoder.decode(&mut buf), Ok(Some(Line::Up(Square::new(7, 2)))));
//! ```

use std::fmt;

use bytes::BytesMut;

use crate::reading::{ClockReading, Content, Face, Geometry, Piece, Snapshot, Square};
use crate::stream::{Counters, MAX_REPORTED, StreamError};

/// The longest line, in characters, not counting the `\r\n` or `\n`.
pub const MAX_LINE: usize = 200;

/// The game a board is made for; it fixes the square names and the piece
/// letters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Game {
    /// Chess: ranks from 1, letters `KQRBNP`.
    #[default]
    Chess,
    /// Draughts: ranks from 1, letters `M` (man) and `K` (king).
    Draughts,
    /// Xiangqi: ranks from 0 (ICCS), letters `KABNRCP`.
    Xiangqi,
    /// Any game: ranks from 1, any letter except `o`.
    Any,
}

impl Game {
    /// The number of the first rank in square names (0 for xiangqi, else 1).
    pub const fn first_rank(self) -> u8 {
        match self {
            Game::Xiangqi => 0,
            _ => 1,
        }
    }

    /// The name used in `hello` lines.
    pub const fn name(self) -> &'static str {
        match self {
            Game::Chess => "chess",
            Game::Draughts => "draughts",
            Game::Xiangqi => "xiangqi",
            Game::Any => "any",
        }
    }

    /// The game named `name` in a `hello` line.
    pub fn from_name(name: &str) -> Option<Game> {
        Some(match name {
            "chess" => Game::Chess,
            "draughts" => Game::Draughts,
            "xiangqi" => Game::Xiangqi,
            "any" => Game::Any,
            _ => return None,
        })
    }

    /// The usual board of the game (8 × 8, or 9 × 10 for xiangqi).
    pub const fn default_geometry(self) -> Geometry {
        match self {
            Game::Xiangqi => Geometry::XIANGQI,
            _ => Geometry::CHESS,
        }
    }

    /// The piece `letter` stands for in this game, if it is one.
    pub fn piece(self, letter: char) -> Option<Piece> {
        let upper = letter.to_ascii_uppercase();
        let ok = match self {
            Game::Chess => "KQRBNP".contains(upper),
            Game::Draughts => "MK".contains(upper),
            Game::Xiangqi => "KABNRCP".contains(upper),
            Game::Any => letter != 'o',
        };
        if ok { Piece::from_letter(letter) } else { None }
    }
}

impl fmt::Display for Game {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A board's `hello` line.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Hello {
    /// The game the board is made for.
    pub game: Game,
    /// Files × ranks.
    pub geometry: Geometry,
    /// `id=`: serial number.
    pub id: Option<String>,
    /// `pieces=yes|no`: whether the board identifies pieces (`None` when
    /// not said).
    pub pieces: Option<bool>,
    /// `name=`: maker or model.
    pub name: Option<String>,
    /// Other `key=value` words, in order.
    pub extra: Vec<(String, String)>,
}

/// A board → host line.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Line {
    /// `hello <game> <files>x<ranks> [key=value ...]`.
    Hello(Hello),
    /// `board <cells>`: the whole board.
    Board(Snapshot),
    /// `up <square>`: a piece left the square.
    Up(Square),
    /// `down <square> [<piece>]`: a piece was set down.
    Down {
        /// The square.
        square: Square,
        /// The piece, when the board identifies it.
        piece: Option<Piece>,
    },
    /// `# text`: a diagnostic for the log.
    Diagnostic(String),
    /// `clock <left> <right> [run=left|right|none] [flag=left|right]
    /// [battery=low]`: a clock connected to the board, its two faces as
    /// seen from the front.
    Clock(ClockReading),
    /// `clock none`: no clock is connected to the board.
    NoClock,
}

impl Line {
    /// The line as a board of `game` sends it, `\n` included.
    pub fn encode(&self, game: Game) -> String {
        let first = game.first_rank();
        match self {
            Line::Hello(h) => {
                let mut s = format!(
                    "hello {} {}x{}",
                    h.game,
                    h.geometry.files(),
                    h.geometry.ranks()
                );
                if let Some(id) = &h.id {
                    s += &format!(" id={id}");
                }
                if let Some(p) = h.pieces {
                    s += if p { " pieces=yes" } else { " pieces=no" };
                }
                if let Some(name) = &h.name {
                    s += &format!(" name={name}");
                }
                for (k, v) in &h.extra {
                    s += &format!(" {k}={v}");
                }
                s + "\n"
            }
            Line::Board(snap) => format!("board {}\n", snap.to_cells_string()),
            Line::Up(sq) => format!("up {}\n", sq.name(first)),
            Line::Down { square, piece } => match piece {
                Some(p) => format!("down {} {p}\n", square.name(first)),
                None => format!("down {}\n", square.name(first)),
            },
            Line::Diagnostic(text) => format!("# {text}\n"),
            Line::Clock(c) => {
                let mut s = format!("clock {} {}", clock_time(c.left), clock_time(c.right));
                s += match c.running {
                    Some(Face::Left) => " run=left",
                    Some(Face::Right) => " run=right",
                    None => " run=none",
                };
                if let Some(face) = c.flag {
                    s += &format!(" flag={}", face.name());
                }
                if c.battery_low {
                    s += " battery=low";
                }
                s + "\n"
            }
            Line::NoClock => "clock none\n".to_owned(),
        }
    }

    /// The reading this line stands for (`hello` and `#` lines are none;
    /// identity comes from [`Hello`]).
    pub fn reading(&self) -> Option<crate::reading::Reading> {
        use crate::reading::{Identity, Reading, SquareChange};
        Some(match self {
            Line::Hello(h) => Reading::Identity(Identity {
                serial: h.id.clone(),
                version: None,
                name: h.name.clone(),
            }),
            Line::Board(snap) => Reading::Snapshot(snap.clone()),
            Line::Up(square) => Reading::Square(SquareChange {
                square: *square,
                content: Content::Empty,
            }),
            Line::Down { square, piece } => Reading::Square(SquareChange {
                square: *square,
                content: piece.map_or(Content::Occupied, Content::Piece),
            }),
            Line::Clock(c) => Reading::Clock(*c),
            Line::NoClock => Reading::NoClock,
            Line::Diagnostic(_) => return None,
        })
    }
}

/// A host → board line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HostLine {
    /// `?`: send `hello`.
    Hello,
    /// `board?`: send `board`.
    Board,
}

impl HostLine {
    /// The line's bytes, `\n` included.
    pub fn to_bytes(self) -> &'static [u8] {
        match self {
            HostLine::Hello => b"?\n",
            HostLine::Board => b"board?\n",
        }
    }
}

/// Splits a byte stream into lines of at most [`MAX_LINE`] characters.
#[derive(Debug, Default)]
struct LineReader {
    /// Dropping the rest of an over-long line (already reported).
    discarding: bool,
    counters: Counters,
}

impl LineReader {
    /// The next non-empty line (without its line end), or an error for a
    /// line that is too long or not text. `Ok(None)`: wait for more bytes.
    fn next_line(&mut self, buf: &mut BytesMut) -> Result<Option<String>, StreamError> {
        loop {
            // Design: `\n` ends a line (a `\r` before it is dropped below);
            // a lone `\r` ends one too, for writers that end lines that
            // way: the `\n` of a `\r\n` then ends an empty line, skipped.
            let Some(end) = buf.iter().position(|&b| b == b'\n' || b == b'\r') else {
                if self.discarding {
                    buf.clear();
                } else if buf.len() > MAX_LINE + 1 {
                    self.discarding = true;
                    let bytes = buf.split().to_vec();
                    return Err(StreamError::Malformed {
                        reason: "line longer than 200 characters",
                        bytes: bytes[..bytes.len().min(MAX_REPORTED)].to_vec(),
                    });
                }
                return Ok(None);
            };
            let raw = buf.split_to(end + 1);
            if std::mem::take(&mut self.discarding) {
                continue;
            }
            let line = &raw[..end];
            if line.len() > MAX_LINE {
                return Err(StreamError::Malformed {
                    reason: "line longer than 200 characters",
                    bytes: raw[..raw.len().min(MAX_REPORTED)].to_vec(),
                });
            }
            if line
                .iter()
                .any(|&b| !(b == b' ' || b == b'\t' || b.is_ascii_graphic()))
            {
                return Err(StreamError::Skipped {
                    bytes: raw.to_vec(),
                });
            }
            let text = String::from_utf8_lossy(line).trim().to_owned();
            if !text.is_empty() {
                return Ok(Some(text));
            }
        }
    }
}

/// Board → host decoder.
///
/// Until the board says `hello`, the decoder assumes the game and geometry
/// it was made with ([`Decoder::new`]: chess on 8 × 8); a `hello` line
/// replaces both. Lines that are not text are skipped as garbage
/// ([`StreamError::Skipped`]); lines too long, unknown, or with bad squares,
/// letters or cell counts are skipped as [`StreamError::Malformed`]. The
/// counters count both.
#[derive(Debug)]
pub struct Decoder {
    lines: LineReader,
    game: Game,
    geometry: Geometry,
}

impl Default for Decoder {
    fn default() -> Decoder {
        Decoder::new()
    }
}

impl Decoder {
    /// A decoder for a chess board of 8 × 8 until a `hello` says otherwise.
    pub fn new() -> Decoder {
        Decoder::with_game(Game::Chess, Geometry::CHESS)
    }

    /// A decoder for `game` on `geometry` until a `hello` says otherwise.
    pub fn with_game(game: Game, geometry: Geometry) -> Decoder {
        Decoder {
            lines: LineReader::default(),
            game,
            geometry,
        }
    }

    /// The game in force.
    pub fn game(&self) -> Game {
        self.game
    }

    /// The geometry in force.
    pub fn geometry(&self) -> Geometry {
        self.geometry
    }

    /// What the decoder has seen so far (skipped bytes count garbage lines;
    /// `malformed` counts unknown and malformed lines).
    pub fn counters(&self) -> Counters {
        self.lines.counters
    }

    /// Takes one line off the front of `buf`: `Ok(None)` when no complete
    /// line is there (nothing consumed except blank lines and the rest of an
    /// over-long line already reported), an error when a line was dropped
    /// (call again).
    pub fn decode(&mut self, buf: &mut BytesMut) -> Result<Option<Line>, StreamError> {
        let result = match self.lines.next_line(buf) {
            Ok(Some(text)) => self.parse(&text).map(Some).map_err(|reason| {
                let mut bytes = text.into_bytes();
                bytes.truncate(MAX_REPORTED);
                StreamError::Malformed { reason, bytes }
            }),
            other => other.map(|_| None),
        };
        if let Ok(Some(Line::Hello(h))) = &result {
            self.game = h.game;
            self.geometry = h.geometry;
        }
        self.lines.counters.count(&result);
        result
    }

    /// Reads one line that arrived on its own (one MQTT message), without
    /// its line end (a trailing `\r` is ignored): counted as
    /// [`Decoder::decode`] counts, and a `hello` changes the game and
    /// geometry in force. A message holding a line break is malformed.
    pub fn decode_message(&mut self, payload: &[u8]) -> Result<Option<Line>, StreamError> {
        if payload.contains(&b'\n') {
            let result = Err(StreamError::Malformed {
                reason: "one line per message",
                bytes: payload[..payload.len().min(MAX_REPORTED)].to_vec(),
            });
            self.lines.counters.count::<Line>(&result);
            return result;
        }
        let mut buf = BytesMut::with_capacity(payload.len() + 1);
        buf.extend_from_slice(payload);
        buf.extend_from_slice(b"\n");
        self.lines.discarding = false;
        self.decode(&mut buf)
    }

    /// Reads one line's text (without its line end) against the game and
    /// geometry in force. Does not count and changes nothing.
    pub fn parse(&self, text: &str) -> Result<Line, &'static str> {
        let text = text.trim();
        if let Some(rest) = text.strip_prefix('#') {
            return Ok(Line::Diagnostic(rest.trim().to_owned()));
        }
        let mut words = text.split_ascii_whitespace();
        // Design: keywords and square names are lower case, but a host
        // reads them in any case (`UP E2` is `up e2`); piece letters keep
        // their case, which tells the colours apart.
        let keyword = words.next().ok_or("empty line")?.to_ascii_lowercase();
        let square = |w: Option<&str>| -> Result<Square, &'static str> {
            let name = w.ok_or("square missing")?.to_ascii_lowercase();
            let sq = Square::parse(&name, self.game.first_rank()).ok_or("not a square name")?;
            if self.geometry.contains(sq) {
                Ok(sq)
            } else {
                Err("square off the board")
            }
        };
        let line = match keyword.as_str() {
            "hello" => Line::Hello(parse_hello(words.by_ref())?),
            "board" => {
                let cells = expand_fen(words.next().ok_or("cells missing")?)?;
                if cells.len() != self.geometry.len() {
                    return Err("cell count does not match the board's files x ranks");
                }
                let cells = cells
                    .chars()
                    .map(|c| match c {
                        '.' => Ok(Content::Empty),
                        'o' => Ok(Content::Occupied),
                        c => self
                            .game
                            .piece(c)
                            .map(Content::Piece)
                            .ok_or("not a piece letter of this game"),
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                Line::Board(Snapshot::new(self.geometry, cells).ok_or("cell count")?)
            }
            "up" => Line::Up(square(words.next())?),
            "down" => {
                let sq = square(words.next())?;
                let piece = match words.next() {
                    None | Some("o") => None,
                    Some(w) => {
                        let mut chars = w.chars();
                        let (Some(c), None) = (chars.next(), chars.next()) else {
                            return Err("piece must be one letter");
                        };
                        Some(
                            self.game
                                .piece(c)
                                .ok_or("not a piece letter of this game")?,
                        )
                    }
                };
                Line::Down { square: sq, piece }
            }
            "clock" => parse_clock(words.by_ref())?,
            _ => return Err("unknown line"),
        };
        if words.next().is_some() {
            return Err("unexpected words at the end of the line");
        }
        Ok(line)
    }
}

/// The time on a clock face as a `clock` line writes it: `h:mm:ss`.
fn clock_time(seconds: u32) -> String {
    format!(
        "{}:{:02}:{:02}",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    )
}

/// The longest time a clock face may show: 99:59:59.
const MAX_CLOCK_SECONDS: u32 = 99 * 3600 + 59 * 60 + 59;

/// A face's time: `h:mm:ss`, `m:ss` or whole seconds.
fn parse_clock_time(word: &str) -> Result<u32, &'static str> {
    const BAD: &str = "clock time is not h:mm:ss, m:ss or seconds";
    let mut total: u32 = 0;
    let parts: Vec<&str> = word.split(':').collect();
    if parts.len() > 3 {
        return Err(BAD);
    }
    for (i, part) in parts.iter().enumerate() {
        if part.is_empty() || part.len() > 5 || !part.bytes().all(|b| b.is_ascii_digit()) {
            return Err(BAD);
        }
        let n: u32 = part.parse().map_err(|_| BAD)?;
        if i > 0 && (n > 59 || part.len() != 2) {
            return Err(BAD);
        }
        total = total
            .checked_mul(60)
            .and_then(|t| t.checked_add(n))
            .ok_or(BAD)?;
    }
    if total > MAX_CLOCK_SECONDS {
        return Err("clock time over 99:59:59");
    }
    Ok(total)
}

/// The words of a `clock` line after the keyword.
fn parse_clock<'a>(words: &mut impl Iterator<Item = &'a str>) -> Result<Line, &'static str> {
    let first = words.next().ok_or("clock times missing")?;
    if first.eq_ignore_ascii_case("none") {
        return Ok(Line::NoClock);
    }
    let left = parse_clock_time(first)?;
    let right = parse_clock_time(words.next().ok_or("right clock time missing")?)?;
    let mut reading = ClockReading {
        left,
        right,
        running: None,
        flag: None,
        battery_low: false,
    };
    let face = |v: &str| match v.to_ascii_lowercase().as_str() {
        "left" => Ok(Some(Face::Left)),
        "right" => Ok(Some(Face::Right)),
        "none" => Ok(None),
        _ => Err("clock face is not left, right or none"),
    };
    for word in words {
        let (key, value) = word
            .split_once('=')
            .ok_or("clock option is not key=value")?;
        match key.to_ascii_lowercase().as_str() {
            "run" => reading.running = face(value)?,
            "flag" => reading.flag = face(value)?,
            "battery" => reading.battery_low = value.eq_ignore_ascii_case("low"),
            // Later versions may add keys: skipped, as hello keys are.
            _ => {}
        }
    }
    Ok(Line::Clock(reading))
}

/// The cells of a `board` line; a FEN placement (ranks separated by `/`,
/// runs of empty squares as numbers) is read too, for writers that send one.
fn expand_fen(cells: &str) -> Result<std::borrow::Cow<'_, str>, &'static str> {
    if !cells.contains('/') {
        return Ok(cells.into());
    }
    let mut out = String::with_capacity(MAX_LINE);
    let mut run = 0usize;
    for c in cells.chars() {
        if let Some(d) = c.to_digit(10) {
            run = run * 10 + d as usize;
            if run > MAX_LINE {
                return Err("cell count does not match the board's files x ranks");
            }
            continue;
        }
        out.extend(std::iter::repeat_n('.', std::mem::take(&mut run)));
        if c != '/' {
            out.push(c);
        }
    }
    out.extend(std::iter::repeat_n('.', run));
    Ok(out.into())
}

fn parse_hello<'a>(words: &mut impl Iterator<Item = &'a str>) -> Result<Hello, &'static str> {
    let game = Game::from_name(&words.next().ok_or("game missing")?.to_ascii_lowercase())
        .ok_or("unknown game")?;
    let size = words.next().ok_or("size missing")?.to_ascii_lowercase();
    let (files, ranks) = size.split_once('x').ok_or("size must be <files>x<ranks>")?;
    let number = |s: &str| -> Result<u8, &'static str> {
        if s.is_empty() || s.len() > 2 || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err("size must be <files>x<ranks>");
        }
        s.parse().map_err(|_| "size must be <files>x<ranks>")
    };
    let geometry = Geometry::new(number(files)?, number(ranks)?)
        .ok_or("size out of range (1-26 files, 1-99 ranks)")?;
    if geometry.len() > MAX_LINE - "board ".len() {
        return Err("board too large for a board line");
    }
    let mut hello = Hello {
        game,
        geometry,
        id: None,
        pieces: None,
        name: None,
        extra: Vec::new(),
    };
    for word in words {
        let (key, value) = word.split_once('=').ok_or("expected key=value")?;
        if key.is_empty() {
            return Err("expected key=value");
        }
        match key.to_ascii_lowercase().as_str() {
            "id" => hello.id = Some(value.to_owned()),
            "name" => hello.name = Some(value.to_owned()),
            "pieces" => {
                hello.pieces = Some(match value.to_ascii_lowercase().as_str() {
                    "yes" => true,
                    "no" => false,
                    _ => return Err("pieces must be yes or no"),
                })
            }
            _ => hello.extra.push((key.to_owned(), value.to_owned())),
        }
    }
    Ok(hello)
}

/// Host → board decoder (for simulated boards).
#[derive(Debug, Default)]
pub struct HostDecoder {
    lines: LineReader,
}

impl HostDecoder {
    /// A decoder at the start of a stream.
    pub fn new() -> HostDecoder {
        HostDecoder::default()
    }

    /// What the decoder has seen so far.
    pub fn counters(&self) -> Counters {
        self.lines.counters
    }

    /// Takes one line off the front of `buf` (same contract as
    /// [`Decoder::decode`]).
    pub fn decode(&mut self, buf: &mut BytesMut) -> Result<Option<HostLine>, StreamError> {
        let result = match self.lines.next_line(buf) {
            Ok(Some(text)) => match text.as_str() {
                "?" => Ok(Some(HostLine::Hello)),
                "board?" => Ok(Some(HostLine::Board)),
                _ => Err(StreamError::Malformed {
                    reason: "unknown line",
                    bytes: text.into_bytes(),
                }),
            },
            other => other.map(|_| None),
        };
        self.lines.counters.count(&result);
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_all(decoder: &mut Decoder, bytes: &[u8]) -> (Vec<Line>, Vec<StreamError>) {
        let mut buf = BytesMut::from(bytes);
        let mut lines = Vec::new();
        let mut errors = Vec::new();
        loop {
            match decoder.decode(&mut buf) {
                Ok(Some(l)) => lines.push(l),
                Ok(None) => break,
                Err(e) => errors.push(e),
            }
        }
        (lines, errors)
    }

    fn piece(c: char) -> Option<Piece> {
        Piece::from_letter(c)
    }

    #[test]
    fn a_chess_session_decodes() {
        let mut decoder = Decoder::new();
        let text = b"hello chess 8x8 id=B-17 pieces=yes name=ReedBoard fw=2\r\n\
            # calibrated\n\
            board rnbqkbnrpppppppp................................PPPPPPPPRNBQKBNR\n\
            up e2\n\
            down e4 P\n";
        let (lines, errors) = decode_all(&mut decoder, text);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(lines.len(), 5);
        let Line::Hello(h) = &lines[0] else { panic!() };
        assert_eq!(h.id.as_deref(), Some("B-17"));
        assert_eq!(h.pieces, Some(true));
        assert_eq!(h.extra, [("fw".to_owned(), "2".to_owned())]);
        assert_eq!(lines[1], Line::Diagnostic("calibrated".into()));
        assert_eq!(lines[3], Line::Up(Square::new(4, 1)));
        assert_eq!(
            lines[4],
            Line::Down {
                square: Square::new(4, 3),
                piece: piece('P')
            }
        );
        for line in &lines {
            let again = line.encode(Game::Chess);
            assert_eq!(decoder.parse(again.trim_end()), Ok(line.clone()));
        }
    }

    /// What other writers may send: upper-case keywords and squares, lines
    /// ended by a lone `\r`, a FEN placement for `board`, `o` cells, unknown
    /// `hello` keys, `YES`; and a board that never says `hello` is read as
    /// a chess board.
    #[test]
    fn lenient_variants_of_other_writers_decode() {
        let mut decoder = Decoder::new();
        let text = b"UP E2\rDown E4 P\r\nboard rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR\n\
            board oooooooo/oooooooo/8/8/8/8/oooooooo/oooooooo\r\n\
            Hello Chess 8X8 ID=x1 Pieces=NO colour=green\r\nDOWN e4 o\n";
        let (lines, errors) = decode_all(&mut decoder, text);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(lines[0], Line::Up(Square::new(4, 1)));
        assert_eq!(
            lines[1],
            Line::Down {
                square: Square::new(4, 3),
                piece: piece('P')
            }
        );
        let Line::Board(after) = &lines[2] else {
            panic!("{:?}", lines[2])
        };
        assert_eq!(
            after.to_cells_string(),
            "rnbqkbnrpppppppp....................P...........PPPP.PPPRNBQKBNR"
        );
        let Line::Board(occupancy) = &lines[3] else {
            panic!()
        };
        assert_eq!(
            occupancy
                .cells()
                .iter()
                .filter(|c| **c == Content::Occupied)
                .count(),
            32
        );
        let Line::Hello(h) = &lines[4] else { panic!() };
        assert_eq!(
            (h.pieces, h.id.as_deref(), h.geometry),
            (Some(false), Some("x1"), Geometry::CHESS)
        );
        assert_eq!(
            lines[5],
            Line::Down {
                square: Square::new(4, 3),
                piece: None
            }
        );
        // A FEN placement of the wrong size is still refused.
        assert!(decoder.parse("board 8/8/8/8/8/8/8").is_err());
        assert!(decoder.parse("board 9/8/8/8/8/8/8/8").is_err());
    }

    #[test]
    fn xiangqi_squares_run_from_a0_to_i9() {
        let mut decoder = Decoder::new();
        let (lines, errors) = decode_all(
            &mut decoder,
            b"hello xiangqi 9x10\nup a0\ndown i9 C\nup j0\nup a10\n",
        );
        assert_eq!(lines[1], Line::Up(Square::new(0, 0)));
        assert_eq!(
            lines[2],
            Line::Down {
                square: Square::new(8, 9),
                piece: piece('C')
            }
        );
        assert_eq!(errors.len(), 2);
        assert_eq!(decoder.counters().malformed, 2);
    }

    #[test]
    fn occupancy_boards_of_any_size() {
        let mut decoder = Decoder::new();
        let board = format!("board {}\n", "o".repeat(100));
        let text = format!("hello any 10x10 pieces=no\n{board}down j10\n");
        let (lines, errors) = decode_all(&mut decoder, text.as_bytes());
        assert!(errors.is_empty(), "{errors:?}");
        let Line::Board(snap) = &lines[1] else {
            panic!()
        };
        assert!(snap.cells().iter().all(|c| *c == Content::Occupied));
        assert_eq!(
            lines[2],
            Line::Down {
                square: Square::new(9, 9),
                piece: None
            }
        );
    }

    #[test]
    fn malformed_and_unknown_lines_are_skipped_and_counted() {
        let mut decoder = Decoder::new();
        let text = b"frobnicate 3\nup\nup z9\ndown e4 X\nboard ...\nhello chess 8x\n\
            hello go 19x19\n\x01\x02\xff\nup e2 now\nup e2\n";
        let (lines, errors) = decode_all(&mut decoder, text);
        assert_eq!(lines, [Line::Up(Square::new(4, 1))]);
        assert_eq!(errors.len(), 9);
        assert!(matches!(errors[7], StreamError::Skipped { .. }));
        let counters = decoder.counters();
        assert_eq!(counters.malformed, 8);
        assert_eq!(counters.skipped_bytes, 4);
        assert_eq!(counters.decoded, 1);
    }

    #[test]
    fn lines_over_200_characters_are_dropped_once_even_in_pieces() {
        let mut decoder = Decoder::new();
        let mut buf = BytesMut::new();
        let long = format!("# {}", "x".repeat(300));
        buf.extend_from_slice(&long.as_bytes()[..250]);
        assert!(matches!(
            decoder.decode(&mut buf),
            Err(StreamError::Malformed { .. })
        ));
        assert_eq!(decoder.decode(&mut buf), Ok(None));
        buf.extend_from_slice(&long.as_bytes()[250..]);
        buf.extend_from_slice(b"\nup e2\n");
        assert_eq!(
            decoder.decode(&mut buf),
            Ok(Some(Line::Up(Square::new(4, 1))))
        );
        assert_eq!(decoder.counters().malformed, 1);
        // Exactly 200 characters plus \r\n is fine.
        let ok = format!("# {}\r\n", "y".repeat(198));
        let (lines, errors) = decode_all(&mut decoder, ok.as_bytes());
        assert_eq!(lines.len(), 1);
        assert!(errors.is_empty());
    }

    #[test]
    fn draughts_men_and_kings() {
        let mut decoder = Decoder::new();
        let (lines, errors) = decode_all(
            &mut decoder,
            b"hello draughts 8x8\ndown e8 M\ndown e8 K\ndown a1 Q\n",
        );
        assert_eq!(lines.len(), 3);
        assert_eq!(errors.len(), 1);
    }

    /// The examples of the published specification decode as it says.
    #[test]
    fn the_examples_in_open_md_decode() {
        let spec = include_str!("../open.md");
        let examples = &spec[spec.find("## 7. Examples").unwrap()..spec.find("## 8.").unwrap()];
        let (good, bad) = examples.split_at(examples.find("Lines a host skips").unwrap());
        let mut decoder = Decoder::new();
        let mut board_lines = 0;
        for line in good.lines() {
            if let Some(text) = line.trim().strip_prefix("board: ") {
                let mut buf = BytesMut::from(format!("{text}\r\n").as_bytes());
                let decoded = decoder.decode(&mut buf);
                assert!(matches!(decoded, Ok(Some(_))), "{text}: {decoded:?}");
                board_lines += 1;
            } else if let Some(text) = line.trim().strip_prefix("host: ") {
                let mut buf = BytesMut::from(format!("{text}\n").as_bytes());
                assert!(
                    matches!(HostDecoder::new().decode(&mut buf), Ok(Some(_))),
                    "{text}"
                );
            }
        }
        assert_eq!(board_lines, 26);
        assert_eq!(decoder.counters().malformed, 0);
        let decoder = Decoder::new();
        let mut skipped = 0;
        for line in bad.lines().filter(|l| l.starts_with("    ")) {
            let text = line.trim().split("  ").next().unwrap();
            assert!(decoder.parse(text).is_err(), "{text}");
            skipped += 1;
        }
        assert_eq!(skipped, 6);
    }

    #[test]
    fn mqtt_messages_are_single_lines() {
        let mut decoder = Decoder::new();
        assert!(matches!(
            decoder.decode_message(b"hello xiangqi 9x10"),
            Ok(Some(Line::Hello(_)))
        ));
        assert_eq!(
            decoder.decode_message(b"up a0\r"),
            Ok(Some(Line::Up(Square::new(0, 0))))
        );
        assert!(decoder.decode_message(b"up a10").is_err());
        assert_eq!(decoder.decode_message(b""), Ok(None));
        assert!(decoder.decode_message("x".repeat(300).as_bytes()).is_err());
        assert_eq!(
            decoder.decode_message(b"up i9"),
            Ok(Some(Line::Up(Square::new(8, 9))))
        );
        assert!(decoder.decode_message(b"up a1\nup a2").is_err());
        assert_eq!(decoder.counters().malformed, 3);
    }

    #[test]
    fn host_lines_round_trip() {
        let mut decoder = HostDecoder::new();
        let mut buf = BytesMut::new();
        buf.extend_from_slice(HostLine::Hello.to_bytes());
        buf.extend_from_slice(b"what\r\n");
        buf.extend_from_slice(HostLine::Board.to_bytes());
        assert_eq!(decoder.decode(&mut buf), Ok(Some(HostLine::Hello)));
        assert!(decoder.decode(&mut buf).is_err());
        assert_eq!(decoder.decode(&mut buf), Ok(Some(HostLine::Board)));
        assert_eq!(decoder.decode(&mut buf), Ok(None));
    }

    #[test]
    fn clock_lines_read_in_every_time_form_and_write_back() {
        let mut d = Decoder::with_game(Game::Draughts, Game::Draughts.default_geometry());
        let (lines, errors) = decode_all(
            &mut d,
            b"clock 1:30:00 5:07 run=left\nclock 300 0 run=none flag=right battery=low\nclock none\n\
              clock 1:60:00 3\nclock 5\nclock 5 5 run=up\nclock 5 5 later=1\nclock 100:00:00 1\n",
        );
        let reading = |left, right, running, flag, battery_low| {
            Line::Clock(ClockReading {
                left,
                right,
                running,
                flag,
                battery_low,
            })
        };
        assert_eq!(
            lines,
            [
                reading(5400, 307, Some(Face::Left), None, false),
                reading(300, 0, None, Some(Face::Right), true),
                Line::NoClock,
                reading(5, 5, None, None, false),
            ]
        );
        // 1:60:00, one time only, an unknown face and over 99:59:59.
        assert_eq!(errors.len(), 4, "{errors:?}");
        for line in &lines {
            let text = line.encode(Game::Draughts);
            let (again, errors) = decode_all(&mut d, text.as_bytes());
            assert_eq!(
                (again.as_slice(), errors.len()),
                (std::slice::from_ref(line), 0),
                "{text}"
            );
        }
        assert_eq!(
            lines[0].encode(Game::Xiangqi),
            "clock 1:30:00 0:05:07 run=left\n"
        );
    }
}
