//! The `hexveil-server` binary.
fn main() {}
