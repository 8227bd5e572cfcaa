//! Charts of traces whose controllers have long canonical specs (the
//! `ramp compare` arms run to 200 characters): no text runs off the image,
//! titles and legends name the arm, and the full spec is still on the chart.

use super::fit::tests::overflowing;
use super::fit::text_width;
use super::{to_svg, Chart, DeliveryChart, Theme, TimeSeqChart};
use crate::fixtures::{run, Growth, ToyRun};
use crate::trace::{parse_trace, Trace};

/// The spec of `ramp compare`'s rapidstart arm.
const LONG: &str = "newreno(iw=30x1472,ca_gain=2,pacer=quicly,beta=0.7,ss_beta=0.5,growth=pico)\
+rapidstart(jump_floor=on,thresh_mult=1.09375,rtt_floor=slots,k=11/18,thresh=max,clock=ms,\
off_below_ms=4,recovery=quicly,recon=quicly)";

fn trace(group: &str, cc: &str, growth: Growth) -> Trace {
    let (text, _) = run(&ToyRun {
        group: group.into(),
        cc: cc.into(),
        growth,
        rate_bps: 20e6,
        rtt_ms: 40.0,
        queue_ms: 40.0,
        loss: 0.0,
        content_length: 400_000,
        seed: 1,
        pop: "ams".into(),
    });
    parse_trace(&text, "t").unwrap()
}

/// The SVG's text, lines joined, for "is the spec on the chart".
fn all_text(svg: &str) -> String {
    super::fit::tests::svg_texts(svg)
        .into_iter()
        .map(|t| t.3)
        .collect()
}

fn check(chart: &impl Chart, svg: &str) {
    let (w, _) = chart.size();
    let off = overflowing(svg, w);
    assert!(off.is_empty(), "text runs off the {w}-px image: {off:?}");
}

#[test]
fn delivery_legend_names_arms_and_the_key_under_the_plot_gives_each_whole_spec() {
    let a = trace(
        "baseline",
        "newreno(iw=30x1472,ca_gain=2,pacer=quicly,beta=0.7,ss_beta=0.5,growth=pico)",
        Growth::SlowStart,
    );
    let b = trace("rapidstart", LONG, Growth::Rapid);
    let chart = DeliveryChart::new(vec![&a, &b]);
    let svg = to_svg(&chart, Theme::Light).unwrap();
    check(&chart, &svg);
    let texts = super::fit::tests::svg_texts(&svg);
    // The legend entry is the arm and its last byte, not the spec.
    let legend = texts
        .iter()
        .find(|t| t.3.starts_with("rapidstart — last byte"))
        .expect("legend entry");
    assert!(text_width(&legend.3, legend.2) < 400, "{}", legend.3);
    // The spec key holds the whole spec, wrapped.
    assert!(all_text(&svg).contains(&format!("rapidstart: {LONG}")));
}

#[test]
fn timeseq_title_fits_and_the_spec_is_under_it() {
    let t = trace("rapidstart", LONG, Growth::Rapid);
    let chart = TimeSeqChart::new(&t);
    let svg = to_svg(&chart, Theme::Light).unwrap();
    check(&chart, &svg);
    assert!(all_text(&svg).contains(&format!("controller: {LONG}")));
    // Without a group the title names the controller's short form.
    let t = trace("", LONG, Growth::Rapid);
    let svg = to_svg(&TimeSeqChart::new(&t), Theme::Light).unwrap();
    let title = &super::fit::tests::svg_texts(&svg)[0].3;
    assert!(
        title.starts_with("Time sequence — newreno+rapidstart"),
        "{title}"
    );
}

#[test]
fn a_title_too_long_for_the_image_is_ellipsized() {
    let t = trace("x", "cubic", Growth::SlowStart);
    let chart = TimeSeqChart::new(&t).title("a very long title ".repeat(20));
    let svg = to_svg(&chart, Theme::Light).unwrap();
    check(&chart, &svg);
    assert!(super::fit::tests::svg_texts(&svg)[0].3.ends_with('…'));
}

/// The legend's counts say what they count: acknowledged packets include
/// retransmissions, "sent" is new data only (2503 acknowledged of 2500
/// sent read as an error).
#[test]
fn timeseq_legend_says_acknowledged_counts_retransmissions() {
    let t = trace("x", "cubic", Growth::Rapid);
    let svg = to_svg(&TimeSeqChart::new(&t), Theme::Light).unwrap();
    let text = all_text(&svg);
    assert!(text.contains("sent, new data ("), "{text}");
    assert!(
        text.contains("acknowledged, incl. retransmissions ("),
        "{text}"
    );
}
