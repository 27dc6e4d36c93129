//! Sealed facts as the protocol sees them, whatever the ruleset: a layer
//! name, an opaque location key, and a fixed-width content.
//!
//! A ruleset decides which layers it seals (ASL: `ap`, `at`, `booby`, and
//! `daisy` notes; the miniatures rules: `mines`), what a location is (a hex
//! `4E6`, a board `board4`, a 1-inch cell `c12x30`, a note opportunity
//! `opp17`) and what the [`CONTENT_LEN`] bytes of a content mean. The
//! protocol commits to them, opens them and hands them back to the ruleset
//! without ever reading them (DESIGN 2.2, 3.1).

use crate::side::Side;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// Width of every sealed content, in every ruleset: an opening's size says
/// nothing about what it opens (G3).
pub const CONTENT_LEN: usize = 8;

/// Longest [`Key`] (a layer name or a location key), in bytes. The
/// protocol's layouts accept keys up to 64 bytes (PROTOCOL.md 3); a
/// ruleset's keys are at most this, which keeps a request small and `Copy`
/// (ASL's longest is `opp4294967295`, 13 bytes; a miniatures cell
/// `c65535x65535`, 12).
pub const KEY_MAX: usize = 31;

/// A short printable ASCII name, stored inline so that requests stay
/// `Copy`: a layer name or a location key. Ordered by its bytes.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Key {
    len: u8,
    bytes: [u8; KEY_MAX],
}

/// Why a string is not a [`Key`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// Empty.
    #[error("a key may not be empty")]
    Empty,
    /// Longer than [`KEY_MAX`].
    #[error("key {0:?} is longer than {KEY_MAX} bytes")]
    TooLong(String),
    /// A byte that is not printable ASCII (space excluded).
    #[error("key {0:?} holds a character that is not printable ASCII")]
    NotPrintable(String),
}

impl Key {
    /// A key from printable ASCII (no spaces), 1 to [`KEY_MAX`] bytes.
    pub fn new(s: &str) -> Result<Key, KeyError> {
        if s.is_empty() {
            return Err(KeyError::Empty);
        }
        if s.len() > KEY_MAX {
            return Err(KeyError::TooLong(s.to_string()));
        }
        if !s.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(KeyError::NotPrintable(s.to_string()));
        }
        let mut bytes = [0u8; KEY_MAX];
        bytes[..s.len()].copy_from_slice(s.as_bytes());
        Ok(Key {
            len: s.len() as u8,
            bytes,
        })
    }

    /// The key as text.
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..usize::from(self.len)])
            .expect("keys are ASCII by construction")
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

impl Serialize for Key {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Key, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Key::new(&s).map_err(serde::de::Error::custom)
    }
}

/// A layer of sealed facts: an independent sealed layout (one leaf per
/// eligible location) or a stream of sealed notes (one per opportunity).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Layer(Key);

impl Layer {
    /// A layer by name (`ap`, `mines`).
    pub fn named(name: &str) -> Result<Layer, KeyError> {
        Key::new(name).map(Layer)
    }

    /// The protocol's name of the layer.
    pub fn name(&self) -> &str {
        self.0.as_str()
    }
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Debug for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Layer({})", self.name())
    }
}

/// Where a sealed fact sits: an opaque key the ruleset defines. The one
/// shape the protocol knows is a note opportunity, `opp{n}`: the n-th
/// placement opportunity of a note layer, whose sealed note has seq `n`
/// (DESIGN 3.2).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Location(Key);

impl Location {
    /// A location by key.
    pub fn key_of(key: &str) -> Result<Location, KeyError> {
        Key::new(key).map(Location)
    }

    /// The n-th note opportunity (`opp{n}`).
    pub fn opportunity(n: u32) -> Location {
        Location(Key::new(&format!("opp{n}")).expect("opp and a u32 fit a key"))
    }

    /// The opportunity number, if this is a note opportunity.
    pub fn as_opportunity(&self) -> Option<u32> {
        let digits = self.key().strip_prefix("opp")?;
        // Canonical decimal only, so one opportunity has one key.
        if digits.is_empty() || (digits.len() > 1 && digits.starts_with('0')) {
            return None;
        }
        digits.parse().ok()
    }

    /// The key, as sealed into the leaf.
    pub fn key(&self) -> &str {
        self.0.as_str()
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

impl fmt::Debug for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.key())
    }
}

/// The content of one sealed fact, in its fixed-width form. What the bytes
/// mean is the ruleset's; all zero is "nothing here" in every ruleset.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Content(pub [u8; CONTENT_LEN]);

impl Content {
    /// Nothing sealed here: every eligible location has a leaf, mined or not.
    pub const EMPTY: Content = Content([0; CONTENT_LEN]);

    /// Whether this is [`Content::EMPTY`].
    pub fn is_empty(&self) -> bool {
        *self == Content::EMPTY
    }
}

impl fmt::Debug for Content {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Content(")?;
        for b in self.0 {
            write!(f, "{b:02x}")?;
        }
        write!(f, ")")
    }
}

/// Why bytes are not a legal content of a layer, as the ruleset reads
/// them. The referee refuses an opening or a reveal that fails this and
/// names its author.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ContentError {
    /// The ruleset seals no such layer.
    #[error("the ruleset seals no layer {0}")]
    UnknownLayer(String),
    /// The bytes are no content of the ruleset at all.
    #[error("{0}")]
    Malformed(String),
    /// A content of the ruleset, but not one this layer may hold.
    #[error("{0}")]
    WrongLayer(String),
}

/// The engine's request for one sealed fact.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct FactRequest {
    /// Whose sealed layout (or notes) holds it.
    pub owner: Side,
    /// Which layer.
    pub layer: Layer,
    /// Which location of that layer.
    pub location: Location,
}

impl FactRequest {
    /// The fact in words for players, without its owner, when the ruleset
    /// has none of its own ([`crate::Scenario::fact_words`]): `record ap
    /// for 3E6`, `note opportunity 1` (issue 27: prompts, waits and
    /// timeouts say what is awaited in words, not as `side B at at 3E6`).
    pub fn generic_words(&self) -> String {
        match self.location.as_opportunity() {
            Some(n) => format!("{} note opportunity {n}", self.layer),
            None => format!("{} record for {}", self.layer, self.location),
        }
    }
}

/// The technical form auditors read in refusals and the oracle: owner,
/// layer key and location key (`side B ap at 3E3`); players are shown
/// [`crate::Scenario::fact_words`].
impl fmt::Display for FactRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "side {} {} at {}", self.owner, self.layer, self.location)
    }
}

/// An opened fact, answering a [`FactRequest`]. The protocol has checked
/// the opening against the owner's signed root before the engine sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Fact {
    /// The request it answers.
    pub request: FactRequest,
    /// What the leaf holds.
    pub content: Content,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_short_printable_ascii() {
        assert_eq!(Key::new("4E6").unwrap().as_str(), "4E6");
        assert_eq!(Key::new(""), Err(KeyError::Empty));
        assert!(matches!(Key::new("a b"), Err(KeyError::NotPrintable(_))));
        assert!(matches!(
            Key::new(&"x".repeat(KEY_MAX + 1)),
            Err(KeyError::TooLong(_))
        ));
        assert!(Key::new(&"x".repeat(KEY_MAX)).is_ok());
    }

    #[test]
    fn a_key_serializes_as_its_text() {
        let l = Location::key_of("c12x30").unwrap();
        let bytes = postcard::to_stdvec(&l).unwrap();
        assert_eq!(bytes, b"\x06c12x30");
        assert_eq!(postcard::from_bytes::<Location>(&bytes).unwrap(), l);
        assert!(postcard::from_bytes::<Location>(b"\x03a b").is_err());
    }

    #[test]
    fn opportunities_have_one_key_each_design_3_2() {
        assert_eq!(Location::opportunity(17).key(), "opp17");
        assert_eq!(Location::opportunity(17).as_opportunity(), Some(17));
        assert_eq!(Location::key_of("opp017").unwrap().as_opportunity(), None);
        assert_eq!(Location::key_of("4E6").unwrap().as_opportunity(), None);
        assert_eq!(
            Location::opportunity(u32::MAX).as_opportunity(),
            Some(u32::MAX)
        );
    }
}
