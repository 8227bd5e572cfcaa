//! The option tables of the loss-based family: one row per option, each
//! its key, its help, how to parse it and how to print it when it is not
//! the default ([`crate::option_row!`] writes most of them from the field
//! and its default). The parser, the canonical name and the help in
//! [`super`] all read these rows.

use crate::resume::Reconnaissance;
use core::time::Duration;

use super::super::CcLimitedRule;
use super::{CommonOptions, CubicOptions, JumpStartOptions, NewRenoOptions, RapidStartSpec};
use crate::careful_resume::RetreatBeta;
use crate::config::{CcConfig, PrrMode};
use crate::cubic::FastConvergence;
use crate::newreno::LOSS_REDUCTION_FACTOR;
use crate::option_row;
use crate::pacer::PacerModel;
use crate::rapid_start::{
    FirstRecovery, PreRecoveryWindow, RapidStartOptions, RttClock, RttFloorSource, ThreshCombine,
};
use crate::ratio::Ratio;
use crate::send_rule::SendRule;
use crate::spec::option::{self, ecn_codepoint, OptionDef};

const PRR_CHOICES: [(&str, PrrMode); 4] = [
    ("off", PrrMode::Off),
    ("on", PrrMode::Rfc9937),
    ("crb", PrrMode::Crb),
    ("ssrb", PrrMode::Ssrb),
];

/// Connection-level options, accepted on any part. Their defaults are
/// the endpoint's ([`CcConfig::default`]).
pub const COMMON_OPTIONS: &[OptionDef<CommonOptions>] = &[
    option_row!(some_value "iw", "<packets>|rfc", "initial window in packets", initial_window,
        option::initial_window, described "RFC 9002 kInitialWindow"),
    option_row!(some_switch "pacing", "pace sends", pacing,
        default = CcConfig::default().pacing),
    option_row!(some_value "ss_gain", "<ratio>", "pacing gain in slow start",
        slow_start_pacing_gain, option::gain,
        default = CcConfig::default().slow_start_pacing_gain),
    option_row!(some_value "ca_gain", "<ratio>", "pacing gain in congestion avoidance",
        ca_pacing_gain, option::gain, default = CcConfig::default().ca_pacing_gain),
    option_row!(some_choice "prr", "off|on|crb|ssrb",
        "proportional rate reduction in recovery (RFC 9937)", prr, PRR_CHOICES,
        "off, on (RFC 9937), crb or ssrb", default = CcConfig::default().prr),
    option_row!(some_switch "undo", "undo a reduction found spurious (RFC 9438 §4.9)", undo,
        default = CcConfig::default().undo),
    option_row!(some_switch "send_one",
        "send one packet on entering recovery (RFC 9002 §7.3.2)", send_one,
        default = CcConfig::default().recovery_send_one),
    OptionDef {
        key: "ecn",
        values: "off|on|ect0|ect1",
        help:
            "the ECN codepoint sent (RFC 9000 §13.4; on = ect0) and a response to CE (RFC 9002 §7)",
        default: || Some("default: as the endpoint sets it".into()),
        parse: |c, v| {
            c.ecn = Some(ecn_codepoint(v)?);
            Ok(())
        },
        display: |c| c.ecn.map(|e| e.spec_str().to_string()),
    },
    option_row!(some_choice "pacer", "leaky|quinn|quicly",
        "the pacer the arm runs (quicly: h2o/quicly 45bf8a37's include/quicly/pacer.h)", pacer,
        PacerModel::CHOICES, "leaky, quinn or quicly", described "as the endpoint sets it"),
    option_row!(some_choice "cc_limited", "rfc|quicly|always",
        "which ACK frames grow the window: not app-limited ones (RFC 9002 §7.8), those with in flight ≥ cwnd/2 at send or arrival (quicly: h2o/quicly 45bf8a37's lib/quicly.c handle_ack_frame), or every one (always: the same code when the connection does not respect the app-limited state)",
        cc_limited, CcLimitedRule::CHOICES, "rfc, quicly or always", described "rfc"),
    option_row!(some_choice "send_rule", "rfc|quicly",
        "which packets the window lets out: one that fits (RFC 9002 §7) or any while bytes in flight are below it, the last crossing it (quicly: h2o/quicly 45bf8a37's lib/quicly.c calc_send_window and do_allocate_frame)",
        send_rule, SendRule::CHOICES, "rfc or quicly", described "rfc"),
    option_row!(some_choice "pacing_rtt", "exact|ms",
        "the smoothed RTT the pacing rate divides by: the estimator's, or quicly's whole-millisecond one (ms: h2o/quicly 45bf8a37's quicly_rtt_update on its millisecond clock, lib/defaults.c default_now)",
        pacing_rtt, CLOCK_CHOICES, "exact or ms", described "exact"),
    option_row!(some_value "jump_after", "<packets>",
        "packets sent after the jump window is set that still count as sent before the jump (quicly 45bf8a37 jumps once the caller's send buffer first fills: 10 with its cli)",
        jump_after, |v| option::count(v, 0..=100, "a packet count 0..=100"), described "0"),
];

/// `newreno`'s options.
pub const NEWRENO_OPTIONS: &[OptionDef<NewRenoOptions>] = &[
    option_row!(value "beta", "<ratio>", "multiplicative decrease",
        beta = LOSS_REDUCTION_FACTOR, option::beta),
    option_row!(some_value "ss_beta", "<ratio>", "decrease for the loss that ends slow start",
        ss_beta, option::beta, described "beta"),
    option_row!(choice "growth", "reno|pico",
        "congestion-avoidance growth: RFC 9002's or quicly's pico (one MTU per min(β·W, CUBIC's period) bytes, W fixed at the congestion event)",
        pico = false, GROWTH_CHOICES, "reno or pico"),
];

const GROWTH_CHOICES: [(&str, bool); 2] = [("reno", false), ("pico", true)];

const FAST_CONVERGENCE_CHOICES: [(&str, FastConvergence); 3] = [
    ("auto", FastConvergence::Auto),
    ("on", FastConvergence::On),
    ("off", FastConvergence::Off),
];

/// `cubic`'s options.
pub const CUBIC_OPTIONS: &[OptionDef<CubicOptions>] = &[
    option_row!(value "conns", "<n>", "N-connection emulation", conns = 1,
        |v| option::count(v, 1..=100, "a connection count 1..=100")),
    option_row!(choice "fast_convergence", "auto|on|off",
        "RFC 9438 §4.7 fast convergence (auto: off when alone on the bottleneck)",
        fast_convergence = FastConvergence::Auto, FAST_CONVERGENCE_CHOICES, "auto, on or off"),
];

/// `jumpstart`'s options.
pub const JUMPSTART_OPTIONS: &[OptionDef<JumpStartOptions>] = &[
    option_row!(switch "defer", "wait for the first RTT sample before jumping",
        defer = JumpStartOptions::default().defer),
    option_row!(switch "retreat", "Careful Resume's Safe Retreat on a loss before validation",
        retreat = JumpStartOptions::default().retreat),
    option_row!(choice "retreat_beta", "half|ca|quicly",
        "Safe Retreat window: PipeSize/2 (RFC 9959), the CA's β·PipeSize, or quicly 45bf8a37's 0.5→0.7 × jump bytes acked",
        retreat_beta = JumpStartOptions::default().retreat_beta, RETREAT_BETA_CHOICES,
        "half, ca or quicly"),
    option_row!(choice "recon", "rfc|quicly", RECON_HELP,
        recon = JumpStartOptions::default().recon, RECON_CHOICES, "rfc or quicly"),
];

const RECON_CHOICES: [(&str, Reconnaissance); 2] = [
    ("rfc", Reconnaissance::Rfc),
    ("quicly", Reconnaissance::Quicly),
];

const RECON_HELP: &str = "a resumed connection's jump: after its initial window is acknowledged (rfc, RFC 9959) or at the first RTT sample (quicly 45bf8a37)";

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

/// Rapid Start's defaults (-02's), which the rows below print.
fn d() -> RapidStartOptions {
    RapidStartOptions::default()
}

/// A duration as milliseconds, exactly (`4`, `0.5`).
fn ms(d: Duration) -> String {
    Ratio::new(d.as_nanos() as u64, 1_000_000)
        .unwrap_or(Ratio::ONE)
        .to_string()
}

/// `rapidstart`'s options (draft-kazuho-ccwg-rapid-start-02; the map to the
/// draft's sections is at the top of [`crate::rapid_start`]).
pub const RAPIDSTART_OPTIONS: &[OptionDef<RapidStartSpec>] = &[
    option_row!(some_value "beta", "<ratio>", "β of the smooth reduction", options.beta,
        option::beta, described "the CA's β"),
    option_row!(some_value "ce_beta", "<ratio>", "β for a CE-only episode", options.ce_beta,
        option::beta, described "beta"),
    option_row!(switch "jump", "the full-RTT paced 2·IW first flight",
        jump = RapidStartSpec::default().jump),
    option_row!(switch "defer", "wait for the first RTT sample before jumping",
        defer = RapidStartSpec::default().defer),
    option_row!(switch "latch_2x", "stay at 2× once the queue builds",
        options.latch_2x = d().latch_2x),
    option_row!(switch "iw_floor", "never reduce below the initial window",
        options.iw_floor = d().iw_floor),
    option_row!(switch "jump_floor",
        "quicly's first-recovery floor, 0.5 × max(IW, jump bytes acked)",
        options.jump_floor = d().jump_floor),
    OptionDef {
        key: "thresh_ms",
        values: "<ms>",
        help: "queue build-up threshold, added part",
        default: || Some(format!("default {}", ms(d().thresh_add))),
        parse: |o, v| {
            let r = option::ratio(v, "milliseconds between 0 and 1000", |r| {
                r.num() <= 1000 * r.den()
            })?;
            o.options.thresh_add = Duration::from_nanos(r.mul_floor(1_000_000));
            Ok(())
        },
        display: |o| option::unless_default(o.options.thresh_add, d().thresh_add, ms),
    },
    option_row!(value "thresh_mult", "<ratio>", "queue build-up threshold, multiplied part",
    options.thresh_mult = d().thresh_mult,
    |v| option::ratio(v, "a factor between 1 and 10", |r| {
        r.num() >= r.den() && r.num() <= 10 * r.den()
    })),
    option_row!(value "gain", "<ratio>", "pacing gain during growth",
        options.pacing_gain = d().pacing_gain, option::gain),
    option_row!(choice "rtt_floor", "fallback|current|slots",
        "where the RTT floor comes from (quicly: slots)", options.rtt_floor = d().rtt_floor,
        RTT_FLOOR_CHOICES, "fallback, current or slots"),
    option_row!(choice "pre", "flight|cwnd", "the window the reduction scales at entry",
        options.pre_window = d().pre_window, PRE_CHOICES, "flight or cwnd"),
    option_row!(value "k", "<ratio>", "K of the recovery factors, ack = K(1−β) (quicly 11/18)",
    options.k = d().k,
    |v| option::ratio(v, "a fraction between 0 and 1", |r| {
        r.num() > 0 && r.num() <= r.den()
    })),
    option_row!(choice "thresh", "min|max", "combine the threshold's margins (quicly max)",
        options.thresh_combine = d().thresh_combine, THRESH_CHOICES, "min or max"),
    option_row!(choice "clock", "exact|ms", "the RTT clock of the 3× test (quicly ms)",
        options.clock = d().clock, CLOCK_CHOICES, "exact or ms"),
    OptionDef {
        key: "off_below_ms",
        values: "<ms>",
        help: "turn Rapid Start off when min RTT is below this (quicly 4)",
        default: || Some(format!("default {}", d().off_below.as_millis())),
        parse: |o, v| {
            let n = option::count(v, 0..=1000, "whole milliseconds 0..=1000")?;
            o.options.off_below = Duration::from_millis(n);
            Ok(())
        },
        display: |o| {
            option::unless_default(o.options.off_below, d().off_below, |d| {
                d.as_millis().to_string()
            })
        },
    },
    option_row!(choice "recovery", "draft|quicly",
        "first recovery: charge the entering loss, exit with ssthresh = cwnd (draft); or quicly's: the entering loss only scales cwnd, then slow start back to the window after the last loss",
        options.first_recovery = d().first_recovery, FIRST_RECOVERY_CHOICES,
        "draft or quicly"),
    option_row!(value "rec_gain", "<ratio>", "pacing gain in Rapid Start's recovery",
        options.recovery_gain = d().recovery_gain, option::gain),
    option_row!(choice "recon", "rfc|quicly", RECON_HELP,
        recon = RapidStartSpec::default().recon, RECON_CHOICES, "rfc or quicly"),
];
