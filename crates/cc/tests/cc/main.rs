//! ramp-cc's integration tests in one binary: one module per area, named
//! after the RFC or draft it checks, sharing the drivers in `support`
//! (controllers) and `recovery_support` (the loss detector).

// A test binary has no API: `pub` marks what its modules share.
#![allow(unreachable_pub)]

mod recovery_support;
mod scripted;
mod support;

mod adding_a_ca;
mod bbr3;
mod careful_resume;
mod cubic;
mod hystart;
mod newreno;
mod prague;
mod properties;
mod quicly_clock;
mod quicly_rapid_start;
mod rapid_start;
mod recovery_pacer;
mod recovery_persistent;
mod recovery_proptest;
mod recovery_rfc9002;
mod recovery_spurious;
mod recovery_with_controllers;
mod spec;
