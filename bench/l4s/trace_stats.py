#!/usr/bin/env python3
"""Statistics of one ramp trace (docs/formats.md) over a time window.

    trace_stats.py TRACE.ndjson|- FROM_S TO_S [FROM_S TO_S ...]

Prints one JSON object per window: the flow's share of the link (bytes acknowledged
in the window over rate x window, the rate from the trace header), the
bottleneck queue delay P50/P99 at the flow's packet arrivals in the window
(type-7 percentiles, docs/charts.md), the mean cwnd and the number of
packets lost in the window. Used by bench/l4s/*.sh.
"""
import json
import sys


def quantile(xs, p):
    if not xs:
        return float("nan")
    xs = sorted(xs)
    h = (len(xs) - 1) * p
    lo = int(h)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (h - lo) * (xs[hi] - xs[lo])


class Window:
    def __init__(self, t0, t1):
        self.t0, self.t1 = t0 * 1e6, t1 * 1e6
        self.acked = 0
        self.lost = 0
        self.qd = []
        self.cwnd_sum = 0.0
        self.cwnd_n = 0

    def add(self, kind, ev):
        if kind == "acked":
            self.acked += ev["bytes"]
        elif kind == "lost":
            self.lost += 1
        elif kind == "queue":
            self.qd.append(ev["delay-us"] / 1000.0)
        elif kind == "cc":
            self.cwnd_sum += ev["cwnd"]
            self.cwnd_n += 1

    def report(self, rate, last_t):
        end = min(self.t1, last_t if last_t is not None else self.t1)
        span = (end - self.t0) / 1e6
        share = self.acked * 8 / (rate * span) if rate and span > 0 else float("nan")
        return {
            "share": round(share, 4),
            "window_s": [self.t0 / 1e6, round(end / 1e6, 3)],
            "qdelay_p50_ms": round(quantile(self.qd, 0.5), 3),
            "qdelay_p99_ms": round(quantile(self.qd, 0.99), 3),
            "cwnd_mean_bytes": round(self.cwnd_sum / self.cwnd_n) if self.cwnd_n else None,
            "lost": self.lost,
        }


def main():
    path = sys.argv[1]
    bounds = [float(x) for x in sys.argv[2:]]
    windows = [Window(bounds[i], bounds[i + 1]) for i in range(0, len(bounds) - 1, 2)]
    rate = None
    last_t = None
    f = sys.stdin if path == "-" else open(path)
    for line in f:
        ev = json.loads(line)
        kind = ev.get("ev")
        if kind == "meta":
            rate = ev["path"]["rate-bps"]
            continue
        t = ev.get("t-us", 0)
        last_t = t
        for w in windows:
            if w.t0 <= t < w.t1:
                w.add(kind, ev)
    for w in windows:
        print(json.dumps(w.report(rate, last_t)))


if __name__ == "__main__":
    main()
