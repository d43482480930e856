//! What every serial task shares, one board or a DGT bus: opening a line
//! with its family's settings, and the loop that keeps it open (find,
//! open, serve until lost, wait a backoff, again) until shutdown.

use std::io;
use std::path::Path;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::watch;
use tokio_serial::{DataBits, FlowControl, Parity, SerialPortBuilderExt, SerialStream, StopBits};
use tracing::{Instrument, Span, debug, info, warn};

use crate::backoff::Backoff;
use crate::backoff::BackoffConfig;
use crate::family::LineSettings;

/// Why a live connection ended.
#[derive(Debug, thiserror::Error)]
pub(super) enum Lost {
    #[error("read failed: {0}")]
    Read(io::Error),
    #[error("write failed: {0}")]
    Write(io::Error),
    #[error("end of file")]
    Eof,
    #[error("silent for {0:?}")]
    Silent(Duration),
    #[error("shutting down")]
    Shutdown,
}

/// An open line: a serial port, or an in-process line
/// ([`super::memory`]).
pub(super) trait Stream: AsyncRead + AsyncWrite + Unpin + Send {}

impl<T: AsyncRead + AsyncWrite + Unpin + Send> Stream for T {}

/// Opens the line at `path`: an in-process line by its name
/// ([`super::memory::PREFIX`]), else the serial device (`/dev/ttyUSB0`,
/// `COM5`) with `line`'s settings ([`open_serial`]).
pub(super) fn open(path: &Path, line: &LineSettings) -> io::Result<Box<dyn Stream>> {
    let name = path.to_string_lossy();
    if super::memory::is_memory(&name) {
        return Ok(Box::new(super::memory::open(&name)?));
    }
    Ok(Box::new(open_serial(path, line)?))
}

/// Opens the device at `path` with `line`'s settings (no flow control),
/// raises DTR and RTS when the family wants them, and drops whatever the
/// board wrote while nobody read.
fn open_serial(path: &Path, line: &LineSettings) -> io::Result<SerialStream> {
    let builder = tokio_serial::new(path.to_string_lossy(), line.baud)
        .data_bits(if line.data_bits == 7 {
            DataBits::Seven
        } else {
            DataBits::Eight
        })
        .parity(match line.parity {
            crate::family::Parity::None => Parity::None,
            crate::family::Parity::Odd => Parity::Odd,
            crate::family::Parity::Even => Parity::Even,
        })
        .stop_bits(if line.stop_bits == 2 {
            StopBits::Two
        } else {
            StopBits::One
        })
        .flow_control(FlowControl::None);
    let mut stream = builder.open_native_async()?;
    if line.dtr_rts {
        // Certabo's USB bridge wants both modem lines up; a line without
        // them (a pseudo-terminal) is fine as it is.
        use tokio_serial::SerialPort;
        if let Err(e) = stream
            .write_data_terminal_ready(true)
            .and_then(|()| stream.write_request_to_send(true))
        {
            debug!(path = %path.display(), error = %e, "cannot raise DTR/RTS");
        }
    }
    clear(path, &stream);
    Ok(stream)
}

/// Bytes the board wrote while nobody read (a daemon that was down, a
/// reader that went away) are of unknown age: dropped. The board dump
/// asked for after the hello tells the truth.
fn clear(path: &Path, stream: &SerialStream) {
    if let Err(e) = tokio_serial::SerialPort::clear(stream, tokio_serial::ClearBuffer::Input) {
        debug!(path = %path.display(), error = %e, "cannot clear the input buffer");
    }
}

/// Writes `bytes` and flushes, within two seconds.
pub(super) async fn write(
    stream: &mut (impl AsyncWrite + Unpin + ?Sized),
    bytes: &[u8],
) -> io::Result<()> {
    tokio::time::timeout(Duration::from_secs(2), async {
        stream.write_all(bytes).await?;
        stream.flush().await
    })
    .await
    .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "write timed out"))?
}

/// Bytes as spaced hex, for logs.
pub(super) fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A serial task: what [`keep_open`] needs of one board's line or a bus.
pub(super) trait LineTask {
    /// An open, identified line.
    type Link;
    /// What the logs call the line (`board`, `bus line`).
    fn what(&self) -> &'static str;

    /// Tries every candidate device once; the first line that answers.
    async fn connect(&mut self, shutdown: &mut watch::Receiver<bool>) -> Option<Self::Link>;
    /// The span of one connection (its device, the board it found).
    fn link_span(link: &Self::Link) -> Span;
    /// Serves an open line until it is lost or the daemon stops.
    async fn serve(&mut self, link: Self::Link, shutdown: &mut watch::Receiver<bool>) -> Lost;
    /// The line was lost (`why`): its boards go offline, captures flushed.
    fn lost(&mut self, why: &Lost);
    /// Waits `delay` while keeping the boards' timers and commands going.
    async fn idle(&mut self, delay: Duration);
    /// The daemon stops: pending moves published, boards offline, captures
    /// and PGN written.
    fn stop(&mut self);
}

/// Keeps `task`'s line open until `shutdown` turns true: connects, serves,
/// and after a loss (or when no device answers) waits a capped exponential
/// backoff (`reconnect`) before trying again; then stops the task.
pub(super) async fn keep_open<T: LineTask>(
    task: &mut T,
    reconnect: BackoffConfig,
    shutdown: &mut watch::Receiver<bool>,
) {
    let mut backoff = Backoff::new(reconnect);
    let mut announced_missing = false;
    while !*shutdown.borrow() {
        match task.connect(shutdown).await {
            Some(link) => {
                backoff.reset();
                announced_missing = false;
                // One span per connection.
                let span = T::link_span(&link);
                let why = task.serve(link, shutdown).instrument(span).await;
                task.lost(&why);
                if matches!(why, Lost::Shutdown) {
                    break;
                }
                warn!(reason = %why, "{} offline", task.what());
            }
            None if !announced_missing => {
                info!("{} not found; retrying", task.what());
                announced_missing = true;
            }
            None => {}
        }
        let delay = backoff.next_delay();
        tokio::select! {
            _ = task.idle(delay) => {}
            _ = shutdown.changed() => {}
        }
    }
    task.stop();
    debug!("{} task stopped", task.what());
}
