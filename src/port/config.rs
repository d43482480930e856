//! The `[serial]` and `[recorder]` sections: how lines are opened and
//! kept, and where captures are written.

use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;
use toml::Spanned;

use crate::backoff::BackoffConfig;
use crate::config_file::{ConfigError, Source, nonempty};

/// `[serial]` as written.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSerial {
    /// Liveness poll period.
    pub poll_ms: Option<u64>,
    /// Silence that means "unplugged".
    pub silence_ms: Option<Spanned<u64>>,
    /// Time allowed for the serial number after opening.
    pub handshake_ms: Option<u64>,
    /// First reopening delay.
    pub reconnect_min_ms: Option<u64>,
    /// Longest reopening delay.
    pub reconnect_max_ms: Option<u64>,
    /// Time between two requests on a DGT bus line.
    pub bus_gap_ms: Option<u64>,
}

/// `[serial]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Serial {
    /// Liveness poll period.
    pub poll: Duration,
    /// Silence taken for an unplugged board.
    pub silence: Duration,
    /// Time allowed for the serial number after opening.
    pub handshake: Duration,
    /// Reopening delays.
    pub reconnect: BackoffConfig,
    /// Time between two requests on a DGT bus line (each unit is polled
    /// once every `bus_gap` times the number of units).
    pub bus_gap: Duration,
}

/// `[serial]`: polls, silence, handshake, reopening delays, the bus gap.
pub fn serial(
    raw: Option<RawSerial>,
    defaults: Option<RawSerial>,
    src: &Source,
) -> Result<Serial, ConfigError> {
    let (s, ds) = (raw.unwrap_or_default(), defaults.unwrap_or_default());
    let ms =
        |v: Option<u64>, key: &str| v.map(Duration::from_millis).ok_or_else(|| src.missing(key));
    let poll = ms(s.poll_ms.or(ds.poll_ms), "serial.poll_ms")?;
    let silence = s
        .silence_ms
        .or(ds.silence_ms)
        .ok_or_else(|| src.missing("serial.silence_ms"))?;
    if Duration::from_millis(*silence.get_ref()) <= poll {
        return Err(src.invalid(
            Some(silence.span()),
            "serial.silence_ms must be longer than serial.poll_ms".into(),
        ));
    }
    Ok(Serial {
        poll: poll.max(Duration::from_millis(10)),
        silence: Duration::from_millis(silence.into_inner()),
        handshake: ms(s.handshake_ms.or(ds.handshake_ms), "serial.handshake_ms")?,
        reconnect: BackoffConfig::from_ms(
            s.reconnect_min_ms.or(ds.reconnect_min_ms),
            s.reconnect_max_ms.or(ds.reconnect_max_ms),
        )
        .ok_or_else(|| src.missing("serial.reconnect_min_ms"))?,
        bus_gap: ms(s.bus_gap_ms.or(ds.bus_gap_ms), "serial.bus_gap_ms")?
            .max(Duration::from_millis(5)),
    })
}

/// `[recorder]` as written.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRecorder {
    /// Capture folder.
    pub dir: Option<String>,
}

/// `[recorder]`: the capture folder, if any.
pub fn recorder(
    raw: Option<RawRecorder>,
    defaults: Option<RawRecorder>,
    src: &Source,
) -> Option<PathBuf> {
    let (r, dr) = (raw.unwrap_or_default(), defaults.unwrap_or_default());
    nonempty(r.dir.or(dr.dir)).map(|d| src.resolve(&d))
}
