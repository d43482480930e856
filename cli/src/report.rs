//! `boardcast report`: the round's report for the arbiter.

use std::fs;
use std::path::Path;

use anyhow::{Context, Result};

use crate::args::ReportFormat;

/// `boardcast report`: the round's report for the arbiter, as HTML or
/// JSON, to a file or standard output.
pub(crate) fn report(
    config: &Path,
    round: Option<u32>,
    format: ReportFormat,
    out: Option<&Path>,
) -> Result<()> {
    let cfg =
        boardcast::config::Config::load(config).with_context(|| format!("{}", config.display()))?;
    let report = boardcast::daemon::round_report(&cfg, round)?;
    let text = match format {
        ReportFormat::Html => report.to_html(),
        ReportFormat::Json => report.to_json() + "\n",
    };
    match out {
        Some(path) => {
            fs::write(path, text).with_context(|| format!("writing {}", path.display()))?
        }
        None => print!("{text}"),
    }
    Ok(())
}
