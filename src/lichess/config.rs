//! The `[lichess]` section: the lichess broadcast round the public PGN is
//! pushed to, the file holding the token, and the server (lichess's own,
//! or a mirror or a test server).

use std::path::PathBuf;

use serde::Deserialize;
use toml::Spanned;

use crate::config_file::{ConfigError, Source};

/// lichess's own address, the default `base_url`.
pub const LICHESS: &str = "https://lichess.org";

/// `[lichess]` as written.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawLichess {
    /// The broadcast round's id (8 letters and digits, as in its URL);
    /// empty: no push.
    pub round: Option<Spanned<String>>,
    /// The file holding the API token (`study:write` scope).
    pub token_file: Option<Spanned<String>>,
    /// The server: `https://lichess.org` unless a mirror or a test.
    pub base_url: Option<Spanned<String>>,
    /// The event's round whose games go to the lichess round; by default
    /// the first one the push finds games in.
    pub event_round: Option<u32>,
}

/// `[lichess]`: where the round's public PGN is pushed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lichess {
    /// The lichess broadcast round's id.
    pub round: String,
    /// The file holding the token (read when the daemon starts; the
    /// token itself is never in the configuration's values).
    pub token_file: PathBuf,
    /// The server.
    pub base_url: BaseUrl,
    /// The event's round pushed, when fixed (`event_round`).
    pub event_round: Option<u32>,
}

/// Why a `base_url` does not read; the config's error puts the address
/// before it (`lichess.base_url: `ftp://x` starts with ...`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BaseUrlError {
    /// Another scheme, or none.
    #[error("starts with neither https:// nor http://")]
    Scheme,
    /// A user, a query, a fragment or a space.
    #[error("has a user, a query, a fragment or a space")]
    Extra,
    /// `[` without `]`.
    #[error("an IPv6 address without its ]")]
    Unclosed,
    /// Something other than `:port` after the `]`.
    #[error("junk after the ]")]
    AfterBracket,
    /// No host.
    #[error("names no host")]
    NoHost,
    /// A port that is not 1 to 65535.
    #[error("`{0}` is no port")]
    Port(String),
}

/// An `http://` or `https://` server address, with an optional path under
/// which the API lives (a mirror behind a prefix).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BaseUrl {
    /// `https`.
    pub tls: bool,
    /// The host name or address (an IPv6 address without its brackets).
    pub host: String,
    /// The port (443 or 80 unless given).
    pub port: u16,
    /// The path before `/api/...`, empty or starting with `/`, without a
    /// trailing `/`.
    pub prefix: String,
}

impl BaseUrl {
    /// Reads `http[s]://host[:port][/prefix]`; a user, a query or a
    /// fragment is refused.
    pub fn parse(text: &str) -> Result<BaseUrl, BaseUrlError> {
        let (tls, rest) = if let Some(r) = text.strip_prefix("https://") {
            (true, r)
        } else if let Some(r) = text.strip_prefix("http://") {
            (false, r)
        } else {
            return Err(BaseUrlError::Scheme);
        };
        if rest.contains(['@', '?', '#']) || rest.chars().any(|c| c.is_whitespace()) {
            return Err(BaseUrlError::Extra);
        }
        let (authority, path) = match rest.find('/') {
            Some(i) => rest.split_at(i),
            None => (rest, ""),
        };
        let (host, port) = split_host_port(authority)?;
        Ok(BaseUrl {
            tls,
            host,
            port: port.unwrap_or(if tls { 443 } else { 80 }),
            prefix: path.trim_end_matches('/').to_string(),
        })
    }

    /// The `Host` header's value: the host, and the port unless it is the
    /// scheme's own.
    pub fn host_header(&self) -> String {
        let host = if self.host.contains(':') {
            format!("[{}]", self.host)
        } else {
            self.host.clone()
        };
        if self.port == if self.tls { 443 } else { 80 } {
            host
        } else {
            format!("{host}:{}", self.port)
        }
    }
}

impl std::fmt::Display for BaseUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let scheme = if self.tls { "https" } else { "http" };
        write!(f, "{scheme}://{}{}", self.host_header(), self.prefix)
    }
}

/// `host`, `host:port`, `[v6]` or `[v6]:port`.
fn split_host_port(authority: &str) -> Result<(String, Option<u16>), BaseUrlError> {
    let (host, port) = if let Some(rest) = authority.strip_prefix('[') {
        let (host, after) = rest.split_once(']').ok_or(BaseUrlError::Unclosed)?;
        match after {
            "" => (host, None),
            p => (
                host,
                Some(p.strip_prefix(':').ok_or(BaseUrlError::AfterBracket)?),
            ),
        }
    } else {
        match authority.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        }
    };
    if host.is_empty() {
        return Err(BaseUrlError::NoHost);
    }
    let port = match port {
        Some(p) => Some(
            p.parse::<u16>()
                .ok()
                .filter(|p| *p > 0)
                .ok_or_else(|| BaseUrlError::Port(p.to_string()))?,
        ),
        None => None,
    };
    Ok((host.to_string(), port))
}

/// Whether `id` is a lichess round id: 8 ASCII letters and digits.
fn is_round_id(id: &str) -> bool {
    id.len() == 8 && id.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// `[lichess]`: none without a `round`; with one, a `token_file` is
/// needed and `base_url` must be an `http(s)://` address.
pub fn lichess(
    raw: Option<RawLichess>,
    defaults: Option<RawLichess>,
    src: &Source,
) -> Result<Option<Lichess>, ConfigError> {
    let (raw, defaults) = (raw.unwrap_or_default(), defaults.unwrap_or_default());
    let Some(round) = raw.round.or(defaults.round) else {
        return Ok(None);
    };
    if round.get_ref().is_empty() {
        return Ok(None);
    }
    if !is_round_id(round.get_ref()) {
        let m = format!(
            "lichess.round: `{}` is not a broadcast round id (8 letters and digits, as in the round's URL)",
            round.get_ref()
        );
        return Err(src.invalid(Some(round.span()), m));
    }
    let token_file = raw
        .token_file
        .or(defaults.token_file)
        .filter(|t| !t.get_ref().is_empty())
        .ok_or_else(|| {
            src.invalid(
                Some(round.span()),
                "lichess.round is set but lichess.token_file is not: the push needs a token (study:write)".into(),
            )
        })?;
    let base = raw.base_url.or(defaults.base_url);
    let base_url = match &base {
        None => BaseUrl::parse(LICHESS).expect("lichess's address parses"),
        Some(b) => BaseUrl::parse(b.get_ref()).map_err(|why| {
            src.invalid(
                Some(b.span()),
                format!("lichess.base_url: `{}` {why}", b.get_ref()),
            )
        })?,
    };
    Ok(Some(Lichess {
        round: round.into_inner(),
        token_file: src.resolve(token_file.get_ref()),
        base_url,
        event_round: raw.event_round.or(defaults.event_round),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Option<Lichess>, ConfigError> {
        let src = Source::new(text, std::path::Path::new("/etc/boardcast/t.toml"));
        let raw: RawLichess = toml::from_str(text).unwrap();
        let defaults: RawLichess =
            toml::from_str("round = \"\"\ntoken_file = \"\"\nbase_url = \"https://lichess.org\"")
                .unwrap();
        lichess(Some(raw), Some(defaults), &src)
    }

    #[test]
    fn no_round_no_push() {
        assert_eq!(read("").unwrap(), None);
        assert_eq!(read("round = \"\"").unwrap(), None);
    }

    #[test]
    fn a_round_with_its_token_file_pushes_to_lichess_by_default() {
        let l = read("round = \"aBc12345\"\ntoken_file = \"lichess.token\"")
            .unwrap()
            .unwrap();
        assert_eq!(l.round, "aBc12345");
        assert_eq!(
            l.token_file,
            PathBuf::from("/etc/boardcast/lichess.token"),
            "relative to the file's folder"
        );
        assert_eq!(l.base_url.to_string(), "https://lichess.org");
        assert_eq!((l.base_url.port, l.base_url.tls), (443, true));
        assert_eq!(l.event_round, None);
    }

    #[test]
    fn a_bad_round_a_missing_token_and_a_bad_address_name_their_line() {
        let e = read("\nround = \"abc\"\ntoken_file = \"t\"").unwrap_err();
        assert!(e.to_string().contains("line 2: lichess.round"), "{e}");
        let e = read("round = \"abcdefgh\"").unwrap_err();
        assert!(e.to_string().contains("token_file"), "{e}");
        for bad in [
            "ftp://x",
            "https://",
            "http://u@h",
            "http://h:0",
            "http://h:x/",
        ] {
            let text = format!("round = \"abcdefgh\"\ntoken_file = \"t\"\nbase_url = \"{bad}\"");
            let e = read(&text).unwrap_err();
            assert!(e.to_string().contains("line 3: lichess.base_url"), "{e}");
        }
    }

    #[test]
    fn base_urls_keep_their_port_and_prefix() {
        let b = BaseUrl::parse("http://127.0.0.1:8080").unwrap();
        assert_eq!((b.tls, b.host.as_str(), b.port), (false, "127.0.0.1", 8080));
        assert_eq!(b.prefix, "");
        assert_eq!(b.host_header(), "127.0.0.1:8080");
        let b = BaseUrl::parse("https://mirror.example/lichess/").unwrap();
        assert_eq!((b.port, b.prefix.as_str()), (443, "/lichess"));
        assert_eq!(b.to_string(), "https://mirror.example/lichess");
        let b = BaseUrl::parse("http://[::1]:9000").unwrap();
        assert_eq!(
            (b.host.as_str(), b.host_header()),
            ("::1", "[::1]:9000".into())
        );
    }
}
