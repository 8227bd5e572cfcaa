//! Fuzzes the option values of the BBRv3 and Careful Resume specs (the
//! grammar's newest families): the first bytes pick a family and option
//! keys from the documented tables, the rest are the values, so the
//! fuzzer spends its time on values rather than on guessing key names.
//! Any spec is accepted or refused with an error, never a panic; an
//! accepted spec's canonical name parses back to the same spec, and the
//! controller it builds answers its first questions without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ramp_cc::RttEstimator;

/// Families: BBRv3 alone, and Careful Resume as jump start's retreat
/// (RFC 9959) over NewReno and CUBIC.
const FAMILIES: [&str; 4] = ["bbr3", "jumpstart", "newreno+jumpstart", "cubic+jumpstart"];
/// bbr3's option keys (crates/cc/src/bbr3/spec.rs), then Careful Resume's
/// and the loss-based base's (crates/cc/src/loss_based/spec/options.rs),
/// and one unknown key.
const BBR3_KEYS: [&str; 10] = [
    "iw",
    "startup_gain",
    "loss_thresh",
    "beta",
    "headroom",
    "ecn",
    "seed",
    "ecn_count",
    "quantum",
    "nope",
];
const CR_KEYS: [&str; 11] = [
    "retreat",
    "retreat_beta",
    "defer",
    "iw",
    "beta",
    "pacing",
    "ecn",
    "prr",
    "undo",
    "ss_beta",
    "nope",
];

fuzz_target!(|data: &[u8]| {
    let [family, m0, m1, rest @ ..] = data else {
        return;
    };
    let mask = u16::from_le_bytes([*m0, *m1]);
    let Ok(values) = std::str::from_utf8(rest) else {
        return;
    };
    let family = FAMILIES[usize::from(*family) % FAMILIES.len()];
    let keys: &[&str] = if family == "bbr3" {
        &BBR3_KEYS
    } else {
        &CR_KEYS
    };
    // Each value is one `;`-separated piece of the rest; the mask's bits
    // choose which keys get the pieces, in table order.
    let mut pieces = values.split(';');
    let options: Vec<String> = keys
        .iter()
        .enumerate()
        .filter(|(i, _)| mask & (1 << i) != 0)
        .filter_map(|(_, k)| pieces.next().map(|v| format!("{k}={v}")))
        .collect();
    let text = if options.is_empty() {
        family.to_string()
    } else {
        format!("{family}({})", options.join(","))
    };
    if let Ok(spec) = ramp_cc::spec::parse(&text) {
        let name = spec.to_string();
        let again = ramp_cc::spec::parse(&name).expect("canonical name parses");
        assert_eq!(again, spec, "{text} -> {name}");
        let c = spec.build(&ramp_cc::CcConfig::default());
        assert!(c.window() > 0, "{text}: zero window");
        let _ = c.pacing_rate(&RttEstimator::default());
        let _ = (c.phase(), c.ssthresh(), c.initial_window(), c.name());
    }
});
