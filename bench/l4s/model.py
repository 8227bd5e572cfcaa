#!/usr/bin/env python3
"""The steady-state Prague/CUBIC rate ratio that RFC 9332 Appendix C.2's
equations predict on one DualPI2 bottleneck, for base RTTs 10-200 ms.

    model.py [RATE_BPS] [PACKET_BYTES]

Per flow (packets per second, R the flow's RTT in seconds, p' the base
probability):
  Prague (scalable, RFC 9332 App. C.2 eq. 6): r_L = 2 / (R_L * k * p')
  classic, Reno-friendly (eq. 5):             r_C = 1.22 / (R_C * p')
  CUBIC in its cubic region (RFC 9438 §5.1):  r_C = 1.054 * R_C^-0.25 * (p'^2)^-0.75
CUBIC takes the larger of its two (RFC 9438 §4.3, Reno-friendly region).
R_L = base + 1 ms (the L queue held at the step), R_C = base + 15 ms (the
PI target). p' is solved so that r_L + r_C fills the link.
"""
import sys

RATE = float(sys.argv[1]) if len(sys.argv) > 1 else 100e6
PKT = float(sys.argv[2]) if len(sys.argv) > 2 else 1252.0
K = 2.0
CAP = RATE / 8 / PKT


def rates(base, pp, cubic):
    rl = base + 0.001
    rc = base + 0.015
    r_l = 2.0 / (rl * K * pp)
    reno = 1.22 / (rc * pp)
    cub = 1.054 * rc ** -0.25 * (pp * pp) ** -0.75
    r_c = max(reno, cub) if cubic else reno
    return r_l, r_c


def solve(base, cubic):
    lo, hi = 1e-9, 1.0
    for _ in range(200):
        mid = (lo * hi) ** 0.5
        r_l, r_c = rates(base, mid, cubic)
        if r_l + r_c > CAP:
            lo = mid
        else:
            hi = mid
    return rates(base, lo, cubic) + (lo,)


print("base_rtt_ms  ratio_vs_reno_friendly  ratio_vs_cubic  p'(cubic)")
for ms in (10, 20, 40, 80, 160, 200):
    r_l, r_c, _ = solve(ms / 1000, False)
    c_l, c_c, pp = solve(ms / 1000, True)
    print(f"{ms:>10}  {r_l / r_c:>22.2f}  {c_l / c_c:>14.2f}  {pp:.4f}")
