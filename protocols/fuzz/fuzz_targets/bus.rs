//! Feeds arbitrary bytes to the DGT bus-mode decoders (replies and
//! requests). First byte = read size. Checks: no panic, `Ok(None)` consumes
//! nothing, errors consume, decoded values re-encode to bytes that decode to
//! themselves.

#![no_main]

use boardcast_protocols::dgt::bus::{BusDecoder, BusRequestDecoder};
use bytes::BytesMut;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&size, data)) = data.split_first() else {
        return;
    };
    let size = usize::from(size).max(1);
    let mut decoder = BusDecoder::new();
    let mut requests = BusRequestDecoder::new();
    let mut buf = BytesMut::new();
    let mut rbuf = BytesMut::new();
    for chunk in data.chunks(size) {
        buf.extend_from_slice(chunk);
        rbuf.extend_from_slice(chunk);
        loop {
            let before = buf.len();
            match decoder.decode(&mut buf) {
                Ok(None) => {
                    assert_eq!(buf.len(), before);
                    break;
                }
                Ok(Some(message)) => {
                    let mut again = BytesMut::from(&message.to_bytes()[..]);
                    assert_eq!(BusDecoder::new().decode(&mut again), Ok(Some(message)));
                }
                Err(_) => {}
            }
            assert!(buf.len() < before);
        }
        loop {
            let before = rbuf.len();
            match requests.decode(&mut rbuf) {
                Ok(None) => {
                    assert_eq!(rbuf.len(), before);
                    break;
                }
                Ok(Some(request)) => {
                    let mut again = BytesMut::from(&request.to_bytes()[..]);
                    assert_eq!(BusRequestDecoder::new().decode(&mut again), Ok(Some(request)));
                }
                Err(_) => {}
            }
            assert!(rbuf.len() < before);
        }
    }
});
