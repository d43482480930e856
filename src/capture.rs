//! Capture files: the board "black box" (interface section 2).
//!
//! A capture is UTF-8 text. The first line is a header comment naming the
//! protocol (`# boardcast capture v1 protocol=dgt`); every other non-blank,
//! non-comment line is `<t_ms> <dir> <hex bytes>`, with `<` for bytes from the
//! board and `>` for bytes to it. Lines carry arbitrary slices of the byte
//! stream: frames are reassembled by the protocol decoder, not here.

use std::io::{self, BufRead, Write};

use crate::event::Millis;
use crate::family::Family;

/// The header word naming the capture a session resumed (a file name in
/// the same folder): `boardcast replay` plays it first.
pub const RESUMED_FROM: &str = "resumed_from";

/// Which way bytes travelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Board to host (`<`).
    FromBoard,
    /// Host to board (`>`).
    ToBoard,
    /// An operator's correction, applied at this time; the bytes are the
    /// command's JSON. Written as a comment line, `# command <t_ms>
    /// <json>`, so that readers that know nothing of corrections read the
    /// capture as before.
    Operator,
    /// The line was opened here (a connection, or the board read whole
    /// again): the family's decoder starts afresh
    /// ([`Driver::reopen`](crate::family::Driver::reopen)). No bytes.
    /// Written as a comment line, `# opened <t_ms>`.
    Opened,
}

/// What starts the comment line of a correction ([`Direction::Operator`]).
const COMMAND_PREFIX: &str = "# command ";

/// What starts the comment line of a line opened ([`Direction::Opened`]).
const OPENED_PREFIX: &str = "# opened ";

impl Direction {
    fn symbol(self) -> char {
        match self {
            Direction::FromBoard => '<',
            Direction::ToBoard => '>',
            Direction::Operator | Direction::Opened => '#',
        }
    }
}

/// The header line's content.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The protocol of the traffic.
    pub protocol: Family,
    /// Other `key=value` words on the header line, in order.
    pub meta: Vec<(String, String)>,
}

impl Header {
    /// The value of the header word `key`, if the header has it.
    pub fn word(&self, key: &str) -> Option<&str> {
        self.meta
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// A run of bytes with its time and direction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// Milliseconds since the capture started.
    pub t_ms: Millis,
    /// Which way the bytes went.
    pub dir: Direction,
    /// The bytes.
    pub bytes: Vec<u8>,
}

/// Why a capture could not be read. Every variant names the 1-based line.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    /// Reading failed.
    #[error("line {line}: {error}")]
    Io {
        /// The line being read.
        line: usize,
        /// The I/O error.
        error: io::Error,
    },
    /// The first line is not a capture header.
    #[error("line {line}: expected the header `# boardcast capture v1 protocol=<name>`")]
    MissingHeader {
        /// The line.
        line: usize,
    },
    /// The header names a protocol boardcast does not speak.
    #[error("line {line}: unknown protocol `{name}`")]
    UnknownProtocol {
        /// The line.
        line: usize,
        /// The protocol named.
        name: String,
    },
    /// A line is neither blank, a comment, nor `<t_ms> <dir> <hex bytes>`.
    #[error("line {line}: {reason}")]
    Malformed {
        /// The line.
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
}

/// Reads a capture line by line.
#[derive(Debug)]
pub struct Reader<R> {
    input: R,
    line: usize,
    last_t: Millis,
    buf: Vec<u8>,
    cut: Option<usize>,
}

impl<R: BufRead> Reader<R> {
    /// Reads the header and returns it with a reader positioned after it.
    pub fn new(mut input: R) -> Result<(Header, Reader<R>), CaptureError> {
        let mut buf = String::new();
        let mut line = 0;
        // Blank lines before the header are tolerated.
        loop {
            buf.clear();
            line += 1;
            let n = input
                .read_line(&mut buf)
                .map_err(|error| CaptureError::Io { line, error })?;
            if n == 0 {
                return Err(CaptureError::MissingHeader { line });
            }
            if !buf.trim().is_empty() {
                break;
            }
        }
        let header = parse_header(buf.trim(), line)?;
        Ok((
            header,
            Reader {
                input,
                line,
                last_t: 0,
                buf: Vec::new(),
                cut: None,
            },
        ))
    }

    /// The next chunk, `None` at the end of the file.
    pub fn next_chunk(&mut self) -> Result<Option<Chunk>, CaptureError> {
        loop {
            self.buf.clear();
            self.line += 1;
            let line = self.line;
            let n = self
                .input
                .read_until(b'\n', &mut self.buf)
                .map_err(|error| CaptureError::Io { line, error })?;
            if n == 0 {
                return Ok(None);
            }
            // Design: a recorder that lost power or a full disk can leave
            // the last line cut short (no newline, perhaps mid-byte or in
            // the middle of a character). What came before is still good:
            // the cut line is dropped and reported by `cut_last_line`; a
            // malformed line anywhere else is still an error.
            let last = self.buf.last() != Some(&b'\n');
            let Ok(text) = std::str::from_utf8(&self.buf) else {
                if last {
                    self.cut = Some(line);
                    return Ok(None);
                }
                return Err(CaptureError::Malformed {
                    line,
                    reason: "not UTF-8 text".into(),
                });
            };
            let text = text.trim();
            if let Some(chunk) = opened_line(text) {
                return self.in_order(chunk, line).map(Some);
            }
            if let Some(chunk) = command_line(text) {
                if last && !whole_json(&chunk.bytes) {
                    self.cut = Some(line);
                    return Ok(None);
                }
                return self.in_order(chunk, line).map(Some);
            }
            if text.is_empty() || text.starts_with('#') {
                continue;
            }
            let chunk = match parse_line(text, line) {
                Ok(chunk) => chunk,
                Err(_) if last => {
                    self.cut = Some(line);
                    return Ok(None);
                }
                Err(e) => return Err(e),
            };
            return self.in_order(chunk, line).map(Some);
        }
    }

    /// `chunk`, read on `line`, when its time is not earlier than the
    /// line before's.
    fn in_order(&mut self, chunk: Chunk, line: usize) -> Result<Chunk, CaptureError> {
        if chunk.t_ms < self.last_t {
            return Err(CaptureError::Malformed {
                line,
                reason: format!(
                    "time {} ms is earlier than the line before ({} ms)",
                    chunk.t_ms, self.last_t
                ),
            });
        }
        self.last_t = chunk.t_ms;
        Ok(chunk)
    }
}

impl<R> Reader<R> {
    /// The number of the last line, when it was cut short (no newline and
    /// not a whole line) and so left out.
    pub fn cut_last_line(&self) -> Option<usize> {
        self.cut
    }
}

impl<R: BufRead> Iterator for Reader<R> {
    type Item = Result<Chunk, CaptureError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_chunk().transpose()
    }
}

fn parse_header(text: &str, line: usize) -> Result<Header, CaptureError> {
    // A byte-order mark (an editor on Windows) and `#boardcast` without
    // the space are read as the header they stand for.
    let text = text.trim_start_matches('\u{feff}');
    let Some(text) = text.strip_prefix('#') else {
        return Err(CaptureError::MissingHeader { line });
    };
    let mut words = text.split_whitespace();
    let prefix: Vec<String> = words
        .by_ref()
        .take(3)
        .map(|w| w.to_ascii_lowercase())
        .collect();
    if prefix != ["boardcast", "capture", "v1"] {
        return Err(CaptureError::MissingHeader { line });
    }
    let mut protocol = None;
    let mut meta = Vec::new();
    for word in words {
        let Some((key, value)) = word.split_once('=') else {
            return Err(CaptureError::Malformed {
                line,
                reason: format!("header word `{word}` is not key=value"),
            });
        };
        if key.eq_ignore_ascii_case("protocol") {
            protocol = Some(Family::from_header_name(value).ok_or_else(|| {
                CaptureError::UnknownProtocol {
                    line,
                    name: value.to_string(),
                }
            })?);
        } else {
            meta.push((key.to_string(), value.to_string()));
        }
    }
    let protocol = protocol.ok_or(CaptureError::MissingHeader { line })?;
    Ok(Header { protocol, meta })
}

/// Whether `json` is one whole JSON value (a command line cut short by a
/// crash is not).
fn whole_json(json: &[u8]) -> bool {
    serde_json::from_slice::<serde::de::IgnoredAny>(json).is_ok()
}

/// A correction's comment line (`# command <t_ms> <json>`) as a chunk;
/// `None` for any other line (a comment that only looks like one is a
/// comment). A cut last line is read as a comment too: the pipeline
/// reports JSON it cannot read.
fn command_line(text: &str) -> Option<Chunk> {
    let rest = text.strip_prefix(COMMAND_PREFIX)?;
    let (t, json) = rest.split_once(' ')?;
    let t_ms: Millis = t.parse().ok()?;
    let json = json.trim();
    json.starts_with("{").then(|| Chunk {
        t_ms,
        dir: Direction::Operator,
        bytes: json.as_bytes().to_vec(),
    })
}

/// A line-opened comment line (`# opened <t_ms>`) as a chunk; `None` for
/// any other line.
fn opened_line(text: &str) -> Option<Chunk> {
    let t_ms: Millis = text.strip_prefix(OPENED_PREFIX)?.trim().parse().ok()?;
    Some(Chunk {
        t_ms,
        dir: Direction::Opened,
        bytes: Vec::new(),
    })
}

fn parse_line(text: &str, line: usize) -> Result<Chunk, CaptureError> {
    parse_line_exact(text, line).or_else(|e| parse_line_loose(text, line).ok_or(e))
}

/// A line as other writers may lay it out: words separated by runs of
/// spaces or tabs, bytes as hex runs of even length (`8e0005`), with or
/// without `0x`. `None` when even so it is not a line of bytes.
fn parse_line_loose(text: &str, line: usize) -> Option<Chunk> {
    let mut words = text.split_ascii_whitespace();
    let t_ms: Millis = words.next()?.parse().ok()?;
    let dir = match words.next()? {
        "<" => Direction::FromBoard,
        ">" => Direction::ToBoard,
        _ => return None,
    };
    let mut bytes = Vec::new();
    for word in words {
        let hex = word
            .strip_prefix("0x")
            .or_else(|| word.strip_prefix("0X"))
            .unwrap_or(word)
            .as_bytes();
        if hex.is_empty() || hex.len() % 2 != 0 {
            return None;
        }
        for pair in hex.chunks_exact(2) {
            bytes.push(hex_value(pair[0])? << 4 | hex_value(pair[1])?);
        }
    }
    let _ = line;
    (!bytes.is_empty()).then_some(Chunk { t_ms, dir, bytes })
}

/// A line exactly as interface.md writes it.
fn parse_line_exact(text: &str, line: usize) -> Result<Chunk, CaptureError> {
    // Design: hand-written rather than split/parse, because replay speed is
    // bounded by this loop (millions of lines per second).
    let malformed = |reason: String| CaptureError::Malformed { line, reason };
    let b = text.as_bytes();
    let mut i = 0;
    let mut t_ms: Millis = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        t_ms = t_ms
            .checked_mul(10)
            .and_then(|t| t.checked_add(Millis::from(b[i] - b'0')))
            .ok_or_else(|| malformed("the time does not fit in 64 bits".into()))?;
        i += 1;
    }
    if i == 0 || b.get(i) != Some(&b' ') {
        return Err(malformed("expected a time in milliseconds first".into()));
    }
    let dir = match (b.get(i + 1), b.get(i + 2)) {
        (Some(b'<'), Some(b' ') | None) => Direction::FromBoard,
        (Some(b'>'), Some(b' ') | None) => Direction::ToBoard,
        _ => {
            let found = text[i + 1..].split(' ').next().unwrap_or("");
            return Err(malformed(format!(
                "expected `<` or `>` after the time, found `{found}`"
            )));
        }
    };
    i += 2;
    let mut bytes = Vec::with_capacity((b.len() - i) / 3);
    while i < b.len() {
        let word_ok = b[i] == b' ' && i + 3 <= b.len() && (i + 3 == b.len() || b[i + 3] == b' ');
        let digits = word_ok.then(|| (hex_value(b[i + 1]), hex_value(b[i + 2])));
        match digits {
            Some((Some(hi), Some(lo))) => {
                bytes.push(hi << 4 | lo);
                i += 3;
            }
            _ => {
                let word = text[(i + 1).min(b.len())..].split(' ').next().unwrap_or("");
                return Err(malformed(format!("`{word}` is not a two-digit hex byte")));
            }
        }
    }
    if bytes.is_empty() {
        return Err(malformed("no bytes on the line".into()));
    }
    Ok(Chunk { t_ms, dir, bytes })
}

fn hex_value(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

/// A header word with every character that would break the line
/// (whitespace, control characters) and `%` percent-encoded as UTF-8
/// bytes: a serial number with a newline in it stays on its line.
pub fn escape_word(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_whitespace() || c.is_control() || c == '%' || c == '=' {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Writes a capture.
#[derive(Debug)]
pub struct Writer<W: Write> {
    out: W,
}

impl<W: Write> Writer<W> {
    /// Writes the header line.
    pub fn new(mut out: W, header: &Header) -> io::Result<Writer<W>> {
        write!(
            out,
            "# boardcast capture v1 protocol={}",
            header.protocol.name()
        )?;
        for (k, v) in &header.meta {
            write!(out, " {}={}", escape_word(k), escape_word(v))?;
        }
        writeln!(out)?;
        Ok(Writer { out })
    }

    /// Writes one chunk as one line. Empty chunks are skipped, but for a
    /// line opened, which has no bytes.
    pub fn write_chunk(&mut self, t_ms: Millis, dir: Direction, bytes: &[u8]) -> io::Result<()> {
        if dir == Direction::Opened {
            return writeln!(self.out, "{OPENED_PREFIX}{t_ms}");
        }
        if bytes.is_empty() {
            return Ok(());
        }
        if dir == Direction::Operator {
            // One line whatever the JSON holds (serde_json writes none of
            // these raw; a hand-made command might).
            let json = String::from_utf8_lossy(bytes).replace(['\n', '\r'], " ");
            return writeln!(self.out, "{COMMAND_PREFIX}{t_ms} {json}");
        }
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut line = Vec::with_capacity(24 + bytes.len() * 3);
        line.extend_from_slice(t_ms.to_string().as_bytes());
        line.push(b' ');
        line.push(dir.symbol() as u8);
        for b in bytes {
            line.extend_from_slice(&[b' ', HEX[usize::from(b >> 4)], HEX[usize::from(b & 15)]]);
        }
        line.push(b'\n');
        self.out.write_all(&line)
    }

    /// Writes a comment line.
    pub fn write_comment(&mut self, text: &str) -> io::Result<()> {
        writeln!(self.out, "# {text}")
    }

    /// Flushes the underlying writer.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    /// A writer appending to a capture whose header is already written.
    pub fn append(out: W) -> Writer<W> {
        Writer { out }
    }

    /// The underlying writer.
    pub fn into_inner(self) -> W {
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(text: &str) -> Result<(Header, Vec<Chunk>), CaptureError> {
        let (h, r) = Reader::new(text.as_bytes())?;
        Ok((h, r.collect::<Result<Vec<_>, _>>()?))
    }

    #[test]
    fn a_correction_is_written_as_a_comment_and_read_back_in_its_place() {
        let mut w = Writer::append(Vec::new());
        w.write_chunk(10, Direction::FromBoard, &[0x8e]).unwrap();
        let json = br#"{"command":"set_result","result":"1-0"}"#;
        w.write_chunk(20, Direction::Operator, json).unwrap();
        w.write_chunk(30, Direction::FromBoard, &[0x8f]).unwrap();
        let body = String::from_utf8(w.into_inner()).unwrap();
        assert_eq!(
            body.lines().nth(1),
            Some(r#"# command 20 {"command":"set_result","result":"1-0"}"#)
        );
        let text = format!(
            "# boardcast capture v1 protocol=dgt\n{body}# command soon {{}}\n# commander\n"
        );
        let (_, chunks) = read_all(&text).unwrap();
        let dirs: Vec<(Millis, Direction)> = chunks.iter().map(|c| (c.t_ms, c.dir)).collect();
        assert_eq!(
            dirs,
            [
                (10, Direction::FromBoard),
                (20, Direction::Operator),
                (30, Direction::FromBoard)
            ]
        );
        assert_eq!(chunks[1].bytes, json);
        // Its time is in the capture's order like any line's.
        let text = "# boardcast capture v1 protocol=dgt\n50 < 8e\n# command 40 {}\n";
        assert!(matches!(
            read_all(text),
            Err(CaptureError::Malformed { line: 3, .. })
        ));
    }

    #[test]
    fn a_line_opened_is_a_comment_read_back_in_its_place() {
        let mut w = Writer::append(Vec::new());
        w.write_chunk(10, Direction::FromBoard, &[0x8e]).unwrap();
        w.write_chunk(20, Direction::Opened, &[]).unwrap();
        w.write_chunk(20, Direction::ToBoard, &[0x40]).unwrap();
        let body = String::from_utf8(w.into_inner()).unwrap();
        assert_eq!(body.lines().nth(1), Some("# opened 20"));
        let text = format!("# boardcast capture v1 protocol=dgt\n{body}# opened later\n");
        let (_, chunks) = read_all(&text).unwrap();
        let dirs: Vec<(Millis, Direction)> = chunks.iter().map(|c| (c.t_ms, c.dir)).collect();
        assert_eq!(
            dirs,
            [
                (10, Direction::FromBoard),
                (20, Direction::Opened),
                (20, Direction::ToBoard)
            ]
        );
        assert!(chunks[1].bytes.is_empty());
    }

    #[test]
    fn the_interface_example_reads() {
        let text = "# boardcast capture v1 protocol=dgt\n0 > 40\n25 < 91 00 08 35 31 32 33 34\n\n# note\n5684 < 8e 00 05 34 00\n";
        let (h, chunks) = read_all(text).unwrap();
        assert_eq!(h.protocol, Family::Dgt);
        assert_eq!(chunks.len(), 3);
        assert_eq!(chunks[0].dir, Direction::ToBoard);
        assert_eq!(chunks[2].bytes, vec![0x8e, 0, 5, 0x34, 0]);
        assert_eq!(chunks[2].t_ms, 5684);
    }

    #[test]
    fn written_captures_read_back() {
        let header = Header {
            protocol: Family::Dgt,
            meta: vec![("board".into(), "7".into())],
        };
        let mut w = Writer::new(Vec::new(), &header).unwrap();
        w.write_chunk(3, Direction::FromBoard, &[0x8e, 0, 5, 1, 2])
            .unwrap();
        w.write_chunk(9, Direction::ToBoard, &[0x42]).unwrap();
        let text = String::from_utf8(w.into_inner()).unwrap();
        let (h, chunks) = read_all(&text).unwrap();
        assert_eq!(h, header);
        assert_eq!(chunks[0].bytes, vec![0x8e, 0, 5, 1, 2]);
        assert_eq!(chunks[1].t_ms, 9);
    }

    #[test]
    fn malformed_line_names_its_number() {
        let text = "# boardcast capture v1 protocol=dgt\n0 < 86\n12 < zz\n";
        let err = read_all(text).unwrap_err();
        assert!(matches!(err, CaptureError::Malformed { line: 3, .. }));
        assert!(err.to_string().starts_with("line 3: "));
    }

    #[test]
    fn every_malformed_shape_is_an_error_and_well_formed_lines_parse() {
        for bad in [
            "x < 00",
            "12 00",
            "12 <",
            "12 < 0",
            "12 < 000",
            "12 < 0g",
            "12 <00",
            "12 ! 00",
            "12 < 00 0",
            "-1 < 00",
            "12 < 0x",
        ] {
            assert!(parse_line(bad, 7).is_err(), "{bad:?}");
        }
        // Other writers' layouts: runs of spaces or tabs, hex runs, 0x.
        for loose in [
            "12 <  8e 00",
            "12\t<\t8e\t00",
            "12 < 8e00",
            "12 < 0x8e 0x00",
            "12 < 8E 00 ",
        ] {
            assert_eq!(
                parse_line(loose, 7).map(|c| (c.t_ms, c.dir, c.bytes)).ok(),
                Some((12, Direction::FromBoard, vec![0x8e, 0])),
                "{loose:?}"
            );
        }
        let c = parse_line("5684 < 8e 00 05 34 0A", 1).unwrap();
        assert_eq!(
            (c.t_ms, c.dir, c.bytes),
            (5684, Direction::FromBoard, vec![0x8e, 0, 5, 0x34, 0x0a])
        );
        assert_eq!(parse_line("0 > 40", 1).unwrap().bytes, [0x40]);
    }

    #[test]
    fn a_last_line_cut_short_is_left_out_and_reported() {
        let text = "# boardcast capture v1 protocol=dgt\n0 > 40\n25 < 91 00 08 35 31 32 33 34\n5684 < 8e 00 0";
        let (_, mut reader) = Reader::new(text.as_bytes()).unwrap();
        let chunks: Vec<Chunk> = reader.by_ref().collect::<Result<_, _>>().unwrap();
        assert_eq!(chunks.len(), 2);
        assert_eq!(reader.cut_last_line(), Some(4));
        // The same damage in the middle is still an error.
        let text = "# boardcast capture v1 protocol=dgt\n0 > 40\n5684 < 8e 00 0\n6000 > 40\n";
        let err = read_all(text).unwrap_err();
        assert!(matches!(err, CaptureError::Malformed { line: 3, .. }));
    }

    #[test]
    fn a_correction_torn_inside_a_character_is_left_out_and_the_rest_kept() {
        let head = "# boardcast capture v1 protocol=dgt\n0 > 40\n25 < 91 00 08 35 31 32 33 34\n";
        let torn = "# command 900 {\"command\":\"set_players\",\"white\":{\"name\":\"Müller\"}";
        // Cut between the two bytes of `ü`.
        let cut_at = torn.find('ü').unwrap() + 1;
        let mut bytes = head.as_bytes().to_vec();
        bytes.extend_from_slice(&torn.as_bytes()[..cut_at]);
        let (_, mut reader) = Reader::new(bytes.as_slice()).unwrap();
        let chunks: Vec<Chunk> = reader.by_ref().collect::<Result<_, _>>().unwrap();
        assert_eq!(chunks.len(), 2);
        assert_eq!(reader.cut_last_line(), Some(4));
        // Cut after the character, inside the JSON: left out as well.
        let mut bytes = head.as_bytes().to_vec();
        bytes.extend_from_slice(&torn.as_bytes()[..cut_at + 4]);
        let (_, mut reader) = Reader::new(bytes.as_slice()).unwrap();
        let chunks: Vec<Chunk> = reader.by_ref().collect::<Result<_, _>>().unwrap();
        assert_eq!(chunks.len(), 2);
        assert_eq!(reader.cut_last_line(), Some(4));
        // Whole, with its newline, it is read.
        let text = format!("{head}{torn}}}\n");
        let (_, chunks) = read_all(&text).unwrap();
        assert_eq!(chunks.last().map(|c| c.dir), Some(Direction::Operator));
        // Bytes that are not UTF-8 in the middle name their line.
        let mut bytes = head.as_bytes().to_vec();
        bytes.extend_from_slice(b"# caf\xc3\n30 > 40\n");
        let err = Reader::new(bytes.as_slice())
            .unwrap()
            .1
            .collect::<Result<Vec<_>, _>>()
            .unwrap_err();
        assert!(
            matches!(err, CaptureError::Malformed { line: 4, .. }),
            "{err}"
        );
    }

    #[test]
    fn header_words_with_spaces_or_newlines_stay_on_the_header_line() {
        let header = Header {
            protocol: Family::Dgt,
            meta: vec![("serial".into(), "AB 12\n3 < 8e%".into())],
        };
        let w = Writer::new(Vec::new(), &header).unwrap();
        let text = String::from_utf8(w.into_inner()).unwrap();
        assert_eq!(
            text,
            "# boardcast capture v1 protocol=dgt serial=AB%2012%0A3%20<%208e%25\n"
        );
        let (h, _) = Reader::new(text.as_bytes()).unwrap();
        assert_eq!(h.meta.len(), 1);
    }

    #[test]
    fn time_going_backwards_is_an_error() {
        let text = "# boardcast capture v1 protocol=dgt\n10 < 86\n9 < 00\n";
        let err = read_all(text).unwrap_err();
        assert!(matches!(err, CaptureError::Malformed { line: 3, .. }));
    }

    #[test]
    fn headers_of_other_writers_name_their_protocol() {
        for (header, protocol) in [
            ("# boardcast capture v1 protocol=DGT", Family::Dgt),
            (
                "\u{feff}# boardcast capture v1 protocol=dgt_bus unit=3",
                Family::DgtBus,
            ),
            (
                "#boardcast capture v1 protocol=Millennium",
                Family::Millennium,
            ),
            (
                "# Boardcast Capture V1 Protocol=chesslink",
                Family::Millennium,
            ),
            (
                "# boardcast capture v1 protocol=millenium",
                Family::Millennium,
            ),
            (
                "# boardcast capture v1 protocol=\"certabo\"",
                Family::Certabo,
            ),
            (
                "# boardcast capture v1 protocol=open-protocol",
                Family::Open,
            ),
        ] {
            let text = format!("{header}\n0 < 00\n");
            assert_eq!(read_all(&text).unwrap().0.protocol, protocol, "{header}");
        }
        for (alias, protocol) in Family::ALIASES {
            assert_eq!(Family::from_header_name(alias), Some(*protocol));
            assert_eq!(alias.parse::<Family>().ok(), None);
        }
    }

    #[test]
    fn unknown_protocol_and_missing_header_are_errors() {
        assert!(matches!(
            read_all("# boardcast capture v1 protocol=foo\n").unwrap_err(),
            CaptureError::UnknownProtocol { line: 1, .. }
        ));
        assert!(matches!(
            read_all("0 < 86\n").unwrap_err(),
            CaptureError::MissingHeader { line: 1 }
        ));
    }
}
