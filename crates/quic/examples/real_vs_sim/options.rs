//! The example's command line.

use ramp_quic::server::{AckTiming, SendPacing};

use super::fidelity;

/// Command-line options.
pub(crate) struct Options {
    pub(crate) quick: bool,
    pub(crate) runs: usize,
    pub(crate) pacing: SendPacing,
    pub(crate) ack_timing: AckTiming,
    pub(crate) paths: Vec<String>,
    pub(crate) ccs: Vec<String>,
    pub(crate) trace: bool,
    pub(crate) fidelity: bool,
    pub(crate) cellular: bool,
    pub(crate) wifi_jitter: bool,
}

pub(crate) fn options() -> Result<Options, Box<dyn std::error::Error + Send + Sync>> {
    let mut o = Options {
        quick: false,
        runs: 0,
        pacing: SendPacing::Controller,
        ack_timing: AckTiming::default(),
        paths: Vec::new(),
        ccs: Vec::new(),
        trace: false,
        fidelity: false,
        cellular: false,
        wifi_jitter: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--quick" => o.quick = true,
            "--runs" => o.runs = value()?.parse::<usize>()?.max(1),
            "--pacing" => o.pacing = value()?.parse()?,
            "--ack-timing" => o.ack_timing = value()?.parse()?,
            "--path" => o.paths.push(value()?),
            "--cc" => o.ccs.push(value()?),
            "--trace" => o.trace = true,
            "--fidelity" => o.fidelity = true,
            "--cellular" => o.cellular = true,
            "--wifi-jitter" => o.wifi_jitter = true,
            _ => return Err(format!("unknown argument {a}").into()),
        }
    }
    if o.fidelity {
        if o.paths.is_empty() {
            o.paths = fidelity::PATHS.map(String::from).to_vec();
        }
        if o.runs == 0 {
            o.runs = fidelity::RUNS;
        }
    }
    o.runs = o.runs.max(1);
    if o.ccs.is_empty() {
        o.ccs = ramp_quic::COMPARED.map(String::from).to_vec();
    }
    Ok(o)
}
