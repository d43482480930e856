//! The live daemon (`boardcast run`): every configured board, one MQTT
//! connection, and a planned shutdown.
//!
//! [`run`] starts one [`BoardTask`] per board and the MQTT task, then waits
//! for the shutdown future (SIGINT/SIGTERM in `main`). Shutdown goes in
//! order, as in mini-redis: the board tasks are told to stop and each
//! reaches a safe point (pending moves published, capture flushed, PGN
//! written, board published `offline`); only then is the MQTT task told to
//! stop, so it can hand the broker everything they left, publish the bridge
//! `offline` and disconnect cleanly.

use std::future::Future;
use std::sync::Arc;

use tokio::sync::{oneshot, watch};
use tokio::task::JoinSet;
use tracing::{error, info};

use crate::config::Config;
use crate::port::find::Claims;
use crate::port::live::LiveBoard;
use crate::port::recorder::{Recorder, pgn_date, session_stamp};
use crate::port::{BoardTask, Clock};
use crate::sink::mqtt::{self, MqttError, Outbox, Topics};
use crate::sink::pgn::Tags;

/// Why the daemon could not run.
#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    /// The MQTT settings cannot be used (a TLS file, say).
    #[error("mqtt: {0}")]
    Mqtt(#[from] MqttError),
    /// A capture file could not be created.
    #[error("recorder: {path}: {source}")]
    Recorder {
        /// The folder.
        path: std::path::PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// Runs the daemon until `shutdown` resolves, then stops gracefully.
pub async fn run(config: Config, shutdown: impl Future<Output = ()>) -> Result<(), DaemonError> {
    let clock = Clock::start();
    let session = session_stamp();
    let topics = Topics::new(&config.mqtt.prefix, &config.bridge.name);
    // Check the MQTT settings before anything starts.
    mqtt::options(&config.mqtt, &topics)?;
    let ids: Vec<String> = config.boards.iter().map(|b| b.id.clone()).collect();
    let outbox = Outbox::new(topics, &ids, config.mqtt.queue);

    let (stop_boards, stop_rx) = watch::channel(false);
    let (stop_mqtt, mqtt_stop_rx) = oneshot::channel::<()>();
    let mut mqtt_task = tokio::spawn(mqtt::run(config.mqtt.clone(), Arc::clone(&outbox), async {
        let _ = mqtt_stop_rx.await;
    }));

    let claims = Claims::new();
    let date = pgn_date();
    let mut boards = JoinSet::new();
    let mut names = std::collections::HashMap::new();
    for (i, b) in config.boards.iter().enumerate() {
        let tags = Tags {
            event: config.bridge.event.clone(),
            site: config.bridge.site.clone(),
            date: date.clone(),
            round: b.round.clone().unwrap_or_else(|| "?".into()),
            white: b.white.clone().unwrap_or_else(|| "?".into()),
            black: b.black.clone().unwrap_or_else(|| "?".into()),
            extra: Vec::new(),
        };
        let recorder = match &config.recorder {
            Some(dir) => Some(Recorder::create(dir, &b.id, &session).map_err(|source| {
                DaemonError::Recorder {
                    path: dir.clone(),
                    source,
                }
            })?),
            None => None,
        };
        let task = BoardTask {
            board: b.clone(),
            serial: config.serial,
            clock,
            claims: Arc::clone(&claims),
            live: LiveBoard::new(&b.id, config.reconstructor, outbox.board(i), tags),
            recorder,
        };
        let handle = boards.spawn(task.run(stop_rx.clone()));
        names.insert(handle.id(), b.id.clone());
    }
    info!(
        boards = config.boards.len(),
        bridge = %config.bridge.name,
        session = %session,
        "running"
    );

    // Design: a board task that panics (a bug) takes only its own board
    // down; it is reported, and the other boards never notice.
    let report = |r: Result<(), tokio::task::JoinError>| {
        if let Err(e) = r {
            let board = names.get(&e.id()).map_or("?", String::as_str);
            error!(%board, error = %e, "a board task failed");
        }
    };
    let mut mqtt_done = None;
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            _ = &mut shutdown => {
                info!("shutting down");
                break;
            }
            r = &mut mqtt_task => {
                mqtt_done = Some(r);
                break;
            }
            // Board tasks end only when told to: anything earlier is a
            // bug in that board's task, reported at once.
            Some(r) = boards.join_next(), if !boards.is_empty() => report(r),
        }
    }
    let _ = stop_boards.send(true);
    while let Some(r) = boards.join_next().await {
        report(r);
    }
    let _ = stop_mqtt.send(());
    let r = match mqtt_done {
        Some(r) => r,
        None => mqtt_task.await,
    };
    match r {
        Ok(r) => r?,
        Err(e) => error!(error = %e, "the MQTT task failed"),
    }
    info!(unacknowledged = outbox.unacknowledged(), "stopped");
    Ok(())
}
