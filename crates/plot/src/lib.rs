//! Charts (PNG/SVG) and the self-contained HTML report for ramp records and traces.
