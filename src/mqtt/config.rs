//! The `[mqtt]` and `[bridge]` sections: the broker (embedded, or one
//! or more URLs, TLS), the topic root, and the bridge to a hub.

use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;
use toml::Spanned;

use crate::backoff::BackoffConfig;
use crate::config_file::{ConfigError, Source, nonempty};

/// `[bridge]` as written.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawBridge {
    /// Bridge name.
    pub name: Option<Spanned<String>>,
    /// PGN `Event` tag.
    pub event: Option<String>,
    /// PGN `Site` tag.
    pub site: Option<String>,
}

/// `[mqtt] url` as written: one broker, or several to fail over between.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub enum BrokerUrls {
    /// `url = "mqtt://host:1883"`.
    One(String),
    /// `url = ["mqtt://a:1883", "mqtt://b:1883"]`.
    Many(Vec<String>),
}

/// `[mqtt]` as written.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawMqtt {
    /// Broker URL, or a list of them (the nodes of a cluster, tried in
    /// turn).
    pub url: Option<Spanned<BrokerUrls>>,
    /// Topic prefix.
    pub prefix: Option<Spanned<String>>,
    /// Client id.
    pub client_id: Option<String>,
    /// Keep-alive in seconds.
    pub keep_alive_s: Option<u64>,
    /// Seconds between heartbeats (0: none).
    pub heartbeat_s: Option<u64>,
    /// Milliseconds an event may wait for the broker before a copy goes
    /// through a standby connection (0: no standby connections).
    pub standby_after_ms: Option<u64>,
    /// Username.
    pub username: Option<String>,
    /// Password.
    pub password: Option<String>,
    /// Unacknowledged events kept per board.
    pub queue: Option<Spanned<usize>>,
    /// First reconnection delay.
    pub reconnect_min_ms: Option<u64>,
    /// Longest reconnection delay.
    pub reconnect_max_ms: Option<u64>,
    /// `[mqtt.tls]`.
    pub tls: Option<RawTls>,
    /// `auto` or `never`: start an embedded broker when none listens.
    pub embedded: Option<Spanned<String>>,
}

/// `[mqtt.tls]` as written.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTls {
    /// Use TLS.
    pub enabled: Option<bool>,
    /// CA file.
    pub ca_file: Option<String>,
    /// Client certificate.
    pub client_cert_file: Option<String>,
    /// Client key.
    pub client_key_file: Option<String>,
}

/// Whether boardcast may start its own broker (`[mqtt] embedded`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Embedded {
    /// When nothing listens at the broker address (a loopback address
    /// without TLS), start an embedded broker there.
    Auto,
    /// Always use an external broker.
    Never,
}

/// `[bridge]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bridge {
    /// Name in the status topic.
    pub name: String,
    /// PGN `Event`.
    pub event: String,
    /// PGN `Site`.
    pub site: String,
}

/// TLS settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tls {
    /// CA bundle; `None` means the system roots.
    pub ca_file: Option<PathBuf>,
    /// Client certificate and key, if the broker wants one.
    pub client_auth: Option<(PathBuf, PathBuf)>,
}

/// `[mqtt]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mqtt {
    /// Broker host.
    pub host: String,
    /// Broker port.
    pub port: u16,
    /// Further brokers (host, port), the other nodes of a cluster: after a
    /// failed connection the bridge tries the next one in turn.
    pub failover: Vec<(String, u16)>,
    /// TLS, when on.
    pub tls: Option<Tls>,
    /// Topic prefix (no trailing slash).
    pub prefix: String,
    /// Client id.
    pub client_id: String,
    /// Keep-alive.
    pub keep_alive: Duration,
    /// Time between two heartbeats on `{prefix}/bridge/{name}/heartbeat`
    /// (zero: none).
    pub heartbeat: Duration,
    /// With several brokers: how long an event may wait for the broker's
    /// acknowledgement before a QoS 0 copy goes out through a standby
    /// connection to a node (zero: no standby connections).
    pub standby_after: Duration,
    /// Username and password.
    pub credentials: Option<(String, String)>,
    /// Unacknowledged events kept per board.
    pub queue: usize,
    /// Reconnection delays.
    pub reconnect: BackoffConfig,
    /// Whether an embedded broker may be started.
    pub embedded: Embedded,
}

impl Mqtt {
    /// Every broker to try, in turn: the first, then the other nodes of a
    /// cluster.
    pub fn brokers(&self) -> Vec<(String, u16)> {
        std::iter::once((self.host.clone(), self.port))
            .chain(self.failover.iter().cloned())
            .collect()
    }

    /// These settings for one broker of [`brokers`](Self::brokers).
    pub fn at(&self, (host, port): &(String, u16)) -> Mqtt {
        Mqtt {
            host: host.clone(),
            port: *port,
            ..self.clone()
        }
    }
}

/// `[bridge]`: the bridge's name (checked as a topic level), PGN tags.
pub fn bridge(
    raw: Option<RawBridge>,
    defaults: Option<RawBridge>,
    src: &Source,
) -> Result<Bridge, ConfigError> {
    let (b, db) = (raw.unwrap_or_default(), defaults.unwrap_or_default());
    let name = b
        .name
        .or(db.name)
        .ok_or_else(|| src.missing("bridge.name"))?;
    check_topic_level(name.get_ref())
        .map_err(|m| src.invalid(Some(name.span()), format!("bridge.name: {m}")))?;
    Ok(Bridge {
        name: name.into_inner(),
        event: b.event.or(db.event).unwrap_or_else(|| "?".into()),
        site: b.site.or(db.site).unwrap_or_else(|| "?".into()),
    })
}

/// `[mqtt]`: the brokers (a URL or a list, all TLS or none), the prefix,
/// TLS files, credentials, queue and reconnection delays;
/// `default_client_id` when the file gives none.
pub fn mqtt(
    raw: Option<RawMqtt>,
    defaults: Option<RawMqtt>,
    default_client_id: &str,
    src: &Source,
) -> Result<Mqtt, ConfigError> {
    let (m, dm) = (raw.unwrap_or_default(), defaults.unwrap_or_default());
    let url = m.url.or(dm.url).ok_or_else(|| src.missing("mqtt.url"))?;
    let (broker, failover) = brokers(&url, src)?;
    let prefix = m
        .prefix
        .or(dm.prefix)
        .ok_or_else(|| src.missing("mqtt.prefix"))?;
    let prefix_text = topic_root(&prefix, src)?;
    let tls = tls(m.tls, dm.tls, broker.tls, src)?;
    let client_id =
        nonempty(m.client_id.or(dm.client_id)).unwrap_or_else(|| default_client_id.to_string());
    let username = nonempty(m.username.or(dm.username));
    let password = m.password.or(dm.password).unwrap_or_default();
    let queue = m
        .queue
        .or(dm.queue)
        .ok_or_else(|| src.missing("mqtt.queue"))?;
    if *queue.get_ref() == 0 {
        return Err(src.invalid(Some(queue.span()), "mqtt.queue must be at least 1".into()));
    }
    let embedded = embedded(m.embedded.or(dm.embedded), src)?;
    Ok(Mqtt {
        embedded,
        host: broker.host,
        port: broker.port,
        failover,
        tls,
        prefix: prefix_text,
        client_id,
        keep_alive: Duration::from_secs(
            m.keep_alive_s
                .or(dm.keep_alive_s)
                .ok_or_else(|| src.missing("mqtt.keep_alive_s"))?
                .max(1),
        ),
        heartbeat: Duration::from_secs(m.heartbeat_s.or(dm.heartbeat_s).unwrap_or(5)),
        standby_after: Duration::from_millis(
            m.standby_after_ms.or(dm.standby_after_ms).unwrap_or(1000),
        ),
        credentials: username.map(|u| (u, password)),
        queue: queue.into_inner(),
        reconnect: BackoffConfig::from_ms(
            m.reconnect_min_ms.or(dm.reconnect_min_ms),
            m.reconnect_max_ms.or(dm.reconnect_max_ms),
        )
        .ok_or_else(|| src.missing("mqtt.reconnect_min_ms"))?,
    })
}

/// `mqtt.url`, one broker or a list: the first, and the others to fail
/// over to (host and port), all with or all without TLS.
fn brokers(
    url: &Spanned<BrokerUrls>,
    src: &Source,
) -> Result<(BrokerUrl, Vec<(String, u16)>), ConfigError> {
    let urls: Vec<&str> = match url.get_ref() {
        BrokerUrls::One(u) => vec![u.as_str()],
        BrokerUrls::Many(list) => list.iter().map(String::as_str).collect(),
    };
    if urls.is_empty() {
        return Err(src.invalid(
            Some(url.span()),
            "mqtt.url: the list of brokers is empty".into(),
        ));
    }
    let brokers = urls
        .iter()
        .map(|u| parse_url(u))
        .collect::<Result<Vec<BrokerUrl>, String>>()
        .map_err(|e| src.invalid(Some(url.span()), format!("mqtt.url: {e}")))?;
    if brokers.iter().any(|b| b.tls != brokers[0].tls) {
        return Err(src.invalid(
            Some(url.span()),
            "mqtt.url: the brokers of a list must all use mqtt:// or all mqtts://".into(),
        ));
    }
    let failover = brokers
        .iter()
        .skip(1)
        .map(|b| (b.host.clone(), b.port))
        .collect();
    let broker = brokers.into_iter().next().expect("checked non-empty");
    Ok((broker, failover))
}

/// `mqtt.prefix`: a topic without wildcards or a leading `/` (a trailing
/// one is dropped).
fn topic_root(prefix: &Spanned<String>, src: &Source) -> Result<String, ConfigError> {
    let text = prefix.get_ref().trim_end_matches('/').to_string();
    if text.is_empty() || text.contains(['+', '#']) || text.starts_with('/') {
        return Err(src.invalid(
            Some(prefix.span()),
            "mqtt.prefix must be a non-empty topic without wildcards or a leading '/'".into(),
        ));
    }
    Ok(text)
}

/// `mqtt.embedded`: `auto` or `never` (the default).
fn embedded(raw: Option<Spanned<String>>, src: &Source) -> Result<Embedded, ConfigError> {
    let Some(e) = raw else {
        return Ok(Embedded::Never);
    };
    match e.get_ref().as_str() {
        "auto" => Ok(Embedded::Auto),
        "never" => Ok(Embedded::Never),
        other => Err(src.invalid(
            Some(e.span()),
            format!("mqtt.embedded: `{other}`: use \"auto\" or \"never\""),
        )),
    }
}

/// `[mqtt.tls]`: on when enabled or when the URL says `mqtts://`.
fn tls(
    raw: Option<RawTls>,
    defaults: Option<RawTls>,
    url_wants_tls: bool,
    src: &Source,
) -> Result<Option<Tls>, ConfigError> {
    let (t, dt) = (raw.unwrap_or_default(), defaults.unwrap_or_default());
    let on = t.enabled.or(dt.enabled).unwrap_or(false) || url_wants_tls;
    let ca_file = nonempty(t.ca_file.or(dt.ca_file)).map(|p| src.resolve(&p));
    let cert = nonempty(t.client_cert_file.or(dt.client_cert_file)).map(|p| src.resolve(&p));
    let key = nonempty(t.client_key_file.or(dt.client_key_file)).map(|p| src.resolve(&p));
    let client_auth = match (cert, key) {
        (Some(c), Some(k)) => Some((c, k)),
        (None, None) => None,
        _ => {
            return Err(src.invalid(
                None,
                "mqtt.tls: client_cert_file and client_key_file go together".into(),
            ));
        }
    };
    Ok(on.then_some(Tls {
        ca_file,
        client_auth,
    }))
}

fn check_topic_level(s: &str) -> Result<(), String> {
    if s.is_empty() || s.contains(['/', '+', '#']) {
        return Err(format!(
            "`{s}` must be non-empty and hold no '/', '+' or '#'"
        ));
    }
    Ok(())
}

/// A broker address from a URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BrokerUrl {
    /// Host name or address (IPv6 without brackets).
    pub host: String,
    /// Port.
    pub port: u16,
    /// Whether the scheme asks for TLS.
    pub tls: bool,
}

/// Parses `mqtt://host[:port]` or `mqtts://host[:port]` (also `tcp://`,
/// `ssl://`). A trailing `/` is allowed; paths and queries are not.
pub fn parse_url(url: &str) -> Result<BrokerUrl, String> {
    let (scheme, rest) = url
        .split_once("://")
        .ok_or_else(|| format!("`{url}` is not a URL like mqtt://host:1883"))?;
    let tls = match scheme {
        "mqtt" | "tcp" => false,
        "mqtts" | "ssl" => true,
        other => return Err(format!("unknown scheme `{other}` (use mqtt or mqtts)")),
    };
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    if rest.contains(['/', '?', '@']) {
        return Err(format!(
            "`{url}`: only scheme, host and port are allowed (credentials go in mqtt.username)"
        ));
    }
    let default_port = if tls { 8883 } else { 1883 };
    let (host, port) = if let Some(v6) = rest.strip_prefix('[') {
        let (host, after) = v6
            .split_once(']')
            .ok_or_else(|| format!("`{url}`: unclosed '['"))?;
        let port = match after.strip_prefix(':') {
            Some(p) => Some(p),
            None if after.is_empty() => None,
            None => return Err(format!("`{url}`: unexpected `{after}`")),
        };
        (host.to_string(), port)
    } else {
        match rest.rsplit_once(':') {
            Some((h, p)) => (h.to_string(), Some(p)),
            None => (rest.to_string(), None),
        }
    };
    if host.is_empty() {
        return Err(format!("`{url}` has no host"));
    }
    let port = match port {
        None => default_port,
        Some(p) => p
            .parse::<u16>()
            .ok()
            .filter(|&p| p != 0)
            .ok_or_else(|| format!("`{p}` is not a port number"))?,
    };
    Ok(BrokerUrl { host, port, tls })
}
