//! RFC 6962 Merkle trees, audit paths and their verification (DESIGN 3.0).
//!
//! - leaf hash = SHA-256(`0x00` || leaf data)
//! - node hash = SHA-256(`0x01` || left || right), with no domain tag, so an
//!   off-the-shelf RFC 6962 / RFC 9162 library checks our roots;
//! - a tree of n > 1 leaves splits at the largest power of two below n;
//! - the empty tree hashes to SHA-256 of the empty string.
//!
//! Domain separation lives in the leaf data: our leaves start with a tag such
//! as `hexveil/v1/leaf` (see [`crate::encoding::tag`]).
//!
//! Audit paths are *padded*: [`AuditPath`] always holds
//! [`max_path_len`]`(tree_size)` digests, the RFC 9162 path followed by
//! all-zero digests, so every opening of one tree has the same size (G3).
//! [`verify_inclusion`] requires exactly that padding.

use ring::digest;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::encoding::Digest;

/// RFC 6962 leaf hash: SHA-256(`0x00` || data).
pub fn leaf_hash(data: &[u8]) -> Digest {
    let mut ctx = digest::Context::new(&digest::SHA256);
    ctx.update(&[0x00]);
    ctx.update(data);
    to_digest(ctx.finish())
}

/// RFC 6962 interior node hash: SHA-256(`0x01` || left || right).
pub fn node_hash(left: &Digest, right: &Digest) -> Digest {
    let mut ctx = digest::Context::new(&digest::SHA256);
    ctx.update(&[0x01]);
    ctx.update(&left.0);
    ctx.update(&right.0);
    to_digest(ctx.finish())
}

fn to_digest(d: digest::Digest) -> Digest {
    let mut out = [0u8; 32];
    out.copy_from_slice(d.as_ref());
    Digest(out)
}

/// The root of the empty tree: SHA-256 of the empty string.
pub fn empty_root() -> Digest {
    Digest::sha256(b"")
}

/// The longest audit path in a tree of `tree_size` leaves: ceil(log2(size)).
pub fn max_path_len(tree_size: u64) -> usize {
    if tree_size <= 1 {
        0
    } else {
        (64 - (tree_size - 1).leading_zeros()) as usize
    }
}

/// A Merkle tree held in memory with every level, so audit paths and leaf
/// updates cost O(log n).
///
/// Levels are built bottom-up, pairing nodes left to right and carrying an
/// unpaired last node up unchanged; this gives exactly the RFC 6962 root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MerkleTree {
    /// `levels[0]` are the leaf hashes; the last level has one node (the root).
    levels: Vec<Vec<Digest>>,
}

/// A Merkle operation on an index outside the tree.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("leaf index {index} is outside a tree of {size} leaves")]
pub struct IndexOutOfRange {
    /// The index asked for.
    pub index: u64,
    /// The number of leaves.
    pub size: u64,
}

impl MerkleTree {
    /// Builds a tree over leaf hashes (already `0x00`-prefixed hashes).
    pub fn from_leaf_hashes(leaves: Vec<Digest>) -> MerkleTree {
        let mut levels = vec![leaves];
        while levels.last().map(Vec::len).unwrap_or(0) > 1 {
            let prev = levels.last().expect("non-empty levels");
            let next: Vec<Digest> = prev
                .chunks(2)
                .map(|c| {
                    if c.len() == 2 {
                        node_hash(&c[0], &c[1])
                    } else {
                        c[0]
                    }
                })
                .collect();
            levels.push(next);
        }
        MerkleTree { levels }
    }

    /// Number of leaves.
    pub fn len(&self) -> u64 {
        self.levels[0].len() as u64
    }

    /// True if the tree has no leaves.
    pub fn is_empty(&self) -> bool {
        self.levels[0].is_empty()
    }

    /// The tree head (RFC 6962 MTH).
    pub fn root(&self) -> Digest {
        match self.levels.last().and_then(|l| l.first()) {
            Some(r) if !self.is_empty() => *r,
            _ => empty_root(),
        }
    }

    /// The leaf hash at `index`.
    pub fn leaf(&self, index: u64) -> Result<Digest, IndexOutOfRange> {
        self.check(index)?;
        Ok(self.levels[0][index as usize])
    }

    fn check(&self, index: u64) -> Result<(), IndexOutOfRange> {
        if index < self.len() {
            Ok(())
        } else {
            Err(IndexOutOfRange {
                index,
                size: self.len(),
            })
        }
    }

    /// The RFC 9162 audit path PATH(index, D[n]), leaf level first, unpadded.
    pub fn rfc_path(&self, index: u64) -> Result<Vec<Digest>, IndexOutOfRange> {
        self.check(index)?;
        let mut path = Vec::with_capacity(self.levels.len());
        let mut i = index as usize;
        for level in &self.levels[..self.levels.len() - 1] {
            let sibling = i ^ 1;
            if sibling < level.len() {
                path.push(level[sibling]);
            }
            i >>= 1;
        }
        Ok(path)
    }

    /// The padded audit path for `index` (see [`AuditPath`]).
    pub fn audit_path(&self, index: u64) -> Result<AuditPath, IndexOutOfRange> {
        let mut hashes = self.rfc_path(index)?;
        hashes.resize(max_path_len(self.len()), Digest::ZERO);
        Ok(AuditPath { hashes })
    }

    /// Replaces the leaf hash at `index` and recomputes the path to the root.
    pub fn set_leaf(&mut self, index: u64, leaf: Digest) -> Result<(), IndexOutOfRange> {
        self.check(index)?;
        let mut i = index as usize;
        self.levels[0][i] = leaf;
        for lv in 1..self.levels.len() {
            let parent = i >> 1;
            let below = &self.levels[lv - 1];
            let left = parent * 2;
            let value = if left + 1 < below.len() {
                node_hash(&below[left], &below[left + 1])
            } else {
                below[left]
            };
            self.levels[lv][parent] = value;
            i = parent;
        }
        Ok(())
    }
}

/// A Merkle tree that keeps only the roots of its aligned chunks of
/// `2^chunk_bits` leaves, and its root. Neither the leaves nor the levels
/// above the chunk roots are stored; an audit path recomputes the one
/// chunk its leaf is in from a function that gives any leaf hash, and the
/// levels above from the chunk roots, so memory is n / chunk digests
/// (a server pad of 4,096 entries: 2 KiB, where keeping the levels above
/// doubled it, issue 16) and a path costs one chunk's leaves and about
/// n / chunk more hashes.
///
/// The root and every audit path are exactly those of the
/// [`MerkleTree`] over the same leaves: the nodes `chunk_bits` levels above
/// the leaves of an RFC 6962 tree are the roots of its aligned chunks (the
/// last one possibly partial), and a leaf's path is its path inside its
/// chunk followed by its chunk's path among the chunk roots.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpperTree {
    size: u64,
    chunk_bits: u32,
    /// The roots of the chunks, in order.
    chunk_roots: Vec<Digest>,
    /// The tree head, over the chunk roots.
    root: Digest,
}

impl UpperTree {
    /// Builds the upper levels of the tree of `size` leaves, `leaf(i)`
    /// giving leaf hash `i` (called once per leaf, in order), keeping the
    /// roots of chunks of `2^chunk_bits` leaves (`chunk_bits` at most 32).
    pub fn build(size: u64, chunk_bits: u32, mut leaf: impl FnMut(u64) -> Digest) -> UpperTree {
        let chunk_bits = chunk_bits.min(32);
        let chunk = 1u64 << chunk_bits;
        let mut roots = Vec::with_capacity(usize::try_from(size.div_ceil(chunk)).unwrap_or(0));
        let mut start = 0;
        while start < size {
            let end = size.min(start + chunk);
            let leaves = (start..end).map(&mut leaf).collect();
            roots.push(MerkleTree::from_leaf_hashes(leaves).root());
            start = end;
        }
        let root = MerkleTree::from_leaf_hashes(roots.clone()).root();
        UpperTree {
            size,
            chunk_bits,
            chunk_roots: roots,
            root,
        }
    }

    /// Number of leaves.
    pub fn len(&self) -> u64 {
        self.size
    }

    /// True if the tree has no leaves.
    pub fn is_empty(&self) -> bool {
        self.size == 0
    }

    /// The tree head (RFC 6962 MTH), the same as the full tree's.
    pub fn root(&self) -> Digest {
        self.root
    }

    /// The leaf indices of the chunk that holds `index`.
    pub fn chunk_of(&self, index: u64) -> std::ops::Range<u64> {
        let start = (index >> self.chunk_bits) << self.chunk_bits;
        start..self.size.min(start + (1u64 << self.chunk_bits))
    }

    /// The padded audit path for `index` (see [`AuditPath`]), equal to
    /// [`MerkleTree::audit_path`] of the full tree; `leaf(i)` is called for
    /// every leaf of `index`'s chunk ([`UpperTree::chunk_of`]) and must give
    /// the leaf hashes the tree was built from.
    pub fn audit_path(
        &self,
        index: u64,
        leaf: impl FnMut(u64) -> Digest,
    ) -> Result<AuditPath, IndexOutOfRange> {
        if index >= self.size {
            return Err(IndexOutOfRange {
                index,
                size: self.size,
            });
        }
        let range = self.chunk_of(index);
        let offset = index - range.start;
        let chunk = MerkleTree::from_leaf_hashes(range.map(leaf).collect());
        let mut hashes = chunk.rfc_path(offset)?;
        let upper = MerkleTree::from_leaf_hashes(self.chunk_roots.clone());
        hashes.extend(upper.rfc_path(index >> self.chunk_bits)?);
        hashes.resize(max_path_len(self.size), Digest::ZERO);
        Ok(AuditPath { hashes })
    }
}

/// An audit path padded with all-zero digests to [`max_path_len`] of its
/// tree, so that every opening of one tree has the same size (G3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditPath {
    /// The RFC 9162 path (sibling hashes, leaf level first), then zero padding.
    pub hashes: Vec<Digest>,
}

/// Why an inclusion proof failed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum InclusionError {
    /// The index is not below the tree size.
    #[error("leaf index {index} is outside a tree of {size} leaves")]
    IndexOutOfRange {
        /// The claimed index.
        index: u64,
        /// The tree size.
        size: u64,
    },
    /// The path does not have [`max_path_len`] entries for this tree size.
    #[error("audit path has {got} entries, a tree of this size needs {expected}")]
    WrongPathLength {
        /// Entries required.
        expected: usize,
        /// Entries given.
        got: usize,
    },
    /// A padding slot (after the real path) is not the zero digest.
    #[error("audit path padding slot {slot} is not zero")]
    BadPadding {
        /// Position of the offending entry.
        slot: usize,
    },
    /// The path leads to another root.
    #[error("audit path leads to root {computed}, not {expected}")]
    RootMismatch {
        /// The root the proof is checked against.
        expected: Digest,
        /// The root the leaf and path give.
        computed: Digest,
    },
}

/// Computes the root that `leaf` at `index` and `path` give in a tree of
/// `tree_size` leaves (RFC 9162 section 2.1.3.2), checking the padding.
pub fn root_from_path(
    leaf: &Digest,
    index: u64,
    tree_size: u64,
    path: &AuditPath,
) -> Result<Digest, InclusionError> {
    if index >= tree_size {
        return Err(InclusionError::IndexOutOfRange {
            index,
            size: tree_size,
        });
    }
    let expected = max_path_len(tree_size);
    if path.hashes.len() != expected {
        return Err(InclusionError::WrongPathLength {
            expected,
            got: path.hashes.len(),
        });
    }
    let mut fnode = index;
    let mut snode = tree_size - 1;
    let mut r = *leaf;
    for (slot, p) in path.hashes.iter().enumerate() {
        if snode == 0 {
            // The RFC path has ended; what follows must be padding.
            if *p != Digest::ZERO {
                return Err(InclusionError::BadPadding { slot });
            }
            continue;
        }
        if fnode & 1 == 1 || fnode == snode {
            r = node_hash(p, &r);
            if fnode & 1 == 0 {
                while fnode & 1 == 0 && fnode != 0 {
                    fnode >>= 1;
                    snode >>= 1;
                }
            }
        } else {
            r = node_hash(&r, p);
        }
        fnode >>= 1;
        snode >>= 1;
    }
    // snode reaches 0 within max_path_len steps for every index < size.
    debug_assert_eq!(snode, 0);
    Ok(r)
}

/// Verifies that `leaf` is at `index` in the tree of `tree_size` leaves with
/// head `root` (RFC 9162 section 2.1.3.2, plus the padding rule).
pub fn verify_inclusion(
    leaf: &Digest,
    index: u64,
    tree_size: u64,
    path: &AuditPath,
    root: &Digest,
) -> Result<(), InclusionError> {
    let computed = root_from_path(leaf, index, tree_size, path)?;
    if computed == *root {
        Ok(())
    } else {
        Err(InclusionError::RootMismatch {
            expected: *root,
            computed,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Independent naive MTH straight from RFC 6962 section 2.1.
    fn naive_root(leaves: &[Digest]) -> Digest {
        match leaves.len() {
            0 => empty_root(),
            1 => leaves[0],
            n => {
                let k = split(n);
                node_hash(&naive_root(&leaves[..k]), &naive_root(&leaves[k..]))
            }
        }
    }

    fn split(n: usize) -> usize {
        let mut k = 1;
        while k * 2 < n {
            k *= 2;
        }
        k
    }

    /// Naive PATH(m, D[n]) from RFC 6962 section 2.1.1.
    fn naive_path(m: usize, leaves: &[Digest]) -> Vec<Digest> {
        let n = leaves.len();
        if n <= 1 {
            return vec![];
        }
        let k = split(n);
        if m < k {
            let mut p = naive_path(m, &leaves[..k]);
            p.push(naive_root(&leaves[k..]));
            p
        } else {
            let mut p = naive_path(m - k, &leaves[k..]);
            p.push(naive_root(&leaves[..k]));
            p
        }
    }

    fn ct_leaves() -> Vec<Digest> {
        [
            "",
            "00",
            "10",
            "2021",
            "3031",
            "40414243",
            "5051525354555657",
            "606162636465666768696a6b6c6d6e6f",
        ]
        .iter()
        .map(|h| leaf_hash(&hex::decode(h).unwrap()))
        .collect()
    }

    #[test]
    fn rfc6962_certificate_transparency_roots() {
        let roots = [
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
            "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
            "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
            "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
            "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
            "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
            "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        ];
        let l = ct_leaves();
        for (n, want) in roots.iter().enumerate() {
            let t = MerkleTree::from_leaf_hashes(l[..n].to_vec());
            assert_eq!(t.root().to_string(), *want, "size {n}");
        }
    }

    #[test]
    fn rfc6962_certificate_transparency_inclusion_path() {
        let t = MerkleTree::from_leaf_hashes(ct_leaves());
        let p: Vec<String> = t
            .rfc_path(0)
            .unwrap()
            .iter()
            .map(|d| d.to_string())
            .collect();
        assert_eq!(
            p,
            [
                "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
                "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
                "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
            ]
        );
    }

    #[test]
    fn padded_paths_have_constant_length_per_tree() {
        // G3: an opening's size depends on the tree, not on which leaf it opens.
        let leaves: Vec<Digest> = (0..5u8).map(|i| leaf_hash(&[i])).collect();
        let t = MerkleTree::from_leaf_hashes(leaves);
        for i in 0..5 {
            assert_eq!(t.audit_path(i).unwrap().hashes.len(), 3);
        }
        assert_eq!(t.rfc_path(4).unwrap().len(), 1);
    }

    #[test]
    fn nonzero_padding_is_rejected() {
        let leaves: Vec<Digest> = (0..5u8).map(|i| leaf_hash(&[i])).collect();
        let t = MerkleTree::from_leaf_hashes(leaves);
        let mut p = t.audit_path(4).unwrap();
        p.hashes[2] = Digest([1; 32]);
        assert_eq!(
            verify_inclusion(&t.leaf(4).unwrap(), 4, 5, &p, &t.root()),
            Err(InclusionError::BadPadding { slot: 2 })
        );
    }

    #[test]
    fn out_of_range_and_wrong_length_are_distinct_errors() {
        let t = MerkleTree::from_leaf_hashes(vec![leaf_hash(b"a"), leaf_hash(b"b")]);
        let p = t.audit_path(0).unwrap();
        assert!(matches!(
            verify_inclusion(&t.leaf(0).unwrap(), 2, 2, &p, &t.root()),
            Err(InclusionError::IndexOutOfRange { .. })
        ));
        assert!(matches!(
            verify_inclusion(&t.leaf(0).unwrap(), 0, 3, &p, &t.root()),
            Err(InclusionError::WrongPathLength { .. })
        ));
        assert!(t.audit_path(2).is_err());
    }

    proptest! {
        #[test]
        fn every_leaf_proof_verifies_and_tampering_fails(n in 1usize..70, seed in any::<u8>()) {
            let leaves: Vec<Digest> =
                (0..n).map(|i| leaf_hash(&[seed, i as u8, (i >> 8) as u8])).collect();
            let t = MerkleTree::from_leaf_hashes(leaves.clone());
            prop_assert_eq!(t.root(), naive_root(&leaves));
            let size = n as u64;
            for i in 0..n {
                let idx = i as u64;
                prop_assert_eq!(t.rfc_path(idx).unwrap(), naive_path(i, &leaves));
                let p = t.audit_path(idx).unwrap();
                prop_assert!(verify_inclusion(&leaves[i], idx, size, &p, &t.root()).is_ok());
                // Tampered leaf.
                let bad = leaf_hash(b"tampered");
                prop_assert!(verify_inclusion(&bad, idx, size, &p, &t.root()).is_err());
                // Tampered path entry.
                if !p.hashes.is_empty() {
                    let mut q = p.clone();
                    q.hashes[0].0[0] ^= 1;
                    prop_assert!(verify_inclusion(&leaves[i], idx, size, &q, &t.root()).is_err());
                }
                // Same proof claimed for another index.
                if n > 1 {
                    let other = (idx + 1) % size;
                    prop_assert!(verify_inclusion(&leaves[i], other, size, &p, &t.root()).is_err());
                }
            }
        }

        #[test]
        fn upper_tree_root_and_paths_equal_the_full_tree(n in 0u64..300, bits in 0u32..9, seed in any::<u8>()) {
            // The compact tree must publish the same root and open every
            // leaf with the same padded path as the full tree (G2: a pad's
            // entries verify against the root it signed).
            let leaf = |i: u64| leaf_hash(&[seed, i as u8, (i >> 8) as u8]);
            let full = MerkleTree::from_leaf_hashes((0..n).map(leaf).collect());
            let upper = UpperTree::build(n, bits, leaf);
            prop_assert_eq!(upper.len(), n);
            prop_assert_eq!(upper.root(), full.root());
            for i in 0..n {
                let mut asked = Vec::new();
                let path = upper.audit_path(i, |j| { asked.push(j); leaf(j) }).unwrap();
                prop_assert_eq!(&path, &full.audit_path(i).unwrap());
                prop_assert_eq!(asked, upper.chunk_of(i).collect::<Vec<_>>());
                prop_assert!(verify_inclusion(&leaf(i), i, n, &path, &full.root()).is_ok());
            }
            prop_assert!(upper.audit_path(n, leaf).is_err());
        }

        #[test]
        fn set_leaf_matches_rebuild(n in 1usize..40, at in any::<usize>()) {
            let mut leaves: Vec<Digest> = (0..n).map(|i| leaf_hash(&[i as u8])).collect();
            let mut t = MerkleTree::from_leaf_hashes(leaves.clone());
            let i = at % n;
            leaves[i] = leaf_hash(b"new");
            t.set_leaf(i as u64, leaves[i]).unwrap();
            prop_assert_eq!(t.root(), naive_root(&leaves));
        }
    }
}
