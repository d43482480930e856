//! The integration test binary: one module per area.

mod alerts;
mod broadcast;
mod clocks;
mod daemon;
mod games;
mod games_open;
mod reconstruct;
mod replay;
mod results;
mod tournament;
mod util;
mod web;
