//! Nothing here: the tests are in `tests/` and the benchmarks in `benches/`.
//! They live in a crate of their own because they play real games of a
//! ruleset (ASL's example), and `hexveil-protocol` must depend on no
//! ruleset, not even as a dev-dependency (`cargo tree -p hexveil-protocol`).
