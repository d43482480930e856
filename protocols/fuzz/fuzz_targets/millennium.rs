//! Feeds arbitrary bytes to the Millennium ChessLink reply and command
//! decoders. First byte = read size. Checks: no panic, `Ok(None)` consumes
//! nothing, everything else consumes something, decoded replies re-encode
//! to bytes that decode to themselves.

#![no_main]

use boardcast_protocols::millennium::{CommandDecoder, Decoder};
use bytes::BytesMut;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&size, data)) = data.split_first() else {
        return;
    };
    let size = usize::from(size).max(1);
    let mut decoder = Decoder::new();
    let mut commands = CommandDecoder::new();
    let mut buf = BytesMut::new();
    let mut cbuf = BytesMut::new();
    for chunk in data.chunks(size) {
        buf.extend_from_slice(chunk);
        cbuf.extend_from_slice(chunk);
        loop {
            let before = buf.len();
            match decoder.decode(&mut buf) {
                Ok(None) => {
                    assert_eq!(buf.len(), before);
                    break;
                }
                Ok(Some(reply)) => {
                    let mut again = BytesMut::from(&reply.to_bytes()[..]);
                    assert_eq!(Decoder::new().decode(&mut again), Ok(Some(reply)));
                }
                Err(_) => {}
            }
            assert!(buf.len() < before);
        }
        loop {
            let before = cbuf.len();
            match commands.decode(&mut cbuf) {
                Ok(None) => break,
                Ok(Some(command)) => {
                    let mut again = BytesMut::from(&command.to_bytes()[..]);
                    assert_eq!(CommandDecoder::new().decode(&mut again), Ok(Some(command)));
                }
                Err(_) => {}
            }
            assert!(cbuf.len() < before);
        }
    }
});
