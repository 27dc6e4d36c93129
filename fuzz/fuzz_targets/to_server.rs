//! `message::decode_to_server`: a client's live message (G6).
//!
//! The check itself is `hexveil_protocol_tests::fuzz::to_server`, which the
//! seed corpus (`fuzz/seeds/to_server/`) is also replayed through on stable.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| hexveil_protocol_tests::fuzz::to_server(data));
