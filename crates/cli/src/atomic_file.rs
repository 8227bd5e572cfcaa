//! Writing a whole output file so that no reader, and no interrupted run,
//! ever sees it half-written.

use std::fs;
use std::io::Write;
use std::path::Path;

use anyhow::Context;

/// Writes `bytes` to `path` via a temporary file in the same directory,
/// synced and then renamed over `path`: the file is either the old one or
/// the complete new one, never a truncated mix.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let tmp = path.with_extension("tmp");
    let mut f = fs::File::create(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
    f.write_all(bytes)
        .and_then(|()| f.sync_all())
        .with_context(|| format!("writing {}", tmp.display()))?;
    fs::rename(&tmp, path).with_context(|| format!("renaming to {}", path.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_whole_file_and_leaves_no_temporary() {
        let dir = std::env::temp_dir().join(format!("ramp-atomic-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let p = dir.join("x.json");
        write_atomic(&p, b"first").unwrap();
        write_atomic(&p, b"second").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"second");
        assert!(!dir.join("x.tmp").exists());
        fs::remove_dir_all(&dir).unwrap();
    }
}
