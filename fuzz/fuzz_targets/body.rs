//! `message::Body::decode`: a log entry's body (G6).
//!
//! The check itself is `hexveil_protocol_tests::fuzz::body`, which the
//! seed corpus (`fuzz/seeds/body/`) is also replayed through on stable.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| hexveil_protocol_tests::fuzz::body(data));
