//! The server's long-term secrets in the data directory (DESIGN 3.4, 3.5):
//! the transcript key that countersigns every appended event (a receipt
//! means "durable"), separate from the TLS key, and a master secret from
//! which each game's server pad seed is derived.
//!
//! Deriving the pad seed (HMAC-SHA256 keyed with the master secret over a
//! label and the game id) means no per-game secret has to be stored: a
//! restart recomputes the same seed for [`hexveil_protocol`]'s session
//! restore. The seed is published at game end like every seed; how it was
//! derived is never needed to verify a game. Each game's storage key
//! ([`crate::at_rest`]) is derived from the same master under another
//! label; it is never published.

use std::path::Path;

use hexveil_protocol::encoding::hmac_sha256;
use hexveil_protocol::{GameId, Identity, PadSeed, PublicKey};
use ring::rand::{SecureRandom, SystemRandom};
use thiserror::Error;

use crate::at_rest::StorageKey;
use crate::durable_file::{self, FileError};
use crate::store::LeagueSecrets;

/// File holding the transcript key (Ed25519 PKCS#8).
pub const TRANSCRIPT_KEY_FILE: &str = "transcript-key.pk8";

/// File holding the 32-byte pad master secret.
pub const PAD_MASTER_FILE: &str = "pad-master.key";

/// Label mixed into every pad seed derivation.
const PAD_SEED_LABEL: &[u8] = b"hexveil-server/pad-seed/v1";

/// Label of the league's check of a node's secrets.
const LEAGUE_CHECK_LABEL: &[u8] = b"hexveil-server/league-check/v1";

/// Why the secrets could not be loaded or created.
#[derive(Debug, Error)]
pub enum SecretsError {
    /// A file operation failed.
    #[error(transparent)]
    File(#[from] FileError),
    /// Exactly one of the two files exists: refuse to invent the other
    /// (games in the store depend on both).
    #[error("{present} exists but {missing} does not; refusing to create new server secrets next to old ones")]
    Incomplete {
        /// The file found.
        present: &'static str,
        /// The file missing.
        missing: &'static str,
    },
    /// The transcript key file is not an Ed25519 PKCS#8 document.
    #[error("{TRANSCRIPT_KEY_FILE} is not an Ed25519 PKCS#8 key: {0}")]
    BadKey(String),
    /// The pad master file is not 32 bytes.
    #[error("{PAD_MASTER_FILE} holds {0} bytes, not 32")]
    BadMaster(usize),
    /// The random generator failed.
    #[error("system random generator failed")]
    Random,
}

/// The server's transcript key and pad master secret.
pub struct ServerSecrets {
    transcript_pkcs8: Vec<u8>,
    transcript_public: PublicKey,
    pad_master: [u8; 32],
}

impl std::fmt::Debug for ServerSecrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print secrets.
        f.debug_struct("ServerSecrets")
            .field("transcript_public", &self.transcript_public)
            .finish_non_exhaustive()
    }
}

impl ServerSecrets {
    /// Load both secrets from `data_dir`, or create both on first start
    /// (durably, owner-only). Returns whether they were created.
    pub fn load_or_create(data_dir: &Path) -> Result<(Self, bool), SecretsError> {
        let key_path = data_dir.join(TRANSCRIPT_KEY_FILE);
        let master_path = data_dir.join(PAD_MASTER_FILE);
        match (key_path.exists(), master_path.exists()) {
            (true, true) => {
                let pkcs8 = durable_file::read(&key_path)?;
                let master = durable_file::read(&master_path)?;
                let master: [u8; 32] = master
                    .try_into()
                    .map_err(|m: Vec<u8>| SecretsError::BadMaster(m.len()))?;
                Ok((Self::from_parts(pkcs8, master)?, false))
            }
            (false, false) => {
                durable_file::ensure_dir(data_dir)?;
                let pkcs8 = Identity::generate_pkcs8().map_err(|_| SecretsError::Random)?;
                let mut master = [0u8; 32];
                SystemRandom::new()
                    .fill(&mut master)
                    .map_err(|_| SecretsError::Random)?;
                let secrets = Self::from_parts(pkcs8, master)?;
                durable_file::write_durably(&master_path, &secrets.pad_master)?;
                durable_file::write_durably(&key_path, &secrets.transcript_pkcs8)?;
                Ok((secrets, true))
            }
            (true, false) => Err(SecretsError::Incomplete {
                present: TRANSCRIPT_KEY_FILE,
                missing: PAD_MASTER_FILE,
            }),
            (false, true) => Err(SecretsError::Incomplete {
                present: PAD_MASTER_FILE,
                missing: TRANSCRIPT_KEY_FILE,
            }),
        }
    }

    fn from_parts(transcript_pkcs8: Vec<u8>, pad_master: [u8; 32]) -> Result<Self, SecretsError> {
        let identity = Identity::from_pkcs8(&transcript_pkcs8)
            .map_err(|e| SecretsError::BadKey(e.to_string()))?;
        Ok(ServerSecrets {
            transcript_public: identity.public_key(),
            transcript_pkcs8,
            pad_master,
        })
    }

    /// The transcript signing key (a fresh handle each call).
    pub fn transcript_identity(&self) -> Identity {
        Identity::from_pkcs8(&self.transcript_pkcs8).expect("checked when loaded")
    }

    /// The transcript key's public half, for verifiers.
    pub fn transcript_public_key(&self) -> PublicKey {
        self.transcript_public
    }

    /// The key that seals a game's log entries in the store
    /// ([`crate::at_rest`]): the same for the same game id on every start,
    /// another for every game.
    pub fn storage_key(&self, game_id: GameId) -> StorageKey {
        StorageKey::derive(&self.pad_master, game_id)
    }

    /// What the league compares of these secrets (issue 25): the
    /// transcript key and a digest of both, never the secrets themselves.
    /// Every node of a league must hold the same.
    pub fn league_secrets(&self) -> LeagueSecrets {
        let mut ctx = ring::digest::Context::new(&ring::digest::SHA256);
        ctx.update(LEAGUE_CHECK_LABEL);
        ctx.update(&self.transcript_public.0);
        ctx.update(&hmac_sha256(&self.pad_master, LEAGUE_CHECK_LABEL));
        let mut check = [0u8; 32];
        check.copy_from_slice(ctx.finish().as_ref());
        LeagueSecrets {
            transcript_key: self.transcript_public,
            check,
        }
    }

    /// The server's pad seed for a game: the same for the same game id on
    /// every start.
    pub fn pad_seed(&self, game_id: &GameId) -> PadSeed {
        let mut data = PAD_SEED_LABEL.to_vec();
        data.extend_from_slice(&game_id.0);
        PadSeed(hmac_sha256(&self.pad_master, &data))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_persist_and_seeds_are_per_game() {
        let dir = tempfile::tempdir().unwrap();
        let (a, created) = ServerSecrets::load_or_create(dir.path()).unwrap();
        assert!(created);
        let (b, created) = ServerSecrets::load_or_create(dir.path()).unwrap();
        assert!(!created);
        assert_eq!(a.transcript_public_key(), b.transcript_public_key());
        assert_eq!(
            a.transcript_identity().public_key(),
            a.transcript_public_key()
        );
        let (g1, g2) = (GameId([1; 16]), GameId([2; 16]));
        assert_eq!(a.pad_seed(&g1).0, b.pad_seed(&g1).0);
        assert_ne!(a.pad_seed(&g1).0, a.pad_seed(&g2).0);
        // Another server's seeds differ.
        let other = tempfile::tempdir().unwrap();
        let (c, _) = ServerSecrets::load_or_create(other.path()).unwrap();
        assert_ne!(a.pad_seed(&g1).0, c.pad_seed(&g1).0);
        // Issue 25: the league tells the two apart, and one server from
        // itself not.
        assert_eq!(a.league_secrets(), b.league_secrets());
        assert_ne!(a.league_secrets().check, c.league_secrets().check);
        assert!(!format!("{a:?}").contains(&hex::encode(a.pad_master)));
    }

    #[test]
    fn half_present_secrets_are_an_error() {
        let dir = tempfile::tempdir().unwrap();
        ServerSecrets::load_or_create(dir.path()).unwrap();
        std::fs::remove_file(dir.path().join(PAD_MASTER_FILE)).unwrap();
        assert!(matches!(
            ServerSecrets::load_or_create(dir.path()),
            Err(SecretsError::Incomplete {
                missing: PAD_MASTER_FILE,
                ..
            })
        ));
    }
}
