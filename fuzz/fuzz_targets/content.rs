//! `content::decode`: a leaf's fixed-width content.
//!
//! The check itself is `hexveil_protocol_tests::fuzz::content`, which the
//! seed corpus (`fuzz/seeds/content/`) is also replayed through on stable.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| hexveil_protocol_tests::fuzz::content(data));
