//! Every decoder, round-tripped and fed hostile bytes (G6): what the
//! encoder writes decodes to the same value, and arbitrary input gets an
//! error, never a panic. The cargo-fuzz targets in `fuzz/` run the same
//! decoders for longer.

mod common;

use common::{honest_game, set_up_game, Game};
use hexveil_asl::content::{self, CONTENT_LEN};
use hexveil_asl::model::sealed::{ApStrength, AtFactors, BoobyLevel, Content, DaisyNote};
use hexveil_asl::model::unit::UnitId;
use hexveil_asl::standing_orders::{self, DaisyOrder};
use hexveil_asl::{Hex, Side};
use hexveil_protocol::encoding::{tag, Digest, GameId, Party, TupleDecoder, TupleEncoder};
use hexveil_protocol::envelope::{Envelope, Receipt, SignedEnvelope};
use hexveil_protocol::identity::{Identity, PublicKey, Signature};
use hexveil_protocol::layout::{LayoutSeed, RootStatement, SealedLayout, Transition};
use hexveil_protocol::message::{
    decode_padded, decode_to_server, encode, encode_padded, Body, EndRecord, EscrowBody, Genesis,
    LayerReveal, Mode, OpenedFact, RevealBody, SetupBody, ToClient, ToServer, MAX_BODY_LEN,
    PAD_BUCKET,
};
use hexveil_protocol::note::{NoteBook, NoteContent, NotesSeed};
use hexveil_protocol::pad::{Pad, PadSeed};
use hexveil_protocol::transcript::{
    decode_entry, encode_entry, EntryProblem, FormatError, StreamReader, Transcript,
    TranscriptWriter, HEADER_LEN, MAX_ENTRY_LEN,
};
use proptest::prelude::*;

const GAME: GameId = GameId([0x77; 16]);

fn content_strategy() -> impl Strategy<Value = Content> {
    prop_oneof![
        Just(Content::Empty),
        Just(Content::Dummy),
        prop::sample::select(vec![ApStrength::Six, ApStrength::Eight, ApStrength::Twelve])
            .prop_map(Content::ApMines),
        (1u8..=5).prop_map(|f| Content::AtMines(AtFactors::new(f).unwrap())),
        prop::sample::select(vec![BoobyLevel::A, BoobyLevel::B, BoobyLevel::C])
            .prop_map(Content::BoobyTraps),
        Just(Content::Daisy(DaisyNote::Nothing)),
        (any::<u16>(), 1u16..=50, 0u8..10, 1u8..=10).prop_filter_map(
            "a valid hex",
            |(holder, board, col, row)| {
                let name = format!("{board}{}{row}", (b'A' + col) as char);
                let hex: Hex = name.parse().ok()?;
                Some(Content::Daisy(DaisyNote::Placed {
                    holder: UnitId(holder),
                    hex,
                }))
            }
        ),
    ]
}

proptest! {
    /// content::decode(encode(c)) == c, and only canonical bytes decode.
    #[test]
    fn content_round_trips_and_is_canonical(c in content_strategy(), bytes in any::<[u8; CONTENT_LEN]>()) {
        prop_assert_eq!(content::decode(&content::encode(&c)), Ok(c));
        if let Ok(d) = content::decode(&bytes) {
            prop_assert_eq!(content::encode(&d), bytes);
        }
    }
}

#[derive(Clone, Debug)]
enum Field {
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    Digest([u8; 32]),
    Party(u8),
    Bytes(Vec<u8>),
    Str(String),
}

fn field() -> impl Strategy<Value = Field> {
    prop_oneof![
        any::<u8>().prop_map(Field::U8),
        any::<u16>().prop_map(Field::U16),
        any::<u32>().prop_map(Field::U32),
        any::<u64>().prop_map(Field::U64),
        any::<[u8; 32]>().prop_map(Field::Digest),
        (0u8..3).prop_map(Field::Party),
        prop::collection::vec(any::<u8>(), 0..64).prop_map(Field::Bytes),
        ".{0,20}".prop_map(Field::Str),
    ]
}

proptest! {
    /// TupleDecoder reads back exactly what TupleEncoder wrote, and every
    /// strict prefix is refused (a length never reads past the end).
    #[test]
    fn tuple_round_trips_and_prefixes_fail(fields in prop::collection::vec(field(), 0..8), t in 0usize..tag::ALL.len()) {
        let domain = tag::ALL[t];
        let mut e = TupleEncoder::new(domain);
        for f in &fields {
            e = match f {
                Field::U8(v) => e.u8(*v),
                Field::U16(v) => e.u16(*v),
                Field::U32(v) => e.u32(*v),
                Field::U64(v) => e.u64(*v),
                Field::Digest(v) => e.digest(&Digest(*v)),
                Field::Party(v) => e.party(Party::try_from(*v).unwrap()),
                Field::Bytes(v) => e.var_bytes(v),
                Field::Str(v) => e.str(v),
            };
        }
        let bytes = e.finish();
        let read = |bytes: &[u8]| -> Result<(), hexveil_protocol::encoding::DecodeError> {
            let mut d = TupleDecoder::new(bytes, domain)?;
            for f in &fields {
                match f {
                    Field::U8(v) => assert_eq!(d.u8()?, *v),
                    Field::U16(v) => assert_eq!(d.u16()?, *v),
                    Field::U32(v) => assert_eq!(d.u32()?, *v),
                    Field::U64(v) => assert_eq!(d.u64()?, *v),
                    Field::Digest(v) => assert_eq!(d.digest()?.0, *v),
                    Field::Party(v) => assert_eq!(d.party()?.as_byte(), *v),
                    Field::Bytes(v) => assert_eq!(d.var_bytes()?, v.as_slice()),
                    Field::Str(v) => assert_eq!(d.str()?, v.as_str()),
                }
            }
            d.finish()
        };
        prop_assert_eq!(read(&bytes), Ok(()));
        for cut in 0..bytes.len() {
            prop_assert!(read(&bytes[..cut]).is_err());
        }
    }

    /// A hostile length prefix in a tuple is refused without reading past
    /// the end or allocating (G6).
    #[test]
    fn tuple_hostile_length_is_refused(len in any::<u32>(), tail in prop::collection::vec(any::<u8>(), 0..32)) {
        let mut bytes = TupleEncoder::new(tag::LEAF).finish();
        bytes.extend_from_slice(&len.to_be_bytes());
        bytes.extend_from_slice(&tail);
        let mut d = TupleDecoder::new(&bytes, tag::LEAF).unwrap();
        let r = d.var_bytes();
        prop_assert_eq!(r.is_ok(), len as usize <= tail.len());
    }
}

fn envelope_strategy() -> impl Strategy<Value = (Envelope, u8)> {
    (
        any::<u16>(),
        any::<[u8; 16]>(),
        any::<u64>(),
        any::<[u8; 32]>(),
        prop::collection::vec(any::<u8>(), 0..256),
        1u8..=255,
    )
        .prop_map(|(version, g, seq, prev, body, key)| {
            let id = Identity::from_seed(&[key; 32]).unwrap();
            (
                Envelope {
                    version,
                    game_id: GameId(g),
                    author: id.public_key(),
                    seq,
                    prev_head: Digest(prev),
                    body,
                },
                key,
            )
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

    /// Envelope::decode(signing_bytes) == envelope; a SignedEnvelope goes
    /// through postcard unchanged and still verifies (G5).
    #[test]
    fn envelope_round_trips((env, key) in envelope_strategy()) {
        prop_assert_eq!(Envelope::decode(&env.signing_bytes()), Ok(env.clone()));
        let signed = env.sign(&Identity::from_seed(&[key; 32]).unwrap());
        let wire = encode(&signed);
        let back: SignedEnvelope = postcard::from_bytes(&wire).unwrap();
        prop_assert!(back.verify_signature().is_ok());
        prop_assert_eq!(back, signed.clone());
        let msg = ToServer::Submit(signed);
        let back = decode_to_server(&encode(&msg)).unwrap();
        prop_assert_eq!(format!("{back:?}"), format!("{msg:?}"));
    }
}

fn pk(b: u8) -> PublicKey {
    Identity::from_seed(&[b; 32]).unwrap().public_key()
}

fn body_strategy() -> impl Strategy<Value = Body> {
    let pad = Pad::new(PadSeed([5; 32]), GAME, Party::A, 0, 64).unwrap();
    let layout = SealedLayout::seal(
        GAME,
        Party::B,
        "ap",
        (1..=12)
            .map(|i| (format!("3E{i}"), content::encode(&Content::Empty)))
            .collect(),
        LayoutSeed([6; 32]),
    )
    .unwrap();
    let entries: Vec<_> = (0..8).map(|i| pad.entry(i).unwrap()).collect();
    let openings: Vec<_> = layout
        .locations()
        .take(8)
        .map(|l| layout.open(l).unwrap())
        .collect();
    let book = NoteBook::new(GAME, Party::B, NotesSeed([4; 32])).unwrap();
    let pad_st = pad.statement();
    let root = layout.statement();
    prop_oneof![
        (
            ".{0,40}",
            any::<[u8; 32]>(),
            1u8..=255,
            1u8..=255,
            any::<u32>(),
            any::<u64>()
        )
            .prop_map(
                move |(scenario_toml, h, a, b, pad_len, t)| Body::Genesis(Genesis {
                    message_version: 2,
                    ruleset: if t % 3 == 0 { "asl" } else { "minis" }.into(),
                    ruleset_version: (t % 5) as u32,
                    scenario_toml: scenario_toml.into(),
                    scenario_hash: Digest(h),
                    players: [pk(a), pk(b)],
                    server: pk(a ^ b),
                    mode: if t % 2 == 0 { Mode::Live } else { Mode::Escrow },
                    pad_len,
                    answer_timeout_ms: t,
                    server_pad: pad_st,
                })
            ),
        Just(Body::Pad(pad_st)),
        (
            ".{0,40}",
            prop::collection::vec(("[a-z]{1,8}", any::<u64>()), 0..4),
            prop::option::of((
                prop::collection::vec(("[a-z]{1,8}", any::<[u8; 32]>(), any::<[u8; 8]>()), 0..3),
                any::<[u8; 32]>(),
                prop::collection::vec((any::<u16>(), any::<u8>()), 0..3),
            ))
        )
            .prop_map(
                move |(public_setup_toml, layers, escrow)| Body::Setup(SetupBody {
                    public_setup_toml,
                    roots: layers
                        .into_iter()
                        .map(|(layer, n)| RootStatement {
                            layer,
                            n_leaves: n,
                            ..root.clone()
                        })
                        .collect(),
                    // DESIGN 3.6: an Escrow game's setup carries the owner's
                    // secrets; its decoder must round-trip them too.
                    escrow: escrow.map(|(layers, notes_seed, orders)| EscrowBody {
                        layers: layers
                            .into_iter()
                            .map(|(layer, seed, content)| LayerReveal {
                                layer,
                                seed,
                                contents: vec![("3E4".into(), content)],
                            })
                            .collect(),
                        notes_seed,
                        orders: standing_orders::encode(
                            &orders
                                .into_iter()
                                .map(|(u, c)| DaisyOrder {
                                    holder: UnitId(u),
                                    hex: format!("3E{}", 1 + c % 9).parse().unwrap(),
                                })
                                .collect::<Vec<_>>(),
                        ),
                    }),
                })
            ),
        prop::sample::select(entries).prop_map(Body::Entry),
        (
            prop::sample::subsequence(openings.clone(), 0..4),
            any::<u64>(),
            any::<[u8; 16]>()
        )
            .prop_map(move |(os, seq, note)| {
                let (commitment, opening) = book.seal(seq, NoteContent(note));
                let mut v: Vec<OpenedFact> = os.into_iter().map(OpenedFact::Leaf).collect();
                v.push(OpenedFact::Note {
                    commitment,
                    opening,
                });
                Body::Open(v)
            }),
        (
            prop::sample::select(openings),
            content_strategy(),
            any::<[u8; 32]>()
        )
            .prop_map(|(old, c, salt)| Body::Transitions(vec![Transition {
                old,
                new_content: content::encode(&c),
                new_salt: hexveil_protocol::layout::Salt(salt),
            }])),
        (0u8..3, ".{0,40}").prop_map(|(p, request)| Body::Timeout {
            party: Party::try_from(p).unwrap(),
            request
        }),
        Just(Body::Concede),
        (
            proptest::option::of(prop::sample::select(vec![Side::A, Side::B])),
            ".{0,40}"
        )
            .prop_map(|(winner, reason)| Body::End(EndRecord { winner, reason })),
        (
            prop::collection::vec(
                (
                    "[a-z]{1,6}",
                    any::<[u8; 32]>(),
                    prop::collection::vec(("[0-9A-Z]{1,6}", any::<[u8; 8]>()), 0..6)
                ),
                0..3
            ),
            any::<[u8; 32]>(),
            any::<[u8; 32]>()
        )
            .prop_map(|(layers, notes_seed, pad)| Body::Reveal(RevealBody {
                layers: layers
                    .into_iter()
                    .map(|(layer, seed, contents)| LayerReveal {
                        layer,
                        seed,
                        contents
                    })
                    .collect(),
                notes_seed,
                pad_seed: PadSeed(pad),
            })),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, .. ProptestConfig::default() })]

    /// Body::decode(encode(b)) == b, and trailing bytes are refused.
    #[test]
    fn body_round_trips(b in body_strategy(), extra in any::<u8>()) {
        let bytes = encode(&b);
        prop_assert_eq!(Body::decode(&bytes), Ok(b));
        let mut longer = bytes;
        longer.push(extra);
        prop_assert!(Body::decode(&longer).is_err());
    }

    /// A padded server message decodes to itself, its size is a multiple
    /// of the bucket (G3), and non-zero padding is refused.
    #[test]
    fn padded_round_trips(reason in ".{0,3000}", blob in prop::collection::vec(any::<u8>(), 0..5000), which in 0u8..3) {
        let msg = match which {
            0 => ToClient::Rejected(hexveil_protocol::envelope::Refusal {
                game_id: GAME,
                seq: blob.len() as u64,
                entry_hash: Digest([3; 32]),
                reason,
                sig: Signature([4; 64]),
            }),
            1 => ToClient::Transcript(blob),
            _ => ToClient::Receipt(Receipt {
                game_id: GAME,
                seq: blob.len() as u64,
                entry_hash: Digest([1; 32]),
                new_head: Digest([2; 32]),
                sig: Signature([3; 64]),
            }),
        };
        let bytes = encode_padded(&msg);
        prop_assert_eq!(bytes.len() % PAD_BUCKET, 0);
        // The smallest multiple that holds the prefix and the message.
        prop_assert_eq!(bytes.len(), (4 + encode(&msg).len()).div_ceil(PAD_BUCKET) * PAD_BUCKET);
        let back = decode_padded(&bytes).unwrap();
        prop_assert_eq!(format!("{back:?}"), format!("{msg:?}"));
        // Issue 30: the same message padded to the former 2 KiB bucket
        // decodes to the same value.
        let mut former = bytes.clone();
        former.resize(bytes.len().div_ceil(FORMER_PAD_BUCKET) * FORMER_PAD_BUCKET, 0);
        prop_assert_eq!(format!("{:?}", decode_padded(&former).unwrap()), format!("{msg:?}"));
        let mut dirty = bytes.clone();
        let len = u32::from_be_bytes(bytes[..4].try_into().unwrap()) as usize;
        if 4 + len < dirty.len() {
            *dirty.last_mut().unwrap() = 1;
            prop_assert!(decode_padded(&dirty).is_err());
        }
    }

    /// Arbitrary bytes get an error or a value from every decoder, never a
    /// panic (G6); the same bytes as a transcript give a verdict.
    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let _ = Body::decode(&bytes);
        let _ = decode_to_server(&bytes);
        let _ = decode_padded(&bytes);
        let _ = Envelope::decode(&bytes);
        let _ = postcard::from_bytes::<SignedEnvelope>(&bytes);
        let _ = decode_entry(&bytes);
        let mut file = hexveil_protocol::transcript::MAGIC.to_vec();
        file.extend_from_slice(&1u16.to_be_bytes());
        file.extend_from_slice(&bytes);
        let _ = Transcript::parse(&file);
        let _ = hexveil_protocol::verifier::verify(&file, &hexveil_fixtures::rulesets());
    }
}

/// The bucket before issue 30 (PROTOCOL.md 14.2).
const FORMER_PAD_BUCKET: usize = 2048;

/// Issue 30 (G3, PROTOCOL.md 14.2): a message of play padded to the new
/// 1 KiB bucket and the same message padded to the former 2 KiB bucket
/// both decode, so a client and a server of either side of the change
/// read each other's padded messages; nothing checks the multiple.
#[test]
fn g3_padded_to_the_former_bucket_and_to_the_new_one_both_decode() {
    let msg = ToClient::Receipt(Receipt {
        game_id: GAME,
        seq: 7,
        entry_hash: Digest([1; 32]),
        new_head: Digest([2; 32]),
        sig: Signature([3; 64]),
    });
    let new = encode_padded(&msg);
    assert_eq!(new.len(), PAD_BUCKET);
    assert_eq!(PAD_BUCKET, 1024);
    // What a server before issue 30 sent: the same prefix and message,
    // zeros to 2,048.
    let mut former = new.clone();
    former.resize(FORMER_PAD_BUCKET, 0);
    for bytes in [&new, &former] {
        let back = decode_padded(bytes).unwrap();
        assert_eq!(
            format!("{back:?}"),
            format!("{msg:?}"),
            "{} bytes",
            bytes.len()
        );
    }
    // Only the padding's zeros are free: a non-zero byte in the former
    // bucket's tail is still refused.
    let mut dirty = former;
    dirty[FORMER_PAD_BUCKET - 1] = 1;
    assert!(decode_padded(&dirty).is_err());
}

/// A postcard sequence length far beyond the input is refused without
/// allocating for it (serde caps preallocation; postcard checks the bytes).
#[test]
fn hostile_postcard_lengths_are_refused_g6() {
    // Body::Open (variant 5) claiming u64::MAX / 2 openings.
    let mut bytes = vec![5u8];
    let mut n: u64 = u64::MAX / 2;
    while n >= 0x80 {
        bytes.push((n as u8) | 0x80);
        n >>= 7;
    }
    bytes.push(n as u8);
    assert!(Body::decode(&bytes).is_err());
    // A body over the limit is refused before decoding.
    let big = vec![0u8; MAX_BODY_LEN + 1];
    assert!(matches!(
        Body::decode(&big),
        Err(hexveil_protocol::message::MessageError::TooLong { .. })
    ));
}

#[test]
fn transcript_round_trips_through_both_readers() {
    let g = honest_game(3);
    let bytes = g.bytes();
    let t = Transcript::parse(&bytes).unwrap();
    assert_eq!(t.entries.len(), g.entries.len());
    assert_eq!(t.to_bytes().unwrap(), bytes);
    let mut r = StreamReader::new(bytes.as_slice()).unwrap();
    let mut n = 0;
    while let Some(e) = r.next_entry().unwrap() {
        assert_eq!(encode_entry(&e), encode_entry(&g.entries[n]));
        n += 1;
    }
    assert_eq!(n, g.entries.len());
}

#[test]
fn transcript_readers_refuse_hostile_and_truncated_entries_g6() {
    let g = set_up_game();
    let bytes = g.bytes();
    let first_len = u32::from_be_bytes(bytes[HEADER_LEN..HEADER_LEN + 4].try_into().unwrap());
    let second = HEADER_LEN + 4 + first_len as usize;
    // Entry 1 claims 4 GiB: refused by length, before any allocation.
    let mut hostile = bytes.clone();
    hostile[second..second + 4].copy_from_slice(&u32::MAX.to_be_bytes());
    let e = Transcript::parse(&hostile).unwrap_err();
    assert_eq!(
        e,
        FormatError::Entry {
            index: 1,
            problem: EntryProblem::TooLong {
                len: u64::from(u32::MAX),
                max: MAX_ENTRY_LEN
            }
        }
    );
    let mut r = StreamReader::new(hostile.as_slice()).unwrap();
    r.next_entry().unwrap().unwrap();
    assert!(r.next_entry().is_err());
    // Entry 1 claims just under the limit, more than the file holds.
    let mut long = bytes.clone();
    long[second..second + 4].copy_from_slice(&(MAX_ENTRY_LEN as u32).to_be_bytes());
    assert!(matches!(
        Transcript::parse(&long),
        Err(FormatError::Entry {
            index: 1,
            problem: EntryProblem::Truncated { .. }
        })
    ));
    // Entry 1's bytes are garbage of the right length.
    let mut garbage = bytes.clone();
    for b in &mut garbage[second + 4..second + 12] {
        *b = 0xff;
    }
    assert!(matches!(
        Transcript::parse(&garbage),
        Err(FormatError::Entry {
            index: 1,
            problem: EntryProblem::Malformed(_)
        })
    ));
}

#[test]
fn the_writer_refuses_an_oversized_entry_and_writes_nothing_g6() {
    let mut g: Game = set_up_game().truncate(1);
    let env = g.envelope(Party::A, vec![0u8; MAX_ENTRY_LEN]);
    g.push_signed(env);
    let mut w = TranscriptWriter::new(Vec::new()).unwrap();
    w.append(&g.entries[0]).unwrap();
    let before = w.len();
    let err = w.append(&g.entries[1]).unwrap_err();
    assert!(matches!(
        err,
        hexveil_protocol::transcript::TranscriptError::Format(FormatError::Entry {
            index: 1,
            problem: EntryProblem::Oversized { .. }
        })
    ));
    assert_eq!(w.len(), before);
    let bytes = w.into_inner();
    assert_eq!(Transcript::parse(&bytes).unwrap().entries.len(), 1);
}

/// Every body the message layer accepts fits in a transcript entry, so the
/// writer never refuses an entry the referee accepted.
#[test]
fn an_entry_with_the_largest_body_fits_the_entry_limit() {
    let mut g: Game = set_up_game().truncate(1);
    let env = g.envelope(Party::A, vec![0xab; MAX_BODY_LEN]);
    g.push_signed(env);
    let len = hexveil_protocol::transcript::encode_entry(&g.entries[1]).len();
    assert!(len <= MAX_ENTRY_LEN, "{len} > {MAX_ENTRY_LEN}");
    let bytes = g.bytes();
    assert_eq!(Transcript::parse(&bytes).unwrap().entries.len(), 2);
}

/// G5 (one game, one transcript, PROTOCOL.md 11): a body, an entry or an
/// action written with a non-minimal varint decodes to a value whose
/// canonical bytes differ, so it is refused with an error that says so.
#[test]
fn non_canonical_encodings_are_refused_g5() {
    // postcard.body.act_move with the Body variant index 3 as `83 00`.
    let canonical = hex::decode("030a000203c8010334453601").unwrap();
    assert!(Body::decode(&canonical).is_ok());
    let mut lax = vec![0x83, 0x00];
    lax.extend_from_slice(&canonical[1..]);
    let err = Body::decode(&lax).unwrap_err();
    assert!(
        matches!(
            err,
            hexveil_protocol::message::MessageError::NotCanonical { .. }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("not canonically encoded"), "{err}");
    // The ASL action inside: UnitId(200) as `c8 81 00` instead of `c8 01`.
    let action = hex::decode("000203c8810003344536").unwrap();
    let err = hexveil_asl::model::action::decode_action(&[action.as_slice(), &[0x01]].concat())
        .unwrap_err();
    assert!(err.contains("canonical"), "{err}");
    // A logged entry whose receipt seq is a non-minimal varint.
    let game = honest_game(1);
    let entry = game.entries.iter().find(|e| e.receipt.is_some()).unwrap();
    let bytes = encode_entry(entry);
    assert!(decode_entry(&bytes).is_ok());
    let receipt = entry.receipt.unwrap();
    assert!(receipt.seq < 0x80);
    let seq_at = bytes.len() - encode(&receipt).len() + 16; // after the receipt's game id
    assert_eq!(
        u64::from(bytes[seq_at]),
        receipt.seq,
        "a receipt seq under 128 is one varint byte"
    );
    let mut lax = bytes.clone();
    lax.splice(seq_at..seq_at + 1, [0x81, 0x00]);
    assert!(matches!(
        decode_entry(&lax),
        Err(hexveil_protocol::message::MessageError::NotCanonical { .. })
    ));
}
