//! The hub's configuration: a small TOML file, read with the daemon's own
//! tables (`[mqtt]`, `[web]`, `[broadcast]`, `[control]`, `[event]`,
//! `[log]`) and checked by the same code, so keys mean the same in both
//! files and errors name the line. Only `[hub]` (`name`, `state_dir`, `silence_s`) is
//! the hub's own.
//!
//! ```toml
//! [hub]
//! name = "hall"                       # MQTT client id: boardcast-hub-hall-…
//! state_dir = "/var/lib/boardcast-hub" # the delayed view's journals
//! silence_s = 30                      # a bridge silent this long: offline
//!
//! [mqtt]
//! url = ["mqtt://node-a:1883", "mqtt://node-b:1883"]
//! prefix = "boardcast"
//!
//! [web]
//! listen = "0.0.0.0:8080"
//!
//! [event]
//! name = "Olympiad"                   # PGN Event and Site of the folder
//! pgn_dir = "/srv/pgn"
//!
//! [broadcast]
//! delay = "15m"
//!
//! [control]
//! secret_file = "/etc/boardcast/secret"   # opens the arbiter view
//! ```

use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use crate::config::{
    self, ConfigError, RawBroadcast, RawControl, RawEvent, RawLog, RawMqtt, RawWeb, Source,
};

/// The hub's file as written: unknown tables and keys are errors.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawHubConfig {
    /// `[hub]`.
    pub hub: Option<RawHub>,
    /// `[mqtt]`, as for a bridge.
    pub mqtt: Option<RawMqtt>,
    /// `[web]`, as for a bridge.
    pub web: Option<RawWeb>,
    /// `[broadcast]`, as for a bridge.
    pub broadcast: Option<RawBroadcast>,
    /// `[control]`: the secret that opens the arbiter view.
    pub control: Option<RawControl>,
    /// `[event]`: PGN `Event`, `Site`, `Date` and the folder.
    pub event: Option<RawEvent>,
    /// `[log]`, as for a bridge.
    pub log: Option<RawLog>,
}

/// `[hub]` as written.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawHub {
    /// The hub's name, in its MQTT client id (`boardcast-hub-{name}-…`).
    pub name: Option<Spanned<String>>,
    /// Where the delayed public view keeps its journals (default: the
    /// folder `{name}.state` beside the configuration file).
    pub state_dir: Option<String>,
    /// Seconds without a heartbeat after which a bridge is shown offline
    /// (0: never).
    pub silence_s: Option<Spanned<u64>>,
}

/// A bridge's silence the hub waits for by default (s).
pub const DEFAULT_SILENCE_S: u64 = 30;
/// The longest silence allowed (s): a day.
const MAX_SILENCE_S: u64 = 86_400;

/// The hub's validated configuration.
#[derive(Clone, Debug)]
pub struct HubConfig {
    /// The hub's name.
    pub name: String,
    /// Brokers (the first, then the other nodes), prefix, credentials, TLS.
    /// The client id is `boardcast-hub-{name}`, followed by a random part
    /// per process.
    pub mqtt: crate::config::Mqtt,
    /// How long a heartbeating bridge may stay silent before the hub shows
    /// it offline (zero: never; see [`super::liveness`]).
    pub silence: std::time::Duration,
    /// Where the live page listens, if anywhere.
    pub web: Option<std::net::SocketAddr>,
    /// The live page's limits.
    pub web_limits: crate::listener::Limits,
    /// The arbiter view's login (`[web] arbiter_password`, `session_s`).
    pub web_login: crate::config::WebLogin,
    /// The public delay (0: live).
    pub delay_ms: u64,
    /// Whether the public page shows alerts (`[broadcast] public_alerts`,
    /// default off: only the arbiter view does).
    pub public_alerts: bool,
    /// Where the delayed public view journals what waits (with a delay):
    /// `[hub] state_dir`, else `{name}.state` beside the configuration
    /// file. Never inside the PGN folder: it holds moves not public yet.
    pub state_dir: PathBuf,
    /// The operator secret: opens the arbiter view.
    pub control: crate::config::Control,
    /// PGN tags of the folder (`name`, `site`, `date`, `round`).
    pub event: crate::tournament::EventInfo,
    /// The LiveChess-layout PGN folder, if any.
    pub pgn_dir: Option<PathBuf>,
    /// Logging.
    pub log: crate::config::Log,
}

impl HubConfig {
    /// Reads and validates a hub configuration file.
    pub fn load(path: &Path) -> Result<HubConfig, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|error| ConfigError::Read {
            path: path.to_owned(),
            error,
        })?;
        HubConfig::parse(&text, path)
    }

    /// Validates hub configuration text; `path` names it in errors and
    /// anchors relative paths.
    pub fn parse(text: &str, path: &Path) -> Result<HubConfig, ConfigError> {
        let raw: RawHubConfig = config::parse_toml(text, path)?;
        let src = Source::new(text, path);
        refuse_bridge_keys(&raw, &src)?;
        let state_dir = raw.hub.as_ref().and_then(|h| h.state_dir.clone());
        let silence = silence_s(raw.hub.as_ref().and_then(|h| h.silence_s.clone()), &src)?;
        let name = hub_name(raw.hub.and_then(|h| h.name), &src)?;
        let mqtt = raw.mqtt.unwrap_or_default();
        // The bridge's own sections, checked by the same code.
        let defaults = config::defaults();
        let bridge = config::bridge(None, defaults.bridge, &src)?;
        let client_id = format!("boardcast-hub-{name}");
        let mqtt = RawMqtt {
            client_id: Some(client_id.clone()),
            ..mqtt
        };
        let mqtt = config::mqtt(Some(mqtt), defaults.mqtt, &client_id, &src)?;
        let control = config::control(raw.control, defaults.control, &src)?;
        let log = config::log(raw.log, defaults.log, &src)?;
        let event = config::event(
            raw.event,
            defaults.event,
            (&bridge.event, &bridge.site),
            &src,
        )?;
        let web_login = config::web_login(raw.web.as_ref(), defaults.web.as_ref(), &src)?;
        let (web, web_limits) = config::web(raw.web, defaults.web, &src)?;
        let broadcast = config::broadcast(raw.broadcast, defaults.broadcast, &src)?;
        let base = path.parent().unwrap_or(Path::new("."));
        let state_dir = match state_dir {
            Some(d) => base.join(d),
            None => base.join(format!("{name}.state")),
        };
        Ok(HubConfig {
            state_dir,
            name,
            mqtt,
            silence: std::time::Duration::from_secs(silence),
            web,
            web_limits,
            web_login,
            delay_ms: broadcast.delay_ms,
            public_alerts: broadcast.public_alerts,
            control,
            event: event.info,
            pgn_dir: event.pgn_dir,
            log,
        })
    }
}

/// Refuses the keys of a bridge's file that mean nothing to the hub:
/// pairings (the hub takes players from the bridges' states), the games'
/// time control and variant, the MQTT queue and embedded broker (the hub
/// only subscribes).
fn refuse_bridge_keys(raw: &RawHubConfig, src: &Source) -> Result<(), ConfigError> {
    if let Some(e) = &raw.event {
        if e.pairings.is_some() {
            return Err(src.invalid(
                None,
                "event.pairings: the hub takes players from the bridges' states".into(),
            ));
        }
        if let Some(v) = e.time_control.as_ref().or(e.variant.as_ref()) {
            return Err(src.invalid(
                Some(v.span()),
                "event: time_control and variant belong in the bridges' files".into(),
            ));
        }
    }
    if let Some(mqtt) = &raw.mqtt
        && (mqtt.queue.is_some() || mqtt.embedded.is_some())
    {
        return Err(src.invalid(
            None,
            "mqtt: queue and embedded are bridge keys; the hub only subscribes".into(),
        ));
    }
    Ok(())
}

/// `hub.silence_s`: at most [`MAX_SILENCE_S`], [`DEFAULT_SILENCE_S`] when
/// not given.
fn silence_s(raw: Option<Spanned<u64>>, src: &Source) -> Result<u64, ConfigError> {
    match raw {
        Some(s) if *s.get_ref() > MAX_SILENCE_S => Err(src.invalid(
            Some(s.span()),
            format!("hub.silence_s: at most {MAX_SILENCE_S} (0: never)"),
        )),
        Some(s) => Ok(s.into_inner()),
        None => Ok(DEFAULT_SILENCE_S),
    }
}

/// `hub.name`: letters, digits, `-` and `_`; `hub` when not given.
fn hub_name(raw: Option<Spanned<String>>, src: &Source) -> Result<String, ConfigError> {
    let (span, name) = raw
        .map(|n| (n.span(), n.into_inner()))
        .unwrap_or((0..0, "hub".into()));
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(src.invalid(
            Some(span),
            format!("hub.name `{name}`: use letters, digits, `-` and `_` only"),
        ));
    }
    Ok(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<HubConfig, String> {
        HubConfig::parse(text, Path::new("/etc/hub.toml")).map_err(|e| e.to_string())
    }

    #[test]
    fn a_small_file_gives_brokers_page_folder_and_delay() {
        let c = parse(
            r#"
[hub]
name = "hall-a"
[mqtt]
url = ["mqtt://n1:1883", "mqtt://n2:1884"]
prefix = "olympiad"
[web]
listen = "127.0.0.1:8080"
[event]
name = "Olympiad"
pgn_dir = "pgn"
[broadcast]
delay = "15m"
"#,
        )
        .unwrap();
        assert_eq!((c.mqtt.host.as_str(), c.mqtt.port), ("n1", 1883));
        assert_eq!(c.mqtt.failover, [("n2".to_string(), 1884)]);
        assert_eq!(c.mqtt.prefix, "olympiad");
        assert_eq!(c.mqtt.client_id, "boardcast-hub-hall-a");
        assert_eq!(c.web, Some("127.0.0.1:8080".parse().unwrap()));
        assert_eq!(c.pgn_dir, Some(PathBuf::from("/etc/pgn")));
        assert_eq!(c.delay_ms, 15 * 60 * 1000);
        assert_eq!(c.event.name, "Olympiad");
        assert_eq!(c.silence.as_secs(), DEFAULT_SILENCE_S);
    }

    #[test]
    fn the_silence_is_set_switched_off_or_refused_with_its_line() {
        let c = parse("[hub]\nsilence_s = 12\n").unwrap();
        assert_eq!(c.silence.as_secs(), 12);
        assert!(parse("[hub]\nsilence_s = 0\n").unwrap().silence.is_zero());
        let e = parse("[hub]\nname = \"a\"\nsilence_s = 100000000\n").unwrap_err();
        assert!(e.contains("line 3") && e.contains("hub.silence_s"), "{e}");
    }

    #[test]
    fn the_example_file_is_valid() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("config/hub.toml");
        let c = HubConfig::load(&path).unwrap();
        assert_eq!(c.mqtt.client_id, "boardcast-hub-event");
        assert!(c.pgn_dir.is_some() && c.web.is_some());
    }

    #[test]
    fn errors_name_the_line() {
        let e = parse("[hub]\nname = \"a\"\n[mqtt]\nprefix = \"x\"\nbogus = 1\n").unwrap_err();
        assert!(e.starts_with("/etc/hub.toml: line 5:"), "{e}");
        let e = parse("[mqtt]\nurl = \"mqtt://a\"\n[broadcast]\ndelay = \"soon\"\n").unwrap_err();
        assert!(e.starts_with("/etc/hub.toml: line 4:"), "{e}");
        let e = parse("[hub]\nname = \"a b\"\n").unwrap_err();
        assert!(e.contains("line 2") && e.contains("hub.name"), "{e}");
        let e = parse("[[board]]\nid = \"1\"\nport = \"/dev/x\"\n").unwrap_err();
        assert!(e.contains("line 1"), "{e}");
        assert!(
            parse("[mqtt]\nqueue = 5\n")
                .unwrap_err()
                .contains("bridge keys")
        );
    }
}
