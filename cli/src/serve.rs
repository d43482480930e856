//! The long-running subcommands: `run` (with a configuration, or the
//! first run without one), `hub`, `demo`, and `boardcast` started without
//! a terminal (a double-click); the runtime they run on until stopped, and
//! the logging they set up.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};

use boardcast::config::{self, Config as DaemonConfig};
use boardcast::daemon;

use crate::args::DemoArgs;
use crate::{pipe, platform};

/// Where the desk is served when `boardcast` starts without a terminal and
/// without a configuration file: `BOARDCAST_WEB`, else 127.0.0.1:8080 (as
/// `run`'s `--web`).
const WEB_VAR: &str = "BOARDCAST_WEB";
/// The embedded broker's address then: `BOARDCAST_BROKER`, else
/// 127.0.0.1:18830 (as `run`'s `--broker`).
const BROKER_VAR: &str = "BOARDCAST_BROKER";

/// `boardcast` with no arguments and no terminal (a double-click in
/// Explorer, the Start menu's "boardcast desk"; see
/// [`platform::started_without_terminal`]): `run` with the configuration
/// when there is one where `run` looks, else the first run with the
/// user's data folder, and the browser opened at the desk once it
/// answers. An error is shown until Enter is pressed: the window closes
/// with the program.
pub(crate) fn double_click() -> ExitCode {
    let address = |var: &str, default: &str| -> Result<std::net::SocketAddr> {
        let text = std::env::var(var).unwrap_or_else(|_| default.to_string());
        text.parse()
            .with_context(|| format!("{var}={text}: not an address such as {default}"))
    };
    let result = (|| -> Result<()> {
        let config = platform::default_config();
        if config.exists() {
            run_daemon_with(&config, Start::DoubleClick)
        } else {
            first_run(
                address(WEB_VAR, "127.0.0.1:8080")?,
                address(BROKER_VAR, "127.0.0.1:18830")?,
                platform::data_dir(),
                Start::DoubleClick,
            )
        }
    })();
    let failed = result.is_err();
    let code = pipe::exit_code(result);
    if failed {
        eprintln!("Press Enter to close this window.");
        let _ = std::io::stdin().read_line(&mut String::new());
    }
    code
}

/// How the daemon was started: from a terminal, or without one (it then
/// says how to stop it and opens the browser at the desk).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Start {
    /// A command typed in a terminal.
    Terminal,
    /// A double-click or the Start menu.
    DoubleClick,
}

/// Where this machine reaches a web address: an unspecified address
/// (listening on every interface) on loopback.
fn reachable(web: std::net::SocketAddr) -> std::net::SocketAddr {
    use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
    let ip = match web.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    SocketAddr::new(ip, web.port())
}

/// The desk's URL on this machine for a web address.
fn desk_url(web: std::net::SocketAddr) -> String {
    format!("http://{}/desk", reachable(web))
}

/// Opens the browser at the desk once `web` takes connections (the desk is
/// served from the daemon's start); gives up after a minute.
async fn open_desk_when_listening(web: std::net::SocketAddr) {
    let url = desk_url(web);
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(60);
    while tokio::net::TcpStream::connect(reachable(web))
        .await
        .is_err()
    {
        if tokio::time::Instant::now() > deadline {
            tracing::warn!(%url, "the desk did not answer within a minute; the browser was not opened");
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    match platform::open_browser(&url) {
        Ok(program) => tracing::info!(%url, %program, "browser opened at the desk"),
        Err(e) => {
            tracing::warn!(%url, error = %e, "the browser did not open: open the desk's address yourself")
        }
    }
}

/// `run` with a configuration file, from a terminal.
pub(crate) fn run_daemon(path: &Path) -> Result<()> {
    run_daemon_with(path, Start::Terminal)
}

/// `run` with a configuration file; started without a terminal, it says
/// what runs and how to stop it, and opens the browser at the desk.
fn run_daemon_with(path: &Path, start: Start) -> Result<()> {
    let config = DaemonConfig::load(path)?;
    init_logging(&config.log)?;
    platform::raise_open_files();
    let web = config.web;
    if start == Start::DoubleClick {
        println!(
            "boardcast {}: running the configuration {}\n  the operator's desk: {}\n  To stop boardcast, close this window (or press Ctrl-C).",
            platform::VERSION,
            path.display(),
            web.map_or_else(
                || "none (the configuration serves no [web] page)".to_string(),
                |w| format!("{} (opening in the browser)", desk_url(w))
            ),
        );
    }
    until_stopped(|shutdown| async move {
        if let (Start::DoubleClick, Some(web)) = (start, web) {
            tokio::spawn(open_desk_when_listening(web));
        }
        Ok(daemon::run(config, shutdown).await?)
    })
}

/// `boardcast hub`: the cluster's hub with its configuration file.
pub(crate) fn run_hub(path: &Path) -> Result<()> {
    let config = boardcast::hub::config::HubConfig::load(path)?;
    init_logging(&config.log)?;
    platform::raise_open_files();
    until_stopped(|shutdown| async move { Ok(boardcast::hub::run(config, shutdown, None).await?) })
}

/// Runs `job` on a multi-threaded runtime with a future that resolves on
/// SIGINT or SIGTERM.
fn until_stopped<F, Fut>(job: F) -> Result<()>
where
    F: FnOnce(std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>) -> Fut,
    Fut: std::future::Future<Output = Result<()>>,
{
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(async {
        let shutdown = Box::pin(platform::stop_signal()?);
        job(shutdown).await
    })
}

/// `boardcast run` with no configuration file: the demo's simulated boards
/// with the operator's desk, everything the desk sets up kept in `data`,
/// so the operator sets up the event from the browser. Started without a
/// terminal, it opens the browser at the desk.
pub(crate) fn first_run(
    web: std::net::SocketAddr,
    broker: std::net::SocketAddr,
    data: PathBuf,
    start: Start,
) -> Result<()> {
    use crate::demo::{self, DemoOptions};
    std::fs::create_dir_all(&data)
        .with_context(|| format!("creating the data folder {}", data.display()))?;
    let opts = DemoOptions {
        web,
        broker,
        livechess: None,
        ..DemoOptions::default()
    };
    let folder = PathBuf::from(format!("{}first-run", boardcast::port::memory::PREFIX));
    let mut config = demo::config(&opts, &folder)?;
    config.recorder = Some(data.clone());
    init_logging(&config.log)?;
    let (opening, stop) = match start {
        Start::Terminal => ("", "Ctrl-C stops."),
        Start::DoubleClick => (
            "opening in the browser; ",
            "To stop boardcast, close this window (or press Ctrl-C).",
        ),
    };
    println!(
        "boardcast {}: no configuration file ({}): first run with {} simulated boards\n  the operator's desk: {} ({opening}choose its password there, on this machine)\n  live page: http://{web}/\n  data folder: {}\n  {stop}",
        platform::VERSION,
        platform::default_config().display(),
        opts.boards,
        desk_url(web),
        data.display()
    );
    until_stopped(|shutdown| async move {
        if start == Start::DoubleClick {
            tokio::spawn(open_desk_when_listening(web));
        }
        Ok(demo::run(opts, config, &folder, shutdown).await?)
    })
}

/// `boardcast demo`: simulated boards through the live daemon.
pub(crate) fn demo(args: DemoArgs) -> Result<()> {
    use crate::demo::{self, DemoOptions};
    if args.boards == 0 || args.speed < 1.0 {
        bail!("--boards must be at least 1 and --speed at least 1");
    }
    let opts = DemoOptions {
        boards: args.boards,
        speed: args.speed,
        web: args.web,
        broker: args.broker,
        livechess: Some(args.livechess),
        seed: args.seed,
        folder: None,
        families: args.families,
        games: args.games,
    };
    // In-process lines on every OS (the same port task and drivers read
    // them as serial ports); pseudo-terminals on request.
    #[cfg(unix)]
    let pty = args.pty;
    #[cfg(not(unix))]
    let pty = false;
    let folder = if pty {
        std::env::temp_dir().join(format!("boardcast-demo-{}", std::process::id()))
    } else {
        PathBuf::from(format!("{}demo", boardcast::port::memory::PREFIX))
    };
    let mut config = demo::config(&opts, &folder)?;
    config.broadcast.public_alerts = true; // one page shows all (docs/broadcast.md)
    init_logging(&config.log)?;
    println!(
        "boardcast demo: {} simulated boards at {}x speed\n  live page: http://{}/   (arbiter view: http://{}/?arbiter)\n  MQTT: mqtt://{} topics {}/#\n  Ctrl-C stops.",
        opts.boards, opts.speed, opts.web, opts.web, opts.broker, config.mqtt.prefix
    );
    if let Some(addr) = config.livechess {
        println!("  LiveChess API: ws://{addr}/api/v1.0 (DGT board pages, LiveChess clients)");
    }
    until_stopped(|shutdown| async move { Ok(demo::run(opts, config, &folder, shutdown).await?) })
}

/// The tracing subscriber: text or JSON on stderr, filtered by RUST_LOG or
/// the configured level. rumqttc logs through the `log` crate; the
/// subscriber's `tracing-log` bridge (on by default) carries those records.
pub(crate) fn init_logging(log: &config::Log) -> Result<()> {
    use tracing_subscriber::EnvFilter;
    let filter = match std::env::var("RUST_LOG") {
        Ok(v) if !v.is_empty() => EnvFilter::try_new(v).context("RUST_LOG")?,
        _ => EnvFilter::try_new(&log.level).context("log.level")?,
    };
    use std::io::IsTerminal;
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr);
    let result = match log.format {
        config::LogFormat::Text => builder.try_init(),
        config::LogFormat::Json => builder.json().try_init(),
    };
    result.map_err(|e| anyhow::anyhow!("setting up logging: {e}"))
}
#[cfg(test)]
mod tests {
    use super::desk_url;

    #[test]
    fn the_desk_is_opened_where_this_machine_reaches_it() {
        let at = |a: &str| desk_url(a.parse().unwrap());
        assert_eq!(at("127.0.0.1:8080"), "http://127.0.0.1:8080/desk");
        assert_eq!(at("0.0.0.0:8081"), "http://127.0.0.1:8081/desk");
        assert_eq!(at("[::]:8080"), "http://[::1]:8080/desk");
        assert_eq!(at("192.168.1.5:80"), "http://192.168.1.5:80/desk");
    }
}
