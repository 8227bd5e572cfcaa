//! Writing output files whole or not at all: write a temporary file next to
//! the target, then rename it over the target.

use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// A temporary path in the same directory as `target` (so the rename stays
/// on one file system), keeping `target`'s extension so that encoders that
/// pick a format by extension still do.
pub(crate) fn temp_path(target: &Path) -> PathBuf {
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

/// Runs `write` on a temporary path, then renames it to `target`; on any
/// error the temporary file is removed and `target` is left untouched.
pub(crate) fn with_temp_file(target: &Path, write: impl FnOnce(&Path) -> Result<()>) -> Result<()> {
    let tmp = temp_path(target);
    let result =
        write(&tmp).and_then(|()| std::fs::rename(&tmp, target).map_err(|e| Error::io(target, &e)));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Writes `bytes` to `target` atomically (temporary file, then rename).
pub fn write_atomic(target: &Path, bytes: &[u8]) -> Result<()> {
    with_temp_file(target, |tmp| {
        std::fs::write(tmp, bytes).map_err(|e| Error::io(target, &e))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failed_write_leaves_nothing_behind() {
        let dir = std::env::temp_dir().join(format!("ramp-plot-out-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let target = dir.join("x.svg");
        let r = with_temp_file(&target, |tmp| {
            std::fs::write(tmp, b"partial").unwrap();
            Err(Error::Data("boom".into()))
        });
        assert!(r.is_err());
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        write_atomic(&target, b"<svg/>").unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"<svg/>");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
