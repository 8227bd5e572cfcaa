//! The canonical spelling of a controller name.

use crate::cubic::FastConvergence;
use core::fmt;

use super::{CaSpec, CommonOptions, ControllerSpec, StartupSpec};
use crate::config::CcConfig;
use crate::newreno::LOSS_REDUCTION_FACTOR;
use crate::rapid_start::RapidStartOptions;
use crate::ratio::Ratio;

fn on_off_str(b: bool) -> &'static str {
    if b {
        "on"
    } else {
        "off"
    }
}

impl CommonOptions {
    pub(super) fn write(&self, out: &mut Vec<String>) {
        if let Some(iw) = self.initial_window {
            out.push(format!("iw={iw}"));
        }
        if let Some(p) = self.pacing {
            out.push(format!("pacing={}", on_off_str(p)));
        }
        if let Some(g) = self.slow_start_pacing_gain {
            out.push(format!("ss_gain={g}"));
        }
        if let Some(g) = self.ca_pacing_gain {
            out.push(format!("ca_gain={g}"));
        }
        if let Some(p) = self.prr {
            out.push(format!("prr={}", p.as_str()));
        }
        if let Some(u) = self.undo {
            out.push(format!("undo={}", on_off_str(u)));
        }
        if let Some(u) = self.send_one {
            out.push(format!("send_one={}", on_off_str(u)));
        }
    }

    /// Only the values that differ from [`CcConfig::default`], given the
    /// effective config: what a controller's name must say.
    pub(super) fn differing_from_default(cfg: &CcConfig) -> CommonOptions {
        let d = CcConfig::default();
        CommonOptions {
            initial_window: (cfg.initial_window != d.initial_window).then_some(cfg.initial_window),
            pacing: (cfg.pacing != d.pacing).then_some(cfg.pacing),
            slow_start_pacing_gain: (cfg.slow_start_pacing_gain != d.slow_start_pacing_gain)
                .then_some(cfg.slow_start_pacing_gain),
            ca_pacing_gain: (cfg.ca_pacing_gain != d.ca_pacing_gain).then_some(cfg.ca_pacing_gain),
            prr: (cfg.prr != d.prr).then_some(cfg.prr),
            undo: (cfg.undo != d.undo).then_some(cfg.undo),
            send_one: (cfg.recovery_send_one != d.recovery_send_one)
                .then_some(cfg.recovery_send_one),
        }
    }
}

fn part(name: &str, opts: &[String]) -> String {
    if opts.is_empty() {
        name.to_string()
    } else {
        format!("{name}({})", opts.join(","))
    }
}

impl fmt::Display for ControllerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts: Vec<(String, Vec<String>)> = Vec::new();
        let ca_opts = match self.ca {
            CaSpec::NewReno { beta, ss_beta } => {
                let mut o = Vec::new();
                if beta != LOSS_REDUCTION_FACTOR {
                    o.push(format!("beta={beta}"));
                }
                if let Some(b) = ss_beta {
                    o.push(format!("ss_beta={b}"));
                }
                (!o.is_empty()).then_some(("newreno", o))
            }
            CaSpec::Cubic {
                conns,
                fast_convergence,
            } => {
                let mut o = Vec::new();
                if conns != 1 {
                    o.push(format!("conns={conns}"));
                }
                match fast_convergence {
                    FastConvergence::Auto => {}
                    FastConvergence::On => o.push("fast_convergence=on".to_string()),
                    FastConvergence::Off => o.push("fast_convergence=off".to_string()),
                }
                Some(("cubic", o))
            }
        };
        let startup = match self.startup {
            StartupSpec::Classic => None,
            StartupSpec::JumpStart { defer, retreat } => {
                let mut o = Vec::new();
                if !defer {
                    o.push("defer=off".to_string());
                }
                if !retreat {
                    o.push("retreat=off".to_string());
                }
                Some(("jumpstart", o))
            }
            StartupSpec::RapidStart {
                jump,
                defer,
                options: o,
            } => {
                let d = RapidStartOptions::default();
                let mut v = Vec::new();
                if let Some(b) = o.beta {
                    v.push(format!("beta={b}"));
                }
                if let Some(b) = o.ce_beta {
                    v.push(format!("ce_beta={b}"));
                }
                if !jump {
                    v.push("jump=off".to_string());
                }
                if !defer {
                    v.push("defer=off".to_string());
                }
                if o.latch_2x {
                    v.push("latch_2x=on".to_string());
                }
                if o.iw_floor {
                    v.push("iw_floor=on".to_string());
                }
                if o.thresh_add != d.thresh_add {
                    let ms =
                        Ratio::new(o.thresh_add.as_nanos() as u64, 1_000_000).unwrap_or(Ratio::ONE);
                    v.push(format!("thresh_ms={ms}"));
                }
                if o.thresh_mult != d.thresh_mult {
                    v.push(format!("thresh_mult={}", o.thresh_mult));
                }
                if o.pacing_gain != d.pacing_gain {
                    v.push(format!("gain={}", o.pacing_gain));
                }
                if o.rtt_floor != d.rtt_floor {
                    v.push("rtt_floor=current".to_string());
                }
                if o.pre_window != d.pre_window {
                    v.push("pre=flight".to_string());
                }
                if o.recovery_gain != d.recovery_gain {
                    v.push(format!("rec_gain={}", o.recovery_gain));
                }
                Some(("rapidstart", v))
            }
        };
        match (ca_opts, startup.is_some()) {
            (Some((n, o)), _) => parts.push((n.to_string(), o)),
            (None, false) => parts.push(("newreno".to_string(), Vec::new())),
            (None, true) => {}
        }
        if let Some((n, o)) = startup {
            parts.push((n.to_string(), o));
        }
        if self.hystart {
            parts.push(("hystart".to_string(), Vec::new()));
        }
        let mut common = Vec::new();
        self.common.write(&mut common);
        if let Some(first) = parts.first_mut() {
            common.append(&mut first.1);
            first.1 = common;
        }
        let s: Vec<String> = parts.iter().map(|(n, o)| part(n, o)).collect();
        f.write_str(&s.join("+"))
    }
}
