//! The flags the two real-time forwarders share, `--trace`,
//! `--uplink-trace`, `--seed`, `--log` and `--no-realtime`: defined once
//! and flattened into `ramp relay` and `ramp shell`, beside [`PathFlags`]
//! and the element flags (`crate::link_elements`).
//!
//! With a Mahimahi trace in both directions, each direction's rate is its
//! trace's, so `--rate` is not needed ([`ForwarderFlags::link`]).

use core::time::Duration;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{anyhow, Context};
use ramp_link::DeliveryTrace;
use ramp_quic::relay::LinkParams;
use ramp_vocab::Rate;

use crate::link_elements::LinkElementFlags;
use crate::path_flags::PathFlags;

/// The link a real-time forwarder emulates, one group that `ramp relay`
/// and `ramp shell` flatten: the path ([`PathFlags`]), its elements
/// ([`LinkElementFlags`]), the forwarder's own flags `X` (the shell's
/// uplink overrides; none for the relay), then [`ForwarderFlags`]. The
/// groups are listed in that order so that the help lists the flags in
/// the order it always has.
#[derive(clap::Args, Debug)]
pub struct ForwarderLink<X: clap::Args = ()> {
    /// Rate, RTT, queue, queue discipline, loss.
    #[command(flatten)]
    pub path: PathFlags,
    /// Cellular behaviour, Wi-Fi delay variation, ACK aggregation.
    #[command(flatten)]
    pub elements: LinkElementFlags,
    /// The forwarder's own flags, between the elements and the rest.
    #[command(flatten)]
    pub own: X,
    /// Traces, seed, event log, scheduling.
    #[command(flatten)]
    pub fwd: ForwarderFlags,
}

/// `--trace`, `--uplink-trace`, `--seed`, `--log`, `--no-realtime`.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct ForwarderFlags {
    /// Mahimahi trace for the downlink (server -> client; into the shell):
    /// one line per 1500-byte delivery opportunity, in ms, repeating;
    /// replaces --rate in that direction (the buffer is --queue at the
    /// trace's mean rate). A trace-driven downlink cannot be --cellular.
    #[arg(long, conflicts_with = "cellular")]
    pub trace: Option<PathBuf>,
    /// Mahimahi trace for the uplink (client -> server); replaces --rate
    /// (the shell's --uplink-rate) in that direction. With --trace too,
    /// --rate is not needed.
    #[arg(long, alias = "up-trace")]
    pub uplink_trace: Option<PathBuf>,
    /// Seed of the random elements (losses, cellular drift, Wi-Fi delay
    /// variation; each direction draws from its own streams).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// NDJSON event log: every arrival with the queue depth, every drop.
    #[arg(long)]
    pub log: Option<PathBuf>,
    /// Run the forwarding threads at normal priority instead of SCHED_FIFO
    /// (real-time priority keeps packets on time on a busy machine).
    #[arg(long)]
    pub no_realtime: bool,
}

/// The traces a forwarder replays, loaded.
#[derive(Clone, Debug, Default)]
pub struct Traces {
    /// The downlink's (`--trace`).
    pub down: Option<Arc<DeliveryTrace>>,
    /// The uplink's (`--uplink-trace`).
    pub up: Option<Arc<DeliveryTrace>>,
}

impl Traces {
    /// Puts each trace on its direction.
    pub fn apply(&self, up: &mut LinkParams, down: &mut LinkParams) {
        if let Some(t) = &self.down {
            down.set_trace(Arc::clone(t));
        }
        if let Some(t) = &self.up {
            up.set_trace(Arc::clone(t));
        }
    }
}

impl ForwarderFlags {
    /// Refuses a `--log` that would replace a trace this command reads.
    pub fn refuse_log_over_traces(&self) -> anyhow::Result<()> {
        crate::clobber::refuse_optional_outputs(
            &[("--log", self.log.as_ref())],
            &[self.trace.as_ref(), self.uplink_trace.as_ref()],
        )
    }

    /// Loads the traces given; an error names the flag and the file's line.
    pub fn traces(&self) -> anyhow::Result<Traces> {
        let load = |flag: &str, f: &Option<PathBuf>| -> anyhow::Result<_> {
            f.as_ref()
                .map(|f| {
                    DeliveryTrace::load(f)
                        .map(Arc::new)
                        .context(flag.to_string())
                })
                .transpose()
        };
        Ok(Traces {
            down: load("--trace", &self.trace)?,
            up: load("--uplink-trace", &self.uplink_trace)?,
        })
    }

    /// The link's rate, RTT and queue: `--rtt` and `--queue` are required,
    /// and `--rate` unless both directions replay a trace (each trace then
    /// gives its direction's rate; the rate returned is the downlink
    /// trace's mean, which the traces replace).
    pub fn link(
        &self,
        path: &PathFlags,
        traces: &Traces,
    ) -> anyhow::Result<(Rate, Duration, Duration)> {
        let missing = |flag: &str| anyhow!("--{flag} is required");
        let rate = match (path.rate, &traces.down, &traces.up) {
            (Some(r), _, _) => r,
            (None, Some(down), Some(_)) => down.mean_rate(),
            (None, _, _) => {
                return Err(anyhow!(
                    "--rate is required (unless both --trace and --uplink-trace are given)"
                ))
            }
        };
        Ok((
            rate,
            path.rtt.ok_or_else(|| missing("rtt"))?,
            path.queue.ok_or_else(|| missing("queue"))?,
        ))
    }
}

/// Refuses a direction whose buffer holds less than one `packet`-byte
/// packet at its rate, as `ramp sim` refuses such a queue: every packet
/// that found the link busy would be dropped. Call it after the traces are
/// applied, so that a sparse trace is judged at its mean rate (a 1-packet
/// per second trace with a 20 ms queue is a 30-byte buffer).
pub(crate) fn refuse_buffers_under_one_packet(
    directions: &[(&str, &LinkParams)],
    packet: u32,
) -> anyhow::Result<()> {
    for (flag, link) in directions {
        if ramp_link::queue_bytes_for(link.rate, link.queue) < u64::from(packet) {
            anyhow::bail!(
                "{flag}: the buffer holds less than one {packet}-byte packet at this rate"
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<ForwarderLink, clap::Error> {
        crate::flag_test::parse(args)
    }

    /// A scratch directory of this test's own (no tempfile dependency in
    /// this crate), removed when dropped.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(test: &str) -> Scratch {
            let d = std::env::temp_dir().join(format!("ramp-fwd-{}-{test}", std::process::id()));
            std::fs::create_dir_all(&d).unwrap();
            Scratch(d)
        }
        fn path(&self) -> &std::path::Path {
            &self.0
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn trace_file(dir: &std::path::Path, name: &str, text: &str) -> String {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    }

    #[test]
    fn two_traces_need_no_rate_and_one_does() {
        let dir = Scratch::new("two");
        // One opportunity per ms: 12 Mbit/s; two per ms: 24 Mbit/s.
        let down = trace_file(dir.path(), "down", "1\n");
        let up = trace_file(dir.path(), "up", "1\n1\n");
        let both = ["--rtt", "40ms", "--queue", "50ms", "--trace", &down];
        let c = parse(&[&both[..], &["--uplink-trace", &up]].concat()).unwrap();
        let traces = c.fwd.traces().unwrap();
        let (rate, rtt, queue) = c.fwd.link(&c.path, &traces).unwrap();
        assert_eq!(rate.bits_per_sec(), 12_000_000);
        assert_eq!(
            (rtt, queue),
            (Duration::from_millis(40), Duration::from_millis(50))
        );
        let mut up_p = LinkParams::new(rate, rtt / 2, queue, 0.0, Default::default());
        let mut down_p = up_p.clone();
        traces.apply(&mut up_p, &mut down_p);
        assert_eq!(up_p.rate.bits_per_sec(), 24_000_000);
        assert!(down_p.trace.is_some() && up_p.trace.is_some());
        // One trace: the other direction needs --rate.
        let c = parse(&both).unwrap();
        let e = c.fwd.link(&c.path, &c.fwd.traces().unwrap()).unwrap_err();
        assert!(e.to_string().starts_with("--rate is required"), "{e}");
        let c = parse(&["--rate", "10mbit", "--queue", "50ms"]).unwrap();
        let e = c.fwd.link(&c.path, &Traces::default()).unwrap_err();
        assert_eq!(e.to_string(), "--rtt is required");
    }

    #[test]
    fn a_trace_driven_downlink_cannot_be_cellular() {
        let e = parse(&["--cellular", "--trace", "x"])
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("--cellular") && e.contains("--trace"), "{e}");
    }

    #[test]
    fn a_bad_trace_names_its_flag() {
        let dir = Scratch::new("bad");
        let bad = trace_file(dir.path(), "bad", "1\nsoon\n");
        let c = parse(&["--uplink-trace", &bad]).unwrap();
        let e = format!("{:#}", c.fwd.traces().unwrap_err());
        assert!(
            e.starts_with("--uplink-trace") && e.contains("bad:2:"),
            "{e}"
        );
    }
}
