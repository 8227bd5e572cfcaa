use std::time::{Duration, Instant, SystemTime};

use super::*;

#[test]
fn strict_clock_never_repeats() {
    let clock = StrictClock::new();
    let mut prev = clock.now();
    for _ in 0..10_000 {
        let t = clock.now();
        assert!(t > prev, "{t:?} <= {prev:?}");
        prev = t;
    }
}

#[test]
fn strict_clock_is_strict_across_threads() {
    let clock = Arc::new(StrictClock::new());
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let c = clock.clone();
            std::thread::spawn(move || (0..2_000).map(|_| c.now()).collect::<Vec<_>>())
        })
        .collect();
    let mut all: Vec<Instant> = threads
        .into_iter()
        .flat_map(|t| t.join().unwrap())
        .collect();
    let n = all.len();
    all.sort();
    all.dedup();
    assert_eq!(all.len(), n, "two readings were equal");
}

#[test]
fn kernel_arrival_subtracts_the_datagrams_age() {
    let polled = Instant::now();
    let wall = SystemTime::now();
    let since = wall.duration_since(UNIX_EPOCH).unwrap();
    let stamp = since - Duration::from_micros(700);
    assert_eq!(
        kernel_arrival(Some(stamp), polled, wall),
        Some(polled - Duration::from_micros(700))
    );
    // A stamp after the wall reading (clocks read apart): age zero.
    let later = since + Duration::from_micros(3);
    assert_eq!(kernel_arrival(Some(later), polled, wall), Some(polled));
    // Missing, or the wall clock stepped: not trusted.
    assert_eq!(kernel_arrival(None, polled, wall), None);
    assert_eq!(
        kernel_arrival(Some(since - Duration::from_secs(5)), polled, wall),
        None
    );
}

/// Hand-overs at p1 < p2 < p3 with driver times n_i in (p_{i-1}, p_i]:
/// each n finds its own datagram.
#[test]
fn lookup_by_driver_time_finds_the_wakeups_datagram() {
    let clock = StrictClock::new();
    let log = ArrivalLog::new();
    let mut cases = Vec::new();
    for i in 0..50u64 {
        let n = clock.now(); // the driver's `now`, before it reads
        let p = clock.now(); // the socket's hand-over
        let kernel = p - Duration::from_micros(10 * i + 1);
        log.record(p, Some(kernel));
        cases.push((n, kernel));
    }
    for (n, kernel) in cases {
        assert_eq!(log.arrival(n), Some(kernel));
    }
    // After the last hand-over: no datagram carried that time.
    assert_eq!(log.arrival(clock.now()), None);
}

#[test]
fn a_kernel_time_after_the_hand_over_is_capped() {
    let log = ArrivalLog::new();
    let p = Instant::now();
    log.record(p, Some(p + Duration::from_millis(1)));
    assert_eq!(log.arrival(p), Some(p));
}

#[test]
fn forgotten_datagrams_are_not_mistaken_for_newer_ones() {
    let clock = StrictClock::new();
    let log = ArrivalLog::new();
    let first_n = clock.now();
    for _ in 0..LOG_CAPACITY + 1 {
        let p = clock.now();
        log.record(p, Some(p));
    }
    assert_eq!(log.len(), LOG_CAPACITY);
    // The first datagram was dropped: its driver time must not map to
    // the oldest one kept.
    assert_eq!(log.arrival(first_n), None);
}

#[test]
fn ack_clock_keeps_frame_times_in_order_and_not_after_now() {
    let clock = StrictClock::new();
    let log = Arc::new(ArrivalLog::new());
    let n1 = clock.now();
    let p1 = clock.now();
    log.record(p1, Some(p1 - Duration::from_micros(50)));
    let n2 = clock.now();
    let p2 = clock.now();
    // Stamped earlier than the first (kernel reordering of the stamps).
    log.record(p2, Some(p1 - Duration::from_micros(80)));
    let mut ack = AckClock::new(log);
    let (t1, s1) = ack.frame_time(n1);
    assert!(s1);
    assert_eq!(t1, p1 - Duration::from_micros(50));
    assert!(t1 <= n1 || t1 <= p1);
    let (t2, s2) = ack.frame_time(n2);
    assert!(s2);
    assert_eq!(t2, t1, "never before the previous frame");
    // A congestion event raised by that frame takes its time; one raised
    // by a timer keeps its own.
    assert_eq!(ack.event_time(n2), t2);
    let timer = clock.now();
    assert_eq!(ack.event_time(timer), timer);
    // A time no datagram carried keeps quinn's now.
    let (t3, s3) = ack.frame_time(timer);
    assert!(!s3);
    assert_eq!(t3, timer);
}

/// A 2 MB download over loopback from a server on the stamped socket:
/// the ACK frames reach the controller with the kernel's times.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loopback_download_times_ack_frames_by_the_kernel() {
    use crate::adapter::RampFactory;
    use crate::probe::ConnProbe;
    use crate::tls::{self, Identity, Trust};

    let tls_server = quinn::crypto::rustls::QuicServerConfig::try_from(
        tls::server_config(Identity::self_signed().unwrap()).unwrap(),
    )
    .unwrap();
    let Bound {
        socket,
        runtime,
        log,
    } = wrap(std::net::UdpSocket::bind("127.0.0.1:0").unwrap()).unwrap();
    let probe = Arc::new(ConnProbe::new());
    let choice = crate::choice::CcChoice::parse("cubic").unwrap();
    let factory =
        RampFactory::with_probe(choice.build.clone(), probe.clone()).with_arrivals(log.clone());
    let mut server_cfg = quinn::ServerConfig::with_crypto(Arc::new(tls_server));
    server_cfg.transport_config(Arc::new(crate::transport::transport_config(
        Some(Arc::new(factory)),
        Duration::from_secs(5),
    )));
    let server = quinn::Endpoint::new_with_abstract_socket(
        quinn::EndpointConfig::default(),
        Some(server_cfg),
        socket,
        runtime,
    )
    .unwrap();
    let addr = server.local_addr().unwrap();
    const BYTES: usize = 2_000_000;
    let serving = tokio::spawn(async move {
        let conn = server.accept().await.unwrap().await.unwrap();
        let mut s = conn.open_uni().await.unwrap();
        s.write_all(&vec![7u8; BYTES]).await.unwrap();
        s.finish().unwrap();
        let _ = s.stopped().await;
        conn.close(0u32.into(), b"done");
        server.wait_idle().await;
    });
    let tls_client = quinn::crypto::rustls::QuicClientConfig::try_from(
        tls::client_config(&Trust::Insecure).unwrap(),
    )
    .unwrap();
    let mut client = quinn::Endpoint::client("127.0.0.1:0".parse().unwrap()).unwrap();
    client.set_default_client_config(quinn::ClientConfig::new(Arc::new(tls_client)));
    let conn = client.connect(addr, "localhost").unwrap().await.unwrap();
    let mut r = conn.accept_uni().await.unwrap();
    let body = r.read_to_end(BYTES + 1).await.unwrap();
    assert_eq!(body.len(), BYTES);
    let _ = tokio::time::timeout(Duration::from_secs(5), serving).await;
    let c = probe.snapshot().counters;
    assert!(c.ack_frames > 10, "{c:?}");
    // Every ACK frame came through the driver's receive path and was
    // handed over one receive per wake-up; only a frame processed after
    // its entry left the log (none here) would miss.
    assert_eq!(c.ack_frames_kernel_timed, c.ack_frames, "{c:?}");
    assert!(
        log.len() as u64 >= c.ack_frames,
        "one hand-over per datagram"
    );
}
