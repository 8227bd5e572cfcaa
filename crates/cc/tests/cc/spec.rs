//! Controller names: parsing, canonical display, errors, and the seed arms.

use crate::support;
use ramp_cc::resume::Reconnaissance;

use proptest::prelude::*;
use ramp_cc::careful_resume::RetreatBeta;
use ramp_cc::config::{CcConfig, InitialWindow, PrrMode};
use ramp_cc::rapid_start::RapidStartOptions;
use ramp_cc::spec::{
    self, FamilySpec, JumpStartOptions, LossBasedSpec, RapidStartSpec, StartupSpec, SEED_ARMS,
    SEED_DRAFT02_ARMS,
};
use ramp_cc::LossBasedState;
use ramp_cc::PacerModel;

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
    let arms: Vec<(String, LossBasedSpec)> = SEED_ARMS
        .iter()
        .map(|(arm, name)| match spec::parse(name) {
            Ok(s) => match s.as_loss_based() {
                Some(l) => (arm.to_string(), l.clone()),
                None => panic!("{arm}: not loss-based"),
            },
            Err(e) => panic!("{arm}: {e}"),
        })
        .collect();
    for (arm, s) in &arms {
        let c = s.build(&cfg);
        // IW 30 in quicly's unit, 30 × min(1472, 1472), whatever the
        // datagram size (quicly_cc_calc_initial_cwnd, lib/cc-reno.c).
        assert_eq!(c.initial_window(), 44_160, "{arm}: IW 30 x 1472");
        assert!(c.pacing_rate(&Default::default()).is_some(), "{arm}: paced");
        // quicly's pacer at quicly's 2× after a loss (lib/quicly.c
        // calc_pacer_send_rate, include/quicly/pacer.h at 45bf8a37).
        assert_eq!(s.common.pacer, Some(PacerModel::Quicly), "{arm}");
        assert_eq!(
            s.common.ca_pacing_gain,
            Some(spec::QUICLY_PACING_GAIN_AFTER_LOSS),
            "{arm}"
        );
        // quicly's CC-limited rule (lib/quicly.c handle_ack_frame at
        // 45bf8a37, for a connection that respects the app-limited state).
        assert_eq!(
            s.common.cc_limited,
            Some(ramp_cc::loss_based::CcLimitedRule::Quicly),
            "{arm}"
        );
        // quicly's send rule (lib/quicly.c calc_send_window and
        // do_allocate_frame at 45bf8a37): the last packet may cross the
        // window.
        assert_eq!(s.common.send_rule, Some(ramp_cc::SendRule::Quicly), "{arm}");
    }
    // The spellings are canonical.
    for (arm, name) in SEED_ARMS.iter().chain(SEED_DRAFT02_ARMS.iter()) {
        assert_eq!(spec::parse(name).unwrap().to_string(), *name, "{arm}");
    }
    assert_eq!(arms[0].1.startup, StartupSpec::Classic);
    assert_eq!(
        arms[1].1.startup,
        StartupSpec::JumpStart(JumpStartOptions {
            defer: true,
            retreat: true,
            retreat_beta: RetreatBeta::Quicly,
            recon: Reconnaissance::Quicly,
        })
    );
    // Both Rapid Start arms run quicly's values (h2o/quicly 45bf8a37).
    for (i, jump) in [(2, false), (3, true)] {
        assert_eq!(
            arms[i].1.startup,
            StartupSpec::RapidStart(RapidStartSpec {
                jump,
                defer: true,
                options: RapidStartOptions::quicly(),
                // A resumed jump as quicly's (only the arm that jumps).
                recon: if jump {
                    Reconnaissance::Quicly
                } else {
                    Reconnaissance::Rfc
                },
            }),
            "{}",
            arms[i].0
        );
    }
    // The draft's values are one arm set away: the same arms, -02's options.
    for (i, jump) in [(2, false), (3, true)] {
        let s = spec::parse(SEED_DRAFT02_ARMS[i].1).unwrap();
        assert_eq!(
            s.as_loss_based().unwrap().startup,
            StartupSpec::RapidStart(RapidStartSpec {
                jump,
                defer: true,
                options: RapidStartOptions::default(),
                recon: Reconnaissance::Rfc,
            })
        );
    }
    // jumpstart's first flight is 60 packets once an RTT sample exists.
    let c = arms[1].1.build_loss_based(&cfg);
    assert_eq!(c.state(), LossBasedState::SlowStart);
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
    // quicly's unit: the payload size is RFC 9000 §18.2's 1200..=65527.
    assert!(err("newreno(iw=30x100)").contains("NxS"));
    assert!(err("newreno(iw=30x70000)").contains("NxS"));
    assert!(err("newreno(iw=0x1472)").contains("packet count"));
    assert_eq!(
        spec::parse("newreno(iw=30x9000)").unwrap().to_string(),
        "newreno(iw=30x9000)"
    );
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
        prop_assert_eq!(
            back.as_ref().ok().and_then(|b| b.as_loss_based()),
            Some(&s),
            "{}",
            shown
        );
        // And the canonical form is a fixed point.
        prop_assert_eq!(back.map(|b| b.to_string()), Ok(shown));
    }
}

#[test]
fn seed_arms_use_quicly_reno_constants() {
    use ramp_cc::spec::{CaSpec, NewRenoOptions, QUICLY_RENO_BETA, QUICLY_SLOW_START_EXIT_BETA};
    for (label, name) in SEED_ARMS {
        let s = spec::parse(name).unwrap();
        assert_eq!(
            s.as_loss_based().map(|l| l.ca.clone()),
            Some(CaSpec::new(
                &ramp_cc::newreno::CA_PART,
                NewRenoOptions {
                    beta: QUICLY_RENO_BETA,
                    ss_beta: Some(QUICLY_SLOW_START_EXIT_BETA),
                    pico: true,
                }
            )),
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

/// docs/algorithms.md, "Adding a controller": a controller written outside
/// ramp-cc, registered through the public API, parsed, printed and built
/// like a built-in one. If this stops compiling, update the walk-through.
mod adding_a_controller {
    use std::any::Any;
    use std::fmt;

    use ramp_cc::spec::option::{self, OptionDef};
    use ramp_cc::spec::{ControllerSpec, Family, FamilySpec, Registry, SpecError, SpecPart};
    use ramp_cc::{CcConfig, CcPhase, CongestionEvent, Controller, Rate, RttEstimator, Time};

    /// Step 1: the controller. A fixed window, paced at window/srtt; the
    /// trait's defaults do the rest (events it ignores, no ssthresh,
    /// metrics from the window).
    #[derive(Clone, Debug)]
    struct Fixed {
        window: u64,
        name: String,
    }

    impl Controller for Fixed {
        fn on_congestion_event(&mut self, _: Time, _: &CongestionEvent, _: &RttEstimator) {}
        fn window(&self) -> u64 {
            self.window
        }
        fn pacing_rate(&self, rtt: &RttEstimator) -> Option<Rate> {
            Some(Rate::from_bytes_over(self.window, rtt.smoothed()))
        }
        fn phase(&self) -> CcPhase {
            CcPhase::new("fixed", false)
        }
        fn initial_window(&self) -> u64 {
            self.window
        }
        fn name(&self) -> String {
            self.name.clone()
        }
        fn clone_box(&self) -> Box<dyn Controller> {
            Box::new(self.clone())
        }
    }

    /// Step 2: its options, one table row each.
    #[derive(Clone, Copy, Debug, PartialEq)]
    struct FixedSpec {
        packets: u64,
    }

    /// The row names the field and its default once; the help's
    /// "(default 20)" is written from it.
    const OPTIONS: &[OptionDef<FixedSpec>] = &[ramp_cc::option_row!(value "packets", "<n>",
        "the window in packets", packets = 20,
        |v| option::count(v, 2..=10_000, "a packet count 2..=10000"))];

    impl fmt::Display for FixedSpec {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            let mut opts = Vec::new();
            option::write(OPTIONS, self, &mut opts);
            if opts.is_empty() {
                f.write_str("fixed")
            } else {
                write!(f, "fixed({})", opts.join(","))
            }
        }
    }

    impl FamilySpec for FixedSpec {
        fn build(&self, cfg: &CcConfig) -> Box<dyn Controller> {
            Box::new(Fixed {
                window: self.packets * cfg.max_datagram_size,
                name: self.to_string(),
            })
        }
        fn as_any(&self) -> &dyn Any {
            self
        }
    }

    /// Step 3: the family, the factory the registry holds.
    struct FixedFamily;

    impl Family for FixedFamily {
        fn names(&self) -> &'static [&'static str] {
            &["fixed"]
        }
        fn parse(&self, parts: &[SpecPart<'_>], whole: &str) -> Result<ControllerSpec, SpecError> {
            let [part] = parts else {
                return Err(SpecError::new(format!("`{whole}`: fixed stands alone")));
            };
            let mut spec = FixedSpec { packets: 20 };
            for &(k, v) in part.options {
                if !option::apply(OPTIONS, &mut spec, k, v, whole)? {
                    return Err(SpecError::new(format!(
                        "unknown option `{k}` for `fixed` in `{whole}`; valid options: {}",
                        option::describe(OPTIONS)
                    )));
                }
            }
            Ok(ControllerSpec::new(spec))
        }
        fn help(&self) -> String {
            "fixed: a constant window\n".to_string()
        }
    }

    fn registry() -> Registry {
        // Step 4: one registry line.
        let mut r = Registry::builtin();
        r.register(FixedFamily);
        r
    }

    #[test]
    fn a_registered_controller_parses_prints_and_builds() {
        let r = registry();
        let spec = r.parse("fixed(packets=40)").unwrap();
        assert_eq!(spec.to_string(), "fixed(packets=40)");
        assert_eq!(
            spec.downcast_ref::<FixedSpec>(),
            Some(&FixedSpec { packets: 40 })
        );
        let c = spec.build(&CcConfig::default());
        assert_eq!(c.window(), 40 * 1200);
        assert_eq!(c.phase().as_str(), "fixed");
        assert_eq!(r.parse("fixed").map(|s| s.to_string()), Ok("fixed".into()));
        // The built-in families still answer through the same registry.
        assert!(r.parse("cubic+rapidstart").is_ok());
        let list = r.parse_list("fixed(packets=4),newreno").unwrap();
        assert_eq!(list.len(), 2);
    }

    #[test]
    fn a_registered_controller_gets_the_same_errors() {
        let r = registry();
        let err = |s: &str| r.parse(s).map(|x| x.to_string()).unwrap_err().to_string();
        assert!(err("fixed(pkts=4)").contains("valid options: packets=<n>"));
        assert!(err("fixed(packets=1)").contains("expected a packet count"));
        assert!(err("fixed+hystart").contains("cannot be combined"));
        assert!(err("fixd").contains("fixed"), "the names list has it");
        // Unknown to the built-in registry alone.
        assert!(ramp_cc::spec::parse("fixed").is_err());
    }
}

/// `option_row!` writes each row's "(default …)" from the value the
/// parser and the canonical name use, so the help cannot disagree with
/// them.
#[test]
fn option_rows_write_their_defaults_into_the_help() {
    use ramp_cc::loss_based::spec::{COMMON_OPTIONS, NEWRENO_OPTIONS, RAPIDSTART_OPTIONS};
    let line = |t: &[String], key: &str| {
        t.iter()
            .find(|l| l.starts_with(&format!("{key}: ")))
            .cloned()
            .unwrap_or_default()
    };
    let common: Vec<String> = COMMON_OPTIONS
        .iter()
        .map(|o| format!("{}: {}", o.key, o.help_line()))
        .collect();
    assert_eq!(line(&common, "pacing"), "pacing: pace sends (default on)");
    assert_eq!(
        line(&common, "ca_gain"),
        "ca_gain: pacing gain in congestion avoidance (default 1.25)"
    );
    assert_eq!(
        line(&common, "iw"),
        "iw: initial window in packets (default: RFC 9002 kInitialWindow)"
    );
    let reno: Vec<String> = NEWRENO_OPTIONS
        .iter()
        .map(|o| format!("{}: {}", o.key, o.help_line()))
        .collect();
    assert_eq!(
        line(&reno, "beta"),
        "beta: multiplicative decrease (default 0.5)"
    );
    let rapid: Vec<String> = RAPIDSTART_OPTIONS
        .iter()
        .map(|o| format!("{}: {}", o.key, o.help_line()))
        .collect();
    assert_eq!(
        line(&rapid, "k"),
        "k: K of the recovery factors, ack = K(1−β) (quicly 11/18) (default 2/3)"
    );
    assert_eq!(
        line(&rapid, "thresh_ms"),
        "thresh_ms: queue build-up threshold, added part (default 4)"
    );
    assert_eq!(
        line(&rapid, "rtt_floor"),
        "rtt_floor: where the RTT floor comes from (quicly: slots) (default fallback)"
    );
}

/// Every congestion-avoidance row (`CA_PARTS`, docs/algorithms.md "Adding a
/// congestion-avoidance algorithm") is found by its name and aliases,
/// prints its canonical name, takes each of its choice values and prints
/// them back, builds its algorithm behind every startup, and shows in the
/// family's help and in the "more than one" error.
#[test]
fn every_ca_part_row_round_trips_parse_and_display_and_builds() {
    use ramp_cc::spec::{Registry, CA_PARTS};
    let help = Registry::builtin().help();
    let cfg = CcConfig::default();
    for row in CA_PARTS {
        let name = row.name();
        for spelling in std::iter::once(name).chain(row.aliases().iter().copied()) {
            let s = spec::parse(spelling).unwrap_or_else(|e| panic!("{spelling}: {e}"));
            assert_eq!(s.to_string(), name, "{spelling}");
            assert_eq!(
                s.as_loss_based().map(|l| l.ca.name()),
                Some(name),
                "{spelling}"
            );
        }
        for startup in ["", "+hystart", "+rapidstart", "+jumpstart"] {
            let text = format!("{name}{startup}");
            let s = spec::parse(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
            // (The default row's name is implied by a startup part.)
            let back = spec::parse(&s.to_string()).ok();
            assert_eq!(back.as_ref(), Some(&s), "{text}");
            let ca = back
                .as_ref()
                .and_then(|b| b.as_loss_based())
                .map(|l| l.ca.name());
            assert_eq!(ca, Some(name), "{text}");
            assert_eq!(s.build(&cfg).name(), s.canonical_name(&cfg), "{text}");
        }
        assert!(
            help.lines().any(|l| l.starts_with(name)),
            "{name} is not in the help"
        );
        let twice = format!("{name}+{name}");
        let e = spec::parse(&twice).unwrap_err().to_string();
        assert!(e.contains("more than one congestion-avoidance"), "{e}");
        for other in CA_PARTS {
            assert!(e.contains(other.name()), "{e} lacks {}", other.name());
        }
    }
    // Each row's choice options, every value: parsed and printed back
    // (the default value is left out of the canonical name).
    let valued = [
        ("newreno", "growth", ["reno", "pico"].as_slice()),
        (
            "cubic",
            "fast_convergence",
            ["auto", "on", "off"].as_slice(),
        ),
    ];
    for (name, key, values) in valued {
        for v in values {
            let text = format!("{name}({key}={v})");
            let s = spec::parse(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(spec::parse(&s.to_string()).ok(), Some(s), "{text}");
        }
    }
}

/// A canonical name builds the controller it names: a Prague spec that
/// sets the endpoint's default CA pacing gain (`ca_gain=1.25`, RFC 9002
/// §7.7's 1.25) keeps it in its name; without it the name parses to
/// Prague's own gain of 1 (Linux `prague_update_pacing_rate`).
#[test]
fn a_prague_spec_that_sets_the_endpoint_default_gain_keeps_it_in_its_name() {
    let cfg = CcConfig::default();
    for text in [
        "prague(ca_gain=1.25)",
        "prague(ca_gain=1)",
        "prague",
        "prague(ca_gain=2)+rapidstart",
    ] {
        let s = spec::parse(text).unwrap();
        let name = s.canonical_name(&cfg);
        let back = spec::parse(&name).unwrap();
        assert_eq!(
            back.effective_config(&cfg).ca_pacing_gain,
            s.effective_config(&cfg).ca_pacing_gain,
            "{text} is named {name}"
        );
    }
}
