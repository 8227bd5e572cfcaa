//! The `[paths]` table: the access model ([`PathModel`]) every region's
//! connections draw from, one key per mechanism, each checked against its
//! range; a link element's key is read through the element's option table.

use serde::Deserialize;

use crate::fleet::access::BufferDepth;
use crate::fleet::assumptions::Param;
use crate::fleet::population::PathModel;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FilePaths {
    fixed_aqm_share: Option<f64>,
    docsis_share: Option<f64>,
    l4s_share: Option<f64>,
    wifi_fq_codel_share: Option<f64>,
    wifi_loss_max: Option<f64>,
    mobile_loss_max: Option<f64>,
    policed_scale: Option<f64>,
    cross_traffic_share: Option<f64>,
    cross_traffic_users: Option<u32>,
    wifi_jitter: Option<FileSwitchOrSpec>,
    ack_batching: Option<bool>,
    cellular_share: Option<f64>,
    cellular: Option<FileSwitchOrSpec>,
    trace_share: Option<f64>,
    traces: Option<Vec<String>>,
    droptail_buffer: Option<FileBuffer>,
    aqm_buffer_ms: Option<[f64; 2]>,
    mobile_buffer: Option<FileBuffer>,
    mobile_aqm_share: Option<f64>,
    access_correlation: Option<f64>,
    mobile_share_scale: Option<f64>,
    computer_wifi_share: Option<f64>,
    client_processing_ms: Option<f64>,
    capacity_weight: Option<f64>,
}

/// A link element's key (`wifi_jitter`, `cellular`): `true` (the element's sourced
/// defaults), `false` (none), or `KEY=VALUE,…` over the defaults, read by
/// the element's one option table in ramp-link ([`ramp_link::Element`]),
/// as the command line and the scenario file read it. The boolean is the
/// key's first form, kept so that existing files read as before.
#[derive(Deserialize)]
#[serde(untagged)]
enum FileSwitchOrSpec {
    Switch(bool),
    Spec(String),
}

impl FileSwitchOrSpec {
    /// The element, or none; an error starts with `key`.
    fn element<E: ramp_link::Element>(&self, key: &str) -> Result<Option<E>, String> {
        match self {
            FileSwitchOrSpec::Switch(on) => Ok(on.then_some(E::DEFAULT)),
            FileSwitchOrSpec::Spec(s) => ramp_link::parse_spec(s)
                .map(Some)
                .map_err(|e| format!("{key}: {e}")),
        }
    }
}

/// `droptail_buffer`, `mobile_buffer`: a named table or a log-uniform
/// `[lo, hi]` in ms.
#[derive(Deserialize)]
#[serde(untagged)]
enum FileBuffer {
    Named(String),
    Range([f64; 2]),
}

/// A buffer key's value: "mba-2023" (the FCC MBA fixed-downlink table),
/// the key's own named default, or a log-uniform `[lo, hi]` in ms.
fn buffer_depth(
    key: &str,
    b: &FileBuffer,
    default_name: &str,
    default: BufferDepth,
) -> Result<BufferDepth, String> {
    match b {
        FileBuffer::Named(n) if n == "mba-2023" => Ok(BufferDepth::mba_2023()),
        FileBuffer::Named(n) if n == default_name => Ok(default),
        FileBuffer::Named(n) => Err(format!(
            "{key}: unknown table `{n}` (\"mba-2023\", \"{default_name}\" or [lo, hi] in ms)"
        )),
        FileBuffer::Range(r) => {
            let (lo, hi) = buffer_range(key, *r)?;
            Ok(BufferDepth::LogUniform(lo, hi))
        }
    }
}

/// The longest buffer a population may give, ms.
const MAX_BUFFER_MS: f64 = 10_000.0;

/// A `[lo, hi]` buffer range in ms: 1 ≤ lo ≤ hi ≤ 10 s.
fn buffer_range(key: &str, [lo, hi]: [f64; 2]) -> Result<(f64, f64), String> {
    if !(lo >= 1.0 && lo <= hi && hi <= MAX_BUFFER_MS) {
        return Err(format!(
            "{key}: give [lo, hi] in ms with 1 <= lo <= hi <= {MAX_BUFFER_MS}, got [{lo}, {hi}]"
        ));
    }
    Ok((lo, hi))
}

/// The access model the table gives; an error starts with the key.
pub(super) fn read(p: &FilePaths) -> Result<PathModel, String> {
    let mut m = PathModel::default();
    let share = |k: &str, v: Option<f64>, dst: &mut f64, max: f64| -> Result<(), String> {
        if let Some(v) = v {
            if !(0.0..=max).contains(&v) {
                return Err(format!("{k}: must lie in [0, {max}]"));
            }
            *dst = v;
        }
        Ok(())
    };
    share(
        "fixed_aqm_share",
        p.fixed_aqm_share,
        &mut m.fixed_aqm_share,
        1.0,
    )?;
    share("docsis_share", p.docsis_share, &mut m.docsis_share, 1.0)?;
    share("l4s_share", p.l4s_share, &mut m.l4s_share, 1.0)?;
    if m.docsis_share + m.l4s_share > 1.0 {
        return Err(format!(
            "docsis_share + l4s_share: {} + {} exceeds 1 (both are shares of the AQM'd fixed accesses)",
            m.docsis_share, m.l4s_share
        ));
    }
    share(
        "wifi_fq_codel_share",
        p.wifi_fq_codel_share,
        &mut m.wifi_fq_codel_share,
        1.0,
    )?;
    share("wifi_loss_max", p.wifi_loss_max, &mut m.wifi_loss_max, 0.5)?;
    share(
        "mobile_loss_max",
        p.mobile_loss_max,
        &mut m.mobile_loss_max,
        0.5,
    )?;
    share("policed_scale", p.policed_scale, &mut m.policed_scale, 20.0)?;
    share(
        "cross_traffic_share",
        p.cross_traffic_share,
        &mut m.cross_traffic_share,
        1.0,
    )?;
    if let Some(j) = &p.wifi_jitter {
        m.wifi_jitter = j.element("wifi_jitter")?;
    }
    if let Some(c) = &p.cellular {
        m.cellular = c.element("cellular")?;
    }
    if let Some(on) = p.ack_batching {
        m.ack_batching = on;
    }
    share(
        "cellular_share",
        p.cellular_share,
        &mut m.cellular_share,
        1.0,
    )?;
    share("trace_share", p.trace_share, &mut m.trace_share, 1.0)?;
    if let Some(files) = &p.traces {
        for f in files {
            let t = ramp_link::DeliveryTrace::load(std::path::Path::new(f))
                .map_err(|e| format!("traces: {e}"))?;
            m.traces.push(std::sync::Arc::new(t));
        }
    }
    if m.trace_share > 0.0 && m.traces.is_empty() {
        return Err("trace_share: give the traces to draw from (traces = [\"file\", ...])".into());
    }
    if let Some(b) = &p.droptail_buffer {
        m.droptail_buffer = buffer_depth("droptail_buffer", b, "assumed", BufferDepth::ASSUMED)?;
    }
    if let Some(b) = &p.mobile_buffer {
        m.mobile_buffer = buffer_depth(
            "mobile_buffer",
            b,
            "jiang-2012",
            BufferDepth::MOBILE_JIANG_2012,
        )?;
    }
    share(
        "mobile_aqm_share",
        p.mobile_aqm_share,
        &mut m.mobile_aqm_share,
        1.0,
    )?;
    if let Some(c) = p.access_correlation {
        let (lo, hi) = Param::AccessCorrelation.bounds();
        if !(lo..=hi).contains(&c) {
            return Err(format!("access_correlation: must lie in [{lo}, {hi}]"));
        }
        m.access_correlation = c;
    }
    for (param, v, field) in [
        (
            Param::MobileShareScale,
            p.mobile_share_scale,
            &mut m.mobile_share_scale,
        ),
        (
            Param::ComputerWifiShare,
            p.computer_wifi_share,
            &mut m.computer_wifi_share,
        ),
        (
            Param::ClientProcessingMs,
            p.client_processing_ms,
            &mut m.client_processing_ms,
        ),
        (
            Param::CapacityWeight,
            p.capacity_weight,
            &mut m.capacity_weight,
        ),
    ] {
        if let Some(v) = v {
            let (lo, hi) = param.bounds();
            if !(lo..=hi).contains(&v) {
                let key = param.key().trim_start_matches("paths.");
                return Err(format!("{key}: must lie in [{lo}, {hi}]"));
            }
            *field = v;
        }
    }
    if let Some(r) = p.aqm_buffer_ms {
        m.aqm_buffer_ms = buffer_range("aqm_buffer_ms", r)?;
    }
    if let Some(u) = p.cross_traffic_users {
        if !(1..=64).contains(&u) {
            return Err("cross_traffic_users: must lie in 1..=64".into());
        }
        m.cross_traffic_users = u;
    }
    Ok(m)
}
