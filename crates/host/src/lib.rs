//! ramp-host: host scheduling of a real-time forwarding thread, the
//! settings `ramp shell`'s loop and `ramp relay`'s threads share, so that
//! a packet leaves close to the time the link model gives it without the
//! thread spinning
//! (a spinning forwarder takes a core away from the endpoints it carries,
//! which on a small machine slows the very transfer it is timing).
//!
//! A crate of its own so that the relay (ramp-quic) and the shell
//! (ramp-shell) share it without either depending on the other. [`timing`]
//! is the tests' side of the same question: was a real-time run on time?

use std::io;

pub mod timing;

/// Asks for timer wake-ups of the calling thread without the default
/// 50 µs slack (`PR_SET_TIMERSLACK`, prctl(2)), so a sleep until a
/// packet's modelled time ends within microseconds of it.
pub fn tight_timer_slack() {
    // SAFETY: prctl with an integer argument; it affects only the calling
    // thread.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong);
    }
}

/// Real-time priority for the calling thread (SCHED_FIFO, priority 10):
/// the thread then runs as soon as a packet falls due, not when the
/// scheduler next gets round to it on a loaded machine. A forwarder that
/// blocks between packets takes only the CPU it needs (and the kernel's
/// real-time throttling keeps 5 % for everything else). Needs root or
/// CAP_SYS_NICE.
pub fn realtime_priority() -> io::Result<()> {
    let p = libc::sched_param { sched_priority: 10 };
    // SAFETY: pid 0 = the calling thread; p is a valid sched_param.
    if unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &p) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
