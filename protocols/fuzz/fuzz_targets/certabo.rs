//! Feeds arbitrary bytes to the Certabo decoder (RFID and occupancy frames).
//! First byte = read size. Checks: no panic, progress, decoded frames
//! re-encode to bytes that decode to themselves.

#![no_main]

use boardcast_protocols::certabo::{Decoder, Kind};
use bytes::BytesMut;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&size, data)) = data.split_first() else {
        return;
    };
    let size = usize::from(size).max(1);
    for kind in [Kind::Rfid, Kind::Occupancy] {
        let mut decoder = Decoder::new(kind);
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
                    Ok(Some(frame)) => {
                        let mut again = BytesMut::from(&frame.to_bytes()[..]);
                        assert_eq!(Decoder::new(kind).decode(&mut again), Ok(Some(frame)));
                    }
                    Err(_) => {}
                }
                assert!(buf.len() < before);
            }
        }
    }
});
