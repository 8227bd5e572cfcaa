//! Blocking entry points for the `ramp` command, which has no async
//! runtime of its own: each starts a tokio runtime here.

use std::time::Duration;

/// A multi-threaded tokio runtime with two workers (the CI machine has two
/// cores; the relay's timer threads are separate OS threads).
pub(crate) fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
}

/// Ctrl-C (SIGINT) and SIGTERM, caught from the moment this is made.
///
/// SIGTERM is what `kill`, `timeout(1)`, systemd and container runtimes send
/// to stop a process; it ends serve and relay like Ctrl-C, so that they
/// print their final counters and flush their logs instead of dying with
/// nothing said. The handlers are installed before a command prints its
/// `listening on` line: a script that signals the process as soon as it
/// reads that line must not find the default action (death) still in place.
pub(crate) struct StopSignals {
    #[cfg(unix)]
    interrupt: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    terminate: Option<tokio::signal::unix::Signal>,
}

impl StopSignals {
    /// Installs the handlers. Must be called inside a tokio runtime (its
    /// signal driver). A handler that cannot be installed leaves that
    /// signal's default action; with neither, only a time limit ends
    /// [`StopSignals::or_after`].
    pub(crate) fn install() -> StopSignals {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            StopSignals {
                interrupt: signal(SignalKind::interrupt()).ok(),
                terminate: signal(SignalKind::terminate()).ok(),
            }
        }
        #[cfg(not(unix))]
        StopSignals {}
    }

    /// Completes on the first signal or after `limit`, whichever is first.
    pub(crate) async fn or_after(self, limit: Option<Duration>) {
        let stop = self.any();
        match limit {
            Some(d) => {
                tokio::select! {
                    () = stop => {}
                    () = tokio::time::sleep(d) => {}
                }
            }
            None => stop.await,
        }
    }

    #[cfg(unix)]
    async fn any(mut self) {
        async fn recv(s: &mut Option<tokio::signal::unix::Signal>) {
            match s {
                Some(s) => {
                    s.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        }
        tokio::select! {
            () = recv(&mut self.interrupt) => {}
            () = recv(&mut self.terminate) => {}
        }
    }

    #[cfg(not(unix))]
    async fn any(self) {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

/// A blocking wait for Ctrl-C, SIGTERM or a time limit, for a command with
/// no async runtime of its own (`ramp relay`). Make it before announcing
/// the command as ready: from then on the signals are caught.
pub struct StopWait {
    rt: tokio::runtime::Runtime,
    signals: StopSignals,
}

impl StopWait {
    /// Starts a small runtime and installs the signal handlers.
    pub fn install() -> std::io::Result<StopWait> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let signals = rt.block_on(async { StopSignals::install() });
        Ok(StopWait { rt, signals })
    }

    /// Blocks the calling thread until Ctrl-C, SIGTERM or `limit`.
    pub fn block(self, limit: Option<Duration>) {
        self.rt.block_on(self.signals.or_after(limit));
    }
}
