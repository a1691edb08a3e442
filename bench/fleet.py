"""The coordinator at fleet scale (issue 31): synthesises fleet-sized inputs and times each stage
of the head node's work on them, with its peak memory and the growth factor between sizes.

Stages (each a separate scalecheck process, timed and measured by the kernel's rusage):
  plan      pairs --plan-only --nodes N, every strategy            N = the size
  judge     judge --topology dgx-a100 of an nccl-tests log of N rows  N rows (N/2 lines: each
            line an out-of-place and an in-place row)
  report    report of a coll result of N rows (each held to the model: a check a row)
  compare   report DIR1 DIR2: two such results compared             N rows each
  baseline  baseline create over RUNS such results                  N rows each
  coll      a real coll acceptance sweep of about N cases as users run one (every collective,
            type, operation and root, 8 B to 1 MB, 20 iterations and 5 warm-ups a case, on 2
            ranks; -N repeats it): the share of its wall time spent writing results (goal < 2 %)
  coll-small  about N cases of the smallest messages (the cheapest case: writing's worst share),
            the rows' cost a row and its growth between sizes (--check-growth holds it)

usage: python3 bench/fleet.py SCALECHECK [--sizes 10000,100000] [--stages plan,judge,...]
           [--runs 10] [--repeat 3] [--check-growth F] [--work DIR]
Prints one line per stage and size: seconds, peak MB, and the growth of time and memory from the
previous size over the growth of the size (1.0 is linear). Each figure is the best of --repeat
measurements (the quickest: what the code costs, less what the machine's other work added; one
sample on a busy machine once read a linear cost as x18 for x10). --check-growth F exits 1 when a
stage's time grows more than F times the size's growth (plus a small-time allowance), so CI
holds the costs linear with a ratio, not a clock.
"""
import argparse
import glob
import json
import os
import re
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


def best_of(repeat, measure, seconds):
    """The quickest of `repeat` calls of measure() by seconds(sample); a sample whose seconds()
    is None (a failed run) is returned at once."""
    best = None
    for _ in range(max(1, repeat)):
        sample = measure()
        if seconds(sample) is None:
            return sample
        if best is None or seconds(sample) < seconds(best):
            best = sample
    return best


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


# What `coll` prints of its writing (sc_drive_coll.c): the whole, the run, the rows, the report.
WRITTEN = re.compile(r"results written in ([0-9.]+) s \(([0-9.]+) % of the run's ([0-9.]+) s, "
                     r"(\d+) rows\): the rows ([0-9.]+) s .*the report and plots ([0-9.]+) s")
# An acceptance sweep as users run one: every collective, type, operation and root, 8 B to 1 MB,
# nccl-tests' 20 iterations and 5 warm-ups a case (about 8300 cases on 2 ranks a sweep).
ACCEPTANCE = ["--collective", "all", "-d", "all", "-o", "all", "-r", "all", "-b", "8", "-e", "1M",
              "-n", "20", "-w", "5"]
ACCEPTANCE_CASES = 8286


def coll_argv(stage, cases):
    """coll's options for about `cases` cases: the acceptance sweep repeated (-N), or (small)
    the smallest messages there are, 8 B apart, all-reduce of every type and operation (80 cases
    a size): the cheapest case, against which writing costs the most."""
    if stage == "coll":
        return ACCEPTANCE + ["-N", str(max(1, -(-cases // ACCEPTANCE_CASES)))]  # at least N
    sizes = max(1, cases // 80)
    return ["--collective", "allreduce", "-d", "all", "-o", "all", "-b", "8", "-e",
            str(8 * sizes), "-i", "8", "-n", "20", "-w", "5"]


def coll_cases(scalecheck, work, stage, cases):
    """A real coll sweep of about `cases` cases on 2 ranks: (the command's seconds, its exit
    code, and what coll says it spent writing: None, or (written s, its % of the run, run s,
    rows, rows s, report s))."""
    out = os.path.join(work, "coll")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    argv = ["mpirun", "-np", "2", "--oversubscribe", "--bind-to", "none", scalecheck, "coll",
            "--results-dir", out] + coll_argv(stage, cases)
    t0 = time.monotonic()
    proc = subprocess.run(argv, capture_output=True, text=True, env=env)
    seconds = time.monotonic() - t0
    shutil.rmtree(out, ignore_errors=True)
    m = WRITTEN.search(proc.stdout)
    if m is None:
        return seconds, proc.returncode, None
    written, pct, run_s, rows, rows_s, report_s = m.groups()
    return seconds, proc.returncode, (float(written), float(pct), float(run_s), int(rows),
                                      float(rows_s), float(report_s))


def coll_stage(scalecheck, work, stage, sizes, check_growth, repeat, bad):
    """Prints each size's sweep: its cases, the command's wall time, the share of it spent
    writing results (goal: under 2 % for the acceptance sweep), the rows' cost a row, and how
    the rows' writing grew from the previous size (1.0: linear; a whole-document rewrite a case
    grows with the square)."""
    prev = None
    for n in sizes:
        if stage == "coll" and n > 20000:
            print(f"{stage:<14s} {n:>8d}  left out: ~3 s a 1000 cases here (the goal is at 10^4)")
            continue
        s, code, w = best_of(repeat, lambda: coll_cases(scalecheck, work, stage, n),
                             lambda sample: None if sample[2] is None else sample[2][4])
        if w is None:
            bad.append(f"{stage} at {n}: exit {code}, no 'results written' line")
            print(f"{stage:<14s} {n:>8d}  {s:8.2f} s  EXIT {code}", flush=True)
            continue
        written, pct, run_s, rows, rows_s, report_s = w
        growth = ""
        if prev is not None:
            k = rows / prev[0]
            g = rows_s / max(prev[1], 1e-3)
            growth = f"  rows' writing x{g:5.1f}  (rows x{k:g})"
            # a few ms is mostly noise: held past 20 ms
            if check_growth and rows_s > 0.02 and g > check_growth * k:
                bad.append(f"{stage}: the rows' writing grew x{g:.1f} for rows x{k:g}")
        goal = ("  (goal < 2 %: " + ("met" if written / s < 0.02 else "missed") + ")"
                if stage == "coll" else "")
        print(f"{stage:<14s} {rows:>8d}  {s:8.2f} s  writing {written:6.3f} s = "
              f"{100 * written / s:5.2f} % of the command, {pct:5.2f} % of the "
              f"run's {run_s:.1f} s{goal}; rows {1e6 * rows_s / rows:5.2f} us a row, report and "
              f"plots {report_s:.3f} s{growth}", flush=True)
        if code not in (0, 1):
            bad.append(f"{stage} at {n}: exit {code}")
        prev = (rows, rows_s)


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
    ap.add_argument("--stages", default="plan,judge,report,compare,baseline,coll-small,coll")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=3)
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
            if stage in ("coll", "coll-small"):
                coll_stage(a.scalecheck, work, stage, sizes, a.check_growth, a.repeat, bad)
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
                    s, mb, code, err = best_of(
                        a.repeat, lambda: run_measured(argv),
                        lambda sample: None if sample[2] not in (0, 1) else sample[0])
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
