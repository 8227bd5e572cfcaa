//! The scenario type's own tests: presets, TOML overrides, ranges and
//! the errors' keys and lines.

#[test]
fn path_trace_reads_a_mahimahi_file_relative_to_the_scenario() {
    let dir = std::env::temp_dir().join(format!("ramp-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // One 1500-byte opportunity every 2 ms: 6 Mbit/s.
    let ops: String = (1..=50).map(|i| format!("{}\n", 2 * i)).collect();
    std::fs::write(dir.join("six.trace"), ops).unwrap();
    std::fs::write(dir.join("bad.trace"), "1\n2\nfast\n").unwrap();
    let file = dir.join("t.toml");
    std::fs::write(&file, "[path]\ntrace = \"six.trace\"\nrtt = \"40ms\"\n").unwrap();
    let sc = Scenario::load(file.to_str().unwrap()).unwrap();
    assert_eq!(sc.path.rate.bits_per_sec(), 6_000_000);
    assert_eq!(sc.path.trace.as_ref().map(|t| t.opportunities()), Some(50));
    std::fs::write(&file, "[path]\ntrace = \"bad.trace\"\n").unwrap();
    let msg = Scenario::load(file.to_str().unwrap())
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains("path.trace: ") && msg.contains("bad.trace:3: `fast`"),
        "{msg}"
    );
    std::fs::write(&file, "[path]\ntrace = \"six.trace\"\nrate = \"5mbit\"\n").unwrap();
    let msg = Scenario::load(file.to_str().unwrap())
        .unwrap_err()
        .to_string();
    assert!(msg.contains("give no rate"), "{msg}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn rate_steps_parse_in_order_and_must_increase() {
    let sc = Scenario::from_toml(
        "[path]\nrate = \"20mbit\"\n[[path.rate_step]]\nat = \"1s\"\nrate = \"5mbit\"\n[[path.rate_step]]\nat = \"2s\"\nrate = \"20mbit\"\n",
        "steps",
    )
    .unwrap();
    assert_eq!(sc.path.rate_steps.len(), 2);
    assert_eq!(sc.path.rate_steps[0].at, Duration::from_secs(1));
    assert_eq!(sc.path.rate_steps[0].rate.bits_per_sec(), 5_000_000);
    let bad = Scenario::from_toml(
        "[[path.rate_step]]\nat = \"2s\"\nrate = \"5mbit\"\n[[path.rate_step]]\nat = \"1s\"\nrate = \"20mbit\"\n",
        "bad",
    );
    let msg = bad.map(|_| ()).unwrap_err().to_string();
    assert!(msg.contains("path.rate_step"), "{msg}");
}

use super::*;

#[test]
fn every_scenario_number_has_a_range_and_the_error_names_the_key() {
    let base = Scenario::load("seed-100m").unwrap();
    assert!(base.validate().is_ok());
    type Change = Box<dyn Fn(&mut Scenario)>;
    let cases: Vec<(&str, Change)> = vec![
        (
            "endpoint.server_flight",
            Box::new(|s| s.endpoint.server_flight_bytes = 100_000_000),
        ),
        (
            "path.forward_delay",
            Box::new(|s| s.path.forward_delay = Duration::from_secs(30)),
        ),
        (
            "path.rate",
            Box::new(|s| s.path.rate = Rate::from_bits_per_sec(100)),
        ),
        (
            "endpoint.iw",
            Box::new(|s| s.endpoint.iw_packets = 1_000_000),
        ),
        (
            "endpoint.max_ack_delay",
            Box::new(|s| s.endpoint.max_ack_delay = Duration::from_secs(20)),
        ),
        ("size", Box::new(|s| s.size_bytes = 0)),
        (
            "time_limit",
            Box::new(|s| s.time_limit = Duration::from_secs(86_400)),
        ),
        (
            "path.queue",
            Box::new(|s| s.path.queue = QueueLimit::Bytes(10_000_000_000)),
        ),
    ];
    for (key, change) in cases {
        let mut s = base.clone();
        change(&mut s);
        let e = s.validate().unwrap_err();
        assert!(e.to_string().starts_with(key), "{key}: {e}");
    }
}

#[test]
fn table_errors_name_their_line_and_table() {
    let msg = |text: &str| Scenario::from_toml(text, "s").unwrap_err().to_string();
    // `[[web]] cc` was reported as `flow 1`, without a line, when the
    // run reached it.
    let e = msg("[[flow]]\ncc = \"cubic\"\n[[web]]\nusers = 1\ncc = \"bogus\"\n");
    assert!(e.starts_with("s: line 3: web 1: cc `bogus`"), "{e}");
    let e = msg("[[flow]]\n\n[[flow]]\ncc = \"nope\"\n");
    assert!(e.starts_with("s: line 3: flow 2: cc `nope`"), "{e}");
    let e = msg("time_limit = \"10s\"\n[[flow]]\nstart = \"20s\"\n");
    assert!(e.starts_with("s: line 2: flow 1: start"), "{e}");
    let e = msg("[[web]]\nusers = 0\n");
    assert!(e.starts_with("s: line 1: web 1: users"), "{e}");
    let e = msg(
        "[path]\nrate = \"10mbit\"\n[[path.rate_step]]\nat = \"2s\"\nrate = \"5mbit\"\n\
         [[path.rate_step]]\nat = \"1s\"\nrate = \"1mbit\"\n",
    );
    assert!(e.starts_with("s: line 6: path.rate_step 2: at = 1s"), "{e}");
    let e = msg("[endpoint]\niw = 0\n");
    assert!(e.starts_with("s: line 1: endpoint.iw"), "{e}");
    let e = msg(&"[[flow]]\n".repeat(65));
    assert!(e.starts_with("s: line 65: flows: 65"), "{e}");
}

#[test]
fn an_initial_window_in_range_gives_a_jump_window_in_range() {
    // `iw = 10000` reported `endpoint.jump_window`, which the file
    // never set: the jump window's default (2 × iw) is capped.
    let sc = Scenario::from_toml("[endpoint]\niw = 10000\n", "s").unwrap();
    assert_eq!(
        (sc.endpoint.iw_packets, sc.endpoint.jump_packets),
        (10_000, MAX_WINDOW_PACKETS)
    );
    let e = Scenario::from_toml("[endpoint]\niw = 10001\n", "s").unwrap_err();
    assert!(e.message.contains("endpoint.iw (packets): 10001"), "{e}");
    // The typed error behind the text, for a caller that matches on it;
    // a file that does not parse has none.
    assert_eq!(
        e.cause,
        Some(Box::new(SimError::OutOfRange {
            field: "endpoint.iw (packets)".into(),
            bound: crate::Bound::Count {
                value: 10_001,
                lo: 1,
                hi: MAX_WINDOW_PACKETS
            }
        }))
    );
    let bad = Scenario::from_toml(
        "[endpoint
",
        "s",
    )
    .unwrap_err();
    assert_eq!(bad.cause, None);
    let sc = Scenario::from_toml("[endpoint]\niw = 10\njump_window = 15\n", "s").unwrap();
    assert_eq!(sc.endpoint.jump_packets, 15);
}

#[test]
fn a_rate_too_low_for_a_time_sized_queue_is_the_rate_s_error() {
    let e = Scenario::from_toml("[path]\nrate = \"1kbit\"\nqueue = \"30ms\"\n", "s")
        .unwrap_err()
        .to_string();
    // 1252 bytes in 30 ms need 41 734 bytes/s (rounded up), 333 872 bit/s.
    assert!(
        e.starts_with("s: line 1: path.rate: 1000 bit/s fills the 30ms queue with 3 bytes")
            && e.contains("must lie in 333872 bit/s ..= 1 Tbit/s"),
        "{e}"
    );
    let e = Scenario::from_toml("[path]\nqueue = \"1ns\"\n", "s")
        .unwrap_err()
        .to_string();
    assert!(e.contains("path.queue: 1ns holds less than one"), "{e}");
    let e = Scenario::from_toml("[path]\nqueue_bytes = 1000\n", "s")
        .unwrap_err()
        .to_string();
    assert!(e.contains("path.queue: 1000 bytes is less than one"), "{e}");
}

#[test]
fn toml_overrides_a_preset() {
    let sc = Scenario::from_toml(
        "preset = \"vdsl\"\nsize = \"1MB\"\n[path]\nloss = \"1%\"\nqueue_bytes = 100000\n\
         [endpoint]\nack_policy = \"ackfreq(10, 5ms)\"\n[[flow]]\ncc = \"cubic\"\nstart = \"1s\"\n",
        "t",
    )
    .unwrap();
    assert_eq!(sc.path.rate.bits_per_sec(), 55_000_000);
    assert_eq!(sc.path.rtt(), Duration::from_millis(39));
    assert_eq!(sc.path.queue, QueueLimit::Bytes(100_000));
    assert_eq!(sc.path.elements.loss, LossModel::Bernoulli { p: 0.01 });
    assert_eq!(sc.size_bytes, 1_000_000);
    assert_eq!(
        sc.endpoint.ack_policy,
        AckPolicy::AckFrequency {
            packets: 10,
            delay: Duration::from_millis(5)
        }
    );
    assert_eq!(sc.cross_flows.len(), 1);
    assert_eq!(sc.cross_flows[0].start, Duration::from_secs(1));
}

#[test]
fn policer_and_gilbert_elliott_tables_read_through_the_element_tables() {
    let sc = Scenario::from_toml(
        "[path.policer]\nrate = \"10mbit\"\nburst = \"32KB\"\n\
         [path.gilbert_elliott]\np_good_to_bad = 0.01\np_bad_to_good = 0.3\nloss_bad = 0.5\n",
        "t",
    )
    .unwrap();
    assert_eq!(
        sc.path.elements.policer,
        Some(ramp_link::parse_spec("rate=10mbit,burst=32KB").unwrap())
    );
    assert_eq!(
        sc.path.elements.loss,
        LossModel::GilbertElliott(ramp_link::GilbertElliott {
            p_good_to_bad: 0.01,
            p_bad_to_good: 0.3,
            loss_good: 0.0,
            loss_bad: 0.5,
        })
    );
    let msg = |text: &str| {
        let e = Scenario::from_toml(text, "s").unwrap_err();
        match e.line {
            Some(l) => format!("line {l}: {}", e.message),
            None => e.message,
        }
    };
    // A missing required key: the table's line; a bad value: its own.
    let e = msg("seed = 1\n[path.policer]\nrate = \"10mbit\"\n");
    assert_eq!(
        e,
        "line 2: path.policer.burst: required (it has no default)"
    );
    let e = msg("[path.gilbert_elliott]\np_good_to_bad = 0.01\n\np_bad_to_good = 1.5\n");
    assert_eq!(
        e,
        "line 4: path.gilbert_elliott.p_bad_to_good: must lie in [0, 1]"
    );
    let e = msg("[path.policer]\nrate = \"10mbit\"\nburst = 100\n");
    assert!(e.starts_with("line 3: path.policer.burst"), "{e}");
    let e = msg("[path.policer]\nrate = \"10mbit\"\nburst = 3000\nbucket = 1\n");
    assert!(
        e.starts_with("line 4: path.policer.bucket: unknown key"),
        "{e}"
    );
}

#[test]
fn errors_name_the_key_and_line() {
    let e = Scenario::from_toml("seed = 1\n[path]\nrate = \"fast\"\n", "bad").unwrap_err();
    assert_eq!(e.line, Some(3), "{e}");
    assert!(e.message.contains("fast"), "{e}");
    let e = Scenario::from_toml("[path]\nrtt = \"1ms\"\nqeue = \"3ms\"\n", "bad").unwrap_err();
    assert!(e.line == Some(3) && e.message.contains("qeue"), "{e}");
    let e = Scenario::from_toml("preset = \"nope\"\n", "bad").unwrap_err();
    assert!(e.message.contains("preset"), "{e}");
}
