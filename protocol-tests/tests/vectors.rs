//! Test vectors of PROTOCOL.md, recomputed from the code (G5: a second
//! client can be written from the document alone, and the document cannot
//! drift from the code).
//!
//! Every line of PROTOCOL.md of the form `vector <name>: <value>` (inside or
//! outside code blocks) is compared with the value computed here, and every
//! value computed here must appear in the document.

use std::collections::BTreeMap;
use std::path::Path;

use hexveil_asl::model::sealed::{BoobyLevel, Content as CoreContent, DaisyNote};
use hexveil_asl::model::unit::UnitId;
use hexveil_asl::{Action, Hex, MoveMode};
use hexveil_protocol::beacon::{nonce_roll_seed, roll_seed, secret_roll_seed};
use hexveil_protocol::dice::DiceStream;
use hexveil_protocol::encoding::{Digest, GameId, Party};
use hexveil_protocol::envelope::{
    genesis_head, next_head, Envelope, Receipt, Refusal, ENVELOPE_VERSION,
};
use hexveil_protocol::identity::{Identity, PublicKey, Signature};
use hexveil_protocol::layout::{
    derive_salt, leaf_data, verify_opening, verify_transition, Content, LayoutSeed, SealedLayout,
};
use hexveil_protocol::merkle;
use hexveil_protocol::message::{self, Body, ToClient, ToServer};
use hexveil_protocol::note::{NoteBook, NoteContent, NotesSeed};
use hexveil_protocol::pad::{pad_value, verify_pad_entry, Pad, PadSeed, PadValue};

const GAME: &str = "00112233445566778899aabbccddeeff";

fn seq32(start: u8) -> [u8; 32] {
    std::array::from_fn(|i| start.wrapping_add(i as u8))
}

fn content(s: &str) -> Content {
    hex::decode(s).unwrap().try_into().unwrap()
}

fn computed() -> BTreeMap<String, String> {
    let mut v = BTreeMap::new();
    let mut put = |k: &str, val: String| {
        assert!(v.insert(k.to_string(), val).is_none(), "duplicate {k}");
    };
    let game: GameId = GAME.parse().unwrap();

    // Inputs (so the document's inputs cannot drift either).
    let layout_seed = LayoutSeed(seq32(0x00));
    let notes_seed = NotesSeed(seq32(0x20));
    let pad_seeds = [
        PadSeed(seq32(0x40)),
        PadSeed(seq32(0x60)),
        PadSeed(seq32(0x80)),
    ];
    let key_a = Identity::from_seed(&seq32(0xa0)).unwrap();
    let key_s = Identity::from_seed(&seq32(0xc0)).unwrap();
    put("input.game_id", game.to_string());
    put("input.layout_seed", hex::encode(layout_seed.0));
    put("input.notes_seed", hex::encode(notes_seed.0));
    for (p, s) in Party::ALL.iter().zip(&pad_seeds) {
        put(&format!("input.pad_seed.{p}"), hex::encode(s.0));
    }
    put("input.key_seed.A", hex::encode(seq32(0xa0)));
    put("input.key_seed.server", hex::encode(seq32(0xc0)));

    // Encoding.
    put("sha256.empty", Digest::sha256(b"").to_string());

    // Sealed layout (3.1): side A, layer "ap", three locations.
    let mine = content("0108000000000000"); // caller's encoding: kind 1 (A-P), strength 8
    let none = content("0000000000000000");
    let locs = vec![
        ("board4".to_string(), none),
        ("4E6".to_string(), mine),
        ("4E7".to_string(), none),
    ];
    let mut lay = SealedLayout::seal(game, Party::A, "ap", locs, layout_seed).unwrap();
    let salt = derive_salt(&layout_seed, &game, Party::A, "ap", "4E6", 0);
    put("layout.salt.4E6.v0", salt.to_string());
    let data = leaf_data(&game, Party::A, "ap", "4E6", 0, &mine, &salt);
    put("layout.leaf_data.4E6.v0", hex::encode(&data));
    put(
        "layout.leaf_hash.4E6.v0",
        merkle::leaf_hash(&data).to_string(),
    );
    let st = lay.statement();
    put("layout.root", st.root.to_string());
    put("layout.root_sig_bytes", hex::encode(st.signing_bytes()));
    put("layout.root_sig", st.sign(&key_a).to_string());
    let o = lay.open("4E6").unwrap();
    verify_opening(&st, "4E6", &o).unwrap();
    put("layout.opening.4E6.index", o.index.to_string());
    put(
        "layout.opening.4E6.path",
        o.path
            .hashes
            .iter()
            .map(|h| h.to_string())
            .collect::<Vec<_>>()
            .join(" "),
    );
    let lowered = content("0104000000000000");
    let t = lay.transition("4E6", lowered).unwrap();
    put("layout.transition.4E6.new_salt", t.new_salt.to_string());
    let after = verify_transition(&st, "4E6", &t).unwrap();
    assert_eq!(after, lay.statement());
    put("layout.transition.4E6.new_root", after.root.to_string());

    // Sealed note (3.2): side B, seq 3.
    let book = NoteBook::new(game, Party::B, notes_seed).unwrap();
    let (c, op) = book.seal(3, NoteContent(*b"DC 4E6 vehicle\0\0"));
    put("note.salt.B.3", op.salt.to_string());
    put("note.hash.B.3", c.note.to_string());
    let (cn, _) = book.seal(4, NoteContent::NULL);
    put("note.hash.B.4.null", cn.note.to_string());

    // Identity.
    put("identity.public.A", key_a.public_key().to_string());
    put("identity.public.server", key_s.public_key().to_string());

    // Envelope, head chain, receipt (3.5).
    let g0 = genesis_head(&game);
    put("head.genesis", g0.to_string());
    let env = Envelope {
        version: ENVELOPE_VERSION,
        game_id: game,
        author: key_a.public_key(),
        seq: 0,
        prev_head: g0,
        body: b"move 4E6".to_vec(),
    };
    let signed = env.sign(&key_a);
    put("envelope.signing_bytes", hex::encode(signed.bytes()));
    put("envelope.sig", signed.signature().to_string());
    let eh = signed.entry_hash();
    put("envelope.entry_hash", eh.to_string());
    let h1 = next_head(&g0, &eh);
    put("head.1", h1.to_string());
    let rc = Receipt::issue(
        &key_s,
        game,
        &hexveil_protocol::envelope::Appended {
            seq: 0,
            entry_hash: eh,
            new_head: h1,
        },
    );
    put(
        "receipt.signing_bytes",
        hex::encode(Receipt::signing_bytes(&game, 0, &eh, &h1)),
    );
    put("receipt.sig", rc.sig.to_string());
    // The log entry (15): A's envelope with the receipt, and the same body
    // signed by the server, which message version 5 logs without one (6).
    let entry = |envelope, receipt| {
        hex::encode(hexveil_protocol::transcript::encode_entry(
            &hexveil_protocol::message::LoggedEntry { envelope, receipt },
        ))
    };
    put("log_entry.receipted", entry(signed.clone(), Some(rc)));
    let by_server = Envelope {
        author: key_s.public_key(),
        ..env.clone()
    }
    .sign(&key_s);
    put("log_entry.receiptless", entry(by_server.clone(), None));
    // What a party was shown, and the server's view receipt (issue 24,
    // 6 and 14.2): A's envelope at seq 0 shown with nothing else and the
    // prompt Wait to every audience.
    let shown = hexveil_protocol::message::Update {
        seq: 0,
        head: h1,
        entry: "action".into(),
        action: None,
        genesis: None,
        public_setup: None,
        events: Vec::new(),
        dice: Vec::new(),
        prompt: hexveil_protocol::message::Prompt::Wait,
        end: None,
        closed: false,
        logged: hexveil_protocol::message::Logged::Sealed { entry_hash: eh },
        attest: None,
    };
    let sd = shown.shown_digest();
    put("view.shown_digest.wait", sd.to_string());
    let vr = hexveil_protocol::view_receipt::ViewReceipt::issue(
        &key_s,
        game,
        0,
        g0,
        eh,
        Party::A,
        [sd, sd, sd],
    );
    put(
        "view_receipt.signing_bytes",
        hex::encode(hexveil_protocol::view_receipt::ViewReceipt::signing_bytes(
            &game,
            0,
            &g0,
            &eh,
            Party::A,
            &[sd, sd, sd],
        )),
    );
    put("view_receipt.sig", vr.sig.to_string());
    // A fork proof (6): the receipt of A's entry at seq 0 and the server's
    // own entry at seq 0 on the same head give two heads after entry 0.
    let fork = hexveil_protocol::evidence::Evidence::Fork(Box::new(
        hexveil_protocol::envelope::ForkProof::Attested {
            server: key_s.public_key(),
            first: Box::new(hexveil_protocol::attestation::Attestation::Receipt(rc)),
            second: Box::new(hexveil_protocol::attestation::Attestation::ServerEntry(
                by_server,
            )),
        },
    ));
    assert_eq!(
        hexveil_protocol::evidence::check(&fork, None, None, &hexveil_fixtures::rulesets()),
        Ok(hexveil_protocol::evidence::Finding::Server(
            "the server signed two heads for one position of the game's log: it showed two histories (G5)".into()
        ))
    );
    put("evidence.fork_file", hex::encode(fork.to_file()));
    // Ed25519 validity (5): each edge case, what ring 0.17 alone does
    // (where it matters), and hexveil's answer.
    let mut ed = |name: &str, key: [u8; 32], msg: &[u8], sig: [u8; 64], valid: bool| {
        let got = PublicKey(key).verify(msg, &Signature(sig)).is_ok();
        assert_eq!(got, valid, "ed25519.{name}");
        put(
            &format!("ed25519.{name}"),
            format!(
                "key={} msg={} sig={} {}",
                hex::encode(key),
                hex::encode(msg),
                hex::encode(sig),
                if valid { "valid" } else { "refused" }
            ),
        );
    };
    let ring_accepts = |key: &[u8; 32], msg: &[u8], sig: &[u8; 64]| {
        ring::signature::UnparsedPublicKey::new(&ring::signature::ED25519, key)
            .verify(msg, sig)
            .is_ok()
    };
    let msg = b"hexveil".as_slice();
    let good = key_a.sign(msg).0;
    let pk_a = key_a.public_key().0;
    ed("valid", pk_a, msg, good, true);
    // S + L: the same scalar, not reduced.
    const L: [u8; 32] = [
        0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde,
        0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
    ];
    let mut s_plus_l = good;
    let mut carry = 0u16;
    for i in 0..32 {
        let v = u16::from(s_plus_l[32 + i]) + u16::from(L[i]) + carry;
        s_plus_l[32 + i] = v as u8;
        carry = v >> 8;
    }
    assert_eq!(carry, 0);
    ed("refused.s_not_reduced", pk_a, msg, s_plus_l, false);
    let mut y_p_plus_1 = [0xff; 32];
    y_p_plus_1[0] = 0xee;
    y_p_plus_1[31] = 0x7f;
    let mut r_non_canonical = [0u8; 64];
    r_non_canonical[..32].copy_from_slice(&y_p_plus_1);
    ed("refused.r_non_canonical", pk_a, msg, r_non_canonical, false);
    // Small-order keys: R = the identity, S = 0 satisfies the cofactorless
    // equation whenever the point's order divides k; ring accepts those.
    let mut identity = [0u8; 32];
    identity[0] = 1;
    let mut trivial = [0u8; 64];
    trivial[0] = 1;
    assert!(ring_accepts(&identity, msg, &trivial));
    ed("refused.key_identity", identity, msg, trivial, false);
    assert!(ring_accepts(&y_p_plus_1, msg, &trivial));
    ed("refused.key_non_canonical", y_p_plus_1, msg, trivial, false);
    let mut identity_signed = identity;
    identity_signed[31] = 0x80;
    ed(
        "refused.key_x0_sign_bit",
        identity_signed,
        msg,
        trivial,
        false,
    );
    let mut order2 = [0xff; 32];
    order2[0] = 0xec;
    order2[31] = 0x7f;
    let order8 = <[u8; 32]>::try_from(
        hex::decode("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05").unwrap(),
    )
    .unwrap();
    for (name, key) in [
        ("refused.key_order_2", order2),
        ("refused.key_order_8", order8),
    ] {
        // A message for which ring accepts the trivial signature (the
        // point's order divides k): proof that the key has small order.
        let m = (0u8..=255)
            .map(|i| vec![i])
            .find(|m| ring_accepts(&key, m, &trivial))
            .expect("a small-order key signs some message trivially");
        ed(name, key, &m, trivial, false);
    }

    // The server's signed refusal of that envelope (6, 14.2), reason "x".
    let refusal = Refusal::issue(&key_s, &signed, "x".into());
    refusal.verify(&key_s.public_key(), Some(&signed)).unwrap();
    put(
        "refusal.signing_bytes",
        hex::encode(Refusal::signing_bytes(&game, 0, &eh, "x")),
    );
    put("refusal.sig", refusal.sig.to_string());

    // Pads (3.4): n = 8, epoch 0; roll k = 3 bound to the envelope above.
    let pads: Vec<Pad> = Party::ALL
        .iter()
        .zip(&pad_seeds)
        .map(|(p, s)| Pad::new(*s, game, *p, 0, 8).unwrap())
        .collect();
    for (p, pad) in Party::ALL.iter().zip(&pads) {
        put(&format!("pad.root.{p}"), pad.statement().root.to_string());
    }
    let r: Vec<_> = pads.iter().map(|p| p.entry(3).unwrap()).collect();
    for (p, e) in Party::ALL.iter().zip(&r) {
        verify_pad_entry(&pads[p.index()].statement(), e).unwrap();
        assert_eq!(e.value, pad_value(&pad_seeds[p.index()], &game, *p, 0, 3));
        put(&format!("pad.r.{p}.0.3"), e.value.to_string());
    }
    put(
        "pad.sig_bytes.A",
        hex::encode(pads[0].statement().signing_bytes()),
    );
    let seed = roll_seed(&game, 3, &eh, [&r[0].value, &r[1].value, &r[2].value]);
    put("roll.seed.3", seed.to_string());
    let mut dice = DiceStream::new(&seed);
    let dr = dice.dr();
    put("roll.3.dr", format!("{} {}", dr.coloured, dr.white));
    let pc = dice.percentile();
    put(
        "roll.3.then_percentile",
        format!("{} {}", pc.tens, pc.units),
    );
    let secret = secret_roll_seed(&game, 3, &eh, [&r[0].value, &r[1].value, &r[2].value]);
    put("secret_roll.seed.3", secret.to_string());
    put(
        "secret_roll.3.dr",
        DiceStream::new(&secret).d6().to_string(),
    );
    // Message version 4 (PROTOCOL.md 7.1): roll 3 of an action A declared
    // with this nonce, with B's and the server's pad values above.
    let nonce = seq32(0xa0);
    put("input.nonce", hex::encode(nonce));
    let nonce_seed = nonce_roll_seed(&game, 3, &eh, [&PadValue(nonce), &r[1].value, &r[2].value]);
    put("nonce_roll.seed.3", nonce_seed.to_string());
    let dr = DiceStream::new(&nonce_seed).dr();
    put("nonce_roll.3.dr", format!("{} {}", dr.coloured, dr.white));

    // Postcard, worked example (PROTOCOL.md 11): a log-entry body (12), the
    // envelope that carries it (6) inside a live message (14).
    let action = Action::Move {
        units: vec![UnitId(3), UnitId(200)],
        to: "4E6".parse::<Hex>().unwrap(),
        mode: MoveMode::Bypass,
    };
    put(
        "postcard.action.move",
        hex::encode(hexveil_asl::model::action::encode_action(&action)),
    );
    let body = Body::Act(action.clone().into());
    let body_bytes = message::encode(&body);
    assert_eq!(Body::decode(&body_bytes).unwrap(), body);
    put("postcard.body.act_move", hex::encode(&body_bytes));
    // Message version 4 (7.1): the same action declared with the nonce; B's
    // window of one entry (its roll-3 entry above), alone and with no
    // openings; the prompt for a window of 2 from roll 3.
    for (name, body) in [
        (
            "postcard.body.declare_move",
            Body::Declare(message::Declare {
                action: hexveil_asl::model::action::encode_action(&action),
                nonce,
            }),
        ),
        (
            "postcard.body.entries_b_3",
            Body::Entries(vec![r[1].clone()]),
        ),
        (
            "postcard.body.open_ahead_b_3",
            Body::OpenAhead(message::OpenAhead {
                openings: vec![],
                entries: vec![r[1].clone()],
            }),
        ),
    ] {
        let bytes = message::encode(&body);
        assert_eq!(Body::decode(&bytes).unwrap(), body);
        put(name, hex::encode(&bytes));
    }
    put(
        "postcard.prompt.window_3_2",
        hex::encode(message::encode(&message::Prompt::Window { k: 3, count: 2 })),
    );
    let env2 = Envelope {
        version: ENVELOPE_VERSION,
        game_id: game,
        author: key_a.public_key(),
        seq: 1,
        prev_head: h1,
        body: body_bytes,
    };
    let submit = message::encode(&ToServer::Submit(env2.sign(&key_a)));
    assert!(matches!(
        message::decode_to_server(&submit).unwrap(),
        ToServer::Submit(e) if *e.envelope() == env2
    ));
    put("postcard.to_server.submit", hex::encode(&submit));

    // Padding of messages to players (14, G3).
    let padded = message::encode_padded(&ToClient::Rejected(refusal));
    put("padded.rejected_x.len", padded.len().to_string());
    let used = 4 + u32::from_be_bytes(padded[..4].try_into().unwrap()) as usize;
    assert!(padded[used..].iter().all(|b| *b == 0));
    put("padded.rejected_x.head", hex::encode(&padded[..used]));

    // Fixed-width contents (12): layout leaves and Daisy Chain notes.
    let placed = CoreContent::Daisy(DaisyNote::Placed {
        holder: UnitId(3),
        hex: "4E6".parse::<Hex>().unwrap(),
    });
    let fixed = hexveil_asl::content::encode(&placed);
    assert_eq!(hexveil_asl::content::decode(&fixed).unwrap(), placed);
    put("content.daisy_placed", hex::encode(fixed));
    let mut note = [0u8; 16];
    note[..8].copy_from_slice(&fixed);
    put("content.daisy_placed.note", hex::encode(note));
    put(
        "content.booby_b",
        hex::encode(hexveil_asl::content::encode(&CoreContent::BoobyTraps(
            BoobyLevel::B,
        ))),
    );

    // A genesis body (12.2) naming its ruleset: ASL version 1, server pad
    // = the n = 8 server pad of 9.5.
    let key_b = Identity::from_seed(&seq32(0xe0)).unwrap();
    put("input.key_seed.B", hex::encode(seq32(0xe0)));
    put("identity.public.B", key_b.public_key().to_string());
    let scenario_toml = "name = \"demo\"\n".to_string();
    let genesis = Body::Genesis(message::Genesis {
        message_version: message::MESSAGE_VERSION,
        ruleset: hexveil_asl::ruleset::ID.into(),
        ruleset_version: 1,
        scenario_hash: Digest::sha256(scenario_toml.as_bytes()),
        scenario_toml: scenario_toml.into(),
        players: [key_a.public_key(), key_b.public_key()],
        server: key_s.public_key(),
        mode: message::Mode::Live,
        pad_len: 8,
        answer_timeout_ms: 60_000,
        server_pad: pads[2].statement(),
    });
    let genesis_bytes = message::encode(&genesis);
    assert_eq!(Body::decode(&genesis_bytes).unwrap(), genesis);
    put("postcard.body.genesis", hex::encode(&genesis_bytes));

    // Kernel events (12.3): a fact opened for the referee, and an ASL event
    // of its own carried in `Rules` (12.5).
    let opened = hexveil_core::Event {
        to: hexveil_core::Visibility::Referee,
        kind: hexveil_core::EventKind::FactOpened {
            request: hexveil_core::FactRequest {
                owner: hexveil_core::Side::A,
                layer: hexveil_core::Layer::named("ap").unwrap(),
                location: hexveil_core::Location::key_of("4E6").unwrap(),
            },
            content: hexveil_core::Content(mine),
        },
        cite: vec!["B28.41".into()],
    };
    put(
        "postcard.event.fact_opened",
        hex::encode(message::encode(&opened)),
    );
    let conceded = hexveil_asl::Event {
        to: hexveil_core::Visibility::Public,
        kind: hexveil_asl::EventKind::Turn(hexveil_asl::turn::TurnEvent::Conceded {
            side: hexveil_core::Side::B,
        }),
        cite: vec![],
    };
    let kernel_event = hexveil_asl::ruleset::event_to_kernel(&conceded);
    assert_eq!(
        hexveil_asl::ruleset::event_from_kernel(&kernel_event).unwrap(),
        conceded
    );
    put(
        "postcard.event.asl_conceded",
        hex::encode(message::encode(&kernel_event)),
    );

    // ASL standing orders (12.5): one Daisy Chain order.
    let orders =
        hexveil_asl::standing_orders::encode(&[hexveil_asl::standing_orders::DaisyOrder {
            holder: UnitId(3),
            hex: "4E6".parse::<Hex>().unwrap(),
        }]);
    assert!(hexveil_asl::standing_orders::encode(&[]).is_empty());
    put("postcard.asl.orders", hex::encode(&orders));

    // The miniatures rules (12.6), through the kernel interface only (the
    // protocol knows no ruleset): the example scenario and setups, an action
    // given as bytes that the engine must decode, the ruleset event it
    // answers with, and a cell content the ruleset accepts.
    let minis = hexveil_rulesets::all().latest("minis").unwrap();
    let sc = minis
        .load(include_str!("../../examples/minis/scenario.toml"))
        .unwrap();
    let pub_a = sc
        .public_setup(
            hexveil_core::Side::A,
            include_str!("../../examples/minis/setup-a.toml"),
        )
        .unwrap();
    let pub_b = sc
        .public_setup(
            hexveil_core::Side::B,
            include_str!("../../examples/minis/setup-b.toml"),
        )
        .unwrap();
    let engine = sc
        .start([pub_a.as_ref(), pub_b.as_ref()], &BTreeMap::new())
        .unwrap();
    // Lay{figure: "ger-rifle-2", cell: c12x6, kind: SMine}
    let lay = hexveil_minis::encode_action(&hexveil_minis::Action::Lay {
        figure: "ger-rifle-2".into(),
        cell: hexveil_minis::Cell::from_key("c12x6").unwrap(),
        kind: hexveil_minis::MineKind::SMine,
    });
    let step = engine
        .clone_box()
        .apply(hexveil_core::Side::A, &lay)
        .unwrap();
    let hexveil_core::Step::Done(events) = step else {
        panic!("laying needs no facts or dice: {step:?}")
    };
    let rules: Vec<&Vec<u8>> = events
        .iter()
        .filter_map(|e| match &e.kind {
            hexveil_core::EventKind::Rules(b) => Some(b),
            _ => None,
        })
        .collect();
    assert_eq!(rules.len(), 1, "{events:?}");
    put("postcard.minis.action.lay", hex::encode(&lay));
    put("postcard.minis.event.laying_begun", hex::encode(rules[0]));
    // Move{figure: "ger-pz-iv", path: ["12,14"]}
    let mv = hexveil_minis::encode_action(&hexveil_minis::Action::Move {
        figure: "ger-pz-iv".into(),
        path: vec!["12,14".parse().unwrap()],
    });
    assert!(
        !matches!(
            engine.clone_box().apply(hexveil_core::Side::A, &mv),
            Err(hexveil_core::ActionError::Malformed(_))
        ),
        "the miniatures engine decodes the move"
    );
    put("postcard.minis.action.move", hex::encode(&mv));
    let cell = hexveil_minis::CellMines {
        ap: 2,
        at: 1,
        s: true,
    }
    .encode();
    let mines = hexveil_core::Layer::named("mines").unwrap();
    sc.check_content(mines, &cell).unwrap();
    assert!(sc
        .check_content(mines, &hexveil_core::Content::EMPTY)
        .is_ok());
    assert!(sc
        .check_content(mines, &hexveil_core::Content(content("0100000100000000")))
        .is_err());
    put("content.minis.cell", hex::encode(cell.0));

    // Dice from a fixed seed: the first 12 d6, then 6 d10 of the same stream.
    let mut s = DiceStream::new(&hexveil_protocol::beacon::RollSeed([0; 32]));
    let d6: Vec<String> = (0..12).map(|_| s.d6().to_string()).collect();
    let d10: Vec<String> = (0..6).map(|_| s.d10().to_string()).collect();
    put("dice.zero_seed.d6x12", d6.join(" "));
    put("dice.zero_seed.then_d10x6", d10.join(" "));
    v
}

fn documented() -> BTreeMap<String, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../PROTOCOL.md");
    let text = std::fs::read_to_string(&path).expect("PROTOCOL.md at the workspace root");
    let mut out = BTreeMap::new();
    for line in text.lines() {
        if let Some(rest) = line.trim().strip_prefix("vector ") {
            let (name, value) = rest.split_once(':').expect("vector <name>: <value>");
            let prev = out.insert(name.trim().to_string(), value.trim().to_string());
            assert!(prev.is_none(), "vector {name} documented twice");
        }
    }
    out
}

#[test]
fn protocol_md_vectors_match_the_code_g5() {
    let code = computed();
    let doc = documented();
    let mut problems = vec![];
    for (k, v) in &code {
        match doc.get(k) {
            Some(d) if d == v => {}
            Some(d) => problems.push(format!("MISMATCH {k}\n  doc:  {d}\n  code: {v}")),
            None => problems.push(format!("MISSING vector {k}: {v}")),
        }
    }
    for k in doc.keys() {
        if !code.contains_key(k) {
            problems.push(format!("UNKNOWN documented vector {k}"));
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

/// The published vector file, `protocol/vectors/vectors.json`.
fn vector_file() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../protocol/vectors/vectors.json")
}

/// The vector file's exact text for these vectors.
fn vector_json(code: &BTreeMap<String, String>) -> String {
    let doc = serde_json::json!({
        "about": "hexveil protocol test vectors (PROTOCOL.md section 9 and every `vector` line of PROTOCOL.md), generated from the code by protocol-tests/tests/vectors.rs. Values are lowercase hex unless the name says otherwise; inputs are the `input.*` entries. Regenerate with: HEXVEIL_WRITE_VECTORS=1 cargo test -p hexveil-protocol-tests --test vectors",
        "protocol_message_version": hexveil_protocol::message::MESSAGE_VERSION,
        "vectors": code,
    });
    let mut text = serde_json::to_string_pretty(&doc).unwrap();
    text.push('\n');
    text
}

/// G5 (issue 10 item 15): the vectors are published as a data file another
/// implementation can run against, and the file cannot drift from the
/// code: it must equal what the code computes, byte for byte.
/// `HEXVEIL_WRITE_VECTORS=1` rewrites it.
#[test]
fn published_vector_file_matches_the_code_g5() {
    let want = vector_json(&computed());
    let path = vector_file();
    if std::env::var_os("HEXVEIL_WRITE_VECTORS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "{} differs from what the code computes: regenerate it with HEXVEIL_WRITE_VECTORS=1 cargo test -p hexveil-protocol-tests --test vectors (and update PROTOCOL.md)",
        path.display()
    );
}
