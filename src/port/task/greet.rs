//! The line's hello: the driver's greeting written, the answer read until
//! the board names itself, and whether the device is the one the task
//! looks for (a bus with a configured unit, a board with its serial).

use std::io;
use std::path::Path;
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::time::Instant;
use tracing::{debug, warn};

use super::super::bus;
use super::super::line::{self, write};
use super::{Greeting, Heard, PortTask};
use crate::capture::Direction;
use crate::family::{Driver, DriverEvent, Reading};

/// After a board that may not name itself first answers, how long it has
/// to name itself still.
const LINGER: Duration = Duration::from_millis(100);

impl PortTask {
    /// Writes the driver's hello and reads until the board names itself
    /// (a family that asks first), a board answers (and has had a moment
    /// to name itself), or a configured bus unit answers the ping.
    pub(super) async fn greet(
        &self,
        stream: &mut dyn line::Stream,
        driver: &mut dyn Driver,
    ) -> io::Result<Greeting> {
        let now = self.line_ms(Instant::now());
        // Whatever an earlier connection (or device) left half read.
        driver.reopen();
        let (hello, start, must_name) = match driver.identify_first(now) {
            Some((ask, start)) => (ask, start, true),
            None => (driver.hello(now), Vec::new(), false),
        };
        let mut g = Greeting {
            chunks: vec![Heard {
                at: Instant::now(),
                dir: Direction::ToBoard,
                bytes: hello.clone(),
                events: Vec::new(),
            }],
            answered: false,
            serial: None,
            start,
        };
        if !hello.is_empty() {
            write(stream, &hello).await?;
        }
        let handshake = if self.bus {
            self.serial.handshake.max(bus::IDENTIFY_MIN)
        } else {
            self.serial.handshake
        };
        let deadline = Instant::now() + handshake;
        let mut bytes = [0u8; 1024];
        loop {
            let until = if g.answered && !must_name {
                deadline.min(Instant::now() + LINGER)
            } else {
                deadline
            };
            let read = tokio::time::timeout_at(until, stream.read(&mut bytes)).await;
            let n = match read {
                Ok(Ok(n)) if n > 0 => n,
                // A bus line that stays quiet is the caller's to judge.
                _ if self.bus => return Ok(g),
                Err(_) if g.answered && !must_name => return Ok(g),
                Err(_) if must_name => {
                    return Err(io::Error::new(io::ErrorKind::TimedOut, "no serial number"));
                }
                Err(_) => {
                    return Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        format!("no {} board answered", self.family),
                    ));
                }
                Ok(Ok(_)) => {
                    return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "end of file"));
                }
                Ok(Err(e)) => return Err(e),
            };
            let mut events = Vec::new();
            driver.feed(self.line_ms(Instant::now()), &bytes[..n], &mut events);
            for e in &events {
                let (answered, serial) = self.heard(e);
                g.answered |= answered;
                g.serial = serial.or(g.serial.take());
            }
            g.chunks.push(Heard {
                at: Instant::now(),
                dir: Direction::FromBoard,
                bytes: bytes[..n].to_vec(),
                events,
            });
            if g.serial.is_some() || (self.bus && g.answered) {
                return Ok(g);
            }
        }
    }

    /// What `e` tells of the line: whether a configured unit answers, and
    /// the serial number a board on its own line names.
    fn heard(&self, e: &DriverEvent) -> (bool, Option<String>) {
        let unit = match e {
            DriverEvent::Reading { unit, .. } | DriverEvent::UnitFound { unit } => *unit,
            _ => return (false, None),
        };
        let answered = self.index(unit).is_some();
        let serial = match e {
            DriverEvent::Reading {
                reading: Reading::Identity(id),
                ..
            } if !self.bus => id.serial.as_deref().map(crate::text::board_text),
            _ => None,
        };
        (answered, serial)
    }

    /// Whether the bus line at `path` is the one: a configured unit
    /// answered the ping, or the path is fixed (the operator chose it).
    pub(super) fn accept_bus(&self, path: &Path, g: &Greeting) -> bool {
        if g.answered {
            return true;
        }
        if !self.port.is_fixed() {
            debug!(path = %path.display(), "no configured bus unit answered");
            return false;
        }
        warn!(path = %path.display(), "no bus unit answered the ping; polling them anyway");
        true
    }

    /// Whether the board at `path` is the one. A board with a configured
    /// `serial`, or whose port is a pattern or a list, must report its
    /// own serial number; on one fixed path a different board is accepted
    /// with a warning: the operator chose the path.
    pub(super) fn accept_board(&mut self, path: &Path, g: &Greeting) -> bool {
        let Some(serial) = g.serial.as_deref() else {
            // Nothing to pin: the device claim already keeps two board
            // tasks off one device.
            return true;
        };
        let strict = self.units[0].task.board.serial.is_some() || !self.port.is_fixed();
        if let Some(p) = self.pinned.as_deref()
            && p != serial
        {
            if strict {
                debug!(path = %path.display(), %serial, expected = %p, "another board");
                return false;
            }
            warn!(%serial, previous = %p, "a different board on this port");
        }
        if let Err(crate::port::find::SerialTaken { holder: other }) =
            self.claims.claim_serial(serial, &self.name)
        {
            if strict {
                debug!(path = %path.display(), %serial, %other, "that board is another's");
                return false;
            }
            warn!(%serial, %other, "this serial number is also another board's");
        }
        self.pinned = Some(serial.to_string());
        true
    }
}
