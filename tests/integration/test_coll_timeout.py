"""A rank that stops answering: the others say which operation, size and peers they waited on,
the finished results stay written - in the run directory, --json's copy and nccl-tests' -J -
and the job ends with exit 3 within timeout + 10 s. With no bound on a wait (--timeout 0) the
run's --deadline ends it the same way (rank 0's watchdog: the reason says deadline).
A rank whose first connections never complete (start-hang: before the watchdog runs) ends the
job the same way, each rank naming the start's stage it waited in.
Uses the test-only fault switch SCALECHECK_TEST_FAULT=hang:RANK:SIZE and start-hang:RANK."""
import os
import time

import promtext
from sclib import *

TIMEOUT = 2


def test():
    wd = workdir("timeout")
    base = os.path.join(wd, "results")
    metrics = os.path.join(wd, "coll.prom")
    jpath, ntpath = os.path.join(wd, "coll.json"), os.path.join(wd, "nccl-tests.json")
    rc, out, err, _, secs = mpirun_from_output(
        3, ["coll", "-b", "8", "-e", "1M", "-f", "8", "-n", "5", "--timeout", str(TIMEOUT),
            "--metrics", metrics, "--json", jpath, "-J", ntpath, "--results-dir", base],
        env={"SCALECHECK_TEST_FAULT": "hang:1:4096"}, timeout=60)
    expect(rc == 3, f"exit {rc}, expected 3\n{err[-2000:]}")
    # from the run's first output (the hang follows three small sizes): mpirun's own start-up
    # is not the run's to bound
    expect(secs <= TIMEOUT + 10, f"ended {secs:.1f} s after it began, bound is {TIMEOUT + 10} s")
    lines = [l for l in err.splitlines() if "timeout:" in l]
    expect(lines, f"no timeout message in stderr:\n{err[-2000:]}")
    msg = lines[0]
    for fragment in ("allreduce", "4K B", "waiting on ranks 0-2", "host", "exit 3"):
        expect(fragment in msg, f"'{fragment}' missing from: {msg}")
    expect(any("rank 0" in l for l in lines) and any("rank 2" in l for l in lines),
           f"ranks 0 and 2 should both report: {lines}")
    dirs = run_dirs(base)
    expect(len(dirs) == 1, f"results dirs {dirs}")
    doc = load_json(os.path.join(dirs[0], "result.json"))
    sizes = [r["size_bytes"] for r in doc["results"]]
    # the final state: failed, the timeout as its reason, and the hung rank named from the
    # progress records (it waits on nobody while the others wait on it)
    expect(doc["state"] == "failed" and "timeout" in doc.get("reason", ""),
           f"state {doc['state']}, reason {doc.get('reason')}")
    expect("rank 1 (host" in doc.get("at_fault", "") and "rank 1 (host" in msg,
           f"the hung rank is not named: {doc.get('at_fault')!r}; {msg}")
    expect(sizes == [8, 8, 64, 64, 512, 512], f"finished sizes kept: {sizes}")
    # a job reading --json or -J sees the same ending (the watchdog's, not the main thread's)
    copy = load_json(jpath) if os.path.exists(jpath) else {}
    expect(copy.get("state") == "failed" and [r["size_bytes"] for r in copy["results"]] == sizes,
           f"--json: {copy.get('state')}, {len(copy.get('results', []))} rows")
    nt = load_json(ntpath) if os.path.exists(ntpath) else {}
    nt_sizes = sorted({r["size"] for r in nt.get("results", [])})
    expect(nt_sizes == [8, 64, 512], f"-J: sizes {nt_sizes} ({sorted(nt)})")
    # monitoring sees the run end: the metrics say failed, in the run directory and --metrics
    for path in (metrics, os.path.join(dirs[0], "metrics.prom")):
        fams = promtext.parse(open(path).read())
        state = fams["scalecheck_run_info"]["samples"][0][0]["state"]
        complete = fams["scalecheck_run_complete"]["samples"][0][1]
        expect(state == "failed" and complete == 0, f"{path}: state {state}, complete {complete}")



def deadline():
    wd = workdir("deadline")
    base = os.path.join(wd, "results")
    rc, out, err, _, secs = mpirun_from_output(
        3, ["coll", "-b", "8", "-e", "1M", "-f", "8", "-n", "5", "--timeout", "0", "--deadline",
            "3", "--results-dir", base], env={"SCALECHECK_TEST_FAULT": "hang:1:4096"}, timeout=60)
    expect(rc == 3, f"--deadline: exit {rc}, expected 3\n{err[-2000:]}")
    expect(secs <= 3 + 10, f"--deadline: ended {secs:.1f} s after it began")
    lines = [l for l in err.splitlines() if "deadline: the run went on past --deadline 3 s" in l]
    expect(len(lines) == 1 and "rank 0" in lines[0] and "allreduce of 4K B" in lines[0],
           f"--deadline: one report, rank 0's:\n{err[-2000:]}")
    dirs = run_dirs(base)
    doc = load_json(os.path.join(dirs[0], "result.json")) if len(dirs) == 1 else {}
    sizes = [r["size_bytes"] for r in doc.get("results", [])]
    expect(doc.get("state") == "failed" and doc.get("reason", "").startswith("deadline:") and
           sizes == [8, 8, 64, 64, 512, 512],
           f"--deadline: state {doc.get('state')}, reason {doc.get('reason')}, sizes {sizes}")
    print(f"--deadline 3 with --timeout 0: exit 3 after {secs:.1f} s, finished sizes kept")


def start():
    """The waits of a start (MPI_Comm_dup of the world, the hosts' names, the backend's opening)
    come before the watchdog: bounded all the same, at --timeout plus the backend's grace and
    one more (SC_START_TIMEOUT_S)."""
    wd = workdir("start-hang")
    base = os.path.join(wd, "results")
    t0 = time.monotonic()
    rc, out, err, _ = mpirun(3, ["coll", "-b", "8", "-e", "64", "-n", "2", "--timeout",
                                 str(TIMEOUT), "--results-dir", base],
                             env={"SCALECHECK_TEST_FAULT": "start-hang:1"}, timeout=90)
    secs = time.monotonic() - t0
    bound = TIMEOUT + 2 + 2
    expect(rc == 3, f"start: exit {rc}, expected 3\n{err[-2000:]}")
    lines = [l for l in err.splitlines() if "while starting" in l]
    expect(len({l.split(":")[1] for l in lines}) == 3 and
           all(f"for {bound} s while starting (MPI_Comm_dup of the world" in l and
               l.endswith("ending the job (exit 3)") for l in lines),
           f"start: every rank names the stage it waited in:\n{err[-2000:]}")
    # mpirun's own start-up, which a loaded machine stretches, comes before the bound
    expect(secs <= bound + 20, f"start: ended {secs:.1f} s after mpirun began")
    expect(not os.path.exists(base), f"start: {base} was made before any rank could go on")
    # with no bound on a wait (--timeout 0), the run's --deadline bounds its start
    rc, out, err, _ = mpirun(2, ["coll", "-b", "8", "-e", "64", "-n", "2", "--timeout", "0",
                                 "--deadline", "3", "--results-dir", base],
                             env={"SCALECHECK_TEST_FAULT": "start-hang:1"}, timeout=90)
    expect(rc == 3 and "for 3 s while starting" in err,
           f"start under --deadline 3: exit {rc}\n{err[-1500:]}")
    print(f"a rank that never joins: exit 3 after {secs:.1f} s (bound {bound} s), each rank "
          "named its stage; under --timeout 0 the --deadline bounds it")


main(lambda: (test(), deadline(), start()))
