//! The grid chart renders from records: one line per arm in each panel,
//! in the arm's colour, with axis units and the scenario in the title.

use ramp_plot::chart::{style::SERIES, to_svg, GridChart, Theme};
use ramp_plot::{grid_curves, parse_records, GridAxis, GridSamples};

fn records() -> Vec<ramp_plot::Record> {
    let mut lines = Vec::new();
    for (arm, slope) in [("reno", 3.0), ("cubic", 2.0), ("cubic+hystart", 2.0)] {
        for loss in [0.0, 0.02, 0.04, 0.08] {
            for seed in 0..5u64 {
                let ttlb_us = ((1.0 + slope * loss * 100.0) * 1e6) as u64 + seed * 10_000;
                let lost = (loss * 1000.0) as u64 + seed;
                lines.push(format!(
                    "{{\"group\":\"{arm}\",\"grid.cell\":0,\"grid.loss\":{loss},\
                     \"grid.rate-bps\":100000000,\"grid.rtt-ms\":40,\"grid.queue-ms\":40,\
                     \"grid.size-bytes\":10000000,\"ttlb-us\":{ttlb_us},\
                     \"num-packets.lost\":{lost},\"completed\":true}}"
                ));
            }
        }
    }
    parse_records(&lines.join("\n"), "t").unwrap()
}

fn hex(c: plotters::style::RGBColor) -> String {
    format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
}

#[test]
fn grid_chart_has_one_line_per_arm_in_each_panel() {
    let samples = GridSamples::from_records(records(), "group");
    assert_eq!(samples.varying_axes(), vec![GridAxis::Loss]);
    let r = grid_curves(&samples, GridAxis::Loss, &[]).unwrap();
    let svg = to_svg(&GridChart::new(&r), Theme::Light).unwrap();
    assert!(svg.len() > 5_000, "suspiciously small SVG");
    for label in [
        "TTLB and packets lost against random loss",
        "100 Mbit/s, 40 ms RTT, 40 ms queue, 10 MB object",
        "TTLB: median per arm, band p10–p90 (n ≤ 5 per point)",
        "packets lost per connection (mean)",
        "random loss (%)",
        "TTLB (s)",
        "reno (20 connections)",
        "cubic (20 connections)",
        "cubic+hystart (20 connections)",
    ] {
        assert!(svg.contains(label), "missing {label:?}");
    }
    // One median line per arm in the TTLB panel and one in the lost
    // panel, plus the key's swatch: three polylines in each arm's colour.
    for (i, _) in r.series.iter().enumerate() {
        let colour = hex(SERIES[i]);
        let lines = svg
            .split("<polyline")
            .skip(1)
            .filter(|p| p.split('>').next().unwrap_or("").contains(&colour))
            .count();
        assert_eq!(lines, 3, "arm {i} ({colour}): {lines} polylines");
    }
    // Deterministic.
    assert_eq!(svg, to_svg(&GridChart::new(&r), Theme::Light).unwrap());
}

#[test]
fn log_axis_for_sizes_and_pooled_axes_are_named() {
    let mut lines = Vec::new();
    for arm in ["a", "b"] {
        for size in [10_000u64, 100_000, 1_000_000] {
            for loss in [0.0, 0.01] {
                lines.push(format!(
                    "{{\"group\":\"{arm}\",\"grid.cell\":1,\"grid.size-bytes\":{size},\
                     \"grid.loss\":{loss},\"ttlb-us\":{},\"num-packets.lost\":1}}",
                    size / 10
                ));
            }
        }
    }
    let recs = parse_records(&lines.join("\n"), "t").unwrap();
    let s = GridSamples::from_records(&recs, "group");
    let r = grid_curves(&s, GridAxis::Size, &[]).unwrap();
    let svg = to_svg(&GridChart::new(&r).title("sizes"), Theme::Dark).unwrap();
    assert!(svg.contains("pooled over loss (2 values)"), "pooled note");
    // TTLB from 1 ms to 100 ms: two decades, so a log TTLB axis too.
    assert!(svg.contains("TTLB (log scale)"));
    assert!(svg.contains("\n10 ms\n"), "log TTLB tick");
    for tick in ["10 KB", "100 KB", "1 MB"] {
        assert!(svg.contains(&format!("\n{tick}\n")), "missing tick {tick}");
    }
}

#[test]
fn report_of_a_grid_run_has_the_grid_chart() {
    let run = ramp_plot::RunData {
        title: "grid".into(),
        records: ramp_plot::RunRecords::from_records(records()),
        ..ramp_plot::RunData::default()
    };
    let html = ramp_plot::render_report(&run).unwrap();
    assert!(html.contains("id=\"chart-grid-loss\""));
    assert!(html.contains("TTLB and packets lost against random loss (%)"));
    assert!(!html.contains("chart-grid-rate"), "rate does not vary");
}
