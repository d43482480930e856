//! Reading a pairings file from disk: at most [`MAX_PAIRINGS_BYTES`], and
//! refused at once, with what it is and what to do, when it cannot be a
//! pairings file at all (empty, UTF-16, binary).
//!
//! Design: a pairings file is small (a 500-player, 15-round TRF file is
//! about 100 KB), so the limit is generous for any real file and keeps a
//! wrong file (a log, a database, a disk image) from being read whole.

use std::io::Read;
use std::path::Path;

use super::PairingsError;

/// The largest pairings file read: 4 MiB.
pub const MAX_PAIRINGS_BYTES: u64 = 4 * 1024 * 1024;

/// A pairings file's bytes: at most [`MAX_PAIRINGS_BYTES`] read (a larger
/// file is refused), and a file that cannot be one refused by [`unusable`].
pub fn read_pairings_bytes(path: &Path) -> Result<Vec<u8>, PairingsError> {
    let name = path.display().to_string();
    let io = |error| PairingsError::Io {
        path: name.clone(),
        error,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut bytes = Vec::new();
    file.take(MAX_PAIRINGS_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > MAX_PAIRINGS_BYTES {
        return Err(PairingsError::TooLarge {
            path: name,
            limit: MAX_PAIRINGS_BYTES,
        });
    }
    if let Some(what) = unusable(&bytes) {
        return Err(PairingsError::Unusable {
            path: name,
            what: what.to_string(),
        });
    }
    Ok(bytes)
}

/// Why `bytes` cannot be a pairings file of any format (TRF, CSV, TOML),
/// with what to do; none when they may be one.
pub fn unusable(bytes: &[u8]) -> Option<&'static str> {
    const UTF16: &str =
        "UTF-16 text (Notepad's \"Unicode\"): save it as UTF-8 or Windows-1252 (ANSI)";
    if bytes.starts_with(b"\xFF\xFE") || bytes.starts_with(b"\xFE\xFF") {
        return Some(UTF16);
    }
    let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if text.iter().all(|b| b.is_ascii_whitespace()) {
        return Some("empty file: export the pairings again from the pairing program");
    }
    let nuls = text.iter().filter(|&&b| b == 0).count();
    if nuls > 0 {
        // UTF-16 without a byte-order mark: ASCII text with every other
        // byte zero.
        let odd = text.iter().skip(1).step_by(2).filter(|&&b| b == 0).count();
        let even = text.iter().step_by(2).filter(|&&b| b == 0).count();
        let half = text.len() / 2;
        if odd.max(even) * 10 >= half * 9 && odd.min(even) == 0 {
            return Some(UTF16);
        }
    }
    // A stray NUL or escape in a text file (a name typed or pasted with
    // one) is the format's reader's to name by its line; binary data has
    // them by the hundred.
    let controls = text
        .iter()
        .filter(|&&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0c | 0x1a))
        .count();
    (controls * 100 > text.len())
        .then_some("binary data, not a TRF, CSV or TOML file: is it the right file?")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_of_any_single_byte_encoding_is_usable() {
        assert_eq!(unusable(b"012 Open\r\n001    1 m    Ba\x9aa\r\n"), None);
        assert_eq!(unusable("\u{feff}board,white,black\n".as_bytes()), None);
    }

    #[test]
    fn utf16_without_a_bom_is_told_from_binary() {
        let utf16: Vec<u8> = "012 Open\r\n".bytes().flat_map(|b| [b, 0]).collect();
        assert!(unusable(&utf16).unwrap().starts_with("UTF-16"));
        assert!(
            unusable(b"\x7fELF\x02\x01\x01\0\0\0\0\0\0")
                .unwrap()
                .starts_with("binary")
        );
        assert!(unusable(b"\xEF\xBB\xBF \r\n").unwrap().starts_with("empty"));
        // One NUL in a name: text, for the reader to name its line.
        let mut trf = b"012 Open\r\n".to_vec();
        trf.extend_from_slice(
            &b"001    1 m    Smith, John                      2000\r\n".repeat(3),
        );
        trf[30] = 0;
        assert_eq!(unusable(&trf), None);
    }
}
