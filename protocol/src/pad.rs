//! Randomness pads: each contributor's committed dice entries (DESIGN 3.4).
//!
//! Each party P (side A, side B, the server) commits per epoch to N values
//!
//! ```text
//! r_(P,e,i) = HMAC-SHA256(pad_seed_P, tuple("hexveil/v1/pad", game_id, P, e, i))
//! leaf_i    = SHA-256(0x00 || tuple("hexveil/v1/pad-leaf", game_id, P, e, i, r_(P,e,i)))
//! ```
//!
//! under one RFC 6962 root, signed as a [`PadStatement`]. Any entry opens
//! alone with its audit path, so opening one entry says nothing about any
//! other (unlike a hash chain, which would leak a withheld Secret dr: G3).
//! Roll k uses entry `k mod N` of epoch `k / N` ([`PadSchedule`]); the next
//! epoch is committed before the current one runs out.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::encoding::{byte_newtype, tag, Digest, GameId, Party, PrfKey, TupleEncoder};
use crate::identity::{BadSignature, Identity, PublicKey, Signature};
use crate::merkle::{self, AuditPath, InclusionError, UpperTree};

/// Entries per pad epoch by default.
pub const DEFAULT_PAD_LEN: u32 = 4096;

/// By default the next epoch is due when fewer entries than this are left.
pub const DEFAULT_RENEW_BELOW: u32 = 64;

byte_newtype!(secret
    /// A party's secret pad seed; published at game end.
    PadSeed,
    32
);

byte_newtype!(
    /// One pad entry value r_(P,e,i).
    PadValue,
    32
);

/// Where a roll's entries sit: epoch and index within the epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct PadPosition {
    /// The pad epoch.
    pub epoch: u32,
    /// The index within the epoch.
    pub index: u32,
}

/// Bad pad parameters or positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum PadError {
    /// A pad needs at least one entry.
    #[error("a pad needs at least one entry")]
    Empty,
    /// The index is outside the pad.
    #[error("pad index {index} is outside a pad of {n} entries")]
    IndexOutOfRange {
        /// The index asked for.
        index: u32,
        /// Entries in the pad.
        n: u32,
    },
    /// The roll number needs an epoch beyond `u32::MAX`.
    #[error("roll {0} is beyond the last pad epoch")]
    RollOutOfRange(u64),
}

/// How roll numbers map to pad positions and when to renew.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PadSchedule {
    /// Entries per epoch (the same for every party and epoch of a game).
    pub n: u32,
    /// Renewal is due when fewer than this many entries are left.
    pub renew_below: u32,
}

impl Default for PadSchedule {
    fn default() -> Self {
        PadSchedule {
            n: DEFAULT_PAD_LEN,
            renew_below: DEFAULT_RENEW_BELOW,
        }
    }
}

impl PadSchedule {
    /// The pad position of roll `k`: epoch `k / n`, index `k mod n`.
    pub fn position(&self, k: u64) -> Result<PadPosition, PadError> {
        if self.n == 0 {
            return Err(PadError::Empty);
        }
        let n = u64::from(self.n);
        let epoch = u32::try_from(k / n).map_err(|_| PadError::RollOutOfRange(k))?;
        Ok(PadPosition {
            epoch,
            index: (k % n) as u32,
        })
    }

    /// If `next_roll` is close to the end of its epoch, the epoch every party
    /// must commit (sign a statement for) before the current one runs out.
    pub fn renewal_due(&self, next_roll: u64) -> Result<Option<u32>, PadError> {
        let p = self.position(next_roll)?;
        let left = self.n - p.index;
        if left < self.renew_below {
            Ok(p.epoch.checked_add(1))
        } else {
            Ok(None)
        }
    }
}

/// Derives r_(P,e,i).
pub fn pad_value(
    seed: &PadSeed,
    game_id: &GameId,
    party: Party,
    epoch: u32,
    index: u32,
) -> PadValue {
    value_with(&PrfKey::new(&seed.0), game_id, party, epoch, index)
}

fn value_with(key: &PrfKey, game_id: &GameId, party: Party, epoch: u32, index: u32) -> PadValue {
    PadValue(
        TupleEncoder::new(tag::PAD)
            .game_id(game_id)
            .party(party)
            .u32(epoch)
            .u32(index)
            .prf(key),
    )
}

/// The RFC 6962 leaf hash of one pad entry.
pub fn pad_leaf_hash(
    game_id: &GameId,
    party: Party,
    epoch: u32,
    index: u32,
    value: &PadValue,
) -> Digest {
    merkle::leaf_hash(
        &TupleEncoder::new(tag::PAD_LEAF)
            .game_id(game_id)
            .party(party)
            .u32(epoch)
            .u32(index)
            .array(&value.0)
            .finish(),
    )
}

/// The public, signed commitment to one party's pad epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PadStatement {
    /// The game.
    pub game_id: GameId,
    /// Whose pad.
    pub party: Party,
    /// The epoch.
    pub epoch: u32,
    /// Entries in the pad.
    pub n: u32,
    /// The RFC 6962 root.
    pub root: Digest,
}

impl PadStatement {
    /// The bytes the party signs:
    /// tuple("hexveil/v1/pad-sig", game_id, party, epoch, n, root).
    pub fn signing_bytes(&self) -> Vec<u8> {
        TupleEncoder::new(tag::PAD_SIG)
            .game_id(&self.game_id)
            .party(self.party)
            .u32(self.epoch)
            .u32(self.n)
            .digest(&self.root)
            .finish()
    }

    /// Signs the statement.
    pub fn sign(&self, key: &Identity) -> Signature {
        key.sign(&self.signing_bytes())
    }

    /// Checks a signature on the statement.
    pub fn verify_signature(&self, key: &PublicKey, sig: &Signature) -> Result<(), BadSignature> {
        key.verify(&self.signing_bytes(), sig)
    }
}

/// One released pad entry with its proof.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PadEntry {
    /// Whose pad.
    pub party: Party,
    /// Epoch and index.
    pub position: PadPosition,
    /// The value r.
    pub value: PadValue,
    /// The padded audit path.
    pub path: AuditPath,
}

/// Why a pad entry does not verify against a statement.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PadEntryError {
    /// The entry is from another party's pad.
    #[error("entry is from {got}'s pad, the statement is {expected}'s")]
    WrongParty {
        /// The statement's party.
        expected: Party,
        /// The entry's party.
        got: Party,
    },
    /// The entry is from another epoch.
    #[error("entry is from epoch {got}, the statement is epoch {expected}")]
    WrongEpoch {
        /// The statement's epoch.
        expected: u32,
        /// The entry's epoch.
        got: u32,
    },
    /// The audit path is malformed or the index is outside the pad.
    #[error("malformed pad proof: {0}")]
    BadPath(InclusionError),
    /// The value is not the committed one at that index (G2).
    #[error("entry value is not under the pad root at index {index}")]
    NotUnderRoot {
        /// The entry's index.
        index: u32,
    },
}

/// Verifies a pad entry against its party's statement.
pub fn verify_pad_entry(st: &PadStatement, e: &PadEntry) -> Result<(), PadEntryError> {
    if e.party != st.party {
        return Err(PadEntryError::WrongParty {
            expected: st.party,
            got: e.party,
        });
    }
    if e.position.epoch != st.epoch {
        return Err(PadEntryError::WrongEpoch {
            expected: st.epoch,
            got: e.position.epoch,
        });
    }
    let leaf = pad_leaf_hash(&st.game_id, st.party, st.epoch, e.position.index, &e.value);
    merkle::verify_inclusion(
        &leaf,
        u64::from(e.position.index),
        u64::from(st.n),
        &e.path,
        &st.root,
    )
    .map_err(|err| match err {
        InclusionError::RootMismatch { .. } => PadEntryError::NotUnderRoot {
            index: e.position.index,
        },
        other => PadEntryError::BadPath(other),
    })
}

/// A party's secret pad for one epoch.
///
/// It keeps its seed and the upper levels of its Merkle tree only: the
/// roots of chunks of about sqrt(n) entries ([`pad_chunk_bits`]) and the
/// tree over them, 2 x sqrt(n) digests (4 KiB for 4,096 entries, where the
/// whole tree took 256 KiB). [`Pad::entry`] derives the one chunk an entry
/// is in again from the seed (about sqrt(n) HMACs and hashes); the root
/// and every entry and path are exactly those of the full tree
/// ([`merkle::UpperTree`]), so nothing on the wire changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pad {
    game_id: GameId,
    party: Party,
    epoch: u32,
    seed: PadSeed,
    tree: UpperTree,
}

/// The chunks a [`Pad`] keeps the roots of hold `2^pad_chunk_bits(n)`
/// entries: about sqrt(n), which balances the digests kept against the
/// work of deriving one entry's path.
pub fn pad_chunk_bits(n: u32) -> u32 {
    (merkle::max_path_len(u64::from(n)) as u32).div_ceil(2)
}

impl Pad {
    /// Builds the pad epoch (n HMACs and the RFC 6962 tree over them, of
    /// which only the upper levels are kept).
    pub fn new(
        seed: PadSeed,
        game_id: GameId,
        party: Party,
        epoch: u32,
        n: u32,
    ) -> Result<Pad, PadError> {
        if n == 0 {
            return Err(PadError::Empty);
        }
        let key = PrfKey::new(&seed.0);
        let tree = UpperTree::build(u64::from(n), pad_chunk_bits(n), |i| {
            Self::leaf_with(&key, &game_id, party, epoch, i)
        });
        Ok(Pad {
            game_id,
            party,
            epoch,
            seed,
            tree,
        })
    }

    /// The leaf hash of entry `i` (at most `u32::MAX`: the tree has at most
    /// that many leaves).
    fn leaf_with(key: &PrfKey, game_id: &GameId, party: Party, epoch: u32, i: u64) -> Digest {
        let i = i as u32;
        let v = value_with(key, game_id, party, epoch, i);
        pad_leaf_hash(game_id, party, epoch, i, &v)
    }

    /// Entries in the pad.
    pub fn len(&self) -> u32 {
        self.tree.len() as u32
    }

    /// Always false: a pad has at least one entry.
    pub fn is_empty(&self) -> bool {
        self.tree.is_empty()
    }

    /// The public statement to sign and send.
    pub fn statement(&self) -> PadStatement {
        PadStatement {
            game_id: self.game_id,
            party: self.party,
            epoch: self.epoch,
            n: self.len(),
            root: self.tree.root(),
        }
    }

    /// The seed (published at game end).
    pub fn seed(&self) -> &PadSeed {
        &self.seed
    }

    /// The entry at `index`, with its proof (derived from the seed: the
    /// entries of its chunk and their subtree).
    pub fn entry(&self, index: u32) -> Result<PadEntry, PadError> {
        let key = PrfKey::new(&self.seed.0);
        let path = self
            .tree
            .audit_path(u64::from(index), |i| {
                Self::leaf_with(&key, &self.game_id, self.party, self.epoch, i)
            })
            .map_err(|_| PadError::IndexOutOfRange {
                index,
                n: self.len(),
            })?;
        Ok(PadEntry {
            party: self.party,
            position: PadPosition {
                epoch: self.epoch,
                index,
            },
            value: value_with(&key, &self.game_id, self.party, self.epoch, index),
            path,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GAME: GameId = GameId([0x33; 16]);

    fn pad(party: Party) -> Pad {
        Pad::new(PadSeed([party.as_byte() + 1; 32]), GAME, party, 0, 16).unwrap()
    }

    #[test]
    fn every_entry_opens_alone_against_the_signed_root_g2() {
        let p = pad(Party::A);
        let st = p.statement();
        let key = Identity::from_seed(&[4; 32]).unwrap();
        assert!(st
            .verify_signature(&key.public_key(), &st.sign(&key))
            .is_ok());
        for i in 0..16 {
            assert_eq!(verify_pad_entry(&st, &p.entry(i).unwrap()), Ok(()));
        }
        assert_eq!(
            p.entry(16).unwrap_err(),
            PadError::IndexOutOfRange { index: 16, n: 16 }
        );
    }

    #[test]
    fn entry_not_under_its_root_is_rejected_g2() {
        let p = pad(Party::B);
        let st = p.statement();
        let mut e = p.entry(5).unwrap();
        e.value.0[0] ^= 0x80; // a value chosen after the fact
        assert_eq!(
            verify_pad_entry(&st, &e),
            Err(PadEntryError::NotUnderRoot { index: 5 })
        );
        // A true entry from another pad (other seed) is not under this root.
        let other = Pad::new(PadSeed([99; 32]), GAME, Party::B, 0, 16).unwrap();
        assert!(matches!(
            verify_pad_entry(&st, &other.entry(5).unwrap()),
            Err(PadEntryError::NotUnderRoot { .. })
        ));
        // Entry 5 claimed as entry 6.
        let mut moved = p.entry(5).unwrap();
        moved.position.index = 6;
        assert!(verify_pad_entry(&st, &moved).is_err());
    }

    #[test]
    fn wrong_party_and_epoch_are_distinct_errors() {
        let a = pad(Party::A);
        let b = pad(Party::B);
        assert_eq!(
            verify_pad_entry(&a.statement(), &b.entry(0).unwrap()),
            Err(PadEntryError::WrongParty {
                expected: Party::A,
                got: Party::B
            })
        );
        let a1 = Pad::new(PadSeed([1; 32]), GAME, Party::A, 1, 16).unwrap();
        assert_eq!(
            verify_pad_entry(&a.statement(), &a1.entry(0).unwrap()),
            Err(PadEntryError::WrongEpoch {
                expected: 0,
                got: 1
            })
        );
        assert_ne!(a.statement().root, a1.statement().root);
    }

    /// The pad as the full RFC 6962 tree over all its entries gives it.
    fn full_tree(seed: &PadSeed, party: Party, epoch: u32, n: u32) -> merkle::MerkleTree {
        merkle::MerkleTree::from_leaf_hashes(
            (0..n)
                .map(|i| {
                    let v = pad_value(seed, &GAME, party, epoch, i);
                    pad_leaf_hash(&GAME, party, epoch, i, &v)
                })
                .collect(),
        )
    }

    fn assert_entry_is_the_full_trees(p: &Pad, full: &merkle::MerkleTree, i: u32) {
        let e = p.entry(i).unwrap();
        assert_eq!(e.path, full.audit_path(u64::from(i)).unwrap(), "entry {i}");
        assert_eq!(e.value, pad_value(p.seed(), &GAME, p.party, p.epoch, i));
        assert_eq!(verify_pad_entry(&p.statement(), &e), Ok(()), "entry {i}");
    }

    #[test]
    fn g2_derived_entries_and_paths_equal_the_full_trees_for_every_leaf_of_small_pads() {
        // The pad keeps only the upper levels of its tree; the root it
        // signs and every entry it releases must be byte for byte those of
        // the whole tree (G2: each verifies against the signed root), for
        // sizes that fill their chunks and sizes that do not.
        for n in [1, 2, 3, 5, 8, 16, 17, 63, 64, 65, 100, 255, 256, 257] {
            let seed = PadSeed([n as u8; 32]);
            let p = Pad::new(seed, GAME, Party::Server, 2, n).unwrap();
            let full = full_tree(&seed, Party::Server, 2, n);
            assert_eq!(p.statement().root, full.root(), "n = {n}");
            assert_eq!(p.len(), n);
            for i in 0..n {
                assert_entry_is_the_full_trees(&p, &full, i);
            }
            assert_eq!(
                p.entry(n).unwrap_err(),
                PadError::IndexOutOfRange { index: n, n }
            );
        }
    }

    #[test]
    fn g2_derived_entries_equal_the_full_trees_in_a_pad_of_4096() {
        let seed = PadSeed([7; 32]);
        let p = Pad::new(seed, GAME, Party::Server, 0, DEFAULT_PAD_LEN).unwrap();
        let full = full_tree(&seed, Party::Server, 0, DEFAULT_PAD_LEN);
        assert_eq!(p.statement().root, full.root());
        assert_eq!(pad_chunk_bits(DEFAULT_PAD_LEN), 6);
        for i in [0, 1, 63, 64, 65, 1000, 2047, 2048, 4031, 4032, 4094, 4095] {
            assert_entry_is_the_full_trees(&p, &full, i);
        }
    }

    proptest::proptest! {
        #[test]
        fn g2_any_entry_of_any_pad_is_the_full_trees(n in 1u32..600, at in proptest::prelude::any::<u32>(), s in proptest::prelude::any::<u8>()) {
            let seed = PadSeed([s; 32]);
            let p = Pad::new(seed, GAME, Party::A, 1, n).unwrap();
            let full = full_tree(&seed, Party::A, 1, n);
            proptest::prop_assert_eq!(p.statement().root, full.root());
            let i = at % n;
            let e = p.entry(i).unwrap();
            proptest::prop_assert_eq!(e.path, full.audit_path(u64::from(i)).unwrap());
        }
    }

    #[test]
    fn schedule_maps_rolls_to_epochs_and_says_when_to_renew() {
        let s = PadSchedule::default();
        assert_eq!(
            s.position(4097).unwrap(),
            PadPosition { epoch: 1, index: 1 }
        );
        assert_eq!(s.renewal_due(0).unwrap(), None);
        assert_eq!(s.renewal_due(4096 - 64).unwrap(), None);
        assert_eq!(s.renewal_due(4096 - 63).unwrap(), Some(1));
        let zero = PadSchedule {
            n: 0,
            renew_below: 1,
        };
        assert_eq!(zero.position(1), Err(PadError::Empty));
        let tiny = PadSchedule {
            n: 1,
            renew_below: 0,
        };
        assert_eq!(
            tiny.position(u64::MAX),
            Err(PadError::RollOutOfRange(u64::MAX))
        );
    }

    #[test]
    fn pad_values_are_distinct_per_party_epoch_and_index() {
        let s = PadSeed([1; 32]);
        let v = pad_value(&s, &GAME, Party::A, 0, 0);
        assert_ne!(v, pad_value(&s, &GAME, Party::B, 0, 0));
        assert_ne!(v, pad_value(&s, &GAME, Party::A, 1, 0));
        assert_ne!(v, pad_value(&s, &GAME, Party::A, 0, 1));
        assert_ne!(v, pad_value(&s, &GameId([0; 16]), Party::A, 0, 0));
    }
}
