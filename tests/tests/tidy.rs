//! Checks on the repository itself (issue 10, item 17): the server binary
//! the end-to-end tests spawn is the one `cargo test` built.

use hexveil_tests::server_binary;
use std::path::PathBuf;

/// G6 (crash tests need a real server process): the binary is the one
/// `cargo test` built with these tests, not a second `cargo build` run from
/// inside a test (which compiled the workspace again in another profile).
#[test]
fn g6_server_binary_is_the_one_cargo_test_built() {
    assert_eq!(
        server_binary(),
        PathBuf::from(env!("CARGO_BIN_EXE_hexveil-server-e2e"))
    );
}
