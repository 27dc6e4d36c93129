//! Game logs sealed at rest: every log entry a game appends to the store is
//! encrypted and authenticated (ChaCha20-Poly1305, ring) under a key that
//! only the server's data directory can give ([`StorageKey`], derived from
//! the master secret in [`crate::secrets`]).
//!
//! The store, and so whoever can read the database or its backups and
//! replicas (a shared PostgreSQL for a league, DESIGN 5), sees no opened
//! fact, no Secret dr and no escrowed setup (DESIGN 3.6: the escrow is
//! "encrypted to the server") until the game ends, when the whole
//! transcript is stored in the clear because it is public. The key of one
//! game opens nothing of another.
//!
//! A sealed entry is `version (1 byte) || ciphertext || tag (16 bytes)`.
//! The nonce is the entry's seq, and the associated data names the game and
//! the seq, so an entry moved to another place or another game does not
//! open: a store that reorders or swaps entries is caught on restore.

use hexveil_protocol::encoding::hmac_sha256;
use hexveil_protocol::GameId;
use ring::aead::{Aad, LessSafeKey, Nonce, UnboundKey, CHACHA20_POLY1305};
use thiserror::Error;

/// Version byte of a sealed entry.
pub const SEALED_VERSION: u8 = 1;

/// Label mixed into every storage key derivation.
const LABEL: &[u8] = b"hexveil-server/storage-key/v1";

/// Domain of the associated data.
const AAD_TAG: &[u8] = b"hexveil-server/log-entry/v1";

/// Why stored bytes are not an entry sealed by this server for this place.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AtRestError {
    /// Too short to hold the version and the tag.
    #[error("stored entry {seq} is {len} bytes, too short to be sealed")]
    Short {
        /// The entry's seq.
        seq: u64,
        /// Its length.
        len: usize,
    },
    /// An unknown version byte.
    #[error("stored entry {seq} has seal version {version}, expected {SEALED_VERSION}")]
    Version {
        /// The entry's seq.
        seq: u64,
        /// The version found.
        version: u8,
    },
    /// The tag does not check: another key (another server or game), another
    /// place in the log, or changed bytes.
    #[error("stored entry {seq} does not open with this game's key at this place: changed, moved, or sealed by another server")]
    Tampered {
        /// The entry's seq.
        seq: u64,
    },
}

/// One game's storage key.
pub struct StorageKey {
    game_id: GameId,
    key: LessSafeKey,
}

impl std::fmt::Debug for StorageKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print the key.
        f.debug_struct("StorageKey")
            .field("game_id", &self.game_id)
            .finish_non_exhaustive()
    }
}

impl StorageKey {
    /// The key of `game_id` under the server's master secret.
    pub fn derive(master: &[u8; 32], game_id: GameId) -> StorageKey {
        let mut data = LABEL.to_vec();
        data.extend_from_slice(&game_id.0);
        let bytes = hmac_sha256(master, &data);
        let key = UnboundKey::new(&CHACHA20_POLY1305, &bytes)
            .expect("a 32-byte key is a ChaCha20-Poly1305 key");
        StorageKey {
            game_id,
            key: LessSafeKey::new(key),
        }
    }

    fn nonce(seq: u64) -> Nonce {
        let mut n = [0u8; 12];
        n[4..].copy_from_slice(&seq.to_be_bytes());
        Nonce::assume_unique_for_key(n)
    }

    fn aad(&self, seq: u64) -> Vec<u8> {
        let mut aad = AAD_TAG.to_vec();
        aad.extend_from_slice(&self.game_id.0);
        aad.extend_from_slice(&seq.to_be_bytes());
        aad
    }

    /// Seals the entry at `seq`. Each seq of a game is sealed once (the log
    /// is append-only), so the nonce is never reused under a key.
    pub fn seal(&self, seq: u64, entry: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(1 + entry.len() + CHACHA20_POLY1305.tag_len());
        out.push(SEALED_VERSION);
        out.extend_from_slice(entry);
        let tag = self
            .key
            .seal_in_place_separate_tag(Self::nonce(seq), Aad::from(self.aad(seq)), &mut out[1..])
            .expect("an in-memory entry is far below ChaCha20-Poly1305's limit");
        out.extend_from_slice(tag.as_ref());
        out
    }

    /// Opens the entry stored at `seq`.
    pub fn open(&self, seq: u64, stored: &[u8]) -> Result<Vec<u8>, AtRestError> {
        let tag_len = CHACHA20_POLY1305.tag_len();
        if stored.len() < 1 + tag_len {
            return Err(AtRestError::Short {
                seq,
                len: stored.len(),
            });
        }
        if stored[0] != SEALED_VERSION {
            return Err(AtRestError::Version {
                seq,
                version: stored[0],
            });
        }
        let mut buf = stored[1..].to_vec();
        let n = self
            .key
            .open_in_place(Self::nonce(seq), Aad::from(self.aad(seq)), &mut buf)
            .map_err(|_| AtRestError::Tampered { seq })?
            .len();
        buf.truncate(n);
        Ok(buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MASTER: [u8; 32] = [7; 32];
    const GAME: GameId = GameId([1; 16]);

    #[test]
    fn design_3_6_an_entry_opens_where_it_was_sealed_and_hides_its_bytes() {
        let key = StorageKey::derive(&MASTER, GAME);
        let entry = b"escrow: seed 0123456789abcdef".to_vec();
        let sealed = key.seal(5, &entry);
        assert_eq!(sealed[0], SEALED_VERSION);
        assert!(!sealed.windows(6).any(|w| w == b"escrow"));
        assert_eq!(key.open(5, &sealed).unwrap(), entry);
    }

    #[test]
    fn g6_a_moved_swapped_or_changed_entry_does_not_open() {
        let key = StorageKey::derive(&MASTER, GAME);
        let sealed = key.seal(5, b"entry five");
        // Another place in the log.
        assert_eq!(key.open(6, &sealed), Err(AtRestError::Tampered { seq: 6 }));
        // Another game, same server.
        let other = StorageKey::derive(&MASTER, GameId([2; 16]));
        assert_eq!(
            other.open(5, &sealed),
            Err(AtRestError::Tampered { seq: 5 })
        );
        // Another server.
        let foreign = StorageKey::derive(&[8; 32], GAME);
        assert_eq!(
            foreign.open(5, &sealed),
            Err(AtRestError::Tampered { seq: 5 })
        );
        // A flipped bit anywhere after the version.
        for i in 1..sealed.len() {
            let mut bad = sealed.clone();
            bad[i] ^= 1;
            assert_eq!(key.open(5, &bad), Err(AtRestError::Tampered { seq: 5 }));
        }
        let mut bad = sealed.clone();
        bad[0] = 9;
        assert_eq!(
            key.open(5, &bad),
            Err(AtRestError::Version { seq: 5, version: 9 })
        );
        assert!(matches!(
            key.open(5, &[1, 2, 3]),
            Err(AtRestError::Short { seq: 5, len: 3 })
        ));
    }
}
