//! Writing small files so they are either absent or complete after a crash:
//! a temporary file, fsync, rename, fsync of the directory. Owner-only
//! permissions on Unix, since these files hold keys.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use thiserror::Error;

/// A file operation failed.
#[derive(Debug, Error)]
#[error("{action} {path}: {source}")]
pub struct FileError {
    /// What was being done.
    pub action: &'static str,
    /// The file or directory.
    pub path: PathBuf,
    /// The OS error.
    pub source: std::io::Error,
}

/// Read a whole file.
pub fn read(path: &Path) -> Result<Vec<u8>, FileError> {
    fs::read(path).map_err(|source| FileError {
        action: "read",
        path: path.to_owned(),
        source,
    })
}

/// Create `dir` (and parents) if needed.
pub fn ensure_dir(dir: &Path) -> Result<(), FileError> {
    fs::create_dir_all(dir).map_err(|source| FileError {
        action: "create directory",
        path: dir.to_owned(),
        source,
    })
}

/// Write `bytes` to `path` atomically and durably (mode 0600 on Unix).
pub fn write_durably(path: &Path, bytes: &[u8]) -> Result<(), FileError> {
    let tmp = path.with_extension("tmp");
    let err = |action, source| FileError {
        action,
        path: tmp.clone(),
        source,
    };
    let mut opts = fs::OpenOptions::new();
    opts.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    let mut f = opts.open(&tmp).map_err(|e| err("create", e))?;
    f.write_all(bytes).map_err(|e| err("write", e))?;
    f.sync_all().map_err(|e| err("fsync", e))?;
    drop(f);
    fs::rename(&tmp, path).map_err(|source| FileError {
        action: "rename into place",
        path: path.to_owned(),
        source,
    })?;
    if let Some(dir) = path.parent() {
        sync_dir(dir)?;
    }
    Ok(())
}

fn sync_dir(dir: &Path) -> Result<(), FileError> {
    #[cfg(unix)]
    {
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        let d = fs::File::open(dir).map_err(|source| FileError {
            action: "open directory",
            path: dir.to_owned(),
            source,
        })?;
        d.sync_all().map_err(|source| FileError {
            action: "fsync directory",
            path: dir.to_owned(),
            source,
        })?;
    }
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_replace_atomically() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("k.bin");
        write_durably(&p, b"one").unwrap();
        write_durably(&p, b"two").unwrap();
        assert_eq!(read(&p).unwrap(), b"two");
        assert!(!dir.path().join("k.tmp").exists());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(&p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600);
        }
    }
}
