//! Fuzzes `ramp shell`'s command line: clap's parse of its flags (rate,
//! RTT, queue, AQM, loss, the uplink overrides, and the link element specs
//! `--cellular=KEY=VALUE,…`, `--wifi-jitter=…`, `--ack-aggregation`), then
//! every check the shell makes before it creates a namespace
//! (`cmd::shell::configure`). The flag structs live in the `ramp` binary,
//! so this target compiles those files as modules of its own. The input is
//! the argument list, `\0`-separated. Traces are not loaded (their parser
//! has its own target, `sim/mahimahi_trace`), so `--trace` only plays its
//! part in the flag rules. Checked: never a panic; a command line that is
//! accepted gives two links with a rate above zero and a buffer of at least
//! one packet, which build and take a packet.
#![no_main]
#![allow(dead_code, unreachable_pub, unused_imports)]

use clap::Parser;
use libfuzzer_sys::fuzz_target;
use ramp_link::{Link, Packet};
use ramp_vocab::{EcnCodepoint, Time};

#[path = "../../src/clobber.rs"]
mod clobber;
#[path = "../../src/forwarder_flags.rs"]
mod forwarder_flags;
#[path = "../../src/link_elements.rs"]
mod link_elements;
#[path = "../../src/path_flags.rs"]
mod path_flags;
#[path = "../../src/cmd/shell.rs"]
mod shell;
#[path = "../../src/stdout_line.rs"]
mod stdout_line;

#[derive(Parser)]
#[command(name = "ramp-shell")]
struct Cli {
    #[command(flatten)]
    args: shell::Args,
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // The argument count is bounded as a shell's would be in practice;
    // clap's cost grows with it and nothing new happens past a few dozen.
    let argv = std::iter::once("ramp-shell").chain(text.split('\0').take(64));
    let Ok(cli) = Cli::try_parse_from(argv) else {
        return;
    };
    let Ok(cfg) = shell::configure(&cli.args, &forwarder_flags::Traces::default()) else {
        return;
    };
    for (i, link) in [&cfg.up, &cfg.down].into_iter().enumerate() {
        assert!(link.rate.bits_per_sec() > 0, "an accepted link has rate 0");
        assert!(
            link.limit_bytes >= u64::from(ramp_shell::MTU),
            "an accepted buffer holds less than one packet"
        );
        let mut l: Link<()> = Link::new(link, cfg.seed.wrapping_add(i as u64));
        let _ = l.offer(
            Time::ZERO,
            Packet {
                payload: (),
                size: ramp_shell::MTU,
                ecn: EcnCodepoint::Ect1,
                flow: 0,
            },
        );
        if let Some(t) = l.next_wake() {
            l.poll(t, |_| {});
        }
    }
});
