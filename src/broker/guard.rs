//! The embedded broker's gate, pure part: reads what each client sends
//! (MQTT 3.1.1 packets, split by their fixed header) and decides whether
//! it may reach rumqttd.
//!
//! rumqttd keeps one log per subscription filter it ever saw, and never
//! drops one, even after every client that used it is gone: a client that
//! subscribes to thousands of distinct filters grows the broker's memory
//! for good (measured: 16 MB to 595 MB). rumqttd has no setting for it, so
//! the gate bounds it: at most [`Limits::per_connection`] distinct filters
//! per connection, at most [`Limits::total`] distinct filters in the
//! broker's life, persistent sessions refused (rumqttd would keep their
//! state after the client left), packets at most [`Limits::max_packet`]
//! bytes. A client that goes over is disconnected.
//!
//! No I/O, no clock, no logging: the proxy loop ([`super::proxy`]) feeds
//! bytes in and logs the refusals.

use std::collections::HashSet;

/// The bounds the gate keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Limits {
    /// Distinct filters one connection may subscribe to.
    pub(super) per_connection: usize,
    /// Distinct filters the broker may ever hold.
    pub(super) total: usize,
    /// The largest packet a client may send (fixed header included).
    pub(super) max_packet: usize,
}

/// Why a client was disconnected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(super) enum Refusal {
    /// A packet over [`Limits::max_packet`].
    #[error("a packet of {bytes} bytes, at most {max}")]
    TooLarge {
        /// Its size.
        bytes: usize,
        /// The limit.
        max: usize,
    },
    /// Not MQTT as the gate reads it.
    #[error("malformed packet: {0}")]
    Malformed(&'static str),
    /// `CONNECT` without a clean session: the broker would keep the
    /// session after the client left.
    #[error("a persistent session (clean session 0); only clean sessions are served")]
    PersistentSession,
    /// Over [`Limits::per_connection`].
    #[error("more than {max} distinct subscription filters on one connection")]
    TooManyFilters {
        /// The limit.
        max: usize,
    },
    /// Over [`Limits::total`].
    #[error("the broker holds {max} distinct subscription filters, its most")]
    BrokerFull {
        /// The limit.
        max: usize,
    },
}

/// The filters the broker holds (shared by every connection): rumqttd
/// never forgets one, so neither does this.
#[derive(Debug)]
pub(super) struct Registry {
    limits: Limits,
    filters: HashSet<String>,
}

impl Registry {
    /// An empty registry keeping `limits`.
    pub(super) fn new(limits: Limits) -> Registry {
        Registry {
            limits,
            filters: HashSet::new(),
        }
    }

    /// The limits.
    pub(super) fn limits(&self) -> Limits {
        self.limits
    }
}

/// One client connection as the gate sees it.
#[derive(Debug, Default)]
pub(super) struct Client {
    /// `CONNECT` came.
    connected: bool,
    /// The distinct filters it subscribed to.
    filters: HashSet<String>,
}

/// The length of the first whole packet in `buf`, `Ok(None)` when more
/// bytes are needed; refused when its length is over `max` or its length
/// field is malformed.
pub(super) fn frame_len(buf: &[u8], max: usize) -> Result<Option<usize>, Refusal> {
    let mut remaining = 0usize;
    for i in 0..4 {
        let Some(&b) = buf.get(1 + i) else {
            return Ok(None);
        };
        remaining |= usize::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            let len = 1 + (i + 1) + remaining;
            if len > max {
                return Err(Refusal::TooLarge { bytes: len, max });
            }
            return Ok((buf.len() >= len).then_some(len));
        }
    }
    Err(Refusal::Malformed("remaining length over 4 bytes"))
}

impl Client {
    /// Checks one whole `packet` (as [`frame_len`] cut it) from this
    /// client against `registry`, and notes its new filters there.
    pub(super) fn check(&mut self, packet: &[u8], registry: &mut Registry) -> Result<(), Refusal> {
        let len = frame_len(packet, usize::MAX)?
            .filter(|&len| len == packet.len())
            .ok_or(Refusal::Malformed("not one whole packet"))?;
        let body = &packet[header_len(packet)..len];
        match packet[0] >> 4 {
            1 => self.on_connect(body),
            8 => self.on_subscribe(body, registry),
            _ if !self.connected => Err(Refusal::Malformed("a packet before CONNECT")),
            _ => Ok(()),
        }
    }

    fn on_connect(&mut self, body: &[u8]) -> Result<(), Refusal> {
        if self.connected {
            return Err(Refusal::Malformed("a second CONNECT"));
        }
        let (_, rest) = string(body)?;
        // Protocol level, then the connect flags; bit 1 is the clean session.
        let flags = *rest.get(1).ok_or(Refusal::Malformed("short CONNECT"))?;
        if flags & 0x02 == 0 {
            return Err(Refusal::PersistentSession);
        }
        self.connected = true;
        Ok(())
    }

    fn on_subscribe(&mut self, body: &[u8], registry: &mut Registry) -> Result<(), Refusal> {
        if !self.connected {
            return Err(Refusal::Malformed("a packet before CONNECT"));
        }
        let mut rest = body.get(2..).ok_or(Refusal::Malformed("short SUBSCRIBE"))?;
        let limits = registry.limits;
        while !rest.is_empty() {
            let (filter, after) = string(rest)?;
            rest = after
                .get(1..)
                .ok_or(Refusal::Malformed("short SUBSCRIBE"))?;
            let filter = String::from_utf8_lossy(filter).into_owned();
            if self.filters.contains(&filter) {
                continue;
            }
            if self.filters.len() >= limits.per_connection {
                return Err(Refusal::TooManyFilters {
                    max: limits.per_connection,
                });
            }
            if !registry.filters.contains(&filter) {
                if registry.filters.len() >= limits.total {
                    return Err(Refusal::BrokerFull { max: limits.total });
                }
                registry.filters.insert(filter.clone());
            }
            self.filters.insert(filter);
        }
        Ok(())
    }
}

/// The length of a whole packet's fixed header (type byte and length
/// field).
fn header_len(packet: &[u8]) -> usize {
    1 + packet[1..]
        .iter()
        .position(|b| b & 0x80 == 0)
        .map_or(4, |i| i + 1)
}

/// A length-prefixed MQTT string at the start of `buf`, and what follows.
fn string(buf: &[u8]) -> Result<(&[u8], &[u8]), Refusal> {
    let n = match buf {
        [hi, lo, ..] => (usize::from(*hi) << 8) | usize::from(*lo),
        _ => return Err(Refusal::Malformed("a short string")),
    };
    let end = 2 + n;
    if buf.len() < end {
        return Err(Refusal::Malformed("a short string"));
    }
    Ok((&buf[2..end], &buf[end..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: Limits = Limits {
        per_connection: 3,
        total: 4,
        max_packet: 1 << 10,
    };

    fn packet(kind: u8, body: &[u8]) -> Vec<u8> {
        assert!(body.len() < 128);
        let mut p = vec![kind, body.len() as u8];
        p.extend_from_slice(body);
        p
    }

    fn connect(clean: bool) -> Vec<u8> {
        let mut body = vec![
            0,
            4,
            b'M',
            b'Q',
            b'T',
            b'T',
            4,
            if clean { 0x02 } else { 0 },
        ];
        body.extend_from_slice(&[0, 60, 0, 1, b'c']);
        packet(0x10, &body)
    }

    fn subscribe(filters: &[&str]) -> Vec<u8> {
        let mut body = vec![0, 1];
        for f in filters {
            body.extend_from_slice(&[0, f.len() as u8]);
            body.extend_from_slice(f.as_bytes());
            body.push(1);
        }
        packet(0x82, &body)
    }

    #[test]
    fn packets_are_cut_by_their_length_and_bounded() {
        let p = subscribe(&["a/b"]);
        assert_eq!(frame_len(&p[..1], 100), Ok(None));
        assert_eq!(frame_len(&p[..4], 100), Ok(None));
        assert_eq!(frame_len(&p, 100), Ok(Some(p.len())));
        // 2 MiB announced: refused before it is read.
        let big = [0x30, 0x80, 0x80, 0x80, 0x01];
        assert!(matches!(
            frame_len(&big, 1 << 20),
            Err(Refusal::TooLarge { .. })
        ));
        assert!(frame_len(&[0x30, 0xff, 0xff, 0xff, 0xff, 0x7f], usize::MAX).is_err());
    }

    #[test]
    fn a_persistent_session_is_refused() {
        let mut r = Registry::new(LIMITS);
        assert_eq!(
            Client::default().check(&connect(false), &mut r),
            Err(Refusal::PersistentSession)
        );
        assert_eq!(Client::default().check(&connect(true), &mut r), Ok(()));
    }

    #[test]
    fn filters_are_bounded_per_connection_and_for_the_broker_s_life() {
        let mut r = Registry::new(LIMITS);
        let mut a = Client::default();
        a.check(&connect(true), &mut r).unwrap();
        a.check(&subscribe(&["a", "b", "a"]), &mut r).unwrap();
        a.check(&subscribe(&["c", "b"]), &mut r).unwrap();
        assert_eq!(
            a.check(&subscribe(&["d"]), &mut r),
            Err(Refusal::TooManyFilters { max: 3 })
        );
        // Filters outlive their connection: one more new one fits.
        let mut b = Client::default();
        b.check(&connect(true), &mut r).unwrap();
        b.check(&subscribe(&["a", "e"]), &mut r).unwrap();
        assert_eq!(
            b.check(&subscribe(&["f"]), &mut r),
            Err(Refusal::BrokerFull { max: 4 })
        );
        assert_eq!(r.filters.len(), 4);
        // Known filters stay open to everyone.
        let mut c = Client::default();
        c.check(&connect(true), &mut r).unwrap();
        assert_eq!(c.check(&subscribe(&["a", "b", "c"]), &mut r), Ok(()));
    }

    #[test]
    fn nothing_but_connect_comes_first() {
        let mut r = Registry::new(LIMITS);
        assert!(Client::default().check(&subscribe(&["a"]), &mut r).is_err());
        assert!(Client::default().check(&packet(0xc0, &[]), &mut r).is_err());
        let mut truncated = subscribe(&["abc"]);
        truncated[5] = 9;
        let mut a = Client::default();
        a.check(&connect(true), &mut r).unwrap();
        assert!(a.check(&truncated, &mut r).is_err());
    }
}
