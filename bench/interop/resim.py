#!/usr/bin/env python3
"""Run the simulator's side of a recorded interop grid again.

    bench/interop/resim.py DATA_DIR OUT_DIR

DATA_DIR is a directory `bench/interop/run.py` wrote (`runs.ndjson`,
`meta.json`). Its real downloads are kept as they are; every `ramp sim`
row is dropped and the simulator's cells are run again with this
checkout's ramp (`RAMP`, default target/release/ramp), with the arms'
specs as `meta.json` recorded them and run.py's sides (`ramp-sim`, and
`ramp-sim-quinn` and, for quicly's arms, `ramp-sim-quicly`: run.py's
`sim_sides`). It writes OUT_DIR/runs.ndjson, table.md and
meta.json (the input's, plus the commit the simulator ran at), so a model
change can be read against measured real cells without running them
again. No root and no other stack is needed. OUT_DIR must not be DATA_DIR.

With ARMS_FROM=ramp the seed arms' specs are this ramp's
(`ramp compare --list-arms`) instead of the recorded ones, to read a change
of the seed arms themselves against the recorded real cells; meta.json
then records both (`resim-arms`).
"""

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
import shutil


def load_run():
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location("interop_run", os.path.join(here, "run.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    data, out_dir = sys.argv[1], sys.argv[2]
    if os.path.realpath(data) == os.path.realpath(out_dir):
        print("resim: OUT_DIR must differ from DATA_DIR (outputs never overwrite inputs)",
              file=sys.stderr)
        return 2
    run = load_run()
    ramp = os.path.abspath(os.environ.get("RAMP", "target/release/ramp"))
    try:
        with open(os.path.join(data, "meta.json")) as f:
            meta = json.load(f)
        with open(os.path.join(data, "runs.ndjson")) as f:
            rows = [json.loads(line) for line in f if line.strip()]
    except (OSError, ValueError) as e:
        print("resim: cannot read %s: %s" % (data, e), file=sys.stderr)
        return 1
    real = [r for r in rows if not run.is_sim(r.get("side", ""))]
    paths = {p[0]: p for p in run.PATHS}
    cells = sorted({(r["path"], r["arm"], r["size"]) for r in real if r["path"] in paths})
    runs = int(meta.get("runs", 10))
    if os.environ.get("ARMS_FROM") == "ramp":
        recorded = {label: a["ramp"] for label, a in meta["arms"].items()}
        for label, spec in run.seed_arms(ramp):
            if label in meta["arms"]:
                meta["arms"][label]["ramp"] = spec
        meta["resim-arms"] = {"from": "ramp", "recorded": recorded}
    os.makedirs(out_dir, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="ramp-resim.")
    sims = []
    started = time.time()
    try:
        for path_name, arm, size in cells:
            a = meta["arms"].get(arm)
            if a is None:
                continue
            spec, other = a["ramp"], a["other"]
            if path_name in run.ECN_PATHS and "quicly" in other:
                spec = run.with_option(spec, "ecn=ect0")
            for side, sim_spec, framing, ep in run.sim_sides(spec, other):
                for seed in run.sim_seeds(path_name, ep, runs):
                    row = run.run_sim(ramp, paths[path_name], sim_spec, size, seed, tmp, framing,
                                      ep)
                    row.update(side=side, spec=sim_spec, path=path_name, arm=arm, size=size,
                               run=seed)
                    sims.append(row)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    rows = real + sims
    with open(os.path.join(out_dir, "runs.ndjson"), "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    meta.update({"resim-of": data, "resim-s": round(time.time() - started, 1),
                 "resim-ramp-commit": subprocess.run(["git", "rev-parse", "HEAD"],
                                                     capture_output=True, text=True).stdout.strip()})
    with open(os.path.join(out_dir, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    md = run.table(rows, list(meta["arms"])) + "\n\n" + run.agreement(rows)
    with open(os.path.join(out_dir, "table.md"), "w") as f:
        f.write(md + "\n")
    print(run.agreement(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
