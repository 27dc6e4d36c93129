//! The hand-written, domain-tagged tuple encoding (DESIGN 3.0).
//!
//! Everything that is hashed or signed in hexveil is encoded with
//! [`TupleEncoder`], never with a serializer, so that a serializer upgrade or
//! a reordered enum can never change a hash or invalidate a signature (G5).
//!
//! The layout of a tuple is:
//!
//! 1. the domain tag: `u32` big-endian length, then the ASCII bytes of the tag
//!    (one of the constants in [`tag`]);
//! 2. the fields in a fixed order: fixed-width integers big-endian, fixed-size
//!    arrays (32-byte digests, the 16-byte game id) raw, and every
//!    variable-length field as a `u32` big-endian length followed by its bytes.
//!
//! Because every variable-length field is length-prefixed and every tag is
//! distinct, two different tuples never encode to the same bytes.

use std::fmt;

use ring::digest;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Every domain tag of protocol version 1, in one place.
///
/// A tag names the *use* of a hash or signature, so that bytes made for one
/// purpose can never be replayed as another (G5).
pub mod tag {
    /// Leaf data of a sealed layout (DESIGN 3.1).
    pub const LEAF: &str = "hexveil/v1/leaf";
    /// Reserved. Merkle interior nodes are hashed as plain RFC 6962
    /// (`0x01 || left || right`, no tag) so off-the-shelf tools can check our
    /// roots; this tag is never used for them.
    pub const NODE: &str = "hexveil/v1/node";
    /// A sealed note commitment (DESIGN 3.2).
    pub const NOTE: &str = "hexveil/v1/note";
    /// The PRF input that derives a note's salt from the notes seed.
    pub const NOTE_SALT: &str = "hexveil/v1/note-salt";
    /// The PRF input that derives a layout leaf's salt from the layout seed.
    pub const SALT: &str = "hexveil/v1/salt";
    /// The PRF input that derives a pad entry from a pad seed (DESIGN 3.4).
    pub const PAD: &str = "hexveil/v1/pad";
    /// Leaf data of a pad tree.
    pub const PAD_LEAF: &str = "hexveil/v1/pad-leaf";
    /// The seed of a public roll.
    pub const ROLL: &str = "hexveil/v1/roll";
    /// The seed of a Secret dr (B28.47).
    pub const SECRET_ROLL: &str = "hexveil/v1/secret-roll";
    /// The seed of a public roll of message version 4, whose actor gives
    /// the nonce of its declaration instead of a pad entry (PROTOCOL.md 7.1).
    pub const NONCE_ROLL: &str = "hexveil/v1/nonce-roll";
    /// The signed part of an action envelope (DESIGN 3.5).
    pub const ACTION_SIG: &str = "hexveil/v1/action-sig";
    /// A server receipt (countersignature) over an appended entry.
    pub const SERVER_SIG: &str = "hexveil/v1/server-sig";
    /// The owner's signature over a layout root statement.
    pub const ROOT_SIG: &str = "hexveil/v1/root-sig";
    /// A party's signature over a pad statement.
    pub const PAD_SIG: &str = "hexveil/v1/pad-sig";
    /// One link of the transcript head hash chain.
    pub const HEAD: &str = "hexveil/v1/head";
    /// The head of a game's log before its first entry.
    pub const GENESIS: &str = "hexveil/v1/genesis";
    /// A login challenge response.
    pub const LOGIN: &str = "hexveil/v1/login";
    /// The server's signed refusal of a player's entry.
    pub const REFUSAL: &str = "hexveil/v1/refusal";
    /// The server's signed word on what each audience was shown of one
    /// log entry (a view receipt, issue 24).
    pub const VIEW: &str = "hexveil/v1/view";
    /// The digest of what one audience was shown of one log entry.
    pub const SHOWN: &str = "hexveil/v1/shown";

    /// All tags, for tests that check they are distinct and ASCII.
    pub const ALL: &[&str] = &[
        LEAF,
        NODE,
        NOTE,
        NOTE_SALT,
        SALT,
        PAD,
        PAD_LEAF,
        ROLL,
        SECRET_ROLL,
        NONCE_ROLL,
        ACTION_SIG,
        SERVER_SIG,
        ROOT_SIG,
        PAD_SIG,
        HEAD,
        GENESIS,
        LOGIN,
        REFUSAL,
        VIEW,
        SHOWN,
    ];
}

/// Defines a fixed-size byte newtype with hex `Display`/`Debug`/`FromStr`
/// and serde that is a hex string in human-readable formats (JSON, TOML) and
/// a raw fixed-size tuple in binary ones (postcard).
macro_rules! byte_newtype {
    ($(#[$meta:meta])* $name:ident, $len:expr) => {
        $crate::encoding::byte_newtype!(@common $(#[$meta])* $name, $len);
        impl ::std::fmt::Debug for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                write!(f, "{}({})", stringify!($name), hex::encode(self.0))
            }
        }
    };
    (secret $(#[$meta:meta])* $name:ident, $len:expr) => {
        $crate::encoding::byte_newtype!(@common $(#[$meta])* $name, $len);
        impl ::std::fmt::Debug for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                // A seed is secret until game end: never print it in logs.
                write!(f, "{}(<secret>)", stringify!($name))
            }
        }
    };
    (@common $(#[$meta:meta])* $name:ident, $len:expr) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub [u8; $len]);

        impl $name {
            /// Width in bytes.
            pub const LEN: usize = $len;

            /// The raw bytes.
            pub fn as_bytes(&self) -> &[u8; $len] {
                &self.0
            }
        }

        impl From<[u8; $len]> for $name {
            fn from(b: [u8; $len]) -> Self {
                Self(b)
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(&hex::encode(self.0))
            }
        }


        impl ::std::str::FromStr for $name {
            type Err = $crate::encoding::HexError;
            fn from_str(s: &str) -> Result<Self, $crate::encoding::HexError> {
                let v = hex::decode(s).map_err(|_| $crate::encoding::HexError::NotHex)?;
                let arr: [u8; $len] = v.as_slice().try_into().map_err(|_| {
                    $crate::encoding::HexError::WrongLength {
                        expected: $len,
                        got: v.len(),
                    }
                })?;
                Ok(Self(arr))
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                if s.is_human_readable() {
                    s.serialize_str(&hex::encode(self.0))
                } else {
                    use serde::ser::SerializeTuple;
                    let mut t = s.serialize_tuple($len)?;
                    for b in &self.0 {
                        t.serialize_element(b)?;
                    }
                    t.end()
                }
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> serde::de::Visitor<'de> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                        write!(f, "{} bytes (hex in text formats)", $len)
                    }
                    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<$name, E> {
                        v.parse().map_err(E::custom)
                    }
                    fn visit_seq<A: serde::de::SeqAccess<'de>>(
                        self,
                        mut seq: A,
                    ) -> Result<$name, A::Error> {
                        let mut out = [0u8; $len];
                        for (i, slot) in out.iter_mut().enumerate() {
                            *slot = seq
                                .next_element()?
                                .ok_or_else(|| serde::de::Error::invalid_length(i, &self))?;
                        }
                        Ok($name(out))
                    }
                }
                if d.is_human_readable() {
                    d.deserialize_str(V)
                } else {
                    d.deserialize_tuple($len, V)
                }
            }
        }
    };
}
pub(crate) use byte_newtype;

/// A hex string that is not a valid fixed-size value.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum HexError {
    /// The string contains a character that is not a hex digit, or has odd length.
    #[error("not a hex string")]
    NotHex,
    /// The string decodes to the wrong number of bytes.
    #[error("expected {expected} bytes, got {got}")]
    WrongLength {
        /// Bytes the type holds.
        expected: usize,
        /// Bytes the string decoded to.
        got: usize,
    },
}

byte_newtype!(
    /// The random 16-byte id of one game; part of every hashed or signed
    /// context so nothing carries over between games (DESIGN 3.0).
    GameId,
    16
);

byte_newtype!(
    /// A SHA-256 output: a commitment, a Merkle root, an entry or head hash.
    Digest,
    32
);

impl Digest {
    /// The all-zero digest (used only as padding in audit paths).
    pub const ZERO: Digest = Digest([0u8; 32]);

    /// SHA-256 of `data`.
    pub fn sha256(data: &[u8]) -> Digest {
        let d = digest::digest(&digest::SHA256, data);
        let mut out = [0u8; 32];
        out.copy_from_slice(d.as_ref());
        Digest(out)
    }
}

/// One of the three contributors of a game: side A, side B and the server.
///
/// Encoded as one byte: A = 0, B = 1, Server = 2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Party {
    /// The first player side.
    A,
    /// The second player side.
    B,
    /// The server (referee); contributes to the dice beacon only.
    Server,
}

impl Party {
    /// All parties, in byte order.
    pub const ALL: [Party; 3] = [Party::A, Party::B, Party::Server];

    /// The byte used in every tuple encoding.
    pub fn as_byte(self) -> u8 {
        match self {
            Party::A => 0,
            Party::B => 1,
            Party::Server => 2,
        }
    }

    /// Index 0..3, same as the byte.
    pub fn index(self) -> usize {
        self.as_byte() as usize
    }

    /// True for A and B.
    pub fn is_player(self) -> bool {
        self != Party::Server
    }

    /// The other player side (`None` for the server).
    pub fn opponent(self) -> Option<Party> {
        match self {
            Party::A => Some(Party::B),
            Party::B => Some(Party::A),
            Party::Server => None,
        }
    }
}

impl TryFrom<u8> for Party {
    type Error = DecodeError;
    fn try_from(b: u8) -> Result<Self, DecodeError> {
        match b {
            0 => Ok(Party::A),
            1 => Ok(Party::B),
            2 => Ok(Party::Server),
            other => Err(DecodeError::BadParty(other)),
        }
    }
}

impl fmt::Display for Party {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Party::A => "A",
            Party::B => "B",
            Party::Server => "server",
        })
    }
}

/// Builder for one domain-tagged tuple (see the module docs for the layout).
///
/// ```
/// use hexveil_protocol::encoding::{tag, TupleEncoder};
/// let bytes = TupleEncoder::new(tag::HEAD).u64(7).var_bytes(b"xy").finish();
/// assert_eq!(&bytes[..4], &[0, 0, 0, 15]); // length of "hexveil/v1/head"
/// ```
#[derive(Debug, Clone)]
pub struct TupleEncoder {
    buf: Vec<u8>,
}

impl TupleEncoder {
    /// Starts a tuple with its domain tag (one of [`tag`]).
    ///
    /// # Panics
    /// If `domain` is not ASCII: tags are compile-time constants.
    pub fn new(domain: &str) -> Self {
        assert!(domain.is_ascii(), "domain tags are ASCII");
        let mut e = TupleEncoder {
            buf: Vec::with_capacity(128),
        };
        e.put_len(domain.len());
        e.buf.extend_from_slice(domain.as_bytes());
        e
    }

    fn put_len(&mut self, len: usize) {
        // Fields are bounded far below 4 GiB by the wire message size limits;
        // a larger field is a programming error, not bad input.
        let len = u32::try_from(len).expect("tuple field longer than u32::MAX bytes");
        self.buf.extend_from_slice(&len.to_be_bytes());
    }

    /// Appends one byte.
    pub fn u8(mut self, v: u8) -> Self {
        self.buf.push(v);
        self
    }

    /// Appends a big-endian `u16`.
    pub fn u16(mut self, v: u16) -> Self {
        self.buf.extend_from_slice(&v.to_be_bytes());
        self
    }

    /// Appends a big-endian `u32`.
    pub fn u32(mut self, v: u32) -> Self {
        self.buf.extend_from_slice(&v.to_be_bytes());
        self
    }

    /// Appends a big-endian `u64`.
    pub fn u64(mut self, v: u64) -> Self {
        self.buf.extend_from_slice(&v.to_be_bytes());
        self
    }

    /// Appends a fixed-size array raw (no length: the width is fixed by the type).
    pub fn array<const N: usize>(mut self, v: &[u8; N]) -> Self {
        self.buf.extend_from_slice(v);
        self
    }

    /// Appends a game id (16 bytes raw).
    pub fn game_id(self, g: &GameId) -> Self {
        self.array(&g.0)
    }

    /// Appends a digest (32 bytes raw).
    pub fn digest(self, d: &Digest) -> Self {
        self.array(&d.0)
    }

    /// Appends a party byte.
    pub fn party(self, p: Party) -> Self {
        self.u8(p.as_byte())
    }

    /// Appends a variable-length field: `u32` big-endian length, then bytes.
    pub fn var_bytes(mut self, v: &[u8]) -> Self {
        self.put_len(v.len());
        self.buf.extend_from_slice(v);
        self
    }

    /// Appends a string as a variable-length field of its UTF-8 bytes.
    pub fn str(self, s: &str) -> Self {
        self.var_bytes(s.as_bytes())
    }

    /// The encoded bytes.
    pub fn finish(self) -> Vec<u8> {
        self.buf
    }

    /// SHA-256 of the encoded bytes.
    pub fn sha256(self) -> Digest {
        Digest::sha256(&self.buf)
    }

    /// HMAC-SHA256 of the encoded bytes under `key` (a PRF: DESIGN 3.0).
    pub fn hmac(self, key: &[u8; 32]) -> [u8; 32] {
        PrfKey::new(key).mac(&self.buf)
    }

    /// HMAC-SHA256 of the encoded bytes under a prepared key (same output as
    /// [`Self::hmac`], without re-deriving the key's inner and outer state).
    pub fn prf(self, key: &PrfKey) -> [u8; 32] {
        key.mac(&self.buf)
    }
}

/// An HMAC-SHA256 key prepared once, for deriving many values from one seed
/// (every salt of a layout, every entry of a pad).
#[derive(Clone, Debug)]
pub struct PrfKey(ring::hmac::Key);

impl PrfKey {
    /// Prepares `seed` as an HMAC-SHA256 key.
    pub fn new(seed: &[u8; 32]) -> PrfKey {
        PrfKey(ring::hmac::Key::new(ring::hmac::HMAC_SHA256, seed))
    }

    /// HMAC-SHA256 of `data`.
    pub fn mac(&self, data: &[u8]) -> [u8; 32] {
        let tag = ring::hmac::sign(&self.0, data);
        let mut out = [0u8; 32];
        out.copy_from_slice(tag.as_ref());
        out
    }
}

/// HMAC-SHA256 (ring), used only as a PRF to derive salts and pad entries.
pub fn hmac_sha256(key: &[u8; 32], data: &[u8]) -> [u8; 32] {
    PrfKey::new(key).mac(data)
}

/// Why bytes could not be decoded as the expected tuple.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DecodeError {
    /// The bytes end before the field that was being read.
    #[error("truncated: needed {needed} more bytes, {available} available")]
    Truncated {
        /// Bytes the field needs.
        needed: usize,
        /// Bytes left.
        available: usize,
    },
    /// The tuple starts with another domain tag.
    #[error("wrong domain tag: expected {expected:?}, got {got:?}")]
    WrongTag {
        /// The tag the caller expects.
        expected: &'static str,
        /// The tag found (lossy UTF-8).
        got: String,
    },
    /// Bytes remain after the last field.
    #[error("{0} trailing bytes after the last field")]
    TrailingBytes(usize),
    /// A string field is not valid UTF-8.
    #[error("string field is not UTF-8")]
    NotUtf8,
    /// A party byte other than 0, 1, 2.
    #[error("party byte {0} is not 0 (A), 1 (B) or 2 (server)")]
    BadParty(u8),
}

/// Reader for a tuple made by [`TupleEncoder`]; the fields must be read in
/// the order they were written.
#[derive(Debug, Clone)]
pub struct TupleDecoder<'a> {
    rest: &'a [u8],
}

impl<'a> TupleDecoder<'a> {
    /// Starts reading `bytes`, which must begin with the domain tag `expected`.
    pub fn new(bytes: &'a [u8], expected: &'static str) -> Result<Self, DecodeError> {
        let mut d = TupleDecoder { rest: bytes };
        let got = d.var_bytes()?;
        if got != expected.as_bytes() {
            return Err(DecodeError::WrongTag {
                expected,
                got: String::from_utf8_lossy(got).into_owned(),
            });
        }
        Ok(d)
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        if self.rest.len() < n {
            return Err(DecodeError::Truncated {
                needed: n,
                available: self.rest.len(),
            });
        }
        let (head, tail) = self.rest.split_at(n);
        self.rest = tail;
        Ok(head)
    }

    /// Reads a fixed-size array.
    pub fn array<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    /// Reads one byte.
    pub fn u8(&mut self) -> Result<u8, DecodeError> {
        Ok(self.array::<1>()?[0])
    }

    /// Reads a big-endian `u16`.
    pub fn u16(&mut self) -> Result<u16, DecodeError> {
        Ok(u16::from_be_bytes(self.array()?))
    }

    /// Reads a big-endian `u32`.
    pub fn u32(&mut self) -> Result<u32, DecodeError> {
        Ok(u32::from_be_bytes(self.array()?))
    }

    /// Reads a big-endian `u64`.
    pub fn u64(&mut self) -> Result<u64, DecodeError> {
        Ok(u64::from_be_bytes(self.array()?))
    }

    /// Reads a game id.
    pub fn game_id(&mut self) -> Result<GameId, DecodeError> {
        Ok(GameId(self.array()?))
    }

    /// Reads a digest.
    pub fn digest(&mut self) -> Result<Digest, DecodeError> {
        Ok(Digest(self.array()?))
    }

    /// Reads a party byte.
    pub fn party(&mut self) -> Result<Party, DecodeError> {
        Party::try_from(self.u8()?)
    }

    /// Reads a length-prefixed variable-length field.
    pub fn var_bytes(&mut self) -> Result<&'a [u8], DecodeError> {
        let len = u32::from_be_bytes(self.array()?) as usize;
        self.take(len)
    }

    /// Reads a length-prefixed UTF-8 string.
    pub fn str(&mut self) -> Result<&'a str, DecodeError> {
        std::str::from_utf8(self.var_bytes()?).map_err(|_| DecodeError::NotUtf8)
    }

    /// Ends reading; fails if bytes remain.
    pub fn finish(self) -> Result<(), DecodeError> {
        if self.rest.is_empty() {
            Ok(())
        } else {
            Err(DecodeError::TrailingBytes(self.rest.len()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn tags_are_distinct_ascii_and_versioned() {
        for (i, a) in tag::ALL.iter().enumerate() {
            assert!(a.is_ascii() && a.starts_with("hexveil/v1/"), "{a}");
            for b in &tag::ALL[i + 1..] {
                assert_ne!(a, b);
            }
        }
    }

    #[test]
    fn layout_is_tag_then_big_endian_fields() {
        let bytes = TupleEncoder::new("t")
            .u8(1)
            .u16(0x0203)
            .u32(0x04050607)
            .u64(0x08090a0b0c0d0e0f)
            .var_bytes(b"ab")
            .array(&[9u8; 2])
            .finish();
        assert_eq!(
            hex::encode(bytes),
            concat!(
                "00000001",
                "74",
                "01",
                "0203",
                "04050607",
                "08090a0b0c0d0e0f",
                "00000002",
                "6162",
                "0909"
            )
        );
    }

    #[test]
    fn length_prefix_separates_adjacent_fields() {
        // ("ab","c") and ("a","bc") must not collide: G1 relies on unambiguous inputs.
        let x = TupleEncoder::new(tag::LEAF).str("ab").str("c").finish();
        let y = TupleEncoder::new(tag::LEAF).str("a").str("bc").finish();
        assert_ne!(x, y);
    }

    #[test]
    fn decoder_rejects_wrong_tag_truncation_and_trailing_bytes() {
        let b = TupleEncoder::new(tag::ROLL).u64(5).finish();
        assert!(matches!(
            TupleDecoder::new(&b, tag::PAD),
            Err(DecodeError::WrongTag { .. })
        ));
        let mut d = TupleDecoder::new(&b[..b.len() - 1], tag::ROLL).unwrap();
        assert!(matches!(d.u64(), Err(DecodeError::Truncated { .. })));
        let d = TupleDecoder::new(&b, tag::ROLL).unwrap();
        assert_eq!(d.finish(), Err(DecodeError::TrailingBytes(8)));
        assert_eq!(Party::try_from(3), Err(DecodeError::BadParty(3)));
    }

    #[test]
    fn digest_hex_round_trip_and_errors() {
        let d = Digest::sha256(b"");
        assert_eq!(
            d.to_string(),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(d.to_string().parse::<Digest>().unwrap(), d);
        assert_eq!("zz".parse::<Digest>(), Err(HexError::NotHex));
        assert_eq!(
            "00".parse::<GameId>(),
            Err(HexError::WrongLength {
                expected: 16,
                got: 1
            })
        );
    }

    #[test]
    fn byte_newtypes_serde_hex_in_json_raw_in_postcard() {
        let g = GameId([7u8; 16]);
        let j = serde_json::to_string(&g).unwrap();
        assert_eq!(j, format!("\"{}\"", "07".repeat(16)));
        assert_eq!(serde_json::from_str::<GameId>(&j).unwrap(), g);
        let p = postcard::to_allocvec(&g).unwrap();
        assert_eq!(p, vec![7u8; 16]);
        assert_eq!(postcard::from_bytes::<GameId>(&p).unwrap(), g);
    }

    proptest! {
        #[test]
        fn encoder_round_trips_through_decoder(
            a in any::<u8>(), b in any::<u16>(), c in any::<u32>(), d in any::<u64>(),
            g in any::<[u8; 16]>(), h in any::<[u8; 32]>(),
            v in proptest::collection::vec(any::<u8>(), 0..200),
            s in "\\PC{0,40}", p in 0u8..3,
        ) {
            let party = Party::try_from(p).unwrap();
            let bytes = TupleEncoder::new(tag::LEAF)
                .u8(a).u16(b).u32(c).u64(d).game_id(&GameId(g)).digest(&Digest(h))
                .var_bytes(&v).str(&s).party(party).finish();
            let mut r = TupleDecoder::new(&bytes, tag::LEAF).unwrap();
            prop_assert_eq!(r.u8().unwrap(), a);
            prop_assert_eq!(r.u16().unwrap(), b);
            prop_assert_eq!(r.u32().unwrap(), c);
            prop_assert_eq!(r.u64().unwrap(), d);
            prop_assert_eq!(r.game_id().unwrap(), GameId(g));
            prop_assert_eq!(r.digest().unwrap(), Digest(h));
            prop_assert_eq!(r.var_bytes().unwrap(), &v[..]);
            prop_assert_eq!(r.str().unwrap(), s.as_str());
            prop_assert_eq!(r.party().unwrap(), party);
            prop_assert!(r.finish().is_ok());
        }

        #[test]
        fn distinct_variable_fields_give_distinct_encodings(
            x in proptest::collection::vec(any::<u8>(), 0..20),
            y in proptest::collection::vec(any::<u8>(), 0..20),
            z in proptest::collection::vec(any::<u8>(), 0..20),
            w in proptest::collection::vec(any::<u8>(), 0..20),
        ) {
            prop_assume!((&x, &y) != (&z, &w));
            let e1 = TupleEncoder::new(tag::NOTE).var_bytes(&x).var_bytes(&y).finish();
            let e2 = TupleEncoder::new(tag::NOTE).var_bytes(&z).var_bytes(&w).finish();
            prop_assert_ne!(e1, e2);
        }
    }
}
