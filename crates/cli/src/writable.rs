//! Output files are checked before the work that fills them: a run of
//! minutes must not end in "No such file or directory" for its output.

use std::fs::OpenOptions;
use std::path::Path;

use anyhow::bail;

/// Checks that `output` (named `what` in the message, e.g. `--json`) can
/// be created: its directory exists and accepts a new file, and it is not
/// itself a directory. A probe file is created beside it and removed, so
/// permissions and read-only mounts are checked as the kernel sees them;
/// an existing output is left untouched until the command writes it.
pub fn check_writable(what: &str, output: &Path) -> anyhow::Result<()> {
    if output.is_dir() {
        bail!(
            "{what} {}: is a directory; give a file name",
            output.display()
        );
    }
    let dir = match output.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        bail!(
            "{what} {}: the directory {} does not exist (create it first)",
            output.display(),
            dir.display()
        );
    }
    let probe = dir.join(format!(".ramp-write-probe-{}", std::process::id()));
    match OpenOptions::new().write(true).create_new(true).open(&probe) {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(e) => bail!(
            "{what} {}: cannot create a file in {}: {e}",
            output.display(),
            dir.display()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_directory_or_a_directory_as_output_is_refused_before_work() {
        let d = std::env::temp_dir().join(format!("ramp-writable-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        assert!(check_writable("--json", &d.join("out.ndjson")).is_ok());
        let e = check_writable("--json", &d.join("nope/x"))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("--json ") && e.contains("does not exist"),
            "{e}"
        );
        let e = check_writable("--json", &d).unwrap_err().to_string();
        assert!(e.contains("is a directory"), "{e}");
        assert_eq!(
            std::fs::read_dir(&d).unwrap().count(),
            0,
            "the probe is removed"
        );
        std::fs::remove_dir_all(&d).unwrap();
    }
}
