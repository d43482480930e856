//! A configuration file read section by section: the one-line error
//! that names the file and the line ([`ConfigError`]), the file a section
//! comes from ([`Source`]), and the small steps every section takes (a
//! value laid over its default, an address to listen on).
//!
//! Each section's raw table, its typed value and the function that checks
//! one and makes the other live beside the component that reads them
//! (`mqtt/config.rs`, `port/config.rs`, `setup/config.rs`, ...); this
//! module is what they share, below all of them, and
//! [`crate::config`] puts the sections together.

use std::ops::Range;
use std::path::{Path, PathBuf};

use toml::Spanned;

/// Why a configuration was rejected. Displayed as one line.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("{path}: {error}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// The text is not valid TOML, or a key is unknown or has the wrong type.
    #[error("{path}: line {line}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based line of the offending key or value.
        line: usize,
        /// The parser's message (names the key).
        message: String,
    },
    /// The values are well formed but do not make sense together.
    #[error("{path}: {}{message}", line.map(|l| format!("line {l}: ")).unwrap_or_default())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// 1-based line, when the value has one.
        line: Option<usize>,
        /// What is wrong.
        message: String,
    },
}

/// The file a section comes from: its text (for the line of a value) and
/// its path (named in errors, its folder anchoring relative paths).
#[derive(Debug)]
pub struct Source<'a> {
    path: &'a Path,
    text: &'a str,
    base: PathBuf,
}

impl<'a> Source<'a> {
    /// The file at `path` holding `text`.
    pub fn new(text: &'a str, path: &'a Path) -> Source<'a> {
        Source {
            path,
            text,
            base: path.parent().unwrap_or(Path::new(".")).to_owned(),
        }
    }

    /// A value that does not make sense, at `span` when it has one.
    pub fn invalid(&self, span: Option<Range<usize>>, message: String) -> ConfigError {
        ConfigError::Invalid {
            path: self.path.to_owned(),
            line: span.map(|s| line_of(self.text, s.start)),
            message,
        }
    }

    /// A key without a value, here or in the defaults.
    pub fn missing(&self, key: &str) -> ConfigError {
        self.invalid(None, format!("`{key}` has no value (and no default)"))
    }

    /// A path as written, taken from the file's folder when relative.
    pub fn resolve(&self, p: &str) -> PathBuf {
        let p = Path::new(p);
        if p.is_absolute() {
            p.to_owned()
        } else {
            self.base.join(p)
        }
    }
}

/// A string key's value, when it is not empty.
pub fn nonempty(s: Option<String>) -> Option<String> {
    s.filter(|s| !s.is_empty())
}

/// Overwrites `field` with `value`, when the file gives one.
pub fn set<T>(field: &mut T, value: Option<T>) {
    if let Some(v) = value {
        *field = v;
    }
}

/// Parses TOML into `T` (raw tables of some file), with one-line errors
/// naming the line.
pub fn parse_toml<T: serde::de::DeserializeOwned>(
    text: &str,
    path: &Path,
) -> Result<T, ConfigError> {
    toml::from_str::<T>(text).map_err(|e| ConfigError::Parse {
        path: path.to_owned(),
        line: e.span().map_or(1, |s| line_of(text, s.start)),
        message: e.message().trim().replace('\n', " "),
    })
}

/// The 1-based line of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// An address to listen on (`key` names it, `example` shows one), or none
/// when the value is empty.
pub fn listen(
    value: Option<Spanned<String>>,
    key: &str,
    example: &str,
    src: &Source,
) -> Result<Option<std::net::SocketAddr>, ConfigError> {
    match value {
        Some(l) if !l.get_ref().is_empty() => {
            let addr = l.get_ref().parse().map_err(|_| {
                let m = format!(
                    "{key}: `{}` is not an address such as {example}",
                    l.get_ref()
                );
                src.invalid(Some(l.span()), m)
            })?;
            Ok(Some(addr))
        }
        _ => Ok(None),
    }
}

/// Parses a duration as venues write it: `"15m"`, `"90s"`, `"1h"`,
/// `"1h30m"`, `"500ms"`, or `"0"`. Returns milliseconds.
pub fn parse_duration(text: &str) -> Option<u64> {
    let text = text.trim();
    if text == "0" {
        return Some(0);
    }
    let mut total: u64 = 0;
    let mut rest = text;
    if rest.is_empty() {
        return None;
    }
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        if digits == 0 {
            return None;
        }
        let n: u64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(rest.len());
        let scale = match &rest[..unit_len] {
            "h" => 3_600_000,
            "m" | "min" => 60_000,
            "s" => 1_000,
            "ms" => 1,
            _ => return None,
        };
        total = total.checked_add(n.checked_mul(scale)?)?;
        rest = &rest[unit_len..];
    }
    Some(total)
}
