//! Issue 61, part 2: a double-click starts the work. `boardcast` with no
//! arguments and no terminal (standard input not a terminal and
//! `BOARDCAST_NO_TERMINAL=1`, the marker `cli/src/platform.rs` documents;
//! on Windows a console of its own) runs the first run with the user's
//! data folder, says what runs and how to stop it, and opens the browser
//! (`BOARDCAST_BROWSER`, a script here) at the desk once it answers; with
//! a configuration file where `run` looks, it runs that. From a terminal
//! (a pseudo-terminal here), no arguments still print the help.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::desk::{get_with, post_form, session_cookie};
use crate::hardening::request;
use crate::util::{BoardConf, Broker, binary, free_port, write_config_with};

/// The binary running, killed when the test ends however it ends.
struct Running(std::process::Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A browser opener that writes down the URL it was given.
fn opener(dir: &Path) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let script = dir.join("open-browser");
    let opened = dir.join("opened");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" >> '{}'\n",
            opened.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

/// No arguments, no terminal, no configuration file: the first run, its
/// desk answering, the browser opened there, the data folder the user's.
#[test]
fn no_arguments_without_a_terminal_start_the_first_run_and_open_the_desk() {
    let dir = tempfile::tempdir().unwrap();
    let (web, broker) = (free_port(), free_port());
    let script = opener(dir.path());
    let out = dir.path().join("console.txt");
    let log = dir.path().join("log.txt");
    let mut child = Running(
        Command::new(binary())
            .env("BOARDCAST_NO_TERMINAL", "1")
            .env("BOARDCAST_BROWSER", &script)
            .env("BOARDCAST_WEB", format!("127.0.0.1:{web}"))
            .env("BOARDCAST_BROKER", format!("127.0.0.1:{broker}"))
            // No configuration where `run` looks; the data folder under a home
            // of the test's own.
            .env("BOARDCAST_CONFIG", dir.path().join("none.toml"))
            .env("HOME", dir.path().join("home"))
            .env_remove("XDG_DATA_HOME")
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&out).unwrap())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap(),
    );
    let url = format!("http://127.0.0.1:{web}/desk");
    let data = dir.path().join("home/.local/share/boardcast");
    let said = || {
        format!(
            "console:\n{}\nlog:\n{}",
            std::fs::read_to_string(&out).unwrap_or_default(),
            std::fs::read_to_string(&log).unwrap_or_default()
        )
    };
    // The browser is opened at the desk once it answers.
    let opened = dir.path().join("opened");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !opened.exists() {
        assert!(
            child.0.try_wait().unwrap().is_none(),
            "boardcast ended: {}",
            said()
        );
        assert!(Instant::now() < deadline, "no browser opened: {}", said());
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(
        std::fs::read_to_string(&opened).unwrap(),
        format!("{url}\n")
    );
    // The desk there: its first-run password page, then the desk itself.
    let (code, page) = request(
        web,
        "GET /desk HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    );
    assert_eq!(code, 401, "{page}");
    assert!(page.contains("first run"), "{page}");
    let (code, reply) = post_form(
        web,
        "/desk/password",
        "key=double+click&again=double+click",
        "",
    );
    assert_eq!(code, 303, "{reply}");
    let (code, page) = get_with(web, "/desk", &session_cookie(&reply));
    assert_eq!(code, 200, "{page}");
    // What runs and how to stop it, on the console.
    let console = std::fs::read_to_string(&out).unwrap();
    assert!(
        console.contains(&format!("{url} (opening in the browser;")),
        "{console}"
    );
    assert!(
        console.contains(&format!("data folder: {}", data.display())),
        "{console}"
    );
    assert!(
        console.contains("close this window (or press Ctrl-C)"),
        "{console}"
    );
    // The desk's password is kept in the user's data folder.
    assert!(data.join("desk").is_dir(), "{}", said());
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.0.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    let status = child.0.wait().unwrap();
    assert!(status.success(), "{status}: {}", said());
}

/// No arguments, no terminal, a configuration where `run` looks: `run`
/// with it, and the browser opened at its desk (on loopback, the page
/// listening on every interface).
#[test]
fn no_arguments_without_a_terminal_run_the_configuration_when_there_is_one() {
    if !crate::util::require(&[crate::util::Tool::Mosquitto]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let broker = Broker::start();
    let web = free_port();
    let config = write_config_with(
        dir.path(),
        &broker.url(),
        &format!("\n[web]\nlisten = \"0.0.0.0:{web}\"\n"),
        "click",
        &[BoardConf {
            id: "1".into(),
            port: dir
                .path()
                .join("no-such-tty")
                .to_string_lossy()
                .into_owned(),
            serial: None,
        }],
    );
    let script = opener(dir.path());
    let out = dir.path().join("console.txt");
    let log = dir.path().join("log.txt");
    let mut child = Running(
        Command::new(binary())
            .env("BOARDCAST_NO_TERMINAL", "1")
            .env("BOARDCAST_BROWSER", &script)
            .env("BOARDCAST_CONFIG", &config)
            .env("HOME", dir.path().join("home"))
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&out).unwrap())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap(),
    );
    let said = || {
        format!(
            "console:\n{}\nlog:\n{}",
            std::fs::read_to_string(&out).unwrap_or_default(),
            std::fs::read_to_string(&log).unwrap_or_default()
        )
    };
    let url = format!("http://127.0.0.1:{web}/desk");
    let opened = dir.path().join("opened");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !opened.exists() {
        assert!(
            child.0.try_wait().unwrap().is_none(),
            "boardcast ended: {}",
            said()
        );
        assert!(Instant::now() < deadline, "no browser opened: {}", said());
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(
        std::fs::read_to_string(&opened).unwrap(),
        format!("{url}\n")
    );
    let (code, page) = request(
        web,
        "GET /desk HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    );
    assert_eq!(code, 401, "the desk's login: {page}");
    let console = std::fs::read_to_string(&out).unwrap();
    assert!(
        console.contains(&format!("running the configuration {}", config.display())),
        "{console}"
    );
    assert!(
        console.contains(&format!("{url} (opening in the browser)")),
        "{console}"
    );
    assert!(
        console.contains("close this window (or press Ctrl-C)"),
        "{console}"
    );
    assert!(!console.contains("first run"), "{console}");
    // Nothing of the first run in the user's data folder.
    assert!(!dir.path().join("home/.local/share/boardcast").exists());
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.0.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    let status = child.0.wait().unwrap();
    assert!(status.success(), "{status}: {}", said());
}

/// From a terminal no arguments print the help, as before, even with the
/// marker set; and without the marker, standard input that is no terminal
/// does not start anything either (a script's `boardcast </dev/null`).
#[test]
fn no_arguments_from_a_terminal_print_the_help() {
    let dir = tempfile::tempdir().unwrap();
    let script = opener(dir.path());
    let pty = nix::pty::openpty(None, None).unwrap();
    let run = |stdin: Stdio, marker: bool| {
        let mut cmd = Command::new(binary());
        if marker {
            cmd.env("BOARDCAST_NO_TERMINAL", "1");
        } else {
            cmd.env_remove("BOARDCAST_NO_TERMINAL");
        }
        let said = dir.path().join("said.txt");
        let mut child = Running(
            cmd.env("BOARDCAST_BROWSER", &script)
                .env("BOARDCAST_CONFIG", dir.path().join("none.toml"))
                .env("BOARDCAST_WEB", format!("127.0.0.1:{}", free_port()))
                .env("BOARDCAST_BROKER", format!("127.0.0.1:{}", free_port()))
                .env("HOME", dir.path())
                .stdin(stdin)
                .stdout(Stdio::null())
                .stderr(std::fs::File::create(&said).unwrap())
                .spawn()
                .unwrap(),
        );
        // The help is printed at once; a program still running after 10 s
        // started the work instead.
        let deadline = Instant::now() + Duration::from_secs(10);
        let status = loop {
            if let Some(status) = child.0.try_wait().unwrap() {
                break Some(status);
            }
            if Instant::now() > deadline {
                break None;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        (
            status.and_then(|s| s.code()),
            std::fs::read_to_string(&said).unwrap(),
        )
    };
    let terminal = Stdio::from(std::fs::File::from(pty.slave.try_clone().unwrap()));
    for (what, stdin, marker) in [
        ("a terminal, the marker set", terminal, true),
        ("no terminal, no marker", Stdio::null(), false),
    ] {
        // clap's help on standard error, status 2, as before.
        let (code, text) = run(stdin, marker);
        assert_eq!(code, Some(2), "{what}: {text}");
        assert!(text.contains("Usage: boardcast"), "{what}: {text}");
        assert!(text.contains("demo"), "{what}: {text}");
        assert!(!text.contains("first run"), "{what}: {text}");
    }
    assert!(!dir.path().join("opened").exists(), "a browser was opened");
}
