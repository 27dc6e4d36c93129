//! What a frame of the client-server wire costs to encode and decode
//! (net/src/wire.rs): a game message to a player, 2 KiB padded (one
//! bucket before issue 30, two 1 KiB buckets now, G3), inside a
//! `ServerMessage::Game`. Run with
//! `cargo bench -p hexveil-server --bench wire`.

// criterion_group! generates an undocumented `pub fn benches`.
#![allow(missing_docs)]

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use hexveil_net::wire::ServerMessage;
use hexveil_protocol::GameId;

fn wire(c: &mut Criterion) {
    let msg = ServerMessage::Game {
        game_id: GameId([1; 16]),
        payload: (0..2048).map(|i| i as u8).collect(),
        more: false,
    };
    let frame = msg.encode().unwrap();
    c.bench_function("wire/game_2KiB/encode", |b| {
        b.iter(|| black_box(&msg).encode().unwrap())
    });
    c.bench_function("wire/game_2KiB/decode", |b| {
        b.iter(|| ServerMessage::decode(black_box(&frame)).unwrap())
    });
}

criterion_group!(benches, wire);
criterion_main!(benches);
