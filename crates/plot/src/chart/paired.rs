//! Placeholder until the A/B chart lands.
