//! Every refusal of the `[path]` and `[endpoint]` readers, pinned byte
//! for byte with its line, and typed as [`FileError`].

use crate::scenario::FileError;
use crate::SimError;

fn err(text: &str) -> crate::scenario::ScenarioError {
    crate::Scenario::from_toml(text, "f").unwrap_err()
}

#[test]
fn every_path_and_endpoint_refusal_is_pinned() {
    let cases: &[(&str, &str)] = &[
        ("[path]\nrate = \"10mbit\"\ntrace = \"x.trace\"\n", "f: line 1: path.trace: a trace sets the link's rate; give no rate or rate_step with it"),
        ("[path]\ntrace = \"/nonexistent/ramp.trace\"\n", "f: line 1: path.trace: /nonexistent/ramp.trace: cannot read the trace: No such file or directory (os error 2)"),
        ("[path]\nrtt = \"10ms\"\nforward_delay = \"5ms\"\n", "f: line 1: path.rtt: give either rtt or forward_delay/reverse_delay"),
        ("[path]\nqueue = \"10ms\"\nqueue_bytes = \"10KB\"\n", "f: line 1: path.queue: give either queue (time) or queue_bytes"),
        ("[path]\nloss = \"1%\"\n[path.gilbert_elliott]\n", "f: line 1: path.loss: give either loss or [path.gilbert_elliott]"),
        ("[path]\nrate = \"10mbit\"\n[path.jitter]\nnonsense = 1\n", "f: line 4: path.jitter.nonsense: unknown key (keys: median, p90)"),
        ("[path]\naqm = \"codel\"\necn_threshold = \"1ms\"\n", "f: line 1: path: give either aqm or ecn_threshold (the latter is aqm = \"step:<delay>\")"),
        ("[path]\nack_aggregation = \"0ms\"\n", "f: line 1: path.ack_aggregation: must be positive"),
        ("[path]\nack_batching = \"sometimes\"\n", "f: line 1: path.ack_batching: \"real-mode\", \"off\" or a table [[p, µs], ...], not \"sometimes\""),
        ("[path]\nack_batching = [[0.5, 10]]\n", "f: line 1: path.ack_batching: quantile points must run from p = 0 to p = 1"),
        ("[endpoint]\nflow_control = \"firefox\"\n", "f: line 1: endpoint.flow_control: unknown setting `firefox` (use chrome, off)"),
        ("[endpoint]\nclient_processing = \"20s\"\n", "f: line 1: endpoint.client_processing: at most 10s"),
        ("[endpoint]\nserver_flight = 0\n", "f: line 1: endpoint.server_flight: must be at least 1 byte"),
        ("[endpoint]\nresumption = \"sometimes\"\n", "f: line 1: endpoint.resumption: unknown value `sometimes` (use full, 0rtt, 0rtt-token)"),
        ("[endpoint]\nresume_rate = \"10mbit\"\n", "f: line 1: endpoint.resume_rate: give resume_rate and resume_rtt together"),
        ("[endpoint]\nclient_rtt_hint = \"0ms\"\n", "f: line 1: endpoint.client_rtt_hint: must be more than 0"),
        ("[endpoint]\nclock_phase = \"1ms\"\n", "f: line 1: endpoint.clock_phase: \"seeded\" or a duration below 1ms (e.g. \"0.4ms\"), not \"1ms\""),
        ("[endpoint]\necn = \"ce\"\n", "f: line 1: endpoint.ecn: expected off, on, ect0 or ect1, not \"ce\""),
        ("[endpoint]\npacer = \"fast\"\n", "f: line 1: endpoint.pacer: unknown pacer `fast` (use leaky-bucket, quinn, quicly, off)"),
        ("preset = \"nope\"\n", "f: preset: unknown preset `nope`"),
    ];
    let mut wrong = Vec::new();
    for (text, want) in cases {
        let e = err(text);
        let got = e.to_string();
        if got != *want {
            wrong.push(format!("{text:?}\n  got:  {got:?}\n  want: {want:?}"));
        }
        // A table's refusal carries its typed error, whose text is the
        // message; the unknown preset is not a table's.
        match e.cause.as_deref() {
            Some(SimError::ScenarioFile(c)) => assert_eq!(c.to_string(), e.message),
            other => assert!(text.starts_with("preset"), "{text:?}: {other:?}"),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn a_refusal_is_typed_by_its_key() {
    let cause = |text: &str| err(text).cause.map(|c| *c);
    assert_eq!(
        cause("[path]\nqueue = \"10ms\"\nqueue_bytes = \"10KB\"\n"),
        Some(SimError::ScenarioFile(FileError::QueueTimeAndBytes))
    );
    assert_eq!(
        cause("[endpoint]\npacer = \"fast\"\n"),
        Some(SimError::ScenarioFile(FileError::Pacer("fast".into())))
    );
    let Some(SimError::ScenarioFile(FileError::Element { table, error })) =
        cause("[path.jitter]\nnonsense = 1\n")
    else {
        panic!("an element's refusal")
    };
    assert_eq!(table, "jitter");
    assert_eq!(
        error.to_string(),
        "nonsense: unknown key (keys: median, p90)"
    );
}
