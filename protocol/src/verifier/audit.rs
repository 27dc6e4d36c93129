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
//!   of their layers, as the ruleset reads them (ASL: B28.1 strengths
//!   6/8/12, B28.5 A-T factors 1-5, B28.9 levels, B28.47 Dummies only in
//!   the A-P layer);
//! - [`check_ob_legality`]: the leaves are exactly the eligible locations
//!   and the ruleset's setup rules accept the layout.

use thiserror::Error;

use std::collections::BTreeSet;

use hexveil_core::{Content, ContentError, Layer, Location, PublicSetup, Roll, Scenario, Side};

use crate::beacon::{secret_roll_seed, RollSeed};
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
    /// A layer name the ruleset does not seal.
    #[error("layer {layer:?} is not a sealed layer of the ruleset")]
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
        /// Why, in the ruleset's words.
        error: String,
    },
    /// A valid content that may not appear in this layer (e.g. A-T factors
    /// in the A-P layer, a Dummy outside it: B28.47).
    #[error("layer {layer:?} at {location}: {content} may not be sealed in this layer")]
    ContentOutsideLayer {
        /// The layer name.
        layer: String,
        /// The location key.
        location: String,
        /// The content, in the ruleset's words.
        content: String,
    },
    /// A location key that is not a key at all.
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
    /// The revealed layout breaks the ruleset's rules of setup: every
    /// violation, each naming the location and the rule (ASL: B28.1,
    /// B28.45-47, B28.5, B28.53, B28.9).
    #[error("illegal setup: {}", .0.join("; "))]
    IllegalSetup(Vec<String>),
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

/// Checks that every revealed layer is one of the ruleset's sealed layers
/// and every content a legal content of its layer, as the ruleset reads it
/// (ASL: A-P strengths 6, 8, 12, B28.1; A-T factors 1..=5, B28.5; Booby
/// Trap levels A-C, B28.9; Dummies only in the A-P layer, B28.47).
///
/// The scenario-dependent checks are [`check_ob_legality`].
pub fn check_setup_legality(
    scenario: &dyn Scenario,
    reveal: &RevealBody,
) -> Result<(), RevealFault> {
    layout_contents(scenario, reveal).map(|_| ())
}

/// Every revealed content as the ruleset's layer, location and content.
fn layout_contents(
    scenario: &dyn Scenario,
    reveal: &RevealBody,
) -> Result<Vec<(Layer, Location, Content)>, RevealFault> {
    let sealed = scenario.sealed_layers();
    let mut contents = Vec::new();
    for l in &reveal.layers {
        let layer = sealed
            .iter()
            .copied()
            .find(|x| x.name() == l.layer)
            .ok_or_else(|| RevealFault::UnknownLayer {
                layer: l.layer.clone(),
            })?;
        for (location, bytes) in &l.contents {
            let at = Location::key_of(location).map_err(|_| RevealFault::BadLocation {
                layer: l.layer.clone(),
                location: location.clone(),
            })?;
            let c = Content(*bytes);
            scenario.check_content(layer, &c).map_err(|e| match e {
                ContentError::WrongLayer(content) => RevealFault::ContentOutsideLayer {
                    layer: l.layer.clone(),
                    location: location.clone(),
                    content,
                },
                e => RevealFault::BadContent {
                    layer: l.layer.clone(),
                    location: location.clone(),
                    error: e.to_string(),
                },
            })?;
            contents.push((layer, at, c));
        }
    }
    Ok(contents)
}

/// Checks a revealed layout against the scenario and the side's public
/// setup: the leaves are exactly the eligible locations of each layer
/// (DESIGN 3.1), and the ruleset's setup rules accept it (ASL: OB factor
/// budget with A-T at 3 for 1, terrain, Known counters and Dummies: B28.1,
/// B28.45-47, B28.5, B28.53, B28.9). `setup_rolls` are the side's setup
/// rolls (ASL: the Secret dr for extra Dummies, B28.47).
pub fn check_ob_legality(
    scenario: &dyn Scenario,
    public: &dyn PublicSetup,
    reveal: &RevealBody,
    setup_rolls: &[Roll],
) -> Result<(), RevealFault> {
    for layer in scenario.sealed_layers() {
        let eligible: BTreeSet<String> = scenario
            .eligible(public, layer)
            .iter()
            .map(|l| l.key().to_string())
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
    let contents = layout_contents(scenario, reveal)?;
    let problems = scenario.layout_problems(public, &contents, setup_rolls);
    if problems.is_empty() {
        Ok(())
    } else {
        Err(RevealFault::IllegalSetup(problems))
    }
}
