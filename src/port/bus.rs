//! A DGT bus: several DGT boards chained on one serial line, read by one
//! line task ([`PortTask::bus`](super::PortTask::bus)) with the bus driver
//! ([`DgtBusDriver`](crate::family::DgtBusDriver)).
//!
//! The task owns the line: it finds and opens the device, sends the bus
//! driver's ping, then the driver polls the units in turn. Every byte read
//! from the line is decoded once, by the bus driver; each unit's
//! [`Session`](crate::session::Session) takes the replies of its own
//! address, and every unit's capture takes all the bytes, so each unit is
//! a board of its own in every output (topics, PGN, page) and its capture
//! replays alone.
//!
//! A unit that stops answering is reported missing (a warning, and the
//! board's state goes `offline`) after three unanswered requests and a
//! second without an answer, so that a host or a USB link that stalls for
//! a moment takes no board off the air; the others are polled as before. When it
//! answers again it is asked for its whole board (and, with a game on, its
//! memory first), and the reconstructor explains the moves made while it
//! was away, as after a single board's replug. The line itself is lost
//! only on a read or write error or a hang-up; then every unit goes
//! `offline` and the task reconnects after a backoff.
//!
//! What a bus line does differently from a board on its own line, all in
//! the one line task: it is taken once a configured unit answers the ping
//! (on a fixed path, even when none does), within `serial.handshake_ms`
//! but at least [`IDENTIFY_MIN`]; its boards are named by their addresses,
//! not pinned by serial number; and it has no silence timeout (the driver
//! reports units missing).

use std::time::Duration;

use crate::family::{BusOptions, DriverOptions};

/// How long a line found by a pattern (or a list) has for one configured
/// unit to answer the ping; real boards answer within 1100 ms.
pub const IDENTIFY_MIN: Duration = Duration::from_millis(1300);

/// Why a bus task cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum BusError {
    /// No board was given.
    #[error("a bus needs at least one board")]
    Empty,
    /// A board is not configured on a DGT bus.
    #[error("board `{0}` has no bus address")]
    NotOnBus(String),
}

/// The bus driver's options for the units at `addresses`, polled one
/// every `gap`.
pub(super) fn options(addresses: Vec<u16>, gap: Duration) -> DriverOptions {
    let gap_ms = gap.as_millis() as u64;
    DriverOptions {
        bus: BusOptions {
            addresses,
            gap_ms,
            // Boards answer within ms (up to 20 ms writing their memory):
            // 80 ms, or the gap when that is shorter.
            timeout_ms: gap_ms.min(80),
            ..BusOptions::default()
        },
        ..DriverOptions::default()
    }
}
