//! What the client's binary tests share: running `hexveil`, reading its
//! output, the examples folder, a demo transcript, transcript offsets.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

/// Runs the `hexveil` binary cargo built for these tests.
pub fn hexveil(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hexveil"))
        .args(args)
        .output()
        .expect("the hexveil binary runs")
}

/// Its standard output, as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Its standard error, as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The repository's `examples/` folder.
pub fn examples_dir() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples"))
}

/// A file under `examples/`, as a path string.
pub fn examples(name: &str) -> String {
    examples_dir().join(name).to_str().unwrap().to_string()
}

/// Plays the demo of `ruleset` into `<dir>/<ruleset>.transcript`; its path.
pub fn demo(dir: &Path, ruleset: &str) -> String {
    let file = dir.join(format!("{ruleset}.transcript"));
    let f = file.to_str().unwrap().to_string();
    let out = hexveil(&["demo", "--ruleset", ruleset, "--out", &f]);
    assert!(out.status.success(), "{}\n{}", stdout(&out), stderr(&out));
    f
}

/// Offsets where each entry of a transcript file starts (after the 10-byte
/// header).
pub fn entry_starts(bytes: &[u8]) -> Vec<usize> {
    let mut at = 10;
    let mut out = vec![];
    while at + 4 <= bytes.len() {
        out.push(at);
        at += 4 + u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    }
    out
}
