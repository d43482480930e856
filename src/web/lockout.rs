//! Failed arbiter logins counted per client address: after
//! [`MAX_FAILURES`] within [`WINDOW`], the address may not try again for
//! [`LOCKED`], whatever it sends. Pure: time is passed in.

use std::collections::HashMap;
use std::net::IpAddr;
use std::time::{Duration, Instant};

/// Failed logins allowed per address within [`WINDOW`].
pub const MAX_FAILURES: u32 = 5;
/// The window failures are counted in.
pub const WINDOW: Duration = Duration::from_secs(600);
/// How long an address stays locked out.
pub const LOCKED: Duration = Duration::from_secs(900);
/// Addresses remembered at most (the oldest go first).
const MAX_ADDRESSES: usize = 4096;

/// One address's failures.
#[derive(Debug, Clone, Copy)]
struct Record {
    /// Failures in the current window.
    failures: u32,
    /// When the window began.
    since: Instant,
    /// Locked out until then.
    until: Option<Instant>,
}

/// Failed logins per client address.
#[derive(Debug, Default)]
pub struct Lockout {
    records: HashMap<IpAddr, Record>,
}

impl Lockout {
    /// Whether `addr` may try a password at `now`; if not, for how long
    /// it is still locked out.
    pub fn check(&self, addr: IpAddr, now: Instant) -> Result<(), Duration> {
        match self.records.get(&addr).and_then(|r| r.until) {
            Some(until) if until > now => Err(until - now),
            _ => Ok(()),
        }
    }

    /// A login from `addr` at `now`, counted as a failure before its
    /// password is checked ([`Lockout::succeeded`] forgets it when the
    /// password is right), so guesses sent in parallel cannot all be
    /// checked before the first is counted; `Err` says how long `addr` is
    /// still locked out.
    pub fn attempt(&mut self, addr: IpAddr, now: Instant) -> Result<(), Duration> {
        self.check(addr, now)?;
        self.failed(addr, now);
        Ok(())
    }

    /// A wrong password from `addr` at `now`; returns whether it is now
    /// locked out.
    pub fn failed(&mut self, addr: IpAddr, now: Instant) -> bool {
        if !self.records.contains_key(&addr) && self.records.len() >= MAX_ADDRESSES {
            self.records.retain(|_, r| {
                now.saturating_duration_since(r.since) < WINDOW || r.until.is_some_and(|u| u > now)
            });
            if self.records.len() >= MAX_ADDRESSES
                && let Some(oldest) = self
                    .records
                    .iter()
                    .min_by_key(|(_, r)| r.since)
                    .map(|(a, _)| *a)
            {
                self.records.remove(&oldest);
            }
        }
        let r = self.records.entry(addr).or_insert(Record {
            failures: 0,
            since: now,
            until: None,
        });
        if now.saturating_duration_since(r.since) >= WINDOW {
            *r = Record {
                failures: 0,
                since: now,
                until: None,
            };
        }
        r.failures += 1;
        if r.failures >= MAX_FAILURES {
            r.until = Some(now + LOCKED);
            r.failures = 0;
            r.since = now;
            return true;
        }
        false
    }

    /// A right password from `addr`: its failures are forgotten.
    pub fn succeeded(&mut self, addr: IpAddr) {
        self.records.remove(&addr);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn five_wrong_passwords_lock_an_address_out_for_a_while_and_no_other() {
        let t0 = Instant::now();
        let (a, b): (IpAddr, IpAddr) = ("10.0.0.7".parse().unwrap(), "10.0.0.8".parse().unwrap());
        let mut l = Lockout::default();
        for i in 0..4 {
            assert!(!l.failed(a, t0 + Duration::from_secs(i)));
            assert!(l.check(a, t0 + Duration::from_secs(i)).is_ok());
        }
        assert!(l.failed(a, t0 + Duration::from_secs(5)));
        assert!(l.check(a, t0 + Duration::from_secs(6)).is_err());
        assert!(l.check(b, t0 + Duration::from_secs(6)).is_ok());
        assert!(l.check(a, t0 + Duration::from_secs(5) + LOCKED).is_ok());
        // Failures spread wider than the window never lock.
        let mut l = Lockout::default();
        for i in 0..20u64 {
            assert!(!l.failed(b, t0 + WINDOW / 4 * (i as u32)));
        }
        // A right password forgets the failures.
        let mut l = Lockout::default();
        for _ in 0..4 {
            l.failed(a, t0);
        }
        l.succeeded(a);
        assert!(!l.failed(a, t0));
    }

    #[test]
    fn parallel_guesses_get_no_more_tries_than_serial_ones() {
        let t0 = Instant::now();
        let a: IpAddr = "10.0.0.7".parse().unwrap();
        let mut l = Lockout::default();
        // A hundred logins arrive before any password is checked.
        let let_in = (0..100).filter(|_| l.attempt(a, t0).is_ok()).count();
        assert_eq!(let_in, MAX_FAILURES as usize);
        // A right password among them opens the address again.
        l.succeeded(a);
        assert!(l.attempt(a, t0).is_ok());
    }
}
