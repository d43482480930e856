//! The integration test binary: one module per area.

mod alerts;
mod clocks;
mod daemon;
mod games;
mod reconstruct;
mod recovery;
mod replay;
mod results;
mod tournament;
mod util;
mod web;
