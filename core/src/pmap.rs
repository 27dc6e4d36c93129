//! A persistent ordered map: cloning it costs one reference count, and an
//! insert copies only the path to its key (O(log n)), sharing the rest
//! with every clone.
//!
//! The referee works on a copy of the game for every log entry and keeps
//! it only if the entry is accepted (G6), and a resolution by replay starts
//! each step from a copy of the state ([`crate::resolve`]). A part of the
//! state that grows with the game (ASL: every sealed fact opened to the
//! referee, one more for each Daisy Chain opportunity) would make each
//! entry cost more as the game goes on, and verifying a transcript
//! quadratic in its length, if it were copied whole (issue 16). Kept in a
//! [`PersistentMap`], a copy costs the same at the first entry and the
//! twenty-thousandth.
//!
//! It is an AVL tree of nodes shared behind [`Arc`]s (so a state holding
//! one stays `Send + Sync`), never changed once built: an insert builds new
//! nodes along the path and rebalances them. It does only what the
//! rulesets need: insert (a new key or a new value for a key), look up,
//! iterate in key order. [`Debug`], equality and serde are those of a
//! [`std::collections::BTreeMap`] with the same entries (serde writes and
//! reads a map), so the map replaces one without changing any encoding.

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::fmt;
use std::ops::Index;
use std::sync::Arc;

use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

type Link<K, V> = Option<Arc<Node<K, V>>>;

struct Node<K, V> {
    key: K,
    value: V,
    height: u8,
    len: usize,
    left: Link<K, V>,
    right: Link<K, V>,
}

fn height<K, V>(l: &Link<K, V>) -> u8 {
    l.as_ref().map_or(0, |n| n.height)
}

fn len<K, V>(l: &Link<K, V>) -> usize {
    l.as_ref().map_or(0, |n| n.len)
}

/// A node over `left` and `right`, which differ in height by at most 2.
fn node<K, V>(key: K, value: V, left: Link<K, V>, right: Link<K, V>) -> Arc<Node<K, V>> {
    Arc::new(Node {
        height: 1 + height(&left).max(height(&right)),
        len: 1 + len(&left) + len(&right),
        key,
        value,
        left,
        right,
    })
}

/// A balanced node over `left` and `right`, which differ in height by at
/// most 2 (as after one insert below a balanced node): one or two rotations.
fn balance<K: Clone, V: Clone>(
    key: K,
    value: V,
    left: Link<K, V>,
    right: Link<K, V>,
) -> Arc<Node<K, V>> {
    let (hl, hr) = (height(&left), height(&right));
    if hl > hr + 1 {
        let l = left.expect("the higher side is not empty");
        if height(&l.left) >= height(&l.right) {
            // Single right rotation.
            let inner = node(key, value, l.right.clone(), right);
            node(l.key.clone(), l.value.clone(), l.left.clone(), Some(inner))
        } else {
            // Left-right rotation.
            let lr = l.right.as_ref().expect("the higher side is not empty");
            let a = node(
                l.key.clone(),
                l.value.clone(),
                l.left.clone(),
                lr.left.clone(),
            );
            let b = node(key, value, lr.right.clone(), right);
            node(lr.key.clone(), lr.value.clone(), Some(a), Some(b))
        }
    } else if hr > hl + 1 {
        let r = right.expect("the higher side is not empty");
        if height(&r.right) >= height(&r.left) {
            // Single left rotation.
            let inner = node(key, value, left, r.left.clone());
            node(r.key.clone(), r.value.clone(), Some(inner), r.right.clone())
        } else {
            // Right-left rotation.
            let rl = r.left.as_ref().expect("the higher side is not empty");
            let a = node(key, value, left, rl.left.clone());
            let b = node(
                r.key.clone(),
                r.value.clone(),
                rl.right.clone(),
                r.right.clone(),
            );
            node(rl.key.clone(), rl.value.clone(), Some(a), Some(b))
        }
    } else {
        node(key, value, left, right)
    }
}

/// `n` with `key` set to `value`, and the value it replaced.
fn insert<K: Ord + Clone, V: Clone>(
    n: &Link<K, V>,
    key: K,
    value: V,
) -> (Arc<Node<K, V>>, Option<V>) {
    let Some(n) = n else {
        return (node(key, value, None, None), None);
    };
    match key.cmp(&n.key) {
        Ordering::Equal => (
            node(key, value, n.left.clone(), n.right.clone()),
            Some(n.value.clone()),
        ),
        Ordering::Less => {
            let (left, old) = insert(&n.left, key, value);
            (
                balance(n.key.clone(), n.value.clone(), Some(left), n.right.clone()),
                old,
            )
        }
        Ordering::Greater => {
            let (right, old) = insert(&n.right, key, value);
            (
                balance(n.key.clone(), n.value.clone(), n.left.clone(), Some(right)),
                old,
            )
        }
    }
}

/// An ordered map whose clones share everything (see the [module](self)).
pub struct PersistentMap<K, V> {
    root: Link<K, V>,
}

impl<K, V> PersistentMap<K, V> {
    /// An empty map.
    pub fn new() -> Self {
        PersistentMap { root: None }
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        len(&self.root)
    }

    /// Whether there is no entry.
    pub fn is_empty(&self) -> bool {
        self.root.is_none()
    }

    /// The entries in key order.
    pub fn iter(&self) -> Iter<'_, K, V> {
        let mut it = Iter {
            stack: Vec::new(),
            left: self.len(),
        };
        it.push_left(self.root.as_deref());
        it
    }

    /// The keys in order.
    pub fn keys(&self) -> impl Iterator<Item = &K> {
        self.iter().map(|(k, _)| k)
    }

    /// The values in key order.
    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.iter().map(|(_, v)| v)
    }
}

impl<K: Ord, V> PersistentMap<K, V> {
    /// The value of `key`, if it has one.
    pub fn get<Q>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        let mut at = self.root.as_deref();
        while let Some(n) = at {
            at = match key.cmp(n.key.borrow()) {
                Ordering::Equal => return Some(&n.value),
                Ordering::Less => n.left.as_deref(),
                Ordering::Greater => n.right.as_deref(),
            };
        }
        None
    }

    /// Whether `key` has a value.
    pub fn contains_key<Q>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.get(key).is_some()
    }
}

impl<K: Ord + Clone, V: Clone> PersistentMap<K, V> {
    /// Sets `key` to `value`; returns the value it had, if any. Clones
    /// made before keep what they had.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        let (root, old) = insert(&self.root, key, value);
        self.root = Some(root);
        old
    }
}

impl<K, V> Clone for PersistentMap<K, V> {
    /// Shares every entry: one reference count.
    fn clone(&self) -> Self {
        PersistentMap {
            root: self.root.clone(),
        }
    }
}

impl<K, V> Default for PersistentMap<K, V> {
    fn default() -> Self {
        PersistentMap::new()
    }
}

impl<K: fmt::Debug, V: fmt::Debug> fmt::Debug for PersistentMap<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<K: PartialEq, V: PartialEq> PartialEq for PersistentMap<K, V> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl<K: Eq, V: Eq> Eq for PersistentMap<K, V> {}

impl<K: Ord, V, Q> Index<&Q> for PersistentMap<K, V>
where
    K: Borrow<Q>,
    Q: Ord + ?Sized,
{
    type Output = V;

    /// The value of `key`; panics if it has none (as a `BTreeMap` does).
    fn index(&self, key: &Q) -> &V {
        self.get(key).expect("no entry found for key")
    }
}

impl<K: Ord + Clone, V: Clone> FromIterator<(K, V)> for PersistentMap<K, V> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let mut m = PersistentMap::new();
        for (k, v) in iter {
            m.insert(k, v);
        }
        m
    }
}

impl<K: Ord + Clone, V: Clone> Extend<(K, V)> for PersistentMap<K, V> {
    fn extend<I: IntoIterator<Item = (K, V)>>(&mut self, iter: I) {
        for (k, v) in iter {
            self.insert(k, v);
        }
    }
}

/// The entries of a [`PersistentMap`] in key order.
pub struct Iter<'a, K, V> {
    stack: Vec<&'a Node<K, V>>,
    left: usize,
}

impl<'a, K, V> Iter<'a, K, V> {
    fn push_left(&mut self, mut at: Option<&'a Node<K, V>>) {
        while let Some(n) = at {
            self.stack.push(n);
            at = n.left.as_deref();
        }
    }
}

impl<'a, K, V> Iterator for Iter<'a, K, V> {
    type Item = (&'a K, &'a V);

    fn next(&mut self) -> Option<Self::Item> {
        let n = self.stack.pop()?;
        self.push_left(n.right.as_deref());
        self.left -= 1;
        Some((&n.key, &n.value))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl<K, V> ExactSizeIterator for Iter<'_, K, V> {}

impl<'a, K, V> IntoIterator for &'a PersistentMap<K, V> {
    type Item = (&'a K, &'a V);
    type IntoIter = Iter<'a, K, V>;

    fn into_iter(self) -> Iter<'a, K, V> {
        self.iter()
    }
}

impl<K: Serialize, V: Serialize> Serialize for PersistentMap<K, V> {
    /// As a `BTreeMap` with the same entries: a map, in key order.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

impl<'de, K, V> Deserialize<'de> for PersistentMap<K, V>
where
    K: Deserialize<'de> + Ord + Clone,
    V: Deserialize<'de> + Clone,
{
    /// As a `BTreeMap`: a map (a key given twice keeps its last value).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct MapVisitor<K, V>(std::marker::PhantomData<(K, V)>);
        impl<'de, K, V> Visitor<'de> for MapVisitor<K, V>
        where
            K: Deserialize<'de> + Ord + Clone,
            V: Deserialize<'de> + Clone,
        {
            type Value = PersistentMap<K, V>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                let mut m = PersistentMap::new();
                while let Some((k, v)) = a.next_entry()? {
                    m.insert(k, v);
                }
                Ok(m)
            }
        }
        d.deserialize_map(MapVisitor(std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// Every node: balanced (heights differ by at most 1), its height and
    /// length right, its keys ordered; returns (height, len).
    fn check<K: Ord, V>(l: &Link<K, V>, lo: Option<&K>, hi: Option<&K>) -> (u8, usize) {
        let Some(n) = l else { return (0, 0) };
        assert!(lo.is_none_or(|lo| *lo < n.key) && hi.is_none_or(|hi| n.key < *hi));
        let (hl, ll) = check(&n.left, lo, Some(&n.key));
        let (hr, lr) = check(&n.right, Some(&n.key), hi);
        assert!(hl.abs_diff(hr) <= 1, "unbalanced: {hl} against {hr}");
        assert_eq!(n.height, 1 + hl.max(hr));
        assert_eq!(n.len, 1 + ll + lr);
        (n.height, n.len)
    }

    /// A deterministic sequence of keys with repeats (xorshift).
    fn keys(seed: u64, n: usize, range: u64) -> Vec<u64> {
        let mut s = seed;
        (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                s % range
            })
            .collect()
    }

    #[test]
    fn behaves_as_a_btreemap() {
        for (seed, n, range) in [(1, 2_000, 500), (7, 3_000, 1 << 40), (9, 100, 3)] {
            let mut p = PersistentMap::new();
            let mut b = BTreeMap::new();
            for (i, k) in keys(seed, n, range).into_iter().enumerate() {
                assert_eq!(p.insert(k, i), b.insert(k, i));
                assert_eq!(p.len(), b.len());
            }
            check(&p.root, None, None);
            assert!(p.iter().eq(b.iter()));
            assert_eq!(p.iter().len(), b.len());
            for k in keys(seed + 1, 500, range) {
                assert_eq!(p.get(&k), b.get(&k));
                assert_eq!(p.contains_key(&k), b.contains_key(&k));
            }
            assert_eq!(format!("{p:?}"), format!("{b:?}"));
        }
    }

    #[test]
    fn ascending_and_descending_keys_stay_balanced() {
        let up: PersistentMap<u32, ()> = (0..10_000).map(|k| (k, ())).collect();
        let down: PersistentMap<u32, ()> = (0..10_000).rev().map(|k| (k, ())).collect();
        for m in [&up, &down] {
            let (h, n) = check(&m.root, None, None);
            assert_eq!(n, 10_000);
            // An AVL tree of n nodes is at most 1.44 log2(n + 2) high.
            assert!(h <= 20, "height {h}");
            assert!(m.keys().copied().eq(0..10_000));
        }
    }

    #[test]
    fn a_clone_keeps_what_it_had() {
        let mut a: PersistentMap<u32, &str> = [(1, "one"), (2, "two")].into_iter().collect();
        let before = a.clone();
        a.insert(2, "deux");
        a.insert(3, "trois");
        let mut c = before.clone();
        c.insert(0, "zero");
        assert_eq!(format!("{before:?}"), r#"{1: "one", 2: "two"}"#);
        assert_eq!(format!("{a:?}"), r#"{1: "one", 2: "deux", 3: "trois"}"#);
        assert_eq!(format!("{c:?}"), r#"{0: "zero", 1: "one", 2: "two"}"#);
        assert_ne!(a, before);
        assert_eq!(before, [(2, "two"), (1, "one")].into_iter().collect());
        assert_eq!(a[&3], "trois");
        assert!(PersistentMap::<u8, u8>::new().is_empty());
    }

    /// The nodes of `l`, by address.
    fn nodes<K, V>(l: &Link<K, V>, out: &mut Vec<*const Node<K, V>>) {
        if let Some(n) = l {
            out.push(Arc::as_ptr(n));
            nodes(&n.left, out);
            nodes(&n.right, out);
        }
    }

    #[test]
    fn an_insert_into_a_clone_copies_one_path_and_shares_the_rest() {
        let base: PersistentMap<u32, u32> = (0..4_096).map(|k| (k * 2, k)).collect();
        let mut shared = Vec::new();
        nodes(&base.root, &mut shared);
        let shared: std::collections::BTreeSet<_> = shared.into_iter().collect();
        for key in [0, 4_095, 8_191, 9_000, 3_000] {
            let mut c = base.clone();
            c.insert(key, 1);
            let mut all = Vec::new();
            nodes(&c.root, &mut all);
            let fresh = all.iter().filter(|n| !shared.contains(n)).count();
            // The path to the key (at most the height, 13 here) and the
            // nodes its rebalancing rebuilt.
            let (h, _) = check(&c.root, None, None);
            assert!(fresh <= usize::from(h) + 2, "{fresh} nodes copied");
            assert_eq!(base.len(), 4_096);
        }
    }

    #[test]
    fn serde_is_that_of_a_btreemap() {
        let b: BTreeMap<u16, i8> = keys(3, 300, 1_000)
            .into_iter()
            .map(|k| (k as u16, ((k % 200) as i16 - 100) as i8))
            .collect();
        let p: PersistentMap<u16, i8> = b.iter().map(|(k, v)| (*k, *v)).collect();
        let bytes = postcard::to_allocvec(&b).unwrap();
        assert_eq!(postcard::to_allocvec(&p).unwrap(), bytes);
        let back: PersistentMap<u16, i8> = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(back, p);
        check(&back.root, None, None);
    }
}
