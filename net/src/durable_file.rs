//! Writing small files so they are either absent or complete after a crash:
//! a temporary sibling, fsync, rename (or link, to refuse an existing
//! file), fsync of the directory. Owner-only permissions on Unix, since
//! these files hold keys and secrets.
//!
//! The one copy of this for the whole project: the server's keys and
//! certificate and the client's (`hexveil`) keys, secrets and transcripts
//! are all written here. It lives in the server crate, which the client
//! already depends on, because the protocol crate does no IO.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use thiserror::Error;

/// Why a file could not be read or written.
#[derive(Debug, Error)]
pub enum FileError {
    /// The file exists and would be overwritten ([`write_new_durably`]).
    #[error("{0} already exists; refusing to overwrite it")]
    Exists(PathBuf),
    /// An IO operation failed.
    #[error("cannot {action} {path}: {source}")]
    Io {
        /// What was being done.
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

fn io<'a>(action: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> FileError + 'a {
    move |source| FileError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

/// Reads a whole file.
pub fn read(path: &Path) -> Result<Vec<u8>, FileError> {
    fs::read(path).map_err(io("read", path))
}

/// Reads a whole text file.
pub fn read_text(path: &Path) -> Result<String, FileError> {
    fs::read_to_string(path).map_err(io("read", path))
}

/// Creates `dir` (and parents) if needed.
pub fn ensure_dir(dir: &Path) -> Result<(), FileError> {
    fs::create_dir_all(dir).map_err(io("create directory", dir))
}

/// Writes `bytes` to `path` atomically and durably (mode 0600 on Unix),
/// replacing any file there.
pub fn write_durably(path: &Path, bytes: &[u8]) -> Result<(), FileError> {
    let tmp = write_temp(path, bytes)?;
    fs::rename(&tmp, path).map_err(io("rename into place", path))?;
    sync_dir(path)
}

/// As [`write_durably`], but an existing file at `path` is refused and
/// left as it is ([`FileError::Exists`]), even one that appears while this
/// runs: the file is linked into place, which fails if the name is taken.
pub fn write_new_durably(path: &Path, bytes: &[u8]) -> Result<(), FileError> {
    if path.exists() {
        return Err(FileError::Exists(path.to_path_buf()));
    }
    let tmp = write_temp(path, bytes)?;
    let linked = fs::hard_link(&tmp, path);
    let _ = fs::remove_file(&tmp);
    match linked {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            return Err(FileError::Exists(path.to_path_buf()))
        }
        Err(e) => return Err(io("create", path)(e)),
    }
    sync_dir(path)
}

/// Writes and syncs `bytes` to a hidden temporary sibling of `path`
/// (`.<name>.tmp`), owner-only on Unix; returns its path.
fn write_temp(path: &Path, bytes: &[u8]) -> Result<PathBuf, FileError> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".into());
    let tmp = path.with_file_name(format!(".{name}.tmp"));
    let mut opts = fs::OpenOptions::new();
    opts.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    let mut f = opts.open(&tmp).map_err(io("create", &tmp))?;
    f.write_all(bytes).map_err(io("write", &tmp))?;
    f.sync_all().map_err(io("fsync", &tmp))?;
    Ok(tmp)
}

/// Syncs the directory holding `path`, so the new name survives a crash.
fn sync_dir(path: &Path) -> Result<(), FileError> {
    #[cfg(unix)]
    {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let d = fs::File::open(dir).map_err(io("open directory", dir))?;
        d.sync_all().map_err(io("fsync directory", dir))?;
    }
    #[cfg(not(unix))]
    let _ = path;
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
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temp file left"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(&p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600);
        }
    }

    #[test]
    fn a_new_file_refuses_to_overwrite_and_keeps_the_old_one() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("k");
        write_new_durably(&p, b"one").unwrap();
        assert!(matches!(
            write_new_durably(&p, b"two"),
            Err(FileError::Exists(_))
        ));
        assert_eq!(fs::read(&p).unwrap(), b"one");
        write_durably(&p, b"three").unwrap();
        assert_eq!(read_text(&p).unwrap(), "three");
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temp file left"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(&p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600);
        }
    }
}
