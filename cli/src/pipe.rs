//! How a command ends: its error as one line, control characters escaped;
//! and a closed pipe on standard output ends it quietly, as Unix tools do:
//! `boardcast trf pairings --pairings F | head -1` prints its first line
//! and exits with status 0, with no panic and no message, when `head` has
//! read what it wanted and closed the pipe.
//!
//! Design: Rust ignores `SIGPIPE`, so a write to a closed pipe returns
//! `EPIPE` (`BrokenPipe`) instead of ending the process. Both ways a
//! command prints are handled here, once for every command: an error
//! returned up to `main` whose cause is a broken pipe (a `write_all` on
//! standard output) is not an error, and `print!`/`println!` (which panic
//! when they cannot write) end the process quietly through a panic hook.
//! `SIGPIPE` is not restored to its default instead: the daemon shares the
//! binary, and a peer that hangs up must never kill it.

use std::io;
use std::process::ExitCode;

/// How a command ends: success; standard output closed under it (`|
/// head`), also success, quietly; else one line on standard error, the
/// error and its causes, with any control character a file or a name
/// brought in shown escaped ([`boardcast::text::shown`]), and failure.
pub(crate) fn exit_code(result: anyhow::Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if closed(&e) => ExitCode::SUCCESS,
        Err(e) => {
            let chain: Vec<String> = e.chain().map(|c| c.to_string()).collect();
            eprintln!("boardcast: {}", boardcast::text::shown(&chain.join(": ")));
            ExitCode::FAILURE
        }
    }
}

/// Installs the panic hook that ends the process with status 0 when a
/// `print!` or `println!` finds standard output closed; every other panic
/// goes to the hook that was there.
pub(crate) fn quiet_on_closed_pipe() {
    let earlier = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or_default();
        if is_closed_pipe_print(message) {
            std::process::exit(0);
        }
        earlier(info);
    }));
}

/// Whether a panic message is the standard library's for a print to a
/// closed pipe (`failed printing to stdout: Broken pipe (os error 32)`).
fn is_closed_pipe_print(message: &str) -> bool {
    let broken = io::Error::from(io::ErrorKind::BrokenPipe).to_string();
    message.starts_with("failed printing to std")
        && (message.contains(&broken) || message.contains("Broken pipe"))
}

/// Whether an error returned to `main` is standard output closed under
/// the command (any cause in its chain a broken pipe).
pub(crate) fn closed(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_print_to_a_closed_pipe_is_told_from_other_panics() {
        assert!(is_closed_pipe_print(
            "failed printing to stdout: Broken pipe (os error 32)"
        ));
        assert!(!is_closed_pipe_print(
            "failed printing to stdout: No space left on device (os error 28)"
        ));
        assert!(!is_closed_pipe_print("index out of bounds"));
        let e = anyhow::Error::from(io::Error::from(io::ErrorKind::BrokenPipe))
            .context("writing the TRF file");
        assert!(closed(&e));
        assert!(!closed(&anyhow::anyhow!("round 5 is not paired")));
    }
}
