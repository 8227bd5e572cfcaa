//! How a transfer starts, from its data sends (time in µs, bytes): the
//! first flight, the bytes of each RTT-long round, and the growth between
//! rounds.

/// The first flight: bytes sent in [first data send, +1 RTT), and the
/// time from the first to the last of those sends.
pub(crate) fn first_flight(sends_us: &[(u64, u64)], from_us: u64, rtt_us: u64) -> (u64, u64) {
    let mut it = sends_us.iter().filter(|(t, _)| *t >= from_us);
    let Some(&(t0, b0)) = it.next() else {
        return (0, 0);
    };
    let mut bytes = b0;
    let mut last = t0;
    for &(t, b) in it {
        if t >= t0 + rtt_us {
            break;
        }
        bytes += b;
        last = t;
    }
    (bytes, last - t0)
}

/// Bytes sent in each of the first `n` RTT-long bins from the first data
/// send on: the per-round growth of startup.
pub(crate) fn rounds(sends_us: &[(u64, u64)], from_us: u64, rtt_us: u64, n: usize) -> Vec<u64> {
    let mut out = vec![0u64; n];
    let mut it = sends_us.iter().filter(|(t, _)| *t >= from_us).peekable();
    let Some(&&(t0, _)) = it.peek() else {
        return out;
    };
    for &(t, b) in it {
        let k = ((t - t0) / rtt_us.max(1)) as usize;
        if let Some(slot) = out.get_mut(k) {
            *slot += b;
        }
    }
    out
}

pub(crate) fn fmt_rounds(r: &[u64]) -> String {
    r.iter()
        .map(|b| format!("{:.0}", *b as f64 / 1e3))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Growth per round: each round's bytes over the previous round's, for
/// the rounds where both are at least 10 packets (smaller ones are the
/// first flight's and the tail's).
pub(crate) fn fmt_growth(r: &[u64]) -> String {
    r.windows(2)
        .filter(|w| w[0] >= 12_000 && w[1] >= 12_000)
        .map(|w| format!("x{:.2}", w[1] as f64 / w[0] as f64))
        .collect::<Vec<_>>()
        .join(" ")
}
