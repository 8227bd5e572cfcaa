//! A proptest strategy over every controller spec the grammar can express.

use ramp_cc::careful_resume::RetreatBeta;
use std::time::Duration;

use proptest::prelude::*;
use ramp_cc::config::{InitialWindow, PrrMode};
use ramp_cc::cubic::{self, FastConvergence};
use ramp_cc::loss_based::CcLimitedRule;
use ramp_cc::newreno;
use ramp_cc::rapid_start::{
    FirstRecovery, PreRecoveryWindow, RapidStartOptions, RttClock, RttFloorSource, ThreshCombine,
};
use ramp_cc::spec::{
    CaSpec, CommonOptions, CubicOptions, JumpStartOptions, LossBasedSpec, NewRenoOptions,
    RapidStartSpec, StartupSpec,
};
use ramp_cc::EcnCodepoint;
use ramp_cc::PacerModel;
use ramp_cc::Ratio;

fn ratio_in(lo: u64, hi: u64) -> impl Strategy<Value = Ratio> {
    (
        lo..hi,
        prop_oneof![Just(1u64), Just(10), Just(100), Just(7), Just(3)],
    )
        .prop_map(|(n, d)| Ratio::new(n, d).unwrap_or(Ratio::ONE))
}

fn beta() -> impl Strategy<Value = Ratio> {
    (1u64..99).prop_map(|n| Ratio::new(n, 100).unwrap_or(Ratio::HALF))
}

fn gain() -> impl Strategy<Value = Ratio> {
    (100u64..1000).prop_map(|n| Ratio::new(n, 100).unwrap_or(Ratio::ONE))
}

pub fn spec() -> impl Strategy<Value = LossBasedSpec> {
    let ca = prop_oneof![
        (beta(), proptest::option::of(beta()), any::<bool>()).prop_map(|(beta, ss_beta, pico)| {
            CaSpec::new(
                &newreno::CA_PART,
                NewRenoOptions {
                    beta,
                    ss_beta,
                    pico,
                },
            )
        }),
        (
            1u32..8,
            prop_oneof![
                Just(FastConvergence::Auto),
                Just(FastConvergence::On),
                Just(FastConvergence::Off)
            ]
        )
            .prop_map(|(conns, fast_convergence)| CaSpec::new(
                &cubic::CA_PART,
                CubicOptions {
                    conns,
                    fast_convergence
                }
            )),
        Just(CaSpec::new(&ramp_cc::prague::CA_PART, ())),
    ];
    let rapid = (
        (proptest::option::of(beta()), proptest::option::of(beta())),
        any::<bool>(),
        any::<bool>(),
        0u64..20_000,
        (gain(), gain()),
        any::<bool>(),
        (any::<bool>(), gain()),
        (any::<bool>(), any::<bool>(), beta(), 0u64..8),
    )
        .prop_map(
            |(
                (beta, ce_beta),
                latch_2x,
                iw_floor,
                add_us,
                (mult, pacing_gain),
                current,
                (pre_cwnd, recovery_gain),
                (max, ms_clock, k, off_ms),
            )| {
                RapidStartOptions {
                    beta,
                    ce_beta,
                    latch_2x,
                    iw_floor,
                    // A third of the draws, independent of the other flags.
                    jump_floor: add_us % 3 == 0,
                    thresh_add: Duration::from_micros(add_us),
                    thresh_mult: Ratio::new(mult.num().min(10 * mult.den()), mult.den())
                        .unwrap_or(Ratio::ONE),
                    pacing_gain,
                    rtt_floor: match (current, off_ms % 2 == 0) {
                        (true, _) => RttFloorSource::Current,
                        (false, true) => RttFloorSource::Fallback,
                        (false, false) => RttFloorSource::Slots,
                    },
                    pre_window: if pre_cwnd {
                        PreRecoveryWindow::Cwnd
                    } else {
                        PreRecoveryWindow::Flight
                    },
                    recovery_gain,
                    k,
                    thresh_combine: if max {
                        ThreshCombine::Max
                    } else {
                        ThreshCombine::Min
                    },
                    clock: if ms_clock {
                        RttClock::WholeMs
                    } else {
                        RttClock::Exact
                    },
                    off_below: Duration::from_millis(off_ms),
                    first_recovery: if add_us % 5 == 0 {
                        FirstRecovery::Quicly
                    } else {
                        FirstRecovery::Draft
                    },
                }
            },
        );
    let startup = prop_oneof![
        Just(StartupSpec::Classic),
        (any::<bool>(), any::<bool>(), 0..3u8).prop_map(|(defer, retreat, beta)| {
            StartupSpec::JumpStart(JumpStartOptions {
                defer,
                retreat,
                retreat_beta: match beta {
                    0 => RetreatBeta::Half,
                    1 => RetreatBeta::Ca,
                    _ => RetreatBeta::Quicly,
                },
                recon: if defer {
                    ramp_cc::resume::Reconnaissance::Rfc
                } else {
                    ramp_cc::resume::Reconnaissance::Quicly
                },
            })
        }),
        (any::<bool>(), any::<bool>(), rapid).prop_map(|(jump, defer, options)| {
            StartupSpec::RapidStart(RapidStartSpec {
                jump,
                defer,
                options,
                recon: if jump && !defer {
                    ramp_cc::resume::Reconnaissance::Quicly
                } else {
                    ramp_cc::resume::Reconnaissance::Rfc
                },
            })
        }),
    ];
    let common = (
        proptest::option::of(prop_oneof![
            Just(InitialWindow::Rfc9002),
            (1u32..200).prop_map(InitialWindow::Packets)
        ]),
        proptest::option::of(any::<bool>()),
        proptest::option::of(gain()),
        proptest::option::of(ratio_in(100, 300)),
        proptest::option::of(prop_oneof![
            Just(PrrMode::Off),
            Just(PrrMode::Rfc9937),
            Just(PrrMode::Crb),
            Just(PrrMode::Ssrb)
        ]),
        proptest::option::of(any::<bool>()),
        proptest::option::of(any::<bool>()),
        proptest::option::of(prop_oneof![
            Just(EcnCodepoint::NotEct),
            Just(EcnCodepoint::Ect0),
            Just(EcnCodepoint::Ect1)
        ]),
        proptest::option::of(prop_oneof![
            Just(PacerModel::LeakyBucket),
            Just(PacerModel::Quinn),
            Just(PacerModel::Quicly)
        ]),
        proptest::option::of(prop_oneof![
            Just(CcLimitedRule::Rfc9002),
            Just(CcLimitedRule::Quicly),
            Just(CcLimitedRule::Always)
        ]),
        (
            proptest::option::of(prop_oneof![
                Just(ramp_cc::SendRule::Rfc9002),
                Just(ramp_cc::SendRule::Quicly)
            ]),
            proptest::option::of(prop_oneof![Just(RttClock::Exact), Just(RttClock::WholeMs)]),
            proptest::option::of(0u64..=100),
        ),
    )
        .prop_map(
            |(
                initial_window,
                pacing,
                ss,
                ca,
                prr,
                undo,
                send_one,
                ecn,
                pacer,
                cc_limited,
                (send_rule, pacing_rtt, jump_after),
            )| {
                CommonOptions {
                    initial_window,
                    pacing,
                    slow_start_pacing_gain: ss,
                    ca_pacing_gain: ca.filter(|r| r.num() >= r.den() && r.num() <= 100 * r.den()),
                    prr,
                    undo,
                    send_one,
                    ecn,
                    pacer,
                    cc_limited,
                    send_rule,
                    pacing_rtt,
                    jump_after,
                }
            },
        );
    (ca, startup, any::<bool>(), common).prop_map(|(ca, startup, hystart, common)| LossBasedSpec {
        ca,
        startup,
        hystart,
        common,
    })
}
