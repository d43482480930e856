//! The clock message (BWTIME, id `0x8d`): clock times or a clock acknowledgement.
//!
//! Both variants have seven payload bytes `p0..p6`. The message is an
//! acknowledgement when the low nibble of `p0` or of `p3` is `0x0a` (an hour
//! value no real clock shows); otherwise it carries times.

/// Converts a BCD byte to its binary value. A byte that is not valid BCD
/// (a nibble above 9) gives 255 so that range checks reject it.
pub(crate) const fn from_bcd(b: u8) -> u8 {
    let hi = b >> 4;
    let lo = b & 0x0f;
    if hi > 9 || lo > 9 {
        u8::MAX
    } else {
        hi * 10 + lo
    }
}

/// Like [`from_bcd`] but `None` for invalid BCD.
pub(crate) const fn from_bcd_strict(b: u8) -> Option<u8> {
    let v = from_bcd(b);
    if v == u8::MAX { None } else { Some(v) }
}

/// Converts 0..=79 to BCD (which keeps the top bit clear). Anything larger
/// cannot be sent and becomes 0x7f, which reads back as invalid (255).
pub(crate) const fn to_bcd(v: u8) -> u8 {
    if v <= 79 {
        ((v / 10) << 4) | (v % 10)
    } else {
        0x7f
    }
}

/// One side of the clock ("right" and "left" are as seen from the front of
/// the clock; they are not colours).
///
/// Values are binary. On the wire hours are one binary nibble and minutes and
/// seconds are BCD; a byte that was not valid BCD decodes to 255.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
pub struct ClockSide {
    /// Hours, 0..=9 on a working clock.
    pub hours: u8,
    /// Minutes, 0..=59 on a working clock.
    pub minutes: u8,
    /// Seconds, 0..=59 on a working clock.
    pub seconds: u8,
    /// The flag has fallen and the clock is blocked at zero.
    pub flag_fallen: bool,
    /// A time-per-move indicator (Fischer or Bronstein increment) is on.
    pub time_per_move: bool,
    /// The flag is shown but the clock may go on running (next period).
    pub flag_shown: bool,
}

impl ClockSide {
    /// The time left in seconds.
    pub fn total_seconds(&self) -> u32 {
        u32::from(self.hours) * 3600 + u32::from(self.minutes) * 60 + u32::from(self.seconds)
    }

    /// True if the time is in range: hours ≤ 9, minutes ≤ 59, seconds ≤ 59.
    pub fn is_valid(&self) -> bool {
        self.hours <= 9 && self.minutes <= 59 && self.seconds <= 59
    }

    fn from_wire(b0: u8, b1: u8, b2: u8) -> ClockSide {
        ClockSide {
            hours: b0 & 0x0f,
            minutes: from_bcd(b1),
            seconds: from_bcd(b2),
            flag_fallen: b0 & 0x10 != 0,
            time_per_move: b0 & 0x20 != 0,
            flag_shown: b0 & 0x40 != 0,
        }
    }

    fn to_wire(self) -> [u8; 3] {
        let mut b0 = self.hours & 0x0f;
        if self.flag_fallen {
            b0 |= 0x10;
        }
        if self.time_per_move {
            b0 |= 0x20;
        }
        if self.flag_shown {
            b0 |= 0x40;
        }
        [b0, to_bcd(self.minutes), to_bcd(self.seconds)]
    }
}

/// The status byte (`p6`) of a clock-times message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
pub struct ClockStatus {
    /// Bit 0: the clock is running (false = stopped with start/stop).
    pub running: bool,
    /// Bit 1: the lever is high on the right side (false = high on the left).
    pub lever_right_high: bool,
    /// Bit 2: the clock shows its battery-low sign.
    pub battery_low: bool,
    /// Bit 3: it is the right player's turn (bit meaning as revised in 2015).
    pub right_to_move: bool,
    /// Bit 4: it is the left player's turn.
    pub left_to_move: bool,
    /// Bit 5: no clock is connected; the times are meaningless.
    pub no_clock: bool,
}

impl ClockStatus {
    /// Reads the status byte; bits 6 and 7 are ignored.
    pub fn from_byte(b: u8) -> ClockStatus {
        ClockStatus {
            running: b & 0x01 != 0,
            lever_right_high: b & 0x02 != 0,
            battery_low: b & 0x04 != 0,
            right_to_move: b & 0x08 != 0,
            left_to_move: b & 0x10 != 0,
            no_clock: b & 0x20 != 0,
        }
    }

    /// The status byte as sent.
    pub fn to_byte(self) -> u8 {
        u8::from(self.running)
            | u8::from(self.lever_right_high) << 1
            | u8::from(self.battery_low) << 2
            | u8::from(self.right_to_move) << 3
            | u8::from(self.left_to_move) << 4
            | u8::from(self.no_clock) << 5
    }
}

/// The clock-times variant of the clock message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
pub struct ClockTimes {
    /// The right-hand side of the clock (payload bytes `p0..p2`).
    pub right: ClockSide,
    /// The left-hand side of the clock (payload bytes `p3..p5`).
    pub left: ClockSide,
    /// Status byte `p6`.
    pub status: ClockStatus,
}

impl ClockTimes {
    /// True if every payload byte was zero. Bluetooth boards send such a
    /// message right after a clock command; it carries no information.
    pub fn is_all_zero(&self) -> bool {
        *self == ClockTimes::default()
    }

    /// True if no clock flag is set and both sides hold in-range times.
    pub fn is_valid(&self) -> bool {
        !self.status.no_clock && self.right.is_valid() && self.left.is_valid()
    }

    /// Reads the seven payload bytes (does not check for the ack variant).
    pub fn from_payload(p: [u8; 7]) -> ClockTimes {
        ClockTimes {
            right: ClockSide::from_wire(p[0], p[1], p[2]),
            left: ClockSide::from_wire(p[3], p[4], p[5]),
            status: ClockStatus::from_byte(p[6]),
        }
    }

    /// The seven payload bytes as the board sends them.
    ///
    /// Hours above 15 lose their high bits and hours of 10 would read back as
    /// an acknowledgement, so only [`ClockSide::is_valid`] times round-trip.
    pub fn to_payload(&self) -> [u8; 7] {
        let [r0, r1, r2] = self.right.to_wire();
        let [l0, l1, l2] = self.left.to_wire();
        [r0, r1, r2, l0, l1, l2, self.status.to_byte()]
    }
}

/// A button on a DGT3000 clock, as reported in an unsolicited
/// button-pressed acknowledgement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClockButton {
    /// Leftmost button ("back", code 0x31).
    Back,
    /// Second button ("minus", code 0x34).
    Minus,
    /// Middle button ("run"/play-pause, code 0x33).
    Run,
    /// Fourth button ("plus", code 0x32).
    Plus,
    /// Rightmost button ("OK"/forward, code 0x35).
    Ok,
}

impl ClockButton {
    /// The button with the given code, if it is one of the single-button codes.
    pub const fn from_code(code: u8) -> Option<ClockButton> {
        match code {
            0x31 => Some(ClockButton::Back),
            0x32 => Some(ClockButton::Plus),
            0x33 => Some(ClockButton::Run),
            0x34 => Some(ClockButton::Minus),
            0x35 => Some(ClockButton::Ok),
            _ => None,
        }
    }

    /// Position from the left, 0..=4.
    pub const fn position(self) -> u8 {
        match self {
            ClockButton::Back => 0,
            ClockButton::Minus => 1,
            ClockButton::Run => 2,
            ClockButton::Plus => 3,
            ClockButton::Ok => 4,
        }
    }
}

/// The acknowledgement variant of the clock message: four bytes rebuilt from
/// the payload.
///
/// `bytes[0]` is 0x10 when all is well. If `bytes[1]` has its top bit set the
/// clock speaks on its own (ready, button pressed, mode change); otherwise
/// `bytes[1]` is the id of the clock command being acknowledged and
/// `bytes[2..4]` carry its answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClockAck {
    /// The four acknowledgement bytes.
    pub bytes: [u8; 4],
}

impl ClockAck {
    /// `bytes[0]` of a successful acknowledgement.
    pub const OK: u8 = 0x10;
    /// `bytes[0]` of a failed command (e.g. set-and-run outside mode 23).
    pub const ERROR: u8 = 0x40;
    /// `bytes[1]`: the clock reports it is ready.
    pub const UNSOLICITED_READY: u8 = 0x81;
    /// `bytes[1]`: a button was pressed; `bytes[2]`, `bytes[3]` say which.
    pub const UNSOLICITED_BUTTON: u8 = 0x88;
    /// `bytes[1]`: the clock entered mode 23 (host-controlled).
    pub const UNSOLICITED_MODE_23: u8 = 0x8a;
    /// `bytes[1]`: the clock is not in mode 23.
    pub const UNSOLICITED_NOT_MODE_23: u8 = 0x90;

    /// An acknowledgement with the given bytes.
    pub const fn new(bytes: [u8; 4]) -> ClockAck {
        ClockAck { bytes }
    }

    /// True if `bytes[0]` is anything but 0x10.
    pub fn is_error(&self) -> bool {
        self.bytes[0] != Self::OK
    }

    /// True if the clock sent this on its own rather than in answer to a
    /// command (top bit of `bytes[1]`).
    pub fn is_unsolicited(&self) -> bool {
        self.bytes[1] & 0x80 != 0
    }

    /// The id of the clock command this answers (see
    /// [`clock_cmd`](crate::dgt::clock_cmd)), or `None` for an unsolicited
    /// acknowledgement.
    pub fn acked_command(&self) -> Option<u8> {
        if self.is_unsolicited() {
            None
        } else {
            Some(self.bytes[1])
        }
    }

    /// The raw button codes `(bytes[2], bytes[3])` of a button-pressed
    /// acknowledgement. Several buttons held together give other codes than
    /// the five single buttons.
    pub fn button_codes(&self) -> Option<(u8, u8)> {
        if self.bytes[1] == Self::UNSOLICITED_BUTTON {
            Some((self.bytes[2], self.bytes[3]))
        } else {
            None
        }
    }

    /// The single button reported by a button-pressed acknowledgement.
    pub fn button(&self) -> Option<ClockButton> {
        self.button_codes()
            .and_then(|(_, code)| ClockButton::from_code(code))
    }

    /// The clock's `(major, minor)` version from the answer to a version
    /// query (command 0x09): the two nibbles of `bytes[2]`.
    pub fn version(&self) -> Option<(u8, u8)> {
        if self.bytes[1] == crate::dgt::clock_cmd::VERSION {
            Some((self.bytes[2] >> 4, self.bytes[2] & 0x0f))
        } else {
            None
        }
    }

    /// Rebuilds the four bytes from a payload whose `p0` or `p3` low nibble
    /// is 0x0a. The top bit of each byte travels in bit 4 or 5 of `p0`/`p3`.
    pub fn from_payload(p: [u8; 7]) -> ClockAck {
        ClockAck {
            bytes: [
                (p[1] & 0x7f) | ((p[3] << 3) & 0x80),
                (p[2] & 0x7f) | ((p[3] << 2) & 0x80),
                (p[4] & 0x7f) | ((p[0] << 3) & 0x80),
                (p[5] & 0x7f) | ((p[0] << 2) & 0x80),
            ],
        }
    }

    /// The seven payload bytes that carry this acknowledgement (both `p0`
    /// and `p3` get the 0x0a marker nibble, `p6` is zero).
    pub fn to_payload(&self) -> [u8; 7] {
        let [a0, a1, a2, a3] = self.bytes;
        let p0 = 0x0a | ((a2 & 0x80) >> 3) | ((a3 & 0x80) >> 2);
        let p3 = 0x0a | ((a0 & 0x80) >> 3) | ((a1 & 0x80) >> 2);
        [p0, a0 & 0x7f, a1 & 0x7f, p3, a2 & 0x7f, a3 & 0x7f, 0]
    }
}

/// True if the payload is an acknowledgement rather than times.
pub(crate) fn is_ack_payload(p: &[u8; 7]) -> bool {
    (p[0] & 0x0f) == 0x0a || (p[3] & 0x0f) == 0x0a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bcd_converts_both_ways_and_flags_bad_digits() {
        assert_eq!(from_bcd(0x59), 59);
        assert_eq!(from_bcd(0x00), 0);
        assert_eq!(from_bcd(0x5a), 255);
        assert_eq!(from_bcd(0x7f), 255);
        assert_eq!(to_bcd(59), 0x59);
        assert_eq!(to_bcd(7), 0x07);
        assert_eq!(to_bcd(200), 0x7f);
        for v in 0..=79 {
            assert_eq!(from_bcd(to_bcd(v)), v);
            assert_eq!(from_bcd_strict(to_bcd(v)), Some(v));
        }
        assert_eq!(from_bcd_strict(0x3c), None);
    }

    #[test]
    fn example_times_read_as_right_1_30_00_and_left_1_29_59() {
        let times = ClockTimes::from_payload([0x01, 0x30, 0x00, 0x01, 0x29, 0x59, 0x09]);
        assert_eq!(
            times.right,
            ClockSide {
                hours: 1,
                minutes: 30,
                seconds: 0,
                ..ClockSide::default()
            }
        );
        assert_eq!(times.left.total_seconds(), 3600 + 29 * 60 + 59);
        assert!(times.status.running);
        assert!(times.status.right_to_move);
        assert!(!times.status.left_to_move);
        assert!(times.is_valid());
        assert_eq!(
            times.to_payload(),
            [0x01, 0x30, 0x00, 0x01, 0x29, 0x59, 0x09]
        );
    }

    #[test]
    fn side_flags_live_in_bits_4_to_6_of_the_hours_byte() {
        let side = ClockSide::from_wire(0x70, 0, 0);
        assert!(side.flag_fallen && side.time_per_move && side.flag_shown);
        assert_eq!(side.hours, 0);
        assert_eq!(side.to_wire(), [0x70, 0, 0]);
    }

    #[test]
    fn invalid_bcd_times_are_reported_as_invalid() {
        let times = ClockTimes::from_payload([0x01, 0x6a, 0x00, 0x0c, 0x00, 0x00, 0x00]);
        assert!(!times.right.is_valid());
        assert!(!times.left.is_valid());
        assert!(!times.is_valid());
    }

    #[test]
    fn status_bits_map_one_to_one() {
        for b in 0..0x40u8 {
            assert_eq!(ClockStatus::from_byte(b).to_byte(), b);
        }
        assert_eq!(ClockStatus::from_byte(0x40), ClockStatus::default());
        assert!(ClockStatus::from_byte(0x20).no_clock);
        assert!(ClockStatus::from_byte(0x10).left_to_move);
        assert!(ClockStatus::from_byte(0x02).lever_right_high);
        assert!(ClockStatus::from_byte(0x04).battery_low);
    }

    #[test]
    fn all_zero_times_are_recognised() {
        assert!(ClockTimes::from_payload([0; 7]).is_all_zero());
        assert!(!ClockTimes::from_payload([0, 0, 1, 0, 0, 0, 0]).is_all_zero());
    }

    #[test]
    fn ack_marker_is_a_0x0a_low_nibble_in_p0_or_p3() {
        assert!(is_ack_payload(&[0x0a, 0, 0, 0, 0, 0, 0]));
        assert!(is_ack_payload(&[0, 0, 0, 0x1a, 0, 0, 0]));
        assert!(!is_ack_payload(&[0x09, 0, 0, 0x0b, 0, 0, 0]));
    }

    #[test]
    fn ack_top_bits_come_from_bits_4_and_5_of_p0_and_p3() {
        // ack0 top bit <- p3 bit 4, ack1 <- p3 bit 5, ack2 <- p0 bit 4, ack3 <- p0 bit 5.
        let ack = ClockAck::from_payload([0x3a, 0x10, 0x08, 0x0a, 0x12, 0x34, 0x00]);
        assert_eq!(ack.bytes, [0x10, 0x08, 0x92, 0xb4]);
        let ack = ClockAck::from_payload([0x0a, 0x10, 0x08, 0x3a, 0x00, 0x00, 0x00]);
        assert_eq!(ack.bytes, [0x90, 0x88, 0x00, 0x00]);
        for bits in 0..16u8 {
            let bytes = [
                0x10 | (bits & 1) << 7,
                0x01 | (bits & 2) << 6,
                0x23 | (bits & 4) << 5,
                0x35 | (bits & 8) << 4,
            ];
            let ack = ClockAck::new(bytes);
            assert_eq!(ClockAck::from_payload(ack.to_payload()), ack);
            assert!(is_ack_payload(&ack.to_payload()));
        }
    }

    #[test]
    fn ack_helpers_classify_common_acknowledgements() {
        let display_ok = ClockAck::new([0x10, 0x01, 0x00, 0x00]);
        assert!(!display_ok.is_error());
        assert!(!display_ok.is_unsolicited());
        assert_eq!(display_ok.acked_command(), Some(0x01));
        assert_eq!(display_ok.version(), None);

        let setnrun_failed = ClockAck::new([0x40, 0x0a, 0x00, 0x00]);
        assert!(setnrun_failed.is_error());

        let version = ClockAck::new([0x10, 0x09, 0x21, 0x00]);
        assert_eq!(version.version(), Some((2, 1)));

        let ok_button = ClockAck::new([0x10, 0x88, 0x00, 0x35]);
        assert!(ok_button.is_unsolicited());
        assert_eq!(ok_button.acked_command(), None);
        assert_eq!(ok_button.button_codes(), Some((0x00, 0x35)));
        assert_eq!(ok_button.button(), Some(ClockButton::Ok));
        assert_eq!(ClockButton::Ok.position(), 4);

        let ready = ClockAck::new([0x10, ClockAck::UNSOLICITED_READY, 0, 0]);
        assert!(ready.is_unsolicited());
        assert_eq!(ready.button(), None);
    }

    #[test]
    fn single_button_codes_map_to_positions_left_to_right() {
        let positions: Vec<u8> = [0x31, 0x34, 0x33, 0x32, 0x35]
            .iter()
            .map(|&c| ClockButton::from_code(c).unwrap().position())
            .collect();
        assert_eq!(positions, vec![0, 1, 2, 3, 4]);
        assert_eq!(ClockButton::from_code(0x36), None);
    }
}
