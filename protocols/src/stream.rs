//! What the text and checksummed decoders (Millennium, Certabo, the open
//! protocol, DGT bus mode) report when they drop input.

/// The most bytes a single [`StreamError`] carries.
///
/// Longer runs of garbage are reported in several pieces so that the memory
/// held by an error never grows with the amount of noise on the line.
pub const MAX_REPORTED: usize = 512;

/// Input a decoder removed from the front of its buffer without producing a
/// value. Every variant means bytes were consumed: log it and call the
/// decoder again. None of them is fatal.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StreamError {
    /// Bytes that do not start a frame were skipped, up to the next byte
    /// that could start one. A run of garbage is reported once (in pieces of
    /// at most [`MAX_REPORTED`] bytes).
    #[error("skipped {} byte(s) of garbage", bytes.len())]
    Skipped {
        /// The removed bytes, in order.
        bytes: Vec<u8>,
    },
    /// A complete frame whose checksum did not match; the whole frame was
    /// removed.
    #[error("bad checksum in a {}-byte frame", bytes.len())]
    BadChecksum {
        /// The removed frame.
        bytes: Vec<u8>,
    },
    /// A frame (or text line) that is complete but makes no sense; it was
    /// removed whole.
    #[error("malformed frame: {reason}")]
    Malformed {
        /// What was wrong with it.
        reason: &'static str,
        /// The removed bytes (cut to [`MAX_REPORTED`] for very long lines).
        bytes: Vec<u8>,
    },
}

impl StreamError {
    /// The removed bytes (possibly cut to [`MAX_REPORTED`]).
    pub fn bytes(&self) -> &[u8] {
        match self {
            StreamError::Skipped { bytes }
            | StreamError::BadChecksum { bytes }
            | StreamError::Malformed { bytes, .. } => bytes,
        }
    }

    /// Number of garbage bytes (0 unless [`StreamError::Skipped`]).
    pub fn skipped_count(&self) -> usize {
        match self {
            StreamError::Skipped { bytes } => bytes.len(),
            _ => 0,
        }
    }
}

/// Counters every decoder keeps.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    /// Values (messages, frames, lines) decoded.
    pub decoded: u64,
    /// Garbage bytes skipped.
    pub skipped_bytes: u64,
    /// Frames dropped for a bad checksum.
    pub bad_checksums: u64,
    /// Frames or lines dropped as malformed.
    pub malformed: u64,
}

impl Counters {
    /// Counts one decoder result.
    pub(crate) fn count<T>(&mut self, result: &Result<Option<T>, StreamError>) {
        match result {
            Ok(None) => {}
            Ok(Some(_)) => self.decoded += 1,
            Err(StreamError::Skipped { bytes }) => self.skipped_bytes += bytes.len() as u64,
            Err(StreamError::BadChecksum { .. }) => self.bad_checksums += 1,
            Err(StreamError::Malformed { .. }) => self.malformed += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_describe_themselves_and_count() {
        let skipped = StreamError::Skipped { bytes: vec![1, 2] };
        assert_eq!(skipped.to_string(), "skipped 2 byte(s) of garbage");
        assert_eq!(skipped.skipped_count(), 2);
        let bad = StreamError::BadChecksum {
            bytes: vec![1, 2, 3],
        };
        assert_eq!(bad.to_string(), "bad checksum in a 3-byte frame");
        assert_eq!(bad.skipped_count(), 0);
        let mut counters = Counters::default();
        counters.count::<()>(&Err(skipped));
        counters.count::<()>(&Err(bad));
        counters.count(&Ok(Some(())));
        counters.count::<()>(&Ok(None));
        assert_eq!(
            counters,
            Counters {
                decoded: 1,
                skipped_bytes: 2,
                bad_checksums: 1,
                malformed: 0
            }
        );
    }
}
