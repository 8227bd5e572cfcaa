//! The few system calls the shell needs that std does not wrap: the TUN
//! ioctl, `setns`, `ppoll` with a signal mask, signal dispositions,
//! `prctl`. Every `unsafe` block of the crate is here.

use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

/// Bit set of the signals caught since the last [`take_signals`]
/// (bit n = signal n).
static CAUGHT: AtomicU32 = AtomicU32::new(0);

/// The signals the shell handles: they end the shell (INT, TERM, HUP) or
/// report the child's death (CHLD).
pub(crate) const HANDLED: [libc::c_int; 4] =
    [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGCHLD];

extern "C" fn on_signal(sig: libc::c_int) {
    // Only an atomic store: async-signal-safe.
    if (0..32).contains(&sig) {
        CAUGHT.fetch_or(1 << sig, Ordering::SeqCst);
    }
}

fn handled_set() -> libc::sigset_t {
    // SAFETY: sigemptyset/sigaddset initialise and fill a local set.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for s in HANDLED {
            libc::sigaddset(&mut set, s);
        }
        set
    }
}

/// Installs the handlers and blocks the handled signals on the calling
/// thread (threads spawned later inherit the mask): they are delivered only
/// inside [`wait_readable`], so none is lost between a check and a wait.
pub(crate) fn catch_signals() -> io::Result<()> {
    let set = handled_set();
    // SAFETY: a zeroed sigaction with a valid handler and an empty mask;
    // the handler only touches an atomic.
    unsafe {
        for s in HANDLED {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
            libc::sigemptyset(&mut sa.sa_mask);
            if libc::sigaction(s, &sa, std::ptr::null_mut()) != 0 {
                return Err(io::Error::last_os_error());
            }
        }
        let rc = libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        if rc != 0 {
            return Err(io::Error::from_raw_os_error(rc));
        }
    }
    Ok(())
}

/// Returns and clears the signals caught so far (bit n = signal n).
pub(crate) fn take_signals() -> u32 {
    CAUGHT.swap(0, Ordering::SeqCst)
}

/// In a child between fork and exec: default dispositions and an empty
/// mask for the handled signals, and SIGKILL when the shell dies (so a
/// SIGKILLed shell does not leave its command running).
///
/// Only async-signal-safe calls.
pub(crate) fn child_pre_exec() -> io::Result<()> {
    let set = handled_set();
    // SAFETY: signal, sigprocmask and prctl are async-signal-safe and take
    // valid arguments.
    unsafe {
        for s in HANDLED {
            libc::signal(s, libc::SIG_DFL);
        }
        if libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut()) != 0 {
            return Err(io::Error::last_os_error());
        }
        if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong) != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// The capabilities the shell needs that this process lacks in its
/// effective set: CAP_NET_ADMIN (bit 12: TUN devices, addresses, routes)
/// and CAP_SYS_ADMIN (bit 21: `ip netns add` bind-mounts the namespace
/// under `/run/netns`). Root normally holds both, but a root process with
/// a reduced bounding set (`setpriv --bounding-set -all,+net_admin`) does
/// not, so the check reads the capability set, not the uid.
pub(crate) fn missing_capabilities() -> Vec<&'static str> {
    const NEEDED: [(u32, &str); 2] = [(12, "CAP_NET_ADMIN"), (21, "CAP_SYS_ADMIN")];
    let effective = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("CapEff:"))
                .and_then(|h| u64::from_str_radix(h.trim(), 16).ok())
        });
    let Some(caps) = effective else {
        // No /proc: trust the uid.
        // SAFETY: geteuid has no preconditions.
        return if unsafe { libc::geteuid() } == 0 {
            Vec::new()
        } else {
            NEEDED.iter().map(|(_, n)| *n).collect()
        };
    };
    NEEDED
        .iter()
        .filter(|(bit, _)| caps & (1 << bit) == 0)
        .map(|(_, n)| *n)
        .collect()
}

/// Opens a TUN device named `name` (no packet-information header, no
/// virtio-net header: the kernel segments GSO packets before handing them
/// over, so every packet read is at most the MTU), non-blocking.
pub(crate) fn open_tun(name: &str) -> io::Result<OwnedFd> {
    let path = CString::new("/dev/net/tun").map_err(io::Error::other)?;
    if name.len() >= libc::IFNAMSIZ {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("interface name {name:?} is too long"),
        ));
    }
    // SAFETY: open of a NUL-terminated path; the fd is owned at once.
    let fd = unsafe {
        libc::open(
            path.as_ptr(),
            libc::O_RDWR | libc::O_CLOEXEC | libc::O_NONBLOCK,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: fd was just opened and is owned by nobody else.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    // SAFETY: ifreq is plain data; the name fits (checked above) and stays
    // NUL-terminated; TUNSETIFF reads the name and flags.
    unsafe {
        let mut req: libc::ifreq = std::mem::zeroed();
        for (d, s) in req.ifr_name.iter_mut().zip(name.bytes()) {
            *d = s as libc::c_char;
        }
        req.ifr_ifru.ifru_flags = (libc::IFF_TUN | libc::IFF_NO_PI) as libc::c_short;
        if libc::ioctl(fd.as_raw_fd(), libc::TUNSETIFF, &mut req) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(fd)
}

/// Moves the calling thread into the network namespace `ns` (an open
/// `/run/netns/NAME` file).
pub(crate) fn enter_netns(ns: &File) -> io::Result<()> {
    // SAFETY: setns with a valid fd; affects only the calling thread.
    if unsafe { libc::setns(ns.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Reads one packet; `Ok(None)` when none is waiting.
pub(crate) fn read_packet(fd: RawFd, buf: &mut [u8]) -> io::Result<Option<usize>> {
    // SAFETY: buf is valid for buf.len() bytes.
    let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
    if n < 0 {
        let e = io::Error::last_os_error();
        return match e.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(None),
            _ => Err(e),
        };
    }
    Ok(Some(n as usize))
}

/// Writes one packet.
pub(crate) fn write_packet(fd: RawFd, pkt: &[u8]) -> io::Result<()> {
    // SAFETY: pkt is valid for pkt.len() bytes.
    let n = unsafe { libc::write(fd, pkt.as_ptr().cast(), pkt.len()) };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Waits until one of `fds` is readable, `timeout` passes (`None`: no
/// limit) or a handled signal arrives (delivered only during this wait).
/// Returns which fds are readable.
pub(crate) fn wait_readable(fds: [RawFd; 2], timeout: Option<Duration>) -> io::Result<[bool; 2]> {
    let mut p = fds.map(|fd| libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    });
    let ts = timeout.map(|t| libc::timespec {
        tv_sec: t.as_secs().min(i32::MAX as u64) as libc::time_t,
        tv_nsec: t.subsec_nanos() as libc::c_long,
    });
    // SAFETY: an empty set: every signal unblocked while waiting.
    let mut open: libc::sigset_t = unsafe { std::mem::zeroed() };
    // SAFETY: initialises the local set.
    unsafe { libc::sigemptyset(&mut open) };
    let tsp = ts.as_ref().map_or(std::ptr::null(), |t| t as *const _);
    // SAFETY: p holds 2 valid pollfds, tsp is null or points at a local.
    let rc = unsafe { libc::ppoll(p.as_mut_ptr(), 2, tsp, &open) };
    if rc < 0 {
        let e = io::Error::last_os_error();
        if e.kind() == io::ErrorKind::Interrupted {
            return Ok([false; 2]);
        }
        return Err(e);
    }
    let ready = |q: &libc::pollfd| q.revents & (libc::POLLIN | libc::POLLERR | libc::POLLHUP) != 0;
    Ok([ready(&p[0]), ready(&p[1])])
}

/// Sends `sig` to process `pid`; false if it no longer exists.
pub(crate) fn signal_process(pid: u32, sig: libc::c_int) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: kill has no memory preconditions.
    unsafe { libc::kill(pid, sig) == 0 }
}

/// Whether process `pid` exists.
pub(crate) fn process_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: signal 0 only checks for existence.
    unsafe { libc::kill(pid, 0) == 0 || *libc::__errno_location() == libc::EPERM }
}
