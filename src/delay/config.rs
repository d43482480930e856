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
    /// Whether the public outputs carry the arbiters' alerts (default
    /// `false`: alerts belong to the arbiters).
    pub public_alerts: Option<bool>,
}

/// `[broadcast]`: what the public sees, and when.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Broadcast {
    /// How long the public outputs (the `{prefix}/board/...` topics, the
    /// PGN folder, the live page) lag the live game, in milliseconds; 0
    /// shows the public everything live, as the arbiters see it.
    pub delay_ms: u64,
    /// Whether the public outputs (the public topics, the live page, the
    /// LiveChess API that follows the topics) carry alerts and the
    /// arbiters' decisions; `false` (the default): only the arbiters'
    /// view and topics do. With a delay, public alerts wait in the delay
    /// line like every other public event.
    pub public_alerts: bool,
}

/// `[broadcast]`: the public delay (`"15m"`, `"90s"`, `"0"`), at most an
/// hour, and whether alerts are public (`public_alerts`, default off).
pub fn broadcast(
    raw: Option<RawBroadcast>,
    defaults: Option<RawBroadcast>,
    src: &Source,
) -> Result<Broadcast, ConfigError> {
    let (raw, defaults) = (raw.unwrap_or_default(), defaults.unwrap_or_default());
    let public_alerts = raw
        .public_alerts
        .or(defaults.public_alerts)
        .unwrap_or(false);
    let Some(d) = raw.delay.or(defaults.delay) else {
        return Ok(Broadcast {
            delay_ms: 0,
            public_alerts,
        });
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
    Ok(Broadcast {
        delay_ms: ms,
        public_alerts,
    })
}

/// Whether an event of `kind` may reach the public outputs at all:
/// alerts and the arbiters' decisions only when `public_alerts` is set.
/// The one filter every public path applies (a bridge's session, the hub).
pub fn is_public(kind: &crate::event::EventKind, public_alerts: bool) -> bool {
    use crate::event::EventKind;
    public_alerts || !matches!(kind, EventKind::Alert(_) | EventKind::Decision { .. })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Alert, AlertKind, Decision, EventKind};

    fn read(text: &str, defaults: &str) -> Result<Broadcast, ConfigError> {
        let src = Source::new(text, std::path::Path::new("t.toml"));
        let raw: RawBroadcast = toml::from_str(text).unwrap();
        let defaults: RawBroadcast = toml::from_str(defaults).unwrap();
        broadcast(Some(raw), Some(defaults), &src)
    }

    #[test]
    fn alerts_are_the_arbiters_unless_the_file_makes_them_public() {
        assert!(!read("", "").unwrap().public_alerts);
        assert!(!read("delay = \"15m\"", "").unwrap().public_alerts);
        let on = read("public_alerts = true", "").unwrap();
        assert_eq!((on.delay_ms, on.public_alerts), (0, true));
        let both = read("delay = \"90s\"\npublic_alerts = true", "").unwrap();
        assert_eq!((both.delay_ms, both.public_alerts), (90_000, true));
        // The file's own word before the defaults'.
        assert!(read("", "public_alerts = true").unwrap().public_alerts);
        assert!(
            !read("public_alerts = false", "public_alerts = true")
                .unwrap()
                .public_alerts
        );
        assert!(
            !broadcast(None, None, &Source::new("", "t".as_ref()))
                .unwrap()
                .public_alerts
        );
    }

    #[test]
    fn only_alerts_and_decisions_are_held_back_from_the_public() {
        let alert = EventKind::Alert(Alert {
            kind: AlertKind::IllegalMove,
            side: None,
            law: Some("7.5".into()),
            message: "White played 11. Bc1-f6, an illegal move".into(),
            cleared: false,
            evidence: None,
        });
        let decision = EventKind::Decision {
            alert: 1,
            decision: Decision::Confirmed,
            note: None,
        };
        let retract = EventKind::Retract {
            ply: 3,
            id: "e2e4".into(),
        };
        for kind in [&alert, &decision] {
            assert!(!is_public(kind, false));
            assert!(is_public(kind, true));
        }
        assert!(is_public(&retract, false));
    }
}
