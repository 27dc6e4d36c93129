//! `hexveil keygen` and `hexveil whoami`: a player's Ed25519 key as a
//! PKCS#8 file (the same key logs in to the server and signs every entry).

use super::files::{self, FileError};
use hexveil_protocol::identity::Identity;
use std::path::Path;
use thiserror::Error;

/// Why a key could not be made or read.
#[derive(Debug, Error)]
pub enum KeyError {
    /// The file could not be written or read.
    #[error(transparent)]
    File(#[from] FileError),
    /// The key could not be generated.
    #[error("cannot generate a key: {0}")]
    Generate(String),
    /// The file is not an Ed25519 PKCS#8 key.
    #[error("{path} is not an Ed25519 PKCS#8 key file: {reason}")]
    Bad {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
}

/// Makes a new key and writes it durably to `out` (never overwriting).
/// Returns the public key.
pub fn keygen(out: &Path) -> Result<Identity, KeyError> {
    let pkcs8 = Identity::generate_pkcs8().map_err(|e| KeyError::Generate(e.to_string()))?;
    let id = Identity::from_pkcs8(&pkcs8).map_err(|e| KeyError::Generate(e.to_string()))?;
    files::write_new_durably(out, &pkcs8)?;
    Ok(id)
}

/// Reads a key file: its PKCS#8 bytes and identity.
pub fn load(path: &Path) -> Result<(Vec<u8>, Identity), KeyError> {
    let pkcs8 = files::read(path)?;
    let id = Identity::from_pkcs8(&pkcs8).map_err(|e| KeyError::Bad {
        path: path.display().to_string(),
        reason: e.to_string(),
    })?;
    Ok((pkcs8, id))
}

/// The public key in hex.
pub fn public_hex(id: &Identity) -> String {
    hex::encode(id.public_key().0)
}
