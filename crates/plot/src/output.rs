//! Writing output files whole or not at all, with ramp's one temporary-file
//! scheme ([`ramp_vocab::atomic_file`]); [`with_temp_file`] is for encoders
//! that write a path themselves.

use crate::error::{Error, Result};
use std::path::Path;

use ramp_vocab::atomic_file::temp_path;

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

/// Writes `bytes` to `target` atomically ([`ramp_vocab::atomic_file`]).
pub(crate) fn write_atomic(target: &Path, bytes: &[u8]) -> Result<()> {
    ramp_vocab::atomic_file::write_atomic(target, bytes).map_err(|e| Error::io(target, &e.source))
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
