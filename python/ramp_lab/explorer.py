"""The report explorer's slices as pandas frames (docs/charts.md, Explorer).

    import ramp_lab
    s = ramp_lab.explorer_slice("run", "access=mobile&size-bin=1.6MB-3.2MB")
    t = ramp_lab.explorer_table(s)      # the explorer's table

A view is given as the explorer's URL fragment (copy it from the address
bar: everything after `#`) and/or keyword filters; both use the page's
rules, so a notebook reproduces what the page shows:

- a categorical filter keeps the paths whose record value (as text) is one
  of the listed values; `pop`, `access`, `policed`, `size-bin`, `path.aqm`,
  `web-users`, `scenario`, any `grid.*` key;
- a range filter keeps values in [lo, hi] in the page's units:
  `path.rtt-ms` in ms, `path.rate-bps` in Mbit/s; either end may be None;
- a path is a fleet connection (`conn`), else a `seed`/`flow`, else the
  record's position within its arm; its attributes come from its first
  record;
- time metrics (`ttlb`, `client-ttlb`, `plt`) keep a path only if it
  completed in every arm (the fleet summary's pairing); `loss` is
  100 * lost / sent per connection that sent a packet, per arm;
- percentiles interpolate linearly between order statistics (numpy's
  default, ramp's definition).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union
from urllib.parse import unquote

if TYPE_CHECKING:
    import os

    import pandas

PathLike = Union[str, "os.PathLike[str]"]

# Range filters: record key -> record value / scale = the page's unit.
RANGES = {"path.rtt-ms": 1.0, "path.rate-bps": 1e6}
# Metrics: name -> (record key, divisor to ms).
TIME_METRICS = {"ttlb": ("ttlb-us", 1000.0), "client-ttlb": ("client-ttlb-us", 1000.0),
                "plt": ("page-load-us", 1000.0)}
ROWS = [10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99]
STEPS = [5, 15, 25, 35, 45, 55, 65, 75, 85, 95]

Filter = Union[Sequence[Any], tuple[Any, Any]]


def parse_fragment(fragment: str) -> dict[str, Any]:
    """The view in an explorer URL fragment: {"metric", "baseline", "arms",
    "filters"}; absent parts are left out."""
    out: dict[str, Any] = {}
    filters: dict[str, Filter] = {}
    for kv in fragment.lstrip("#").split("&"):
        if "=" not in kv:
            continue
        k, v = kv.split("=", 1)
        key = unquote(k)
        vals = [unquote(x) for x in v.split(",")]
        if key == "metric":
            out["metric"] = vals[0]
        elif key == "baseline":
            out["baseline"] = vals[0]
        elif key == "arms":
            out["arms"] = [a for a in vals if a]
        elif key == "bench":
            continue
        elif key in RANGES:
            lo, _, hi = vals[0].partition("..")
            filters[key] = (float(lo) if lo else None, float(hi) if hi else None)
        else:
            filters[key] = [x for x in vals if x]
    out["filters"] = filters
    return out


def _text(v: Any) -> str | None:
    """A record value as the page's filters see it (Rust's Record::text)."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v)  # shortest round-trip digits, as serde_json prints
    return str(v)


def explorer_slice(run_dir: PathLike, fragment: str = "", metric: str | None = None,
                   **filters: Filter) -> pandas.DataFrame:
    """The paths of a view: one row per path in the slice, one column per
    arm holding the metric (ms, or loss ratio in %), NaN where an arm has
    none. Keyword filters use record keys with `-` and `.` written as `_`
    (`size_bin=["1.6MB-3.2MB"]`, `path_rtt_ms=(10, 50)`) and add to the
    fragment's. `frame.attrs` holds metric, baseline and arms."""
    import json

    import pandas as pd

    view = parse_fragment(fragment)
    wanted: dict[str, Filter] = dict(view["filters"])
    path = Path(run_dir) / "records.ndjson"
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    keys = {k.replace("-", "_").replace(".", "_"): k for r in records[:1] for k in r}
    for k, fv in filters.items():
        wanted[keys.get(k, k)] = fv
    metric = metric or view.get("metric", "ttlb")
    arms: list[str] = []
    paths: dict[str, int] = {}
    attrs: list[dict[str, Any]] = []
    values: dict[str, dict[int, float]] = {}
    ordinal: dict[str, int] = {}
    path_key = None
    for r in records:
        arm = _text(r.get("group", r.get("cc.algorithm")))
        if arm is None:
            continue
        if arm not in values:
            arms.append(arm)
            values[arm] = {}
        if path_key is None:
            path_key = "conn" if "conn" in r else "seed" if "seed" in r else ""
        n = ordinal.get(arm, 0)
        ordinal[arm] = n + 1
        if path_key == "conn" and "conn" in r:
            pid = str(_text(r["conn"]))
        elif path_key == "seed" and "seed" in r:
            pid = f"{_text(r['seed'])}/{_text(r.get('flow')) or ''}"
        else:
            pid = f"#{n}"
        if pid not in paths:
            paths[pid] = len(attrs)
            attrs.append(r)
        p = paths[pid]
        completed = r.get("completed") is not False
        if metric == "loss":
            sent, lost = r.get("num-packets.sent"), r.get("num-packets.lost")
            val = 100 * lost / sent if sent and lost is not None else math.nan
        else:
            key, div = TIME_METRICS[metric]
            raw = r.get(key, r.get("ttlb") if metric == "ttlb" else None)
            if key == "ttlb-us" and key not in r and raw is not None:
                div = 1.0  # `ttlb` is already in ms
            val = raw / div if raw is not None and completed else math.nan
        values[arm][p] = val

    def keep(a: dict[str, Any]) -> bool:
        for k, want in wanted.items():
            if k in RANGES:
                lo, hi = want
                x = a.get(k)
                if x is None:
                    return False
                x = x / RANGES[k]
                if (lo is not None and x < lo) or (hi is not None and x > hi):
                    return False
            elif _text(a.get(k)) not in [str(w) for w in want]:
                return False
        return True

    rows = [p for p in range(len(attrs)) if keep(attrs[p])]
    frame = pd.DataFrame({a: [values[a].get(p, math.nan) for p in rows] for a in arms},
                         index=pd.Index(rows, name="path"))
    if metric != "loss":
        frame = frame.dropna()  # paired: completed in every arm
    baseline = view.get("baseline", arms[0] if arms else None)
    shown = view.get("arms", [a for a in arms if a != baseline])
    frame.attrs.update(metric=metric, baseline=baseline, arms=shown)
    return frame


def _quantile(sorted_values: Sequence[float], p: float) -> float:
    n = len(sorted_values)
    if n == 0:
        return math.nan
    h = (n - 1) * p
    lo = math.floor(h)
    frac = h - lo
    a = sorted_values[lo]
    return a + frac * (sorted_values[lo + 1] - a) if frac > 0 and lo + 1 < n else a


def _change(v: float, base: float) -> float:
    return 100 * (v / base - 1) if base > 0 else math.nan


def explorer_table(frame: pandas.DataFrame) -> pandas.DataFrame:
    """The explorer's table of a slice: rows n, mean, p10..p90, p95, p99
    (and for times the average change over p5, p15, ..., p95); per arm its
    value and, for arms other than the baseline, `Δ ARM` (percent for
    times, percentage points for loss)."""
    import pandas as pd

    loss = frame.attrs.get("metric") == "loss"
    base = frame.attrs["baseline"]
    shown = [base, *frame.attrs["arms"]]
    data = {a: sorted(v for v in frame[a] if not math.isnan(v)) for a in shown}

    def mean(x: list[float]) -> float:
        return sum(x) / len(x) if x else math.nan

    def delta(v: float, b: float) -> float:
        return v - b if loss else _change(v, b)

    stats: dict[str, Any] = {"n": len, "mean": mean}
    for p in ROWS:
        stats[f"p{p}"] = lambda x, p=p: _quantile(x, p / 100)
    out: dict[str, dict[str, float]] = {}
    for name, f in stats.items():
        row: dict[str, float] = {}
        b = f(data[base])
        for a in shown:
            v = f(data[a])
            row[a] = v
            if a != base:
                row[f"Δ {a}"] = math.nan if name == "n" else delta(v, b)
        out[name] = row
    if not loss:
        row = {a: math.nan for a in shown}
        for a in shown[1:]:
            row[f"Δ {a}"] = sum(_change(_quantile(data[a], p / 100), _quantile(data[base], p / 100))
                                for p in STEPS) / len(STEPS)
        out["avg-delta"] = row
    return pd.DataFrame.from_dict(out, orient="index")
