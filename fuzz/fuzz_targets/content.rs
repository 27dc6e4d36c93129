//! `content::decode`: a leaf's fixed-width content.
#![no_main]
use hexveil_asl::content::{decode, encode, CONTENT_LEN};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(bytes) = <[u8; CONTENT_LEN]>::try_from(data) else {
        return;
    };
    if let Ok(c) = decode(&bytes) {
        // Only canonical encodings decode.
        assert_eq!(encode(&c), bytes);
    }
});
