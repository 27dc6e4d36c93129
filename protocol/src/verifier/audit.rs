//! The end-of-game audit of one player's published secrets (DESIGN 3.5,
//! G1, G2, G5): each piece is a separate function, so the verifier, the
//! live server (when a reveal arrives) and tests can call it alone.
//!
//! - [`audit_layers`]: every layer re-sealed from seed and contents must give
//!   exactly the root the player committed at setup (G1);
//! - [`audit_pad`]: the pad seed must rebuild every committed pad root, and
//!   every pad entry the player released must be the seed's value (G2);
//! - [`audit_notes`]: every note opened in play is salted from the revealed
//!   notes seed (DESIGN 3.2);
//! - [`secret_roll_seed_from_reveal`]: a Secret dr's seed recomputed from the
//!   roller's revealed pad seed (B28.47);
//! - [`check_setup_legality`]: the revealed contents must be legal contents
//!   of their layers (B28.1 strengths 6/8/12, B28.5 A-T factors 1-5,
//!   B28.9 levels, B28.47 Dummies only in the A-P layer).

use thiserror::Error;

use std::collections::BTreeSet;

use hexveil_core::scenario::Scenario;
use hexveil_core::sealed::Location;
use hexveil_core::setup::{
    check_layout, eligible_locations, PublicSetup, SealedSetup, SetupViolation,
};
use hexveil_core::{Hex, Layer, Side};

use crate::beacon::{secret_roll_seed, RollSeed};
use crate::content::{self, ContentError};
use crate::encoding::{Digest, GameId};
use crate::layout::{LayoutError, LayoutSeed, RootStatement, Salt, SealedLayout};
use crate::message::{party_of, LayerReveal, RevealBody};
use crate::note::{note_salt, NotesSeed};
use crate::pad::{pad_value, Pad, PadEntry, PadSeed, PadStatement, PadValue};

/// What is wrong with a player's revealed secrets. Every variant is that
/// player's fault: it committed to something its secrets do not rebuild, or
/// sealed something the rules forbid (G1, G5).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum RevealFault {
    /// A layer committed at setup has no revealed seed and contents.
    #[error("layer {layer:?} was committed at setup but is not revealed")]
    MissingLayer {
        /// The layer name.
        layer: String,
    },
    /// A revealed layer was never committed.
    #[error("layer {layer:?} is revealed but was never committed")]
    UncommittedLayer {
        /// The layer name.
        layer: String,
    },
    /// A layer is revealed twice.
    #[error("layer {layer:?} is revealed twice")]
    DuplicateLayer {
        /// The layer name.
        layer: String,
    },
    /// The revealed contents cannot even be sealed (duplicate or invalid
    /// location, empty layer).
    #[error("layer {layer:?} cannot be re-sealed: {error}")]
    Unsealable {
        /// The layer name.
        layer: String,
        /// Why.
        error: LayoutError,
    },
    /// Seed and contents re-seal to another root than the committed one: a
    /// hidden fact was changed after it was sealed, or the seed is false (G1).
    #[error(
        "layer {layer:?} re-seals to {recomputed_leaves} leaves under root {recomputed}, \
         but {committed_leaves} leaves under root {committed} were committed (G1)"
    )]
    LayoutMismatch {
        /// The layer name.
        layer: String,
        /// The committed root.
        committed: Digest,
        /// The committed leaf count.
        committed_leaves: u64,
        /// The root rebuilt from the reveal.
        recomputed: Digest,
        /// The leaf count of the reveal.
        recomputed_leaves: u64,
    },
    /// The pad seed does not rebuild a committed pad root (G2).
    #[error("pad epoch {epoch}: the revealed seed rebuilds root {recomputed}, {committed} was committed (G2)")]
    PadMismatch {
        /// The epoch.
        epoch: u32,
        /// The committed root.
        committed: Digest,
        /// The root rebuilt from the seed.
        recomputed: Digest,
    },
    /// A committed pad statement cannot be rebuilt (zero entries).
    #[error("pad epoch {epoch} was committed with no entries")]
    EmptyPad {
        /// The epoch.
        epoch: u32,
    },
    /// A released pad entry is not the seed's value at its position (G2).
    #[error("pad entry at epoch {epoch} index {index} is not the revealed seed's value (G2)")]
    PadEntryMismatch {
        /// The entry's epoch.
        epoch: u32,
        /// The entry's index.
        index: u32,
    },
    /// A note the side opened during play is not salted from the notes seed
    /// it revealed (DESIGN 3.2).
    #[error("note {seq}'s salt is not derived from the revealed notes seed")]
    NoteSaltMismatch {
        /// The note counter.
        seq: u64,
    },
    /// A layer name the rules do not know.
    #[error("layer {layer:?} is not a sealed layer of the rules (ap, at, booby)")]
    UnknownLayer {
        /// The layer name.
        layer: String,
    },
    /// Bytes that are not a valid content.
    #[error("layer {layer:?} at {location}: {error}")]
    BadContent {
        /// The layer name.
        layer: String,
        /// The location key.
        location: String,
        /// Why.
        error: ContentError,
    },
    /// A valid content that may not appear in this layer (e.g. A-T factors
    /// in the A-P layer, a Dummy outside it: B28.47).
    #[error("layer {layer:?} at {location}: {content} may not be sealed in this layer")]
    ContentOutsideLayer {
        /// The layer name.
        layer: String,
        /// The location key.
        location: String,
        /// The content, in words.
        content: String,
    },
    /// A location key that names no hex (A-P, A-T) or board (Booby Traps).
    #[error("layer {layer:?}: {location:?} is not a location of this layer")]
    BadLocation {
        /// The layer name.
        layer: String,
        /// The location key.
        location: String,
    },
    /// The leaves are not exactly the eligible locations, computed from
    /// public data: a leaf missing lets its owner dodge a request, an extra
    /// one says nothing true (DESIGN 3.1, G3).
    #[error(
        "layer {layer:?} has {got} leaves, {expected} locations are eligible \
         (first missing: {missing:?}, first extra: {extra:?})"
    )]
    LeafSet {
        /// The layer name.
        layer: String,
        /// Eligible locations.
        expected: usize,
        /// Revealed leaves.
        got: usize,
        /// The first eligible location without a leaf.
        missing: Option<String>,
        /// The first leaf at a location that is not eligible.
        extra: Option<String>,
    },
    /// The scenario or the side's public setup does not parse (it was
    /// accepted at setup, so this is the side's fault).
    #[error("the public setup does not parse against the scenario: {0}")]
    PublicSetup(String),
    /// The revealed layout breaks the rules of setup: every violation, each
    /// naming the hex or board and the rule (B28.1, B28.45-47, B28.5,
    /// B28.53, B28.9).
    #[error("illegal setup: {}", .0.iter().map(|v| v.to_string()).collect::<Vec<_>>().join("; "))]
    IllegalSetup(Vec<SetupViolation>),
}

/// Re-seals every committed layer from the revealed seed and contents and
/// compares it with the root the player signed at setup (G1).
pub fn audit_layers(
    game_id: GameId,
    side: Side,
    committed: &[RootStatement],
    reveal: &RevealBody,
) -> Result<(), RevealFault> {
    for (i, l) in reveal.layers.iter().enumerate() {
        if reveal.layers[..i].iter().any(|o| o.layer == l.layer) {
            return Err(RevealFault::DuplicateLayer {
                layer: l.layer.clone(),
            });
        }
        if !committed.iter().any(|c| c.layer == l.layer) {
            return Err(RevealFault::UncommittedLayer {
                layer: l.layer.clone(),
            });
        }
    }
    for st in committed {
        let l = reveal
            .layers
            .iter()
            .find(|l| l.layer == st.layer)
            .ok_or_else(|| RevealFault::MissingLayer {
                layer: st.layer.clone(),
            })?;
        let recomputed = reseal(game_id, side, l)?.statement();
        if recomputed.root != st.root || recomputed.n_leaves != st.n_leaves {
            return Err(RevealFault::LayoutMismatch {
                layer: st.layer.clone(),
                committed: st.root,
                committed_leaves: st.n_leaves,
                recomputed: recomputed.root,
                recomputed_leaves: recomputed.n_leaves,
            });
        }
    }
    Ok(())
}

/// Seals one revealed layer as its owner sealed it at setup.
pub fn reseal(game_id: GameId, side: Side, l: &LayerReveal) -> Result<SealedLayout, RevealFault> {
    SealedLayout::seal(
        game_id,
        party_of(side),
        &l.layer,
        l.contents.clone(),
        LayoutSeed(l.seed),
    )
    .map_err(|error| RevealFault::Unsealable {
        layer: l.layer.clone(),
        error,
    })
}

/// Rebuilds every committed pad epoch of `side` from the revealed seed
/// and checks every released entry against the seed (G2). `committed` are
/// the player's pad statements (epoch 0 from its setup, later epochs from
/// renewals); `used` are the entries it released during play.
pub fn audit_pad(
    game_id: GameId,
    side: Side,
    seed: &PadSeed,
    committed: &[PadStatement],
    used: &[PadEntry],
) -> Result<(), RevealFault> {
    let party = party_of(side);
    for st in committed {
        let pad = Pad::new(*seed, game_id, party, st.epoch, st.n)
            .map_err(|_| RevealFault::EmptyPad { epoch: st.epoch })?;
        let recomputed = pad.statement().root;
        if recomputed != st.root {
            return Err(RevealFault::PadMismatch {
                epoch: st.epoch,
                committed: st.root,
                recomputed,
            });
        }
    }
    for e in used.iter().filter(|e| e.party == party) {
        let v = pad_value(seed, &game_id, party, e.position.epoch, e.position.index);
        if v != e.value {
            return Err(RevealFault::PadEntryMismatch {
                epoch: e.position.epoch,
                index: e.position.index,
            });
        }
    }
    Ok(())
}

/// Checks that every note the side opened during play (Daisy Chain
/// opportunities, B28.531) was salted from the notes seed it revealed
/// (DESIGN 3.2): `opened` holds each note's counter and salt.
pub fn audit_notes(
    game_id: GameId,
    side: Side,
    seed: &NotesSeed,
    opened: &[(u64, Salt)],
) -> Result<(), RevealFault> {
    let party = party_of(side);
    for (seq, salt) in opened {
        if note_salt(seed, &game_id, party, *seq) != *salt {
            return Err(RevealFault::NoteSaltMismatch { seq: *seq });
        }
    }
    Ok(())
}

/// The seed of Secret dr `k` (B28.47), with the roller's withheld entry
/// recomputed from its revealed pad seed. `released` holds the values of
/// A, B and the server in that order; the roller's slot is ignored and
/// replaced by the value its seed gives at `(epoch, index)`.
pub fn secret_roll_seed_from_reveal(
    game_id: GameId,
    k: u64,
    action_hash: &Digest,
    roller: Side,
    roller_seed: &PadSeed,
    position: crate::pad::PadPosition,
    released: [PadValue; 3],
) -> RollSeed {
    let party = party_of(roller);
    let mut r = released;
    r[party.index()] = pad_value(roller_seed, &game_id, party, position.epoch, position.index);
    secret_roll_seed(&game_id, k, action_hash, [&r[0], &r[1], &r[2]])
}

/// The rules' layer of a layer name.
pub fn layer_named(name: &str) -> Option<Layer> {
    [Layer::AntiPersonnel, Layer::AntiTank, Layer::BoobyTrap]
        .into_iter()
        .find(|l| l.name() == name)
}

/// Checks that every revealed content is a legal content of its layer:
/// A-P strengths 6, 8, 12 (B28.1), A-T factors 1..=5 (B28.5), Booby Trap
/// levels A-C (B28.9), Dummies only in the A-P layer (B28.47).
///
/// The scenario-dependent checks are [`check_ob_legality`].
pub fn check_setup_legality(reveal: &RevealBody) -> Result<(), RevealFault> {
    for l in &reveal.layers {
        let layer = layer_named(&l.layer).ok_or_else(|| RevealFault::UnknownLayer {
            layer: l.layer.clone(),
        })?;
        for (location, bytes) in &l.contents {
            let c = content::decode(bytes).map_err(|error| RevealFault::BadContent {
                layer: l.layer.clone(),
                location: location.clone(),
                error,
            })?;
            if !c.fits(layer) {
                return Err(RevealFault::ContentOutsideLayer {
                    layer: l.layer.clone(),
                    location: location.clone(),
                    content: format!("{c:?}"),
                });
            }
        }
    }
    Ok(())
}

/// The sealed setup a reveal stands for, as the rules read it.
pub fn sealed_setup_of(side: Side, reveal: &RevealBody) -> Result<SealedSetup, RevealFault> {
    check_setup_legality(reveal)?;
    let mut contents = Vec::new();
    for l in &reveal.layers {
        let layer = layer_named(&l.layer).ok_or_else(|| RevealFault::UnknownLayer {
            layer: l.layer.clone(),
        })?;
        for (location, bytes) in &l.contents {
            let bad = || RevealFault::BadLocation {
                layer: l.layer.clone(),
                location: location.clone(),
            };
            let c = content::decode(bytes).map_err(|error| RevealFault::BadContent {
                layer: l.layer.clone(),
                location: location.clone(),
                error,
            })?;
            let at = match layer {
                Layer::BoobyTrap => location
                    .strip_prefix("board")
                    .and_then(|b| b.parse().ok())
                    .map(Location::Board),
                _ => location.parse::<Hex>().ok().map(Location::Hex),
            }
            .ok_or_else(bad)?;
            contents.push((layer, at, c));
        }
    }
    // Every content fits its layer (checked above), so the core reading of
    // opened leaves is the whole setup.
    Ok(SealedSetup::from_contents(side, &contents))
}

/// Checks a revealed layout against the scenario and the side's public
/// setup: the leaves are exactly the eligible locations of each layer
/// (DESIGN 3.1), and `hexveil_core::setup::check_layout` accepts it (OB
/// factor budget with A-T at 3 for 1, terrain, Known counters and Dummies:
/// B28.1, B28.45-47, B28.5, B28.53, B28.9). `extra_dummies` is the result
/// of the side's Secret dr for extra Dummies (B28.47).
pub fn check_ob_legality(
    scenario: &Scenario,
    public: &PublicSetup,
    side: Side,
    reveal: &RevealBody,
    extra_dummies: u8,
) -> Result<(), RevealFault> {
    for layer in [Layer::AntiPersonnel, Layer::AntiTank, Layer::BoobyTrap] {
        let eligible: BTreeSet<String> = eligible_locations(scenario, public, side, layer)
            .iter()
            .map(Location::key)
            .collect();
        let got: BTreeSet<String> = reveal
            .layers
            .iter()
            .filter(|l| l.layer == layer.name())
            .flat_map(|l| l.contents.iter().map(|(k, _)| k.clone()))
            .collect();
        if eligible != got {
            return Err(RevealFault::LeafSet {
                layer: layer.name().to_string(),
                expected: eligible.len(),
                got: got.len(),
                missing: eligible.difference(&got).next().cloned(),
                extra: got.difference(&eligible).next().cloned(),
            });
        }
    }
    let sealed = sealed_setup_of(side, reveal)?;
    check_layout(scenario, public, &sealed, extra_dummies).map_err(RevealFault::IllegalSetup)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::beacon::{BeaconRound, RollKind, RollRequest, RoundStatus};
    use crate::encoding::Party;
    use crate::pad::PadSchedule;
    use hexveil_core::sealed::{ApStrength, AtFactors, Content};

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
        let book = crate::note::NoteBook::new(GAME, Party::B, seed).unwrap();
        let opened: Vec<(u64, Salt)> = [0u64, 4, 9]
            .iter()
            .map(|n| (*n, book.seal(*n, crate::note::NoteContent::NULL).1.salt))
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
        assert_eq!(check_setup_legality(&reveal()), Ok(()));
        // A strength-10 minefield (B28.1: 6, 8 or 12 only).
        let mut ten = reveal();
        ten.layers[0].contents[0].1 = [1, 10, 0, 0, 0, 0, 0, 0];
        assert!(matches!(
            check_setup_legality(&ten),
            Err(RevealFault::BadContent { location, .. }) if location == "4E6"
        ));
        // Six A-T factors in one hex (B28.5: 1..=5).
        let mut six = reveal();
        six.layers[1].contents[1].1 = [3, 6, 0, 0, 0, 0, 0, 0];
        assert!(matches!(
            check_setup_legality(&six),
            Err(RevealFault::BadContent { .. })
        ));
        // A-T factors sealed in the A-P layer.
        let mut wrong = reveal();
        wrong.layers[0].contents[1].1 = enc(Content::AtMines(AtFactors::new(2).unwrap()));
        assert!(matches!(
            check_setup_legality(&wrong),
            Err(RevealFault::ContentOutsideLayer { location, .. }) if location == "4E7"
        ));
        // A Dummy in the A-T layer (B28.47: Dummies are A-P counters).
        let mut dummy = reveal();
        dummy.layers[1].contents[0].1 = enc(Content::Dummy);
        assert!(matches!(
            check_setup_legality(&dummy),
            Err(RevealFault::ContentOutsideLayer { .. })
        ));
        let mut unknown = reveal();
        unknown.layers[0].layer = "mines".into();
        assert!(matches!(
            check_setup_legality(&unknown),
            Err(RevealFault::UnknownLayer { .. })
        ));
    }
}
