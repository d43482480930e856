//! Feeds arbitrary bytes to the open-protocol decoders (board and host
//! lines). First byte = read size. Checks: no panic, the buffer never grows
//! and errors consume, decoded lines re-encode to text that parses to the
//! same line.

#![no_main]

use boardcast_protocols::open::{Decoder, HostDecoder};
use bytes::BytesMut;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&size, data)) = data.split_first() else {
        return;
    };
    let size = usize::from(size).max(1);
    let mut decoder = Decoder::new();
    let mut host = HostDecoder::new();
    let mut buf = BytesMut::new();
    let mut hbuf = BytesMut::new();
    for chunk in data.chunks(size) {
        buf.extend_from_slice(chunk);
        hbuf.extend_from_slice(chunk);
        loop {
            let before = buf.len();
            match decoder.decode(&mut buf) {
                Ok(None) => {
                    assert!(buf.len() <= before);
                    break;
                }
                Ok(Some(line)) => {
                    let text = line.encode(decoder.game());
                    assert_eq!(decoder.parse(text.trim_end()), Ok(line));
                }
                Err(_) => {}
            }
            assert!(buf.len() < before);
        }
        while let Ok(Some(_)) | Err(_) = host.decode(&mut hbuf) {}
        assert!(hbuf.len() <= 201 && !hbuf.contains(&b'\n'));
    }
});
