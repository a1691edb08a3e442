"""Layouts that do not fit the ranks are refused before anything runs, with a clear message and
exit 2 (run's other bad options and workload files, which need no peer, are held in process by
tests/unit/test_refusals.c); validate names file:line:column."""
import os

from sclib import *

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
W = lambda name: os.path.join(ROOT, "workloads", name + ".yaml")


def bad_workload(wd, name, text):
    path = os.path.join(wd, name + ".yaml")
    with open(path, "w") as f:
        f.write(text)
    return path


def test():
    wd = workdir("refusals")
    base = os.path.join(wd, "results")
    good = open(W("bert-large-dp")).read()
    cases = [
        (4, ["--workload", W("gpt3-13b-3d"), "--tp", "2", "--pp", "2", "--scales", "2"],
         "tp 2 x pp 2 = 4 does not divide 2 ranks"),
        (4, ["--workload", W("gpt3-13b-3d")], "tp 8 x pp 2 = 16 ranks per model replica"),
        (2, ["--workload", W("bert-large-dp"), "--scales", "4"],
         "--scales: 4 GPUs per node asked, but a node has only 2 ranks"),
        (2, ["--workload", W("bert-large-dp"), "--nodes", "2"], "--nodes: 2 nodes asked, the job has 1"),
    ]
    for np_, args, message in cases:
        rc, out, err, _ = mpirun(np_, ["run", "--results-dir", base] + args, timeout=60)
        expect(rc == 2, f"{args}: exit {rc}, expected 2\n{err[-800:]}")
        expect(message in err, f"{args}: expected '{message}' in:\n{err[-800:]}")
        expect(not os.path.exists(base), f"{args}: a results directory was made")
    # validate: good files pass, a bad one names file:line:column.
    rc, out, err, _ = mpirun(1, ["validate"] + [W(n) for n in ("bert-large-dp", "moe-small")])
    expect(rc == 0 and out.count(": ok (workload") == 2, f"validate good: {rc} {out} {err}")
    path = bad_workload(wd, "neg", good.replace("bucket_mb: 25", "bucket_mb: -5"))
    rc, out, err, _ = mpirun(1, ["validate", path])
    line = good.splitlines().index("  bucket_mb: 25") + 1
    expect(rc == 2 and f"{path}:{line}:14: data_parallel.bucket_mb: -5 is out of range" in err,
           f"validate bad: {rc} {err}")


main(test)
