use super::*;
use crate::fixtures::{run, Growth, ToyRun};
use crate::record::parse_records;
use crate::report::RunRecords;
use crate::trace::parse_trace;

const LONG: &str = "newreno(iw=30x1472,ca_gain=2,pacer=quicly,beta=0.7,ss_beta=0.5,growth=pico)\
+rapidstart(jump=off,jump_floor=on,thresh_mult=1.09375,rtt_floor=slots,k=11/18,thresh=max,\
clock=ms,off_below_ms=4,recovery=quicly)";

/// Records and traces named only by their controller (no `group`), as
/// `ramp sim` writes them: the arm is the whole spec.
#[test]
fn the_contents_name_long_arms_in_short_and_keep_the_whole_heading_in_a_tooltip() {
    let mut records = String::new();
    let mut traces = Vec::new();
    for (cc, growth) in [("newreno", Growth::SlowStart), (LONG, Growth::Rapid)] {
        for seed in 1..=5 {
            let (trace, record) = run(&ToyRun {
                group: String::new(),
                cc: cc.into(),
                growth,
                rate_bps: 20e6,
                rtt_ms: 40.0,
                queue_ms: 40.0,
                loss: 0.0,
                content_length: 200_000,
                seed,
                pop: "ams".into(),
            });
            records.push_str(&record.replace(",\"group\":\"\"", ""));
            records.push('\n');
            if seed == 1 {
                traces.push(parse_trace(&trace, "t").unwrap());
            }
        }
    }
    let mut data = RunData {
        title: "long".into(),
        records: RunRecords::from_records(parse_records(&records, "r").unwrap()),
        traces,
        ..RunData::default()
    };
    // The long arm as the baseline puts it in the A/B headings.
    data.set_baseline(LONG).unwrap();
    let html = render_report(&data).unwrap();
    let nav = &html[html.find("<nav>").unwrap()..html.find("</nav>").unwrap()];
    let mut links = 0;
    for a in nav.split("<a ").skip(1) {
        let text = &a[a.find('>').unwrap() + 1..a.find("</a>").unwrap()];
        assert!(text.chars().count() <= TOC_CHARS, "contents entry: {text}");
        links += 1;
    }
    assert!(links >= 4, "{nav}");
    assert!(
        nav.contains("Time sequence: newreno+rapidstart (seed 1)"),
        "{nav}"
    );
    // Whatever is cut is in the link's tooltip.
    assert!(
        nav.contains(&format!(
            "title=\"TTLB change against {LONG}, by percentile\""
        )),
        "{nav}"
    );
    assert!(html.contains("nav li { break-inside:avoid"));
    // And no chart of the report draws text off its image.
    for c in charts(&data, Theme::Light).unwrap().0 {
        let w: u32 = c.svg[c.svg.find("width=\"").unwrap() + 7..]
            .split('"')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let off = crate::chart::overflowing_text(&c.svg, w);
        assert!(off.is_empty(), "{}: {off:?}", c.id);
    }
}
