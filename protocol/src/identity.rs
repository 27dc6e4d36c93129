//! Ed25519 identities (ring 0.17): players' keys and the server's transcript
//! key (DESIGN 3.0, 3.5). No file IO: key documents are returned as bytes and
//! the caller stores them.

use std::cell::Cell;
use std::fmt;

use ring::rand::SystemRandom;
use ring::signature::{self, Ed25519KeyPair, KeyPair, UnparsedPublicKey};
use thiserror::Error;

use crate::encoding::byte_newtype;

byte_newtype!(
    /// An Ed25519 public key (32 bytes), shown as hex.
    PublicKey,
    32
);

byte_newtype!(
    /// An Ed25519 signature (64 bytes), shown as hex.
    Signature,
    64
);

/// A key could not be made or loaded, or a signature did not verify.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum IdentityError {
    /// The system random number generator failed.
    #[error("the system random number generator failed")]
    RandomFailed,
    /// The bytes are not a valid Ed25519 PKCS#8 (v1 or v2) document.
    #[error("not a valid Ed25519 PKCS#8 key document")]
    BadKeyDocument,
    /// The 32-byte seed could not be turned into a key pair.
    #[error("invalid Ed25519 seed")]
    BadSeed,
}

/// The signature does not verify under the given key and message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("Ed25519 signature does not verify under key {0}")]
pub struct BadSignature(pub PublicKey);

/// p = 2^255 - 19, little-endian.
const P: [u8; 32] = {
    let mut p = [0xff; 32];
    p[0] = 0xed;
    p[31] = 0x7f;
    p
};

/// The y-coordinates (little-endian) of the eight points of small order
/// (dividing 8): y = 1 (the identity), p - 1 (order 2), 0 (order 4, two
/// points) and the two y of the four points of order 8.
const SMALL_ORDER_Y: [[u8; 32]; 5] = {
    let mut one = [0; 32];
    one[0] = 1;
    let mut minus_one = P;
    minus_one[0] = 0xec;
    [
        one,
        minus_one,
        [0; 32],
        [
            0x26, 0xe8, 0x95, 0x8f, 0xc2, 0xb2, 0x27, 0xb0, 0x45, 0xc3, 0xf4, 0x89, 0xf2, 0xef,
            0x98, 0xf0, 0xd5, 0xdf, 0xac, 0x05, 0xd3, 0xc6, 0x33, 0x39, 0xb1, 0x38, 0x02, 0x88,
            0x6d, 0x53, 0xfc, 0x05,
        ],
        [
            0xc7, 0x17, 0x6a, 0x70, 0x3d, 0x4d, 0xd8, 0x4f, 0xba, 0x3c, 0x0b, 0x76, 0x0d, 0x10,
            0x67, 0x0f, 0x2a, 0x20, 0x53, 0xfa, 0x2c, 0x39, 0xcc, 0xc6, 0x4e, 0xc7, 0xfd, 0x77,
            0x92, 0xac, 0x03, 0x7a,
        ],
    ]
};

/// Why 32 bytes are not a public key hexveil accepts (PROTOCOL.md 5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum KeyProblem {
    /// The y-coordinate is not reduced: y >= p (a second encoding of a
    /// point that has a canonical one).
    #[error("not a canonical Ed25519 point encoding (y >= 2^255 - 19)")]
    NonCanonical,
    /// A point of small order (the identity, the point of order 2, the
    /// points of order 4 and 8): a "signature" under it can be made for
    /// any message, so it proves no authorship.
    #[error("a point of small order, under which signatures prove nothing")]
    SmallOrder,
}

impl PublicKey {
    /// Whether the key is one hexveil accepts: a canonical encoding (y <
    /// p) of a point not of small order (PROTOCOL.md 5). Whether it is on
    /// the curve at all is checked by the signature check.
    pub fn check(&self) -> Result<(), KeyProblem> {
        let mut y = self.0;
        y[31] &= 0x7f;
        // Little-endian compare y >= p, from the most significant byte.
        let not_reduced = y.iter().rev().cmp(P.iter().rev()) != std::cmp::Ordering::Less;
        if not_reduced {
            return Err(KeyProblem::NonCanonical);
        }
        if SMALL_ORDER_Y.contains(&y) {
            return Err(KeyProblem::SmallOrder);
        }
        Ok(())
    }

    /// Verifies `sig` over `msg` (PROTOCOL.md 5): RFC 8032 Ed25519 with
    /// the key refused unless [`PublicKey::check`] passes, `S` refused
    /// unless `S < L`, and `R` compared byte for byte with the canonical
    /// encoding of `[S]B - [k]A` (cofactorless; ring 0.17 does the last
    /// two), so every encoding or edge case is refused or accepted by a
    /// rule stated in the spec, not by what one library happens to do.
    pub fn verify(&self, msg: &[u8], sig: &Signature) -> Result<(), BadSignature> {
        COUNTS.with(|c| c.verified.set(c.verified.get() + 1));
        self.check().map_err(|_| BadSignature(*self))?;
        UnparsedPublicKey::new(&signature::ED25519, &self.0)
            .verify(msg, &sig.0)
            .map_err(|_| BadSignature(*self))
    }
}

/// How many Ed25519 signatures this thread has made and verified
/// ([`Identity::sign`], [`PublicKey::verify`]) since it started: what
/// BENCHMARKS.md counts per action (issue 30). A sans-IO session and
/// players driven from one thread give each party's count exactly; the
/// counters cost a thread-local add beside a signature's tens of
/// microseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SignatureCounts {
    /// Signatures made.
    pub made: u64,
    /// Signatures verified (valid or not).
    pub verified: u64,
}

impl SignatureCounts {
    /// This thread's counts so far.
    pub fn now() -> SignatureCounts {
        COUNTS.with(|c| SignatureCounts {
            made: c.made.get(),
            verified: c.verified.get(),
        })
    }

    /// What this thread made and verified since `earlier` (its counts
    /// then).
    pub fn since(earlier: SignatureCounts) -> SignatureCounts {
        let now = SignatureCounts::now();
        SignatureCounts {
            made: now.made - earlier.made,
            verified: now.verified - earlier.verified,
        }
    }
}

struct Counters {
    made: Cell<u64>,
    verified: Cell<u64>,
}

thread_local! {
    static COUNTS: Counters = const {
        Counters {
            made: Cell::new(0),
            verified: Cell::new(0),
        }
    };
}

/// An Ed25519 key pair able to sign.
pub struct Identity {
    pair: Ed25519KeyPair,
    public: PublicKey,
}

impl fmt::Debug for Identity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print the secret key.
        write!(f, "Identity({})", self.public)
    }
}

impl Identity {
    /// Generates a fresh key from the system RNG and returns its PKCS#8 v2
    /// document; load it with [`Identity::from_pkcs8`] after storing it.
    pub fn generate_pkcs8() -> Result<Vec<u8>, IdentityError> {
        let rng = SystemRandom::new();
        let doc = Ed25519KeyPair::generate_pkcs8(&rng).map_err(|_| IdentityError::RandomFailed)?;
        Ok(doc.as_ref().to_vec())
    }

    /// Loads a key from a PKCS#8 document (v2 with public key, or v1).
    pub fn from_pkcs8(doc: &[u8]) -> Result<Identity, IdentityError> {
        let pair = Ed25519KeyPair::from_pkcs8_maybe_unchecked(doc)
            .map_err(|_| IdentityError::BadKeyDocument)?;
        Ok(Self::wrap(pair))
    }

    /// Builds a key from a raw 32-byte seed. For test vectors and
    /// deterministic fixtures; real keys come from [`Identity::generate_pkcs8`].
    pub fn from_seed(seed: &[u8; 32]) -> Result<Identity, IdentityError> {
        let pair = Ed25519KeyPair::from_seed_unchecked(seed).map_err(|_| IdentityError::BadSeed)?;
        Ok(Self::wrap(pair))
    }

    fn wrap(pair: Ed25519KeyPair) -> Identity {
        let mut pk = [0u8; 32];
        pk.copy_from_slice(pair.public_key().as_ref());
        Identity {
            pair,
            public: PublicKey(pk),
        }
    }

    /// The public key.
    pub fn public_key(&self) -> PublicKey {
        self.public
    }

    /// Signs `msg` (deterministic: Ed25519).
    pub fn sign(&self, msg: &[u8]) -> Signature {
        COUNTS.with(|c| c.made.set(c.made.get() + 1));
        let mut out = [0u8; 64];
        out.copy_from_slice(self.pair.sign(msg).as_ref());
        Signature(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_key_round_trips_through_pkcs8_and_signs() {
        let doc = Identity::generate_pkcs8().unwrap();
        let id = Identity::from_pkcs8(&doc).unwrap();
        let again = Identity::from_pkcs8(&doc).unwrap();
        assert_eq!(id.public_key(), again.public_key());
        let sig = id.sign(b"move");
        assert_eq!(id.public_key().verify(b"move", &sig), Ok(()));
    }

    #[test]
    fn small_order_and_non_canonical_keys_sign_nothing_g5() {
        // With the identity as key, R = identity and S = 0 satisfy the
        // cofactorless equation for every message: ring 0.17 accepts it.
        let mut one = [0u8; 32];
        one[0] = 1;
        let mut forged = [0u8; 64];
        forged[0] = 1;
        assert!(UnparsedPublicKey::new(&signature::ED25519, &one)
            .verify(b"anything", &forged)
            .is_ok());
        let key = PublicKey(one);
        assert_eq!(key.check(), Err(KeyProblem::SmallOrder));
        assert!(key.verify(b"anything", &Signature(forged)).is_err());
        // y = p + 1, a second encoding of the identity.
        let mut p1 = P;
        p1[0] = 0xee;
        assert_eq!(PublicKey(p1).check(), Err(KeyProblem::NonCanonical));
        // x = 0 with the sign bit set.
        let mut signed_one = one;
        signed_one[31] = 0x80;
        assert_eq!(PublicKey(signed_one).check(), Err(KeyProblem::SmallOrder));
        // A real key passes.
        let id = Identity::from_seed(&[7; 32]).unwrap();
        assert_eq!(id.public_key().check(), Ok(()));
    }

    #[test]
    fn forged_signature_is_rejected_g5() {
        let id = Identity::from_seed(&[1; 32]).unwrap();
        let other = Identity::from_seed(&[2; 32]).unwrap();
        let mut sig = id.sign(b"msg");
        // Wrong message, wrong key, flipped bit: all rejected.
        assert!(id.public_key().verify(b"msh", &sig).is_err());
        assert!(other.public_key().verify(b"msg", &sig).is_err());
        sig.0[10] ^= 1;
        assert_eq!(
            id.public_key().verify(b"msg", &sig),
            Err(BadSignature(id.public_key()))
        );
    }

    #[test]
    fn garbage_key_document_is_a_clear_error() {
        assert_eq!(
            Identity::from_pkcs8(b"not a key").unwrap_err(),
            IdentityError::BadKeyDocument
        );
    }

    #[test]
    fn rfc8032_test_1_public_key_and_signature() {
        // RFC 8032 section 7.1, TEST 1 (empty message).
        let seed: [u8; 32] =
            hex::decode("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
                .unwrap()
                .try_into()
                .unwrap();
        let id = Identity::from_seed(&seed).unwrap();
        assert_eq!(
            id.public_key().to_string(),
            "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
        );
        assert_eq!(
            id.sign(b"").to_string(),
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155\
             5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
        );
    }
}
