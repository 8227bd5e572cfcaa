//! The runner's output is byte-identical at any thread count, in
//! connection order, and a run started at connection k produces exactly
//! the suffix of a full run.

use ramp_sim::fleet::experiments;
use ramp_sim::fleet::run::{run, RunOptions};

fn collect(plan: &ramp_sim::fleet::FleetPlan, opts: RunOptions) -> Vec<(u64, String)> {
    let mut out = Vec::new();
    run(plan, opts, |i, lines| -> Result<(), String> {
        for l in lines {
            out.push((i, l.clone()));
        }
        Ok(())
    })
    .unwrap();
    out
}

#[test]
fn output_is_identical_at_one_and_two_threads() {
    let plan = experiments::plan("rapid-start-2026", 48, 3).unwrap();
    let one = collect(
        &plan,
        RunOptions {
            threads: 1,
            chunk: 1,
            window: 1,
            start: 0,
            end: u64::MAX,
        },
    );
    let two = collect(
        &plan,
        RunOptions {
            threads: 2,
            chunk: 1,
            window: 3,
            start: 0,
            end: u64::MAX,
        },
    );
    let two_big = collect(
        &plan,
        RunOptions {
            threads: 2,
            chunk: 5,
            window: 2,
            start: 0,
            end: u64::MAX,
        },
    );
    assert_eq!(one.len(), 48 * 4);
    assert_eq!(one, two);
    assert_eq!(one, two_big);
    // In connection order, arms in arm order.
    for (k, (i, _)) in one.iter().enumerate() {
        assert_eq!(*i, k as u64 / 4);
    }
}

#[test]
fn starting_late_gives_the_suffix() {
    let plan = experiments::plan("rapid-start-2026", 20, 3).unwrap();
    let all = collect(
        &plan,
        RunOptions {
            threads: 2,
            ..RunOptions::default()
        },
    );
    let tail = collect(
        &plan,
        RunOptions {
            threads: 2,
            start: 13,
            ..RunOptions::default()
        },
    );
    assert_eq!(&all[13 * 4..], &tail[..]);
}

#[test]
fn a_failing_sink_stops_the_run() {
    let plan = experiments::plan("rapid-start-2026", 40, 3).unwrap();
    let mut seen = 0;
    let r = run(
        &plan,
        RunOptions {
            threads: 2,
            ..RunOptions::default()
        },
        |i, _| {
            seen += 1;
            if i == 5 {
                Err("disk full")
            } else {
                Ok(())
            }
        },
    );
    assert!(r.is_err());
    assert_eq!(seen, 6);
}
