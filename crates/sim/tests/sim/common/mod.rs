//! Shared helpers for the simulator's integration tests: run a connection
//! with a trace captured in memory, and read the trace back.

use std::io::Write;
use std::sync::{Arc, Mutex};

use ramp_sim::{run_connection, Record, Scenario, TraceSink};
use serde_json::Value;

/// A `Write` whose bytes can be read after the sink is dropped.
#[derive(Clone, Default)]
pub struct Shared(pub Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Shared {
    pub fn bytes(&self) -> Vec<u8> {
        self.0.lock().unwrap().clone()
    }
}

/// A traced run: the record, the NDJSON trace and the qlog bytes.
pub struct Traced {
    pub record: Record,
    pub trace: Vec<u8>,
    pub qlog: Vec<u8>,
}

impl Traced {
    /// The trace's events (header excluded).
    pub fn events(&self) -> Vec<Value> {
        std::str::from_utf8(&self.trace)
            .unwrap()
            .lines()
            .skip(1)
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

pub fn scenario(name: &str) -> Scenario {
    Scenario::load(name).unwrap()
}

pub fn run_traced(sc: &Scenario, cc: &str, seed: u64) -> Traced {
    let spec = ramp_cc::spec::parse(cc).unwrap();
    let t = Shared::default();
    let q = Shared::default();
    let mut sink = TraceSink::off()
        .with_ndjson(Box::new(t.clone()))
        .with_qlog(Box::new(q.clone()));
    let record = run_connection(sc, &spec, seed, &mut sink).unwrap();
    sink.finish().unwrap();
    Traced {
        record,
        trace: t.bytes(),
        qlog: q.bytes(),
    }
}

pub fn run(sc: &Scenario, cc: &str, seed: u64) -> Record {
    let spec = ramp_cc::spec::parse(cc).unwrap();
    run_connection(sc, &spec, seed, &mut TraceSink::off()).unwrap()
}

pub fn ev(e: &Value) -> &str {
    e["ev"].as_str().unwrap_or("")
}

pub fn t_us(e: &Value) -> u64 {
    e["t-us"].as_u64().unwrap()
}

/// 1-RTT `sent` events (stream data and probes), in order.
pub fn app_sent(events: &[Value]) -> Vec<&Value> {
    events
        .iter()
        .filter(|e| ev(e) == "sent" && e.get("space").is_none())
        .collect()
}

/// Send rounds of the response: round 1 starts with the first 1-RTT
/// packet; round k+1 starts with the first packet sent after the first
/// acknowledgement of a packet of round k. Returns, per round, the send
/// times (µs) of its packets.
pub fn rounds(events: &[Value]) -> Vec<Vec<u64>> {
    let mut rounds: Vec<Vec<u64>> = Vec::new();
    let mut round_first_pn: Option<u64> = None;
    let mut boundary_seen = false;
    let mut started = false;
    for e in events {
        match ev(e) {
            "sent" if e.get("space").is_none() => {
                let pn = e["pn"].as_u64().unwrap();
                if !started || boundary_seen {
                    started = true;
                    boundary_seen = false;
                    rounds.push(Vec::new());
                    round_first_pn = Some(pn);
                }
                rounds.last_mut().unwrap().push(t_us(e));
            }
            "acked" if started && !boundary_seen => {
                let pn = e["pn"].as_u64().unwrap();
                if round_first_pn.is_some_and(|f| pn >= f) {
                    boundary_seen = true;
                }
            }
            _ => {}
        }
    }
    rounds
}
