//! Ed25519 login bound to the TLS session (DESIGN section 5, G6).
//!
//! The server sends a fresh random 32-byte challenge. Both ends derive 32
//! bytes from the TLS session with the keying-material exporter (label
//! [`EXPORTER_LABEL`], context = the challenge). The client signs the tuple
//! encoding of (tag [`LOGIN_TAG`], exporter, challenge, public key). A login
//! relayed or replayed on another connection fails: that connection has
//! another exporter value.
//!
//! Tuple encoding (DESIGN section 3.0): `u32` big-endian length of the tag,
//! the tag's ASCII bytes, then the fixed-width fields raw: exporter (32),
//! challenge (32), public key (32), built with the protocol crate's
//! [`TupleEncoder`] and tag [`tag::LOGIN`].

use hexveil_protocol::encoding::{tag, TupleEncoder};
use hexveil_protocol::Identity;
use ring::rand::{SecureRandom, SystemRandom};
use ring::signature::{self, UnparsedPublicKey};
use thiserror::Error;

use crate::wire::PublicKey;

/// Domain tag of the login signature (`hexveil/v1/login`).
pub const LOGIN_TAG: &str = tag::LOGIN;

/// Label for TLS keying-material export.
pub const EXPORTER_LABEL: &[u8] = b"EXPORTER-hexveil-login";

/// A login challenge: 32 random bytes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Challenge(pub [u8; 32]);

/// 32 bytes exported from the TLS session for one challenge.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Exporter(pub [u8; 32]);

/// Why a login failed.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum LoginError {
    /// The system random generator failed.
    #[error("system random generator failed")]
    Random,
    /// The TLS session could not export keying material.
    #[error("TLS keying-material export failed: {0}")]
    Export(String),
    /// The signature does not verify for this key, session and challenge.
    #[error("login signature does not verify for key {0} on this connection")]
    BadSignature(PublicKey),
    /// The PKCS#8 bytes are not an Ed25519 key pair ring accepts.
    #[error("not an Ed25519 PKCS#8 key: {0}")]
    BadKey(String),
}

impl Challenge {
    /// A fresh challenge from the system random generator.
    pub fn random(rng: &SystemRandom) -> Result<Self, LoginError> {
        let mut c = [0u8; 32];
        rng.fill(&mut c).map_err(|_| LoginError::Random)?;
        Ok(Challenge(c))
    }
}

/// The exporter value of a QUIC connection for a challenge; both ends get the
/// same bytes.
pub fn exporter(conn: &quinn::Connection, challenge: &Challenge) -> Result<Exporter, LoginError> {
    let mut out = [0u8; 32];
    conn.export_keying_material(&mut out, EXPORTER_LABEL, &challenge.0)
        .map_err(|e| LoginError::Export(format!("{e:?}")))?;
    Ok(Exporter(out))
}

/// The signed bytes: tuple encoding of tag, exporter, challenge, key.
pub fn login_message(exporter: &Exporter, challenge: &Challenge, key: &PublicKey) -> Vec<u8> {
    TupleEncoder::new(LOGIN_TAG)
        .array(&exporter.0)
        .array(&challenge.0)
        .array(&key.0)
        .finish()
}

/// A player's login key: the protocol crate's [`Identity`], the same key
/// that signs the player's game actions.
#[derive(Debug)]
pub struct LoginKey {
    identity: Identity,
}

impl LoginKey {
    /// Parse an Ed25519 PKCS#8 document (v2 as ring generates it, or v1).
    pub fn from_pkcs8(bytes: &[u8]) -> Result<Self, LoginError> {
        let identity =
            Identity::from_pkcs8(bytes).map_err(|e| LoginError::BadKey(e.to_string()))?;
        Ok(LoginKey { identity })
    }

    /// Wrap an identity already loaded.
    pub fn from_identity(identity: Identity) -> Self {
        LoginKey { identity }
    }

    /// The public key.
    pub fn public_key(&self) -> PublicKey {
        self.identity.public_key()
    }

    /// Sign the login tuple for this session and challenge.
    pub fn sign(&self, exporter: &Exporter, challenge: &Challenge) -> Vec<u8> {
        let msg = login_message(exporter, challenge, &self.public_key());
        self.identity.sign(&msg).0.to_vec()
    }
}

/// Check a login signature with ring's Ed25519 verifier.
pub fn verify_login(
    key: &PublicKey,
    exporter: &Exporter,
    challenge: &Challenge,
    signature: &[u8],
) -> Result<(), LoginError> {
    UnparsedPublicKey::new(&signature::ED25519, key.0)
        .verify(&login_message(exporter, challenge, key), signature)
        .map_err(|_| LoginError::BadSignature(*key))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> LoginKey {
        LoginKey::from_pkcs8(&Identity::generate_pkcs8().unwrap()).unwrap()
    }

    #[test]
    fn message_layout_is_tuple_encoding() {
        let m = login_message(&Exporter([1; 32]), &Challenge([2; 32]), &PublicKey([3; 32]));
        assert_eq!(&m[..4], &[0, 0, 0, 16]);
        assert_eq!(&m[4..20], b"hexveil/v1/login");
        assert_eq!(&m[20..52], &[1; 32]);
        assert_eq!(&m[52..84], &[2; 32]);
        assert_eq!(&m[84..], &[3; 32]);
    }

    #[test]
    fn sign_verify_and_binding() {
        let k = key();
        let (e, c) = (Exporter([9; 32]), Challenge([8; 32]));
        let sig = k.sign(&e, &c);
        verify_login(&k.public_key(), &e, &c, &sig).unwrap();
        // Another session (exporter) or challenge: refused.
        assert!(verify_login(&k.public_key(), &Exporter([7; 32]), &c, &sig).is_err());
        assert!(verify_login(&k.public_key(), &e, &Challenge([7; 32]), &sig).is_err());
        // Another key claiming this signature: refused, and the error names it.
        let other = key().public_key();
        assert_eq!(
            verify_login(&other, &e, &c, &sig),
            Err(LoginError::BadSignature(other))
        );
    }

    #[test]
    fn bad_pkcs8_rejected() {
        assert!(matches!(
            LoginKey::from_pkcs8(b"nope"),
            Err(LoginError::BadKey(_))
        ));
    }
}
