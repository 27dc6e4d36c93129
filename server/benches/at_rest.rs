//! What sealing the log at rest costs (server/src/at_rest.rs), against the
//! Ed25519 signature every entry already carries. Run with
//! `cargo bench -p hexveil-server --bench at_rest`; compare the ratios
//! within one run (the machines are shared and noisy).

// criterion_group! generates an undocumented `pub fn benches`.
#![allow(missing_docs)]

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use hexveil_protocol::{GameId, Identity};
use hexveil_server::at_rest::StorageKey;

fn at_rest(c: &mut Criterion) {
    let key = StorageKey::derive(&[7; 32], GameId([1; 16]));
    let id = Identity::from_seed(&[1; 32]).unwrap();
    // A typical log entry (an action or an opening with its audit path) and
    // a large one (a setup with its escrow).
    for len in [512usize, 64 * 1024] {
        let entry = vec![0x5au8; len];
        let sealed = key.seal(3, &entry);
        let mut g = c.benchmark_group(format!("at_rest/{len}B"));
        g.throughput(Throughput::Bytes(len as u64));
        g.bench_function("seal", |b| {
            b.iter(|| key.seal(black_box(3), black_box(&entry)))
        });
        g.bench_function("open", |b| {
            b.iter(|| key.open(black_box(3), black_box(&sealed)))
        });
        g.bench_function("ed25519_sign", |b| b.iter(|| id.sign(black_box(&entry))));
        g.finish();
    }
}

criterion_group!(benches, at_rest);
criterion_main!(benches);
