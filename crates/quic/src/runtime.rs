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

/// Completes on Ctrl-C (SIGINT) or after `limit`, whichever is first.
pub(crate) async fn interrupted_or(limit: Option<Duration>) {
    let ctrl_c = async {
        // If the signal handler cannot be installed, only `limit` ends.
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    match limit {
        Some(d) => {
            tokio::select! {
                () = ctrl_c => {}
                () = tokio::time::sleep(d) => {}
            }
        }
        None => ctrl_c.await,
    }
}

/// Blocks the calling thread until Ctrl-C or `limit`.
pub fn block_until_interrupted(limit: Option<Duration>) -> std::io::Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(interrupted_or(limit));
    Ok(())
}
