//! `encoding::TupleDecoder`: reads fields in an order chosen by the input's
//! first bytes from the rest of the input.
//!
//! The check itself is `hexveil_protocol_tests::fuzz::tuple`, which the
//! seed corpus (`fuzz/seeds/tuple/`) is also replayed through on stable.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| hexveil_protocol_tests::fuzz::tuple(data));
