//! Feeds arbitrary bytes to the board -> host decoder.
//!
//! The first input byte picks a read size so that frames are also cut at
//! odd places. Checks: no panic, every call either waits without consuming
//! or consumes something, and every decoded message decodes to itself again
//! after re-encoding.

#![no_main]

use boardcast_protocols::dgt::{DecodeError, Decoder};
use bytes::BytesMut;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&size, data)) = data.split_first() else {
        return;
    };
    let size = usize::from(size).max(1);
    let mut decoder = Decoder::new();
    let mut buf = BytesMut::new();
    for chunk in data.chunks(size) {
        buf.extend_from_slice(chunk);
        loop {
            let before = buf.len();
            match decoder.decode(&mut buf) {
                Ok(None) => {
                    assert_eq!(buf.len(), before);
                    break;
                }
                Ok(Some(message)) => {
                    let mut again = BytesMut::from(&message.to_bytes()[..]);
                    let decoded = Decoder::new().decode(&mut again);
                    assert_eq!(decoded, Ok(Some(message)));
                    assert!(again.is_empty());
                }
                Err(e @ (DecodeError::Skipped { .. } | DecodeError::BadFrame { .. })) => {
                    assert_eq!(e.consumed(), before - buf.len());
                }
            }
            assert!(buf.len() < before);
        }
    }
});
