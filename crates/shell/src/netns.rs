//! The shell's network namespace and devices: created with the `ip`
//! command (iproute2), owned by a guard that removes them when dropped,
//! and found again by name by `ramp shell --cleanup` after a SIGKILL.
//!
//! What a shell creates, all named with a ramp prefix:
//! - the namespace `ramp-sh-PATH` (a bind mount under `/run/netns`), with
//!   its TUN device `ramp-in`, and a file `/run/ramp-shell/ramp-sh-PATH`
//!   holding the shell's pid (claims and leftover removal are serialised
//!   by an exclusive `flock` on `/run/ramp-shell/.lock`);
//! - in the namespace the shell runs in: the TUN device `ramp-PATH`, its
//!   addresses and the routes to the shell's block through it.
//!
//! The TUN devices are not persistent: the kernel removes each when the
//! last file descriptor on it closes, routes and addresses with it, so
//! they vanish even when the shell is SIGKILLed. Only the namespace's
//! bind mount (and processes still inside it) can outlive the shell.

use std::fs::File;
use std::io;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::addr::{
    ShellPath, INNER_DEVICE, MAX_DEPTH, NETNS_PREFIX, PER_PARENT, TOP_LEVEL, V4_BASE, V4_PREFIX,
    V6_BASE, V6_PREFIX,
};
use crate::error::ShellError;
use crate::sys;

/// Where `ip netns` keeps its namespaces.
const NETNS_DIR: &str = "/run/netns";
/// Where the shell records which pid owns a namespace.
const OWNER_DIR: &str = "/run/ramp-shell";
/// Both devices' MTU: Ethernet's, so a packet the link sees is one the
/// wire would carry.
pub const MTU: u32 = 1500;

/// Runs `ip ARGS`; a failure names the command and iproute2's message, or
/// says that `ip` itself could not be run.
pub(crate) fn ip(args: &[&str]) -> Result<(), ShellError> {
    let out = Command::new("ip")
        .args(args)
        .output()
        .map_err(ShellError::NoIpCommand)?;
    if out.status.success() {
        Ok(())
    } else {
        Err(ShellError::Ip {
            command: args.join(" "),
            message: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        })
    }
}

/// A namespace the shell made; removed (with every process still in it)
/// when dropped.
pub(crate) struct Namespace {
    path: ShellPath,
    name: String,
    file: File,
}

impl Namespace {
    /// Creates the first free namespace: a top-level one, or one nested in
    /// `parent` when the shell runs inside another.
    pub(crate) fn create(parent: Option<&ShellPath>) -> Result<Namespace, ShellError> {
        let candidates: Vec<ShellPath> = match parent {
            None => (0..TOP_LEVEL).filter_map(ShellPath::top).collect(),
            Some(p) if p.indices().len() >= MAX_DEPTH => {
                return Err(ShellError::TooDeep {
                    parent: p.to_string(),
                    max: MAX_DEPTH,
                })
            }
            Some(p) => (1..PER_PARENT).filter_map(|k| p.child(k)).collect(),
        };
        // Under the directory lock: a shell removing a leftover of the
        // same name (`cleanup`) cannot act between our claim and the
        // namespace's creation.
        let _lock = lock();
        let taken = existing_namespaces();
        for path in candidates {
            let name = path.netns_name();
            if taken.contains(&name) {
                continue;
            }
            // The owner file is the claim: created exclusively before the
            // namespace, so two shells starting at once cannot take one
            // name, and `--cleanup` never sees a namespace without its
            // owner while it is being made.
            if !claim(&name)? {
                continue;
            }
            if let Err(e) = ip(&["netns", "add", &name]) {
                let _ = std::fs::remove_file(owner_file(&name));
                if Path::new(NETNS_DIR).join(&name).exists() {
                    // A namespace of that name appeared after all (made
                    // by hand, or by a shell whose owner file is gone):
                    // try the next name; --cleanup judges it.
                    continue;
                }
                // Anything else (no `ip`, no permission for the mount,
                // no namespace support) fails every name alike: say
                // what iproute2 said, not "no free block".
                return Err(e);
            }
            return match File::open(Path::new(NETNS_DIR).join(&name)) {
                Ok(file) => Ok(Namespace { path, name, file }),
                Err(e) => {
                    let _ = remove(&name);
                    Err(ShellError::Io(format!("{NETNS_DIR}/{name}"), e))
                }
            };
        }
        Err(ShellError::NoFreeBlock {
            parent: parent.map(ShellPath::to_string),
        })
    }

    /// The shell's place and addresses.
    pub(crate) fn path(&self) -> &ShellPath {
        &self.path
    }

    /// The namespace, to enter.
    pub(crate) fn file(&self) -> &File {
        &self.file
    }

    /// Runs `f` on a thread inside the namespace.
    pub(crate) fn run_inside<T: Send>(
        &self,
        f: impl FnOnce() -> io::Result<T> + Send,
    ) -> io::Result<T> {
        std::thread::scope(|s| {
            s.spawn(|| {
                sys::enter_netns(&self.file)?;
                f()
            })
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("namespace thread panicked")))
        })
    }

    /// Creates both TUN devices and gives them addresses and routes; the
    /// returned descriptors keep them alive.
    pub(crate) fn wire(&self) -> Result<(OwnedFd, OwnedFd), ShellError> {
        let outer_name = self.path.outer_device();
        let io_err = |what: &str, e| ShellError::Io(what.to_string(), e);
        let inner = self
            .run_inside(|| {
                // Forwarding inside the shell's own namespace, so shells
                // nested in it reach the outside through it; the namespace
                // has no interface but its link.
                for f in [
                    "/proc/sys/net/ipv4/ip_forward",
                    "/proc/sys/net/ipv6/conf/all/forwarding",
                ] {
                    std::fs::write(f, "1")?;
                }
                sys::open_tun(INNER_DEVICE)
            })
            .map_err(|e| io_err(INNER_DEVICE, e))?;
        let outer = sys::open_tun(&outer_name).map_err(|e| io_err(&outer_name, e))?;
        let (o4, o6) = self.path.outer();
        let (i4, i6) = self.path.inner();
        let (b4, p4) = self.path.v4_block();
        let (b6, p6) = self.path.v6_block();
        let mtu = MTU.to_string();
        let n = self.name.as_str();
        let d = outer_name.as_str();
        ip(&["link", "set", d, "mtu", &mtu, "up"])?;
        ip(&["addr", "add", &format!("{o4}/30"), "dev", d])?;
        ip(&["-6", "addr", "add", &format!("{o6}/126"), "dev", d, "nodad"])?;
        ip(&["route", "add", &format!("{b4}/{p4}"), "dev", d])?;
        ip(&["-6", "route", "add", &format!("{b6}/{p6}"), "dev", d])?;
        ip(&["-n", n, "link", "set", "lo", "up"])?;
        ip(&["-n", n, "link", "set", INNER_DEVICE, "mtu", &mtu, "up"])?;
        ip(&[
            "-n",
            n,
            "addr",
            "add",
            &format!("{i4}/30"),
            "dev",
            INNER_DEVICE,
        ])?;
        ip(&[
            "-n",
            n,
            "-6",
            "addr",
            "add",
            &format!("{i6}/126"),
            "dev",
            INNER_DEVICE,
            "nodad",
        ])?;
        // Routes only to the shell's own address space: anything else is
        // unreachable from inside, not sent towards the host's networks.
        ip(&[
            "-n",
            n,
            "route",
            "add",
            &format!("{V4_BASE}/{V4_PREFIX}"),
            "dev",
            INNER_DEVICE,
        ])?;
        ip(&[
            "-n",
            n,
            "-6",
            "route",
            "add",
            &format!("{V6_BASE}/{V6_PREFIX}"),
            "dev",
            INNER_DEVICE,
        ])?;
        Ok((inner, outer))
    }
}

impl Drop for Namespace {
    fn drop(&mut self) {
        let _ = remove(&self.name);
    }
}

/// Creates `name`'s owner file holding this process's pid; false if
/// another shell holds it.
fn claim(name: &str) -> Result<bool, ShellError> {
    claim_in(Path::new(OWNER_DIR), name)
}

/// [`claim`] in directory `dir`. The owner file appears with its pid
/// already in it: the pid is written to a private file first and then
/// hard-linked to the owner's name, which fails if that name exists. A
/// shell that created the owner file empty and wrote its pid after would
/// leave a moment in which a shell starting beside it reads "no owner"
/// and removes a live namespace (seen in concurrent starts).
fn claim_in(dir: &Path, name: &str) -> Result<bool, ShellError> {
    let err = |p: &Path, e| ShellError::Io(p.display().to_string(), e);
    std::fs::create_dir_all(dir).map_err(|e| err(dir, e))?;
    let f = dir.join(name);
    // A dot name: cleanup lists only names with the namespace prefix.
    let private = dir.join(format!(".{name}.{}", std::process::id()));
    std::fs::write(&private, format!("{}\n", std::process::id())).map_err(|e| err(&private, e))?;
    let linked = std::fs::hard_link(&private, &f);
    let _ = std::fs::remove_file(&private);
    match linked {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(err(&f, e)),
    }
}

/// An exclusive `flock` on the owner directory, released when the
/// returned file closes (also when the process dies, so a killed shell
/// never leaves it held). Serialises `cleanup` against `claim` plus the
/// namespace's creation. None if the lock cannot be had (no directory, no
/// permission): the shell then goes on unserialised, as before the lock,
/// rather than refuse to start.
fn lock() -> Option<File> {
    lock_in(Path::new(OWNER_DIR))
}

/// [`lock`] on directory `dir`.
fn lock_in(dir: &Path) -> Option<File> {
    use std::os::fd::AsRawFd;
    std::fs::create_dir_all(dir).ok()?;
    // A dot name: cleanup lists only names with the namespace prefix.
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(".lock"))
        .ok()?;
    loop {
        // SAFETY: flock on a descriptor this function owns; no memory is
        // passed.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } == 0 {
            return Some(file);
        }
        if io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return None;
        }
    }
}

fn owner_file(name: &str) -> PathBuf {
    Path::new(OWNER_DIR).join(name)
}

/// The names under /run/netns.
fn existing_namespaces() -> Vec<String> {
    std::fs::read_dir(NETNS_DIR)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .filter_map(|e| e.file_name().into_string().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// Kills every process in namespace `name` and deletes it; returns how
/// many processes it killed. Best effort: whatever is already gone is
/// fine.
fn remove(name: &str) -> usize {
    let mut killed = 0;
    // A process may fork between the listing and the kill: list again
    // until the namespace is empty (a few rounds at most in practice).
    for _ in 0..KILL_ROUNDS {
        let pids = namespace_pids(name);
        if pids.is_empty() {
            break;
        }
        for pid in pids {
            if sys::signal_process(pid, libc::SIGKILL) {
                killed += 1;
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let _ = ip(&["netns", "del", name]);
    let _ = std::fs::remove_file(owner_file(name));
    killed
}

/// Rounds of listing and killing a namespace's processes before giving up.
const KILL_ROUNDS: usize = 20;

/// The processes whose network namespace is `name`, as `ip netns pids`
/// lists them (it reads /proc/PID/ns/net).
fn namespace_pids(name: &str) -> Vec<u32> {
    Command::new("ip")
        .args(["netns", "pids", name])
        .output()
        .map(|out| {
            String::from_utf8_lossy(&out.stdout)
                .split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// A namespace `cleanup` removed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Removed {
    /// Its name.
    pub name: String,
    /// Processes that were still running inside it, killed.
    pub killed: usize,
}

/// What `ramp shell --cleanup` (or a starting shell) did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cleanup {
    /// Namespaces removed (their shell was gone).
    pub removed: Vec<Removed>,
    /// Namespaces left alone: their shell is still running.
    pub live: Vec<String>,
}

/// Removes every `ramp-sh-*` namespace whose shell is no longer running,
/// killing the processes still inside (a SIGKILLed shell's command dies
/// with it, but not the command's own children).
pub fn cleanup() -> Cleanup {
    let mut report = Cleanup::default();
    // Held over the whole scan: two shells starting right after a killed
    // one would otherwise both judge its namespace, and the slower one,
    // having read "no owner" while the faster one was between removing
    // the leftover and claiming the name again, would delete the faster
    // one's new namespace (seen with two shells starting in parallel).
    let _lock = lock();
    let owned: Vec<String> = std::fs::read_dir(OWNER_DIR)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .filter_map(|e| e.file_name().into_string().ok())
                .collect()
        })
        .unwrap_or_default();
    let mut names: Vec<String> = existing_namespaces()
        .into_iter()
        .chain(owned)
        .filter(|n| n.starts_with(NETNS_PREFIX))
        .collect();
    names.sort();
    names.dedup();
    for name in names {
        let owner = std::fs::read_to_string(owner_file(&name))
            .ok()
            .and_then(|s| s.trim().parse::<u32>().ok());
        if owner.is_some_and(is_live_shell) {
            report.live.push(name);
        } else {
            let killed = remove(&name);
            report.removed.push(Removed { name, killed });
        }
    }
    report
}

/// Whether `pid` is a running ramp process (not a recycled pid).
fn is_live_shell(pid: u32) -> bool {
    sys::process_alive(pid)
        && std::fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|c| c.starts_with("ramp"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_owner_file_appears_with_its_pid_and_a_second_claim_is_refused() {
        let dir = std::env::temp_dir().join(format!("ramp-claim-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let name = format!("{NETNS_PREFIX}7");
        assert!(claim_in(&dir, &name).expect("first claim"));
        let pid = std::fs::read_to_string(dir.join(&name)).expect("owner file");
        assert_eq!(pid.trim(), std::process::id().to_string());
        assert!(!claim_in(&dir, &name).expect("second claim"));
        // Nothing but the owner file is left behind.
        let left: Vec<_> = std::fs::read_dir(&dir)
            .expect("dir")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name())
            .collect();
        assert_eq!(left, vec![std::ffi::OsString::from(&name)]);
        std::fs::remove_dir_all(&dir).expect("remove test dir");
    }

    #[test]
    fn the_owner_directory_lock_is_exclusive_and_released_on_close() {
        use std::os::fd::AsRawFd;
        let dir = std::env::temp_dir().join(format!("ramp-lock-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let held = lock_in(&dir).expect("first lock");
        // A second open file description cannot take it while it is held.
        let other = std::fs::OpenOptions::new()
            .write(true)
            .open(dir.join(".lock"))
            .expect("open lock file");
        // SAFETY (below): flock on a descriptor the test owns.
        let try_lock =
            |f: &File| unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0;
        assert!(!try_lock(&other), "the lock is held");
        drop(held);
        assert!(try_lock(&other), "closing the holder releases it");
        drop(other);
        std::fs::remove_dir_all(&dir).expect("remove test dir");
    }

    #[test]
    fn a_shell_starting_beside_a_claim_never_reads_an_empty_owner_file() {
        // The race concurrent starts hit: a reader (another shell's
        // cleanup) must see either no owner file or one holding a pid.
        let dir = std::env::temp_dir().join(format!("ramp-claim-race-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("test dir");
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let reader = {
            let (dir, stop) = (dir.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut empty = 0;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    for i in 0..64 {
                        let f = dir.join(format!("{NETNS_PREFIX}{i}"));
                        if let Ok(text) = std::fs::read_to_string(&f) {
                            empty += usize::from(text.trim().parse::<u32>().is_err());
                        }
                    }
                }
                empty
            })
        };
        for round in 0..100 {
            for i in 0..64 {
                assert!(
                    claim_in(&dir, &format!("{NETNS_PREFIX}{i}")).expect("claim"),
                    "round {round}"
                );
            }
            for i in 0..64 {
                std::fs::remove_file(dir.join(format!("{NETNS_PREFIX}{i}"))).expect("release");
            }
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let empty = reader.join().expect("reader");
        std::fs::remove_dir_all(&dir).expect("remove test dir");
        assert_eq!(empty, 0, "owner files read without their pid");
    }
}
