//! A node's stable id and its data directory's lock (issue 25).
//!
//! A node of a league keeps its id across restarts: without `--node-id`
//! it is the id written in its data directory ([`NODE_ID_FILE`], made once,
//! `node-` and 8 random bytes in hex), so a node restarted from its
//! directory takes its own games back at once instead of sending their
//! clients to its former self until the leases run out. The same random
//! text tags the directory in the league's node table ([`dir_tag`]), and a
//! process serving a directory holds its lock ([`DirLock`], `flock` on
//! [`LOCK_FILE`]): a second process on one directory is refused, and a row
//! of the node id left by a process of this directory that no longer
//! holds the lock is a dead one's, taken over at once.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

use nix::fcntl::{Flock, FlockArg};
use ring::rand::{SecureRandom, SystemRandom};
use thiserror::Error;

use crate::durable_file::{self, FileError};

/// The file in the data directory holding the node's default id.
pub const NODE_ID_FILE: &str = "node-id";

/// The file in the data directory a running node holds locked.
pub const LOCK_FILE: &str = "node.lock";

/// Longest node id ([`crate::wire::MAX_NODE_ID_LEN`]).
pub const MAX_NODE_ID_LEN: usize = crate::wire::MAX_NODE_ID_LEN;

/// Why the node id or the lock could not be had.
#[derive(Debug, Error)]
pub enum NodeIdError {
    /// The id file could not be read or written.
    #[error(transparent)]
    File(#[from] FileError),
    /// The id file holds no valid id.
    #[error("{path} does not hold a node id ({why}); remove it to make a new one")]
    BadFile {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// The random generator failed.
    #[error("system random generator failed")]
    Random,
    /// Another process holds the data directory.
    #[error("another hexveil-server is running with the data directory {0} (it holds {LOCK_FILE}); stop it first, or give this one its own directory")]
    InUse(PathBuf),
    /// The lock file could not be opened or locked.
    #[error("cannot lock {path}: {why}")]
    Lock {
        /// The lock file.
        path: PathBuf,
        /// The OS error.
        why: String,
    },
}

/// Checks a node id: 1 to [`MAX_NODE_ID_LEN`] bytes of ASCII letters,
/// digits, `.`, `_` and `-`. The error says what is wrong.
pub fn check(id: &str) -> Result<(), String> {
    if id.is_empty() || id.len() > MAX_NODE_ID_LEN {
        return Err(format!(
            "a node id has 1 to {MAX_NODE_ID_LEN} characters, this one {}",
            id.len()
        ));
    }
    match id
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')))
    {
        Some(c) => Err(format!(
            "a node id has only letters, digits, `.`, `_` and `-`, not {c:?}"
        )),
        None => Ok(()),
    }
}

/// The id written in `data_dir` ([`NODE_ID_FILE`]), made and written
/// durably on first use.
pub fn default_for(data_dir: &Path) -> Result<String, NodeIdError> {
    let path = data_dir.join(NODE_ID_FILE);
    if path.exists() {
        let text = durable_file::read_text(&path)?;
        let id = text.trim().to_owned();
        check(&id).map_err(|why| NodeIdError::BadFile { path, why })?;
        return Ok(id);
    }
    durable_file::ensure_dir(data_dir)?;
    let mut bytes = [0u8; 8];
    SystemRandom::new()
        .fill(&mut bytes)
        .map_err(|_| NodeIdError::Random)?;
    let id = format!("node-{}", hex::encode(bytes));
    match durable_file::write_new_durably(&path, format!("{id}\n").as_bytes()) {
        Ok(()) => Ok(id),
        // Another process made it meanwhile: its id is the directory's.
        Err(FileError::Exists(_)) => default_for(data_dir),
        Err(e) => Err(e.into()),
    }
}

/// The tag of `data_dir` in the league's node table: its default id's
/// text, random and made once (the same whether or not `--node-id` names
/// the node otherwise).
pub fn dir_tag(data_dir: &Path) -> Result<Vec<u8>, NodeIdError> {
    Ok(default_for(data_dir)?.into_bytes())
}

/// The data directory's lock, held while the node runs; released when
/// dropped or when the process ends, however it ends.
#[derive(Debug)]
pub struct DirLock {
    _lock: Flock<File>,
}

impl DirLock {
    /// Takes `data_dir`'s lock, or says that another process holds it.
    pub fn take(data_dir: &Path) -> Result<DirLock, NodeIdError> {
        durable_file::ensure_dir(data_dir)?;
        let path = data_dir.join(LOCK_FILE);
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| NodeIdError::Lock {
                path: path.clone(),
                why: e.to_string(),
            })?;
        match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
            Ok(lock) => Ok(DirLock { _lock: lock }),
            Err((_, nix::errno::Errno::EWOULDBLOCK)) => {
                Err(NodeIdError::InUse(data_dir.to_path_buf()))
            }
            Err((_, e)) => Err(NodeIdError::Lock {
                path,
                why: e.to_string(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Issue 25: a node id is stable across restarts from one directory,
    // and two directories have two.
    #[test]
    fn the_default_id_is_the_directorys_and_stays() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let first = default_for(a.path()).unwrap();
        assert!(
            first.starts_with("node-") && check(&first).is_ok(),
            "{first}"
        );
        assert_eq!(default_for(a.path()).unwrap(), first);
        assert_ne!(default_for(b.path()).unwrap(), first);
        assert_eq!(dir_tag(a.path()).unwrap(), first.as_bytes());
        std::fs::write(a.path().join(NODE_ID_FILE), "bad-id!\n").unwrap();
        let e = default_for(a.path()).unwrap_err().to_string();
        assert!(e.contains("node-id") && e.contains("'!'"), "{e}");
    }

    #[test]
    fn node_ids_are_checked() {
        assert!(check("node1").is_ok());
        assert!(check("db-2.eu_west").is_ok());
        assert!(check("").is_err());
        assert!(check("a b").unwrap_err().contains("' '"));
        assert!(check(&"n".repeat(MAX_NODE_ID_LEN + 1)).is_err());
    }

    // Issue 25: one process per data directory; the lock goes with it.
    #[test]
    fn one_process_holds_a_directory() {
        let dir = tempfile::tempdir().unwrap();
        let held = DirLock::take(dir.path()).unwrap();
        let e = DirLock::take(dir.path()).unwrap_err();
        assert!(matches!(e, NodeIdError::InUse(_)), "{e}");
        drop(held);
        DirLock::take(dir.path()).unwrap();
    }
}
