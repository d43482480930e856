//! The `[control]` section: who may send the boards operator commands.

use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

use crate::config_file::{ConfigError, Source, nonempty};

/// `[control]` as written.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawControl {
    /// The operator secret.
    pub secret: Option<String>,
    /// A file holding the operator secret.
    pub secret_file: Option<String>,
    /// Tolerated clock difference, in seconds.
    pub window_s: Option<u64>,
}

/// `[control]`: who may send operator commands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Control {
    /// The operator secret; `None`: every command is refused.
    pub secret: Option<crate::control::Secret>,
    /// How far a command's signing time may be from the daemon's clock
    /// (at most [`crate::control::MAX_WINDOW_S`]).
    pub window: Duration,
    /// Where the nonces of the commands accepted are kept across
    /// restarts (`nonces.jsonl` in the recorder folder), if anywhere.
    pub nonces: Option<PathBuf>,
}

impl Control {
    /// The verifier of these settings: with their nonce file (when a
    /// recorder folder is configured), the nonces in it still live at
    /// `now_ms` (Unix milliseconds) taken up. A nonce file that cannot be
    /// used is warned about: the nonces then live in memory.
    pub fn verifier(&self, now_ms: u64) -> crate::control::Verifier {
        let v = crate::control::Verifier::new(self.secret.clone(), self.window.as_millis() as u64);
        match &self.nonces {
            Some(path) => v.with_nonce_file(path, now_ms),
            None => v,
        }
    }
}

/// `[control]`: the operator secret (inline or from a file, not both) and
/// the tolerated clock difference.
pub fn control(
    raw: Option<RawControl>,
    defaults: Option<RawControl>,
    src: &Source,
) -> Result<Control, ConfigError> {
    let (c, dc) = (raw.unwrap_or_default(), defaults.unwrap_or_default());
    let window_s = c
        .window_s
        .or(dc.window_s)
        .ok_or_else(|| src.missing("control.window_s"))?;
    if window_s > crate::control::MAX_WINDOW_S {
        return Err(src.invalid(
            None,
            format!(
                "control.window_s = {window_s}: at most {} s (a captured command can be replayed within the window)",
                crate::control::MAX_WINDOW_S
            ),
        ));
    }
    let secret_text = match (
        nonempty(c.secret.or(dc.secret)),
        nonempty(c.secret_file.or(dc.secret_file)),
    ) {
        (Some(_), Some(_)) => {
            return Err(src.invalid(None, "control: give secret or secret_file, not both".into()));
        }
        (Some(s), None) => Some(s),
        (None, Some(f)) => {
            let f = src.resolve(&f);
            Some(std::fs::read_to_string(&f).map_err(|e| {
                src.invalid(None, format!("control.secret_file: {}: {e}", f.display()))
            })?)
        }
        (None, None) => None,
    };
    Ok(Control {
        secret: secret_text
            .map(|t| crate::control::Secret::new(&t))
            .transpose()
            .map_err(|m| src.invalid(None, format!("control: {m}")))?,
        window: Duration::from_secs(window_s.max(1)),
        nonces: None,
    })
}
