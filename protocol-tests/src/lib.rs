//! The tests are in `tests/` and the benchmarks in `benches/`; the one
//! module here, [`fuzz`], is what the cargo-fuzz targets in `fuzz/` run on
//! each input, shared with the test that replays their seed corpus. They
//! live in a crate of their own because they play real games of a
//! ruleset (ASL's example), and `hexveil-protocol` must depend on no
//! ruleset, not even as a dev-dependency (`cargo tree -p hexveil-protocol`).

pub mod fuzz;
