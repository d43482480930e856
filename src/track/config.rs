//! The `[reconstructor]` section: the reading rules' limits and
//! settle times.

use serde::Deserialize;

use super::{Config, Limits, SettleRule};
use crate::config_file::set;

/// `[reconstructor]` as written.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawReconstructor {
    /// Settle time of plain moves.
    pub settle_base_ms: Option<u64>,
    /// Settle time of extendable moves.
    pub settle_extendable_ms: Option<u64>,
    /// Settle time of takebacks.
    pub settle_takeback_ms: Option<u64>,
    /// Settle time of chess moves whose piece could land on no square
    /// beside its own.
    pub settle_sole_landing_ms: Option<u64>,
    /// How long a move must stand, the board quiet, before it is final
    /// without a clock press or a reply.
    pub final_ms: Option<u64>,
    /// How long a move must stand before screens are shown it as
    /// provisional.
    pub provisional_ms: Option<u64>,
    /// Streaming search depth.
    pub stream_depth: Option<usize>,
    /// Resynchronising search depth.
    pub depth: Option<usize>,
    /// Plies that may be withdrawn.
    pub back: Option<usize>,
    /// Node budget.
    pub budget: Option<usize>,
}

/// `[reconstructor]`: settle times and search limits over the
/// reconstructor's own defaults (so tunables added there later keep their
/// values until they get a key here).
pub fn reconstructor(raw: Option<RawReconstructor>, defaults: Option<RawReconstructor>) -> Config {
    let (c, dc) = (raw.unwrap_or_default(), defaults.unwrap_or_default());
    let mut reconstructor = Config::default();
    let settle: &mut SettleRule = &mut reconstructor.settle;
    set(&mut settle.base_ms, c.settle_base_ms.or(dc.settle_base_ms));
    set(
        &mut settle.extendable_ms,
        c.settle_extendable_ms.or(dc.settle_extendable_ms),
    );
    set(
        &mut settle.takeback_ms,
        c.settle_takeback_ms.or(dc.settle_takeback_ms),
    );
    set(
        &mut settle.sole_landing_ms,
        c.settle_sole_landing_ms.or(dc.settle_sole_landing_ms),
    );
    set(&mut settle.final_ms, c.final_ms.or(dc.final_ms));
    set(
        &mut settle.provisional_ms,
        c.provisional_ms.or(dc.provisional_ms),
    );
    let limits: &mut Limits = &mut reconstructor.limits;
    set(&mut limits.stream_depth, c.stream_depth.or(dc.stream_depth));
    set(&mut limits.depth, c.depth.or(dc.depth));
    set(&mut limits.back, c.back.or(dc.back));
    set(&mut limits.budget, c.budget.or(dc.budget));
    reconstructor
}
