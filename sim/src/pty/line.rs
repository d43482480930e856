//! The board's end of a simulated serial line: a pseudo-terminal's master
//! (Unix) or an in-process line, opened, written and read.

#[cfg(unix)]
use std::fs;
#[cfg(unix)]
use std::io;
#[cfg(unix)]
use std::os::fd::OwnedFd;
use std::path::Path;
use std::sync::Arc;
#[cfg(unix)]
use std::time::Duration;

use boardcast::port::memory;
#[cfg(unix)]
use tokio::io::unix::AsyncFd;

use super::PtyError;

/// The board's end of one simulated line.
pub struct Line {
    inner: Inner,
}

enum Inner {
    /// A pseudo-terminal's master, and a slave descriptor kept open so the
    /// master never sees a hang-up between the daemon's connections.
    #[cfg(unix)]
    Pty {
        master: AsyncFd<OwnedFd>,
        _slave: OwnedFd,
    },
    /// An in-process line.
    Memory(memory::BoardEnd),
}

impl std::fmt::Debug for Line {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self.inner {
            #[cfg(unix)]
            Inner::Pty { .. } => "Line(pty)",
            Inner::Memory(_) => "Line(in-process)",
        })
    }
}

impl Line {
    /// Unplugs an in-process line at once (its name goes, the host's reads
    /// end); a pty closes when its last holder drops it.
    pub fn close(&self) {
        match &self.inner {
            #[cfg(unix)]
            Inner::Pty { .. } => {}
            Inner::Memory(end) => end.close(),
        }
    }
}

/// Plugs in a line at `path`: an in-process line when the path names one
/// (`mem:...`), else (Unix) a pseudo-terminal in raw mode with `path`
/// linked to its slave side.
pub(crate) fn open_line(path: &Path) -> Result<Arc<Line>, PtyError> {
    if memory::is_memory(&path.to_string_lossy()) {
        return Ok(Arc::new(Line {
            inner: Inner::Memory(memory::plug(&path.to_string_lossy())),
        }));
    }
    open_pty(path)
}

#[cfg(not(unix))]
fn open_pty(path: &Path) -> Result<Arc<Line>, PtyError> {
    Err(PtyError::NoPty(path.to_owned()))
}

/// Opens a pseudo-terminal in raw mode and links `symlink` to its slave
/// side; the master is registered with the runtime.
#[cfg(unix)]
fn open_pty(symlink: &Path) -> Result<Arc<Line>, PtyError> {
    let pty = nix::pty::openpty(None, None)?;
    // Not inherited by child processes (a daemon spawned later): a copy
    // of the master there would keep the line up after an unplug.
    for fd in [&pty.master, &pty.slave] {
        nix::fcntl::fcntl(
            fd,
            nix::fcntl::FcntlArg::F_SETFD(nix::fcntl::FdFlag::FD_CLOEXEC),
        )?;
    }
    // Raw line discipline before anyone talks: no echo, no line editing.
    let mut t = nix::sys::termios::tcgetattr(&pty.slave)?;
    nix::sys::termios::cfmakeraw(&mut t);
    nix::sys::termios::tcsetattr(&pty.slave, nix::sys::termios::SetArg::TCSANOW, &t)?;
    let flags = nix::fcntl::fcntl(&pty.master, nix::fcntl::FcntlArg::F_GETFL)?;
    let flags = nix::fcntl::OFlag::from_bits_truncate(flags) | nix::fcntl::OFlag::O_NONBLOCK;
    nix::fcntl::fcntl(&pty.master, nix::fcntl::FcntlArg::F_SETFL(flags))?;
    let tty = nix::unistd::ttyname(&pty.slave)?;
    let _ = fs::remove_file(symlink);
    std::os::unix::fs::symlink(&tty, symlink).map_err(|source| PtyError::Io {
        path: symlink.to_owned(),
        source,
    })?;
    // SAFETY: the OwnedFd is a valid descriptor owned by the AsyncFd,
    // never replaced or closed while registered.
    let master = unsafe { AsyncFd::register(pty.master) }.map_err(|e| PtyError::Io {
        path: tty.clone(),
        source: io::Error::other(e.to_string()),
    })?;
    Ok(Arc::new(Line {
        inner: Inner::Pty {
            master,
            _slave: pty.slave,
        },
    }))
}

/// Writes `bytes` to the host now (a full pty buffer is waited out for a
/// second at most; a line nobody reads drops them).
pub(crate) fn write_all(line: &Line, bytes: &[u8]) {
    match &line.inner {
        #[cfg(unix)]
        Inner::Pty { master, .. } => write_pty(master, bytes),
        Inner::Memory(end) => end.write(bytes),
    }
}

#[cfg(unix)]
fn write_pty(fd: &AsyncFd<OwnedFd>, mut bytes: &[u8]) {
    let mut spins = 0;
    while !bytes.is_empty() {
        match nix::unistd::write(fd.get_ref(), bytes) {
            Ok(n) => bytes = &bytes[n..],
            Err(nix::errno::Errno::EAGAIN) if spins < 2000 => {
                spins += 1;
                std::thread::sleep(Duration::from_micros(500));
            }
            Err(_) => return,
        }
    }
}

/// Reads what the host writes on one plug until it goes away, handing
/// each chunk to `answer`.
pub(crate) async fn read_host(line: &Line, answer: impl FnMut(&[u8])) {
    match &line.inner {
        #[cfg(unix)]
        Inner::Pty { master, .. } => read_pty(master, answer).await,
        Inner::Memory(end) => {
            let mut answer = answer;
            let mut bytes = [0u8; 512];
            loop {
                match end.read(&mut bytes).await {
                    0 => return,
                    n => answer(&bytes[..n]),
                }
            }
        }
    }
}

#[cfg(unix)]
async fn read_pty(master: &AsyncFd<OwnedFd>, mut answer: impl FnMut(&[u8])) {
    let mut bytes = [0u8; 512];
    loop {
        let Ok(mut guard) = master.readable().await else {
            return;
        };
        match guard
            .try_io(|fd| nix::unistd::read(fd.get_ref(), &mut bytes).map_err(io::Error::from))
        {
            Ok(Ok(0)) => return,
            Ok(Ok(n)) => answer(&bytes[..n]),
            Ok(Err(e)) if e.raw_os_error() == Some(nix::libc::EIO) => {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            Ok(Err(_)) => return,
            Err(_would_block) => {}
        }
    }
}
