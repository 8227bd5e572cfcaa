//! Pacing (placeholder).
