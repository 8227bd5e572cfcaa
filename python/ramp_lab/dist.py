"""Run ramp's work on a Dask cluster.

    ramp-lab fleet --local 2 --shards 8 -- -n 4000 --seed 1 -o run/
    ramp-lab fleet --scheduler tcp://HOST:8786 --shards 64 -- \
        --preset rapid-start-2026 -n 1000000 -o run/
    ramp-lab ndq --local 2 -- 'group_by(_.group) { count() }' logs/*.ndjson

(`python -m ramp_lab` and `python -m ramp_lab.dist` are the same program.)

fleet: the driver never parses `ramp fleet`'s command line: it asks ramp
(`ramp fleet ARGS --describe`) for the run directory and options. Shard K
of S runs `ramp fleet -j 1 ARGS --shard K/S -q --no-charts -o SCRATCH` on a
worker (a later flag overrides an earlier one, so a user's `-j` wins over
the driver's default of one thread per task, and the driver's `-o` over
the user's); the shard's manifest lists the files the merge needs, which
come back to the driver and are written under OUT.shards/K; `ramp fleet
merge` then checks every shard, and every record's connection, and writes
OUT exactly as the single-process run would. A task whose worker dies is
run again on another worker (Dask reschedules it); a shard is written
under OUT.shards only once, from the one result the driver receives for
it, so no shard is ever counted twice. A task that fails (ramp exits
non-zero) is not retried: the same arguments would fail the same way.

ndq: one task per file runs `ndq --emit-partial QUERY FILE`; the driver
merges the partial states in a tree of `ndq --merge` calls (fan-in 8).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar, Union

from . import binary
from .proc import RampError, run_checked

T = TypeVar("T")


@dataclass(frozen=True)
class Ok(Generic[T]):
    """A task that succeeded, with its value."""

    value: T


@dataclass(frozen=True)
class Err:
    """A task that failed: ramp's message. Failures travel as values so
    that Dask does not retry them (only a lost worker is retried)."""

    message: str


# A task's outcome.
Outcome = Union[Ok[Any], Err]


def _outcome(f: Callable[..., T], *args: Any) -> Outcome:
    try:
        return Ok(f(*args))
    except RampError as e:
        return Err(str(e))


def _value(o: Outcome) -> Any:
    if isinstance(o, Err):
        raise RampError(o.message)
    return o.value


# `ramp fleet` flags that make no sense after `ramp-lab fleet --`, and why:
# each is refused with one line before anything runs.
_REFUSED_FLEET_FLAGS = {
    "--list-presets": "lists ramp's presets and runs nothing: run `ramp fleet --list-presets`",
    "--help": "for ramp fleet's options run `ramp fleet --help`; for ramp-lab's, `ramp-lab --help`",
    "-h": "for ramp fleet's options run `ramp fleet --help`; for ramp-lab's, `ramp-lab --help`",
    "--describe": "is what ramp-lab itself asks ramp; run `ramp fleet ... --describe`",
    "--shard": "is set by ramp-lab, which runs every shard of the run itself "
               "(--shards N before -- says how many)",
    "--resume": "is not supported: each shard runs afresh in a directory of its own; "
                "run again without --resume (to resume a run, use `ramp fleet --resume` itself)",
}


def check_fleet_args(fleet_args: Sequence[str]) -> None:
    """Refuses, with one line, the `ramp fleet` flags the driver cannot
    honour: --list-presets, --help/-h and --describe (which make ramp print
    something other than a run's description), --shard (the driver shards)
    and --resume (shards run in fresh directories). Without this, the first
    three ended in a JSON traceback, --shard was silently overridden and
    --resume failed on the shard's scratch directory."""
    for a in fleet_args:
        if a == "--":
            break
        flag = a.split("=", 1)[0] if a.startswith("--") else a
        why = _REFUSED_FLEET_FLAGS.get(flag)
        if why is not None:
            raise RampError(f"fleet: {flag} after --: {why}")


def describe(fleet_args: Sequence[str], ramp: str | None = None) -> dict[str, Any]:
    """What `ramp fleet ARGS` would do (`--describe`): its run directory,
    options and plan, checked by ramp itself."""
    check_fleet_args(fleet_args)
    exe = ramp or binary("ramp")
    out = run_checked([exe, "fleet", *fleet_args, "--describe"], "ramp fleet")
    try:
        d: dict[str, Any] = json.loads(out)
    except ValueError:
        first = out.decode(errors="replace").strip().splitlines()[:1]
        raise RampError("fleet: `ramp fleet ARGS --describe` did not describe a run; it printed: "
                        f"{first[0] if first else '(nothing)'}") from None
    if not isinstance(d, dict) or "out" not in d:
        raise RampError("fleet: `ramp fleet ARGS --describe` did not describe a run")
    if d.get("shard") is not None:
        # A spelling the token check missed: ramp itself says a shard is set.
        raise RampError(f"fleet: --shard after --: {_REFUSED_FLEET_FLAGS['--shard']}")
    return d


def _shard_cmd(exe: str, fleet_args: Sequence[str], k: int, n: int, out: Path) -> list[str]:
    return [exe, "fleet", "-j", "1", *fleet_args, "--shard", f"{k}/{n}", "-q", "--no-charts",
            "-o", str(out)]


def run_shard(fleet_args: Sequence[str], k: int, n: int,
              ramp: str | None = None) -> dict[str, bytes]:
    """Runs shard k/n on the worker in a scratch directory and returns the
    files its manifest lists, as bytes."""
    exe = ramp or binary("ramp")
    with tempfile.TemporaryDirectory(prefix=f"ramp-shard-{k}-") as d:
        out = Path(d) / "shard"
        run_checked(_shard_cmd(exe, fleet_args, k, n, out), f"shard {k}/{n}")
        names = ["shard.json", *json.loads((out / "shard.json").read_text()).get("files", [])]
        return {f: (out / f).read_bytes() for f in names}


def run_shard_into(fleet_args: Sequence[str], k: int, n: int, shared: str,
                   ramp: str | None = None) -> str:
    """Runs shard k/n on the worker into shared/k (a directory the driver
    and the workers both see) and returns that path. Safe to run twice (a
    second run of a finished shard finds shared/k and stops)."""
    exe = ramp or binary("ramp")
    parent = Path(shared)
    with tempfile.TemporaryDirectory(prefix=f"ramp-shard-{k}-", dir=parent) as d:
        out = Path(d) / "shard"
        run_checked(_shard_cmd(exe, fleet_args, k, n, out), f"shard {k}/{n}")
        final = parent / str(k)
        try:
            # Atomic: a shard directory appears whole or not at all, once.
            os.rename(out, final)
        except OSError:
            if not (final / "shard.json").exists():
                raise
        return str(final)


def _client(args: argparse.Namespace) -> tuple[Any, Any]:
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


def dist_fleet(fleet_args: Sequence[str], shards: int, client: Any, progress: bool = True,
               shared: bool = False) -> Path:
    """Runs the fleet described by `fleet_args` (ramp fleet's arguments,
    with -o OUT) as `shards` tasks on `client`, then merges into OUT.
    `shared`: the workers see the driver's file system (a LocalCluster, or
    a cluster on a shared mount), so shards are written in place instead of
    sent back as bytes."""
    from distributed import as_completed

    if shards < 1:
        raise RampError(f"--shards {shards}: need at least 1")
    ramp = os.environ.get("RAMP_BIN")
    d = describe(fleet_args, ramp)
    out = Path(d["out"])
    if (out / "records.ndjson").exists():
        # Refused now, not after every shard has run.
        raise RampError(f"{out / 'records.ndjson'} exists: choose another -o (ramp fleet merge "
                        "writes a new run)")
    staging = out.with_name(out.name + ".shards")
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True)
    try:
        futures = [
            (client.submit(_outcome, run_shard_into, list(fleet_args), k, shards,
                           str(staging.resolve()), ramp,
                           key=f"ramp-shard-{k}-of-{shards}-{time.time_ns()}", pure=False)
             if shared else
             client.submit(_outcome, run_shard, list(fleet_args), k, shards, ramp,
                           key=f"ramp-shard-{k}-of-{shards}-{time.time_ns()}", pure=False))
            for k in range(shards)
        ]
        index = {f.key: k for k, f in enumerate(futures)}
        done = 0
        t0 = time.monotonic()
        for fut in as_completed(futures):
            k = index[fut.key]
            files = _value(fut.result())
            sd = staging / str(k)
            if not shared:
                if sd.exists():
                    # One result per shard: a second would be a duplicate.
                    raise RampError(f"shard {k} returned twice")
                sd.mkdir()
                for name, data in files.items():
                    (sd / name).write_bytes(data)
            done += 1
            if progress:
                print(f"ramp_lab.dist: shard {k} done ({done}/{shards}, "
                      f"{time.monotonic() - t0:.1f} s)", file=sys.stderr, flush=True)
        cmd = [ramp or binary("ramp"), "fleet", "merge",
               *[str(staging / str(k)) for k in range(shards)], "-o", str(out)]
        if d.get("no_charts"):
            cmd.append("--no-charts")
        t1 = time.monotonic()
        run_checked(cmd, "ramp fleet merge")
        if progress:
            print(f"ramp_lab.dist: merged {shards} shards into {out} in "
                  f"{time.monotonic() - t1:.1f} s", file=sys.stderr, flush=True)
    finally:
        # Finished shards and a killed worker's half-written temporary
        # shard alike: nothing under OUT.shards outlives the run.
        shutil.rmtree(staging, ignore_errors=True)
    return out


def run_partial(query: str, path: str, ndq: str | None = None) -> bytes:
    """`ndq --emit-partial QUERY FILE` on a worker: the file's partial state."""
    exe = ndq or binary("ndq")
    return run_checked([exe, "--emit-partial", "-P", "1", query, path], f"ndq on {path}")


def merge_partials(query: str, parts: list[Outcome], final: bool,
                   ndq: str | None = None) -> bytes:
    """`ndq --merge` of partial states; `final` prints the result, else a
    partial state again (for the next level of the tree)."""
    exe = ndq or binary("ndq")
    with tempfile.TemporaryDirectory(prefix="ndq-merge-") as d:
        files = []
        for i, o in enumerate(parts):
            f = Path(d) / f"{i}.partial"
            f.write_bytes(_value(o))
            files.append(str(f))
        cmd = [exe, "--merge", query, *files]
        if not final:
            cmd.insert(1, "--emit-partial")
        return run_checked(cmd, "ndq --merge")


def dist_ndq(query: str, files: Sequence[str], client: Any, fan_in: int = 8) -> bytes:
    """The query's result over `files`, one task per file, merged in a tree."""
    if not files:
        raise RampError("ndq: give at least one input file")
    if fan_in < 2:
        raise RampError(f"fan-in {fan_in}: need at least 2")
    ndq = os.environ.get("NDQ_BIN")
    level = [client.submit(_outcome, run_partial, query, f, ndq, pure=False) for f in files]
    while len(level) > fan_in:
        level = [client.submit(_outcome, merge_partials, query, level[i:i + fan_in], False, ndq,
                               pure=False)
                 for i in range(0, len(level), fan_in)]
    result: bytes = _value(
        client.submit(_outcome, merge_partials, query, level, True, ndq, pure=False).result())
    return result


def _positive(s: str) -> int:
    v = int(s)
    if v < 1:
        raise argparse.ArgumentTypeError(f"{v}: need at least 1")
    return v


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--" in argv:
        i = argv.index("--")
        own, passthrough = argv[:i], argv[i + 1:]
    else:
        own, passthrough = argv, []
    ap = argparse.ArgumentParser(
        prog="ramp-lab", description=(__doc__ or "").split("\n\n")[0]
    )
    ap.add_argument("what", choices=["fleet", "ndq"])
    where = ap.add_mutually_exclusive_group(required=True)
    where.add_argument("--local", type=_positive, metavar="N",
                       help="start a LocalCluster of N workers")
    where.add_argument("--scheduler", metavar="ADDR", help="an existing Dask scheduler, tcp://HOST:8786")
    ap.add_argument("--shards", type=_positive, default=None,
                    help="fleet: shards (default: 4 per worker)")
    ap.add_argument("--shared-fs", action="store_true",
                    help="fleet: the workers see this machine's file system (implied by --local); "
                         "shards are written in place, not sent back")
    a = ap.parse_args(own)
    # Checked before a cluster starts.
    if a.what == "ndq" and len(passthrough) < 2:
        ap.error("ndq: give the query and at least one file after --")
    try:
        if a.what == "fleet":
            describe(passthrough, os.environ.get("RAMP_BIN"))
        client, cluster = _client(a)
    except RampError as e:
        print(f"ramp-lab: {e}", file=sys.stderr)
        return 2
    try:
        if a.what == "fleet":
            workers = max(1, len(client.scheduler_info().get("workers", {})))
            shards = a.shards or 4 * workers
            out = dist_fleet(passthrough, shards, client, shared=a.shared_fs or bool(a.local))
            print(f"wrote {out}")
        else:
            sys.stdout.buffer.write(dist_ndq(passthrough[0], passthrough[1:], client))
    except RampError as e:
        print(f"ramp-lab: {e}", file=sys.stderr)
        return 2
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
