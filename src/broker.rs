//! The embedded MQTT broker: what a club or a demo runs when it has no
//! broker of its own.
//!
//! At start-up, with `[mqtt] embedded = "auto"` and a loopback broker
//! address without TLS, [`ensure`] looks whether a broker listens at the
//! configured address. If one does, the daemon uses it; if none does, it
//! starts rumqttd there, in this process. Either way the log says which.
//!
//! Design: rumqttd has no shutdown API; its router and servers run on
//! threads of their own until the process exits. So it is started once, on
//! a thread of its own, and left to the end of the process: the daemon's
//! own MQTT task still disconnects cleanly (publishing the bridge
//! `offline`) before the process goes.

use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use tracing::{info, warn};

use crate::mqtt::config::{Embedded, Mqtt};

mod guard;
mod proxy;

/// Why the embedded broker could not be started.
#[derive(Debug, thiserror::Error)]
pub enum BrokerError {
    /// rumqttd refused its configuration (a bug of ours).
    #[error("embedded broker configuration: {0}")]
    Config(String),
    /// The broker did not start listening in time (the port is taken by
    /// something that is not an MQTT broker, or binding failed).
    #[error("embedded broker did not start listening on {addr}: {reason}")]
    NotListening {
        /// The address.
        addr: SocketAddr,
        /// What happened.
        reason: String,
    },
    /// Nothing accepted connections at the address within 5 s of the
    /// start.
    #[error(
        "embedded broker did not start listening on {0}: nothing accepted connections within 5 s"
    )]
    NeverAccepted(SocketAddr),
}

/// Which broker the daemon talks to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BrokerChoice {
    /// A broker was already listening (or `embedded = "never"`, or the
    /// address is not local).
    External,
    /// boardcast started rumqttd at this address.
    Embedded(SocketAddr),
}

/// The loopback socket address of `host:port`, when `host` names this
/// machine's loopback interface.
fn loopback(host: &str, port: u16) -> Option<SocketAddr> {
    let ip = match host {
        "localhost" => IpAddr::V4(Ipv4Addr::LOCALHOST),
        h => h.trim_matches(['[', ']']).parse::<IpAddr>().ok()?,
    };
    ip.is_loopback().then_some(SocketAddr::new(ip, port))
}

/// Whether something accepts TCP connections at `addr`.
pub fn listening(addr: SocketAddr) -> bool {
    TcpStream::connect_timeout(&addr, Duration::from_millis(500)).is_ok()
}

/// Starts an embedded broker for `cfg` when its settings allow one and no
/// broker listens at its address; see the module documentation.
pub fn ensure(cfg: &Mqtt) -> Result<BrokerChoice, BrokerError> {
    if cfg.embedded == Embedded::Never {
        return Ok(BrokerChoice::External);
    }
    let Some(addr) = loopback(&cfg.host, cfg.port).filter(|_| cfg.tls.is_none()) else {
        info!(
            host = %cfg.host,
            port = cfg.port,
            "embedded broker not started: only a loopback address without TLS may get one"
        );
        return Ok(BrokerChoice::External);
    };
    if listening(addr) {
        info!(%addr, "a broker already listens at the configured address: using it");
        return Ok(BrokerChoice::External);
    }
    start(addr)?;
    info!(%addr, "no broker listened at the configured address: started the embedded broker");
    Ok(BrokerChoice::Embedded(addr))
}

/// Bytes of one log segment of the embedded broker (at least the largest
/// payload, 1 MiB).
pub const SEGMENT_BYTES: usize = 4 << 20;
/// Segments kept per subscription filter.
pub const SEGMENTS: usize = 4;
/// Clients the embedded broker accepts at once.
pub const MAX_CLIENTS: usize = 1000;
/// Distinct subscription filters one connection may subscribe to (a
/// bridge subscribes to one per board and two more).
pub const MAX_FILTERS_PER_CONNECTION: usize = 256;
/// Distinct subscription filters the embedded broker may ever hold:
/// rumqttd keeps a log for each until the process ends.
pub const MAX_FILTERS: usize = 1024;
/// QoS 1 messages rumqttd sends a client before its acknowledgements.
pub const MAX_INFLIGHT: usize = 100;

/// rumqttd's configuration for one anonymous plain-TCP MQTT 3.1.1 listener
/// at `addr` (a loopback port of its own, behind the gate).
fn broker_config(addr: SocketAddr) -> Result<rumqttd::Config, BrokerError> {
    // Design: written as rumqttd's own TOML form (its documented config
    // file) rather than struct literals, whose fields change between
    // releases. Payloads up to 1 MiB: the retained PGN of a long game.
    // Memory is bounded: rumqttd keeps, per subscription filter, up to
    // `max_segment_count` segments of `max_segment_size` bytes (4 x 4 MiB
    // = 16 MiB, not its example's 10 x 100 MiB), and at most 1000 clients;
    // the gate bounds the filters (see `guard`). The filter `#` exists from
    // the start, so a publish on a topic nobody subscribes to goes to its
    // log instead of making a new log per topic (`dynamic_filters`).
    let text = format!(
        r##"
id = 0

[router]
max_connections = {MAX_CLIENTS}
max_outgoing_packet_count = 200
max_segment_size = {SEGMENT_BYTES}
max_segment_count = {SEGMENTS}
initialized_filters = ["#"]

[v4.1]
name = "boardcast-embedded"
listen = "{addr}"
next_connection_delay_ms = 1

[v4.1.connections]
connection_timeout_ms = 60000
max_payload_size = {max_payload}
max_inflight_count = {MAX_INFLIGHT}
dynamic_filters = true
"##,
        max_payload = crate::mqtt::MAX_PACKET,
    );
    toml::from_str(&text).map_err(|e| BrokerError::Config(e.to_string()))
}

/// Starts the embedded broker for `addr`: rumqttd on a loopback port of
/// its own, on a thread of its own, and the gate ([`proxy`]) serving
/// `addr` on another; waits until both accept connections.
pub fn start(addr: SocketAddr) -> Result<(), BrokerError> {
    let not_listening = |reason: String| BrokerError::NotListening { addr, reason };
    let listener = std::net::TcpListener::bind(addr).map_err(|e| not_listening(e.to_string()))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| not_listening(e.to_string()))?;
    // Design: a free port found by binding port 0 and letting it go; only
    // this process is told it, and rumqttd binds it at once.
    let inner = std::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|l| l.local_addr())
        .map_err(|e| not_listening(e.to_string()))?;
    let config = broker_config(inner)?;
    std::thread::Builder::new()
        .name("embedded-broker".into())
        .spawn(move || {
            let mut broker = rumqttd::Broker::new(config);
            if let Err(e) = broker.start() {
                warn!(%addr, error = %e, "the embedded broker stopped");
            }
        })
        .map_err(|e| not_listening(e.to_string()))?;
    if !wait_listening(inner) {
        return Err(BrokerError::NeverAccepted(addr));
    }
    let registry = guard::Registry::new(guard::Limits {
        per_connection: MAX_FILTERS_PER_CONNECTION,
        total: MAX_FILTERS,
        max_packet: crate::mqtt::MAX_PACKET,
    });
    std::thread::Builder::new()
        .name("embedded-broker-gate".into())
        .spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build();
            match runtime {
                Ok(rt) => rt.block_on(async move {
                    match tokio::net::TcpListener::from_std(listener) {
                        Ok(l) => proxy::serve(l, inner, registry, MAX_CLIENTS).await,
                        Err(e) => warn!(%addr, error = %e, "the embedded broker's gate stopped"),
                    }
                }),
                Err(e) => warn!(%addr, error = %e, "the embedded broker's gate did not start"),
            }
        })
        .map_err(|e| not_listening(e.to_string()))?;
    if !wait_listening(addr) {
        return Err(BrokerError::NeverAccepted(addr));
    }
    Ok(())
}

/// Waits (5 s at most) until something accepts connections at `addr`;
/// whether something did.
fn wait_listening(addr: SocketAddr) -> bool {
    let deadline = Instant::now() + Duration::from_secs(5);
    while !listening(addr) {
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_addresses_may_get_an_embedded_broker() {
        assert!(loopback("127.0.0.1", 1).is_some());
        assert!(loopback("localhost", 1).is_some());
        assert!(loopback("::1", 1).is_some());
        assert!(loopback("broker.local", 1).is_none());
        assert!(loopback("192.168.1.10", 1).is_none());
    }

    #[test]
    fn the_broker_configuration_is_accepted_by_rumqttd() {
        let addr: SocketAddr = "127.0.0.1:18830".parse().unwrap();
        let c = broker_config(addr).unwrap();
        let v4 = c.v4.unwrap();
        assert_eq!(v4["1"].listen, addr);
        assert_eq!(v4["1"].connections.max_payload_size, 1 << 20);
        assert_eq!(c.router.initialized_filters, Some(vec!["#".to_string()]));
        // Bounded memory: 16 MiB per subscription filter at most.
        assert_eq!(c.router.max_segment_size, 4 << 20);
        assert_eq!(c.router.max_segment_count, 4);
        assert!(c.router.max_segment_size >= v4["1"].connections.max_payload_size);
    }
}
