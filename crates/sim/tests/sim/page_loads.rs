//! Several requests on one connection (crate::page): a page's objects all
//! arrive, each stream's bytes are counted, a later request on an idle
//! connection reuses its window, and page-load fleets are deterministic.

use core::time::Duration;

use ramp_sim::fleet::experiments;
use ramp_sim::fleet::run::{run, RunOptions};
use ramp_sim::internals::{Object, Requests, Trigger};
use ramp_sim::Scenario;

use crate::common;

fn with_requests(mut sc: Scenario, objects: Vec<Object>, measured_from: u32) -> Scenario {
    let r = Requests {
        objects,
        measured_from,
    };
    r.validate().unwrap();
    sc.size_bytes = r.total_bytes();
    sc.requests = Some(r);
    sc
}

fn after(upto: u32, delay_ms: u64, size_bytes: u64) -> Object {
    Object {
        size_bytes,
        trigger: Trigger::After {
            upto,
            delay: Duration::from_millis(delay_ms),
        },
    }
}

fn main_object(size_bytes: u64) -> Object {
    Object {
        size_bytes,
        trigger: Trigger::Handshake,
    }
}

/// Sizes that end mid-chunk, a one-byte object and a multi-packet one.
const EMBEDDED: [u64; 5] = [1, 1200, 1201, 45_000, 300_000];

#[test]
fn a_page_of_n_objects_completes_with_every_byte_delivered() {
    let mut objects = vec![main_object(30_000)];
    objects.extend(EMBEDDED.iter().map(|&s| after(1, 100, s)));
    let sc = with_requests(common::scenario("seed-100m"), objects, 0);
    let t = common::run_traced(&sc, "cubic", 1);
    let r = &t.record;
    assert!(r.completed, "{}", r.to_json());
    let p = r.page.as_ref().expect("page record");
    assert_eq!(p.objects, 6);
    assert_eq!(p.object_bytes[0], 30_000);
    assert_eq!(&p.object_bytes[1..], &EMBEDDED);
    assert_eq!(p.bytes, 30_000 + EMBEDDED.iter().sum::<u64>());
    assert!(!p.warm);
    assert!(p.object_us.iter().all(|&u| u > 0), "{:?}", p.object_us);
    // The page starts with the connection: the handshake, the main
    // object, the 100 ms parsing time and the slowest embedded object.
    let embedded_max = p.object_us[1..].iter().max().copied().unwrap();
    assert!(
        p.load_us >= r.handshake_us + p.object_us[0] + 100_000 + embedded_max,
        "{} vs {} + {} + 100 ms + {}",
        p.load_us,
        r.handshake_us,
        p.object_us[0],
        embedded_max
    );
    let j = r.to_json();
    assert!(
        j.contains(&format!("\"page-load-us\":{}", p.load_us)),
        "{j}"
    );
    assert!(j.contains("\"page.object-bytes\":[30000,1,1200,1201,45000,300000]"));

    // Byte counts per stream: the stream data the server sent covers each
    // object's bytes exactly once (first transmissions), back to back.
    let mut ranges: Vec<(u64, u64)> = common::app_sent(&t.events())
        .iter()
        .filter(|e| e["retx"].as_bool() != Some(true))
        .filter_map(|e| Some((e["offset"].as_u64()?, e["len"].as_u64()?)))
        .collect();
    ranges.sort_unstable();
    let mut at = 0;
    for (off, len) in &ranges {
        assert_eq!(*off, at, "gap or overlap at {at}");
        at += len;
    }
    assert_eq!(at, p.bytes);
    // No packet straddles two objects: each object's bytes are whole
    // packets plus its own last partial packet.
    let mut edges = vec![0u64];
    for b in &p.object_bytes {
        edges.push(edges.last().unwrap() + b);
    }
    for (off, len) in &ranges {
        let i = edges.iter().rposition(|e| e <= off).unwrap();
        assert!(
            off + len <= edges[i + 1],
            "packet {off}+{len} crosses object {i}"
        );
    }
}

#[test]
fn one_object_schedule_matches_the_one_object_connection() {
    // A schedule of one object is the one-object connection: same record
    // but for the page keys.
    let plain = common::scenario("seed-100m");
    let mut sc = plain.clone();
    sc.size_bytes = 250_000;
    let one = with_requests(sc.clone(), vec![main_object(250_000)], 0);
    let a = common::run(&sc, "cubic", 3);
    let mut b = common::run(&one, "cubic", 3);
    assert!(b.page.take().is_some());
    assert_eq!(a, b);
}

#[test]
fn a_second_request_on_an_idle_connection_reuses_the_window() {
    // A 2 MB object opens the window; 2 s later (idle, nothing in flight)
    // the client asks for 300 KB on the same connection.
    let sc = with_requests(
        common::scenario("seed-100m"),
        vec![main_object(2_000_000), after(1, 2000, 300_000)],
        1,
    );
    let t = common::run_traced(&sc, "cubic", 1);
    let r = &t.record;
    assert!(r.completed);
    let p = r.page.as_ref().unwrap();
    assert!(p.warm);
    assert_eq!(p.objects, 1);
    assert_eq!(p.bytes, 300_000);
    // No new handshake: the only handshake packets are the first ones.
    let events = t.events();
    let handshake_sends: Vec<u64> = events
        .iter()
        .filter(|e| common::ev(e) == "sent" && e.get("space").is_some())
        .map(common::t_us)
        .collect();
    assert!(handshake_sends.iter().all(|&t| t < 1_000_000));
    // The window the first object grew carries the second in about one
    // round trip (250 packets at 100 Mbit/s take 24 ms to serialise),
    // where a fresh connection needs a handshake and slow start from IW.
    let mut fresh = common::scenario("seed-100m");
    fresh.size_bytes = 300_000;
    let f = common::run(&fresh, "cubic", 1);
    assert!(
        p.load_us < f.client_ttlb_us / 2,
        "warm {} µs vs fresh {} µs",
        p.load_us,
        f.client_ttlb_us
    );
    // Page load time of a warm page: from its request, about an RTT (30
    // ms) plus serialisation.
    assert!(
        p.load_us > 30_000 + 24_000 && p.load_us < 110_000,
        "{}",
        p.load_us
    );
}

#[test]
fn page_load_fleets_are_identical_at_one_and_two_threads() {
    let plan = experiments::plan("iw10-vs-iw32-pages", 24, 5).unwrap();
    let collect = |threads, chunk, window| {
        let mut out = Vec::new();
        run(
            &plan,
            RunOptions {
                threads,
                chunk,
                window,
                start: 0,
                end: u64::MAX,
            },
            |i, lines| -> Result<(), String> {
                out.extend(lines.iter().map(|l| (i, l.clone())));
                Ok(())
            },
        )
        .unwrap();
        out
    };
    let one = collect(1, 1, 1);
    assert_eq!(one.len(), 24 * 2);
    assert_eq!(one, collect(2, 3, 2));
    // Every record is a page load; some pages are on warm connections and
    // some connections resumed with 0-RTT.
    let v: Vec<serde_json::Value> = one
        .iter()
        .map(|(_, l)| serde_json::from_str(l).unwrap())
        .collect();
    assert!(v.iter().all(|r| r["page-load-us"].as_u64().unwrap() > 0));
    assert!(v.iter().any(|r| r["page.warm"] == true));
    assert!(v.iter().any(|r| r["page.warm"] == false));
    assert!(v.iter().any(|r| r.get("resumption").is_some()));
}
