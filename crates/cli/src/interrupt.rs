//! Removing a half-written directory when the process is interrupted.
//!
//! `ramp compare` writes its run into a staging directory and swaps it in
//! at the end; Ctrl-C (SIGINT), SIGTERM or SIGHUP in between must not
//! leave the staging directory behind. The signals are blocked in the
//! calling thread (and so in every thread it starts later) and one
//! watcher thread waits for them with `sigwait`: it removes the directory,
//! then lets the signal take its default action, so the shell sees the
//! process killed by it (exit status 130 for SIGINT). A directory left by
//! a run killed with SIGKILL is removed by the next run
//! ([`crate::run_dir::Staging::begin`]).

use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};

/// A directory to remove if the process is interrupted, until
/// [`Cleanup::disarm`] (or while the guard of [`Cleanup::hold`] is held,
/// not at all: the signal waits).
#[derive(Clone)]
pub struct Cleanup {
    dir: Arc<Mutex<Option<PathBuf>>>,
}

impl Cleanup {
    /// Starts the watcher for `dir`. Call it before starting other threads:
    /// threads started earlier keep the signals' default action.
    pub fn on_interrupt(dir: PathBuf) -> Cleanup {
        let c = Cleanup {
            dir: Arc::new(Mutex::new(Some(dir))),
        };
        #[cfg(unix)]
        watch(c.clone());
        c
    }

    /// Holds off the cleanup while the directory is being moved.
    pub fn hold(&self) -> MutexGuard<'_, Option<PathBuf>> {
        self.dir.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The directory is no longer to be removed.
    pub fn disarm(&self) {
        *self.hold() = None;
    }
}

#[cfg(unix)]
fn watch(c: Cleanup) {
    // SAFETY: sigset_t is plain data, initialised by sigemptyset before use;
    // pthread_sigmask changes only this thread's mask.
    let set = unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for s in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            libc::sigaddset(&mut set, s);
        }
        if libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) != 0 {
            return;
        }
        set
    };
    let spawned = std::thread::Builder::new()
        .name("ramp-interrupt".into())
        .spawn(move || {
            let mut sig: libc::c_int = 0;
            // SAFETY: `set` is a valid, initialised signal set.
            if unsafe { libc::sigwait(&set, &mut sig) } != 0 {
                return;
            }
            if let Some(dir) = c.hold().take() {
                let _ = std::fs::remove_dir_all(&dir);
            }
            // SAFETY: restoring the default action and unblocking the
            // signal in this thread, then raising it here, ends the process
            // as the signal would have.
            unsafe {
                libc::signal(sig, libc::SIG_DFL);
                libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
                libc::raise(sig);
            }
            std::process::exit(128 + sig);
        });
    if spawned.is_err() {
        // No watcher: take the signals back rather than ignore them.
        // SAFETY: as above, this thread's mask only.
        unsafe {
            libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        }
    }
}
