#!/usr/bin/env python3
"""Side-by-side speed of ndq, DuckDB, jq (and jrf when JRF_CMD is set) on the
same ~1 GB per-connection stats log, at 1 and 2 threads.

    bench/ndq/compare.py                 # generates the log if missing
    NDQ_BENCH_DIR=/scratch LINES=250000 RUNS=3 bench/ndq/compare.py
    JRF_CMD="ruby /path/to/jrf/exe/jrf" bench/ndq/compare.py

Queries (the talk's two benchmark queries, then two that need whole rows):
  Q1  min(_["rtt.minimum"])
  Q2  rows with 200 KB <= content_length < 400 KB, grouped by "group",
      TTLB percentiles 5, 15, ..., 95 (nearest rank = DuckDB quantile_disc)
  Q3  select(_.ttlb > 100000) >> _      (filter, then the whole row)
  Q4  keys(_) >> count()                (every row parsed whole)

Method: warm page cache, best wall time of RUNS runs per cell. ndq and jq are
timed as whole processes; DuckDB is timed in-process around
`execute().fetchall()` (so Python start-up and import are not counted against
it), with `SET threads=N`. jq is single-threaded and slow, so it runs on the
first JQ_MB megabytes (whole lines) and its time is scaled to the full file;
the table says so. Results of ndq and DuckDB are compared and must agree.
"""
import json, os, shutil, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
# The log generator is not part of the repository: point GEN_H2O_LOG at it.
GEN = os.environ.get("GEN_H2O_LOG")
DIR = os.environ.get("NDQ_BENCH_DIR", "/tmp/ndq-bench")
LINES = int(os.environ.get("LINES", "250000"))
RUNS = int(os.environ.get("RUNS", "3"))
JQ_MB = int(os.environ.get("JQ_MB", "100"))
THREADS = [int(t) for t in os.environ.get("THREADS", "1,2").split(",")]
PS = [0.05, 0.15, 0.25, 0.35, 0.45, 0.55, 0.65, 0.75, 0.85, 0.95]

NDQ_Q1 = 'min(_["rtt.minimum"])'
NDQ_Q2 = ('select(_["content_length"] >= 200000 && _["content_length"] < 400000) >> '
          'group_by(_["group"]) { percentile(_["ttlb"], range(0.05, 0.95, 0.1)) }')
JRF_Q2 = ('select(_["content_length"] >= 200000 && _["content_length"] < 400000) >> '
          'group_by(_["group"]) { |r| percentile(r["ttlb"], 0.05.step(0.95, 0.1)) }')
DUCK_Q1 = 'SELECT min("rtt.minimum") FROM read_ndjson(\'{f}\')'
DUCK_Q2 = ('SELECT "group", quantile_disc(ttlb, {ps}::DOUBLE[]) FROM read_ndjson(\'{f}\') '
           'WHERE content_length >= 200000 AND content_length < 400000 GROUP BY "group"')
NDQ_Q3 = 'select(_.ttlb > 100000) >> _'
DUCK_Q3 = 'SELECT * FROM read_ndjson(\'{f}\') WHERE ttlb > 100000'
JQ_Q3 = 'inputs | select(.ttlb > 100000)'
NDQ_Q4 = 'keys(_) >> count()'
DUCK_Q4 = 'SELECT count(*) FROM read_ndjson(\'{f}\')'
JQ_Q4 = 'reduce (inputs | keys) as $k (0; . + 1)'
JQ_Q1 = 'reduce inputs."rtt.minimum" as $x (null; if . == null or $x < . then $x else . end)'
JQ_Q2 = ('reduce (inputs | select(.content_length >= 200000 and .content_length < 400000)) as $r ({}; .[$r.group] += [$r.ttlb])'
         ' | map_values(sort as $s | ($s | length) as $n | [0.05, 0.15, 0.25, 0.35, 0.45, 0.55, 0.65, 0.75, 0.85, 0.95]'
         ' | map($s[(. * $n | ceil) - 1]))')


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def best(fn):
    """Best wall time of RUNS runs, with that run's CPU time (user + sys)."""
    runs = [fn() for _ in range(RUNS)]
    t, cpu, out = min(runs, key=lambda r: r[0])
    return t, cpu, out


def timed(cmd):
    r0 = os.times()
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True)
    t = time.perf_counter() - t0
    r1 = os.times()
    cpu = (r1.children_user - r0.children_user) + (r1.children_system - r0.children_system)
    return t, cpu, p.stdout.decode()


DUCK_RUNNER = r"""
import duckdb, json, sys, time
con = duckdb.connect()
con.execute(f"SET threads={int(sys.argv[2])}")
con.execute("SET enable_progress_bar=false")
t0 = time.perf_counter()
c0 = time.process_time()
rows = con.execute(sys.argv[1]).fetchall()
print(json.dumps({"t": time.perf_counter() - t0, "cpu": time.process_time() - c0, "rows": rows}))
"""


def duck(sql, threads):
    p = subprocess.run([sys.executable, "-c", DUCK_RUNNER, sql, str(threads)], stdout=subprocess.PIPE, check=True)
    r = json.loads(p.stdout)
    return r["t"], r["cpu"], r["rows"]


def main():
    os.makedirs(DIR, exist_ok=True)
    f = os.path.join(DIR, f"h2o-{LINES}.ndjson")
    if not os.path.exists(f):
        if not GEN:
            sys.exit("gen-h2o-log not found; set GEN_H2O_LOG")
        print(f"generating {f} ...", file=sys.stderr)
        with open(f + ".tmp", "w") as out:
            sh([sys.executable, GEN, "--lines", str(LINES), "--seed", "1"], stdout=out)
        os.rename(f + ".tmp", f)
    size = os.path.getsize(f)
    slice_f = os.path.join(DIR, f"h2o-{LINES}-{JQ_MB}mb.ndjson")
    if not os.path.exists(slice_f):
        with open(f, "rb") as src, open(slice_f, "wb") as dst:
            dst.write(src.read(JQ_MB << 20).rsplit(b"\n", 1)[0] + b"\n")
    slice_size = os.path.getsize(slice_f)
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(REPO, "target"))
    sh(["cargo", "build", "--release", "-q", "-p", "ramp-query"], cwd=REPO)
    ndq = os.path.join(target, "release", "ndq")
    with open(f, "rb") as fh:  # warm the page cache
        while fh.read(1 << 24):
            pass

    have_duck = subprocess.run([sys.executable, "-c", "import duckdb"], capture_output=True).returncode == 0
    have_jq = shutil.which("jq") is not None
    jrf = os.environ.get("JRF_CMD", "").split()
    results = {}  # (tool, query, threads) -> (seconds for full file, note)
    outputs = {}
    queries = [(NDQ_Q1, DUCK_Q1, JQ_Q1, NDQ_Q1), (NDQ_Q2, DUCK_Q2, JQ_Q2, JRF_Q2),
               (NDQ_Q3, DUCK_Q3, JQ_Q3, NDQ_Q3), (NDQ_Q4, DUCK_Q4, JQ_Q4, NDQ_Q4)]
    for qi, (nq, dq, jq, jrq) in enumerate(queries, 1):
        for t in THREADS:
            s, cpu, out = best(lambda: timed([ndq, "-P", str(t), nq, f]))
            results[("ndq", qi, t)] = (s, cpu, "")
            outputs[("ndq", qi, t)] = out
            if have_duck:
                s, cpu, rows = best(lambda: duck(dq.format(f=f, ps=PS), t))
                results[("DuckDB", qi, t)] = (s, cpu, "in-process")
                outputs[("DuckDB", qi, t)] = rows
            if jrf:
                s, cpu, _ = best(lambda: timed(jrf + (["-P", str(t)] if t > 1 else []) + [jrq, f]))
                results[("jrf", qi, t)] = (s, cpu, "")
        if have_jq:
            s, cpu, _ = timed(["jq", "-n", jq, slice_f])  # one run: jq is slow and its spread is small
            k = size / slice_size
            results[("jq", qi, 1)] = (s * k, cpu * k, f"{s:.2f} s on {slice_size / 1e6:.0f} MB, scaled")

    # Results must agree.
    agree = "n/a (DuckDB not installed)"
    if have_duck:
        n1 = json.loads(outputs[("ndq", 1, THREADS[0])])
        d1 = outputs[("DuckDB", 1, THREADS[0])][0][0]
        n2 = json.loads(outputs[("ndq", 2, THREADS[0])])
        d2 = {g: v for g, v in outputs[("DuckDB", 2, THREADS[0])]}
        n3 = len(outputs[("ndq", 3, THREADS[0])].splitlines())
        d3 = len(outputs[("DuckDB", 3, THREADS[0])])
        n4 = json.loads(outputs[("ndq", 4, THREADS[0])])
        d4 = outputs[("DuckDB", 4, THREADS[0])][0][0]
        ok = n1 == d1 and n2 == d2 and n3 == d3 and n4 == d4
        agree = "yes" if ok else f"NO: ndq {n1} {n2} {n3} {n4} vs DuckDB {d1} {d2} {d3} {d4}"
        same_p = all(outputs[("ndq", q, t)] == outputs[("ndq", q, THREADS[0])] for q in (1, 2, 3, 4) for t in THREADS)
        agree += "; ndq output identical at every -P" if same_p else "; ndq output DIFFERS across -P"

    print(f"file: {f} ({size / 1e9:.3f} GB, {LINES} lines); best of {RUNS} (wall); warm cache")
    print(f"machine: {os.cpu_count()} CPUs, {os.uname().machine}, load average at end {os.getloadavg()[0]:.2f}")
    print(f"results agree (ndq vs DuckDB): {agree}")
    print()
    print("| query | tool | threads | wall (s) | GB/s | CPU (s) | GB per CPU-second | CPU vs ndq | wall vs ndq | note |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for qi in (1, 2, 3, 4):
        for t in THREADS:
            base, base_cpu, _ = results[("ndq", qi, t)]
            for tool in ("ndq", "DuckDB", "jrf", "jq"):
                key = (tool, qi, t if tool != "jq" else 1)
                if key not in results or (tool == "jq" and t != THREADS[0]):
                    continue
                s, cpu, note = results[key]
                tt = t if tool != "jq" else 1
                print(f"| Q{qi} | {tool} | {tt} | {s:.2f} | {size / s / 1e9:.2f} | {cpu:.2f} "
                      f"| {size / max(cpu, 1e-9) / 1e9:.2f} | {cpu / max(base_cpu, 1e-9):.1f}x | {s / base:.1f}x | {note} |")


if __name__ == "__main__":
    main()
