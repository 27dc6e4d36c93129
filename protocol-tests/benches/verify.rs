//! Offline verification of a transcript of 1,000 logged actions, next to
//! the raw cost of the Ed25519 verifies it must do (one per envelope, one
//! per receipt), measured in the same run. Run with
//! `cargo bench -p hexveil-protocol-tests --bench verify`.
//!
//! The game is played by the live session and two protocol players on the
//! example scenario (pads, the Secret dr for Dummies, setups, a step into
//! a minefield with openings and beacon rolls, then 1,000 more actions,
//! each with the server's ruling, a concession, both reveals), so the
//! verifier replays every ruling through the referee and the rules engine.

// criterion_group! generates an undocumented `pub fn benches`.
#![allow(missing_docs)]

#[path = "../tests/common/mod.rs"]
mod common;

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use hexveil_protocol::transcript::Transcript;
use hexveil_protocol::verifier::{check_receipt, verify, ReceiptForm, Verdict};

const ACTIONS: u32 = 1_000;

fn verify_transcript(c: &mut Criterion) {
    let g = common::honest_game(ACTIONS);
    let bytes = g.bytes();
    assert!(matches!(
        verify(&bytes, &hexveil_fixtures::rulesets()),
        Verdict::Clean(_)
    ));
    let n = g.entries.len() as u64;
    eprintln!("transcript: {} entries, {} bytes", n, bytes.len());

    let mut grp = c.benchmark_group("verify");
    grp.sample_size(10);
    grp.throughput(Throughput::Elements(n));
    grp.bench_function("parse_1000", |b| {
        b.iter(|| Transcript::parse(black_box(&bytes)).unwrap())
    });
    let server = g.ids[2].public_key();
    grp.bench_function("parse_receipts_signatures_1000", |b| {
        b.iter(|| {
            let t = Transcript::parse(black_box(&bytes)).unwrap();
            let mut prev = hexveil_protocol::envelope::genesis_head(&g.game);
            let form = ReceiptForm {
                server_entries: false,
                placed_by_next: true,
            };
            for (seq, e) in t.entries.iter().enumerate() {
                check_receipt(&server, form, seq as u64, &prev, e).unwrap();
                e.envelope.verify_signature().unwrap();
                prev = e.appended().new_head;
            }
            prev
        })
    });
    grp.bench_function("full_verify_1000", |b| {
        b.iter(|| verify(black_box(&bytes), &hexveil_fixtures::rulesets()))
    });
    // The floor: the Ed25519 verifies alone, over the same entries.
    grp.bench_function("raw_ed25519_envelope_verifies_1000", |b| {
        b.iter(|| {
            for e in &g.entries {
                e.envelope.verify_signature().unwrap();
            }
        })
    });
    grp.bench_function("raw_ed25519_envelope_and_receipt_verifies_1000", |b| {
        b.iter(|| {
            for e in &g.entries {
                e.envelope.verify_signature().unwrap();
                if let Some(receipt) = e.receipt {
                    receipt.verify(&server).unwrap();
                }
            }
        })
    });
    grp.finish();
}

criterion_group!(benches, verify_transcript);
criterion_main!(benches);
