#!/usr/bin/env python3
"""The data sender's receive-path delay and ACK batching, from real mode.

Reads the stderr of `real_vs_sim --trace` (one `ack t=… wall-us=…` line per
ACK frame the real server's controller processed, and one `run … relay-log=…
relay-epoch-us=…` line per download) and each run's relay log, whose
`"dir":"up","ev":"deliver"` lines are the instants the relay handed a
client datagram to the server's socket. Both clocks are the process's
(`wall-us`, and the relay's epoch on the same origin).

A wake-up is the set of ACK frames processed with one controller time `t`;
its time is the wall clock at its first frame. Each client datagram
but the first (the client's Initial, which carries no ACK frame) is
assigned to the first wake-up at or after its arrival. Printed:

- per datagram: the receive-path delay (wake-up time - arrival), quantiles;
- per wake-up: the delay of its first datagram (the host's wake-up latency,
  what the simulator's model draws), and how many datagrams it took;
- the frames-per-timestamp histogram (the earlier, processing-only view).

Usage: bench/real/ack-batching.py trace.txt [--json OUT]
"""
import json
import re
import sys
from bisect import bisect_left


TABLE_PS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 0.999, 1.0)


def quantiles(xs, qs=(0.1, 0.25, 0.5, 0.75, 0.9, 0.99)):
    xs = sorted(xs)
    if not xs:
        return {}
    out = {}
    for q in qs:
        # type 7
        h = (len(xs) - 1) * q
        lo = int(h)
        hi = min(lo + 1, len(xs) - 1)
        out[q] = xs[lo] + (h - lo) * (xs[hi] - xs[lo])
    return out


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    json_out = None
    if "--json" in args:
        i = args.index("--json")
        json_out = args[i + 1]
        del args[i : i + 2]
    runs = []
    run_re = re.compile(r"^run .*relay-log=(\S+) relay-epoch-us=([\d.]+)")
    ack_re = re.compile(r"^ack t=([\d.]+)ms wall-us=([\d.]+)")
    with open(args[0]) as f:
        for line in f:
            m = run_re.match(line)
            if m:
                runs.append({"log": m.group(1), "epoch": float(m.group(2)), "acks": []})
                continue
            m = ack_re.match(line)
            if m and runs:
                runs[-1]["acks"].append((float(m.group(1)), float(m.group(2))))
    per_datagram = []
    first_delay = []
    batch_sizes = []
    frames_per_t = {}
    for r in runs:
        arrivals = []
        with open(r["log"]) as f:
            for line in f:
                e = json.loads(line)
                if e.get("dir") == "up" and e.get("ev") == "deliver":
                    arrivals.append(r["epoch"] + e["t-us"])
        arrivals.sort()
        # The client's first datagram is its Initial: the server has sent
        # nothing yet, so it carries no ACK frame, and the first wake-up
        # that processes one comes a round trip later. Joined to that
        # wake-up it would read as a latency of one RTT (31 ms on
        # 100m-30ms, once per run), which no receive path causes.
        arrivals = arrivals[1:]
        wakes = []  # (wall of first frame, frames)
        last_t = None
        for t, wall in r["acks"]:
            if t == last_t:
                wakes[-1][1] += 1
            else:
                wakes.append([wall, 1])
                last_t = t
        for _, n in wakes:
            frames_per_t[n] = frames_per_t.get(n, 0) + 1
        times = [w for w, _ in wakes]
        groups = {}
        for a in arrivals:
            i = bisect_left(times, a)
            if i == len(times):
                continue
            per_datagram.append((times[i] - a) / 1000.0)
            groups.setdefault(i, []).append(a)
        for i, arr in groups.items():
            first_delay.append((times[i] - arr[0]) / 1000.0)
            batch_sizes.append(len(arr))
    n_wakes = sum(frames_per_t.values())
    n_frames = sum(k * v for k, v in frames_per_t.items())
    res = {
        "runs": len(runs),
        "datagrams": len(per_datagram),
        "wakeups_with_arrivals": len(first_delay),
        "ack_frames": n_frames,
        "ack_timestamps": n_wakes,
        "delay_ms_per_datagram": quantiles(per_datagram),
        "wakeup_latency_ms": quantiles(first_delay),
        "wakeup_latency_ms_sorted_sample": sorted(first_delay),
        # The simulator's table (ramp_sim::WakeupLatency): (p, µs).
        "wakeup_table_us": [
            (p, round(v * 1000))
            for p, v in quantiles(first_delay, TABLE_PS).items()
        ],
        "datagrams_per_wakeup": {
            k: batch_sizes.count(k) for k in sorted(set(batch_sizes))
        },
        "frames_per_timestamp": dict(sorted(frames_per_t.items())),
    }
    show = {k: v for k, v in res.items() if k != "wakeup_latency_ms_sorted_sample"}
    print(json.dumps(show, indent=1, default=str))
    if json_out:
        with open(json_out, "w") as f:
            json.dump(res, f)


if __name__ == "__main__":
    main()
