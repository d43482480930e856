//! The battery status message of Bluetooth boards and the Pegasus.

/// Contents of a battery status message (id `0xa0`, 9 payload bytes).
///
/// Every field is a 7-bit value as sent. Time fields hold
/// [`BatteryStatus::NOT_AVAILABLE`] (0x7f) when the board has no value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
pub struct BatteryStatus {
    /// Charge level in percent.
    pub percent: u8,
    /// Hours of running time left (while discharging) or of charging time.
    pub running_hours: u8,
    /// Minutes part of `running_hours`.
    pub running_minutes: u8,
    /// Hours the board has been switched on.
    pub on_hours: u8,
    /// Minutes part of `on_hours`.
    pub on_minutes: u8,
    /// Days spent in standby.
    pub standby_days: u8,
    /// Hours part of the standby time.
    pub standby_hours: u8,
    /// Minutes part of the standby time.
    pub standby_minutes: u8,
    /// Status bits: bit 0 charging, bit 1 discharging; others reserved.
    pub status: u8,
}

impl BatteryStatus {
    /// Value of a time field that the board does not know.
    pub const NOT_AVAILABLE: u8 = 0x7f;
    /// Payload length on the wire.
    pub const PAYLOAD_LEN: usize = 9;

    /// True when status bit 0 (charging) is set.
    pub fn is_charging(&self) -> bool {
        self.status & 0x01 != 0
    }

    /// True when status bit 1 (discharging) is set.
    pub fn is_discharging(&self) -> bool {
        self.status & 0x02 != 0
    }

    /// The nine payload bytes in wire order (each masked to 7 bits).
    pub fn to_payload(&self) -> [u8; 9] {
        [
            self.percent,
            self.running_hours,
            self.running_minutes,
            self.on_hours,
            self.on_minutes,
            self.standby_days,
            self.standby_hours,
            self.standby_minutes,
            self.status,
        ]
        .map(|b| b & 0x7f)
    }

    /// Reads the nine payload bytes in wire order.
    pub fn from_payload(p: [u8; 9]) -> BatteryStatus {
        BatteryStatus {
            percent: p[0],
            running_hours: p[1],
            running_minutes: p[2],
            on_hours: p[3],
            on_minutes: p[4],
            standby_days: p[5],
            standby_hours: p[6],
            standby_minutes: p[7],
            status: p[8],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pegasus_fixture_is_88_percent_and_discharging() {
        let status = BatteryStatus::from_payload([0x58, 0, 0, 0, 0, 0, 0, 0, 0x02]);
        assert_eq!(status.percent, 88);
        assert!(status.is_discharging());
        assert!(!status.is_charging());
        assert_eq!(status.to_payload(), [0x58, 0, 0, 0, 0, 0, 0, 0, 0x02]);
    }
}
