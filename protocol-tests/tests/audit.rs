//! The end-of-game audit of one player's reveal (moved from the protocol
//! crate's unit tests: it needs a ruleset).

use hexveil_asl::content;
use hexveil_asl::model::sealed::{ApStrength, AtFactors, Content};
use hexveil_core::{Ruleset, Side};
use hexveil_protocol::beacon::{BeaconRound, RollKind, RollRequest, RoundStatus};
use hexveil_protocol::encoding::{Digest, GameId, Party};
use hexveil_protocol::layout::{RootStatement, Salt};
use hexveil_protocol::message::{LayerReveal, RevealBody};
use hexveil_protocol::note::{self, NotesSeed};
use hexveil_protocol::pad::{Pad, PadSchedule, PadSeed, PadValue};
use hexveil_protocol::verifier::audit::*;
use std::sync::Arc;

/// The example scenario, as the ASL ruleset loads it: the audit reads
/// contents through it.
fn scenario() -> Arc<dyn hexveil_core::Scenario> {
    hexveil_asl::ruleset::Asl
        .load(&hexveil_fixtures::scenario_toml())
        .expect("the example scenario")
}

const GAME: GameId = GameId([0x42; 16]);

fn enc(c: Content) -> [u8; 8] {
    content::encode(&c)
}

fn ap_layer() -> LayerReveal {
    LayerReveal {
        layer: "ap".into(),
        seed: [7; 32],
        contents: vec![
            ("4E6".into(), enc(Content::ApMines(ApStrength::Eight))),
            ("4E7".into(), enc(Content::Empty)),
            ("4F6".into(), enc(Content::Dummy)),
        ],
    }
}

fn at_layer() -> LayerReveal {
    LayerReveal {
        layer: "at".into(),
        seed: [8; 32],
        contents: vec![
            ("4E6".into(), enc(Content::Empty)),
            (
                "4E7".into(),
                enc(Content::AtMines(AtFactors::new(3).unwrap())),
            ),
        ],
    }
}

fn reveal() -> RevealBody {
    RevealBody {
        layers: vec![ap_layer(), at_layer()],
        notes_seed: [9; 32],
        pad_seed: PadSeed([10; 32]),
    }
}

fn committed(side: Side, r: &RevealBody) -> Vec<RootStatement> {
    r.layers
        .iter()
        .map(|l| reseal(GAME, side, l).unwrap().statement())
        .collect()
}

#[test]
fn honest_reveal_rebuilds_every_committed_root_g1() {
    let r = reveal();
    let c = committed(Side::B, &r);
    assert_eq!(audit_layers(GAME, Side::B, &c, &r), Ok(()));
}

#[test]
fn a_mine_moved_after_sealing_is_caught_g1() {
    let r = reveal();
    let c = committed(Side::A, &r);
    // The owner "remembers" its 8-factor minefield in 4E7 instead of 4E6.
    let mut moved = r.clone();
    moved.layers[0].contents[0].1 = enc(Content::Empty);
    moved.layers[0].contents[1].1 = enc(Content::ApMines(ApStrength::Eight));
    assert!(matches!(
        audit_layers(GAME, Side::A, &c, &moved),
        Err(RevealFault::LayoutMismatch { layer, .. }) if layer == "ap"
    ));
    // A false seed is caught as well.
    let mut seed = r.clone();
    seed.layers[1].seed[0] ^= 1;
    assert!(matches!(
        audit_layers(GAME, Side::A, &c, &seed),
        Err(RevealFault::LayoutMismatch { layer, .. }) if layer == "at"
    ));
    // The other side's commitment never matches (side is in every leaf).
    assert!(matches!(
        audit_layers(GAME, Side::B, &c, &r),
        Err(RevealFault::LayoutMismatch { .. })
    ));
}

#[test]
fn a_dropped_location_changes_the_leaf_count_g1_g3() {
    let r = reveal();
    let c = committed(Side::A, &r);
    let mut dropped = r.clone();
    dropped.layers[0].contents.pop();
    assert!(matches!(
        audit_layers(GAME, Side::A, &c, &dropped),
        Err(RevealFault::LayoutMismatch {
            committed_leaves: 3,
            recomputed_leaves: 2,
            ..
        })
    ));
}

#[test]
fn missing_extra_and_duplicate_layers_are_faults_g5() {
    let r = reveal();
    let c = committed(Side::A, &r);
    let mut missing = r.clone();
    missing.layers.pop();
    assert_eq!(
        audit_layers(GAME, Side::A, &c, &missing),
        Err(RevealFault::MissingLayer { layer: "at".into() })
    );
    assert_eq!(
        audit_layers(GAME, Side::A, &c[..1], &r),
        Err(RevealFault::UncommittedLayer { layer: "at".into() })
    );
    let mut dup = r.clone();
    dup.layers.push(ap_layer());
    assert_eq!(
        audit_layers(GAME, Side::A, &c, &dup),
        Err(RevealFault::DuplicateLayer { layer: "ap".into() })
    );
    let mut twice = r.clone();
    twice.layers[0]
        .contents
        .push(("4E6".into(), enc(Content::Empty)));
    assert!(matches!(
        audit_layers(GAME, Side::A, &c, &twice),
        Err(RevealFault::Unsealable { .. })
    ));
}

#[test]
fn pad_seed_rebuilds_roots_and_entries_g2() {
    let seed = PadSeed([5; 32]);
    let pad = Pad::new(seed, GAME, Party::A, 0, 64).unwrap();
    let used = vec![pad.entry(3).unwrap(), pad.entry(17).unwrap()];
    assert_eq!(
        audit_pad(GAME, Side::A, &seed, &[pad.statement()], &used),
        Ok(())
    );
    // Another seed than the committed one.
    let other = PadSeed([6; 32]);
    assert!(matches!(
        audit_pad(GAME, Side::A, &other, &[pad.statement()], &[]),
        Err(RevealFault::PadMismatch { epoch: 0, .. })
    ));
    // A released value that the seed does not give.
    let mut bad = used.clone();
    bad[1].value.0[0] ^= 1;
    assert_eq!(
        audit_pad(GAME, Side::A, &seed, &[pad.statement()], &bad),
        Err(RevealFault::PadEntryMismatch {
            epoch: 0,
            index: 17
        })
    );
    // B's entries are not A's business.
    let b = Pad::new(PadSeed([1; 32]), GAME, Party::B, 0, 8).unwrap();
    assert_eq!(
        audit_pad(
            GAME,
            Side::A,
            &seed,
            &[pad.statement()],
            &[b.entry(0).unwrap()]
        ),
        Ok(())
    );
}

#[test]
fn notes_are_salted_from_the_revealed_seed_b28_531() {
    let seed = NotesSeed([3; 32]);
    let book = note::NoteBook::new(GAME, Party::B, seed).unwrap();
    let opened: Vec<(u64, Salt)> = [0u64, 4, 9]
        .iter()
        .map(|n| (*n, book.seal(*n, note::NoteContent::NULL).1.salt))
        .collect();
    assert_eq!(audit_notes(GAME, Side::B, &seed, &opened), Ok(()));
    assert_eq!(
        audit_notes(GAME, Side::B, &NotesSeed([4; 32]), &opened),
        Err(RevealFault::NoteSaltMismatch { seq: 0 })
    );
    let mut moved = opened.clone();
    moved[2].0 = 10;
    assert_eq!(
        audit_notes(GAME, Side::B, &seed, &moved),
        Err(RevealFault::NoteSaltMismatch { seq: 10 })
    );
}

#[test]
fn secret_dr_seed_from_reveal_equals_the_rollers_private_seed_b28_47() {
    let seeds = [PadSeed([1; 32]), PadSeed([2; 32]), PadSeed([3; 32])];
    let pads: Vec<Pad> = Party::ALL
        .iter()
        .zip(seeds)
        .map(|(p, s)| Pad::new(s, GAME, *p, 0, 16).unwrap())
        .collect();
    let k = 5;
    let position = PadSchedule {
        n: 16,
        renew_below: 1,
    }
    .position(k)
    .unwrap();
    let action_hash = Digest([0xab; 32]);
    let req = RollRequest {
        game_id: GAME,
        k,
        action_hash,
        actor: Party::B,
        kind: RollKind::Secret,
    };
    let sts = [
        pads[0].statement(),
        pads[1].statement(),
        pads[2].statement(),
    ];
    let mut round = BeaconRound::new(req, position, sts).unwrap();
    round
        .submit(&pads[0].entry(position.index).unwrap())
        .unwrap();
    let st = round
        .submit(&pads[2].entry(position.index).unwrap())
        .unwrap();
    assert_eq!(st, RoundStatus::SecretPending { roller: Party::B });
    let private = round
        .private_secret_seed(&pads[1].entry(position.index).unwrap())
        .unwrap();
    let released = [
        pads[0].entry(position.index).unwrap().value,
        PadValue([0; 32]),
        pads[2].entry(position.index).unwrap().value,
    ];
    let from_reveal = secret_roll_seed_from_reveal(
        GAME,
        k,
        &action_hash,
        Side::B,
        &seeds[1],
        position,
        released,
    );
    assert_eq!(from_reveal, private);
    // A false seed gives another value.
    let false_seed = secret_roll_seed_from_reveal(
        GAME,
        k,
        &action_hash,
        Side::B,
        &seeds[0],
        position,
        released,
    );
    assert_ne!(false_seed, private);
}

#[test]
fn illegal_contents_are_caught_b28_1_b28_5_b28_47() {
    assert_eq!(check_setup_legality(scenario().as_ref(), &reveal()), Ok(()));
    // A strength-10 minefield (B28.1: 6, 8 or 12 only).
    let mut ten = reveal();
    ten.layers[0].contents[0].1 = [1, 10, 0, 0, 0, 0, 0, 0];
    assert!(matches!(
        check_setup_legality(scenario().as_ref(), &ten),
        Err(RevealFault::BadContent { location, .. }) if location == "4E6"
    ));
    // Six A-T factors in one hex (B28.5: 1..=5).
    let mut six = reveal();
    six.layers[1].contents[1].1 = [3, 6, 0, 0, 0, 0, 0, 0];
    assert!(matches!(
        check_setup_legality(scenario().as_ref(), &six),
        Err(RevealFault::BadContent { .. })
    ));
    // A-T factors sealed in the A-P layer.
    let mut wrong = reveal();
    wrong.layers[0].contents[1].1 = enc(Content::AtMines(AtFactors::new(2).unwrap()));
    assert!(matches!(
        check_setup_legality(scenario().as_ref(), &wrong),
        Err(RevealFault::ContentOutsideLayer { location, .. }) if location == "4E7"
    ));
    // A Dummy in the A-T layer (B28.47: Dummies are A-P counters).
    let mut dummy = reveal();
    dummy.layers[1].contents[0].1 = enc(Content::Dummy);
    assert!(matches!(
        check_setup_legality(scenario().as_ref(), &dummy),
        Err(RevealFault::ContentOutsideLayer { .. })
    ));
    let mut unknown = reveal();
    unknown.layers[0].layer = "mines".into();
    assert!(matches!(
        check_setup_legality(scenario().as_ref(), &unknown),
        Err(RevealFault::UnknownLayer { .. })
    ));
}
