use super::*;
use crate::record::parse_records;
use crate::report::RunRecords;

/// Smallest text a chart of the report may display, in CSS pixels, at
/// [`CHART_DISPLAY_PX`]. An assumption, not a standard: browsers'
/// default minimum font settings sit around 9–12 px, and chart labels
/// of print style guides at 8–9 pt (11–12 px).
const MIN_LABEL_PX: f64 = 10.0;

/// The width and the smallest `font-size` of an SVG image.
fn width_and_smallest_font(svg: &str) -> (f64, f64) {
    let attr = |s: &str, name: &str| -> Option<f64> {
        let at = s.find(&format!("{name}=\""))? + name.len() + 2;
        s[at..].split('"').next()?.parse().ok()
    };
    let width = attr(svg, "width").expect("svg width");
    let smallest = svg
        .split("font-size=\"")
        .skip(1)
        .filter_map(|s| s.split('"').next()?.parse::<f64>().ok())
        .fold(f64::INFINITY, f64::min);
    (width, smallest)
}

/// The review's case: a run of seven regions. Its per-region A/B
/// chart, three panels wide, was shown at three quarters of its size
/// (labels at 7.3 px); every label of every chart must display at
/// [`MIN_LABEL_PX`] or more.
#[test]
fn every_charts_labels_display_at_a_readable_size_with_seven_regions() {
    assert!(STYLE.contains("max-width:1280px; padding:1.5rem;"));
    assert!(STYLE.contains("border:1px solid var(--line); border-radius:8px; padding:.5rem;"));
    let mut records = String::new();
    for pop in 0..7 {
        for seed in 0..12u32 {
            for (arm, ms) in [("baseline", 100.0), ("x", 90.0)] {
                let ttlb = ms + f64::from(seed * 7 % 13) + f64::from(pop);
                records.push_str(&format!(
                    "{{\"group\":\"{arm}\",\"pop\":\"region-{pop}\",\"seed\":{seed},\"ttlb\":{ttlb}}}\n"
                ));
            }
        }
    }
    let run = RunData {
        title: "regions".into(),
        records: RunRecords::from_records(parse_records(&records, "r").unwrap()),
        ..RunData::default()
    };
    let (charts, _) = charts(&run, Theme::Light).unwrap();
    let by_pop = charts
        .iter()
        .find(|c| c.id == "chart-ab-pop")
        .expect("a per-region chart");
    let (width, _) = width_and_smallest_font(&by_pop.svg);
    assert!(
        width <= f64::from(CHART_DISPLAY_PX),
        "{width} px wide: shown scaled down"
    );
    for c in &charts {
        let (width, smallest) = width_and_smallest_font(&c.svg);
        let shown = smallest * f64::from(CHART_DISPLAY_PX) / width;
        assert!(
            shown >= MIN_LABEL_PX,
            "{}: {smallest} px text in a {width} px image shows at {shown:.1} px",
            c.id
        );
    }
}
