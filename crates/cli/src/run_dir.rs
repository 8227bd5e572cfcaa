//! Run directories and who owns them.
//!
//! A command that writes a run directory (`ramp compare -o`, `ramp fleet
//! -o`) marks it with a small file naming itself, [`MARKER`]. A command
//! writes only into an empty directory or one it marked itself, and refuses
//! one made by another command or by hand: `ramp compare -o` pointed at a
//! fleet run must not truncate its records.
//!
//! `ramp compare` replaces its previous output completely: it writes the
//! whole run into a staging directory beside the target and swaps it in at
//! the end ([`Staging`]), so a second run never leaves the first run's
//! traces behind, and an interrupted run leaves the old output intact.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};

use ramp_vocab::atomic_file::write_atomic;

/// The file that names the command owning a run directory.
pub const MARKER: &str = ".ramp-run";

/// Which command made a run directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    /// `ramp compare`.
    Compare,
    /// `ramp fleet`.
    Fleet,
}

impl Owner {
    fn name(self) -> &'static str {
        match self {
            Owner::Compare => "compare",
            Owner::Fleet => "fleet",
        }
    }
}

/// Checks that `dir` may be written by `owner`: it does not exist, is
/// empty, or carries `owner`'s marker.
pub fn check_owner(dir: &Path, owner: Owner) -> anyhow::Result<()> {
    if !dir.exists() {
        return Ok(());
    }
    if !dir.is_dir() {
        bail!("{}: not a directory", dir.display());
    }
    let marker = dir.join(MARKER);
    match fs::read_to_string(&marker) {
        Ok(text) if text.trim() == owner.name() => Ok(()),
        Ok(text) => bail!(
            "{} was made by `ramp {}`; `ramp {}` will not write into it (choose another -o/--out)",
            dir.display(),
            text.trim(),
            owner.name()
        ),
        Err(_) => {
            let empty = fs::read_dir(dir)
                .with_context(|| format!("reading {}", dir.display()))?
                .next()
                .is_none();
            if empty {
                Ok(())
            } else {
                bail!(
                    "{} is not empty and was not made by `ramp {}` (no {MARKER}); choose another -o/--out",
                    dir.display(),
                    owner.name()
                )
            }
        }
    }
}

/// Marks `dir` (which must exist) as `owner`'s.
pub fn mark(dir: &Path, owner: Owner) -> anyhow::Result<()> {
    write_atomic(&dir.join(MARKER), format!("{}\n", owner.name()).as_bytes())?;
    Ok(())
}

/// Refuses a target the swap cannot replace: one without a name of its own
/// (`.`, `..`, `/`, `run/..`) or the working directory or one above it,
/// which would be removed from under the command (the OS refuses with
/// "Invalid argument", which names neither the flag nor the fix).
fn check_replaceable(target: &Path) -> anyhow::Result<()> {
    use std::path::Component;
    let named = matches!(target.components().next_back(), Some(Component::Normal(_)));
    let holds_cwd = || {
        let (Ok(t), Ok(cwd)) = (target.canonicalize(), std::env::current_dir()) else {
            return false;
        };
        cwd.canonicalize().is_ok_and(|c| c.starts_with(&t))
    };
    if !named || holds_cwd() {
        bail!(
            "-o/--out {}: a run replaces its directory whole, so it needs a directory of its own \
             below the working directory (e.g. `-o run`), not this one or one above it",
            target.display()
        );
    }
    Ok(())
}

/// A run being written into a staging directory beside its target; removed
/// on drop unless [`Staging::commit`] swapped it in.
pub struct Staging {
    target: PathBuf,
    staging: PathBuf,
    committed: bool,
}

impl Staging {
    /// Checks ownership of `target` and creates an empty, marked staging
    /// directory beside it.
    pub fn begin(target: &Path, owner: Owner) -> anyhow::Result<Staging> {
        check_replaceable(target)?;
        check_owner(target, owner)?;
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "out".to_string());
        let parent = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        fs::create_dir_all(&parent).with_context(|| format!("creating {}", parent.display()))?;
        let staging = parent.join(format!(".{name}.staging-{}", std::process::id()));
        if staging.exists() {
            fs::remove_dir_all(&staging)
                .with_context(|| format!("removing {}", staging.display()))?;
        }
        fs::create_dir(&staging).with_context(|| format!("creating {}", staging.display()))?;
        mark(&staging, owner)?;
        Ok(Staging {
            target: target.to_path_buf(),
            staging,
            committed: false,
        })
    }

    /// Where the run is written meanwhile.
    pub fn path(&self) -> &Path {
        &self.staging
    }

    /// Replaces the target with the staged run.
    pub fn commit(mut self) -> anyhow::Result<()> {
        if self.target.exists() {
            fs::remove_dir_all(&self.target)
                .with_context(|| format!("removing the previous {}", self.target.display()))?;
        }
        fs::rename(&self.staging, &self.target)
            .with_context(|| format!("moving the run into {}", self.target.display()))?;
        self.committed = true;
        Ok(())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.committed {
            let _ = fs::remove_dir_all(&self.staging);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("ramp-run-dir-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_directory_made_by_another_command_or_by_hand_is_refused() {
        let d = scratch("owners");
        let fleet = d.join("fleet");
        fs::create_dir_all(&fleet).unwrap();
        mark(&fleet, Owner::Fleet).unwrap();
        assert!(check_owner(&fleet, Owner::Fleet).is_ok());
        let e = check_owner(&fleet, Owner::Compare).unwrap_err().to_string();
        assert!(e.contains("made by `ramp fleet`"), "{e}");
        let by_hand = d.join("mine");
        fs::create_dir_all(&by_hand).unwrap();
        fs::write(by_hand.join("notes.txt"), "x").unwrap();
        assert!(check_owner(&by_hand, Owner::Compare).is_err());
        assert!(check_owner(&d.join("new"), Owner::Compare).is_ok());
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_target_without_its_own_name_or_holding_the_working_directory_is_refused() {
        let cwd = std::env::current_dir().unwrap();
        for t in [
            PathBuf::from("."),
            PathBuf::from(".."),
            PathBuf::from("/"),
            PathBuf::from("run/.."),
            cwd.clone(),
            cwd.parent().unwrap().to_path_buf(),
        ] {
            let e = match Staging::begin(&t, Owner::Compare) {
                Ok(_) => panic!("{} accepted", t.display()),
                Err(e) => e.to_string(),
            };
            assert!(e.contains("-o/--out") && e.contains("-o run"), "{e}");
        }
    }

    #[test]
    fn staging_replaces_the_whole_previous_run() {
        let d = scratch("staging");
        let out = d.join("out");
        let s = Staging::begin(&out, Owner::Compare).unwrap();
        fs::write(s.path().join("old-trace"), "1").unwrap();
        s.commit().unwrap();
        let s = Staging::begin(&out, Owner::Compare).unwrap();
        fs::write(s.path().join("new-trace"), "2").unwrap();
        s.commit().unwrap();
        assert!(!out.join("old-trace").exists());
        assert!(out.join("new-trace").exists());
        // An abandoned run leaves the previous one and no staging directory.
        let s = Staging::begin(&out, Owner::Compare).unwrap();
        let staging = s.path().to_path_buf();
        drop(s);
        assert!(!staging.exists());
        assert!(out.join("new-trace").exists());
        fs::remove_dir_all(&d).unwrap();
    }
}
