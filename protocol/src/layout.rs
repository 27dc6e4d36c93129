//! Sealed layouts: minefields, booby traps, Known counters (DESIGN 3.1).
//!
//! The owner builds one leaf for **every** location that could legally hold
//! the layer for its side, mined or not, with fixed-width content, so the
//! leaf count is public and the count and positions of what is hidden never
//! leak (G3). The root is signed; an opening (location, version, content,
//! salt, audit path) proves what a location holds and nothing else (G1).
//!
//! ```text
//! salt_i = HMAC-SHA256(layout_seed, tuple("hexveil/v1/salt", game_id, side,
//!                                         layer, location_i, version_i))
//! leaf_i = SHA-256(0x00 || tuple("hexveil/v1/leaf", game_id, side, layer,
//!                                location_i, version_i, content_i, salt_i))
//! root   = RFC 6962 tree over the leaves sorted by location bytes
//! ```
//!
//! A change during play (B28.62 FFE lowering or removing mines, clearance) is
//! a [`Transition`]: the old leaf is opened to the referee and a new leaf with
//! version + 1 and a fresh salt takes its index. Null transitions (same
//! content) have the same size, so the traffic does not tell them apart (G3).

use serde::{Deserialize, Serialize};
use std::fmt;
use thiserror::Error;

use crate::encoding::{byte_newtype, tag, Digest, GameId, Party, PrfKey, TupleEncoder};
use crate::identity::{BadSignature, Identity, PublicKey, Signature};
use crate::merkle::{self, AuditPath, InclusionError, MerkleTree};

/// Width of a layout leaf's content in bytes (`none`, `ap(8)`, `at(3)`,
/// `dummy`, `level(B)`... are encoded by the caller into this width).
pub use hexveil_core::CONTENT_LEN;

/// The fixed-width content of one location.
pub type Content = [u8; CONTENT_LEN];

/// Longest accepted layer name or location key, in bytes.
pub const MAX_KEY_LEN: usize = 64;

byte_newtype!(
    /// A 32-byte salt derived by HMAC from a seed; hides a leaf's or note's
    /// content from offline guessing (DESIGN 3.7).
    Salt,
    32
);

byte_newtype!(secret
    /// The owner's durable secret for one layout: every salt derives from it.
    /// Published only at game end.
    LayoutSeed,
    32
);

/// Bad input to sealing or opening a layout.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LayoutError {
    /// A layout needs at least one eligible location.
    #[error("a layout needs at least one location")]
    Empty,
    /// Two entries for one location.
    #[error("location {0:?} is listed twice")]
    DuplicateLocation(String),
    /// A location key is empty, too long or not printable ASCII.
    #[error("location key {0:?} must be 1..=64 printable ASCII bytes")]
    InvalidLocation(String),
    /// A layer name is empty, too long or not printable ASCII.
    #[error("layer name {0:?} must be 1..=64 printable ASCII bytes")]
    InvalidLayer(String),
    /// Only the two player sides own layouts.
    #[error("the server does not own layouts or notes")]
    ServerSide,
    /// The location is not in this layout.
    #[error("location {0:?} is not in this layout")]
    UnknownLocation(String),
    /// The version counter of a location would overflow.
    #[error("location {0:?} has reached the last version")]
    VersionOverflow(String),
}

fn valid_key(s: &str) -> bool {
    !s.is_empty() && s.len() <= MAX_KEY_LEN && s.bytes().all(|b| b.is_ascii_graphic())
}

/// Derives a leaf's salt from the layout seed.
pub fn derive_salt(
    seed: &LayoutSeed,
    game_id: &GameId,
    side: Party,
    layer: &str,
    location: &str,
    version: u32,
) -> Salt {
    salt_with(
        &PrfKey::new(&seed.0),
        game_id,
        side,
        layer,
        location,
        version,
    )
}

fn salt_with(
    key: &PrfKey,
    game_id: &GameId,
    side: Party,
    layer: &str,
    location: &str,
    version: u32,
) -> Salt {
    Salt(
        TupleEncoder::new(tag::SALT)
            .game_id(game_id)
            .party(side)
            .str(layer)
            .str(location)
            .u32(version)
            .prf(key),
    )
}

/// The leaf data (before the RFC 6962 `0x00` prefix).
pub fn leaf_data(
    game_id: &GameId,
    side: Party,
    layer: &str,
    location: &str,
    version: u32,
    content: &Content,
    salt: &Salt,
) -> Vec<u8> {
    TupleEncoder::new(tag::LEAF)
        .game_id(game_id)
        .party(side)
        .str(layer)
        .str(location)
        .u32(version)
        .array(content)
        .array(&salt.0)
        .finish()
}

/// The RFC 6962 leaf hash of one layout leaf.
pub fn leaf_hash(
    game_id: &GameId,
    side: Party,
    layer: &str,
    location: &str,
    version: u32,
    content: &Content,
    salt: &Salt,
) -> Digest {
    merkle::leaf_hash(&leaf_data(
        game_id, side, layer, location, version, content, salt,
    ))
}

/// The public, signed commitment to one layout layer.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RootStatement {
    /// The game.
    pub game_id: GameId,
    /// The owner.
    pub side: Party,
    /// The layer name ("ap", "at", "booby"...).
    pub layer: String,
    /// Number of leaves: the public count of eligible locations.
    pub n_leaves: u64,
    /// The RFC 6962 root.
    pub root: Digest,
}

impl RootStatement {
    /// The bytes the owner signs:
    /// tuple("hexveil/v1/root-sig", game_id, side, layer, n_leaves, root).
    pub fn signing_bytes(&self) -> Vec<u8> {
        TupleEncoder::new(tag::ROOT_SIG)
            .game_id(&self.game_id)
            .party(self.side)
            .str(&self.layer)
            .u64(self.n_leaves)
            .digest(&self.root)
            .finish()
    }

    /// Signs the statement with the owner's key.
    pub fn sign(&self, owner: &Identity) -> Signature {
        owner.sign(&self.signing_bytes())
    }

    /// Checks the owner's signature on the statement.
    pub fn verify_signature(&self, owner: &PublicKey, sig: &Signature) -> Result<(), BadSignature> {
        owner.verify(&self.signing_bytes(), sig)
    }
}

/// Proof of what one location holds: sent by the owner to the referee.
/// For one tree every opening has the same size up to the location key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Opening {
    /// The location key ("4E6", "board4"...).
    pub location: String,
    /// How many transitions this location has had (0 at setup).
    pub version: u32,
    /// The fixed-width content.
    pub content: Content,
    /// The leaf's salt.
    pub salt: Salt,
    /// The leaf's index in the sorted tree.
    pub index: u64,
    /// The padded audit path.
    pub path: AuditPath,
}

/// Why an opening does not prove what it claims.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum OpeningError {
    /// The opening is for another location than the one demanded.
    #[error("opening is for location {got:?}, the referee asked for {expected:?}")]
    WrongLocation {
        /// The location demanded.
        expected: String,
        /// The location opened.
        got: String,
    },
    /// The index is outside the tree.
    #[error("leaf index {index} is outside a layout of {n_leaves} leaves")]
    IndexOutOfRange {
        /// Claimed index.
        index: u64,
        /// Leaves in the statement.
        n_leaves: u64,
    },
    /// The audit path is malformed (length or padding).
    #[error("malformed audit path: {0}")]
    BadPath(InclusionError),
    /// The leaf (content, salt, version, location at this index) is not the
    /// committed one: a wrong salt or content, or a relabelled leaf.
    #[error("the opened leaf is not the committed one at index {index}")]
    LeafMismatch {
        /// The index the opening claims.
        index: u64,
    },
}

fn opening_leaf(st: &RootStatement, o: &Opening) -> Digest {
    leaf_hash(
        &st.game_id,
        st.side,
        &st.layer,
        &o.location,
        o.version,
        &o.content,
        &o.salt,
    )
}

fn map_inclusion(e: InclusionError, index: u64) -> OpeningError {
    match e {
        InclusionError::IndexOutOfRange { index, size } => OpeningError::IndexOutOfRange {
            index,
            n_leaves: size,
        },
        InclusionError::RootMismatch { .. } => OpeningError::LeafMismatch { index },
        other => OpeningError::BadPath(other),
    }
}

/// Verifies an opening of the location `demanded` against a root statement
/// (G1: the content is the one sealed).
pub fn verify_opening(
    statement: &RootStatement,
    demanded: &str,
    opening: &Opening,
) -> Result<(), OpeningError> {
    if opening.location != demanded {
        return Err(OpeningError::WrongLocation {
            expected: demanded.to_string(),
            got: opening.location.clone(),
        });
    }
    let leaf = opening_leaf(statement, opening);
    merkle::verify_inclusion(
        &leaf,
        opening.index,
        statement.n_leaves,
        &opening.path,
        &statement.root,
    )
    .map_err(|e| map_inclusion(e, opening.index))
}

/// A change of one location's content (B28.62), or a null change: the old
/// leaf opened, and the new content and salt at version + 1.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Transition {
    /// The opening of the current leaf.
    pub old: Opening,
    /// The new content (equal to the old one for a null transition).
    pub new_content: Content,
    /// The new leaf's salt (derived from the seed with version + 1).
    pub new_salt: Salt,
}

/// Why a transition was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TransitionError {
    /// The old leaf does not open against the current root.
    #[error("old leaf does not match the current root: {0}")]
    OldLeaf(OpeningError),
    /// The old version is the last one.
    #[error("the old leaf is at the last version")]
    VersionOverflow,
}

impl Transition {
    /// The new leaf hash.
    pub fn new_leaf(&self, statement: &RootStatement) -> Result<Digest, TransitionError> {
        let v = self
            .old
            .version
            .checked_add(1)
            .ok_or(TransitionError::VersionOverflow)?;
        Ok(leaf_hash(
            &statement.game_id,
            statement.side,
            &statement.layer,
            &self.old.location,
            v,
            &self.new_content,
            &self.new_salt,
        ))
    }

    /// True when the content does not change (a null transition).
    pub fn is_null(&self) -> bool {
        self.new_content == self.old.content
    }
}

/// Checks a transition of location `demanded` against the current statement
/// and returns the statement with the new root (same index, same path).
pub fn verify_transition(
    current: &RootStatement,
    demanded: &str,
    t: &Transition,
) -> Result<RootStatement, TransitionError> {
    verify_opening(current, demanded, &t.old).map_err(TransitionError::OldLeaf)?;
    let leaf = t.new_leaf(current)?;
    let root = merkle::root_from_path(&leaf, t.old.index, current.n_leaves, &t.old.path)
        .map_err(|e| TransitionError::OldLeaf(map_inclusion(e, t.old.index)))?;
    Ok(RootStatement {
        root,
        ..current.clone()
    })
}

/// One location of a layout as the owner keeps it: what is needed, with the
/// seed, to rebuild the tree after a restart or in the offline verifier.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LayoutEntry {
    /// The location key.
    pub location: String,
    /// Transitions so far (0 at setup).
    pub version: u32,
    /// The current content.
    pub content: Content,
}

/// The owner's secret state for one layer: seed, contents, versions, tree.
/// Public data comes out of it as [`RootStatement`], [`Opening`] and
/// [`Transition`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SealedLayout {
    game_id: GameId,
    side: Party,
    layer: String,
    seed: LayoutSeed,
    entries: Vec<LayoutEntry>,
    tree: MerkleTree,
}

impl SealedLayout {
    /// Seals a layer: one entry per eligible location (content `none`
    /// included), in any order; they are sorted by location bytes.
    pub fn seal(
        game_id: GameId,
        side: Party,
        layer: &str,
        locations: Vec<(String, Content)>,
        seed: LayoutSeed,
    ) -> Result<SealedLayout, LayoutError> {
        let entries = locations
            .into_iter()
            .map(|(location, content)| LayoutEntry {
                location,
                version: 0,
                content,
            })
            .collect();
        Self::restore(game_id, side, layer, entries, seed)
    }

    /// Rebuilds a layout from its entries (with their versions, after
    /// transitions) and seed: after a restart, or in the offline verifier.
    pub fn restore(
        game_id: GameId,
        side: Party,
        layer: &str,
        mut entries: Vec<LayoutEntry>,
        seed: LayoutSeed,
    ) -> Result<SealedLayout, LayoutError> {
        if !side.is_player() {
            return Err(LayoutError::ServerSide);
        }
        if !valid_key(layer) {
            return Err(LayoutError::InvalidLayer(layer.to_string()));
        }
        if entries.is_empty() {
            return Err(LayoutError::Empty);
        }
        if let Some(bad) = entries.iter().find(|e| !valid_key(&e.location)) {
            return Err(LayoutError::InvalidLocation(bad.location.clone()));
        }
        entries.sort_by(|a, b| a.location.as_bytes().cmp(b.location.as_bytes()));
        if let Some(w) = entries.windows(2).find(|w| w[0].location == w[1].location) {
            return Err(LayoutError::DuplicateLocation(w[0].location.clone()));
        }
        let key = PrfKey::new(&seed.0);
        let leaves = entries
            .iter()
            .map(|e| {
                let salt = salt_with(&key, &game_id, side, layer, &e.location, e.version);
                leaf_hash(
                    &game_id,
                    side,
                    layer,
                    &e.location,
                    e.version,
                    &e.content,
                    &salt,
                )
            })
            .collect();
        Ok(SealedLayout {
            game_id,
            side,
            layer: layer.to_string(),
            seed,
            entries,
            tree: MerkleTree::from_leaf_hashes(leaves),
        })
    }

    /// The public statement to sign and send.
    pub fn statement(&self) -> RootStatement {
        RootStatement {
            game_id: self.game_id,
            side: self.side,
            layer: self.layer.clone(),
            n_leaves: self.tree.len(),
            root: self.tree.root(),
        }
    }

    /// The seed (to be written to disk before the root is sent, and
    /// published at game end).
    pub fn seed(&self) -> &LayoutSeed {
        &self.seed
    }

    fn index_of(&self, location: &str) -> Result<usize, LayoutError> {
        self.entries
            .binary_search_by(|e| e.location.as_bytes().cmp(location.as_bytes()))
            .map_err(|_| LayoutError::UnknownLocation(location.to_string()))
    }

    /// The current content and version of a location.
    pub fn content(&self, location: &str) -> Result<(Content, u32), LayoutError> {
        let e = &self.entries[self.index_of(location)?];
        Ok((e.content, e.version))
    }

    /// All locations in tree order.
    pub fn locations(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|e| e.location.as_str())
    }

    /// All entries in tree order (to persist with the seed).
    pub fn entries(&self) -> &[LayoutEntry] {
        &self.entries
    }

    /// Opens one location.
    pub fn open(&self, location: &str) -> Result<Opening, LayoutError> {
        let i = self.index_of(location)?;
        let e = &self.entries[i];
        Ok(Opening {
            location: e.location.clone(),
            version: e.version,
            content: e.content,
            salt: derive_salt(
                &self.seed,
                &self.game_id,
                self.side,
                &self.layer,
                &e.location,
                e.version,
            ),
            index: i as u64,
            path: self.tree.audit_path(i as u64).expect("index from entries"),
        })
    }

    /// Changes a location's content (or keeps it, for a null transition),
    /// updating the tree; returns the transition to send to the referee.
    /// On error nothing changes.
    pub fn transition(
        &mut self,
        location: &str,
        new_content: Content,
    ) -> Result<Transition, LayoutError> {
        let old = self.open(location)?;
        let i = old.index as usize;
        let version = old
            .version
            .checked_add(1)
            .ok_or_else(|| LayoutError::VersionOverflow(location.to_string()))?;
        let new_salt = derive_salt(
            &self.seed,
            &self.game_id,
            self.side,
            &self.layer,
            location,
            version,
        );
        let leaf = leaf_hash(
            &self.game_id,
            self.side,
            &self.layer,
            location,
            version,
            &new_content,
            &new_salt,
        );
        self.tree
            .set_leaf(i as u64, leaf)
            .expect("index from entries");
        self.entries[i].version = version;
        self.entries[i].content = new_content;
        Ok(Transition {
            old,
            new_content,
            new_salt,
        })
    }
}

impl fmt::Display for RootStatement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}/{}/{} n={} root={}",
            self.game_id, self.side, self.layer, self.n_leaves, self.root
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const GAME: GameId = GameId([0x42; 16]);
    const MINE: Content = *b"ap8\0\0\0\0\0";
    const NONE: Content = [0; CONTENT_LEN];

    fn layout() -> SealedLayout {
        let locs = ["4E6", "4E7", "4F5", "board4", "4D3"]
            .iter()
            .map(|l| (l.to_string(), if *l == "4E7" { MINE } else { NONE }))
            .collect();
        SealedLayout::seal(GAME, Party::A, "ap", locs, LayoutSeed([9; 32])).unwrap()
    }

    #[test]
    fn every_location_opens_against_the_signed_root_g1() {
        let l = layout();
        let st = l.statement();
        assert_eq!(st.n_leaves, 5);
        let owner = Identity::from_seed(&[3; 32]).unwrap();
        let sig = st.sign(&owner);
        assert!(st.verify_signature(&owner.public_key(), &sig).is_ok());
        let locs: Vec<String> = l.locations().map(str::to_string).collect();
        assert_eq!(locs, ["4D3", "4E6", "4E7", "4F5", "board4"]);
        for loc in &locs {
            let o = l.open(loc).unwrap();
            assert_eq!(verify_opening(&st, loc, &o), Ok(()));
        }
        assert_eq!(l.open("4E7").unwrap().content, MINE);
    }

    #[test]
    fn openings_have_equal_size_mined_or_empty_g3() {
        let l = layout();
        let a = postcard::to_allocvec(&l.open("4E7").unwrap()).unwrap();
        let b = postcard::to_allocvec(&l.open("4E6").unwrap()).unwrap();
        assert_eq!(a.len(), b.len());
    }

    #[test]
    fn opening_with_a_wrong_salt_is_leaf_mismatch_g1() {
        let l = layout();
        let st = l.statement();
        let mut o = l.open("4E7").unwrap();
        o.salt.0[0] ^= 1;
        assert_eq!(
            verify_opening(&st, "4E7", &o),
            Err(OpeningError::LeafMismatch { index: 2 })
        );
    }

    #[test]
    fn claiming_a_mine_is_empty_is_leaf_mismatch_g1() {
        let l = layout();
        let mut o = l.open("4E7").unwrap();
        o.content = NONE;
        assert!(matches!(
            verify_opening(&l.statement(), "4E7", &o),
            Err(OpeningError::LeafMismatch { .. })
        ));
    }

    #[test]
    fn opening_of_another_locations_leaf_is_rejected_g1() {
        let l = layout();
        let st = l.statement();
        let other = l.open("4E6").unwrap();
        // Sent as-is for a demand of 4E7: wrong location.
        assert_eq!(
            verify_opening(&st, "4E7", &other),
            Err(OpeningError::WrongLocation {
                expected: "4E7".into(),
                got: "4E6".into()
            })
        );
        // Relabelled as 4E7, keeping 4E6's salt and path: does not hash to the root.
        let mut relabelled = other.clone();
        relabelled.location = "4E7".into();
        assert!(matches!(
            verify_opening(&st, "4E7", &relabelled),
            Err(OpeningError::LeafMismatch { .. })
        ));
        // 4E7's true leaf claimed at 4E6's index.
        let mut moved = l.open("4E7").unwrap();
        moved.index = other.index;
        moved.path = other.path.clone();
        assert!(verify_opening(&st, "4E7", &moved).is_err());
    }

    #[test]
    fn out_of_range_index_and_bad_path_are_distinct() {
        let l = layout();
        let st = l.statement();
        let mut o = l.open("4E6").unwrap();
        o.index = 99;
        assert!(matches!(
            verify_opening(&st, "4E6", &o),
            Err(OpeningError::IndexOutOfRange { .. })
        ));
        let mut o = l.open("4E6").unwrap();
        o.path.hashes.pop();
        assert!(matches!(
            verify_opening(&st, "4E6", &o),
            Err(OpeningError::BadPath(_))
        ));
    }

    #[test]
    fn seal_rejects_bad_input_with_clear_errors() {
        let s = LayoutSeed([0; 32]);
        assert_eq!(
            SealedLayout::seal(GAME, Party::A, "ap", vec![], s).unwrap_err(),
            LayoutError::Empty
        );
        let dup = vec![("1A1".to_string(), NONE), ("1A1".to_string(), MINE)];
        assert_eq!(
            SealedLayout::seal(GAME, Party::A, "ap", dup, s).unwrap_err(),
            LayoutError::DuplicateLocation("1A1".into())
        );
        let one = vec![("1A1".to_string(), NONE)];
        assert_eq!(
            SealedLayout::seal(GAME, Party::Server, "ap", one.clone(), s).unwrap_err(),
            LayoutError::ServerSide
        );
        assert!(matches!(
            SealedLayout::seal(GAME, Party::A, "", one.clone(), s),
            Err(LayoutError::InvalidLayer(_))
        ));
        assert!(matches!(
            SealedLayout::seal(GAME, Party::A, "ap", vec![("a b".into(), NONE)], s),
            Err(LayoutError::InvalidLocation(_))
        ));
        assert_eq!(
            layout().open("9Z9").unwrap_err(),
            LayoutError::UnknownLocation("9Z9".into())
        );
    }

    #[test]
    fn salts_differ_per_game_side_layer_location_and_version() {
        let s = LayoutSeed([1; 32]);
        let base = derive_salt(&s, &GAME, Party::A, "ap", "4E6", 0);
        assert_ne!(
            base,
            derive_salt(&s, &GameId([0; 16]), Party::A, "ap", "4E6", 0)
        );
        assert_ne!(base, derive_salt(&s, &GAME, Party::B, "ap", "4E6", 0));
        assert_ne!(base, derive_salt(&s, &GAME, Party::A, "at", "4E6", 0));
        assert_ne!(base, derive_salt(&s, &GAME, Party::A, "ap", "4E7", 0));
        assert_ne!(base, derive_salt(&s, &GAME, Party::A, "ap", "4E6", 1));
    }

    #[test]
    fn transition_b28_62_gives_the_new_root() {
        let mut l = layout();
        let before = l.statement();
        let lowered: Content = *b"ap4\0\0\0\0\0";
        let t = l.transition("4E7", lowered).unwrap();
        assert!(!t.is_null());
        let after = verify_transition(&before, "4E7", &t).unwrap();
        assert_eq!(after, l.statement());
        assert_ne!(after.root, before.root);
        let o = l.open("4E7").unwrap();
        assert_eq!((o.content, o.version), (lowered, 1));
        assert_eq!(verify_opening(&after, "4E7", &o), Ok(()));
        // The old opening no longer matches the new root.
        assert!(verify_opening(&after, "4E7", &t.old).is_err());
    }

    #[test]
    fn null_transition_looks_like_a_real_one_g3() {
        let mut l = layout();
        let before = l.statement();
        let null = l.transition("4E6", NONE).unwrap();
        assert!(null.is_null());
        let after = verify_transition(&before, "4E6", &null).unwrap();
        assert_ne!(after.root, before.root, "fresh salt changes the root");
        let real = l.transition("4E7", NONE).unwrap();
        assert_eq!(
            postcard::to_allocvec(&null).unwrap().len(),
            postcard::to_allocvec(&real).unwrap().len()
        );
    }

    #[test]
    fn restore_after_transitions_gives_the_same_root() {
        let mut l = layout();
        l.transition("4E7", NONE).unwrap();
        l.transition("4E6", NONE).unwrap();
        let back =
            SealedLayout::restore(GAME, Party::A, "ap", l.entries().to_vec(), *l.seed()).unwrap();
        assert_eq!(back.statement(), l.statement());
        assert_eq!(back, l);
    }

    #[test]
    fn transition_with_a_wrong_old_leaf_is_rejected_g1() {
        let mut l = layout();
        let before = l.statement();
        let mut t = l.transition("4E7", NONE).unwrap();
        t.old.content = NONE; // pretend the hex was empty
        assert!(matches!(
            verify_transition(&before, "4E7", &t),
            Err(TransitionError::OldLeaf(OpeningError::LeafMismatch { .. }))
        ));
    }

    proptest! {
        #[test]
        fn referee_tracks_the_owners_root_through_any_transitions_g1(
            keys in proptest::collection::btree_set("[0-9A-Z]{1,4}", 1..40),
            steps in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..12),
        ) {
            let locs: Vec<(String, Content)> =
                keys.iter().map(|k| (k.clone(), NONE)).collect();
            let mut owner =
                SealedLayout::seal(GAME, Party::B, "at", locs, LayoutSeed([5; 32])).unwrap();
            let mut referee = owner.statement();
            for loc in owner.locations() {
                prop_assert!(verify_opening(&referee, loc, &owner.open(loc).unwrap()).is_ok());
            }
            for (pick, v) in steps {
                let loc = owner.locations().nth(pick % keys.len()).unwrap().to_string();
                let t = owner.transition(&loc, [v; CONTENT_LEN]).unwrap();
                referee = verify_transition(&referee, &loc, &t).unwrap();
                prop_assert_eq!(&referee, &owner.statement());
                let o = owner.open(&loc).unwrap();
                prop_assert!(verify_opening(&referee, &loc, &o).is_ok());
            }
        }
    }
}
