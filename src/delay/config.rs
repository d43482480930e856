//! The `[broadcast]` section: how far the public outputs lag the live
//! game.

use serde::Deserialize;
use toml::Spanned;

use crate::config_file::{ConfigError, Source, parse_duration};

/// `[broadcast]` as written.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawBroadcast {
    /// How far the public outputs lag the live game (`"15m"`, `"90s"`,
    /// `"0"`).
    pub delay: Option<Spanned<String>>,
}

/// `[broadcast]`: what the public sees, and when.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Broadcast {
    /// How long the public outputs (the `{prefix}/board/...` topics, the
    /// PGN folder, the live page) lag the live game, in milliseconds; 0
    /// shows the public everything live, as the arbiters see it.
    pub delay_ms: u64,
}

/// `[broadcast]`: the public delay (`"15m"`, `"90s"`, `"0"`), at most an
/// hour.
pub fn broadcast(
    raw: Option<RawBroadcast>,
    defaults: Option<RawBroadcast>,
    src: &Source,
) -> Result<Broadcast, ConfigError> {
    let delay = raw.and_then(|b| b.delay);
    let Some(d) = delay.or(defaults.and_then(|b| b.delay)) else {
        return Ok(Broadcast::default());
    };
    let ms = parse_duration(d.get_ref()).ok_or_else(|| {
        let m = format!(
            "broadcast.delay: `{}` is not a duration such as \"15m\", \"90s\" or \"0\"",
            d.get_ref()
        );
        src.invalid(Some(d.span()), m)
    })?;
    if ms > super::MAX_DELAY_MS {
        let m = format!(
            "broadcast.delay: `{}` is longer than the 1 h allowed",
            d.get_ref()
        );
        return Err(src.invalid(Some(d.span()), m));
    }
    Ok(Broadcast { delay_ms: ms })
}
