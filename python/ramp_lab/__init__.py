"""ramp from Python: run the binaries, read their outputs as pandas frames.

    import ramp_lab
    run = ramp_lab.fleet("-n", "2000", "--seed", "1", out="run")
    df = ramp_lab.records(run)          # one row per connection and arm
    s = ramp_lab.summary(run)           # one row per slice and arm

The binaries are found in this order: the RAMP_BIN / NDQ_BIN environment
variables, the directory of the running Python's scripts (where the
ramp-bin distribution, `pip install ./python/bin`, puts them), then PATH.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import sysconfig
import tempfile
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

from .explorer import explorer_slice, explorer_table
from .proc import RampError, run_checked

if TYPE_CHECKING:
    import pandas

__all__ = ["binary", "run", "fleet", "sim", "records", "summary", "loss", "RampError",
           "explorer_slice", "explorer_table", "__version__"]

try:
    # One version: the installed distribution's (pyproject.toml).
    __version__ = metadata.version("ramp-lab")
except metadata.PackageNotFoundError:  # run from a source tree
    __version__ = "0+unknown"

PathLike = Union[str, "os.PathLike[str]"]


def binary(name: str) -> str:
    """The path of the `ramp` or `ndq` executable."""
    env = os.environ.get(f"{name.upper()}_BIN")
    if env:
        return env
    scripts = Path(sysconfig.get_path("scripts"))
    for cand in (scripts / name, Path(sys.executable).parent / name):
        if cand.is_file() and os.access(cand, os.X_OK):
            return str(cand)
    found = shutil.which(name)
    if found:
        return found
    raise RampError(
        f"cannot find `{name}`: install ramp-bin (pip install ./python/bin) "
        f"or set {name.upper()}_BIN"
    )


def run(name: str, args: Iterable[str]) -> str:
    """Runs `name args...`; returns its stdout, raises RampError on failure."""
    return run_checked([binary(name), *map(str, args)]).decode()


def fleet(*args: str, out: PathLike) -> Path:
    """Runs `ramp fleet ARGS -o OUT -q` and returns OUT."""
    run("ramp", ["fleet", *args, "-o", str(out), "-q"])
    return Path(out)


def sim(*args: str, records: PathLike | None = None) -> pandas.DataFrame:
    """Runs `ramp sim ARGS` and returns its records as a frame. With
    `records`, ramp appends them to that file (as `--records` does) and the
    frame holds the lines this call added; the file is never removed."""
    if records is None:
        with tempfile.TemporaryDirectory(prefix="ramp-sim-") as d:
            return sim(*args, records=Path(d) / "records.ndjson")
    path = Path(records)
    start = path.stat().st_size if path.exists() else 0
    run("ramp", ["sim", *args, "--records", str(path)])
    with path.open("rb") as f:
        f.seek(start)
        return _frame_from_ndjson_bytes(f.read())


def _frame_from_ndjson_bytes(data: bytes) -> pandas.DataFrame:
    import io

    import pandas as pd

    if not data.strip():
        return pd.DataFrame()
    kwargs: dict[str, Any] = {}
    try:
        import pyarrow  # noqa: F401

        kwargs["dtype_backend"] = "pyarrow"
    except ImportError:
        pass
    return pd.read_json(io.BytesIO(data), lines=True, **kwargs)


def records(run_dir: PathLike) -> pandas.DataFrame:
    """A run directory's records.ndjson: one row per connection and arm
    (pyarrow-backed columns when pyarrow is installed)."""
    return _frame_from_ndjson_bytes((Path(run_dir) / "records.ndjson").read_bytes())


def summary(run_dir: PathLike) -> pandas.DataFrame:
    """A fleet run's summary.json as a frame: one row per slice (global,
    each region, each size bin) and arm, with the TTLB change figures and,
    for each headline statistic, its 95 % confidence interval over
    connections (``<statistic>_ci95_lo`` / ``_ci95_hi``; sampling
    uncertainty, not the model's; NaN for the baseline)."""
    import pandas as pd

    s = json.loads((Path(run_dir) / "summary.json").read_text())
    rows = []
    for kind, slices in (("global", [s["global"]]), ("pop", s["by_pop"]), ("bin", s["by_bin"])):
        for sl in slices:
            for a in sl["arms"]:
                row = {"kind": kind, "slice": sl["label"], "connections": sl["connections"]}
                row.update({k: v for k, v in a.items() if not isinstance(v, list)})
                for d, v in zip(s["deciles"], a["deciles_ms"]):
                    row[f"p{round(d)}_ms"] = v
                rows.append(row)
    return pd.DataFrame(rows)


def loss(run_dir: PathLike) -> pandas.DataFrame:
    """A fleet run's loss-ratio table (global and per region) as a frame."""
    import pandas as pd

    s = json.loads((Path(run_dir) / "summary.json").read_text())
    rows = [dict(pop="all", **r) for r in s["loss"]]
    for p in s["loss_by_pop"]:
        rows += [dict(pop=p["pop"], **r) for r in p["arms"]]
    return pd.DataFrame(rows)
