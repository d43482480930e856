//! The `[log]` section: level and format of the daemon's log.

use serde::Deserialize;
use toml::Spanned;

use crate::config_file::{ConfigError, Source};

/// `[log]` as written.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawLog {
    /// `text` or `json`.
    pub format: Option<Spanned<String>>,
    /// Filter directives.
    pub level: Option<String>,
}

/// Log output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line.
    Json,
}

/// `[log]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Log {
    /// Output format.
    pub format: LogFormat,
    /// Filter directives.
    pub level: String,
}

/// `[log]`: the format (`text` or `json`) and the filter.
pub fn log(
    raw: Option<RawLog>,
    defaults: Option<RawLog>,
    src: &Source,
) -> Result<Log, ConfigError> {
    let (l, dl) = (raw.unwrap_or_default(), defaults.unwrap_or_default());
    let format = l
        .format
        .or(dl.format)
        .ok_or_else(|| src.missing("log.format"))?;
    Ok(Log {
        format: match format.get_ref().as_str() {
            "text" => LogFormat::Text,
            "json" => LogFormat::Json,
            other => {
                return Err(src.invalid(
                    Some(format.span()),
                    format!("log.format: `{other}` is neither \"text\" nor \"json\""),
                ));
            }
        },
        level: l.level.or(dl.level).unwrap_or_else(|| "info".into()),
    })
}
