//! The `hexveil` command-line client.
// The connection layer; the CLI subcommands that use it are not written yet.
#[allow(dead_code)]
mod net;

fn main() {}
