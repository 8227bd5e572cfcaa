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
//! The swap replaces only what the command writes ([`Owner::writes`]):
//! files a user keeps in the directory stay. An interrupted run removes
//! its staging directory ([`crate::interrupt`]); one killed outright
//! leaves it, and the next run removes it (its process is gone).

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};

use crate::interrupt::Cleanup;
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

    /// Whether `name`, at the top of a run directory, is a file this
    /// command writes (so a new run may replace or remove it).
    pub fn writes(self, name: &str) -> bool {
        match self {
            Owner::Compare => {
                matches!(
                    name,
                    MARKER | "records.ndjson" | "scenario.toml" | "delivery.png" | "report.html"
                ) || TRACES == name
                    || (name.starts_with("timeseq-") && name.ends_with(".png"))
            }
            // `ramp fleet` resumes into its directory rather than staging.
            Owner::Fleet => name == MARKER,
        }
    }
}

/// The traces folder of a compare run; in it, `NN-label.ndjson` are ours.
const TRACES: &str = "traces";

fn is_trace_file(name: &str) -> bool {
    let b = name.as_bytes();
    b.len() > 3
        && b[0].is_ascii_digit()
        && b[1].is_ascii_digit()
        && b[2] == b'-'
        && name.ends_with(".ndjson")
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
/// on drop, or on SIGINT/SIGTERM/SIGHUP, unless [`Staging::commit`]
/// swapped it in.
pub struct Staging {
    target: PathBuf,
    staging: PathBuf,
    owner: Owner,
    committed: bool,
    cleanup: Cleanup,
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
        let prefix = format!(".{name}.staging-");
        remove_stale_staging(&parent, &prefix, owner);
        let staging = parent.join(format!("{prefix}{}", std::process::id()));
        if staging.exists() {
            fs::remove_dir_all(&staging)
                .with_context(|| format!("removing {}", staging.display()))?;
        }
        let cleanup = Cleanup::on_interrupt(staging.clone());
        fs::create_dir(&staging).with_context(|| format!("creating {}", staging.display()))?;
        mark(&staging, owner)?;
        Ok(Staging {
            target: target.to_path_buf(),
            staging,
            owner,
            committed: false,
            cleanup,
        })
    }

    /// Where the run is written meanwhile.
    pub fn path(&self) -> &Path {
        &self.staging
    }

    /// Replaces the target with the staged run: the whole directory when
    /// it holds only what this command writes, else those files alone,
    /// leaving the others.
    pub fn commit(mut self) -> anyhow::Result<()> {
        let guard = self.cleanup.hold();
        if self.target.exists() {
            if foreign_files(&self.target, self.owner)?.is_empty() {
                fs::remove_dir_all(&self.target)
                    .with_context(|| format!("removing the previous {}", self.target.display()))?;
            } else {
                merge_into(&self.staging, &self.target, self.owner)?;
                self.committed = true;
                drop(guard);
                self.cleanup.disarm();
                return Ok(());
            }
        }
        fs::rename(&self.staging, &self.target)
            .with_context(|| format!("moving the run into {}", self.target.display()))?;
        self.committed = true;
        drop(guard);
        self.cleanup.disarm();
        Ok(())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.committed {
            let _guard = self.cleanup.hold();
            let _ = fs::remove_dir_all(&self.staging);
        }
        self.cleanup.disarm();
    }
}

/// Files in run directory `dir` that `owner` did not write (a user's).
fn foreign_files(dir: &Path, owner: Owner) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let e = e.with_context(|| format!("reading {}", dir.display()))?;
        let name = e.file_name().to_string_lossy().into_owned();
        if !owner.writes(&name) {
            out.push(e.path());
        } else if name == TRACES && e.path().is_dir() {
            for t in fs::read_dir(e.path()).with_context(|| format!("reading {name}"))? {
                let t = t.with_context(|| format!("reading {name}"))?;
                if !is_trace_file(&t.file_name().to_string_lossy()) {
                    out.push(t.path());
                }
            }
        }
    }
    Ok(out)
}

/// Moves the staged run into `target`, first removing there what `owner`
/// writes (a previous run's files, traces of arms no longer run), and
/// nothing else.
fn merge_into(staging: &Path, target: &Path, owner: Owner) -> anyhow::Result<()> {
    let ctx = |p: &Path| format!("replacing {}", p.display());
    for e in fs::read_dir(target).with_context(|| ctx(target))? {
        let e = e.with_context(|| ctx(target))?;
        let name = e.file_name().to_string_lossy().into_owned();
        let path = e.path();
        if name == TRACES && path.is_dir() {
            for t in fs::read_dir(&path).with_context(|| ctx(&path))? {
                let t = t.with_context(|| ctx(&path))?;
                if is_trace_file(&t.file_name().to_string_lossy()) {
                    fs::remove_file(t.path()).with_context(|| ctx(&t.path()))?;
                }
            }
        } else if owner.writes(&name) && !path.is_dir() {
            fs::remove_file(&path).with_context(|| ctx(&path))?;
        }
    }
    for e in fs::read_dir(staging).with_context(|| ctx(staging))? {
        let e = e.with_context(|| ctx(staging))?;
        let to = target.join(e.file_name());
        if e.file_name() == TRACES && to.is_dir() {
            for t in fs::read_dir(e.path()).with_context(|| ctx(&e.path()))? {
                let t = t.with_context(|| ctx(&e.path()))?;
                fs::rename(t.path(), to.join(t.file_name())).with_context(|| ctx(&to))?;
            }
        } else {
            fs::rename(e.path(), &to).with_context(|| ctx(&to))?;
        }
    }
    fs::remove_dir_all(staging).with_context(|| format!("removing {}", staging.display()))
}

/// Removes staging directories `prefix<pid>` in `parent` that `owner`
/// marked and whose process is gone (a run killed outright). Best effort:
/// a directory that cannot be read or removed is left.
fn remove_stale_staging(parent: &Path, prefix: &str, owner: Owner) {
    let Ok(entries) = fs::read_dir(parent) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix(prefix)
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        let ours =
            fs::read_to_string(e.path().join(MARKER)).is_ok_and(|t| t.trim() == owner.name());
        if ours && pid != std::process::id() && !process_alive(pid) {
            let _ = fs::remove_dir_all(e.path());
        }
    }
}

/// Whether a process with this id exists (any user's).
fn process_alive(pid: u32) -> bool {
    #[cfg(unix)]
    {
        let Ok(pid) = libc::pid_t::try_from(pid) else {
            return false;
        };
        // SAFETY: signal 0 only checks that the process exists.
        if unsafe { libc::kill(pid, 0) } == 0 {
            return true;
        }
        std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        true
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
        let old_trace = Path::new(TRACES).join("00-old.ndjson");
        let new_trace = Path::new(TRACES).join("00-new.ndjson");
        let s = Staging::begin(&out, Owner::Compare).unwrap();
        fs::create_dir(s.path().join(TRACES)).unwrap();
        fs::write(s.path().join(&old_trace), "1").unwrap();
        s.commit().unwrap();
        let s = Staging::begin(&out, Owner::Compare).unwrap();
        fs::create_dir(s.path().join(TRACES)).unwrap();
        fs::write(s.path().join(&new_trace), "2").unwrap();
        s.commit().unwrap();
        assert!(!out.join(&old_trace).exists());
        assert!(out.join(&new_trace).exists());
        // A person's file in the run stays through the next swap, which
        // then replaces compare's files one by one.
        fs::write(out.join("notes.txt"), "mine").unwrap();
        let s = Staging::begin(&out, Owner::Compare).unwrap();
        fs::create_dir(s.path().join(TRACES)).unwrap();
        fs::write(s.path().join(&old_trace), "3").unwrap();
        fs::write(s.path().join("report.html"), "r").unwrap();
        s.commit().unwrap();
        assert_eq!(fs::read_to_string(out.join("notes.txt")).unwrap(), "mine");
        assert!(!out.join(&new_trace).exists());
        assert_eq!(fs::read_to_string(out.join(&old_trace)).unwrap(), "3");
        assert!(out.join("report.html").exists() && out.join(MARKER).exists());
        // An abandoned run leaves the previous one and no staging directory.
        let s = Staging::begin(&out, Owner::Compare).unwrap();
        let staging = s.path().to_path_buf();
        drop(s);
        assert!(!staging.exists());
        assert!(out.join(&old_trace).exists());
        fs::remove_dir_all(&d).unwrap();
    }
}
