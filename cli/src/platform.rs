//! What differs between the OSes the binary runs on (Linux, the Raspberry
//! Pi's 64-bit Linux, Windows, macOS), in one place: how the process is
//! told to stop, its open-file limit, where its configuration lives by
//! default, how a serial port is described, whether it was started without
//! a terminal (a double-click) and how it opens the browser. Everything
//! else is the same code on every OS (docs/platforms.md).

use std::path::PathBuf;

use anyhow::{Context, Result};
use tokio_serial::SerialPortType;

/// `boardcast --version`: the package version and the commit it was built
/// from (`unknown` outside git; see `build.rs`).
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("BOARDCAST_COMMIT"),
    ")"
);

/// Resolves when the process is asked to stop: SIGINT or SIGTERM on Unix
/// (Ctrl-C, `systemctl stop`); Ctrl-C, Ctrl-Break or the console closing
/// on Windows.
pub fn stop_signal() -> Result<impl std::future::Future<Output = ()>> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut term = signal(SignalKind::terminate()).context("listening for SIGTERM")?;
        let mut int = signal(SignalKind::interrupt()).context("listening for SIGINT")?;
        Ok(async move {
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
        })
    }
    #[cfg(windows)]
    {
        use tokio::signal::windows::{ctrl_break, ctrl_c, ctrl_close};
        let mut c = ctrl_c().context("listening for Ctrl-C")?;
        let mut brk = ctrl_break().context("listening for Ctrl-Break")?;
        let mut close = ctrl_close().context("listening for the console closing")?;
        Ok(async move {
            tokio::select! {
                _ = c.recv() => {}
                _ = brk.recv() => {}
                _ = close.recv() => {}
            }
        })
    }
    #[cfg(not(any(unix, windows)))]
    {
        Ok(async {
            let _ = tokio::signal::ctrl_c().await;
        })
    }
}

/// Raises the open-file soft limit to the hard limit (Unix): every board,
/// capture, PGN file, web client and broker connection holds a descriptor,
/// and the usual soft limit (1024) is far below what a hall needs. Windows
/// has no such per-process limit on handles.
pub fn raise_open_files() {
    #[cfg(unix)]
    {
        use nix::sys::resource::{Resource, getrlimit, setrlimit};
        match getrlimit(Resource::RLIMIT_NOFILE) {
            Ok((soft, hard)) if soft < hard => {
                match setrlimit(Resource::RLIMIT_NOFILE, hard, hard) {
                    Ok(()) => tracing::info!(from = soft, to = hard, "open-file limit raised"),
                    Err(e) => tracing::warn!(soft, hard, error = %e, "open-file limit not raised"),
                }
            }
            Ok((soft, _)) => tracing::debug!(limit = soft, "open-file limit"),
            Err(e) => tracing::warn!(error = %e, "open-file limit unknown"),
        }
    }
}

/// The user's data folder for boardcast on a first run without a
/// configuration file: `%LOCALAPPDATA%\boardcast` (Windows),
/// `$XDG_DATA_HOME/boardcast` or `~/.local/share/boardcast` (elsewhere),
/// else `boardcast-data` here.
pub fn data_dir() -> PathBuf {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    #[cfg(windows)]
    let base = var("LOCALAPPDATA");
    #[cfg(not(windows))]
    let base = var("XDG_DATA_HOME").or_else(|| var("HOME").map(|h| h.join(".local/share")));
    base.map_or_else(|| PathBuf::from("boardcast-data"), |b| b.join("boardcast"))
}

/// Where `boardcast run` and `check-config` look for the configuration
/// when none is given: `$BOARDCAST_CONFIG` when set, else
/// `/etc/boardcast/boardcast.toml` on Linux (where the
/// Debian package puts it), `%ProgramData%\boardcast\boardcast.toml` on
/// Windows, `/Library/Application Support/boardcast/boardcast.toml` on
/// macOS.
pub fn default_config() -> PathBuf {
    if let Some(path) = std::env::var_os("BOARDCAST_CONFIG").filter(|p| !p.is_empty()) {
        return PathBuf::from(path);
    }
    #[cfg(windows)]
    {
        let data = std::env::var_os("ProgramData")
            .filter(|d| !d.is_empty())
            .map_or_else(|| PathBuf::from(r"C:\ProgramData"), PathBuf::from);
        data.join("boardcast").join("boardcast.toml")
    }
    #[cfg(target_os = "macos")]
    {
        PathBuf::from("/Library/Application Support/boardcast/boardcast.toml")
    }
    #[cfg(not(any(windows, target_os = "macos")))]
    {
        PathBuf::from("/etc/boardcast/boardcast.toml")
    }
}

/// The marker of a start without a terminal on any OS:
/// `BOARDCAST_NO_TERMINAL=1` with standard input not a terminal (see
/// [`started_without_terminal`]). Tests set it; so can a desktop launcher
/// on Linux (`Exec=env BOARDCAST_NO_TERMINAL=1 boardcast`).
pub const NO_TERMINAL_VAR: &str = "BOARDCAST_NO_TERMINAL";

/// The program that opens the browser at the desk, when set
/// (`BOARDCAST_BROWSER=/path/to/program`: it is run with the desk's URL as
/// its one argument); see [`open_browser`].
pub const BROWSER_VAR: &str = "BOARDCAST_BROWSER";

/// Whether `boardcast` was started with no terminal to type in: a
/// double-click in Explorer, the Start menu's "boardcast desk". Then
/// `boardcast` with no arguments starts the work instead of printing its
/// help. It is so when
///
/// - standard input is not a terminal and `BOARDCAST_NO_TERMINAL=1`
///   ([`NO_TERMINAL_VAR`]), on any OS; or
/// - on Windows, the console is this process's alone: Windows made it when
///   the program started, as it does for a double-click or a shortcut
///   (`GetConsoleProcessList` counts one process), where in cmd,
///   PowerShell or Windows Terminal the shell shares its console (two or
///   more). Standard input says nothing there: it is the new console.
///
/// Anything else is a terminal (the help, as before).
pub fn started_without_terminal() -> bool {
    use std::io::IsTerminal;
    no_terminal(
        std::io::stdin().is_terminal(),
        std::env::var_os(NO_TERMINAL_VAR).is_some_and(|v| v == "1"),
        console_of_its_own(),
    )
}

/// The decision of [`started_without_terminal`], apart from the machine.
fn no_terminal(stdin_is_terminal: bool, marker: bool, console_of_its_own: bool) -> bool {
    console_of_its_own || (marker && !stdin_is_terminal)
}

/// Windows: whether this process is the only one attached to its console
/// (the console was made for it). False elsewhere.
fn console_of_its_own() -> bool {
    #[cfg(windows)]
    {
        #[link(name = "kernel32")]
        unsafe extern "system" {
            fn GetConsoleProcessList(list: *mut u32, count: u32) -> u32;
        }
        let mut ids = [0u32; 4];
        // SAFETY: the buffer holds `ids.len()` process ids, the count
        // passed; the call writes at most that many and returns how many
        // processes share the console (0 when there is none).
        let n = unsafe { GetConsoleProcessList(ids.as_mut_ptr(), ids.len() as u32) };
        n == 1
    }
    #[cfg(not(windows))]
    {
        false
    }
}

/// Opens the default browser at `url` without waiting for it: the program
/// named by `BOARDCAST_BROWSER` ([`BROWSER_VAR`]) when set, else
/// `explorer URL` (Windows: the default browser), `open URL` (macOS),
/// `xdg-open URL` (elsewhere). Returns the program run.
pub fn open_browser(url: &str) -> std::io::Result<String> {
    let program = std::env::var_os(BROWSER_VAR)
        .filter(|p| !p.is_empty())
        .map_or_else(
            || {
                if cfg!(windows) {
                    "explorer".into()
                } else if cfg!(target_os = "macos") {
                    "open".into()
                } else {
                    "xdg-open".into()
                }
            },
            |p| p.to_string_lossy().into_owned(),
        );
    let mut child = std::process::Command::new(&program)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .spawn()?;
    // Reaped when it ends (a browser opener returns at once, mostly).
    std::thread::spawn(move || child.wait());
    Ok(program)
}

/// One line of `boardcast ports`: the port, what it is (a known board by
/// its USB id: `DGT board, serial 04215`), its USB ids, maker and product,
/// and for a known board the `[[board]]` keys that read it.
pub fn describe_port(name: &str, kind: &SerialPortType) -> String {
    let u = match kind {
        SerialPortType::UsbPort(u) => u,
        SerialPortType::BluetoothPort => return format!("{name}\tbluetooth"),
        SerialPortType::PciPort => return format!("{name}\tpci"),
        SerialPortType::Unknown => return format!("{name}\tunknown"),
    };
    let mut usb = format!("usb {:04x}:{:04x}", u.vid, u.pid);
    for s in [&u.manufacturer, &u.product].into_iter().flatten() {
        usb.push_str(", ");
        usb.push_str(s);
    }
    let serial = u.serial_number.as_deref().filter(|s| !s.is_empty());
    match boardcast::port::usb::identify(u.vid, u.pid) {
        Some(k) => format!(
            "{name}\t{}{}, {name} ({usb})\tport = \"{name}\" protocol = \"{}\"",
            k.name,
            serial.map(|s| format!(", serial {s}")).unwrap_or_default(),
            k.family.name(),
        ),
        None => format!(
            "{name}\t{usb}{}",
            serial.map(|s| format!(", serial {s}")).unwrap_or_default()
        ),
    }
}

#[cfg(test)]
mod tests {
    use tokio_serial::UsbPortInfo;

    use super::*;

    fn usb(vid: u16, pid: u16, serial: Option<&str>) -> SerialPortType {
        SerialPortType::UsbPort(UsbPortInfo {
            vid,
            pid,
            serial_number: serial.map(Into::into),
            manufacturer: Some("Maker".into()),
            product: Some("Thing".into()),
        })
    }

    #[test]
    fn a_dgt_board_is_named_with_its_serial_number_and_port() {
        assert_eq!(
            describe_port("COM5", &usb(0x045b, 0x8111, Some("04215"))),
            "COM5\tDGT board, serial 04215, COM5 (usb 045b:8111, Maker, Thing)\tport = \"COM5\" protocol = \"dgt\""
        );
    }

    #[test]
    fn other_ports_show_their_usb_ids_and_makers() {
        assert_eq!(
            describe_port("/dev/ttyUSB0", &usb(0x0403, 0x6001, None)),
            "/dev/ttyUSB0\tusb 0403:6001, Maker, Thing"
        );
        assert_eq!(
            describe_port("/dev/ttyS0", &SerialPortType::Unknown),
            "/dev/ttyS0\tunknown"
        );
    }

    #[test]
    fn no_arguments_start_the_work_only_without_a_terminal() {
        // A console of its own (Windows: a double-click) whatever stdin is.
        assert!(no_terminal(true, false, true));
        // The marker counts only with stdin not a terminal.
        assert!(no_terminal(false, true, false));
        assert!(!no_terminal(true, true, false));
        // Without the marker, stdin alone is no sign (a script's `boardcast
        // </dev/null` prints the help as before).
        assert!(!no_terminal(false, false, false));
        assert!(!no_terminal(true, false, false));
    }

    #[test]
    fn the_version_names_the_commit() {
        assert!(VERSION.starts_with(env!("CARGO_PKG_VERSION")), "{VERSION}");
        assert!(VERSION.contains("(commit "), "{VERSION}");
    }
}
