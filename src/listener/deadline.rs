//! A write deadline on a connection: a peer that stops reading (its
//! receive window and our send buffer full) fails the write after a set
//! time, so the connection, its task and its stream slot are given back.
//!
//! Design: the deadline is on the socket itself, under hyper and the
//! WebSocket upgrade, so it covers every response of every listener the
//! same way: a server-sent event stream (`/events`), a LiveChess
//! WebSocket, a page. Only a write that cannot progress at all counts: a
//! slow reader that takes a byte now and then is not dropped by it (the
//! broadcast channels drop those that fall too far behind).

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Sleep;

/// `S` whose writes fail with `TimedOut` after `limit` without progress.
#[derive(Debug)]
pub struct WriteDeadline<S> {
    inner: S,
    limit: Duration,
    /// Started when a write (or flush) first could not progress; cleared
    /// when one does.
    stalled: Option<Pin<Box<Sleep>>>,
}

impl<S> WriteDeadline<S> {
    /// Wraps `inner`; `limit` is how long a write may wait for the peer.
    pub fn new(inner: S, limit: Duration) -> WriteDeadline<S> {
        WriteDeadline {
            inner,
            limit,
            stalled: None,
        }
    }

    /// Runs one write-side poll under the deadline.
    fn guard<T>(
        &mut self,
        cx: &mut Context<'_>,
        poll: impl FnOnce(Pin<&mut S>, &mut Context<'_>) -> Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>>
    where
        S: Unpin,
    {
        match poll(Pin::new(&mut self.inner), cx) {
            Poll::Ready(r) => {
                self.stalled = None;
                Poll::Ready(r)
            }
            Poll::Pending => {
                let limit = self.limit;
                let timer = self
                    .stalled
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
                match timer.as_mut().poll(cx) {
                    Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "the peer read nothing within the write deadline",
                    ))),
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for WriteDeadline<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for WriteDeadline<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.guard(cx, |s, cx| s.poll_write(cx, buf))
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.guard(cx, |s, cx| s.poll_write_vectored(cx, bufs))
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.guard(cx, |s, cx| s.poll_flush(cx))
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.guard(cx, |s, cx| s.poll_shutdown(cx))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncWriteExt;

    #[tokio::test]
    async fn a_peer_that_never_reads_fails_the_write_after_the_deadline() {
        // A pipe of 64 bytes whose far end is never read.
        let (near, _far) = tokio::io::duplex(64);
        let mut w = WriteDeadline::new(near, Duration::from_millis(200));
        let started = std::time::Instant::now();
        let chunk = [0u8; 32];
        let err = loop {
            if let Err(e) = w.write_all(&chunk).await {
                break e;
            }
            assert!(started.elapsed() < Duration::from_secs(5), "never failed");
        };
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        assert!(started.elapsed() >= Duration::from_millis(200));
    }

    #[tokio::test]
    async fn a_peer_that_reads_is_never_dropped() {
        let (near, mut far) = tokio::io::duplex(64);
        let reader = tokio::spawn(async move {
            let mut sink = Vec::new();
            tokio::io::AsyncReadExt::read_to_end(&mut far, &mut sink)
                .await
                .unwrap();
            sink.len()
        });
        let mut w = WriteDeadline::new(near, Duration::from_millis(100));
        for _ in 0..200 {
            w.write_all(&[1u8; 32]).await.unwrap();
        }
        w.shutdown().await.unwrap();
        drop(w);
        assert_eq!(reader.await.unwrap(), 6400);
    }
}
