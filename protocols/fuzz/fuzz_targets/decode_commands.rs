//! Feeds arbitrary bytes to the host -> board command decoder and checks
//! that it never panics, always makes progress and that every decoded
//! command re-encodes to bytes that decode to the same command.

#![no_main]

use boardcast_protocols::dgt::CommandDecoder;
use bytes::BytesMut;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut decoder = CommandDecoder::new();
    let mut buf = BytesMut::from(data);
    loop {
        let before = buf.len();
        match decoder.decode(&mut buf) {
            Ok(None) => break,
            Ok(Some(command)) => {
                let mut again = BytesMut::from(&command.to_bytes()[..]);
                assert_eq!(CommandDecoder::new().decode(&mut again), Ok(Some(command)));
                assert!(again.is_empty());
            }
            Err(e) => assert_eq!(e.consumed(), before - buf.len()),
        }
        assert!(buf.len() < before);
    }
});
