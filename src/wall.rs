//! Wall-clock time as the outputs write it: Unix milliseconds, PGN dates
//! and the stamps that name a daemon session.
//!
//! Design: the core never reads a clock (time is passed in as daemon
//! milliseconds); only the edges call [`unix_ms`], and every date they
//! write is made here from it.

use std::time::{SystemTime, UNIX_EPOCH};

/// Wall milliseconds since the Unix epoch.
pub fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The current UTC time as `YYYYMMDDTHHMMSSZ`, naming a session.
pub fn session_stamp() -> String {
    let (y, mo, d, h, mi, s) = civil(unix_ms() / 1000);
    format!("{y:04}{mo:02}{d:02}T{h:02}{mi:02}{s:02}Z")
}

/// Today's UTC date as PGN writes it, `YYYY.MM.DD`.
pub fn pgn_date() -> String {
    pgn_date_at(unix_ms() / 1000 * 1000)
}

/// The PGN date (`YYYY.MM.DD`, UTC) of `unix_ms` milliseconds since 1970.
pub fn pgn_date_at(unix_ms: u64) -> String {
    let (y, mo, d, ..) = civil(unix_ms / 1000);
    format!("{y:04}.{mo:02}.{d:02}")
}

/// Seconds since 1970 to (year, month, day, hour, minute, second) in UTC
/// (Howard Hinnant's days-to-civil algorithm).
fn civil(secs: u64) -> (i64, u32, u32, u32, u32, u32) {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (
        y,
        m,
        d,
        (rem / 3600) as u32,
        (rem % 3600 / 60) as u32,
        (rem % 60) as u32,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates_are_right() {
        assert_eq!(civil(0), (1970, 1, 1, 0, 0, 0));
        // 2024-02-29 12:34:56 UTC
        assert_eq!(civil(1_709_210_096), (2024, 2, 29, 12, 34, 56));
        assert_eq!(pgn_date_at(1_709_210_096_000), "2024.02.29");
    }

    #[test]
    fn a_session_stamp_is_sixteen_characters_in_utc() {
        let s = session_stamp();
        assert_eq!(s.len(), 16, "{s}");
        assert!(s.ends_with('Z') && s.as_bytes()[8] == b'T', "{s}");
    }
}
