//! The system test binary: the `boardcast` binary with the world around it
//! (Mosquitto, NATS, headless Chromium, the Python readers used as
//! independent oracles, root and network namespaces). A test whose tool is
//! missing fails under CI (`CI=true`) and is otherwise skipped with one line
//! naming what to install (see [`util::require`]). `cargo test -p
//! boardcast-cli --test system`.
//!
//! Unix only: the tests signal the daemon, enter namespaces and read
//! `/proc`; on Windows the binary is checked by `scripts/test-platforms`.
#![cfg(unix)]

/// The repository's root, where the bundled data lives.
const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

mod alerts_readers;
mod arbiter_tools;
mod board_text;
mod broadcast;
mod bus;
mod check;
#[path = "../../tests/clock_games.rs"]
mod clock_games;
mod clocks_readers;
mod cluster;
mod control;
mod daemon;
mod delay_drills;
mod delay_fold;
mod desk;
mod desk_disk;
mod desk_round;
mod double_click;
mod draughts_xiangqi_binary;
mod families_live;
mod games;
mod hardening;
mod hub;
mod lichess;
mod listeners;
mod live_games;
mod livechess;
mod public_alerts;
// Leader placement is used by the failover bench only.
#[path = "../../tests/corpora.rs"]
mod corpora;
#[allow(dead_code)]
mod nats;
mod netns;
mod real_games_oracle;
mod recovery;
mod replay_binary;
mod results_folder;
mod round_ledger;
mod screens;
mod tournament;
mod util;
mod web;
