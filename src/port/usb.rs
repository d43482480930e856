//! The boards a USB serial port is known by: vendor and product ids, the
//! family they speak, and the name `boardcast ports` and the Debian
//! package's udev rule (`packaging/debian/60-boardcast.rules`, checked
//! against this table by a test) give them.
//!
//! Only ids a public driver source documents are listed
//! (docs/platforms.md says which): DGT's own id, and the Silicon Labs
//! CP210x bridge Certabo boards use. That bridge is a generic part found in
//! other devices too, so a port with its id is named a *possible* Certabo
//! board. No public source gives the USB id of a Millennium ChessLink
//! module (its drivers probe every port), so Millennium boards are not
//! named by id: configure their port by path.

use crate::family::Family;

/// A board family's USB serial bridge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KnownBoard {
    /// USB vendor id.
    pub vid: u16,
    /// USB product id.
    pub pid: u16,
    /// The family it speaks.
    pub family: Family,
    /// What `boardcast ports` calls it (`DGT board`).
    pub name: &'static str,
    /// The id is the board maker's own (false: a generic bridge chip that
    /// other devices use too).
    pub exclusive: bool,
    /// The udev rule's symlink prefix (`/dev/boardcast/{link}-{serial}`).
    pub link: &'static str,
}

/// Every board known by its USB id.
pub const KNOWN: &[KnownBoard] = &[
    KnownBoard {
        vid: 0x045b,
        pid: 0x8111,
        family: Family::Dgt,
        name: "DGT board",
        exclusive: true,
        link: "dgt",
    },
    KnownBoard {
        vid: 0x10c4,
        pid: 0xea60,
        family: Family::Certabo,
        name: "Certabo board (or another CP210x device)",
        exclusive: false,
        link: "certabo",
    },
];

/// The board a USB serial port with these ids is, if known. Any DGT
/// product id counts as a DGT board (the vendor id is DGT's own).
pub fn identify(vid: u16, pid: u16) -> Option<&'static KnownBoard> {
    KNOWN
        .iter()
        .find(|k| k.vid == vid && k.pid == pid)
        .or_else(|| KNOWN.iter().find(|k| k.vid == vid && k.exclusive))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dgt_and_certabo_bridges_are_known_and_others_are_not() {
        assert_eq!(identify(0x045b, 0x8111).unwrap().family, Family::Dgt);
        assert_eq!(identify(0x045b, 0x8112).unwrap().name, "DGT board");
        assert_eq!(identify(0x10c4, 0xea60).unwrap().family, Family::Certabo);
        assert!(
            identify(0x10c4, 0xea61).is_none(),
            "a CP210x of another product"
        );
        assert!(identify(0x0403, 0x6001).is_none());
    }

    #[test]
    fn the_debian_udev_rule_names_every_known_board() {
        let rules = include_str!("../../packaging/debian/60-boardcast.rules");
        for k in KNOWN {
            let line = rules
                .lines()
                .find(|l| {
                    // A maker's own vendor id is matched whatever the
                    // product; a generic bridge by both ids.
                    !l.starts_with('#')
                        && l.contains(&format!("ATTRS{{idVendor}}==\"{:04x}\"", k.vid))
                        && (k.exclusive
                            || l.contains(&format!("ATTRS{{idProduct}}==\"{:04x}\"", k.pid)))
                })
                .unwrap_or_else(|| panic!("no rule for {}", k.name));
            assert!(
                line.contains(&format!("SYMLINK+=\"boardcast/{}-", k.link)),
                "{line}"
            );
            assert!(line.contains("GROUP=\"dialout\""), "{line}");
        }
    }
}
