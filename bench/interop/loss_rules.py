#!/usr/bin/env python3
"""Which loss-detection rule declared each loss in a `ramp serve --qlog`
file, and when, grouped by the moment of declaration.

quinn 0.11.19 writes every `recovery:packet_lost` with the trigger
`reordering_threshold` whatever the rule (docs/interop.md, "ramp serve's
qlog"), so the rule is told here from the packet's age: RFC 9002 §6.1.2's
time threshold when `now - sent >= max(9/8 * max(smoothed_rtt,
latest_rtt), 1 ms)` at the last `recovery:metrics_updated` before the
loss, else §6.1.1's packet threshold (kPacketThreshold = 3). Also lists
each PTO (RFC 9002 §6.2) quinn counted (`pto_count` rising). quinn
0.11.19 writes the RTT fields in seconds (`Duration::as_secs_f32`) while
event times are in ms; they are read as seconds here.

Usage: bench/interop/loss_rules.py FILE.sqlog
Prints one line per declaration time: time, packets declared, their
packet numbers and send times, the rule, and the RTTs in force.
"""

import json
import sys

# RFC 9002 §6.1.2: kTimeThreshold 9/8, kGranularity 1 ms.
TIME_THRESHOLD = 9 / 8
GRANULARITY_MS = 1.0


def records(path):
    with open(path, encoding="utf-8") as f:
        for i, rec in enumerate(f.read().split("\x1e")):
            rec = rec.strip()
            if not rec:
                continue
            try:
                yield json.loads(rec)
            except ValueError as e:
                raise SystemExit("%s: record %d: not JSON: %s" % (path, i, e))


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    sent = {}
    rtt = {"smoothed_rtt": None, "latest_rtt": None}
    pto = 0
    groups = []
    for r in records(sys.argv[1]):
        name, t, d = r.get("name"), r.get("time"), r.get("data") or {}
        if name == "transport:packet_sent":
            h = d.get("header", {})
            sent[(h.get("packet_type"), h.get("packet_number"))] = t
        elif name == "recovery:metrics_updated":
            for k in rtt:
                if d.get(k) is not None:
                    rtt[k] = d[k] * 1000  # s -> ms (module notes)
            if d.get("pto_count") is not None and d["pto_count"] > pto:
                print("%9.3f ms  PTO #%d (RFC 9002 §6.2)" % (t, d["pto_count"]))
            if d.get("pto_count") is not None:
                pto = d["pto_count"]
        elif name == "recovery:packet_lost":
            h = d.get("header", {})
            pn = h.get("packet_number")
            at = sent.get((h.get("packet_type"), pn))
            if None in (at, rtt["smoothed_rtt"], rtt["latest_rtt"]):
                rule = "unknown"
            else:
                delay = max(TIME_THRESHOLD * max(rtt["smoothed_rtt"], rtt["latest_rtt"]), GRANULARITY_MS)
                rule = "time" if t - at >= delay else "packet"
            if not groups or groups[-1]["t"] != t:
                groups.append({"t": t, "pns": [], "sent": [], "rules": set(), "rtt": dict(rtt)})
            g = groups[-1]
            g["pns"].append(pn)
            if at is not None:
                g["sent"].append(at)
            g["rules"].add(rule)
    total = 0
    for g in groups:
        total += len(g["pns"])
        sent_range = ("sent %.3f–%.3f ms" % (min(g["sent"]), max(g["sent"]))) if g["sent"] else "sent ?"
        print("%9.3f ms  %3d lost  pn %s–%s  %s  rule %s  srtt %.1f latest %.1f ms" % (
            g["t"], len(g["pns"]), min(g["pns"]), max(g["pns"]), sent_range,
            "+".join(sorted(g["rules"])), g["rtt"]["smoothed_rtt"], g["rtt"]["latest_rtt"]))
    print("%d packets declared lost at %d moments" % (total, len(groups)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
