//! Writing a whole output file so that no reader, and no interrupted run,
//! ever sees it half-written: write a temporary file next to the target,
//! flush it to disk, then rename it over the target.

use std::fmt;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// A file that could not be written; `target` is left as it was.
#[derive(Debug)]
pub struct AtomicWriteError {
    /// The file that was to be written.
    pub target: PathBuf,
    /// What failed.
    pub source: io::Error,
}

impl fmt::Display for AtomicWriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "writing {}: {}", self.target.display(), self.source)
    }
}

impl std::error::Error for AtomicWriteError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// A temporary path in the same directory as `target` (so the rename stays
/// on one file system), unique to this process and to `target`'s whole
/// name (two targets that differ only in extension never share one), and
/// keeping `target`'s extension so that encoders that pick a format by
/// extension still do.
pub fn temp_path(target: &Path) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".to_string());
    let ext = target
        .extension()
        .map(|e| format!(".{}", e.to_string_lossy()))
        .unwrap_or_default();
    target.with_file_name(format!(".{name}.{}.tmp{ext}", std::process::id()))
}

/// Writes `bytes` to `target` via [`temp_path`]: synced, then renamed over
/// `target`, so the file is either the old one or the complete new one.
/// On error the temporary file is removed.
pub fn write_atomic(target: &Path, bytes: &[u8]) -> Result<(), AtomicWriteError> {
    let tmp = temp_path(target);
    let written = fs::File::create(&tmp)
        .and_then(|mut f| f.write_all(bytes).and_then(|()| f.sync_all()))
        .and_then(|()| fs::rename(&tmp, target));
    written.map_err(|source| {
        let _ = fs::remove_file(&tmp);
        AtomicWriteError {
            target: target.to_path_buf(),
            source,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_the_whole_file_and_leaves_no_temporary() {
        let dir = std::env::temp_dir().join(format!("ramp-atomic-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let p = dir.join("summary.json");
        write_atomic(&p, b"first").unwrap();
        write_atomic(&p, b"second").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"second");
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn targets_differing_in_extension_get_different_temporaries() {
        let a = temp_path(Path::new("/x/summary.json"));
        let b = temp_path(Path::new("/x/summary.md"));
        assert_ne!(a, b);
        assert_eq!(a.extension().unwrap(), "json");
    }

    #[test]
    fn a_failed_write_names_the_target() {
        let p = Path::new("/nonexistent-ramp-dir/x.json");
        let e = write_atomic(p, b"x").unwrap_err();
        assert!(
            e.to_string().contains("/nonexistent-ramp-dir/x.json"),
            "{e}"
        );
    }
}
