"""Run ramp's work on a Dask cluster.

    python -m ramp_lab.dist fleet --local 2 --shards 8 -- -n 4000 --seed 1 -o run/
    python -m ramp_lab.dist fleet --scheduler tcp://HOST:8786 --shards 64 -- --preset rapid-start-2026 -n 1000000 -o run/
    python -m ramp_lab.dist ndq --local 2 -- 'group_by(_.group) { count() }' logs/*.ndjson

fleet: shard K of S runs `ramp fleet ARGS --shard K/S` on a worker, in a
scratch directory there, and sends back the shard's files (records,
manifest, parameters); the driver writes them under OUT.shards/K and runs
`ramp fleet merge`, which checks every shard and writes OUT exactly as the
single-process run would. A task whose worker dies is run again on
another worker (Dask retries it); its result replaces nothing, because a
shard is written under OUT.shards only once, from the one result the
driver receives for it, so no shard is ever counted twice.

ndq: one task per file runs `ndq --emit-partial QUERY FILE`; the driver
merges the partial states in a tree of `ndq --merge` calls (fan-in 8).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import RampError, binary

# Files of a finished shard directory that the merge reads.
SHARD_FILES = ("records.ndjson", "shard.json", "fleet.params", "fleet.plan.json", ".ramp-run")


def run_shard(fleet_args: list[str], k: int, n: int, ramp: str | None = None,
              shared: str | None = None) -> dict[str, bytes] | str:
    """Runs shard k/n on the worker. With `shared` (a directory the driver
    and the workers both see), the shard is written to shared/k and its
    path returned; otherwise it runs in a scratch directory and its files
    come back as bytes. Pure function of its arguments: safe to run twice
    (a second run of a finished shard finds shared/k and stops)."""
    exe = ramp or binary("ramp")
    parent = Path(shared) if shared else None
    with tempfile.TemporaryDirectory(prefix=f"ramp-shard-{k}-", dir=parent) as d:
        out = Path(d) / "shard"
        cmd = [exe, "fleet", *fleet_args, "--shard", f"{k}/{n}", "-q", "--no-charts", "-o", str(out)]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            raise RampError(f"shard {k}/{n}: {' '.join(cmd)}: {p.stderr.strip()}")
        if parent is None:
            return {f: (out / f).read_bytes() for f in SHARD_FILES if (out / f).exists()}
        final = parent / str(k)
        try:
            # Atomic: a shard directory appears whole or not at all, once.
            os.rename(out, final)
        except OSError:
            if not (final / "shard.json").exists():
                raise
        return str(final)


def _split_out(args: list[str]) -> tuple[list[str], Path, bool]:
    """Takes -o/--out (required) and --no-charts out of the fleet arguments."""
    rest, out, no_charts = [], None, False
    it = iter(args)
    for a in it:
        if a in ("-o", "--out"):
            out = next(it, None)
        elif a.startswith("--out="):
            out = a.split("=", 1)[1]
        elif a == "--no-charts":
            no_charts = True
        elif a in ("-q", "--quiet"):
            pass
        else:
            rest.append(a)
    if not any(a in ("-j", "--threads") or a.startswith("--threads=") for a in rest):
        # One task per worker thread: a shard must not take every core of
        # its machine, or the worker's other tasks would share them.
        rest += ["-j", "1"]
    if out is None:
        raise SystemExit("ramp_lab.dist fleet: give the run directory with -o OUT after --")
    return rest, Path(out), no_charts


def _client(args):
    from distributed import Client, LocalCluster

    if args.scheduler:
        return Client(args.scheduler), None
    cluster = LocalCluster(
        n_workers=args.local,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
    )
    return Client(cluster), cluster


def dist_fleet(fleet_args: list[str], shards: int, client, progress=True,
               shared: bool = False) -> Path:
    """Runs the fleet described by `fleet_args` (ramp fleet's arguments,
    with -o OUT) as `shards` tasks on `client`, then merges into OUT.
    `shared`: the workers see the driver's file system (a LocalCluster, or
    a cluster on a shared mount), so shards are written in place instead of
    sent back as bytes."""
    from distributed import as_completed

    rest, out, no_charts = _split_out(fleet_args)
    staging = out.with_name(out.name + ".shards")
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True)
    ramp = os.environ.get("RAMP_BIN")
    futures = [
        client.submit(run_shard, rest, k, shards, ramp, str(staging.resolve()) if shared else None,
                      key=f"ramp-shard-{k}-of-{shards}-{time.time_ns()}", retries=3, pure=False)
        for k in range(shards)
    ]
    index = {f.key: k for k, f in enumerate(futures)}
    done = 0
    t0 = time.monotonic()
    for fut in as_completed(futures):
        k = index[fut.key]
        files = fut.result()
        d = staging / str(k)
        if not shared:
            if d.exists():
                # One result per shard: a second would be a duplicate.
                raise RampError(f"shard {k} returned twice")
            d.mkdir()
            for name, data in files.items():
                (d / name).write_bytes(data)
        done += 1
        if progress:
            print(f"ramp_lab.dist: shard {k} done ({done}/{shards}, {time.monotonic() - t0:.1f} s)",
                  file=sys.stderr, flush=True)
    cmd = [binary("ramp"), "fleet", "merge", *[str(staging / str(k)) for k in range(shards)],
           "-o", str(out)]
    if no_charts:
        cmd.append("--no-charts")
    t1 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RampError(f"{' '.join(cmd)}: {p.stderr.strip()}")
    if progress:
        print(f"ramp_lab.dist: merged {shards} shards into {out} in {time.monotonic() - t1:.1f} s",
              file=sys.stderr, flush=True)
    shutil.rmtree(staging)
    return out


def run_partial(query: str, path: str, ndq: str | None = None) -> bytes:
    """`ndq --emit-partial QUERY FILE` on a worker: the file's partial state."""
    exe = ndq or binary("ndq")
    p = subprocess.run([exe, "--emit-partial", "-P", "1", query, path], capture_output=True)
    if p.returncode != 0:
        raise RampError(f"ndq on {path}: {p.stderr.decode(errors='replace').strip()}")
    return p.stdout


def merge_partials(query: str, parts: list[bytes], final: bool, ndq: str | None = None) -> bytes:
    """`ndq --merge` of partial states; `final` prints the result, else a
    partial state again (for the next level of the tree)."""
    exe = ndq or binary("ndq")
    with tempfile.TemporaryDirectory(prefix="ndq-merge-") as d:
        files = []
        for i, b in enumerate(parts):
            f = Path(d) / f"{i}.partial"
            f.write_bytes(b)
            files.append(str(f))
        cmd = [exe, "--merge", query, *files]
        if not final:
            cmd.insert(1, "--emit-partial")
        p = subprocess.run(cmd, capture_output=True)
        if p.returncode != 0:
            raise RampError(f"ndq --merge: {p.stderr.decode(errors='replace').strip()}")
        return p.stdout


def dist_ndq(query: str, files: list[str], client, fan_in: int = 8) -> bytes:
    """The query's result over `files`, one task per file, merged in a tree."""
    ndq = os.environ.get("NDQ_BIN")
    level = [client.submit(run_partial, query, f, ndq, pure=False, retries=3) for f in files]
    while len(level) > fan_in:
        level = [client.submit(merge_partials, query, level[i:i + fan_in], False, ndq, pure=False,
                               retries=3)
                 for i in range(0, len(level), fan_in)]
    return client.submit(merge_partials, query, level, True, ndq, pure=False, retries=3).result()


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--" in argv:
        i = argv.index("--")
        own, passthrough = argv[:i], argv[i + 1:]
    else:
        own, passthrough = argv, []
    ap = argparse.ArgumentParser(prog="python -m ramp_lab.dist", description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=["fleet", "ndq"])
    where = ap.add_mutually_exclusive_group(required=True)
    where.add_argument("--local", type=int, metavar="N", help="start a LocalCluster of N workers")
    where.add_argument("--scheduler", metavar="ADDR", help="an existing Dask scheduler, tcp://HOST:8786")
    ap.add_argument("--shards", type=int, default=0, help="fleet: shards (default: 4 per worker)")
    ap.add_argument("--shared-fs", action="store_true",
                    help="fleet: the workers see this machine's file system (implied by --local); "
                         "shards are written in place, not sent back")
    a = ap.parse_args(own)
    client, cluster = _client(a)
    try:
        if a.what == "fleet":
            workers = max(1, len(client.scheduler_info().get("workers", {})))
            shards = a.shards or 4 * workers
            out = dist_fleet(passthrough, shards, client, shared=a.shared_fs or bool(a.local))
            print(f"wrote {out}")
        else:
            if not passthrough:
                raise SystemExit("ramp_lab.dist ndq: give the query and files after --")
            sys.stdout.buffer.write(dist_ndq(passthrough[0], passthrough[1:], client))
    except RampError as e:
        print(f"ramp_lab.dist: {e}", file=sys.stderr)
        return 1
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
