#!/usr/bin/env python3
"""One markdown row per fleet run directory (its summary.json): the last
arm's TTLB change (percentile-delta average) globally, its range over POPs,
per size bin, and every arm's average loss; for a two-arm run (the Google
presets), the second arm's change and both arms' loss.

Usage: bench/calibrate/ablation_table.py DIR...
"""
import json
import os
import sys


def main():
    for d in sys.argv[1:]:
        with open(os.path.join(d, "summary.json")) as f:
            s = json.load(f)
        arm = s["loss"][-1]["arm"]

        def change(sl):
            return next(a for a in sl["arms"] if a["arm"] == arm)["pctl_change_avg_pct"]

        pops = [change(p) for p in s["by_pop"]]
        bins = [change(b) for b in s["by_bin"]]
        loss = " / ".join(f"{r['avg_pct']:.2f}" for r in s["loss"])
        base = s["loss"][0]
        p = [base[k] for k in ("p50_pct", "p90_pct", "p99_pct")]
        print(f"| {os.path.basename(d.rstrip('/'))} | {change(s['global']):+.1f} % | "
              f"{min(pops):+.1f} … {max(pops):+.1f} % | "
              + " / ".join(f"{b:+.1f}" for b in bins)
              + f" % | {loss} % | baseline avg/P50/P90/P99 {base['avg_pct']:.2f} / "
              + " / ".join(f"{v:.2f}" for v in p) + " % |")


if __name__ == "__main__":
    main()
