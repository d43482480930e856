//! Capped exponential backoff for reconnection loops (serial ports and the
//! broker).

use std::time::Duration;

/// Capped exponential backoff bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BackoffConfig {
    /// First delay.
    pub min: Duration,
    /// Longest delay.
    pub max: Duration,
}

impl BackoffConfig {
    /// The delays a configuration file gives in milliseconds, when it
    /// gives both: the first at least 1 ms, the longest at least the first.
    pub fn from_ms(min: Option<u64>, max: Option<u64>) -> Option<BackoffConfig> {
        let min = Duration::from_millis(min?.max(1));
        let max = Duration::from_millis(max?).max(min);
        Some(BackoffConfig { min, max })
    }
}

/// Delays that double after every failure, up to a cap, and start again
/// from the bottom after a success.
#[derive(Clone, Debug)]
pub struct Backoff {
    bounds: BackoffConfig,
    next: Duration,
}

impl Backoff {
    /// A backoff at its shortest delay.
    pub fn new(bounds: BackoffConfig) -> Backoff {
        Backoff {
            bounds,
            next: bounds.min,
        }
    }

    /// The delay to wait now; the following one is twice as long (capped).
    pub fn next_delay(&mut self) -> Duration {
        let now = self.next;
        self.next = (self.next * 2).min(self.bounds.max);
        now
    }

    /// After a success: the next failure waits the shortest delay again.
    pub fn reset(&mut self) {
        self.next = self.bounds.min;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_double_up_to_the_cap_and_reset_after_success() {
        let mut b = Backoff::new(BackoffConfig {
            min: Duration::from_millis(100),
            max: Duration::from_millis(350),
        });
        let ms = |d: Duration| d.as_millis();
        assert_eq!(ms(b.next_delay()), 100);
        assert_eq!(ms(b.next_delay()), 200);
        assert_eq!(ms(b.next_delay()), 350);
        assert_eq!(ms(b.next_delay()), 350);
        b.reset();
        assert_eq!(ms(b.next_delay()), 100);
    }
}
