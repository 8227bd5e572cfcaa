//! Every chart renders from fixture data, says what it shows, and renders
//! identically twice (determinism); the report is byte-identical too.

#![cfg(feature = "fixtures")]

use ramp_plot::chart::{to_svg, AbChart, DeliveryChart, PairedChart, Theme, TimeSeqChart};
use ramp_plot::fixtures::{arms, fleet, run, ToyRun};
use ramp_plot::{
    ab_curves, paired_deltas, parse_records, parse_trace, render_report, AbOptions, Facet, RunData,
};

fn traces() -> Vec<ramp_plot::Trace> {
    arms()
        .into_iter()
        .map(|(group, cc, growth)| {
            let cfg = ToyRun {
                group: group.into(),
                cc: cc.into(),
                growth,
                rate_bps: 50e6,
                rtt_ms: 40.0,
                queue_ms: 20.0,
                loss: 0.0,
                content_length: 600_000,
                seed: 9,
                pop: "ams".into(),
            };
            parse_trace(&run(&cfg).0, group).unwrap()
        })
        .collect()
}

#[test]
fn time_sequence_has_every_series_and_panel() {
    let ts = traces();
    let svg = to_svg(&TimeSeqChart::new(&ts[0]), Theme::Light).unwrap();
    for label in [
        "Time sequence — baseline — toy: 50 Mbit/s, RTT 40 ms, queue 20 ms, object 600 KB",
        "controller: newreno",
        "sent, new data (500)",
        "acknowledged, incl. retransmissions",
        "cwnd",
        "bytes in flight",
        "smoothed",
        "latest",
        "min",
        "bottleneck queue",
        "queueing delay (ms)",
        "time since connection start (ms)",
    ] {
        assert!(svg.contains(label), "missing {label:?}");
    }
    assert_eq!(
        svg,
        to_svg(&TimeSeqChart::new(&ts[0]), Theme::Light).unwrap()
    );
    assert_ne!(
        svg,
        to_svg(&TimeSeqChart::new(&ts[0]), Theme::Dark).unwrap()
    );
}

#[test]
fn delivery_names_each_trace_and_the_queue_axis() {
    let ts = traces();
    let svg = to_svg(&DeliveryChart::new(ts.iter().collect()), Theme::Light).unwrap();
    assert!(svg.contains("baseline — last byte"));
    assert!(svg.contains("rapid — last byte"));
    // The arm label names the curve; the spec sits in the key under the plot.
    assert!(svg.contains("baseline: newreno"));
    assert!(svg.contains("rapid: newreno+rapid"));
    assert!(svg.contains("bottleneck queue (KB), dashed"));
    let svg = to_svg(
        &DeliveryChart::new(ts.iter().collect()).queue(false),
        Theme::Light,
    )
    .unwrap();
    assert!(!svg.contains("bottleneck queue"));
}

#[test]
fn ab_and_paired_charts_facet_and_label() {
    let (records, _) = fleet(24, 0);
    let rs = parse_records(&records, "fleet").unwrap();
    let mut o = AbOptions::new("baseline");
    o.bootstrap.resamples = 50;
    o.facet = Facet::Key("pop".into());
    let ab = ab_curves(&rs, &o).unwrap();
    let svg = to_svg(&AbChart::new(&ab), Theme::Light).unwrap();
    assert!(svg.contains("TTLB change against baseline by percentile, by pop"));
    for p in &ab.panels {
        assert!(svg.contains(&format!("pop = {}", p.facet)), "{}", p.facet);
    }
    assert!(svg.contains("← faster"));
    let paired = paired_deltas(&rs, &o).unwrap();
    let svg = to_svg(&PairedChart::new(&paired), Theme::Dark).unwrap();
    assert!(svg.contains("paired by seed"));
    assert!(svg.contains("faster on"));
}

#[test]
fn report_is_deterministic_and_complete() {
    let (records, tr) = fleet(10, 1);
    let run = RunData {
        title: "fixture".into(),
        scenario: Some("name = \"toy\"".into()),
        records: ramp_plot::RunRecords::from_records(parse_records(&records, "r").unwrap()),
        traces: tr.iter().map(|(n, t)| parse_trace(t, n).unwrap()).collect(),
        baseline: None,
        explorer: None,
        headline: Vec::new(),
    };
    let a = render_report(&run).unwrap();
    let b = render_report(&run).unwrap();
    assert_eq!(a, b);
    for id in [
        "chart-delivery",
        "chart-timeseq-0",
        "chart-timeseq-1",
        "chart-ab",
        "chart-ab-pop",
        "chart-paired",
    ] {
        assert!(a.contains(&format!("id=\"{id}\"")), "{id}");
    }
    assert!(a.contains("<tr class=\"baseline\"><th scope=\"row\" title=\"baseline\">baseline</th>"));
}
