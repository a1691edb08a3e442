"""The coordinator at fleet scale (issue 31): synthesises fleet-sized inputs and times each stage
of the head node's work on them, with its peak memory and the growth factor between sizes.

Stages (each a separate scalecheck process, timed and measured by the kernel's rusage):
  plan      pairs --plan-only --nodes N, every strategy            N = the size
  judge     judge --topology dgx-a100 of an nccl-tests log of N rows  N rows (N/2 lines: each
            line an out-of-place and an in-place row)
  report    report of a coll result of N rows (each held to the model: a check a row)
  compare   report DIR1 DIR2: two such results compared             N rows each
  baseline  baseline create over RUNS such results                  N rows each
  coll      a real coll sweep of about N cases (2 ranks, 20 iterations and 5 warm-ups a case, as
            a user runs it): the share of its wall time spent writing results

usage: python3 bench/fleet.py SCALECHECK [--sizes 10000,100000] [--stages plan,judge,...]
           [--runs 10] [--check-growth F] [--work DIR]
Prints one line per stage and size: seconds, peak MB, and the growth of time and memory from the
previous size over the growth of the size (1.0 is linear). --check-growth F exits 1 when a
stage's time grows more than F times the size's growth (plus a small-time allowance), so CI
holds the costs linear with a ratio, not a clock.
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

STRATEGIES = ["all", "quick", "bisect", "switch"]


def run_measured(argv, env=None):
    """(seconds, peak RSS in MB, exit code) of one process."""
    t0 = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.monotonic() - t0
    stderr = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    return seconds, usage.ru_maxrss / 1024.0, code, stderr


def nccl_log(path, rows, slow=frozenset()):
    """An nccl-tests all_reduce_perf log of `rows` lines on 8 GPUs of one node: 32 B apart, a
    12 us floor and 132 GB/s of algorithm bandwidth (dgx-a100.yaml's band holds them); the lines
    in `slow` 20x slower (a degraded twin)."""
    with open(path, "w") as f:
        f.write("# Collective test starting: all_reduce_perf\n# nThread 1 nGpus 1 minBytes 8 "
                "maxBytes 1 step: 1(bytes) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 "
                "graph: 0\n#\n# Using devices\n")
        for r in range(8):
            f.write(f"#  Rank {r:2d} Group  0 Pid {100 + r:6d} on     dgx-01 device {r} "
                    f"[0000:07:00] NVIDIA A100-SXM4-80GB\n")
        f.write("#       size         count      type   redop    root     time   algbw   busbw "
                "#wrong     time   algbw   busbw #wrong\n")
        for i in range(rows):
            s = 32 * (i + 1)  # lines
            t = (12.0 + s / 132e3) * (20 if i in slow else 1)
            a = s / t / 1e3
            cell = f"{t:8.2f} {a:7.2f} {a * 1.75:7.2f}      0"
            f.write(f"{s:12d} {s // 4:12d}     float     sum      -1 {cell} {cell}\n")
        f.write("# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 1\n#\n")


def template(scalecheck, work):
    """A real coll result (2 ranks, held to localhost.yaml): the header and one row and check
    to copy."""
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    topo = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "topologies",
                        "localhost.yaml")
    subprocess.run(["mpirun", "-np", "2", "--oversubscribe", "--bind-to", "none", scalecheck,
                    "coll", "--collective", "allreduce", "-b", "1K", "-e", "1K", "-n", "5", "-w",
                    "1", "--topology", topo, "--results-dir", os.path.join(work, "template")],
                   env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # a FAIL (exit 1: a loaded machine misses localhost.yaml) still makes the rows to copy
    paths = glob.glob(os.path.join(work, "template", "*", "result.json"))
    if not paths:
        sys.exit("fleet: the template coll run made no result.json")
    path = paths[0]
    return json.load(open(path))


def coll_result(doc, directory, rows, slow=1.0):
    """doc's header with `rows` rows (sizes 8 B apart) and a check each, written row by row and
    compact, as scalecheck writes its rows."""
    os.makedirs(directory, exist_ok=True)
    row0, check0 = doc["results"][0], doc["checks"][0]
    head = {k: v for k, v in doc.items() if k not in ("results", "checks", "summary", "verdict",
                                                      "telemetry")}
    head["results_dir"] = directory
    with open(os.path.join(directory, "result.json"), "w") as f:
        f.write(json.dumps(head)[:-1] + ', "results": [\n')
        for i in range(rows):
            s = 8 * (i + 1)
            t = (5.0 + s / 1e4) * slow
            row = dict(row0, size_bytes=s, count=s // 4, count_per_rank=s // 4, time_us=t,
                       time_us_min=t, time_us_max=t, time_us_p99=t, time_us_mean=t,
                       ci95_lo_us=t, ci95_hi_us=t, host_time_us=t, host_time_us_p99=t,
                       algbw_GBps=s / t / 1e3, busbw_GBps=s / t / 1e3)
            f.write(("," if i else "") + json.dumps(row, separators=(",", ":")) + "\n")
        f.write('], "checks": [\n')
        for i in range(rows):
            s = 8 * (i + 1)
            f.write(("," if i else "") + json.dumps(dict(
                check0, name=f"allreduce float sum {s} B out-of-place"), separators=(",", ":"))
                    + "\n")
        f.write('], "summary": {"wrong_total": 0, "avg_busbw_GBps": 1, "cases": %d}, '
                '"verdict": {"checks": %d, "pass": %d, "warn": 0, "fail": 0, '
                '"verdict": "PASS"}}\n' % (rows, rows, rows))


def coll_cases(scalecheck, work, cases):
    """A real coll sweep of about `cases` cases on 2 ranks; the share of its wall time that went
    to writing results, as coll prints it."""
    out = os.path.join(work, "coll")
    # allreduce, every type and reduction: 10 types x 5 ops x 2 placements a size
    sizes = max(1, cases // 100)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    argv = ["mpirun", "-np", "2", "--oversubscribe", "--bind-to", "none", scalecheck, "coll",
            "--collective", "allreduce", "-d", "all", "-o", "all", "-b", "8", "-e",
            str(8 * sizes), "-i", "8", "-n", "20", "-w", "5", "--results-dir", out]
    t0 = time.monotonic()
    proc = subprocess.run(argv, capture_output=True, text=True, env=env)
    seconds = time.monotonic() - t0
    share = None
    for line in proc.stdout.splitlines():
        if "results written in" in line:
            share = line.strip("# ")
    rows = 0
    for path in glob.glob(os.path.join(out, "*", "result.json")):
        rows = len(json.load(open(path)).get("results", []))
    shutil.rmtree(out, ignore_errors=True)
    return seconds, rows, share, proc.returncode


def stage_inputs(scalecheck, work, stage, n, runs, doc):
    """The command line of one stage at size n (its inputs made on the way)."""
    d = os.path.join(work, f"n{n}")
    if stage == "judge":
        log = os.path.join(d, "log.txt")
        if not os.path.exists(log):
            os.makedirs(d, exist_ok=True)
            nccl_log(log, n // 2)
        topo = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "topologies",
                            "dgx-a100.yaml")
        return [scalecheck, "judge", "--topology", topo, "--collective", "allreduce", "--results-dir",
                os.path.join(work, "out"), log]
    first = os.path.join(d, "run0")
    if stage in ("report", "compare", "baseline") and not os.path.exists(first):
        coll_result(doc, first, n)
    if stage == "report":
        return [scalecheck, "report", first]
    if stage == "compare":
        second = os.path.join(d, "slow")
        if not os.path.exists(second):
            coll_result(doc, second, n, slow=1.2)
        return [scalecheck, "report", first, second]
    # baseline: the same result under `runs` names (hard links: no more disk)
    dirs = [first]
    for k in range(1, runs):
        other = os.path.join(d, f"run{k}")
        if not os.path.exists(other):
            os.makedirs(other)
            os.link(os.path.join(first, "result.json"), os.path.join(other, "result.json"))
        dirs.append(other)
    return [scalecheck, "baseline", "create", "-o", os.path.join(work, "out", "b.json")] + dirs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scalecheck")
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--stages", default="plan,judge,report,compare,baseline,coll")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--check-growth", type=float, default=0.0)
    ap.add_argument("--work")
    a = ap.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")]
    work = a.work or tempfile.mkdtemp(prefix="fleet-")
    os.makedirs(os.path.join(work, "out"), exist_ok=True)
    stages = a.stages.split(",")
    doc = template(a.scalecheck, work) if set(stages) & {"report", "compare", "baseline"} else None
    bad = []
    try:
        for stage in stages:
            if stage == "coll":
                for n in sizes:
                    s, rows, share, code = coll_cases(a.scalecheck, work, n)
                    print(f"coll      {rows:>8d} cases  {s:8.2f} s  exit {code}  {share}")
                continue
            names = [f"plan-{x}" for x in STRATEGIES] if stage == "plan" else [stage]
            for name in names:
                prev = None
                for n in sizes:
                    if stage == "plan":
                        argv = [a.scalecheck, "pairs", "--plan-only", "--nodes", str(n),
                                "--strategy", name[5:]]
                    else:
                        argv = stage_inputs(a.scalecheck, work, stage, n, a.runs, doc)
                    s, mb, code, err = run_measured(argv)
                    growth = ""
                    if prev is not None:
                        k = n / prev[0]
                        tg, mg = s / max(prev[1], 1e-3), mb / max(prev[2], 1.0)
                        growth = f"  time x{tg:5.1f}  memory x{mg:5.1f}  (size x{k:g})"
                        # a stage under 0.3 s is mostly the process starting: not held
                        if a.check_growth and s > 0.3 and tg > a.check_growth * k:
                            bad.append(f"{name}: time grew x{tg:.1f} for size x{k:g}")
                    status = "" if code in (0, 1) else f"  EXIT {code}: {err.strip()[-200:]}"
                    if code not in (0, 1):
                        bad.append(f"{name} at {n}: exit {code}")
                    print(f"{name:<14s} {n:>8d}  {s:8.2f} s  {mb:8.1f} MB{growth}{status}",
                          flush=True)
                    prev = (n, s, mb)
    finally:
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)
    for b in bad:
        print("growth: " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
