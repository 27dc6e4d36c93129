//! `message::decode_padded`: a padded server message, as a client reads it.
#![no_main]
use hexveil_protocol::message::{decode_padded, encode_padded};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(msg) = decode_padded(data) {
        // Re-padding gives a message that decodes to the same value.
        let again = encode_padded(&msg);
        assert_eq!(again.len() % hexveil_protocol::message::PAD_BUCKET, 0);
        let back = decode_padded(&again).expect("own encoding decodes");
        assert_eq!(format!("{back:?}"), format!("{msg:?}"));
    }
});
