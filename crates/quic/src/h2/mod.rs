//! HTTP/2 over TLS on TCP: the baseline `ramp serve --h2` serves the same
//! paths with (see `crate::route`), and the connection set-up `ramp load
//! --h2` uses. The same listener speaks HTTP/1.1 to clients that ask for
//! it by ALPN, and can run any kernel TCP congestion controller.
//!
//! Built on the `h2` crate directly (not hyper) so the server decides how
//! much body it buffers: it sends only as much as the peer's flow-control
//! window grants, at most one chunk ahead per stream.
//!
//! - [`server`]: the listener, per-connection and per-stream tasks.
//! - [`tls`]: ALPN `h2` variants of the shared rustls configurations.
//! - [`counting`]: an I/O wrapper counting the plaintext bytes read.
//! - [`http1`]: HTTP/1.1 on the same listener.

pub mod counting;
pub mod http1;
pub mod server;
pub mod tls;
