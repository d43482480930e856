//! What the benches share: settings from the environment and percentiles.
//! Included by each bench with `#[path = "common.rs"] mod common;`
//! (process figures from /proc are `util::proc_usage`, which the tests
//! use too).

/// The environment variable `name` parsed, else `default`.
pub fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The `p` percentile (0 to 1, nearest rank) of `sorted`; the default
/// (zero) when it is empty.
pub fn percentile<T: Copy + Default>(sorted: &[T], p: f64) -> T {
    if sorted.is_empty() {
        return T::default();
    }
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}
