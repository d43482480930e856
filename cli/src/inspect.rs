//! `boardcast ports` and `boardcast check-config`: what this machine's
//! serial ports are, and what a configuration file configures.

use std::path::Path;

use anyhow::{Context, Result};

use boardcast::config::Config as DaemonConfig;

use crate::{platform, trf};

/// `boardcast ports`: one line per serial port of this machine.
pub(crate) fn ports() -> Result<()> {
    let ports = tokio_serial::available_ports().context("listing serial ports")?;
    if ports.is_empty() {
        println!("no serial ports found");
    }
    for p in ports {
        println!("{}", platform::describe_port(&p.port_name, &p.port_type));
    }
    Ok(())
}

/// `boardcast check-config`: the configuration file read as the daemon
/// reads it, and what it configures.
pub(crate) fn check_config(path: &Path) -> Result<()> {
    let c = DaemonConfig::load(path)?;
    // The pairings file is read as the daemon reads it: one that does not
    // read fails the check before anything is said to be ok.
    let pairings = c
        .event
        .pairings
        .as_deref()
        .map(|p| trf::check_pairings(p, c.event.asked_round))
        .transpose()?;
    // The lichess token is read as the daemon reads it (never printed).
    let lichess = c
        .lichess
        .as_ref()
        .map(|l| {
            boardcast::lichess::Token::read(&l.token_file).map(|_| {
                format!(
                    "pushing to lichess round {} at {} (token read from {})",
                    l.round,
                    l.base_url,
                    l.token_file.display()
                )
            })
        })
        .transpose()?;
    println!(
        "{}: ok: bridge `{}`, broker {}:{}{}, prefix `{}`, {} board(s)",
        path.display(),
        c.bridge.name,
        c.mqtt.host,
        c.mqtt.port,
        if c.mqtt.tls.is_some() { " (tls)" } else { "" },
        c.mqtt.prefix,
        c.boards.len()
    );
    for b in &c.boards {
        println!(
            "  board {}: {} {} baud {}{}{}",
            b.id,
            b.port,
            b.protocol.name(),
            b.baud,
            b.bus_address
                .map(|a| format!(", bus address {a}"))
                .unwrap_or_default(),
            b.serial
                .as_ref()
                .map(|s| format!(", serial {s}"))
                .unwrap_or_default()
        );
    }
    if let Some(dir) = &c.recorder {
        println!("  recording to {}", dir.display());
    }
    if let Some(line) = pairings {
        println!("  {line}");
    }
    if let Some(line) = lichess {
        println!("  {line}");
    }
    Ok(())
}
