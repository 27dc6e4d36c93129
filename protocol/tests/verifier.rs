//! The offline verifier over whole transcript files (DESIGN 3.5): clean
//! games, damaged and forged files, a misbehaving server and cheating
//! players (G1, G5, G6).

mod common;

use common::{honest_game, Game};
use hexveil_core::Side;
use hexveil_protocol::encoding::Party;
use hexveil_protocol::envelope::{EnvelopeError, Receipt};
use hexveil_protocol::identity::Identity;
use hexveil_protocol::message::{self, Body, EndRecord, RevealBody};
use hexveil_protocol::transcript::{EntryProblem, FormatError, HEADER_LEN};
use hexveil_protocol::verifier::{verify, Blame, FaultKind, GenesisProblem, RevealFault, Verdict};
use proptest::prelude::*;

fn last(g: &Game) -> u64 {
    g.entries.len() as u64 - 1
}

fn fault(v: &Verdict) -> &hexveil_protocol::verifier::Fault {
    v.fault()
        .unwrap_or_else(|| panic!("expected a fault, got {v}"))
}

/// Byte ranges of the entries of a file: entry i spans `[starts[i], starts[i+1])`.
fn entry_starts(bytes: &[u8]) -> Vec<usize> {
    let mut starts = vec![];
    let mut at = HEADER_LEN;
    while at < bytes.len() {
        starts.push(at);
        let len = u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        at += 4 + len;
    }
    starts
}

#[test]
fn an_honest_game_is_clean_and_both_sides_are_audited_g5() {
    let g = honest_game(6);
    let v = verify(&g.bytes());
    let Verdict::Clean(s) = &v else {
        panic!("honest game: {v}")
    };
    assert_eq!(s.entries, g.entries.len() as u64);
    assert_eq!(s.head, g.log.head());
    assert_eq!(s.audited, vec![Side::A, Side::B]);
    assert!(s.unaudited.is_empty());
    assert_eq!(s.end.as_ref().unwrap().winner, Some(Side::B));
    assert!(v.to_string().starts_with("CLEAN"));
}

#[test]
fn an_unfinished_game_is_clean_but_says_what_was_not_audited_g5() {
    let mut g = Game::new(0x11);
    g.setups();
    g.play(3);
    let Verdict::Clean(s) = verify(&g.bytes()) else {
        panic!("unfinished game")
    };
    assert_eq!(s.end, None);
    assert_eq!(s.unaudited, vec![Side::A, Side::B]);
    assert!(s.to_string().contains("NOT revealed"));
}

#[test]
fn wrong_magic_version_and_short_files_are_unreadable_g6() {
    let bytes = honest_game(2).bytes();
    let mut magic = bytes.clone();
    magic[0] = b'X';
    let v = verify(&magic);
    let f = fault(&v);
    assert_eq!(f.entry, None);
    assert_eq!(f.blame, Blame::Undetermined);
    assert!(matches!(
        f.what,
        FaultKind::Unreadable(FormatError::BadMagic { .. })
    ));
    let mut version = bytes.clone();
    version[9] = 2;
    assert_eq!(
        fault(&verify(&version)).what,
        FaultKind::Unreadable(FormatError::UnsupportedVersion { got: 2 })
    );
    assert_eq!(
        fault(&verify(&bytes[..5])).what,
        FaultKind::Unreadable(FormatError::TooShort { len: 5 })
    );
    assert_eq!(fault(&verify(&bytes[..HEADER_LEN])).what, FaultKind::Empty);
}

#[test]
fn a_truncated_file_names_the_cut_entry_g6() {
    let bytes = honest_game(2).bytes();
    let starts = entry_starts(&bytes);
    for (i, s) in starts.iter().enumerate() {
        // Cut inside the length prefix, and inside the entry.
        for cut in [s + 2, s + 40] {
            let f = fault(&verify(&bytes[..cut])).clone();
            assert_eq!(f.entry, Some(i as u64), "cut at {cut}");
            assert!(matches!(
                f.what,
                FaultKind::Unreadable(FormatError::Entry {
                    problem: EntryProblem::TruncatedLength { .. } | EntryProblem::Truncated { .. },
                    ..
                })
            ));
        }
    }
    // Cut at an entry boundary: a shorter, unfinished but valid log.
    let cut = *starts.last().unwrap();
    let Verdict::Clean(s) = verify(&bytes[..cut]) else {
        panic!("a prefix of a log is a log")
    };
    assert_eq!(s.audited, vec![Side::A]);
    assert_eq!(s.unaudited, vec![Side::B]);
}

#[test]
fn a_hostile_length_prefix_is_refused_before_allocation_g6() {
    let mut bytes = honest_game(1).bytes();
    let starts = entry_starts(&bytes);
    let at = starts[2];
    bytes[at..at + 4].copy_from_slice(&u32::MAX.to_be_bytes());
    let f = fault(&verify(&bytes)).clone();
    assert_eq!(f.entry, Some(2));
    assert!(matches!(
        f.what,
        FaultKind::Unreadable(FormatError::Entry {
            problem: EntryProblem::TooLong { .. },
            ..
        })
    ));
}

#[test]
fn a_forged_receipt_names_its_entry_g5() {
    let mut g = honest_game(4);
    // Side A "receipts" entry 3 itself.
    let fake = Identity::from_seed(&[1; 32]).unwrap();
    let prev = g.entries[2].receipt.new_head;
    let e = &mut g.entries[3];
    let app = hexveil_protocol::envelope::Appended {
        seq: 3,
        entry_hash: e.envelope.entry_hash(),
        new_head: hexveil_protocol::envelope::next_head(&prev, &e.envelope.entry_hash()),
    };
    e.receipt = Receipt::issue(&fake, g.game, &app);
    let f = fault(&verify(&g.bytes())).clone();
    assert_eq!(
        (f.blame, f.entry, f.what),
        (Blame::Undetermined, Some(3), FaultKind::ForgedReceipt)
    );
}

#[test]
fn a_genuine_receipt_moved_to_another_entry_is_caught_g5() {
    let mut g = honest_game(4);
    g.entries[4].receipt = g.entries[5].receipt;
    let f = fault(&verify(&g.bytes())).clone();
    assert_eq!(f.entry, Some(4));
    assert_eq!(f.what, FaultKind::ReceiptForOtherEntry);
}

#[test]
fn an_entry_by_a_key_not_in_the_genesis_is_the_servers_fault_g6() {
    let mut g = Game::new(0x11);
    g.setups();
    let stranger = Identity::from_seed(&[9; 32]).unwrap();
    let env = hexveil_protocol::envelope::Envelope {
        author: stranger.public_key(),
        ..g.envelope(Party::A, message::encode(&Body::Concede))
            .envelope()
            .clone()
    }
    .sign(&stranger);
    g.push_unchecked(env);
    let f = fault(&verify(&g.bytes())).clone();
    assert_eq!(f.entry, Some(last(&g)));
    assert_eq!(f.blame, Blame::Server);
    assert_eq!(
        f.what,
        FaultKind::AcceptedBadEntry(EnvelopeError::UnknownAuthor(stranger.public_key()))
    );
}

#[test]
fn a_replayed_entry_receipted_again_is_the_servers_fault_g6() {
    let mut g = Game::new(0x11);
    g.setups();
    let replay = g.entries[1].envelope.clone();
    g.push_unchecked(replay);
    let f = fault(&verify(&g.bytes())).clone();
    assert_eq!((f.blame, f.entry), (Blame::Server, Some(last(&g))));
    assert_eq!(
        f.what,
        FaultKind::AcceptedBadEntry(EnvelopeError::Replay { seq: 1 })
    );
}

#[test]
fn a_player_cannot_write_the_end_and_the_server_cannot_reveal_g5() {
    let mut g = Game::new(0x11);
    g.setups();
    g.push(
        Party::A,
        &Body::End(EndRecord {
            winner: Some(Side::A),
            reason: "I say so".into(),
        }),
    );
    let f = fault(&verify(&g.bytes())).clone();
    assert_eq!((f.blame, f.entry), (Blame::Side(Side::A), Some(last(&g))));
    assert!(matches!(
        f.what,
        FaultKind::WrongAuthor { got: Party::A, .. }
    ));

    let mut g = Game::new(0x11);
    g.setups();
    let reveal = g.reveal_body(Side::A);
    g.push(Party::Server, &reveal);
    let f = fault(&verify(&g.bytes())).clone();
    assert_eq!((f.blame, f.entry), (Blame::Server, Some(last(&g))));
}

#[test]
fn a_reveal_before_the_end_is_out_of_place_g3() {
    let mut g = Game::new(0x11);
    g.setups();
    let reveal = g.reveal_body(Side::B);
    g.push(Party::B, &reveal);
    let f = fault(&verify(&g.bytes())).clone();
    assert_eq!((f.blame, f.entry), (Blame::Side(Side::B), Some(last(&g))));
    assert!(matches!(f.what, FaultKind::OutOfPlace(_)));
}

#[test]
fn a_receipted_body_that_does_not_decode_is_the_servers_fault_g6() {
    let mut g = Game::new(0x11);
    let env = g.envelope(Party::A, vec![0xff, 0xff, 0xff]);
    g.push_signed(env);
    let f = fault(&verify(&g.bytes())).clone();
    assert_eq!((f.blame, f.entry), (Blame::Server, Some(1)));
    assert!(matches!(f.what, FaultKind::MalformedBody(_)));
}

#[test]
fn a_genesis_not_signed_by_its_server_key_is_refused_g5() {
    let g = honest_game(1);
    let mut bad = Game::new(0x11);
    // Entry 0 replaced by a genesis that A signed.
    let body = g.entries[0].envelope.envelope().body.clone();
    let env = hexveil_protocol::envelope::Envelope {
        author: g.ids[0].public_key(),
        ..g.entries[0].envelope.envelope().clone()
    }
    .sign(&g.ids[0]);
    assert_eq!(env.envelope().body, body);
    bad.entries[0].envelope = env;
    let f = fault(&verify(&bad.bytes())).clone();
    assert_eq!(f.entry, Some(0));
    assert!(matches!(
        f.what,
        FaultKind::Genesis(GenesisProblem::NotByServer { .. })
    ));
    // Entry 0 that is not a genesis at all.
    let mut g2 = Game::new(0x11);
    g2.entries.clear();
    g2.log = hexveil_protocol::envelope::LogState::new(
        g2.game,
        g2.ids.iter().map(|i| i.public_key()).collect(),
    );
    g2.push(Party::Server, &Body::Concede);
    assert_eq!(
        fault(&verify(&g2.bytes())).what,
        FaultKind::Genesis(GenesisProblem::NotGenesis("concession"))
    );
}

fn with_reveal(side: Side, mut edit: impl FnMut(&mut RevealBody)) -> Game {
    let mut g = Game::new(0x11);
    g.setups();
    g.play(4);
    g.push(
        Party::Server,
        &Body::End(EndRecord {
            winner: None,
            reason: "time".into(),
        }),
    );
    for s in [Side::A, Side::B] {
        let Body::Reveal(mut r) = g.reveal_body(s) else {
            unreachable!()
        };
        if s == side {
            edit(&mut r);
        }
        g.push(message::party_of(s), &Body::Reveal(r));
    }
    g
}

#[test]
fn a_mine_moved_after_setup_is_proven_by_the_reveal_g1_g5() {
    let g = with_reveal(Side::B, |r| {
        // The 8-factor A-P minefield "was always" one hex further.
        // B's 12-factor minefield in 3E4 "was always" in the empty hex 3E3.
        let c = &mut r.layers[0].contents;
        let mine = c.iter().position(|(k, _)| k == "3E4").unwrap();
        let empty = c.iter().position(|(k, _)| k == "3E3").unwrap();
        assert_ne!(c[mine].1, c[empty].1);
        let (m, e) = (c[mine].1, c[empty].1);
        c[mine].1 = e;
        c[empty].1 = m;
    });
    let f = fault(&verify(&g.bytes())).clone();
    let reveal_seq = g.entries.len() as u64 - 1;
    assert_eq!((f.blame, f.entry), (Blame::Side(Side::B), Some(reveal_seq)));
    assert!(matches!(
        f.what,
        FaultKind::Reveal(RevealFault::LayoutMismatch { ref layer, .. }) if layer == "ap"
    ));
}

#[test]
fn a_false_pad_seed_is_proven_by_the_reveal_g2_g5() {
    let g = with_reveal(Side::A, |r| r.pad_seed.0[0] ^= 1);
    let f = fault(&verify(&g.bytes())).clone();
    assert_eq!(f.blame, Blame::Side(Side::A));
    assert!(matches!(
        f.what,
        FaultKind::Reveal(RevealFault::PadMismatch { epoch: 0, .. })
    ));
}

/// Commits side B to `sealed` (honestly: roots match the reveal).
fn committed_to(sealed: hexveil_core::setup::SealedSetup) -> Game {
    let mut g = Game::new(0x11);
    g.layers[1] = common::layers_from(g.game, Side::B, &sealed);
    g.setups();
    g.finish();
    g
}

#[test]
fn minefield_factors_over_the_ob_are_proven_by_the_reveal_b28_1_g5() {
    let mut sealed = common::sealed_setup(Side::B);
    // 48 hidden factors in the OB; two more 12-factor fields exceed it.
    sealed.ap.push(("3B2".parse().unwrap(), 12));
    sealed.ap.push(("3B3".parse().unwrap(), 12));
    let g = committed_to(sealed);
    let f = fault(&verify(&g.bytes())).clone();
    assert_eq!((f.blame, f.entry), (Blame::Side(Side::B), Some(last(&g))));
    let FaultKind::Reveal(RevealFault::IllegalSetup(v)) = &f.what else {
        panic!("{f}")
    };
    assert!(v.iter().any(|x| x.location == "budget"), "{v:?}");
}

#[test]
fn a_layout_without_a_leaf_for_every_eligible_location_is_a_fault_g3() {
    let mut g = Game::new(0x11);
    let (_, mut l) = g.layers[1][0].clone();
    l.contents.retain(|(k, _)| k != "3A1");
    let s = hexveil_protocol::layout::SealedLayout::seal(
        g.game,
        Party::B,
        &l.layer,
        l.contents.clone(),
        hexveil_protocol::layout::LayoutSeed(l.seed),
    )
    .unwrap();
    g.layers[1][0] = (s, l);
    g.setups();
    g.finish();
    let f = fault(&verify(&g.bytes())).clone();
    assert_eq!(f.blame, Blame::Side(Side::B));
    assert!(
        matches!(&f.what, FaultKind::Reveal(RevealFault::LeafSet { missing: Some(m), .. }) if m == "3A1"),
        "{f}"
    );
}

#[test]
fn an_illegal_strength_sealed_at_setup_is_proven_by_the_reveal_b28_1_g5() {
    // A commits to a strength-10 minefield (B28.1: 6, 8 or 12 only): the
    // roots match (the commitment is honest) but the content is illegal.
    let mut g = Game::new(0x11);
    let bad = [1u8, 10, 0, 0, 0, 0, 0, 0];
    g.layers[0][0].1.contents[0].1 = bad;
    let l = g.layers[0][0].1.clone();
    g.layers[0][0].0 = hexveil_protocol::layout::SealedLayout::seal(
        g.game,
        Party::A,
        &l.layer,
        l.contents.clone(),
        hexveil_protocol::layout::LayoutSeed(l.seed),
    )
    .unwrap();
    // Genesis was written before the change; setups use the new roots.
    g.setups();
    g.finish();
    let f = fault(&verify(&g.bytes())).clone();
    assert_eq!(f.blame, Blame::Side(Side::A));
    assert!(matches!(
        f.what,
        FaultKind::Reveal(RevealFault::BadContent { .. })
    ));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, .. ProptestConfig::default() })]

    /// G5/G6: a bit flipped anywhere in the file gives a fault that names
    /// the entry holding the flipped bit (or no entry, in the header).
    #[test]
    fn a_bit_flipped_anywhere_names_its_entry_g5_g6(pos in any::<prop::sample::Index>(), bit in 0u8..8) {
        let bytes = GAME.with(|b| b.clone());
        let p = pos.index(bytes.len());
        let mut flipped = bytes.clone();
        flipped[p] ^= 1 << bit;
        let v = verify(&flipped);
        let f = v.fault().expect("a flipped bit is always detected").clone();
        let starts = entry_starts(&bytes);
        let expected = starts.iter().rposition(|s| *s <= p).map(|i| i as u64);
        prop_assert_eq!(f.entry, expected, "flip at byte {} bit {}: {}", p, bit, f);
        // Damage proves nothing against anyone.
        prop_assert_eq!(f.blame, Blame::Undetermined);
    }
}

thread_local! {
    static GAME: Vec<u8> = honest_game(4).bytes();
}
