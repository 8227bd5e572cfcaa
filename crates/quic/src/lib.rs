//! ramp-cc inside quinn: HTTP/3 server and client, UDP link emulator.
//!
//! - [`adapter`]: ramp-cc controllers as quinn congestion controllers.
//! - [`arrival`]: kernel receive times for the server's ACK processing.
//! - [`probe`]: what the server learns from a connection's controller.
//! - [`relay`]: the userspace bottleneck emulator behind `ramp relay`.
//! - [`server`], [`client`]: `ramp serve` and `ramp get` (with [`body`],
//!   [`stats`], [`tls`], [`transport`], [`choice`]).
//! - [`units`]: parsing `20mbit`, `40ms`, `0.5%`.

#![forbid(unsafe_code)]
#![warn(unreachable_pub)]

pub mod adapter;
pub mod arrival;
pub mod body;
pub mod choice;
pub mod client;
pub mod h2;
mod h3_tracked;
pub mod load;
pub mod probe;
pub mod relay;
mod route;
pub mod runtime;
pub mod server;
pub mod stats;
pub mod tls;
pub mod transport;
pub mod units;
mod unreachable;
