#!/usr/bin/env python3
"""Tables of docs/results/rapid-start-2026.md, "Round five", from fleet run
directories (the seed experiment's arms; the last arm against the first).

  slice_table.py rows DIR...     one row per run (its summary.json): the last
                                 arm's global, per-POP and first/last size-bin
                                 TTLB change under the ten-point percentile
                                 average and the change of the mean, every
                                 arm's average loss, the baseline's loss table
                                 and mean TTLB
  slice_table.py rate DIR        the run's records.ndjson sliced by bottleneck
                                 rate (path.rate-bps) and size bin: ten-point
                                 average / change of the mean per cell, then
                                 the slow paths' share of the baseline's summed
                                 TTLB per bin
  slice_table.py loss DIR        the baseline's per-connection loss ratio by
                                 access type and by bottleneck queue (path.aqm):
                                 the share that lost no packet, avg, P50/P90/P99

Percentiles interpolate linearly (type 7), as ramp fleet's summary does.
"""
import collections
import json
import os
import sys

TEN = [0.05 + 0.1 * i for i in range(10)]
RATE_CLASSES = [("< 10 Mbit/s", 0, 10), ("10–50 Mbit/s", 10, 50),
                ("50–200 Mbit/s", 50, 200), ("≥ 200 Mbit/s", 200, float("inf"))]


def pct(sorted_v, p):
    k = (len(sorted_v) - 1) * p
    i = int(k)
    if i + 1 >= len(sorted_v):
        return sorted_v[i]
    f = k - i
    return sorted_v[i] * (1 - f) + sorted_v[i + 1] * f


def bin_start(label):
    """The lower edge of a size-bin label such as `400KB-800KB`, in KB."""
    lo = label.split("-")[0]
    return float(lo[:-2]) * (1000 if lo.endswith("MB") else 1)


def records(d):
    with open(os.path.join(d, "records.ndjson")) as f:
        for line in f:
            yield json.loads(line)


def rows(dirs):
    for d in dirs:
        with open(os.path.join(d, "summary.json")) as f:
            s = json.load(f)
        arm = s["loss"][-1]["arm"]

        def a(sl, k):
            return next(x for x in sl["arms"] if x["arm"] == arm)[k]
        g, b = s["global"], s["by_bin"]
        pt = [a(p, "pctl_change_avg_pct") for p in s["by_pop"]]
        pm = [a(p, "mean_change_pct") for p in s["by_pop"]]
        loss = " / ".join(f"{r['avg_pct']:.2f}" for r in s["loss"])
        base = s["loss"][0]
        print(f"| {os.path.basename(d.rstrip('/'))} | "
              f"{a(g, 'pctl_change_avg_pct'):+.1f} / {a(g, 'mean_change_pct'):+.1f} % | "
              f"{max(pt):+.1f} … {min(pt):+.1f} / {max(pm):+.1f} … {min(pm):+.1f} % | "
              f"{a(b[0], 'pctl_change_avg_pct'):+.1f} → {a(b[-1], 'pctl_change_avg_pct'):+.1f} / "
              f"{a(b[0], 'mean_change_pct'):+.1f} → {a(b[-1], 'mean_change_pct'):+.1f} % | {loss} % | "
              f"{base['avg_pct']:.2f} / {base['p50_pct']:.2f} / {base['p90_pct']:.2f} / "
              f"{base['p99_pct']:.2f} % | {g['arms'][0]['mean_ms']:.0f} ms |")


def rate(d):
    first = last = None
    ttlb = collections.defaultdict(dict)
    meta = {}
    for r in records(d):
        first = first or r["group"]
        last = r["group"]
        if r.get("completed"):
            ttlb[r["conn"]][r["group"]] = r["ttlb-us"]
            meta[r["conn"]] = (r["path.rate-bps"] / 1e6, r["size-bin"])
    conns = [c for c, t in ttlb.items() if first in t and last in t]
    bins = sorted({meta[c][1] for c in conns}, key=bin_start)

    def cell(cs):
        if len(cs) < 50:
            return "–"
        b = sorted(ttlb[c][first] for c in cs)
        a = sorted(ttlb[c][last] for c in cs)
        ten = sum(pct(a, q) / pct(b, q) - 1 for q in TEN) / len(TEN) * 100
        mean = (sum(a) / sum(b) - 1) * 100
        return f"{ten:+.1f} / {mean:+.1f} %"
    print("| bottleneck rate | connections | " + " | ".join(bins) + " | all sizes |")
    print("|---|---:|" + "---|" * (len(bins) + 1))
    for label, lo, hi in RATE_CLASSES + [("all", 0, float("inf"))]:
        cs = [c for c in conns if lo <= meta[c][0] < hi]
        cells = [cell([c for c in cs if meta[c][1] == b]) for b in bins] + [cell(cs)]
        print(f"| {label} | {len(cs) / len(conns) * 100:.0f} % | " + " | ".join(cells) + " |")
    print()
    print("| size bin | < 10 Mbit/s: share of connections | share of the baseline's summed TTLB |")
    print("|---|---:|---:|")
    for b in bins:
        cs = [c for c in conns if meta[c][1] == b]
        slow = [c for c in cs if meta[c][0] < 10]
        print(f"| {b} | {len(slow) / len(cs) * 100:.1f} % | "
              f"{sum(ttlb[c][first] for c in slow) / sum(ttlb[c][first] for c in cs) * 100:.1f} % |")


def loss(d):
    first = None
    v = collections.defaultdict(list)
    for r in records(d):
        first = first or r["group"]
        if r["group"] != first or r["num-packets.sent"] == 0:
            continue
        x = r["num-packets.lost"] / r["num-packets.sent"] * 100
        for k in (r["access"], "queue: " + r["path.aqm"], "all"):
            v[k].append(x)
    n = len(v["all"])
    print("| slice | connections | none lost | avg | P50 | P90 | P99 |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    keys = [k for k in ("wired", "wifi", "mobile") if k in v]
    keys += sorted(k for k in v if k.startswith("queue: ")) + ["all"]
    for k in keys:
        a = sorted(v[k])
        none = sum(1 for x in a if x == 0) / len(a) * 100
        print(f"| {k} | {len(a) / n * 100:.1f} % | {none:.1f} % | {sum(a) / len(a):.2f} % | {pct(a, .5):.2f} % | "
              f"{pct(a, .9):.2f} % | {pct(a, .99):.2f} % |")


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("rows", "rate", "loss"):
        sys.exit(__doc__)
    {"rows": lambda: rows(sys.argv[2:]), "rate": lambda: rate(sys.argv[2]),
     "loss": lambda: loss(sys.argv[2])}[sys.argv[1]]()
