//! The integration test binary: one module per area.

mod alerts;
mod broadcast;
mod bus;
mod clocks;
mod cluster;
mod control;
mod daemon;
mod families;
mod games;
mod games_alerts;
mod games_open;
mod hub;
mod live_games;
mod livechess;
mod netns;
mod reconstruct;
mod recovery;
mod replay;
mod results;
mod tournament;
mod util;
mod web;
