//! Output files named after a long controller spec (`ramp sim --trace/--qlog`,
//! `ramp compare -o`): shortened under the file system's 255-byte limit
//! to a readable prefix plus a hash of the whole spec, and still unique.

use super::{run_ok, tmpdir};

/// The seed rapidstart arm with quicly's millisecond-clock options: a
/// canonical spec of ~290 bytes, longer than a file name may be.
fn long_spec(jump_after: u32) -> String {
    format!(
        "newreno(iw=30x1472,ca_gain=2,pacer=quicly,cc_limited=quicly,send_rule=quicly,beta=0.7,\
         ss_beta=0.5,growth=pico,pacing_rtt=ms,jump_after={jump_after})+rapidstart(jump_floor=on,\
         thresh_mult=1.09375,rtt_floor=slots,k=11/18,thresh=max,clock=ms,off_below_ms=4,\
         recovery=quicly,recon=quicly)"
    )
}

fn names(dir: &std::path::Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn sim_traces_long_specs_to_distinct_short_names_that_carry_the_spec() {
    let d = tmpdir("long-names");
    let cc = format!("{},{},newreno", long_spec(10), long_spec(20));
    run_ok(&[
        "sim",
        "--scenario",
        "vdsl",
        "--cc",
        &cc,
        "--size",
        "100KB",
        "--trace",
        d.join("trace").to_str().unwrap(),
        "--qlog",
        d.join("qlog").to_str().unwrap(),
    ]);
    for (sub, ext) in [("trace", ".ndjson"), ("qlog", ".sqlog")] {
        let got = names(&d.join(sub));
        assert_eq!(got.len(), 3, "{got:?}");
        // The short name is as it always was.
        assert_eq!(got[2], format!("2-newreno_iw_30_{ext}"));
        for (i, n) in got[..2].iter().enumerate() {
            assert!(n.len() < 255, "{n}");
            assert!(n.starts_with(&format!("{i}-newreno_iw_30x1472")), "{n}");
            // The whole spec is inside the file (its header).
            let text = std::fs::read_to_string(d.join(sub).join(n)).unwrap();
            let head = text.lines().next().unwrap();
            let jump = [10, 20][i];
            assert!(
                head.contains(&format!("jump_after={jump},")) && head.contains("recon=quicly)"),
                "{n}: {head}"
            );
        }
        assert_ne!(got[0][2..], got[1][2..], "a common prefix must not collide");
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn compare_writes_traces_and_charts_of_long_specs() {
    let d = tmpdir("long-names-compare");
    let out = d.join("run");
    let cc = format!("{},{}", long_spec(10), long_spec(20));
    run_ok(&[
        "compare",
        "-o",
        out.to_str().unwrap(),
        "--size",
        "100KB",
        "--cc",
        &cc,
    ]);
    let traces = names(&out.join("traces"));
    assert_eq!(traces.len(), 2, "{traces:?}");
    assert!(traces.iter().all(|n| n.len() < 255), "{traces:?}");
    assert_ne!(traces[0][3..], traces[1][3..], "{traces:?}");
    let charts: Vec<String> = names(&out)
        .into_iter()
        .filter(|n| n.starts_with("timeseq-"))
        .collect();
    assert_eq!(charts.len(), 2, "{charts:?}");
    let _ = std::fs::remove_dir_all(&d);
}
