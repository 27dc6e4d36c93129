//! `message::decode_to_server`: a client's live message (G6).
#![no_main]
use hexveil_protocol::message::{decode_to_server, encode};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(msg) = decode_to_server(data) {
        let back = decode_to_server(&encode(&msg)).expect("own encoding decodes");
        assert_eq!(format!("{back:?}"), format!("{msg:?}"));
    }
});
