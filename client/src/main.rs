//! The `hexveil` command-line client.
fn main() {}
