"""ramp_lab end to end: Dask runs equal single-process runs byte for byte,
also when a worker is killed mid-run; frames; ndq over Dask; refusals that
come before any work; errors that lead with ramp's own line."""

import filecmp
import json
import os
import signal
import threading
import time
from pathlib import Path

import pytest

import ramp_lab
from ramp_lab import dist

OUTPUTS = ["records.ndjson", "summary.json", "summary.md"]


def single(tmp_path, args, name="single"):
    out = tmp_path / name
    ramp_lab.fleet(*args, "--no-charts", out=out)
    return out


def same(a: Path, b: Path):
    for f in OUTPUTS:
        assert filecmp.cmp(a / f, b / f, shallow=False), f"{f} differs"


def test_dask_fleet_equals_the_single_process_run(tmp_path, cluster):
    """Shards sent back as bytes (workers without a shared file system)."""
    args = ["-n", "300", "--seed", "7"]
    want = single(tmp_path, args)
    got = dist.dist_fleet([*args, "--no-charts", "-o", str(tmp_path / "dask")], 5, cluster,
                          progress=False)
    same(want, got)
    assert not (tmp_path / "dask.shards").exists()


def test_a_sensitivity_study_on_dask_equals_the_single_process_study(tmp_path, cluster):
    """`ramp fleet --sensitivity` shards by point; the driver runs it as any
    fleet, and the merged study is the single-process one byte for byte."""
    args = ["-n", "20", "--seed", "4", "--sensitivity", "3"]
    want = single(tmp_path, args)
    for shards in (2, 5):
        got = dist.dist_fleet([*args, "--no-charts", "-o", str(tmp_path / f"dask{shards}")],
                              shards, cluster, progress=False)
        for f in ["points.ndjson", "sensitivity.json", "sensitivity.md"]:
            assert filecmp.cmp(want / f, got / f, shallow=False), f"{shards} shards: {f} differs"


def test_killing_a_worker_mid_run_changes_nothing(tmp_path, cluster):
    args = ["-n", "2400", "--seed", "3"]
    want = single(tmp_path, args)
    pids = cluster.run(os.getpid)
    victim = sorted(pids.values())[0]

    staging = tmp_path / "killed.shards"

    def kill_after_first_shard():
        # Mid-run: one shard is back, eleven are queued or running.
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if staging.exists() and any(p.name.isdigit() for p in staging.iterdir()):
                break
            time.sleep(0.01)
        os.kill(victim, signal.SIGKILL)

    t = threading.Thread(target=kill_after_first_shard)
    t.start()
    # Shards written in place (the workers share this file system).
    got = dist.dist_fleet([*args, "--no-charts", "-o", str(tmp_path / "killed")], 12, cluster,
                          progress=False, shared=True)
    t.join()
    # The worker really died (its nanny starts a new process).
    assert victim not in cluster.run(os.getpid).values()
    same(want, got)
    # The killed worker's temporary shard went with the staging directory.
    assert not staging.exists()


def test_frames(tmp_path):
    run = single(tmp_path, ["-n", "40", "--seed", "1"])
    r = ramp_lab.records(run)
    assert len(r) == 40 * 4
    for col in ["conn", "group", "ttlb-us", "num-packets.lost", "path.aqm", "pop", "access"]:
        assert col in r.columns, col
    s = ramp_lab.summary(run)
    assert set(s["kind"]) == {"global", "pop", "bin"}
    assert {"arm", "pctl_change_avg_pct", "p50_ms"} <= set(s.columns)
    # Every headline statistic with its 95 % confidence interval over
    # connections (the baseline has none: NaN), holding its estimate.
    g = s[(s["kind"] == "global") & (s["arm"] == "rapidstart")].iloc[0]
    for stat in ["pctl_change_avg_pct", "pctl_1_99_change_avg_pct", "mean_change_pct",
                 "median_change_pct"]:
        assert g[f"{stat}_ci95_lo"] <= g[stat] <= g[f"{stat}_ci95_hi"], stat
    import pandas as pd
    base = s[(s["kind"] == "global") & (s["arm"] == "baseline")].iloc[0]
    assert pd.isna(base["mean_change_pct_ci95_lo"])
    loss = ramp_lab.loss(run)
    assert set(loss["arm"]) == {"baseline", "jumpstart", "rapid-no-jump", "rapidstart"}
    df = ramp_lab.sim("--scenario", "seed-100m", "--cc", "newreno,rapidstart")
    assert list(df["cc.algorithm"].astype(str)) == ["newreno(iw=30)", "rapidstart(iw=30)"]


def test_ndq_over_dask_equals_ndq(tmp_path, cluster):
    run = single(tmp_path, ["-n", "60", "--seed", "2"])
    lines = (run / "records.ndjson").read_text().splitlines(keepends=True)
    files = []
    for i in range(5):
        f = tmp_path / f"part{i}.ndjson"
        f.write_text("".join(lines[i::5]))
        files.append(str(f))
    q = "group_by(_.group) { {n: count(), s: sum(_.ttlb), p: percentile(_.ttlb, [0.5, 0.9])} }"
    want = ramp_lab.run("ndq", ["-P", "1", q, *files])
    got = dist.dist_ndq(q, files, cluster, fan_in=2).decode()
    assert json.loads(got) == json.loads(want)


def test_a_shard_of_another_run_is_refused(tmp_path):
    staging = tmp_path / "s"
    for k, seed in [(0, "1"), (1, "2")]:
        files = dist.run_shard(["-n", "20", "--seed", seed], k, 2)
        assert isinstance(files, dict)
        d = staging / str(k)
        d.mkdir(parents=True)
        for name, data in files.items():
            (d / name).write_bytes(data)
    with pytest.raises(ramp_lab.RampError, match="different runs"):
        ramp_lab.run("ramp", ["fleet", "merge", str(staging / "0"), str(staging / "1"),
                              "-o", str(tmp_path / "m")])


def test_short_flags_glued_to_values_pass_through_untouched(tmp_path, cluster):
    """The driver asks ramp what the arguments mean instead of parsing them."""
    args = ["-n", "60", "--seed", "4"]
    want = single(tmp_path, args)
    out = tmp_path / "glued"
    got = dist.dist_fleet([*args, "-j2", f"-o{out}", "--no-charts"], 3, cluster, progress=False)
    assert got == out
    same(want, got)


def test_an_existing_run_is_refused_before_any_shard_runs(tmp_path, cluster):
    out = tmp_path / "taken"
    out.mkdir()
    (out / "records.ndjson").write_text("{}\n")
    with pytest.raises(ramp_lab.RampError, match="exists"):
        dist.dist_fleet(["-n", "20", "-o", str(out)], 2, cluster, progress=False)
    assert not (tmp_path / "taken.shards").exists()


def test_a_failing_shard_is_not_retried_and_leads_with_ramps_error(cluster):
    # A population file that is not there: deterministic, so one attempt.
    fut = cluster.submit(dist._outcome, dist.run_shard, ["--population", "/nonexistent.toml"],
                         0, 2, os.environ.get("RAMP_BIN"), pure=False)
    outcome = fut.result()
    assert isinstance(outcome, dist.Err), outcome
    msg = outcome.message
    first = msg.splitlines()[0]
    # ramp's own first line, naming the flag and the file.
    assert first.startswith("shard 0/2: ramp: error: --population"), msg
    assert "/nonexistent.toml" in first, msg


def test_bad_driver_arguments_fail_before_a_cluster_starts(capsys):
    with pytest.raises(SystemExit) as e:
        dist.main(["fleet", "--local", "0", "--", "-n", "10"])
    assert e.value.code == 2
    with pytest.raises(SystemExit) as e:
        dist.main(["ndq", "--local", "1", "--", "count()"])
    assert e.value.code == 2
    assert "at least one file" in capsys.readouterr().err
    assert dist.main(["fleet", "--local", "1", "--", "--arms", "only=newreno"]) == 2
    assert "ramp-lab: ramp fleet: ramp: error: --arms" in capsys.readouterr().err


def test_children_read_no_stdin():
    # `cat` with the driver's stdin would wait for the terminal.
    assert ramp_lab.proc.run_checked(["cat"]) == b""


def test_sim_appends_to_the_callers_file_and_never_removes_it(tmp_path):
    f = tmp_path / "mine.ndjson"
    f.write_text('{"kept": 1}\n')
    df = ramp_lab.sim("--scenario", "seed-100m", "--cc", "newreno", records=f)
    assert len(df) == 1 and "cc.algorithm" in df.columns
    assert f.read_text().startswith('{"kept": 1}\n')
    assert len(f.read_text().splitlines()) == 2


def test_one_version():
    from importlib import metadata

    try:
        assert ramp_lab.__version__ == metadata.version("ramp-lab")
    except metadata.PackageNotFoundError:
        assert ramp_lab.__version__ == "0+unknown"


def test_explorer_slice_equals_ndq_and_summary(tmp_path):
    """The explorer's slice from Python: its table equals ndq's percentiles
    on records.ndjson, and unfiltered, summary.json's global figures."""
    run = single(tmp_path, ["-n", "400", "--seed", "5"])
    s = ramp_lab.explorer_slice(run, "access=mobile&size-bin=1.6MB-3.2MB")
    t = ramp_lab.explorer_table(s)
    rows = [10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99]
    probs = ", ".join(str(p / 100) for p in rows)
    q = ('select(_.access == "mobile" && _["size-bin"] == "1.6MB-3.2MB" && _.completed) '
         f'>> group_by(_.group) {{ [count(), percentile_cont(_["ttlb-us"], [{probs}])] }}')
    ndq = json.loads(ramp_lab.run("ndq", [q, str(run / "records.ndjson")]))
    assert len(s) == ndq["baseline"][0] >= 5
    for arm, (n, ps) in ndq.items():
        assert n == len(s), "every path of the slice completed in every arm"
        for p, v in zip(rows, ps):
            assert t.loc[f"p{p}", arm] == pytest.approx(v / 1000, rel=1e-12)
    # Keyword filters are the same view.
    kw = ramp_lab.explorer_slice(run, access=["mobile"], size_bin=["1.6MB-3.2MB"])
    assert kw.equals(s)

    g = json.loads((run / "summary.json").read_text())["global"]
    t = ramp_lab.explorer_table(ramp_lab.explorer_slice(run))
    assert t.loc["n", "baseline"] == g["connections"]
    for a in g["arms"]:
        arm = a["arm"]
        assert round(t.loc["mean", arm], 4) == pytest.approx(a["mean_ms"], abs=1e-4)
        for d, v in zip([10, 20, 30, 40, 50, 60, 70, 80, 90], a["deciles_ms"]):
            assert round(t.loc[f"p{d}", arm], 4) == pytest.approx(v, abs=1e-4)
        if arm != "baseline":
            assert t.loc["avg-delta", f"Δ {arm}"] == pytest.approx(a["pctl_change_avg_pct"],
                                                                    abs=1e-4)
    # An empty slice is an empty frame, not an error.
    assert ramp_lab.explorer_slice(run, "path.rtt-ms=0..0.001").empty


@pytest.mark.parametrize("flags,named", [
    (["--list-presets"], "--list-presets"),
    (["--help"], "--help"),
    (["-h"], "-h"),
    (["--describe"], "--describe"),
    (["-n", "40", "--shard", "0/2"], "--shard"),
    (["-n", "40", "--shard=0/2"], "--shard"),
    (["-n", "40", "--resume"], "--resume"),
])
def test_fleet_flags_the_driver_cannot_honour_are_refused_with_one_line(tmp_path, capsys, flags,
                                                                          named):
    """Issue #36: --list-presets and --help ended in a JSON traceback,
    --shard was silently dropped and --resume failed on a shard's scratch
    directory. Each is now one line, before a cluster starts."""
    out = tmp_path / "run"
    assert dist.main(["fleet", "--local", "1", "--", *flags, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"ramp-lab: fleet: {named} after --: "), err
    assert len(err.strip().splitlines()) == 1, err
    assert not out.exists()
