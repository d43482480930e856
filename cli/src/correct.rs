//! `boardcast command`: an operator correction sent to a board of a running
//! daemon over its MQTT command topic, signed, and its acknowledgement.

use std::path::Path;

use anyhow::{Result, bail};

use crate::args::{Correction, DecisionArg};

/// Sends `correction` to `board` of the daemon configured in `path` and
/// waits up to `timeout` seconds for its acknowledgement.
pub(crate) fn send_correction(
    path: &Path,
    board: &str,
    correction: Correction,
    timeout: f64,
) -> Result<()> {
    use boardcast::control::{self, OperatorCommand};
    use boardcast::tournament::Player;
    let config = boardcast::config::Config::load(path)?;
    if !config.boards.iter().any(|b| b.id == board) {
        bail!("{}: no board `{board}`", path.display());
    }
    let Some(secret) = &config.control.secret else {
        bail!(
            "{}: no operator secret ([control] secret or secret_file): the daemon refuses unsigned commands",
            path.display()
        );
    };
    if !(timeout > 0.0 && timeout <= 600.0) {
        bail!("--timeout must be between 0 and 600 seconds");
    }
    let command = match correction {
        Correction::SetResult { result } => OperatorCommand::SetResult { result },
        Correction::Restart => OperatorCommand::Restart,
        Correction::Decide {
            alert,
            decision,
            note,
        } => OperatorCommand::Decide {
            alert,
            decision: match decision {
                DecisionArg::Confirmed => boardcast::event::Decision::Confirmed,
                DecisionArg::Dismissed => boardcast::event::Decision::Dismissed,
                DecisionArg::Handled => boardcast::event::Decision::Handled,
            },
            note,
        },
        Correction::SetPlayers { white, black } => OperatorCommand::SetPlayers {
            white: Player {
                name: white,
                ..Player::default()
            },
            black: Player {
                name: black,
                ..Player::default()
            },
        },
    };
    // Checked here so a typo never reaches the board.
    OperatorCommand::parse(&serde_json::to_vec(&command)?).map_err(anyhow::Error::msg)?;
    let topics = boardcast::mqtt::Topics::new(&config.mqtt.prefix, &config.bridge.name);
    let nonce = control::new_nonce();
    let payload = control::sign(
        secret,
        &topics.command(board),
        &command,
        boardcast::wall::unix_ms(),
        &nonce,
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let ack = runtime.block_on(boardcast::mqtt::send_command(
        &config.mqtt,
        &topics,
        board,
        payload,
        &nonce,
        std::time::Duration::from_secs_f64(timeout),
    ))?;
    if !ack.accepted {
        bail!("board {board}: {} {}", command.name(), ack.message);
    }
    println!("board {board}: {}: {}", command.name(), ack.message);
    Ok(())
}
