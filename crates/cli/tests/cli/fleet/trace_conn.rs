//! `ramp fleet --trace-conn N`: one connection of a finished run simulated
//! again with traces, its records the run's bytes.

use super::{fleet, fleet_seed, ok, shards, tmp};
use crate::common::ramp;

#[test]
fn trace_conn_reruns_one_connection_with_its_records_bytes_and_traces() {
    let d = tmp("trace-conn");
    ok(&fleet(&d, &[]));
    let records = std::fs::read_to_string(d.join("records.ndjson")).unwrap();
    let lines_of = |n: u64| -> String {
        let end = format!(",\"conn\":{n}}}");
        records
            .lines()
            .filter(|l| l.ends_with(&end))
            .map(|l| format!("{l}\n"))
            .collect()
    };
    let o = fleet(&d, &["--trace-conn", "17,3", "--trace-conn", "17"]);
    ok(&o);
    let said = String::from_utf8_lossy(&o.stdout);
    for n in [17u64, 3] {
        let got = std::fs::read_to_string(d.join(format!("conn-{n}.records.ndjson"))).unwrap();
        assert_eq!(got.lines().count(), 4, "one record per arm");
        assert!(got == lines_of(n), "connection {n}: records differ");
        for arm in ["baseline", "jumpstart", "rapid-no-jump", "rapidstart"] {
            let t = d.join(format!("traces/conn-{n}-{arm}.ndjson"));
            let trace = std::fs::read_to_string(&t).unwrap();
            assert!(trace.starts_with("{\"ev\":\"meta\""), "{}", t.display());
            assert!(trace.contains("\"ev\":\"sent\""), "{}", t.display());
            assert!(said.contains(&t.display().to_string()), "{said}");
            let q = d.join(format!("qlog/conn-{n}-{arm}.sqlog"));
            assert!(std::fs::metadata(&q).unwrap().len() > 0, "{}", q.display());
        }
    }
    // The run's other files are untouched, and `ramp report` reads the
    // traces next to the records.
    assert_eq!(
        std::fs::read_to_string(d.join("records.ndjson")).unwrap(),
        records
    );
    let report = ramp()
        .args(["report"])
        .arg(&d)
        .arg("-o")
        .arg(d.join("with-traces.html"))
        .output()
        .unwrap();
    ok(&report);
    // Another run's parameters, and a connection the run does not have,
    // are refused.
    let o = fleet_seed(&d, "6", &["--trace-conn", "3"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("`seed` (was 5, now 6)"));
    let o = fleet(&d, &["--trace-conn", "24"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("connections 0..24"));
    // A shard's directory traces any connection of the run.
    let s = shards("trace-conn", 3, &[]).remove(2);
    ok(&fleet(&s, &["--trace-conn", "3"]));
    assert!(std::fs::read_to_string(s.join("conn-3.records.ndjson")).unwrap() == lines_of(3));
}
