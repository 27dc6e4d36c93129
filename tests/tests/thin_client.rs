//! The player's `hexveil` is a thin client (issue 28): built without the
//! `demo` feature, as `hexveil-e2e` is here, it holds no server, and
//! `hexveil demo` says in words how to run the demo instead of failing
//! obscurely. (`.ci/run` checks its dependency tree.)

use hexveil_tests::built_binary;
use std::process::Command;

/// Issue 28: `hexveil demo` in a build without the demo's server names the
/// command that has one, exits 2 (could not start) and plays nothing.
#[test]
fn issue28_demo_without_its_server_says_how_to_run_it() {
    let out = Command::new(built_binary("hexveil-e2e"))
        .arg("demo")
        .output()
        .expect("the client binary runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr}");
    assert!(
        stderr.contains("cargo run --release -p hexveil --features demo -- demo"),
        "stderr: {stderr}"
    );
    assert!(out.stdout.is_empty(), "nothing is played: {:?}", out.stdout);
}
