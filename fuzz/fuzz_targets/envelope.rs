//! `envelope::Envelope::decode` (the signed tuple) and a `SignedEnvelope`
//! through postcard (what arrives on the wire).
//!
//! The check itself is `hexveil_protocol_tests::fuzz::envelope`, which the
//! seed corpus (`fuzz/seeds/envelope/`) is also replayed through on stable.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| hexveil_protocol_tests::fuzz::envelope(data));
