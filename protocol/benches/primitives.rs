//! Costs of the protocol primitives against the raw crypto they are built
//! from (DESIGN 7 lists the reference figures). Run with
//! `cargo bench -p hexveil-protocol --bench primitives`.

// criterion_group! generates an undocumented `pub fn benches`.
#![allow(missing_docs)]

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use hexveil_protocol::beacon::{roll_seed, RollSeed};
use hexveil_protocol::dice::DiceStream;
use hexveil_protocol::encoding::{hmac_sha256, Digest, GameId, Party};
use hexveil_protocol::envelope::{Envelope, LogState, Receipt, SignedEnvelope, ENVELOPE_VERSION};
use hexveil_protocol::identity::Identity;
use hexveil_protocol::layout::{verify_opening, Content, LayoutSeed, SealedLayout};
use hexveil_protocol::message::{self, decode_to_server, LoggedEntry, ToServer};
use hexveil_protocol::pad::{Pad, PadSeed, PadValue};
use hexveil_protocol::transcript::{decode_entry, encode_entry};

const GAME: GameId = GameId([0x5a; 16]);

fn locations(n: usize) -> Vec<(String, Content)> {
    (0..n)
        .map(|i| {
            let mut c = [0u8; 8];
            if i % 37 == 0 {
                c[0] = 1;
                c[1] = 8;
            }
            (format!("{}{:05}", (b'A' + (i % 26) as u8) as char, i), c)
        })
        .collect()
}

fn raw(c: &mut Criterion) {
    let data = [7u8; 64];
    c.bench_function("raw/sha256_64B", |b| {
        b.iter(|| Digest::sha256(black_box(&data)))
    });
    let key = [3u8; 32];
    c.bench_function("raw/hmac_sha256_64B", |b| {
        b.iter(|| hmac_sha256(black_box(&key), black_box(&data)))
    });
    let id = Identity::from_seed(&[1; 32]).unwrap();
    let msg = [9u8; 160];
    c.bench_function("raw/ed25519_sign_160B", |b| {
        b.iter(|| id.sign(black_box(&msg)))
    });
    let sig = id.sign(&msg);
    let pk = id.public_key();
    c.bench_function("raw/ed25519_verify_160B", |b| {
        b.iter(|| pk.verify(black_box(&msg), black_box(&sig)))
    });
}

fn layouts(c: &mut Criterion) {
    let mut g = c.benchmark_group("layout/seal");
    g.sample_size(10);
    for n in [2_000usize, 20_000] {
        let locs = locations(n);
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::from_parameter(n), &locs, |b, locs| {
            // The input copy is made outside the timed part.
            b.iter_batched(
                || locs.clone(),
                |l| SealedLayout::seal(GAME, Party::A, "ap", l, LayoutSeed([4; 32])).unwrap(),
                BatchSize::LargeInput,
            )
        });
    }
    g.finish();
    let lay =
        SealedLayout::seal(GAME, Party::A, "ap", locations(20_000), LayoutSeed([4; 32])).unwrap();
    let st = lay.statement();
    let loc = lay.locations().nth(12_345).unwrap().to_string();
    c.bench_function("layout/open_and_verify_20k", |b| {
        b.iter(|| {
            let o = lay.open(black_box(&loc)).unwrap();
            verify_opening(&st, &loc, &o).unwrap()
        })
    });
    let o = lay.open(&loc).unwrap();
    c.bench_function("layout/verify_only_20k", |b| {
        b.iter(|| verify_opening(&st, &loc, black_box(&o)).unwrap())
    });
}

fn rolls(c: &mut Criterion) {
    let r = [PadValue([1; 32]), PadValue([2; 32]), PadValue([3; 32])];
    let action = Digest([9; 32]);
    c.bench_function("roll/seed_plus_dr", |b| {
        b.iter(|| {
            let s: RollSeed = roll_seed(&GAME, black_box(17), &action, [&r[0], &r[1], &r[2]]);
            DiceStream::new(&s).dr()
        })
    });
    let mut g = c.benchmark_group("pad");
    g.sample_size(10);
    g.bench_function("build_4096", |b| {
        b.iter(|| Pad::new(PadSeed([6; 32]), GAME, Party::B, 0, 4096).unwrap())
    });
    g.finish();
    // Releasing one entry derives its chunk of 64 entries again from the
    // seed (issue 16: the pad keeps only the upper levels of its tree).
    let pad = Pad::new(PadSeed([6; 32]), GAME, Party::B, 0, 4096).unwrap();
    c.bench_function("pad/entry_of_4096", |b| {
        b.iter(|| pad.entry(black_box(1234)).unwrap())
    });
}

/// The first entry of a log of `a`'s, signed by `a`, with `body`.
fn first_entry(a: &Identity, log: &LogState, body: Vec<u8>) -> SignedEnvelope {
    Envelope {
        version: ENVELOPE_VERSION,
        game_id: GAME,
        author: a.public_key(),
        seq: 0,
        prev_head: log.head(),
        body,
    }
    .sign(a)
}

fn envelopes(c: &mut Criterion) {
    let a = Identity::from_seed(&[1; 32]).unwrap();
    let log = LogState::new(GAME, vec![a.public_key()]);
    let env = first_entry(&a, &log, vec![0x42; 64]);
    c.bench_function("envelope/check", |b| {
        b.iter(|| log.check(black_box(&env)).unwrap())
    });
}

/// A log entry's encoding and decoding, and a player's submission's
/// decoding, with a body of a typical declaration's size: the byte strings
/// inside them are what postcard writes and reads on the hot path
/// (issue 16).
fn entries(c: &mut Criterion) {
    let a = Identity::from_seed(&[1; 32]).unwrap();
    let server = Identity::from_seed(&[2; 32]).unwrap();
    let mut log = LogState::new(GAME, vec![a.public_key()]);
    let env = first_entry(&a, &log, (0..400).map(|i| i as u8).collect());
    let appended = log.append(&env).unwrap();
    let entry = LoggedEntry {
        receipt: Some(Receipt::issue(&server, GAME, &appended)),
        envelope: env.clone(),
    };
    let bytes = encode_entry(&entry);
    c.bench_function("entry/encode_400B", |b| {
        b.iter(|| encode_entry(black_box(&entry)))
    });
    c.bench_function("entry/decode_400B", |b| {
        b.iter(|| decode_entry(black_box(&bytes)).unwrap())
    });
    let submit = message::encode(&ToServer::Submit(env));
    c.bench_function("submit/decode_400B", |b| {
        b.iter(|| decode_to_server(black_box(&submit)).unwrap())
    });
}

criterion_group!(benches, raw, layouts, rolls, envelopes, entries);
criterion_main!(benches);
