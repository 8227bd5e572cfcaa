//! Whether a connection's server respects the app-limited state: h2o/quicly
//! draws it per connection, and every arm of a fleet connection runs the
//! same draw (docs/experiments.md, "Respecting the app-limited state").
//!
//! quicly 45bf8a37 draws `num_respected_app_limited` once per connection,
//! when it creates it (lib/quicly.c, `quicly_new_conn`:
//! `enable_with_ratio255(ctx->enable_ratio.respect_app_limited, …)`), from
//! h2o's `respect-app-limited` listener setting (src/main.c: `ON` = 255,
//! `OFF` = 0 or a ratio out of 255; ON by default, lib/defaults.c). A
//! connection that respects it grows its window by quicly's half-window
//! test (`cc_limited=quicly`); one that does not grows on every ACK frame
//! (`handle_ack_frame` starts each frame with
//! `cc_limited = num_respected_app_limited == 0 || …`: `cc_limited=always`).
//!
//! The choice applies to the arms that run quicly's rule (an arm naming
//! `cc_limited=quicly` or `cc_limited=always`): the population's share
//! decides, per connection, which of the two every such arm of that
//! connection runs, so the arms stay paired. Arms with RFC 9002's rule or
//! another family are left as written. The draw comes from a generator
//! of its own, seeded by the path's seed, so no other draw of any
//! connection moves with the share.

use std::borrow::Cow;

use ramp_cc::loss_based::CcLimitedRule;
use ramp_cc::spec::ControllerSpec;
use ramp_vocab::rng::Rng;

/// The share of connections whose server respects the app-limited state,
/// the default of `Region::respect_app_limited_share`. \[assumption: 0,
/// the value of the one production record the Rapid Start talk at
/// RubyKaigi 2026 shows (h2o's stats for one connection, March 2026:
/// `"num-respected-app-limited":0`). One connection cannot give a ratio:
/// the record rules out only h2o's default (every connection respects it)
/// and, at 95 % confidence, shares above 0.95; range 0–1 declared in
/// `super::assumptions`\]
pub const RESPECT_APP_LIMITED_SHARE: f64 = 0.0;

/// The stream of the draw (any fixed number apart from the path-sampling,
/// cellular and users streams).
const APP_LIMITED_STREAM: u64 = 0xA991_1A17_ED00_2026;

/// The rule the connection whose path seed is `path_seed` runs in every
/// arm with quicly's rule, when a `share` of connections respect the
/// app-limited state: [`CcLimitedRule::Quicly`] if it does,
/// [`CcLimitedRule::Always`] if not. The draw is made whatever the share.
pub fn connection_rule(share: f64, path_seed: u64) -> CcLimitedRule {
    let u = Rng::from_u64(path_seed ^ APP_LIMITED_STREAM).next_f64();
    if u < share {
        CcLimitedRule::Quicly
    } else {
        CcLimitedRule::Always
    }
}

/// `spec` as the connection runs it: with `rule` in place of its own when
/// it is a loss-based spec running quicly's rule (`cc_limited=quicly` or
/// `always`), otherwise (or with no rule: a grid) `spec` itself. Borrowed
/// unless the rule changes it: every arm of every connection asks, and a
/// spec's clone was a measurable share of a fleet run's work outside the
/// simulator.
pub fn arm_spec(spec: &ControllerSpec, rule: Option<CcLimitedRule>) -> Cow<'_, ControllerSpec> {
    let quicly_family =
        |r: Option<CcLimitedRule>| matches!(r, Some(CcLimitedRule::Quicly | CcLimitedRule::Always));
    match (rule, spec.as_loss_based()) {
        (Some(rule), Some(lb))
            if quicly_family(lb.common.cc_limited) && lb.common.cc_limited != Some(rule) =>
        {
            let mut lb = lb.clone();
            lb.common.cc_limited = Some(rule);
            Cow::Owned(ControllerSpec::new(lb))
        }
        _ => Cow::Borrowed(spec),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ramp_cc::spec::{parse, SEED_ARMS};

    #[test]
    fn the_share_is_the_chance_of_quicly_and_the_ends_are_certain() {
        let n = 20_000u64;
        let count = |share: f64| {
            (0..n)
                .filter(|&i| connection_rule(share, i * 7919) == CcLimitedRule::Quicly)
                .count() as f64
                / n as f64
        };
        assert_eq!(count(0.0), 0.0);
        assert_eq!(count(1.0), 1.0);
        let half = count(0.5);
        assert!((half - 0.5).abs() < 0.015, "{half}");
        // One connection draws alike every time (its path seed alone).
        assert_eq!(connection_rule(0.5, 42), connection_rule(0.5, 42));
    }

    #[test]
    fn only_arms_with_quicly_rule_take_the_connections_choice() {
        let (_, baseline) = SEED_ARMS[0];
        let seed = parse(baseline).unwrap();
        let always = arm_spec(&seed, Some(CcLimitedRule::Always));
        assert_eq!(
            always.to_string(),
            baseline.replace("cc_limited=quicly", "cc_limited=always")
        );
        // The rule a spec already runs leaves it as it is; back again too.
        assert_eq!(*arm_spec(&seed, Some(CcLimitedRule::Quicly)), seed);
        assert_eq!(*arm_spec(&always, Some(CcLimitedRule::Quicly)), seed);
        // No choice (a grid), RFC 9002's rule and other families: as written.
        assert_eq!(*arm_spec(&seed, None), seed);
        for other in ["newreno(iw=30)", "cubic", "bbr3", "newreno(cc_limited=rfc)"] {
            let s = parse(other).unwrap();
            assert_eq!(*arm_spec(&s, Some(CcLimitedRule::Always)), s, "{other}");
        }
        // Composite specs (a startup over the base) keep everything else.
        let (_, rapid) = SEED_ARMS[3];
        let rapid_spec = parse(rapid).unwrap();
        let r = arm_spec(&rapid_spec, Some(CcLimitedRule::Always));
        assert_eq!(
            r.to_string(),
            rapid.replace("cc_limited=quicly", "cc_limited=always")
        );
    }
}
