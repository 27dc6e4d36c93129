//! The transcript reader and the whole verifier over arbitrary files: a
//! verdict for every input, never a panic (G5, G6).
//!
//! The check itself is `hexveil_protocol_tests::fuzz::transcript`, which the
//! seed corpus (`fuzz/seeds/transcript/`) is also replayed through on stable.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| hexveil_protocol_tests::fuzz::transcript(data));
