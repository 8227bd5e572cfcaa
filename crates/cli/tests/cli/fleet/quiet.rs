//! `ramp fleet -q`: nothing on stderr but errors.

use super::{fleet_seed, ok, tmp};
use crate::common::ramp;

#[test]
fn quiet_means_nothing_on_stderr_but_errors() {
    let d = tmp("quiet");
    let o = fleet_seed(&d, "1", &[]);
    ok(&o);
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = ramp()
        .args([
            "fleet",
            "-n",
            "4",
            "--sensitivity",
            "2",
            "-q",
            "--no-charts",
            "-o",
        ])
        .arg(tmp("quiet-study"))
        .output()
        .unwrap();
    ok(&o);
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // An error still says what is wrong.
    let o = fleet_seed(&d, "2", &[]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--resume"));
}
