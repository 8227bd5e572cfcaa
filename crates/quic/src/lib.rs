//! ramp-cc inside quinn: HTTP/3 and HTTP/2 servers and clients, the UDP
//! link emulator, and the load generator.
//!
//! The public surface is five subsystems, one module each, and the few
//! types they share, at the root:
//!
//! - [`server`], [`client`]: `ramp serve` and `ramp get`, with a ramp-cc
//!   controller inside quinn ([`CcChoice`] names it; the adapter that
//!   translates quinn's callbacks, the kernel receive times and the
//!   controller probe are private);
//! - [`h2`]: the HTTP/2-over-TLS baseline server (`ramp serve --h2`);
//! - [`load`]: the load generator behind `ramp load`, over HTTP/3 or HTTP/2;
//! - [`relay`]: the userspace bottleneck emulator behind `ramp relay`;
//! - at the root: [`PathLabels`] (what a stats record says about the path),
//!   [`Identity`] and [`Trust`] (TLS), [`IDLE_TIMEOUT`],
//!   [`StopWait`] and [`pattern_byte`] (the body every response carries).

#![forbid(unsafe_code)]

mod adapter;
mod arrival;
mod body;
mod choice;
pub mod client;
pub mod h2;
mod h3_tracked;
pub mod load;
mod probe;
pub mod relay;
mod route;
mod runtime;
pub mod server;
mod stats;
mod tls;
mod transport;
mod unreachable;

pub use body::pattern_byte;
pub use choice::{CcChoice, COMPARED};
pub use runtime::StopWait;
pub use stats::PathLabels;
pub use tls::{Identity, Trust};
pub use transport::IDLE_TIMEOUT;
