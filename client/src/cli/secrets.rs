//! A player's secrets on disk (`join --secrets DIR`): the protocol
//! [`Secrets`] (setups, layout/notes/pad seeds from the system RNG,
//! Daisy Chain standing orders) and the game they belong to, in
//! `DIR/secrets.json`. They are written durably BEFORE the first
//! commitment is sent, so a crash can never leave a player committed to
//! seeds it no longer has (G1, G5: it must reveal them at the end); an
//! existing file is reloaded instead (resume).

use super::files::{self, FileError};
use hexveil_asl::Side;
use hexveil_protocol::player::Secrets;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The file name inside the secrets directory.
pub const FILE: &str = "secrets.json";

/// What is stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stored {
    /// The game, in hex.
    pub game_id: String,
    /// The secrets.
    pub secrets: Secrets,
    /// Where the game is: the invite the first join used
    /// (`hexveil://HOST:PORT/GAME#FINGERPRINT`), so that `hexveil resume
    /// DIR` needs nothing else (issue 27 item 3). Absent in files written
    /// before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invite: Option<String>,
    /// The key file the first join used (absolute when it could be made
    /// so). Absent in older files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<PathBuf>,
}

/// Reads the secrets stored in `dir`, if it holds any (`None`: no
/// secrets file there).
pub fn read(dir: &Path) -> Result<Option<Stored>, SecretsError> {
    let path = dir.join(FILE);
    if !path.exists() {
        return Ok(None);
    }
    let text = files::read_text(&path)?;
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| SecretsError::Bad {
            path,
            reason: e.to_string(),
        })
}

/// Why secrets could not be stored or reloaded.
#[derive(Debug, Error)]
pub enum SecretsError {
    /// The file could not be read or written.
    #[error(transparent)]
    File(#[from] FileError),
    /// The directory could not be created.
    #[error("cannot create the secrets directory {path}: {source}")]
    Dir {
        /// The directory.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The file does not parse.
    #[error("{path} is not a hexveil secrets file: {reason}")]
    Bad {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The stored secrets are another game's or another side's.
    #[error("{path} holds side {side}'s secrets of game {game}; use another --secrets directory")]
    OtherGame {
        /// The file.
        path: PathBuf,
        /// Their game.
        game: String,
        /// Their side.
        side: Side,
    },
}

/// Whether the secrets were made now or reloaded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Fresh seeds, just written.
    Created,
    /// Read back from an earlier run.
    Reloaded,
}

/// Where the game is and who plays it, kept beside the secrets for a
/// later `hexveil resume DIR`.
#[derive(Clone, Debug, Default)]
pub struct Remember {
    /// The invite.
    pub invite: Option<String>,
    /// The key file.
    pub key: Option<PathBuf>,
}

/// Loads the secrets of `game_id`/`side` from `dir`, or stores the ones
/// `make` builds (durably, before the caller sends anything), with what
/// `remember` says of the game.
pub fn load_or_create(
    dir: &Path,
    game_id: &str,
    side: Side,
    remember: Remember,
    make: impl FnOnce() -> Result<Secrets, String>,
) -> Result<(Secrets, Origin), SecretsError> {
    let path = dir.join(FILE);
    if let Some(stored) = read(dir)? {
        if stored.game_id != game_id || stored.secrets.side != side {
            return Err(SecretsError::OtherGame {
                path,
                game: stored.game_id,
                side: stored.secrets.side,
            });
        }
        return Ok((stored.secrets, Origin::Reloaded));
    }
    std::fs::create_dir_all(dir).map_err(|source| SecretsError::Dir {
        path: dir.to_path_buf(),
        source,
    })?;
    let secrets = make().map_err(|reason| SecretsError::Bad {
        path: path.clone(),
        reason,
    })?;
    let stored = Stored {
        game_id: game_id.to_string(),
        secrets,
        invite: remember.invite,
        key: remember.key.map(|k| std::fs::canonicalize(&k).unwrap_or(k)),
    };
    let text = serde_json::to_string_pretty(&stored).map_err(|e| SecretsError::Bad {
        path: path.clone(),
        reason: e.to_string(),
    })?;
    files::write_new_durably(&path, text.as_bytes())?;
    Ok((stored.secrets, Origin::Created))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fresh() -> Result<Secrets, String> {
        Secrets::generate(
            Side::B,
            &hexveil_asl::model::sealed::Layer::SEALED.map(|l| l.to_kernel()),
            "side = \"B\"\n".into(),
            "side = \"B\"\n".into(),
            vec![],
        )
        .map_err(|e| e.to_string())
    }

    #[test]
    fn g1_secrets_are_stored_then_reloaded_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let (a, o1) =
            load_or_create(dir.path(), "00ff", Side::B, Remember::default(), fresh).unwrap();
        assert_eq!(o1, Origin::Created);
        let (b, o2) = load_or_create(dir.path(), "00ff", Side::B, Remember::default(), || {
            panic!("must not make new seeds when secrets exist")
        })
        .unwrap();
        assert_eq!(o2, Origin::Reloaded);
        assert_eq!(a, b);
        assert!(matches!(
            load_or_create(dir.path(), "0100", Side::B, Remember::default(), fresh),
            Err(SecretsError::OtherGame { .. })
        ));
    }
}
