//! The integration test binary: one module per area.

mod daemon;
mod alerts;
mod clocks;
mod games;
mod reconstruct;
mod replay;
mod util;
