//! Connections per peer address: one address may hold only so many of a
//! listener's connections, so one client (or one script) cannot take
//! every slot and leave the others none.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

/// The connections each peer address holds on one listener.
#[derive(Debug, Default)]
pub(super) struct Peers(Mutex<HashMap<IpAddr, usize>>);

/// One connection of one peer; dropping it gives the place back.
#[derive(Debug)]
pub(super) struct PeerSlot {
    peers: Arc<Peers>,
    ip: IpAddr,
}

impl Peers {
    /// A place for one more connection from `ip`, unless it holds `max`
    /// already.
    pub(super) fn take(self: &Arc<Self>, ip: IpAddr, max: usize) -> Option<PeerSlot> {
        let mut m = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let n = m.entry(ip).or_insert(0);
        if *n >= max {
            return None;
        }
        *n += 1;
        Some(PeerSlot {
            peers: Arc::clone(self),
            ip,
        })
    }
}

impl Drop for PeerSlot {
    fn drop(&mut self) {
        let mut m = self.peers.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = m.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                m.remove(&self.ip);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_peer_holds_at_most_its_share_and_gets_it_back() {
        let peers = Arc::new(Peers::default());
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let held: Vec<PeerSlot> = (0..3).filter_map(|_| peers.take(a, 3)).collect();
        assert_eq!(held.len(), 3);
        assert!(peers.take(a, 3).is_none(), "a fourth from the same address");
        assert!(peers.take(b, 3).is_some(), "another address is served");
        drop(held);
        assert!(peers.take(a, 3).is_some(), "places come back");
        assert!(
            peers.0.lock().unwrap().len() <= 1,
            "no address is kept for nothing"
        );
    }
}
