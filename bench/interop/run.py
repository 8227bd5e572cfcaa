#!/usr/bin/env python3
"""Other stacks' own clients and servers beside ramp's real stack and
`ramp sim`, arm for arm, through `ramp shell` (docs/interop.md).

Stacks: quicly's `cli` on the seed arms; ngtcp2's example client and
server (`gtlsclient`/`gtlsserver`) on CUBIC and BBR; kernel TCP CUBIC
(curl against a small HTTP server, below, whose sockets ask for
TCP_CONGESTION cubic) as the reference. For every path of the grid, every
arm, every size: up to RUNS downloads on each stack the arm names and as
many with `ramp serve` / `ramp get`. Every download is timed from the
link by the shell's flow log (`--flow-log`: request's first packet in to
the last data packet out), the one clock all stacks share (quicly's `cli`
reports no timing). The same cells on `ramp sim` (one run per seed; seeds
1..RUNS on paths with random elements, else one). Writes the runs
(NDJSON), the time per phase (meta.json) and the tables (Markdown) to
OUT_DIR.

How the time is spent (docs/interop.md, "Where the time goes"): every
server of a path (each stack, each arm, on its own port) starts once per
path, ready when its port is bound (no fixed sleep); a run of a path is
one `ramp shell` (one per side, a side being one stack's client, when
the sides run together), which runs the downloads of every side, arm and
size one after the other from one script; a cell whose runs are
unimodal stops early (MIN_RUNS).

Usage: sudo QUICLY_CLI=/path/to/quicly/cli bench/interop/run.py [OUT_DIR]
  QUICLY_CLI   quicly's `cli` test program, built outside this repository
               (docs/interop.md names the commit); unset or missing: the
               quicly stack is skipped with a message
  NGTCP2_SERVER=gtlsserver, NGTCP2_CLIENT=gtlsclient
               ngtcp2's examples (Debian: ngtcp2-server, ngtcp2-client);
               missing: the ngtcp2 stack is skipped with a message
  STACKS="quicly ngtcp2 tcp"  the stacks to run (those available)
  RAMP         ramp binary (default target/release/ramp)
  RUNS=10      most downloads per cell and side
  MIN_RUNS=3   on a path without random elements, a cell stops after
               MIN_RUNS when every side's runs are unimodal: all within
               1 % of their median and all with drops or all without
               (docs/interop.md, "Fewer runs"); MIN_RUNS=RUNS turns it off
  PARALLEL=auto  run a run's sides at once, each in its own `ramp shell`,
               on paths of at most 25 Mbit/s, on a machine of at least
               4 cores (`all`, `none` to force); a run whose
               shells sent any packet over 1 ms late is run again side by
               side, alone, and a path whose together-runs are mostly
               rerun goes on alone (docs/interop.md)
  PATHS=...    space-separated path names (default: the whole grid)
  SIZES="1000000 3000000"
  ARMS=...     arm names (default: the four seed arms, cubic, bbr)
  QUICLY_CLIENT_FLAGS="-M 16777216 -m 33554432"
               quicly's client's stream and connection flow-control
               windows (its defaults, 1 MB and 16 MB, hold a 3 MB response
               back at 100 Mbit/s: docs/interop.md)
The seed arms' specs come from ramp itself (`ramp compare --list-arms`).
Needs root (ramp shell). Cleans up every server, shell and namespace it
started, also on Ctrl-C.
"""

import http.server
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

# The grid of paths: name, rate, RTT ms, queue ms, extra `ramp shell`
# flags, extra simulator TOML (path tables).
PATHS = [
    ("100m-30ms", "100mbit", 30, 30, [], ""),
    ("20m-40ms", "20mbit", 40, 40, [], ""),
    ("25m-60ms-2bdp", "25mbit", 60, 120, [], ""),
    ("100m-50ms-0.5bdp", "100mbit", 50, 25, [], ""),
    ("5m-150ms-1bdp", "5mbit", 150, 150, [], ""),
    ("20m-40ms-cellular", "20mbit", 40, 40, ["--cellular"], "[path.cellular]\n"),
    ("20m-40ms-wifi", "20mbit", 40, 40, ["--wifi-jitter"], "[path.jitter]\nmedian = \"3ms\"\np90 = \"20ms\"\n"),
    ("100m-30ms-dualpi2", "100mbit", 30, 30, ["--aqm", "dualpi2"], ""),
]
RANDOM_PATHS = {"20m-40ms-cellular", "20m-40ms-wifi"}
# The cellular element's idle gap, ms: a downlink burst that starts after
# this long an idle link is served on the light schedule for its first
# bytes (ramp_link::Cellular::CELLREPLAY.idle_reset, crates/link/src/
# cellular.rs; the cli test `interop_harness_waits_out_the_cellular_idle_gap`
# keeps the two equal). The element is the link's, not a flow's.
CELLULAR_IDLE_RESET_MS = 50
ECN_PATHS = {"100m-30ms-dualpi2"}
# Sides run at once (PARALLEL=auto) on paths of at most this rate: a
# 25 Mbit/s download costs the endpoints and the shell's loop little CPU.
PARALLEL_MAX_MBIT = 25
# ... and only on a machine with at least this many cores: on the 2-core
# VM every together-run of every slow path failed the lateness guard even
# idle (15 of 15, 2026-11-28), so trying cost about 3 minutes a grid.
PARALLEL_MIN_CORES = 4

# quicly's server flags for each seed arm (the experiment's `pico` at IW
# 30 with pacing, `-C pico:30:p`; a jump of 60 packets; Rapid Start).
# ramp's spec for each arm is ramp_cc::spec::SEED_ARMS, read from
# `ramp compare --list-arms`.
QUICLY_ARM_FLAGS = {
    "baseline": [],
    "jumpstart": ["--jumpstart-default", "60"],
    "rapid-no-jump": ["--rapid-start"],
    "rapidstart": ["--rapid-start", "--jumpstart-default", "60"],
}
# The arms of the other stacks: label, ramp's spec, and per stack its
# controller. ngtcp2 0.12.1 (Debian 12) has `cubic`, `reno`, `bbr` (BBRv1)
# and `bbr2` (BBRv2); ramp has BBRv3 (`bbr3`), so the `bbr` arm sets
# different versions side by side (docs/interop.md).
# Both at RFC 9002 §7.2's initial window for 1200-byte datagrams,
# min(10 × 1200, max(14720, 2 × 1200)) = 12,000 B, which `ramp serve` uses
# (ngtcp2 0.12.1 computes it from its 1452-byte maximum payload: 14,520 B,
# docs/interop.md): without `iw=10` the simulator takes its scenario's
# default of 30, and its `cubic` finished 10 % before every real stack at
# 20 Mbit/s, 40 ms.
OTHER_ARMS = [
    ("cubic", "cubic(iw=10)", {"ngtcp2": "cubic", "tcp": "cubic"}),
    ("bbr", "bbr3(iw=10)", {"ngtcp2": "bbr2"}),
]


# Each stack's servers listen on the host at BASE + the arm's index, so
# that every arm of a path is served at once.
PORT_BASE = {"quicly": 47510, "ngtcp2": 47530, "tcp": 47550, "ramp": 47570}
# How a client says its transfer is over before it exits (sh test, %d the
# download's index), for the clients that then wait out a closing period
# of up to three PTOs (RFC 9000 §10.2), 0.5-1.5 s a download on these
# paths: quicly's `cli` prints its stats on stderr just before it closes
# (src/cli.c at 45bf8a37), `ramp get --json` prints its record before its
# closing period. ngtcp2's client (`--exit-on-all-streams-close`) and curl
# exit at once. CLIENT_LINGER=1 waits for every client to exit, as before
# 2026-11-28.
DONE_SIGNAL = {
    "quicly": "grep -q packets-received: err.%d 2>/dev/null",
    "ramp": "[ -s out.%d ]",
}
CLIENT_LINGER = os.environ.get("CLIENT_LINGER", "0")
# How often the script looks, s.
DONE_POLL_S = "0.02"
# One download's limit inside the shell, s (`timeout`).
DOWNLOAD_TIMEOUT = 60
# One `ramp sim` run's limit, s.
RUN_TIMEOUT = 120
# Sides of a path run together only while fewer than this share of its
# together-runs had to be run again alone (the machine is too busy for
# them: running them again costs more than running alone).
TOGETHER_GIVE_UP_SHARE = 0.5
TOGETHER_GIVE_UP_MIN = 3

# The endpoints at SCHED_FIFO 10, as the shell's loop runs (and
# bench/shell/quic.sh runs its endpoints), so that other jobs on a shared
# machine do not delay them; RAMP_BENCH_REALTIME=0 turns it off.
RT = (["chrt", "-f", "10"] if os.environ.get("RAMP_BENCH_REALTIME", "1") != "0"
      and shutil.which("chrt") else [])


def say(*a):
    print(*a, file=sys.stderr, flush=True)


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def duration_us(s):
    """A Rust `Duration` Debug string (`12.5µs`, `1.2ms`, `3ns`) in µs."""
    m = re.fullmatch(r"([0-9.]+)(ns|µs|us|ms|s)", s)
    if not m:
        return None
    v = float(m.group(1))
    return v * {"ns": 1e-3, "µs": 1.0, "us": 1.0, "ms": 1e3, "s": 1e6}[m.group(2)]


def lateness(stderr):
    """The shell's downlink lateness: mean and max µs, packets over 1 ms."""
    for line in stderr.splitlines():
        m = re.search(r" down: .*lateness mean (\S+) max (\S+), (\d+) over 1 ms", line)
        if m:
            return duration_us(m.group(1)), duration_us(m.group(2)), int(m.group(3))
    return None, None, None



def flow_rows(flow_log):
    """The shell's flow records, each flow once."""
    out = []
    if not os.path.exists(flow_log):
        return out
    with open(flow_log) as f:
        for line in f:
            out.append(json.loads(line))
    return out


def port_of(addr):
    return int(addr.rsplit(":", 1)[1])


def drops(rec):
    return sum(rec["down"]["drops"].values()) + sum(rec["up"]["drops"].values())


def match_flows(downloads, flows):
    """Each download's flow: the downloads of one server port ran one
    after the other, so their flows to that port come in request order.
    A download takes the next flow to its port whose delivered bytes fit
    its size (at least the size, under 1.5 × the size + 100 kB: headers
    and retransmissions, not the next size up); flows that carried less
    (`ramp get` also sends a one-datagram flow) are passed over."""
    by_port = {}
    for r in flows:
        if r["request-us"] is None:
            continue
        by_port.setdefault((port_of(r["server"]), r["proto"]), []).append(r)
    for v in by_port.values():
        v.sort(key=lambda r: r["request-us"])
    got = []
    for d in downloads:
        q = by_port.get((d.port, d.proto), [])
        rec = None
        while q:
            r = q.pop(0)
            b = r["down"]["delivered-bytes"]
            if d.size <= b < 1.5 * d.size + 100000:
                rec = r
                break
        got.append(rec)
    return got


class Download:
    """One download of a run: side, stack, arm, size, the server's port
    and the transport the flow log sees."""

    def __init__(self, side, stack, arm, size, port, proto):
        self.side, self.stack, self.arm, self.size = side, stack, arm, size
        self.port, self.proto = port, proto


def client_cmd(stack, ramp, env, port, size, out):
    """The client command of a stack's download (sh text), stdout to out."""
    rt = " ".join(RT)
    if stack == "quicly":
        return "%s '%s' %s -O -p /%d $RAMP_SHELL_HOST %d >%s" % (
            rt, env["quicly"], env["quicly_client_flags"], size, port, out)
    if stack == "ngtcp2":
        return ("%s '%s' -q --no-pmtud --exit-on-all-streams-close $RAMP_SHELL_HOST %d "
                "https://$RAMP_SHELL_HOST:%d/%d >/dev/null") % (rt, env["ngtcp2_client"], port, port, size)
    if stack == "tcp":
        return "%s curl -sS -o /dev/null http://$RAMP_SHELL_HOST:%d/%d" % (rt, port, size)
    return "%s '%s' get https://$RAMP_SHELL_HOST:%d/bytes/%d --insecure --json >%s" % (
        rt, ramp, port, size, out)


def settle_s(path):
    """How long a run's script waits after one download before the next,
    s: on a path with a cellular element, the element's idle gap plus one
    RTT, so that every download starts on an idle link (the light
    schedule), as each `ramp sim` run does. Without it `ramp serve`'s
    reply to the client's CONNECTION_CLOSE (quinn sends one, as RFC 9000
    §10.2.2 allows; quicly's server does not), which reaches the link
    about half an RTT after the client says its transfer is over, and the
    next connection's handshake, which `ramp get` starts within
    milliseconds, kept the link's burst going from one download to the
    next, so the next download ran on the saturated schedule from its
    start: ramp-real's jumping arms were 16-18 % faster than the
    simulator at 1 MB in the 2026-11-28c grid (docs/interop.md, "The
    cellular path's idle gap"). The RTT is margin over the half RTT.
    Other paths have no state that idle time resets: no wait."""
    _, _, rtt, _, extra, _ = path
    return (CELLULAR_IDLE_RESET_MS + rtt) / 1000 if "--cellular" in extra else 0.0


class Unit:
    """One side's downloads of one run, in one `ramp shell`: a script runs
    them one after the other; the shell's flow log times each."""

    def __init__(self, ramp, env, path, side, downloads, tmp, run):
        self.side, self.downloads = side, downloads
        self.dir = os.path.join(tmp, "unit-%s" % side)
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        self.flow_log = os.path.join(self.dir, "flows.ndjson")
        script = os.path.join(self.dir, "run.sh")
        with open(script, "w") as f:
            f.write("cd '%s'\n" % self.dir)
            for i, d in enumerate(downloads):
                cmd = client_cmd(d.stack, ramp, env, d.port, d.size, "out.%d" % i)
                # (Not `run`: that is the run number the random paths'
                # seed is drawn from below.)
                line = "timeout %d %s 2>err.%d; echo $? >rc.%d" % (DOWNLOAD_TIMEOUT, cmd, i, i)
                done = DONE_SIGNAL.get(d.stack) if CLIENT_LINGER != "1" else None
                if done is None:
                    f.write(line + "\n")
                else:
                    # The next download starts once this one's client says
                    # its transfer is over (or it exited), while it waits
                    # out its closing period (RFC 9000 §10.2), which sends
                    # nothing more than a repeated CONNECTION_CLOSE.
                    f.write("(%s) &\n" % line)
                    f.write("while [ ! -e rc.%d ] && ! %s; do sleep %s; done\n"
                            % (i, done.replace("%d", str(i)), DONE_POLL_S))
                if i + 1 < len(downloads) and settle_s(path) > 0:
                    f.write("sleep %.3f\n" % settle_s(path))
            f.write("wait\n")
        name, rate, rtt, queue, extra, _ = path
        if name in RANDOM_PATHS:
            # Run r's shells draw the downlink the simulator draws with
            # seed r + 1 (ramp_link::downlink_seed: seed XOR 0x646f776e, as
            # bench/shell/quic.sh seeds it); the run's downloads follow
            # one another on that draw.
            extra = extra + ["--seed", str((run + 1) ^ 0x646F776E)]
        self.args = [ramp, "shell", "--rate", rate, "--rtt", "%dms" % rtt, "--queue",
                     "%dms" % queue, "--flow-log", self.flow_log] + extra + ["--", "sh", script]
        self.proc = None

    def start(self):
        self.started = time.time()
        self.proc = subprocess.Popen(self.args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     text=True)

    def finish(self):
        """The rows of the unit's downloads, once its shell has ended."""
        limit = (DOWNLOAD_TIMEOUT + 5) * len(self.downloads) + 30
        try:
            _, stderr = self.proc.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            _, stderr = self.proc.communicate()
        self.wall = time.time() - self.started
        late = lateness(stderr)
        recs = match_flows(self.downloads, flow_rows(self.flow_log))
        rows = []
        for i, (d, rec) in enumerate(zip(self.downloads, recs)):
            row = {"side": d.side, "arm": d.arm, "size": d.size, "late-mean-us": late[0],
                   "late-max-us": late[1], "late-over-1ms": late[2]}
            rc = self.read("rc.%d" % i)
            row["exit"] = int(rc) if rc and rc.strip().lstrip("-").isdigit() else None
            if rec and rec["transfer-us"] is not None and row["exit"] == 0 and self.proc.returncode == 0:
                row["ms"] = rec["transfer-us"] / 1000
                row["drops"] = drops(rec)
                row["ce"] = rec["down"]["ce"]
            else:
                row["error"] = ((self.read("err.%d" % i) or "") + (stderr or ""))[-300:]
            if d.stack == "ramp" and row["exit"] == 0:
                try:
                    own = json.loads((self.read("out.%d" % i) or "").splitlines()[0])
                    row["own-ttlb-ms"] = own.get("ttlb-us", 0) / 1000
                except (ValueError, IndexError):
                    pass
            rows.append(row)
        return rows

    def read(self, name):
        try:
            with open(os.path.join(self.dir, name)) as f:
                return f.read()
        except OSError:
            return None


def make_units(ramp, env, path, by_side, tmp, run, together):
    """A run's units: one shell per side when the sides run together (each
    its own link), else one shell for all sides' downloads one after the
    other (the servers' ports tell the sides' flows apart). One shell
    instead of one per side saves a shell's set-up and teardown (about
    0.4 s) and its last client's closing period (RFC 9000 §10.2, up to
    1.6 s with quicly's `cli`), which the shell waits for, per run."""
    if together:
        return [Unit(ramp, env, path, side, ds, tmp, run) for side, ds in by_side.items()]
    return [Unit(ramp, env, path, "all", [d for ds in by_side.values() for d in ds], tmp, run)]


def run_units(units, together):
    """Runs the units (all at once, or one after the other); their rows."""
    out = []
    if together:
        for u in units:
            u.start()
        for u in units:
            out += u.finish()
    else:
        for u in units:
            u.start()
            out += u.finish()
    return out


def seed_arms(ramp):
    """ramp_cc::spec::SEED_ARMS, as `ramp compare --list-arms` prints them."""
    p = subprocess.run([ramp, "compare", "--list-arms", "--arms", "seed"],
                       capture_output=True, text=True, check=True)
    return [tuple(line.split("\t", 1)) for line in p.stdout.splitlines() if line]



def with_option(spec, option):
    """`spec` with `option` (`key=value`) on its first part, where a
    loss-based spec's connection options go (docs/algorithms.md)."""
    first, plus, rest = spec.partition("+")
    first = first[:-1] + "," + option + ")" if first.endswith(")") else first + "(" + option + ")"
    return first + plus + rest


# The simulator's second side for quicly's arms: the same arm with quicly's
# rule for which ACKs grow the window (`cc_limited=quicly`, h2o/quicly
# 45bf8a37 lib/quicly.c `handle_ack_frame`), the reference quicly-real is
# compared with beside the seed arm as ramp runs it (RFC 9002 §7.8).
# SIM_CC_LIMITED=0 leaves the rule out; a seed arm that already names a
# `cc_limited` rule (ramp_cc::spec::SEED_ARMS with quicly's, production's)
# keeps its own.
SIM_QUICLY_SIDE = "ramp-sim-quicly"
# ramp-real's own simulator side: the arm in quinn's framing.
SIM_QUINN_SIDE = "ramp-sim-quinn"
# Each real stack's framing for its own simulator side (`[endpoint] mds`
# and `packet_overhead`): a full packet's UDP payload and the bytes of it
# that are not stream data. `ramp-sim` keeps the scenario's 1,200 and
# h2o's 52 (the seed experiment's server). Near an overflow edge the
# object's packet count decides the mode (docs/interop.md, "The object's
# packet count"), so each stack is compared with the simulator sending
# as many packets as it does. Measured, not fitted:
# - quicly's `cli` at 45bf8a37: 1,280-byte packets carrying 1,256 B of
#   stream data (its event log, `cli -e`; docs/interop.md);
# - `ramp serve` (quinn-proto 0.11.19): 1 MB went as 861 full 1,200-byte
#   datagrams and one of 956 B on an uncongested path (`ramp serve
#   --qlog`), about 1,160 B of data a packet: 40 B.
FRAMING = {"quicly": (1280, 24), "ramp": (1200, 40)}
# What each packet costs `ramp shell`'s links beyond its datagram: the
# IPv4 and UDP headers (RFC 791 §3.1: 20 B, RFC 768: 8 B), which the
# shell serialises and queues and the simulator's links do not unless
# told (`[path] header_bytes`). The own-framing sides model the shell;
# `ramp-sim` keeps the simulator's default (docs/interop.md, "Each
# stack's framing in the simulator").
SHELL_HEADER_BYTES = 28


# quicly's millisecond clock on its simulator side (docs/interop.md,
# "quicly's millisecond clock"): quicly reads time in whole milliseconds
# (h2o/quicly 45bf8a37 lib/defaults.c `default_now`), paces over the
# whole-millisecond smoothed RTT that gives (include/quicly/loss.h
# `quicly_rtt_update`, lib/quicly.c `calc_pacer_send_rate`;
# `pacing_rtt=ms`), and jumps once the caller's send buffer first fills,
# after the `cli`'s first call of 10 packets (lib/quicly.c `do_send`'s
# `try_jumpstart`, src/cli.c `MAX_BURST_PACKETS`; `jump_after=10`). Where a
# real connection starts within the millisecond varies from run to run, so
# the side draws its phase from each run's seed (`clock_phase = "seeded"`)
# and runs seeds 1..RUNS on every path. Its client's handshake processing
# is quicly's `cli`'s, measured at the link (`ramp shell --packet-log`: the
# server's flight delivered to the client's answer arriving): 0.30-0.41 ms,
# median 0.35 ms, over 15 handshakes at 100 Mbit/s, 30 ms (2026-11-28); it
# sets whether the handshake's RTT sample reads 30 or 31 ms there.
# SIM_QUICLY_CLOCK=0 leaves all of this out.
QUICLY_CLOCK_OPTIONS = ("pacing_rtt=ms", "jump_after=10")
QUICLY_CLOCK_ENDPOINT = 'client_processing = "0.35ms"\nclock_phase = "seeded"\n'


def quicly_clock():
    return os.environ.get("SIM_QUICLY_CLOCK", "1") != "0"


def sim_sides(spec, other):
    """The simulator's sides of an arm: (side, spec, framing, endpoint),
    framing None for the scenario's own, endpoint the side's extra
    `[endpoint]` keys (TOML)."""
    sides = [("ramp-sim", spec, None, "")]
    if "quicly" in other:
        q = spec
        if (os.environ.get("SIM_CC_LIMITED", "1") != "0"
                and "cc_limited=" not in spec.partition("+")[0]):
            q = with_option(spec, "cc_limited=quicly")
        endpoint = ""
        if quicly_clock():
            for o in QUICLY_CLOCK_OPTIONS:
                q = with_option(q, o)
            endpoint = QUICLY_CLOCK_ENDPOINT
        sides.append((SIM_QUICLY_SIDE, q, FRAMING["quicly"], endpoint))
    sides.append((SIM_QUINN_SIDE, spec, FRAMING["ramp"], ""))
    return sides


def sim_seeds(path_name, endpoint, runs):
    """The seeds a simulator side runs on a path: 1..runs where the path
    draws from the seed (its random elements) or the side does (its clock
    phase), else the one run seed 1 gives."""
    if path_name in RANDOM_PATHS or "clock_phase" in endpoint:
        return range(1, runs + 1)
    return [1]


def run_sim(ramp, path, spec, size, seed, tmp, framing=None, endpoint_extra=""):
    """One `ramp sim` run; `framing` (mds, packet overhead) or None for
    1,200-byte packets with the simulator's default overhead;
    `endpoint_extra` more `[endpoint]` keys."""
    name, rate, rtt, queue, extra, tables = path
    aqm = "dualpi2" if name in ECN_PATHS else "droptail"
    endpoint = "mds = 1200\n" if framing is None else "mds = %d\npacket_overhead = %d\n" % framing
    endpoint += endpoint_extra
    header = "" if framing is None else "header_bytes = %d\n" % SHELL_HEADER_BYTES
    toml = ('seed = %d\n[path]\nrate = "%s"\nrtt = "%dms"\nqueue = "%dms"\naqm = "%s"\n%s%s'
            '[endpoint]\n%sclient_closes = true\n') % (seed, rate, rtt, queue, aqm, header, tables,
                                                       endpoint)
    sc = os.path.join(tmp, "path.toml")
    with open(sc, "w") as f:
        f.write(toml)
    recs = os.path.join(tmp, "sim.ndjson")
    if os.path.exists(recs):
        os.unlink(recs)
    p = subprocess.run([ramp, "sim", "--scenario", sc, "--cc", spec, "--size", "%dB" % size,
                        "--records", recs], capture_output=True, text=True, timeout=RUN_TIMEOUT)
    if p.returncode != 0:
        return {"side": "ramp-sim", "error": p.stderr[-300:]}
    with open(recs) as f:
        r = json.loads(f.readline())
    # `ttlb-us`: the client's request to the last byte at the client, as
    # `ramp get` times it and the flow log measures it.
    return {"side": "ramp-sim", "ms": r["ttlb-us"] / 1000,
            "drops": sum(v for k, v in r.items() if k.startswith("path.drops-")),
            "ce": r.get("num-packets.acked-ecn-ce")}


class TcpHandler(http.server.BaseHTTPRequestHandler):
    """GET /N answers N bytes over a socket that asked for TCP_CONGESTION
    (the server's `cc`), so that the host's default does not decide."""

    protocol_version = "HTTP/1.1"

    def setup(self):
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, self.server.cc.encode())
        super().setup()

    def do_GET(self):
        try:
            n = int(self.path.lstrip("/"))
        except ValueError:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Length", str(n))
        self.end_headers()
        chunk = b"x" * 65536
        while n > 0:
            self.wfile.write(chunk[:n])
            n -= len(chunk)

    def log_message(self, *a):
        pass


def tcp_server(port, cc):
    """`run.py --tcp-server PORT CC`: the kernel-TCP side's HTTP server."""
    srv = http.server.ThreadingHTTPServer(("0.0.0.0", port), TcpHandler)
    srv.cc = cc
    srv.serve_forever()



def bound(port, proto):
    """Whether some socket on the host is bound to `port` (UDP) or listens
    on it (TCP), from /proc/net: a server is ready when its port is."""
    for table in (["/proc/net/udp", "/proc/net/udp6"] if proto == "udp"
                  else ["/proc/net/tcp", "/proc/net/tcp6"]):
        try:
            with open(table) as f:
                next(f)
                for line in f:
                    c = line.split()
                    if int(c[1].rsplit(":", 1)[1], 16) == port and (proto == "udp" or c[3] == "0A"):
                        return True
        except OSError:
            pass
    return False


class Servers:
    """Every stack's server for every arm of a path, each on its port,
    started together and stopped on exit."""

    def __init__(self, ramp, env, arms, tmp):
        """`arms`: (index, label, ramp spec, {stack: that stack's arm})."""
        cert, key = os.path.join(tmp, "cert.pem"), os.path.join(tmp, "key.pem")
        self.procs = []
        waits = []

        def start(name, port, proto, args):
            err = open(os.path.join(tmp, "%s-%d-server.err" % (name, port)), "w")
            self.procs.append(subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=err))
            err.close()
            waits.append((port, proto, self.procs[-1]))

        for i, _, spec, other in arms:
            for name, arg in other.items():
                port = PORT_BASE[name] + i
                if name == "quicly":
                    start(name, port, "udp", RT + [env["quicly"], "-c", cert, "-k", key, "-C",
                                                   "pico:30:p"] + arg + ["0.0.0.0", str(port)])
                elif name == "ngtcp2":
                    start(name, port, "udp", RT + [env["ngtcp2_server"], "-q", "--no-pmtud", "--cc", arg,
                                                   "-d", os.path.join(tmp, "htdocs"), "0.0.0.0",
                                                   str(port), key, cert])
                elif name == "tcp":
                    start(name, port, "tcp", RT + [sys.executable, os.path.abspath(__file__),
                                                   "--tcp-server", str(port), arg])
            port = PORT_BASE["ramp"] + i
            start("ramp", port, "udp", RT + [ramp, "serve", "--cc", spec, "--listen",
                                             "0.0.0.0:%d" % port, "--pmtud", "off"])
        deadline = time.time() + 20
        for port, proto, p in waits:
            while not bound(port, proto):
                if p.poll() is not None or time.time() > deadline:
                    raise RuntimeError("a server did not start: %s (see its .err in %s)" % (p.args, tmp))
                time.sleep(0.02)

    def stop(self):
        for p in self.procs:
            if p.poll() is None:
                p.send_signal(signal.SIGINT)
        for p in self.procs:
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def unimodal(rows):
    """Whether a side's runs are one mode: all within 1 % of their median,
    and all with drops or all without."""
    ms = [r["ms"] for r in rows if r.get("ms") is not None]
    if len(ms) < len(rows) or not ms:
        return False
    med = statistics.median(ms)
    return (max(ms) - min(ms)) <= 0.01 * med and len({bool(r.get("drops")) for r in rows}) == 1


def summary(xs):
    xs = sorted(x for x in xs if x is not None)
    if not xs:
        return None
    return statistics.median(xs), xs[0], xs[-1]


SIDE_ORDER = ["quicly-real", "ngtcp2-real", "tcp-real", "ramp-real", "ramp-sim", SIM_QUICLY_SIDE,
              SIM_QUINN_SIDE]
# The simulator's side each real side is also compared with, besides
# `ramp-sim` (the arm as ramp runs it, in h2o's framing): its own stack's
# framing (and for quicly its CC-limited rule).
OWN_SIM = {"quicly-real": SIM_QUICLY_SIDE, "ramp-real": SIM_QUINN_SIDE}


def is_sim(side):
    return side.startswith("ramp-sim")


def table(rows, arm_order):
    """Markdown: per path, size and arm, each side's median (range),
    median drops and share of runs without a drop; each side against
    the simulator."""
    cells = {}
    for r in rows:
        if r.get("ms") is None or r.get("superseded"):
            continue
        cells.setdefault((r["path"], r["size"], r["arm"]), {}).setdefault(r["side"], []).append(r)
    out = ["| path | size | arm | side | ms median (range) | runs | drops (median) | no-drop % | vs sim | vs own sim | late > 1 ms (pkts, max run) |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    order = {p[0]: i for i, p in enumerate(PATHS)}
    arms = {a: i for i, a in enumerate(arm_order)}
    for (path, size, arm) in sorted(cells, key=lambda k: (order.get(k[0], 99), k[1], arms.get(k[2], 99))):
        c = cells[(path, size, arm)]
        sim = summary([r["ms"] for r in c.get("ramp-sim", [])])
        for side in SIDE_ORDER:
            rs = c.get(side)
            if not rs:
                continue
            s = summary([r["ms"] for r in rs])
            d = statistics.median([r.get("drops") or 0 for r in rs])
            nd = 100.0 * sum(1 for r in rs if not r.get("drops")) / len(rs)
            late = [r.get("late-over-1ms") or 0 for r in rs]
            vs = "%+.1f %%" % ((s[0] / sim[0] - 1) * 100) if sim and not is_sim(side) else ""
            own = summary([r["ms"] for r in c.get(OWN_SIM.get(side), [])])
            vs_own = "%+.1f %%" % ((s[0] / own[0] - 1) * 100) if own else ""
            rng = "%.0f" % s[0] if s[1] == s[2] else "%.0f (%.0f–%.0f)" % s
            out.append("| %s | %g MB | %s | %s | %s | %d | %g | %.0f | %s | %s | %s |" % (
                path, size / 1e6, arm, side, rng, len(rs), d, nd, vs, vs_own,
                max(late) if not is_sim(side) else ""))
    return "\n".join(out)


def agreement(rows):
    """Markdown: per side, how many cells lie within 5 % of the simulator's
    median, and the cells outside; the cells where a side's no-drop share
    is strictly between 0 and 100 % (multimodal) with every side's share."""
    cells = {}
    for r in rows:
        if r.get("ms") is None or r.get("superseded"):
            continue
        cells.setdefault((r["path"], r["size"], r["arm"]), {}).setdefault(r["side"], []).append(r)
    within, outside, modal = {}, [], []
    for key in sorted(cells, key=lambda k: ([p[0] for p in PATHS].index(k[0]) if k[0] in [p[0] for p in PATHS] else 99, k[1], k[2])):
        c = cells[key]
        shares = {}
        for side, rs in c.items():
            shares[side] = 100.0 * sum(1 for r in rs if not r.get("drops")) / len(rs)
            if is_sim(side):
                continue
            med = summary([r["ms"] for r in rs])[0]
            refs = [("ramp-sim", side)]
            if OWN_SIM.get(side) in c:
                refs.append((OWN_SIM[side], "%s vs %s" % (side, OWN_SIM[side])))
            for ref, label in refs:
                r_ms = summary([r["ms"] for r in c.get(ref, [])])
                if not r_ms:
                    continue
                d = (med / r_ms[0] - 1) * 100
                n = within.setdefault(label, [0, 0])
                n[1] += 1
                if abs(d) <= 5:
                    n[0] += 1
                else:
                    outside.append("%s %g MB %s: %s %+.1f %%" % (key[0], key[1] / 1e6, key[2], label, d))
        if any(0 < v < 100 for v in shares.values()):
            modal.append("%s %g MB %s: no-drop share %s" % (
                key[0], key[1] / 1e6, key[2],
                ", ".join("%s %.0f %%" % (k, shares[k]) for k in SIDE_ORDER if k in shares)))
    out = ["Within 5 % of `ramp sim` (median): " + "; ".join(
        "%s %d of %d" % (k, v[0], v[1]) for k, v in sorted(
            within.items(), key=lambda kv: (SIDE_ORDER.index(kv[0].split(" ")[0]), kv[0]))), ""]
    out += ["Outside:"] + ["- " + o for o in outside] + ["", "Multimodal cells:"] + ["- " + m for m in modal]
    return "\n".join(out)


def available(env):
    """The stacks that can run here, and a message for each that cannot."""
    want = os.environ.get("STACKS", "quicly ngtcp2 tcp").split()
    have, why = [], []
    for s in want:
        if s == "quicly" and not (env["quicly"] and os.access(env["quicly"], os.X_OK)):
            why.append("quicly: skipped: set QUICLY_CLI to a quicly `cli` built outside this "
                       "repository (docs/interop.md names the commit)")
        elif s == "ngtcp2" and not (shutil.which(env["ngtcp2_server"]) and shutil.which(env["ngtcp2_client"])):
            why.append("ngtcp2: skipped: no %s/%s (Debian: apt install ngtcp2-server ngtcp2-client)"
                       % (env["ngtcp2_server"], env["ngtcp2_client"]))
        elif s == "tcp" and not shutil.which("curl"):
            why.append("tcp: skipped: no curl")
        elif s not in ("quicly", "ngtcp2", "tcp"):
            why.append("%s: unknown stack (quicly, ngtcp2, tcp)" % s)
        else:
            have.append(s)
    return have, why



def stack_env():
    """The other stacks' binaries and the quicly client's flags, from the
    environment (docs/interop.md)."""
    return {"quicly": os.environ.get("QUICLY_CLI", ""),
            "ngtcp2_server": os.environ.get("NGTCP2_SERVER", "gtlsserver"),
            "ngtcp2_client": os.environ.get("NGTCP2_CLIENT", "gtlsclient"),
            "quicly_client_flags": os.environ.get("QUICLY_CLIENT_FLAGS", "-M 16777216 -m 33554432")}


def chosen_arms(ramp, stacks):
    """The arms to run (`ARMS`, default every arm an available stack runs),
    each (index, label, ramp's spec, {stack: that stack's arm})."""
    # Every arm: label, ramp's spec, {stack: that stack's arm}.
    arms = [(label, spec, {"quicly": QUICLY_ARM_FLAGS[label]}) for label, spec in seed_arms(ramp)]
    arms += OTHER_ARMS
    arms = [(l, sp, {k: v for k, v in st.items() if k in stacks}) for l, sp, st in arms]
    arm_names = os.environ.get("ARMS", "").split() or [a[0] for a in arms]
    # With its index (the servers' ports).
    arms = [(i,) + a for i, a in enumerate(a for a in arms if a[0] in arm_names and a[2])]
    return arms


def scratch_dir(sizes):
    """A temporary directory with the servers' certificate and key and one
    file per object size (htdocs/SIZE)."""
    tmp = tempfile.mkdtemp(prefix="ramp-interop-tmp.")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-nodes", "-keyout", os.path.join(tmp, "key.pem"), "-out", os.path.join(tmp, "cert.pem"),
                    "-days", "1", "-subj", "/CN=localhost"], check=True, capture_output=True)
    os.makedirs(os.path.join(tmp, "htdocs"))
    for size in sizes:
        with open(os.path.join(tmp, "htdocs", str(size)), "wb") as f:
            f.write(b"x" * size)
    return tmp


def run_meta(env, stacks, why, runs, min_runs, parallel, arms):
    """What meta.json says of the run before it starts."""
    return {"quicly-client-flags": env["quicly_client_flags"], "stacks": stacks, "skipped": why,
            "client-linger": CLIENT_LINGER == "1",
            "endpoints": " ".join(RT) or "normal priority",
            "started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "load-start": loadavg(),
            "cores": os.cpu_count(), "runs": runs, "min-runs": min_runs, "parallel": parallel,
            "arms": {a[1]: {"ramp": a[2], "other": a[3]} for a in arms},
            "quicly-cli": os.path.basename(env["quicly"]) if "quicly" in stacks else None,
            "ngtcp2": subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "ngtcp2-server"],
                                     capture_output=True, text=True).stdout or None,
            "ramp-commit": subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True,
                                          text=True).stdout.strip()}


def write_results(out_dir, meta, rows, arms, started, reruns, phases, per_path):
    """meta.json (with the run's times) and table.md, and both on stdout."""
    phases = {k: (round(v, 1) if isinstance(v, float) else v) for k, v in phases.items()}
    meta.update({"elapsed-s": round(time.time() - started), "load-end": loadavg(),
                 "reruns-alone": reruns, "phases": phases, "per-path-s": per_path})
    with open(os.path.join(out_dir, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    md = table(rows, [a[1] for a in arms]) + "\n\n" + agreement(rows)
    with open(os.path.join(out_dir, "table.md"), "w") as f:
        f.write(md + "\n")
    say("time: %d s in all; %s" % (meta["elapsed-s"], json.dumps(phases)))
    print(json.dumps(meta))
    print(md)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--tcp-server":
        tcp_server(int(sys.argv[2]), sys.argv[3])
        return 0

    # SIGTERM (and SIGINT, which a background job ignores) end the run
    # through the cleanup below.
    def stop(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    env = stack_env()
    stacks, why = available(env)
    for w in why:
        print("bench/interop: " + w)
    if not stacks:
        print("bench/interop: skipped: no other stack to run")
        return 0
    if os.geteuid() != 0:
        print("bench/interop: skipped: ramp shell needs root (CAP_NET_ADMIN)")
        return 0
    # Absolute: each run's script runs in its own directory.
    ramp = os.path.abspath(os.environ.get("RAMP", "target/release/ramp"))
    runs = int(os.environ.get("RUNS", "10"))
    min_runs = min(runs, int(os.environ.get("MIN_RUNS", "3")))
    parallel = os.environ.get("PARALLEL", "auto")
    names = os.environ.get("PATHS", "").split() or [p[0] for p in PATHS]
    sizes = [int(s) for s in os.environ.get("SIZES", "1000000 3000000").split()]
    arms = chosen_arms(ramp, stacks)
    out_dir = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="ramp-interop.")
    os.makedirs(out_dir, exist_ok=True)
    tmp = scratch_dir(sizes)
    rows_path = os.path.join(out_dir, "runs.ndjson")
    rows = []
    started = time.time()
    meta = run_meta(env, stacks, why, runs, min_runs, parallel, arms)
    servers = None
    # Seconds per phase, summed over paths (docs/interop.md, "Where the
    # time goes"): servers' start and stop, shells (of which: transfers,
    # by the flow log), the reruns alone after a late together-run, sims.
    phases = {"servers-s": 0.0, "shells-s": 0.0, "transfers-s": 0.0, "reruns-alone-s": 0.0,
              "sims-s": 0.0, "shells": 0, "downloads": 0}
    per_path = {}
    reruns = 0

    def emit(out, row):
        rows.append(row)
        out.write(json.dumps(row) + "\n")
        out.flush()

    try:
        with open(rows_path, "w") as out:
            for path in [p for p in PATHS if p[0] in names]:
                t_path = time.time()
                mbit = float(path[1].rstrip("mbit"))
                together = parallel == "all" or (
                    parallel == "auto" and mbit <= PARALLEL_MAX_MBIT
                    and (os.cpu_count() or 1) >= PARALLEL_MIN_CORES)
                path_arms = []
                for i, arm, spec, other in arms:
                    if path[0] in ECN_PATHS and "quicly" in other:
                        # quicly sends ECT(0) by default (`--disable-ecn`
                        # turns it off): the seed arms do too on these paths.
                        spec = with_option(spec, "ecn=ect0")
                    path_arms.append((i, arm, spec, other))
                t0 = time.time()
                servers = Servers(ramp, env, path_arms, tmp)
                phases["servers-s"] += time.time() - t0
                # The open cells (arm, size) and their rows so far.
                done = {(a[1], size): [] for a in path_arms for size in sizes}
                tried_together = superseded = 0
                for run in range(runs):
                    by_side = {}
                    for i, arm, _, other in path_arms:
                        for size in sizes:
                            if done[(arm, size)] is None:
                                continue
                            for k in list(other) + ["ramp"]:
                                side = "%s-real" % k
                                by_side.setdefault(side, []).append(Download(
                                    side, k, arm, size, PORT_BASE[k] + i, "tcp" if k == "tcp" else "udp"))
                    if not by_side:
                        break
                    mode = "together" if together and len(by_side) > 1 else "alone"
                    units = make_units(ramp, env, path, by_side, tmp, run, mode == "together")
                    t0 = time.time()
                    got = run_units(units, mode == "together")
                    phases["shells-s"] += time.time() - t0
                    phases["shells"] += len(units)
                    phases["downloads"] += len(got)
                    phases["transfers-s"] += sum(r.get("ms") or 0 for r in got) / 1000
                    if mode == "together":
                        tried_together += 1
                    if mode == "together" and any(r.get("late-over-1ms") for r in got):
                        # Concurrency must not buy a wrong number: the
                        # run again, one side after the other.
                        for r in got:
                            r.update(path=path[0], run=run, mode=mode, superseded=True)
                            emit(out, r)
                        units = make_units(ramp, env, path, by_side, tmp, run, False)
                        t0 = time.time()
                        got = run_units(units, False)
                        phases["reruns-alone-s"] += time.time() - t0
                        phases["shells"] += len(units)
                        phases["downloads"] += len(got)
                        phases["transfers-s"] += sum(r.get("ms") or 0 for r in got) / 1000
                        mode = "alone"
                        reruns += 1
                        superseded += 1
                        if (tried_together >= TOGETHER_GIVE_UP_MIN
                                and superseded > TOGETHER_GIVE_UP_SHARE * tried_together):
                            say("%s: %d of %d together-runs had a late packet: alone from here"
                                % (path[0], superseded, tried_together))
                            together = False
                    for r in got:
                        r.update(path=path[0], run=run, mode=mode)
                        emit(out, r)
                        done[(r["arm"], r["size"])].append(r)
                    for (arm, size), rs in done.items():
                        if (rs is not None and run + 1 >= min_runs and path[0] not in RANDOM_PATHS
                                and all(unimodal([r for r in rs if r["side"] == s])
                                        for s in {r["side"] for r in rs})):
                            done[(arm, size)] = None
                t0 = time.time()
                servers.stop()
                servers = None
                phases["servers-s"] += time.time() - t0
                t0 = time.time()
                for _, arm, spec, other in path_arms:
                    for side, sim_spec, framing, ep in sim_sides(spec, other):
                        for size in sizes:
                            for seed in sim_seeds(path[0], ep, runs):
                                row = run_sim(ramp, path, sim_spec, size, seed, tmp, framing, ep)
                                row.update(side=side, spec=sim_spec, path=path[0], arm=arm,
                                           size=size, run=seed)
                                emit(out, row)
                phases["sims-s"] += time.time() - t0
                per_path[path[0]] = round(time.time() - t_path, 1)
                say("%s done at %.0f s (%.0f s), load %s" % (
                    path[0], time.time() - started, per_path[path[0]], loadavg()))
    finally:
        if servers:
            servers.stop()
        subprocess.run([ramp, "shell", "--cleanup"], capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)
    write_results(out_dir, meta, rows, arms, started, reruns, phases, per_path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
