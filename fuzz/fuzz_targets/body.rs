//! `message::Body::decode`: a log entry's body (G6).
#![no_main]
use hexveil_protocol::message::{encode, Body};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(body) = Body::decode(data) {
        // Whatever decodes round-trips through its own encoding.
        assert_eq!(Body::decode(&encode(&body)).expect("own encoding decodes"), body);
    }
});
