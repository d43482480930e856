//! The integration test binary: one module per area.

mod games;
mod reconstruct;
mod replay;
mod daemon;
mod util;
