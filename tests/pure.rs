//! The pure test binary: codecs, reconstruction, rules, clocks, replay of
//! the bundled corpora. It needs nothing but Rust: no broker, browser,
//! Python, root or built binary (those tests are the system binary's,
//! cli/tests/system.rs). `cargo test --test pure`.

/// The repository's root, where the bundled data lives.
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

mod alerts;
mod clock_games;
mod clocks;
mod corpora;
mod draughts_xiangqi;
mod draughts_xiangqi_alerts;
mod evidence;
mod families;
mod game_clocks;
mod games;
mod habits;
mod mid_game;
mod real_games;
mod real_hands;
mod reconstruct;
mod replay;
mod results;
mod trf;
