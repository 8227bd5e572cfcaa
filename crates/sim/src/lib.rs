//! Deterministic packet-level simulator driving ramp-cc controllers.
