//! Errors reported by the decoders.

/// The most bytes a single [`DecodeError::Skipped`] carries.
///
/// A longer run of garbage is removed in several steps, each reported on its
/// own, so memory held by an error never grows with the amount of noise on
/// the line.
pub const MAX_SKIPPED_CHUNK: usize = 512;

/// Something a decoder removed from the input without producing a value.
///
/// Both variants mean that bytes were consumed from the front of the buffer,
/// so the caller should log the error and call the decoder again.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// Bytes that do not start a frame the decoder understands were removed
    /// from the front of the buffer (at most [`MAX_SKIPPED_CHUNK`] of them).
    #[error("skipped {} byte(s) of garbage", bytes.len())]
    Skipped {
        /// The removed bytes, in order.
        bytes: Vec<u8>,
    },
    /// A frame with a known id was complete but its length or payload was
    /// invalid; it was removed from the buffer.
    #[error("bad frame 0x{id:02x}: {reason}")]
    BadFrame {
        /// The frame's id byte (the first byte of `bytes`).
        id: u8,
        /// What was wrong with it.
        reason: &'static str,
        /// The removed bytes: the whole frame, or only its header when the
        /// header already showed an impossible length.
        bytes: Vec<u8>,
    },
}

impl DecodeError {
    /// How many bytes this error removed from the input.
    pub fn consumed(&self) -> usize {
        match self {
            DecodeError::Skipped { bytes } | DecodeError::BadFrame { bytes, .. } => bytes.len(),
        }
    }

    /// How many garbage bytes were skipped (0 for [`DecodeError::BadFrame`]).
    pub fn skipped_count(&self) -> usize {
        match self {
            DecodeError::Skipped { bytes } => bytes.len(),
            DecodeError::BadFrame { .. } => 0,
        }
    }

    /// The removed bytes.
    pub fn bytes(&self) -> &[u8] {
        match self {
            DecodeError::Skipped { bytes } | DecodeError::BadFrame { bytes, .. } => bytes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skipped_reports_its_byte_count() {
        let err = DecodeError::Skipped {
            bytes: vec![1, 2, 3],
        };
        assert_eq!(err.to_string(), "skipped 3 byte(s) of garbage");
        assert_eq!(err.consumed(), 3);
        assert_eq!(err.skipped_count(), 3);
        assert_eq!(err.bytes(), &[1, 2, 3]);
    }

    #[test]
    fn bad_frame_names_the_id_in_hex() {
        let err = DecodeError::BadFrame {
            id: 0x8e,
            reason: "wrong length",
            bytes: vec![0x8e, 0x00, 0x06],
        };
        assert_eq!(err.to_string(), "bad frame 0x8e: wrong length");
        assert_eq!(err.consumed(), 3);
        assert_eq!(err.skipped_count(), 0);
    }
}
