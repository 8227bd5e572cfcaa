//! Controller names: parsing, canonical display, errors, and the seed arms.

mod support;

use proptest::prelude::*;
use ramp_cc::config::{CcConfig, InitialWindow, PrrMode};
use ramp_cc::spec::{self, ControllerSpec, StartupSpec, SEED_ARMS};
use ramp_cc::{CcState, Controller};

fn canon(s: &str) -> String {
    match spec::parse(s) {
        Ok(x) => x.to_string(),
        Err(e) => panic!("{s}: {e}"),
    }
}

#[test]
fn every_documented_name_parses_and_builds_under_its_canonical_name() {
    for (name, canonical) in [
        ("newreno", "newreno"),
        ("reno", "newreno"),
        ("cubic", "cubic"),
        ("cubic+hystart", "cubic+hystart"),
        ("hystart+cubic", "cubic+hystart"),
        ("newreno+hystart", "newreno+hystart"),
        ("rapidstart", "rapidstart"),
        ("newreno+rapidstart", "rapidstart"),
        ("cubic+rapidstart", "cubic+rapidstart"),
        ("rapidstart(beta=0.7,jump=on)", "rapidstart(beta=0.7)"),
        ("jumpstart", "jumpstart"),
        ("cubic+jumpstart", "cubic+jumpstart"),
        ("rapidstart+hystart", "rapidstart+hystart"),
        ("newreno(iw=32)", "newreno(iw=32)"),
        ("cubic(pacing=off)", "cubic(pacing=off)"),
        ("newreno(prr=on)", "newreno(prr=on)"),
        ("cubic(conns=2)", "cubic(conns=2)"),
        ("rapidstart(latch_2x=on)", "rapidstart(latch_2x=on)"),
        ("rapidstart(iw_floor=on)", "rapidstart(iw_floor=on)"),
        ("cubic(fast_convergence=on)", "cubic(fast_convergence=on)"),
        ("rapidstart(iw=30,jump=off)", "rapidstart(iw=30,jump=off)"),
        (
            "rapidstart(jump=off)+hystart(iw=30)",
            "rapidstart(iw=30,jump=off)+hystart",
        ),
        (
            "cubic(conns=2)+rapidstart(iw=30)",
            "cubic(iw=30,conns=2)+rapidstart",
        ),
        (
            " cubic + rapidstart ( gain = 2 ) ",
            "cubic+rapidstart(gain=2)",
        ),
        (
            "rapidstart(thresh_ms=2.5,thresh_mult=1.2)",
            "rapidstart(thresh_ms=2.5,thresh_mult=1.2)",
        ),
        ("newreno(beta=0.7)", "newreno(beta=0.7)"),
    ] {
        assert_eq!(canon(name), canonical, "{name}");
        let built = spec::parse(name).map(|s| s.build(&CcConfig::default()).name());
        assert_eq!(built.as_deref(), Ok(canonical), "{name}");
    }
}

#[test]
fn seed_experiment_arms_are_expressible() {
    let cfg = CcConfig::default();
    let arms: Vec<(String, ControllerSpec)> = SEED_ARMS
        .iter()
        .map(|(arm, name)| match spec::parse(name) {
            Ok(s) => (arm.to_string(), s),
            Err(e) => panic!("{arm}: {e}"),
        })
        .collect();
    for (arm, s) in &arms {
        let c = s.build(&cfg);
        assert_eq!(c.initial_window(), 30 * 1200, "{arm}: IW 30");
        assert!(c.pacing_rate(&Default::default()).is_some(), "{arm}: paced");
    }
    assert_eq!(arms[0].1.startup, StartupSpec::Classic);
    assert_eq!(
        arms[1].1.startup,
        StartupSpec::JumpStart {
            defer: true,
            retreat: true
        }
    );
    assert!(matches!(
        arms[2].1.startup,
        StartupSpec::RapidStart { jump: false, .. }
    ));
    assert!(matches!(
        arms[3].1.startup,
        StartupSpec::RapidStart { jump: true, .. }
    ));
    // jumpstart's first flight is 60 packets once an RTT sample exists.
    let c = arms[1].1.build_loss_based(&cfg);
    assert_eq!(c.state(), CcState::SlowStart);
}

#[test]
fn lists_keep_commas_inside_parentheses() {
    let l = spec::parse_list("newreno,rapidstart(beta=0.7,jump=on),cubic+hystart");
    let names: Vec<String> = l
        .unwrap_or_default()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(names, ["newreno", "rapidstart(beta=0.7)", "cubic+hystart"]);
    assert!(spec::parse_list("newreno,,cubic").is_err());
}

#[test]
fn errors_name_the_problem_and_list_what_is_valid() {
    let err = |s: &str| match spec::parse(s) {
        Ok(x) => panic!("{s} parsed as {x}"),
        Err(e) => e.to_string(),
    };
    let e = err("bbr");
    assert!(
        e.contains("unknown controller `bbr`") && e.contains("rapidstart"),
        "{e}"
    );
    let e = err("rapidstart(jmp=on)");
    assert!(
        e.contains("unknown option `jmp`") && e.contains("jump=on|off") && e.contains("iw="),
        "{e}"
    );
    let e = err("cubic(beta=0.5)");
    assert!(
        e.contains("conns=") && e.contains("fast_convergence"),
        "{e}"
    );
    assert!(err("newreno(beta=1.5)").contains("strictly between 0 and 1"));
    assert!(err("newreno(iw=0)").contains("packet count"));
    assert!(err("newreno(pacing=maybe)").contains("on or off"));
    assert!(err("newreno+cubic").contains("more than one"));
    assert!(err("rapidstart+jumpstart").contains("at most one"));
    assert!(err("hystart+hystart").contains("twice"));
    assert!(err("newreno(iw=10)+hystart(iw=30)").contains("twice"));
    assert!(err("rapidstart(jump=on,jump=off)").contains("twice"));
    assert!(err("rapidstart(jump)").contains("key=value"));
    assert!(err("rapidstart(jump=on").contains("unbalanced"));
    assert!(err("cubic)").contains("unbalanced"));
    assert!(err("").contains("empty"));
    assert!(err("cubic+").contains("empty part"));
    assert!(err("hystart(l=8)").contains("unknown option `l`"));
}

#[test]
fn name_reports_connection_options_taken_from_the_config() {
    let cfg = CcConfig {
        initial_window: InitialWindow::Packets(32),
        pacing: false,
        prr: PrrMode::Ssrb,
        ..CcConfig::default()
    };
    let c = spec::parse("cubic").map(|s| s.build(&cfg).name());
    assert_eq!(c.as_deref(), Ok("cubic(iw=32,pacing=off,prr=ssrb)"));
    // The spec overrides the config.
    let c = spec::parse("cubic(iw=10)").map(|s| s.build(&cfg).name());
    assert_eq!(c.as_deref(), Ok("cubic(iw=10,pacing=off,prr=ssrb)"));
}

proptest! {
    #[test]
    fn parse_of_display_round_trips(s in support::arb::spec()) {
        let shown = s.to_string();
        let back = spec::parse(&shown);
        prop_assert_eq!(back.as_ref(), Ok(&s), "{}", shown);
        // And the canonical form is a fixed point.
        prop_assert_eq!(back.map(|b| b.to_string()), Ok(shown));
    }
}

#[test]
fn seed_arms_use_quicly_reno_constants() {
    use ramp_cc::spec::{CaSpec, QUICLY_RENO_BETA, QUICLY_SLOW_START_EXIT_BETA};
    for (label, name) in SEED_ARMS {
        let s = spec::parse(name).unwrap();
        assert_eq!(
            s.ca,
            CaSpec::NewReno {
                beta: QUICLY_RENO_BETA,
                ss_beta: Some(QUICLY_SLOW_START_EXIT_BETA)
            },
            "{label}"
        );
    }
}

#[test]
fn more_than_six_decimals_is_refused_for_that_reason() {
    let e = spec::parse("rapidstart(beta=0.5000001)")
        .unwrap_err()
        .to_string();
    assert!(e.contains("more than 6 decimal places"), "{e}");
    assert!(spec::parse("rapidstart(beta=0.500001)").is_ok());
}
