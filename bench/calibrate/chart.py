#!/usr/bin/env python3
"""Draws the calibration chart of docs/results/rapid-start-2026.md: the per-connection
loss ratio (average, P50, P90, P99) of each arm, published against ramp's
fitted population, and the fit grid's error for every point.

    python3 bench/calibrate/chart.py RUN_DIR/summary.json OUT/fit.csv docs/img/calibration.svg

Plain SVG, no dependencies.
"""
import csv
import json
import sys

# Rapid Start slides (IETF 125): loss ratio per connection, percent.
PUBLISHED = {
    "baseline": [1.52, 0.62, 4.36, 13.80],
    "jumpstart": [1.61, 0.62, 4.57, 14.22],
    "rapid-no-jump": [1.92, 0.90, 4.99, 14.97],
    "rapidstart": [1.98, 0.85, 5.06, 15.55],
}
STATS = ["avg_pct", "p50_pct", "p90_pct", "p99_pct"]
LABELS = ["average", "P50", "P90", "P99"]
COLORS = {"baseline": "#444444", "jumpstart": "#1f77b4",
          "rapid-no-jump": "#ff7f0e", "rapidstart": "#2ca02c"}


def bars(summary, x0, y0, w, h):
    """One panel per statistic; in each, 4 arms × (published, ramp)."""
    ramp = {r["arm"]: [r[k] for k in STATS] for r in summary["loss"]}
    out = []
    panel_w = w / len(STATS)
    for i, label in enumerate(LABELS):
        px = x0 + i * panel_w
        top = max(max(PUBLISHED[a][i], ramp.get(a, [0] * 4)[i]) for a in PUBLISHED) * 1.15
        out.append(f'<text x="{px + panel_w / 2:.1f}" y="{y0 - 8}" text-anchor="middle" '
                   f'font-size="13">{label} (0–{top:.1f} %)</text>')
        out.append(f'<line x1="{px + 10}" y1="{y0 + h}" x2="{px + panel_w - 10}" y2="{y0 + h}" '
                   'stroke="#000"/>')
        slot = (panel_w - 20) / len(PUBLISHED)
        for j, arm in enumerate(PUBLISHED):
            for k, (v, style) in enumerate([(PUBLISHED[arm][i], 'fill-opacity="0.35"'),
                                            (ramp.get(arm, [0] * 4)[i], "")]):
                bh = h * v / top
                bx = px + 10 + j * slot + 2 + k * (slot - 4) / 2
                out.append(f'<rect x="{bx:.1f}" y="{y0 + h - bh:.1f}" width="{(slot - 4) / 2 - 1:.1f}" '
                           f'height="{bh:.1f}" fill="{COLORS[arm]}" {style}/>')
    return out


def grid_panel(rows, x0, y0, w, h):
    """Error of every grid point, sorted: where the fit is, and how flat."""
    errs = sorted(float(r["error"]) for r in rows)
    top = max(errs) * 1.05
    out = [f'<text x="{x0 + w / 2:.1f}" y="{y0 - 8}" text-anchor="middle" font-size="13">'
           f'fit error of the {len(errs)} grid points, best first '
           '(Σ ln²(ramp/published) over the four baseline figures)</text>',
           f'<line x1="{x0}" y1="{y0 + h}" x2="{x0 + w}" y2="{y0 + h}" stroke="#000"/>',
           f'<line x1="{x0}" y1="{y0}" x2="{x0}" y2="{y0 + h}" stroke="#000"/>',
           f'<text x="{x0 - 4}" y="{y0 + 4}" text-anchor="end" font-size="11">{top:.2f}</text>',
           f'<text x="{x0 - 4}" y="{y0 + h}" text-anchor="end" font-size="11">0</text>']
    n = len(errs)
    for i, e in enumerate(errs):
        cx = x0 + (i + 0.5) * w / n
        cy = y0 + h - h * e / top
        out.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="3" fill="#2ca02c"/>')
    return out


def main():
    summary_path, fit_path, out_path = sys.argv[1:4]
    with open(summary_path) as f:
        summary = json.load(f)
    with open(fit_path) as f:
        rows = list(csv.DictReader(f))
    W, H = 900, 520
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
             'font-family="sans-serif">',
             f'<rect width="{W}" height="{H}" fill="#fff"/>',
             f'<text x="{W / 2}" y="22" text-anchor="middle" font-size="15">'
             'Loss ratio per connection: published (light) vs ramp population v2 (solid); '
             'baseline fitted, other arms not</text>']
    parts += bars(summary, 20, 60, W - 40, 220)
    x = 40
    for arm, c in COLORS.items():
        parts.append(f'<rect x="{x}" y="300" width="12" height="12" fill="{c}"/>'
                     f'<text x="{x + 16}" y="311" font-size="12">{arm}</text>')
        x += 150
    parts += grid_panel(rows, 60, 350, W - 100, 140)
    parts.append("</svg>")
    with open(out_path, "w") as f:
        f.write("\n".join(parts) + "\n")


if __name__ == "__main__":
    main()
