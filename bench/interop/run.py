#!/usr/bin/env python3
"""quicly's own client and server beside ramp's real stack and `ramp sim`,
arm for arm, through `ramp shell` (docs/interop.md).

For every path of the grid, every seed arm and every size, RUNS downloads
with quicly's `cli` (server on the host, client inside `ramp shell`) and as
many with `ramp serve` / `ramp get`, paired run by run so a change in the
machine's load falls on both; every download is timed from the link by the
shell's flow log (`--flow-log`: request's first packet in to the last data
packet out), the one clock both stacks share (quicly's `cli` reports no
timing). The same cells on `ramp sim` (one run per seed; seeds 1..RUNS on
paths with random elements, else one). Writes the runs (NDJSON) and the
tables (Markdown) to OUT_DIR.

Usage: sudo QUICLY_CLI=/path/to/quicly/cli bench/interop/run.py [OUT_DIR]
  QUICLY_CLI   quicly's `cli` test program, built outside this repository
               (docs/interop.md names the commit); unset or missing: the
               benchmark says so and exits 0, so CI passes without it
  RAMP         ramp binary (default target/release/ramp)
  RUNS=10      downloads per cell and side
  PATHS=...    space-separated path names (default: the whole grid)
  SIZES="1000000 3000000"
  ARMS=...     arm names (default: the four seed arms)
  QUICLY_CLIENT_FLAGS="-M 16777216 -m 33554432"
               quicly's client's stream and connection flow-control
               windows (its defaults, 1 MB and 16 MB, hold a 3 MB response
               back at 100 Mbit/s: docs/interop.md)
  RAMP_IW=37   the seed arms' IW on ramp's side, packets of 1200 bytes
               (37 x 1200 = 44,400 B, jump 88,800 B, against quicly's
               30 x 1472 = 44,160 B and 60 x 1472 = 88,320 B; 30 gives
               ramp's own 36,000 B)
Needs root (ramp shell). Cleans up every server, shell and namespace it
started, also on Ctrl-C.
"""

import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

# The grid of paths: name, rate, RTT ms, queue ms, extra `ramp shell`
# flags, extra simulator TOML (path tables), quicly ECN on.
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
ECN_PATHS = {"100m-30ms-dualpi2"}

# The seed arms: quicly's server flags (the experiment's `pico` at IW 30
# with pacing; jump of 60 packets; Rapid Start) and ramp's spec
# (ramp_cc::spec::SEED_ARMS, which names quicly's pacer).
BASE = "newreno(iw=30,ca_gain=2,pacer=quicly,beta=0.7,ss_beta=0.5,growth=pico)"
RS = "rapidstart(jump_floor=on,thresh_mult=1.09375,rtt_floor=slots,k=11/18,thresh=max,clock=ms,off_below_ms=4)"
RS_NJ = "rapidstart(jump=off,jump_floor=on,thresh_mult=1.09375,rtt_floor=slots,k=11/18,thresh=max,clock=ms,off_below_ms=4)"
ARMS = [
    ("baseline", [], BASE),
    ("jumpstart", ["--jumpstart-default", "60"], BASE + "+jumpstart(retreat_beta=quicly)"),
    ("rapid-no-jump", ["--rapid-start"], BASE + "+" + RS_NJ),
    ("rapidstart", ["--rapid-start", "--jumpstart-default", "60"], BASE + "+" + RS),
]

QUICLY_PORT = 47501
RAMP_PORT = 47502
RUN_TIMEOUT = 120

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


def flow_of(flow_log, port):
    """The record of the flow to `port` in a shell's flow log."""
    best = None
    with open(flow_log) as f:
        for line in f:
            r = json.loads(line)
            if r["server"].endswith(":%d" % port) and r["proto"] == "udp":
                if best is None or r["down"]["bytes"] > best["down"]["bytes"]:
                    best = r
    return best


def shell(ramp, path, cmd, tmp, run):
    """One download in a fresh `ramp shell`; its flow log and stderr. On
    paths with random elements run `r` draws the downlink the simulator
    draws with seed r + 1 (ramp_link::downlink_seed: seed XOR 0x646f776e,
    as bench/shell/quic.sh seeds it)."""
    name, rate, rtt, queue, extra, _ = path
    if name in RANDOM_PATHS:
        extra = extra + ["--seed", str((run + 1) ^ 0x646F776E)]
    fl = os.path.join(tmp, "flows.ndjson")
    if os.path.exists(fl):
        os.unlink(fl)
    args = [ramp, "shell", "--rate", rate, "--rtt", "%dms" % rtt, "--queue", "%dms" % queue,
            "--flow-log", fl] + extra + ["--", "sh", "-c", cmd]
    p = subprocess.run(args, capture_output=True, text=True, timeout=RUN_TIMEOUT)
    return p, fl


def drops(rec):
    return sum(rec["down"]["drops"].values()) + sum(rec["up"]["drops"].values())


def run_real(ramp, cli, path, size, tmp, run):
    """One quicly download and one ramp download; two result dicts."""
    out = []
    rt = " ".join(RT)
    qflags = os.environ.get("QUICLY_CLIENT_FLAGS", "-M 16777216 -m 33554432")
    q_cmd = "exec " + rt + " '%s' %s -O -p /%d $RAMP_SHELL_HOST %d" % (cli, qflags, size, QUICLY_PORT)
    r_cmd = "exec " + rt + " '%s' get https://$RAMP_SHELL_HOST:%d/bytes/%d --insecure --json" % (ramp, RAMP_PORT, size)
    for side, cmd, port in (("quicly-real", q_cmd, QUICLY_PORT), ("ramp-real", r_cmd, RAMP_PORT)):
        p, fl = shell(ramp, path, cmd, tmp, run)
        rec = flow_of(fl, port) if os.path.exists(fl) else None
        late = lateness(p.stderr)
        row = {"side": side, "exit": p.returncode, "late-mean-us": late[0], "late-max-us": late[1],
               "late-over-1ms": late[2]}
        if rec and rec["transfer-us"] is not None and p.returncode == 0:
            row["ms"] = rec["transfer-us"] / 1000
            row["drops"] = drops(rec)
            row["ce"] = rec["down"]["ce"]
        else:
            row["error"] = (p.stderr or "")[-300:]
        if side == "ramp-real" and p.returncode == 0:
            try:
                own = json.loads(p.stdout.splitlines()[0])
                row["own-ttlb-ms"] = own.get("ttlb-us", 0) / 1000
            except (ValueError, IndexError):
                pass
        out.append(row)
    return out


def run_sim(ramp, path, spec, size, seed, tmp):
    name, rate, rtt, queue, extra, tables = path
    aqm = "dualpi2" if name in ECN_PATHS else "droptail"
    ecn = ""
    toml = ('seed = %d\n[path]\nrate = "%s"\nrtt = "%dms"\nqueue = "%dms"\naqm = "%s"\n%s'
            '[endpoint]\nmds = 1200\nclient_closes = true\n%s') % (seed, rate, rtt, queue, aqm, tables, ecn)
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


class Servers:
    """quicly's server and `ramp serve` for one arm, stopped on exit."""

    def __init__(self, ramp, cli, qflags, spec, tmp, events):
        cert, key = os.path.join(tmp, "cert.pem"), os.path.join(tmp, "key.pem")
        qargs = [cli, "-c", cert, "-k", key, "-C", "pico:30:p"] + qflags
        if events:
            qargs += ["-e", events]
        self.q = subprocess.Popen(RT + qargs + ["0.0.0.0", str(QUICLY_PORT)], stdout=subprocess.DEVNULL,
                                  stderr=open(os.path.join(tmp, "quicly-server.err"), "w"))
        self.r = subprocess.Popen(RT + [ramp, "serve", "--cc", spec, "--listen", "0.0.0.0:%d" % RAMP_PORT,
                                   "--pmtud", "off"], stdout=subprocess.DEVNULL,
                                  stderr=open(os.path.join(tmp, "ramp-serve.err"), "w"))
        time.sleep(0.7)

    def stop(self):
        for p in (self.q, self.r):
            if p.poll() is None:
                p.send_signal(signal.SIGINT)
                try:
                    p.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()


def summary(xs):
    xs = sorted(x for x in xs if x is not None)
    if not xs:
        return None
    return statistics.median(xs), xs[0], xs[-1]


def table(rows, runs):
    """Markdown: per path, size and arm, each side's median (range),
    median drops and share of runs without a drop; the differences."""
    cells = {}
    for r in rows:
        if "ms" not in r or r["ms"] is None:
            continue
        cells.setdefault((r["path"], r["size"], r["arm"]), {}).setdefault(r["side"], []).append(r)
    out = ["| path | size | arm | quicly real ms (range) | drops | no-drop % | ramp real ms (range) | drops | no-drop % | ramp sim ms | sim drops | quicly vs sim | ramp vs sim | late > 1 ms (pkts, max run) |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    order = {p[0]: i for i, p in enumerate(PATHS)}
    arms = {a[0]: i for i, a in enumerate(ARMS)}
    for (path, size, arm) in sorted(cells, key=lambda k: (order.get(k[0], 99), k[1], arms.get(k[2], 9))):
        c = cells[(path, size, arm)]

        def side(name):
            rs = c.get(name, [])
            s = summary([r["ms"] for r in rs])
            if s is None:
                return None, "–", "–", "–"
            d = statistics.median([r.get("drops") or 0 for r in rs])
            nd = 100.0 * sum(1 for r in rs if not r.get("drops")) / len(rs)
            return s[0], "%.0f (%.0f–%.0f) n=%d" % (s[0], s[1], s[2], len(rs)), "%g" % d, "%.0f" % nd

        qm, qs, qd, qn = side("quicly-real")
        rm, rs_, rd, rn = side("ramp-real")
        sm, ss, sd, _ = side("ramp-sim")
        late = [r.get("late-over-1ms") or 0 for n in ("quicly-real", "ramp-real") for r in c.get(n, [])]
        diff = lambda a, b: "%+.1f %%" % ((a / b - 1) * 100) if a and b else "–"
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            path, "%g MB" % (size / 1e6), arm, qs, qd, qn, rs_, rd, rn,
            "%.0f" % sm if sm else "–", sd, diff(qm, sm), diff(rm, sm), max(late) if late else "–"))
    return "\n".join(out)


def main():
    # SIGTERM (and SIGINT, which a background job ignores) end the run
    # through the cleanup below.
    def stop(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    cli = os.environ.get("QUICLY_CLI", "")
    if not cli or not os.access(cli, os.X_OK):
        print("bench/interop: skipped: set QUICLY_CLI to a quicly `cli` built outside this "
              "repository (docs/interop.md names the commit)")
        return 0
    if os.geteuid() != 0:
        print("bench/interop: skipped: ramp shell needs root (CAP_NET_ADMIN)")
        return 0
    ramp = os.environ.get("RAMP", "target/release/ramp")
    runs = int(os.environ.get("RUNS", "10"))
    names = os.environ.get("PATHS", "").split() or [p[0] for p in PATHS]
    sizes = [int(s) for s in os.environ.get("SIZES", "1000000 3000000").split()]
    arm_names = os.environ.get("ARMS", "").split() or [a[0] for a in ARMS]
    iw = int(os.environ.get("RAMP_IW", "37"))
    out_dir = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="ramp-interop.")
    os.makedirs(out_dir, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="ramp-interop-tmp.")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-nodes", "-keyout", os.path.join(tmp, "key.pem"), "-out", os.path.join(tmp, "cert.pem"),
                    "-days", "1", "-subj", "/CN=localhost"], check=True, capture_output=True)
    rows_path = os.path.join(out_dir, "runs.ndjson")
    rows = []
    started = time.time()
    meta = {"quicly-client-flags": os.environ.get("QUICLY_CLIENT_FLAGS", "-M 16777216 -m 33554432"),
            "endpoints": " ".join(RT) or "normal priority", "started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "load-start": loadavg(),
            "cores": os.cpu_count(), "runs": runs, "ramp-iw": iw, "quicly-cli": os.path.basename(cli),
            "ramp-commit": subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True,
                                          text=True).stdout.strip()}
    servers = None
    try:
        with open(rows_path, "w") as out:
            for path in [p for p in PATHS if p[0] in names]:
                for arm, qflags, spec in [a for a in ARMS if a[0] in arm_names]:
                    spec = spec.replace("iw=30", "iw=%d" % iw)
                    if path[0] in ECN_PATHS:
                        # quicly sends ECT(0) by default (`--disable-ecn`
                        # turns it off): the arm does too on these paths.
                        spec = spec.replace("growth=pico", "growth=pico,ecn=ect0")
                    servers = Servers(ramp, cli, qflags, spec, tmp, None)
                    for run in range(runs):
                        for size in sizes:
                            for row in run_real(ramp, cli, path, size, tmp, run):
                                row.update(path=path[0], arm=arm, size=size, run=run)
                                rows.append(row)
                                out.write(json.dumps(row) + "\n")
                                out.flush()
                    servers.stop()
                    servers = None
                    seeds = range(1, runs + 1) if path[0] in RANDOM_PATHS else [1]
                    for size in sizes:
                        for seed in seeds:
                            row = run_sim(ramp, path, spec, size, seed, tmp)
                            row.update(path=path[0], arm=arm, size=size, run=seed)
                            rows.append(row)
                            out.write(json.dumps(row) + "\n")
                    say("%s %s done at %.0f s, load %s" % (path[0], arm, time.time() - started, loadavg()))
    finally:
        if servers:
            servers.stop()
        subprocess.run([ramp, "shell", "--cleanup"], capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)
    meta.update({"elapsed-s": round(time.time() - started), "load-end": loadavg()})
    with open(os.path.join(out_dir, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    md = table(rows, runs)
    with open(os.path.join(out_dir, "table.md"), "w") as f:
        f.write(md + "\n")
    print(json.dumps(meta))
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
