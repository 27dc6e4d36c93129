//! The referee over any body a key of the game signs, at every point of a
//! real game (G6): a player can sign anything, so whatever it signs must get
//! an answer (accepted, or refused changing nothing), never a panic. The
//! first input byte picks the log prefix (high 6 bits) and the author (low
//! 2 bits); the rest is the body, signed by the harness.
//!
//! The check itself is `hexveil_protocol_tests::fuzz::referee`, which the
//! seed corpus (`fuzz/seeds/referee/`) is also replayed through on stable.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| hexveil_protocol_tests::fuzz::referee(data));
