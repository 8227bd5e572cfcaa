//! Connections as users make them: what the client brings to a fleet
//! connection beyond its path (docs/experiments.md, "Connections as users
//! make them"). Every mechanism is off by default, so a population that
//! does not ask for one draws the same connections as before.
//!
//! - `flow_control`: the client's receive windows (RFC 9000 §4), Chrome's
//!   by default when on (`crate::flow_control`).
//! - `resumed_share`, `token_share`: the share of connections that resume
//!   with a 0-RTT request, and of those the share whose server holds an
//!   address-validation token (`crate::resumption`). No public
//!   measurement gives either for the experiment's traffic: both are
//!   assumptions, 0 by default.
//! - `resume_jumpstart`: a resumed connection whose server holds a token
//!   also finds in it the delivery rate and minimum RTT of the previous
//!   connection on the path (quicly keeps them in the address token), and
//!   a jumping controller sizes its jump from them ([`ramp_cc::resume`]).
//!   The saved values are drawn from the path model: the previous
//!   connection's rate is taken as the path's bottleneck rate (the
//!   policer's where one sits on the path), its minimum RTT as the path's
//!   base RTT. That assumes the previous connection filled the path, the
//!   largest window it could have saved; the path is the same one, so
//!   RFC 9959's RTT confirmation always passes here (its test is in
//!   ramp-cc).
//! - `rtt_hint`: a resumed connection's client sends the smoothed RTT of
//!   its previous connection to the server in its hello (gQUIC's `IRTT`,
//!   `crate::resumption`), and the server starts its RTT estimate from
//!   it. The cached RTT is drawn from the path model as the path's base
//!   RTT: the previous connection's queueing is not known, and a page's
//!   connection mostly carries a few small objects, which build little
//!   queue. It is therefore the lowest value the hint could take (the
//!   fastest pacing of the 0.5-RTT data).
//!
//! Per-connection draws come from their own generator, seeded from the
//! path's seed, so switching a mechanism on never moves the path, size or
//! loss draws: every connection keeps its path and the comparison with the
//! mechanism off stays paired.

use crate::flow_control::FlowWindows;
use crate::resumption::Resumption;
use ramp_vocab::rng::Rng;

/// Separates the users' generator from the path-sampling one.
const USERS_STREAM: u64 = 0x0A5E_5EED_F00D_2026;

/// The client side of a fleet's connections.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Users {
    /// Client receive windows on every connection (None: unlimited).
    pub flow_windows: Option<FlowWindows>,
    /// Share of connections resumed with a 0-RTT request (0..=1).
    pub resumed_share: f64,
    /// Of the resumed, the share whose server holds a token (0..=1).
    pub token_share: f64,
    /// Resumed connections with a token carry the path's saved rate and
    /// RTT to their controller (RFC 9959 via h2o's resume-jumpstart).
    pub resume_jumpstart: bool,
    /// Resumed connections' clients send the path's RTT as their cached
    /// RTT (gQUIC's `IRTT`).
    pub rtt_hint: bool,
}

impl Users {
    /// Whether every mechanism is off (the connections are drawn, and the
    /// run's parameters written, as without this model).
    pub fn is_off(&self) -> bool {
        *self == Users::default()
    }

    /// Applies the model to the scenario of the connection whose path seed
    /// is `path_seed`.
    pub fn apply(&self, sc: &mut crate::Scenario, path_seed: u64) {
        if let Some(w) = self.flow_windows {
            sc.endpoint.flow_windows = Some(w);
        }
        if self.resumed_share > 0.0 {
            let mut rng = Rng::from_u64(path_seed ^ USERS_STREAM);
            let (u, v) = (rng.next_f64(), rng.next_f64());
            if u < self.resumed_share {
                let token = v < self.token_share;
                sc.endpoint.resumption = Resumption::ZeroRtt { token };
                if self.rtt_hint {
                    sc.endpoint.client_rtt_hint = Some(sc.path.rtt());
                }
                if token && self.resume_jumpstart {
                    let p = &sc.path;
                    let rate = match p.elements.policer {
                        Some(b) if b.rate < p.rate => b.rate,
                        _ => p.rate,
                    };
                    sc.endpoint.resume = Some(ramp_cc::resume::SavedPath { rate, rtt: p.rtt() });
                }
            }
        }
    }
}

/// The `[users]` table of a population file.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FileUsers {
    flow_control: Option<String>,
    resumed_share: Option<f64>,
    token_share: Option<f64>,
    resume_jumpstart: Option<bool>,
    rtt_hint: Option<bool>,
}

impl FileUsers {
    /// The model the table describes; errors name the key.
    pub(crate) fn model(&self) -> Result<Users, String> {
        let mut u = Users::default();
        match self.flow_control.as_deref() {
            None | Some("off") => {}
            Some("chrome") => u.flow_windows = Some(FlowWindows::CHROME),
            Some(other) => {
                return Err(format!(
                    "flow_control: unknown setting `{other}` (use chrome, off)"
                ))
            }
        }
        u.resume_jumpstart = self.resume_jumpstart.unwrap_or(false);
        u.rtt_hint = self.rtt_hint.unwrap_or(false);
        if u.rtt_hint && self.resumed_share.unwrap_or(0.0) == 0.0 {
            return Err("rtt_hint: needs resumed connections (resumed_share > 0)".into());
        }
        if u.resume_jumpstart && self.resumed_share.unwrap_or(0.0) == 0.0 {
            return Err(
                "resume_jumpstart: needs resumed connections (resumed_share > 0, token_share > 0)"
                    .into(),
            );
        }
        for (key, v, dst) in [
            ("resumed_share", self.resumed_share, &mut u.resumed_share),
            ("token_share", self.token_share, &mut u.token_share),
        ] {
            if let Some(v) = v {
                if !(0.0..=1.0).contains(&v) {
                    return Err(format!("{key}: must lie in [0, 1], not {v}"));
                }
                *dst = v;
            }
        }
        Ok(u)
    }
}
