//! `message::decode_padded`: a padded server message, as a client reads it.
//!
//! The check itself is `hexveil_protocol_tests::fuzz::padded`, which the
//! seed corpus (`fuzz/seeds/padded/`) is also replayed through on stable.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| hexveil_protocol_tests::fuzz::padded(data));
