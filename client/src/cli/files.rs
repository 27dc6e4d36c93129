//! Durable files: a file is written to a temporary sibling, synced,
//! renamed into place and its directory synced, so a crash leaves either
//! the old state or the whole new file, never half of one. Key and secrets
//! files are created with owner-only permissions on Unix.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why a file could not be read or written.
#[derive(Debug, Error)]
pub enum FileError {
    /// The file exists and would be overwritten.
    #[error("{0} already exists; refusing to overwrite it")]
    Exists(PathBuf),
    /// An IO operation failed.
    #[error("cannot {action} {path}: {source}")]
    Io {
        /// What was being done.
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// The cause.
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

/// Writes `bytes` to `path` durably. With `overwrite` false, an existing
/// file is refused (and left as it is).
pub fn write_durably(path: &Path, bytes: &[u8], overwrite: bool) -> Result<(), FileError> {
    if !overwrite && path.exists() {
        return Err(FileError::Exists(path.to_path_buf()));
    }
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
    f.sync_all().map_err(io("sync", &tmp))?;
    drop(f);
    if !overwrite {
        // Link, not rename: refuses (atomically) if the name appeared in the
        // meantime.
        let linked = fs::hard_link(&tmp, path);
        let _ = fs::remove_file(&tmp);
        match linked {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                return Err(FileError::Exists(path.to_path_buf()))
            }
            Err(e) => return Err(io("create", path)(e)),
        }
    } else {
        fs::rename(&tmp, path).map_err(io("rename into", path))?;
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if let Ok(d) = fs::File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Reads a whole file.
pub fn read(path: &Path) -> Result<Vec<u8>, FileError> {
    fs::read(path).map_err(io("read", path))
}

/// Reads a whole text file.
pub fn read_text(path: &Path) -> Result<String, FileError> {
    fs::read_to_string(path).map_err(io("read", path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_to_overwrite_and_keeps_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("k");
        write_durably(&p, b"one", false).unwrap();
        assert!(matches!(
            write_durably(&p, b"two", false),
            Err(FileError::Exists(_))
        ));
        assert_eq!(fs::read(&p).unwrap(), b"one");
        write_durably(&p, b"three", true).unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"three");
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temp file left"
        );
    }
}
