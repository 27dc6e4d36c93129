//! Public data types survive postcard (wire, log) and JSON (human-readable
//! files) unchanged, so wire messages and transcripts can carry them (G5, G6).

use std::fmt::Debug;

use hexveil_protocol::beacon::{RollKind, RollRequest, RoundStatus};
use hexveil_protocol::encoding::{Digest, GameId, Party};
use hexveil_protocol::envelope::{genesis_head, Envelope, ForkProof, LogState, Receipt};
use hexveil_protocol::identity::Identity;
use hexveil_protocol::layout::{LayoutSeed, SealedLayout};
use hexveil_protocol::note::{NoteBook, NoteContent, NotesSeed};
use hexveil_protocol::pad::{Pad, PadSeed};
use hexveil_protocol::{DiceStream, RollSeed};
use serde::{de::DeserializeOwned, Serialize};

fn round_trip<T: Serialize + DeserializeOwned + PartialEq + Debug>(v: &T) {
    let bin = postcard::to_allocvec(v).unwrap();
    assert_eq!(&postcard::from_bytes::<T>(&bin).unwrap(), v);
    let json = serde_json::to_string(v).unwrap();
    assert_eq!(&serde_json::from_str::<T>(&json).unwrap(), v, "{json}");
}

/// Entry 0 of `game`, signed by `a`.
fn first_entry(a: &Identity, game: GameId) -> hexveil_protocol::envelope::SignedEnvelope {
    Envelope {
        version: 1,
        game_id: game,
        author: a.public_key(),
        seq: 0,
        prev_head: genesis_head(&game),
        body: b"body".to_vec(),
    }
    .sign(a)
}

#[test]
fn public_protocol_types_round_trip_postcard_and_json() {
    let game = GameId([1; 16]);
    let mut lay = SealedLayout::seal(
        game,
        Party::A,
        "ap",
        vec![("4E6".into(), [1; 8]), ("4E7".into(), [0; 8])],
        LayoutSeed([2; 32]),
    )
    .unwrap();
    round_trip(&lay.statement());
    round_trip(&lay.open("4E6").unwrap());
    round_trip(&lay.transition("4E7", [0; 8]).unwrap());
    round_trip(&lay.entries().to_vec());
    round_trip(lay.seed());

    let (c, o) = NoteBook::new(game, Party::B, NotesSeed([3; 32]))
        .unwrap()
        .seal(0, NoteContent::NULL);
    round_trip(&c);
    round_trip(&o);

    let pad = Pad::new(PadSeed([4; 32]), game, Party::Server, 0, 8).unwrap();
    round_trip(&pad.statement());
    round_trip(&pad.entry(5).unwrap());

    let a = Identity::from_seed(&[5; 32]).unwrap();
    let mut log = LogState::new(game, vec![a.public_key()]);
    let env = first_entry(&a, game);
    round_trip(&env);
    let receipt = Receipt::issue(&a, game, &log.append(&env).unwrap());
    round_trip(&receipt);
    round_trip(&ForkProof::Envelopes {
        first: env.clone(),
        second: env,
    });
    round_trip(&a.public_key());

    round_trip(&RollRequest {
        game_id: game,
        k: 1,
        action_hash: Digest([6; 32]),
        actor: Party::B,
        kind: RollKind::Secret,
    });
    round_trip(&RoundStatus::Complete(RollSeed([7; 32])));
    let mut dice = DiceStream::new(&RollSeed([8; 32]));
    round_trip(&dice.dr());
    round_trip(&dice.percentile());
}

#[test]
fn secret_seeds_are_not_printed_by_debug_g3() {
    let s = format!("{:?}", LayoutSeed([0xab; 32]));
    assert!(!s.contains("abab"), "{s}");
    assert!(!format!("{:?}", PadSeed([0xab; 32])).contains("abab"));
    assert!(!format!("{:?}", NotesSeed([0xab; 32])).contains("abab"));
}

/// PROTOCOL.md 6 and 14.2: a variant added to a wire enum goes last, so
/// every value an earlier build sends keeps its index (a second client
/// reads the indices from the document). Message version 6 added
/// `Logged::OwnPlacedByNext` (3) and `Attestation::Placed` (4).
#[test]
fn g5_wire_enum_indices_are_the_documented_ones() {
    use hexveil_protocol::attestation::Attestation;
    use hexveil_protocol::message::Logged;
    let game = GameId([1; 16]);
    let a = Identity::from_seed(&[5; 32]).unwrap();
    let env = first_entry(&a, game);
    let receipt = Receipt::issue(
        &a,
        game,
        &LogState::new(game, vec![a.public_key()])
            .append(&env)
            .unwrap(),
    );
    let index = |bytes: Vec<u8>| bytes[0];
    let logged = [
        Logged::Full {
            envelope: Box::new(env.clone()),
            receipt: None,
        },
        Logged::Own(Box::new(receipt)),
        Logged::Sealed {
            entry_hash: Digest([2; 32]),
        },
        Logged::OwnPlacedByNext {
            entry_hash: Digest([2; 32]),
        },
    ];
    for (i, l) in logged.iter().enumerate() {
        assert_eq!(index(postcard::to_allocvec(l).unwrap()), i as u8, "{l:?}");
        round_trip(l);
    }
    let placed = Attestation::Placed {
        envelope: env.clone(),
        by: Box::new(hexveil_protocol::attestation::Placer::ServerEntry(
            env.clone(),
        )),
    };
    let attestations = [
        Attestation::Receipt(receipt),
        Attestation::Entry {
            envelope: env.clone(),
            receipt,
        },
        Attestation::ServerEntry(env),
        placed,
    ];
    for (a, i) in attestations.iter().zip([0u8, 1, 3, 4]) {
        assert_eq!(index(postcard::to_allocvec(a).unwrap()), i, "{a:?}");
        round_trip(a);
    }
    // A placer is one level deep: a `Placed` inside a `Placed` does not
    // decode (no evidence file nests statements deeply).
    let env_bytes = {
        let Attestation::Entry { envelope, .. } = &attestations[1] else {
            unreachable!()
        };
        postcard::to_allocvec(envelope).unwrap()
    };
    let mut nested = vec![4u8];
    nested.extend_from_slice(&env_bytes);
    nested.push(4);
    nested.extend_from_slice(&env_bytes);
    nested.push(3);
    nested.extend_from_slice(&env_bytes);
    assert!(postcard::from_bytes::<Attestation>(&nested).is_err());
    let mut flat = vec![4u8];
    flat.extend_from_slice(&env_bytes);
    flat.push(3);
    flat.extend_from_slice(&env_bytes);
    assert!(postcard::from_bytes::<Attestation>(&flat).is_ok());
}
