//! The stats record of one finished (or timed-out) flow.

use ramp_cc::EcnCodepoint;

use super::{DropCause, Flow};
use crate::record::Record;
use crate::scenario::Scenario;
use crate::server::Phase;

use crate::record::micros as us;

/// The record of flow `i` of a run of `sc` with `seed`.
pub(super) fn make_record(sc: &Scenario, seed: u64, i: usize, f: &Flow) -> Record {
    let s = &f.server;
    let c = &f.client;
    let st = s.ld.stats();
    let m = s.cc.metrics();
    let r = s.ld.rtt();
    let name = s.cc.name();
    Record {
        scenario: sc.name.clone(),
        group: if f.group.is_empty() {
            name.clone()
        } else {
            f.group.clone()
        },
        cc_algorithm: name,
        seed,
        flow: i,
        completed: s.phase == Phase::Done,
        content_length: f.size_bytes,
        ttlb_us: match (s.t_request, s.t_done) {
            (Some(a), Some(b)) => us(b - a),
            _ => 0,
        },
        client_ttlb_us: c.t_last_byte.map(|t| us(t - c.t_start)).unwrap_or(0),
        ttfb_us: match (c.t_request_sent, c.t_first_byte) {
            (Some(a), Some(b)) => us(b - a),
            _ => 0,
        },
        handshake_us: c.t_handshake.map(|t| us(t - c.t_start)).unwrap_or(0),
        packets_sent: st.packets_sent,
        packets_lost: st.packets_lost,
        packets_acked: st.packets_acked,
        packets_lost_spurious: st.spurious_losses,
        bytes_sent: st.bytes_sent,
        bytes_lost: st.bytes_lost,
        bytes_acked: st.bytes_acked,
        stream_bytes_resent: s.resent_bytes,
        ptos: st.ptos,
        drops_queue: f.drops[DropCause::Queue],
        drops_random: f.drops[DropCause::Random],
        drops_policer: f.drops[DropCause::Policer],
        drops_aqm: f.drops[DropCause::Aqm],
        packets_acked_ce: st.ecn_ce,
        packets_acked_ect: (s.ecn() == EcnCodepoint::Ect1).then_some([st.ecn_ect0, st.ecn_ect1]),
        aqm: sc.path.aqm.to_string(),
        rtt_min_us: us(r.min()),
        rtt_smoothed_us: us(r.smoothed()),
        rtt_variance_us: us(r.var()),
        rtt_latest_us: us(r.latest()),
        cwnd: s.cc.window(),
        ssthresh: s.cc.ssthresh(),
        cwnd_initial: s.cc.initial_window(),
        cwnd_exiting_slow_start: m.cwnd_exiting_slow_start_bytes,
        cwnd_maximum: s.cwnd_max,
        num_loss_episodes: m.num_loss_episodes,
        num_ecn_loss_episodes: m.num_ecn_loss_episodes,
        num_spurious_undos: m.num_spurious_undos,
        path_rate_bps: sc.path.rate.bits_per_sec(),
        path_rtt_ms: ramp_vocab::time::duration_millis_f64(sc.path.rtt()),
        path_queue_ms: ramp_vocab::time::duration_millis_f64(sc.path.queue_time()),
        path_loss: sc.path.elements.loss.mean_loss(),
        ack_policy: sc.endpoint.ack_policy.to_string(),
        flow_control: sc
            .endpoint
            .flow_windows
            .map(|_| [c.window_updates(), s.fc_blocked_count]),
        page: c.page_record(),
        resumption: if i == 0 {
            sc.endpoint.resumption.record_value()
        } else {
            None
        },
    }
}
