//! bench/interop/run.py (the interop harness, Python) against the crates it
//! stands beside: its constants are ramp's, and the run scripts it writes do
//! what docs/interop.md says. The pieces run with `python3`; without it the
//! script test skips.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn harness() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/interop/run.py")
}

/// The run script the harness writes for two ramp downloads in one shell on
/// `path` (a name from its grid).
fn unit_script(path: &str) -> Option<String> {
    let code = r#"
import os, shutil, sys, tempfile
sys.path.insert(0, os.path.dirname(sys.argv[1]))
import run
path = next(p for p in run.PATHS if p[0] == sys.argv[2])
tmp = tempfile.mkdtemp(prefix="ramp-interop-test-")
try:
    ds = [run.Download("ramp-real", "ramp", a, 1000000, 47570 + i, "udp")
          for i, a in enumerate(["baseline", "jumpstart"])]
    u = run.Unit("ramp", {}, path, "ramp-real", ds, tmp, 0)
    with open(os.path.join(u.dir, "run.sh")) as f:
        sys.stdout.write(f.read())
finally:
    shutil.rmtree(tmp)
"#;
    let out = Command::new("python3")
        .args(["-c", code])
        .arg(harness())
        .arg(path)
        .output()
        .ok()?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8(out.stdout).expect("utf-8 script"))
}

/// The cellular element's light schedule belongs to the link, not to a flow:
/// a download whose first downlink packets come within `idle_reset` of the
/// previous download's last ones runs on the saturated schedule from its
/// start. `ramp sim` starts every download on an idle link, so the harness
/// must wait the idle gap (plus an RTT for the server's reply to the
/// client's close, RFC 9000 §10.2.2) between downloads on that path, and
/// with ramp's own value. Without the wait, ramp-real's jumping arms were
/// 16-18 % faster than the simulator at 1 MB (docs/interop.md).
#[test]
fn interop_harness_waits_out_the_cellular_idle_gap() {
    let Some(cellular) = unit_script("20m-40ms-cellular") else {
        ramp_vocab::note!("SKIPPED: interop_harness_waits_out_the_cellular_idle_gap: no python3");
        return;
    };
    // 50 ms idle gap + the path's 40 ms RTT, between the two downloads only.
    let lines: Vec<&str> = cellular.lines().collect();
    let sleeps: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i] == "sleep 0.090")
        .collect();
    let gets: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].contains(" get https://"))
        .collect();
    assert_eq!(gets.len(), 2, "{cellular}");
    assert_eq!(sleeps.len(), 1, "{cellular}");
    assert!(gets[0] < sleeps[0] && sleeps[0] < gets[1], "{cellular}");
    // A path without idle-dependent state keeps downloads back to back.
    let plain = unit_script("20m-40ms").expect("python3 ran once already");
    assert!(!plain.contains("\nsleep 0"), "{plain}");
    // The wait is ramp's own idle gap.
    let src = std::fs::read_to_string(harness()).expect("bench/interop/run.py");
    let ms: u64 = src
        .lines()
        .find_map(|l| l.strip_prefix("CELLULAR_IDLE_RESET_MS = "))
        .expect("run.py defines CELLULAR_IDLE_RESET_MS")
        .trim()
        .parse()
        .expect("an integer");
    assert_eq!(
        Duration::from_millis(ms),
        ramp_link::Cellular::CELLREPLAY.idle_reset
    );
}

/// The harness's simulator sides for one seed arm, as JSON: each side's
/// spec and extra `[endpoint]` keys, and the seeds it runs on a plain path.
fn sim_sides(spec: &str, clock: bool) -> Option<serde_json::Value> {
    let code = r#"
import json, os, sys
sys.path.insert(0, os.path.dirname(sys.argv[1]))
import run
sides = run.sim_sides(sys.argv[2], {"quicly": []})
print(json.dumps([{"side": s, "spec": sp, "endpoint": ep,
                   "seeds": list(run.sim_seeds("100m-30ms", ep, 10))}
                  for s, sp, _, ep in sides]))
"#;
    let out = Command::new("python3")
        .args(["-c", code])
        .arg(harness())
        .arg(spec)
        .env("SIM_QUICLY_CLOCK", if clock { "1" } else { "0" })
        .output()
        .ok()?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(serde_json::from_slice(&out.stdout).expect("JSON"))
}

/// quicly's side reads quicly's millisecond clock (docs/interop.md,
/// "quicly's millisecond clock"): the arm with `pacing_rtt=ms` and
/// `jump_after=10`, a phase drawn per run on every path, and the `cli`'s
/// handshake processing; the keys are ones ramp reads, and the other sides
/// keep the seed arm as it is.
#[test]
fn interop_quicly_side_reads_quiclys_millisecond_clock() {
    let (_, rapidstart) = ramp_cc::spec::SEED_ARMS
        .iter()
        .find(|(label, _)| *label == "rapidstart")
        .expect("a rapidstart seed arm");
    let Some(sides) = sim_sides(rapidstart, true) else {
        ramp_vocab::note!(
            "SKIPPED: interop_quicly_side_reads_quiclys_millisecond_clock: no python3"
        );
        return;
    };
    let side = |name: &str| {
        sides
            .as_array()
            .and_then(|a| a.iter().find(|s| s["side"] == name))
            .unwrap_or_else(|| panic!("no {name} side: {sides}"))
            .clone()
    };
    let quicly = side("ramp-sim-quicly");
    let spec = quicly["spec"].as_str().expect("a spec");
    assert!(
        spec.contains("pacing_rtt=ms") && spec.contains("jump_after=10"),
        "{spec}"
    );
    ramp_cc::spec::parse(spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
    let endpoint = quicly["endpoint"].as_str().expect("endpoint keys");
    let sc = ramp_sim::Scenario::from_toml(&format!("[endpoint]\n{endpoint}"), "quicly-side")
        .unwrap_or_else(|e| panic!("{endpoint}: {e}"));
    assert_eq!(
        sc.endpoint.clock_phase,
        ramp_sim::clock_phase::ClockPhase::Seeded
    );
    assert_eq!(
        sc.endpoint.client_handshake_processing,
        Duration::from_micros(350)
    );
    assert_eq!(quicly["seeds"].as_array().map(Vec::len), Some(10));
    for other in ["ramp-sim", "ramp-sim-quinn"] {
        let s = side(other);
        assert_eq!(s["spec"], *rapidstart, "{other}");
        assert_eq!(s["endpoint"], "", "{other}");
        assert_eq!(s["seeds"].as_array().map(Vec::len), Some(1), "{other}");
    }
    // SIM_QUICLY_CLOCK=0 leaves it out.
    let off = sim_sides(rapidstart, false).expect("python3 ran once already");
    let q = off
        .as_array()
        .and_then(|a| a.iter().find(|s| s["side"] == "ramp-sim-quicly"))
        .expect("a quicly side");
    assert!(
        !q["spec"].as_str().unwrap_or("").contains("pacing_rtt"),
        "{q}"
    );
    assert_eq!(q["endpoint"], "");
}
