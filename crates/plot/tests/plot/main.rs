//! ramp-plot's integration tests in one binary.

#[cfg(feature = "fixtures")]
mod charts;
mod grid_chart;
mod properties;
