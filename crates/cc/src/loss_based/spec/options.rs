//! The option tables of the loss-based family: one row per option, each
//! its key, its help, how to parse it and how to print it when it is not
//! the default. The parser, the canonical name and the help in
//! [`super`] all read these rows.

use crate::resume::Reconnaissance;
use core::time::Duration;

use super::{CommonOptions, CubicOptions, JumpStartOptions, NewRenoOptions, RapidStartSpec};
use crate::careful_resume::RetreatBeta;
use crate::config::PrrMode;
use crate::cubic::FastConvergence;
use crate::newreno::LOSS_REDUCTION_FACTOR;
use crate::pacer::PacerModel;
use crate::rapid_start::{
    FirstRecovery, PreRecoveryWindow, RapidStartOptions, RttClock, RttFloorSource, ThreshCombine,
};
use crate::ratio::Ratio;
use crate::spec::option::{self, ecn_codepoint, on_off, on_off_str, OptionDef, ValueError};

const PRR_CHOICES: [(&str, PrrMode); 4] = [
    ("off", PrrMode::Off),
    ("on", PrrMode::Rfc9937),
    ("crb", PrrMode::Crb),
    ("ssrb", PrrMode::Ssrb),
];

/// Connection-level options, accepted on any part.
pub const COMMON_OPTIONS: &[OptionDef<CommonOptions>] = &[
    OptionDef {
        key: "iw",
        values: "<packets>|rfc",
        help: "initial window in packets (default: RFC 9002 kInitialWindow)",
        parse: |c, v| {
            c.initial_window = Some(option::initial_window(v)?);
            Ok(())
        },
        display: |c| c.initial_window.map(|w| w.to_string()),
    },
    OptionDef {
        key: "pacing",
        values: "on|off",
        help: "pace sends (default on)",
        parse: |c, v| {
            c.pacing = Some(on_off(v)?);
            Ok(())
        },
        display: |c| c.pacing.map(|b| on_off_str(b).to_string()),
    },
    OptionDef {
        key: "ss_gain",
        values: "<ratio>",
        help: "pacing gain in slow start (default 2)",
        parse: |c, v| {
            c.slow_start_pacing_gain = Some(option::gain(v)?);
            Ok(())
        },
        display: |c| c.slow_start_pacing_gain.map(|g| g.to_string()),
    },
    OptionDef {
        key: "ca_gain",
        values: "<ratio>",
        help: "pacing gain in congestion avoidance (default 1.25)",
        parse: |c, v| {
            c.ca_pacing_gain = Some(option::gain(v)?);
            Ok(())
        },
        display: |c| c.ca_pacing_gain.map(|g| g.to_string()),
    },
    OptionDef {
        key: "prr",
        values: "off|on|crb|ssrb",
        help: "proportional rate reduction in recovery (RFC 9937)",
        parse: |c, v| {
            c.prr = Some(option::choice(
                v,
                &PRR_CHOICES,
                "off, on (RFC 9937), crb or ssrb",
            )?);
            Ok(())
        },
        display: |c| c.prr.map(|p| p.as_str().to_string()),
    },
    OptionDef {
        key: "undo",
        values: "on|off",
        help: "undo a reduction found spurious (RFC 9438 §4.9; default off)",
        parse: |c, v| {
            c.undo = Some(on_off(v)?);
            Ok(())
        },
        display: |c| c.undo.map(|b| on_off_str(b).to_string()),
    },
    OptionDef {
        key: "send_one",
        values: "on|off",
        help: "send one packet on entering recovery (RFC 9002 §7.3.2; default off)",
        parse: |c, v| {
            c.send_one = Some(on_off(v)?);
            Ok(())
        },
        display: |c| c.send_one.map(|b| on_off_str(b).to_string()),
    },
    OptionDef {
        key: "ecn",
        values: "off|on|ect0|ect1",
        help: "the ECN codepoint sent (RFC 9000 §13.4; on = ect0) and a response to CE (RFC 9002 §7); default: as the endpoint sets it",
        parse: |c, v| {
            c.ecn = Some(ecn_codepoint(v)?);
            Ok(())
        },
        display: |c| c.ecn.map(|e| e.spec_str().to_string()),
    },
    OptionDef {
        key: "pacer",
        values: "leaky|quinn|quicly",
        help: "the pacer the arm runs (quicly: h2o/quicly 45bf8a37's include/quicly/pacer.h); default: as the endpoint sets it",
        parse: |c, v| {
            c.pacer = Some(option::choice(
                v,
                &PacerModel::CHOICES,
                "leaky, quinn or quicly",
            )?);
            Ok(())
        },
        display: |c| c.pacer.map(|m| m.as_str().to_string()),
    },
];

/// `newreno`'s options.
pub const NEWRENO_OPTIONS: &[OptionDef<NewRenoOptions>] = &[
    OptionDef {
        key: "beta",
        values: "<ratio>",
        help: "multiplicative decrease (default 0.5)",
        parse: |o, v| {
            o.beta = option::beta(v)?;
            Ok(())
        },
        display: |o| option::unless_default(o.beta, LOSS_REDUCTION_FACTOR, |b| b.to_string()),
    },
    OptionDef {
        key: "ss_beta",
        values: "<ratio>",
        help: "decrease for the loss that ends slow start (default: beta)",
        parse: |o, v| {
            o.ss_beta = Some(option::beta(v)?);
            Ok(())
        },
        display: |o| o.ss_beta.map(|b| b.to_string()),
    },
    OptionDef {
        key: "growth",
        values: "reno|pico",
        help: "congestion-avoidance growth: RFC 9002's (default) or quicly's pico (one MTU per min(β·W, CUBIC's period) bytes, W fixed at the congestion event)",
        parse: |o, v| {
            o.pico = option::choice(v, &GROWTH_CHOICES, "reno or pico")?;
            Ok(())
        },
        display: |o| option::choice_unless_default(o.pico, false, &GROWTH_CHOICES),
    },
];

const GROWTH_CHOICES: [(&str, bool); 2] = [("reno", false), ("pico", true)];

const FAST_CONVERGENCE_CHOICES: [(&str, FastConvergence); 3] = [
    ("auto", FastConvergence::Auto),
    ("on", FastConvergence::On),
    ("off", FastConvergence::Off),
];

/// `cubic`'s options.
pub const CUBIC_OPTIONS: &[OptionDef<CubicOptions>] = &[
    OptionDef {
        key: "conns",
        values: "<n>",
        help: "N-connection emulation (default 1)",
        parse: |o, v| {
            o.conns = match v.parse::<u32>() {
                Ok(n) if (1..=100).contains(&n) => n,
                _ => return Err(ValueError::Expected("a connection count 1..=100")),
            };
            Ok(())
        },
        display: |o| option::unless_default(o.conns, 1, |n| n.to_string()),
    },
    OptionDef {
        key: "fast_convergence",
        values: "auto|on|off",
        help: "RFC 9438 §4.7 fast convergence (auto: off when alone on the bottleneck)",
        parse: |o, v| {
            o.fast_convergence = option::choice(v, &FAST_CONVERGENCE_CHOICES, "auto, on or off")?;
            Ok(())
        },
        display: |o| {
            option::choice_unless_default(
                o.fast_convergence,
                FastConvergence::Auto,
                &FAST_CONVERGENCE_CHOICES,
            )
        },
    },
];

/// `jumpstart`'s options.
pub const JUMPSTART_OPTIONS: &[OptionDef<JumpStartOptions>] = &[
    OptionDef {
        key: "defer",
        values: "on|off",
        help: "wait for the first RTT sample before jumping (default on)",
        parse: |o, v| {
            o.defer = on_off(v)?;
            Ok(())
        },
        display: |o| option::on_off_unless_default(o.defer, true),
    },
    OptionDef {
        key: "retreat",
        values: "on|off",
        help: "Careful Resume's Safe Retreat on a loss before validation (default on)",
        parse: |o, v| {
            o.retreat = on_off(v)?;
            Ok(())
        },
        display: |o| option::on_off_unless_default(o.retreat, true),
    },
    OptionDef {
        key: "retreat_beta",
        values: "half|ca|quicly",
        help: "Safe Retreat window: PipeSize/2 (RFC 9959, default), the CA's β·PipeSize, or quicly 45bf8a37's 0.5→0.7 × jump bytes acked",
        parse: |o, v| {
            o.retreat_beta = option::choice(v, &RETREAT_BETA_CHOICES, "half, ca or quicly")?;
            Ok(())
        },
        display: |o| {
            option::choice_unless_default(o.retreat_beta, RetreatBeta::Half, &RETREAT_BETA_CHOICES)
        },
    },
    OptionDef {
        key: "recon",
        values: "rfc|quicly",
        help: RECON_HELP,
        parse: |o, v| {
            o.recon = option::choice(v, &RECON_CHOICES, "rfc or quicly")?;
            Ok(())
        },
        display: |o| option::choice_unless_default(o.recon, Reconnaissance::Rfc, &RECON_CHOICES),
    },
];

const RECON_CHOICES: [(&str, Reconnaissance); 2] = [
    ("rfc", Reconnaissance::Rfc),
    ("quicly", Reconnaissance::Quicly),
];

const RECON_HELP: &str = "a resumed connection's jump: after its initial window is acknowledged (RFC 9959, default) or at the first RTT sample (quicly 45bf8a37)";

const RETREAT_BETA_CHOICES: [(&str, RetreatBeta); 3] = [
    ("half", RetreatBeta::Half),
    ("ca", RetreatBeta::Ca),
    ("quicly", RetreatBeta::Quicly),
];

const RTT_FLOOR_CHOICES: [(&str, RttFloorSource); 3] = [
    ("fallback", RttFloorSource::Fallback),
    ("current", RttFloorSource::Current),
    ("slots", RttFloorSource::Slots),
];

const THRESH_CHOICES: [(&str, ThreshCombine); 2] =
    [("min", ThreshCombine::Min), ("max", ThreshCombine::Max)];

const FIRST_RECOVERY_CHOICES: [(&str, FirstRecovery); 2] = [
    ("draft", FirstRecovery::Draft),
    ("quicly", FirstRecovery::Quicly),
];

const CLOCK_CHOICES: [(&str, RttClock); 2] =
    [("exact", RttClock::Exact), ("ms", RttClock::WholeMs)];

const PRE_CHOICES: [(&str, PreRecoveryWindow); 2] = [
    ("flight", PreRecoveryWindow::Flight),
    ("cwnd", PreRecoveryWindow::Cwnd),
];

/// `rapidstart`'s options (draft-kazuho-ccwg-rapid-start-02; the map to the
/// draft's sections is at the top of [`crate::rapid_start`]).
pub const RAPIDSTART_OPTIONS: &[OptionDef<RapidStartSpec>] = &[
    OptionDef {
        key: "beta",
        values: "<ratio>",
        help: "β of the smooth reduction (default: the CA's β)",
        parse: |o, v| {
            o.options.beta = Some(option::beta(v)?);
            Ok(())
        },
        display: |o| o.options.beta.map(|b| b.to_string()),
    },
    OptionDef {
        key: "ce_beta",
        values: "<ratio>",
        help: "β for a CE-only episode (default: beta)",
        parse: |o, v| {
            o.options.ce_beta = Some(option::beta(v)?);
            Ok(())
        },
        display: |o| o.options.ce_beta.map(|b| b.to_string()),
    },
    OptionDef {
        key: "jump",
        values: "on|off",
        help: "the full-RTT paced 2·IW first flight (default on)",
        parse: |o, v| {
            o.jump = on_off(v)?;
            Ok(())
        },
        display: |o| option::on_off_unless_default(o.jump, true),
    },
    OptionDef {
        key: "defer",
        values: "on|off",
        help: "wait for the first RTT sample before jumping (default on)",
        parse: |o, v| {
            o.defer = on_off(v)?;
            Ok(())
        },
        display: |o| option::on_off_unless_default(o.defer, true),
    },
    OptionDef {
        key: "latch_2x",
        values: "on|off",
        help: "stay at 2× once the queue builds (default off)",
        parse: |o, v| {
            o.options.latch_2x = on_off(v)?;
            Ok(())
        },
        display: |o| option::on_off_unless_default(o.options.latch_2x, false),
    },
    OptionDef {
        key: "iw_floor",
        values: "on|off",
        help: "never reduce below the initial window (default off)",
        parse: |o, v| {
            o.options.iw_floor = on_off(v)?;
            Ok(())
        },
        display: |o| option::on_off_unless_default(o.options.iw_floor, false),
    },
    OptionDef {
        key: "jump_floor",
        values: "on|off",
        help: "quicly's first-recovery floor, 0.5 × max(IW, jump bytes acked) (default off)",
        parse: |o, v| {
            o.options.jump_floor = on_off(v)?;
            Ok(())
        },
        display: |o| option::on_off_unless_default(o.options.jump_floor, false),
    },
    OptionDef {
        key: "thresh_ms",
        values: "<ms>",
        help: "queue build-up threshold, added part (default 4)",
        parse: |o, v| {
            let r = option::ratio(v, "milliseconds between 0 and 1000", |r| {
                r.num() <= 1000 * r.den()
            })?;
            o.options.thresh_add = Duration::from_nanos(r.mul_floor(1_000_000));
            Ok(())
        },
        display: |o| {
            option::unless_default(
                o.options.thresh_add,
                RapidStartOptions::default().thresh_add,
                |d| {
                    Ratio::new(d.as_nanos() as u64, 1_000_000)
                        .unwrap_or(Ratio::ONE)
                        .to_string()
                },
            )
        },
    },
    OptionDef {
        key: "thresh_mult",
        values: "<ratio>",
        help: "queue build-up threshold, multiplied part (default 1.1)",
        parse: |o, v| {
            o.options.thresh_mult = option::ratio(v, "a factor between 1 and 10", |r| {
                r.num() >= r.den() && r.num() <= 10 * r.den()
            })?;
            Ok(())
        },
        display: |o| {
            option::unless_default(
                o.options.thresh_mult,
                RapidStartOptions::default().thresh_mult,
                |r| r.to_string(),
            )
        },
    },
    OptionDef {
        key: "gain",
        values: "<ratio>",
        help: "pacing gain during growth (default 3)",
        parse: |o, v| {
            o.options.pacing_gain = option::gain(v)?;
            Ok(())
        },
        display: |o| {
            option::unless_default(
                o.options.pacing_gain,
                RapidStartOptions::default().pacing_gain,
                |r| r.to_string(),
            )
        },
    },
    OptionDef {
        key: "rtt_floor",
        values: "fallback|current|slots",
        help: "where the RTT floor comes from (default fallback; quicly: slots)",
        parse: |o, v| {
            o.options.rtt_floor =
                option::choice(v, &RTT_FLOOR_CHOICES, "fallback, current or slots")?;
            Ok(())
        },
        display: |o| {
            option::choice_unless_default(
                o.options.rtt_floor,
                RapidStartOptions::default().rtt_floor,
                &RTT_FLOOR_CHOICES,
            )
        },
    },
    OptionDef {
        key: "pre",
        values: "flight|cwnd",
        help: "the window the reduction scales at entry (default cwnd)",
        parse: |o, v| {
            o.options.pre_window = option::choice(v, &PRE_CHOICES, "flight or cwnd")?;
            Ok(())
        },
        display: |o| {
            option::choice_unless_default(
                o.options.pre_window,
                RapidStartOptions::default().pre_window,
                &PRE_CHOICES,
            )
        },
    },
    OptionDef {
        key: "k",
        values: "<ratio>",
        help: "K of the recovery factors, ack = K(1−β) (default 2/3; quicly 11/18)",
        parse: |o, v| {
            o.options.k = option::ratio(v, "a fraction between 0 and 1", |r| {
                r.num() > 0 && r.num() <= r.den()
            })?;
            Ok(())
        },
        display: |o| {
            option::unless_default(o.options.k, RapidStartOptions::default().k, |r| {
                r.to_string()
            })
        },
    },
    OptionDef {
        key: "thresh",
        values: "min|max",
        help: "combine the threshold's margins (default min; quicly max)",
        parse: |o, v| {
            o.options.thresh_combine = option::choice(v, &THRESH_CHOICES, "min or max")?;
            Ok(())
        },
        display: |o| {
            option::choice_unless_default(
                o.options.thresh_combine,
                RapidStartOptions::default().thresh_combine,
                &THRESH_CHOICES,
            )
        },
    },
    OptionDef {
        key: "clock",
        values: "exact|ms",
        help: "the RTT clock of the 3× test (default exact; quicly ms)",
        parse: |o, v| {
            o.options.clock = option::choice(v, &CLOCK_CHOICES, "exact or ms")?;
            Ok(())
        },
        display: |o| {
            option::choice_unless_default(
                o.options.clock,
                RapidStartOptions::default().clock,
                &CLOCK_CHOICES,
            )
        },
    },
    OptionDef {
        key: "off_below_ms",
        values: "<ms>",
        help: "turn Rapid Start off when min RTT is below this (default 0; quicly 4)",
        parse: |o, v| match v.parse::<u64>() {
            Ok(n) if n <= 1000 => {
                o.options.off_below = Duration::from_millis(n);
                Ok(())
            }
            _ => Err(ValueError::Expected("whole milliseconds 0..=1000")),
        },
        display: |o| {
            option::unless_default(
                o.options.off_below,
                RapidStartOptions::default().off_below,
                |d| d.as_millis().to_string(),
            )
        },
    },
    OptionDef {
        key: "recovery",
        values: "draft|quicly",
        help: "first recovery: charge the entering loss, exit with ssthresh = cwnd (default draft); or quicly's: the entering loss only scales cwnd, then slow start back to the window after the last loss",
        parse: |o, v| {
            o.options.first_recovery =
                option::choice(v, &FIRST_RECOVERY_CHOICES, "draft or quicly")?;
            Ok(())
        },
        display: |o| {
            option::choice_unless_default(
                o.options.first_recovery,
                RapidStartOptions::default().first_recovery,
                &FIRST_RECOVERY_CHOICES,
            )
        },
    },
    OptionDef {
        key: "rec_gain",
        values: "<ratio>",
        help: "pacing gain in Rapid Start's recovery (default 2)",
        parse: |o, v| {
            o.options.recovery_gain = option::gain(v)?;
            Ok(())
        },
        display: |o| {
            option::unless_default(
                o.options.recovery_gain,
                RapidStartOptions::default().recovery_gain,
                |r| r.to_string(),
            )
        },
    },
    OptionDef {
        key: "recon",
        values: "rfc|quicly",
        help: RECON_HELP,
        parse: |o, v| {
            o.recon = option::choice(v, &RECON_CHOICES, "rfc or quicly")?;
            Ok(())
        },
        display: |o| option::choice_unless_default(o.recon, Reconnaissance::Rfc, &RECON_CHOICES),
    },
];
