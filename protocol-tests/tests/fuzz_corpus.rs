//! The fuzz targets' seed corpus, replayed on stable as ordinary tests
//! (G5, G6): every file of `fuzz/seeds/<target>/` goes through the very
//! function its cargo-fuzz target calls ([`hexveil_protocol_tests::fuzz`]),
//! so a crash the fuzzers found (saved there as a seed) stays fixed.
//!
//! The seeds are made from a real game's entries by
//! `cargo test -p hexveil-protocol-tests --test fuzz_corpus -- --ignored write_seed_corpus`
//! (see `fuzz/README.md`).

use hexveil_protocol_tests::fuzz::{seed_corpus, TARGETS};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz")
}

fn seeds(target: &str) -> Vec<PathBuf> {
    let dir = fuzz_dir().join("seeds").join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

/// G6: every committed seed (and every crash input saved beside them) gets
/// through its target's checks without a panic.
#[test]
fn g6_every_seed_replays_through_its_fuzz_target() {
    let mut total = 0;
    for (name, check) in TARGETS {
        let files = seeds(name);
        assert!(!files.is_empty(), "fuzz/seeds/{name}/ has no seed");
        for f in files {
            let data = std::fs::read(&f).unwrap();
            let run = std::panic::catch_unwind(|| check(&data));
            assert!(run.is_ok(), "{name} panicked on {}", f.display());
            total += 1;
        }
    }
    assert!(total >= TARGETS.len());
}

/// The targets here are the binaries of `fuzz/Cargo.toml`, one for one.
#[test]
fn every_fuzz_binary_has_its_check_and_seeds() {
    let manifest = std::fs::read_to_string(fuzz_dir().join("Cargo.toml")).unwrap();
    let bins: BTreeSet<String> = manifest
        .split("[[bin]]")
        .skip(1)
        .filter_map(|b| {
            let line = b.lines().find(|l| l.trim_start().starts_with("name"))?;
            Some(line.split('"').nth(1)?.to_string())
        })
        .collect();
    let ours: BTreeSet<String> = TARGETS.iter().map(|(n, _)| n.to_string()).collect();
    assert_eq!(bins, ours);
    let made: BTreeSet<&str> = seed_corpus().iter().map(|(n, _)| *n).collect();
    assert_eq!(
        made.len(),
        TARGETS.len(),
        "a seed for every target: {made:?}"
    );
}

/// Writes the seed corpus (made from a real game's entries) into
/// `fuzz/seeds/<target>/`, one file per input named by its SHA-256 prefix.
/// Run by hand after a change to the encodings; files already there (and
/// crash inputs saved beside them) are kept.
#[test]
#[ignore = "writes fuzz/seeds/: run by hand (see fuzz/README.md)"]
fn write_seed_corpus() {
    for (name, data) in seed_corpus() {
        let dir = fuzz_dir().join("seeds").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        let digest = ring::digest::digest(&ring::digest::SHA256, &data);
        let file = dir.join(hex::encode(&digest.as_ref()[..8]));
        std::fs::write(&file, &data).unwrap();
    }
}
