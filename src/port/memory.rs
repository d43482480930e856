//! In-process serial lines: a named pair of byte pipes that a line task
//! opens by its name, as it opens a serial device, on every OS.
//!
//! A board simulated in the same process (`boardcast demo`, the tests)
//! plugs itself in with [`plug`] under a name starting with [`PREFIX`]
//! (`mem:demo/board1-1`); a `[[board]]` whose `port` names it (or a glob
//! pattern matching it, `mem:demo/board1-*`) is then found, opened, greeted
//! and read by the same [`super::PortTask`], driver and pipeline as a USB
//! board. Nothing else differs: no pseudo-terminal, no device file, so the
//! simulated boards run on Windows as on Linux.
//!
//! The board's end writes without waiting (as into a serial driver's
//! buffer) and reads what the host wrote; the host's end is an
//! [`AsyncRead`] + [`AsyncWrite`] stream. Unplugging the board (dropping
//! or closing its [`BoardEnd`]) removes the name and ends the host's
//! stream (end of file, then write errors), as pulling a USB cable does.
//! Opening a line drops whatever the board wrote while nobody read, as
//! the serial opener clears a device's input buffer.

use std::collections::{BTreeMap, VecDeque};
use std::io;
use std::pin::Pin;
use std::sync::{Arc, LazyLock, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The prefix of every in-process line's name (`mem:`).
pub use crate::setup::config::MEMORY_PREFIX as PREFIX;

/// Whether `name` names an in-process line (it starts with [`PREFIX`]).
pub fn is_memory(name: &str) -> bool {
    name.starts_with(PREFIX)
}

/// The registry key of a name: one separator whatever the OS built the
/// name with (`Path::join` writes `\` on Windows).
fn key(name: &str) -> String {
    name.replace('\\', "/")
}

/// One direction of a line.
#[derive(Debug, Default)]
struct Pipe {
    state: Mutex<PipeState>,
}

#[derive(Debug, Default)]
struct PipeState {
    bytes: VecDeque<u8>,
    closed: bool,
    /// The reader waiting for bytes (one reader per direction).
    waker: Option<Waker>,
}

impl Pipe {
    fn lock(&self) -> MutexGuard<'_, PipeState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Appends `bytes`; false once the pipe is closed.
    fn push(&self, bytes: &[u8]) -> bool {
        let mut s = self.lock();
        if s.closed {
            return false;
        }
        s.bytes.extend(bytes);
        if let Some(w) = s.waker.take() {
            w.wake();
        }
        true
    }

    fn close(&self) {
        let mut s = self.lock();
        s.closed = true;
        if let Some(w) = s.waker.take() {
            w.wake();
        }
    }

    fn clear(&self) {
        self.lock().bytes.clear();
    }

    /// Bytes when there are some, end of file once closed and drained.
    fn poll_read(&self, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let mut s = self.lock();
        if s.bytes.is_empty() {
            if s.closed {
                return Poll::Ready(Ok(()));
            }
            s.waker = Some(cx.waker().clone());
            return Poll::Pending;
        }
        let n = buf.remaining().min(s.bytes.len());
        let (a, b) = s.bytes.as_slices();
        let from_a = n.min(a.len());
        buf.put_slice(&a[..from_a]);
        buf.put_slice(&b[..n - from_a]);
        s.bytes.drain(..n);
        Poll::Ready(Ok(()))
    }
}

/// Both directions of one plugged line.
#[derive(Debug, Default)]
struct Wire {
    to_host: Pipe,
    to_board: Pipe,
}

static LINES: LazyLock<Mutex<BTreeMap<String, Arc<Wire>>>> = LazyLock::new(Default::default);

fn lines() -> MutexGuard<'static, BTreeMap<String, Arc<Wire>>> {
    LINES.lock().unwrap_or_else(|e| e.into_inner())
}

/// Plugs a board in as `name` (which should start with [`PREFIX`]); a
/// board plugged in under that name before is unplugged.
pub fn plug(name: &str) -> BoardEnd {
    let wire = Arc::new(Wire::default());
    if let Some(old) = lines().insert(key(name), Arc::clone(&wire)) {
        old.to_host.close();
        old.to_board.close();
    }
    BoardEnd {
        name: key(name),
        wire,
    }
}

/// The names plugged in now, sorted.
pub fn names() -> Vec<String> {
    lines().keys().cloned().collect()
}

/// The plugged names matching glob `pattern`, sorted.
pub fn matching(pattern: &str) -> Vec<String> {
    let Ok(p) = glob::Pattern::new(&key(pattern)) else {
        return Vec::new();
    };
    names().into_iter().filter(|n| p.matches(n)).collect()
}

/// Opens the line plugged in as `name` (the host's end), dropping what
/// the board wrote while nobody read.
pub fn open(name: &str) -> io::Result<MemoryLine> {
    let wire = lines().get(&key(name)).cloned().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::NotFound,
            format!("no in-process line {name}"),
        )
    })?;
    wire.to_host.clear();
    Ok(MemoryLine { wire })
}

/// The host's end of an in-process line: what a serial port would be.
#[derive(Debug)]
pub struct MemoryLine {
    wire: Arc<Wire>,
}

impl AsyncRead for MemoryLine {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.wire.to_host.poll_read(cx, buf)
    }
}

impl AsyncWrite for MemoryLine {
    fn poll_write(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if self.wire.to_board.push(buf) {
            Poll::Ready(Ok(buf.len()))
        } else {
            Poll::Ready(Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "the board was unplugged",
            )))
        }
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// The board's end of an in-process line; unplugs the line when dropped.
#[derive(Debug)]
pub struct BoardEnd {
    name: String,
    wire: Arc<Wire>,
}

impl BoardEnd {
    /// The line's name (with `/` separators).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Writes `bytes` to the host without waiting (dropped once unplugged).
    pub fn write(&self, bytes: &[u8]) {
        self.wire.to_host.push(bytes);
    }

    /// Reads what the host wrote into `buf`: at least one byte, or 0 once
    /// the line is unplugged. A host that closes its end and opens it
    /// again meets the same board.
    pub async fn read(&self, buf: &mut [u8]) -> usize {
        std::future::poll_fn(|cx| {
            let mut rb = ReadBuf::new(buf);
            match self.wire.to_board.poll_read(cx, &mut rb) {
                Poll::Ready(_) => Poll::Ready(rb.filled().len()),
                Poll::Pending => Poll::Pending,
            }
        })
        .await
    }

    /// Unplugs the line: its name disappears, the host's reads end and its
    /// writes fail.
    pub fn close(&self) {
        let mut lines = lines();
        if lines
            .get(&self.name)
            .is_some_and(|w| Arc::ptr_eq(w, &self.wire))
        {
            lines.remove(&self.name);
        }
        drop(lines);
        self.wire.to_host.close();
        self.wire.to_board.close();
    }
}

impl Drop for BoardEnd {
    fn drop(&mut self) {
        self.close();
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    #[tokio::test]
    async fn bytes_cross_both_ways_and_an_unplug_ends_the_host_stream() {
        let board = plug("mem:test-memory/board-1");
        assert_eq!(
            matching("mem:test-memory/board-*"),
            ["mem:test-memory/board-1"]
        );
        board.write(b"stale");
        let mut host = open("mem:test-memory\\board-1").unwrap();
        host.write_all(b"?\n").await.unwrap();
        let mut got = [0u8; 8];
        let n = board.read(&mut got).await;
        assert_eq!(&got[..n], b"?\n");
        board.write(b"hello");
        let mut hello = [0u8; 5];
        host.read_exact(&mut hello).await.unwrap();
        assert_eq!(
            &hello, b"hello",
            "what was written before opening is dropped"
        );
        drop(board);
        assert!(matching("mem:test-memory/*").is_empty());
        assert_eq!(host.read(&mut got).await.unwrap(), 0);
        assert!(host.write_all(b"x").await.is_err());
        assert!(open("mem:test-memory/board-1").is_err());
    }
}
