"""A rank whose results are wrong: #wrong counts it and the exit code is 1. Uses the test-only
fault switch SCALECHECK_TEST_FAULT=corrupt:RANK (one element flipped per checked result)."""
import os

from sclib import *


def test():
    wd = workdir("wrong")
    jpath = os.path.join(wd, "out.json")
    rc, out, err, _ = mpirun(3, ["coll", "--collective", "allgather", "-b", "96", "-e", "96",
                                 "-n", "2", "-c", "2", "--json", jpath,
                                 "--results-dir", os.path.join(wd, "r")],
                             env={"SCALECHECK_TEST_FAULT": "corrupt:2"})
    expect(rc == 1, f"exit {rc}, expected 1\n{err[-1000:]}")
    doc = load_json(jpath)
    # One flipped element per check iteration (2) on one rank, for each of the two cases.
    expect([r["wrong"] for r in doc["results"]] == [2, 2], f"wrong: {[r['wrong'] for r in doc['results']]}")
    expect(doc["summary"]["wrong_total"] == 4, "summary")
    expect("# Out of bounds values : 4 FAILED" in out, "table summary line")
    # on the host path the MPI library computed them: said, with the collective and type, once
    findings = [f["what"] for f in doc.get("findings", [])]
    expect(len(findings) == 1 and findings[0].startswith("allgather float: wrong results computed "
                                                         "by the MPI library (")
           and "report it to the library's developers" in out, f"findings {findings}")
    # run's all-reduce sweep checks its data too: wrong elements fail the run (exit 1), a clean
    # twin passes
    run = ["run", "--workload", os.path.join(os.path.dirname(__file__), "..", "..", "workloads",
                                             "bert-large-dp.yaml"),
           "--scales", "1", "--sweep-max", "4K", "--bytes-scale", "0.001", "--compute-scale",
           "0.001", "-n", "2", "-w", "0", "--telemetry", "0", "--results-dir", os.path.join(wd, "r")]
    rc, out, err, _ = mpirun(2, run, env={"SCALECHECK_TEST_FAULT": "corrupt:1"})
    rows = load_json(os.path.join(sorted(run_dirs(os.path.join(wd, "r")))[-1], "result.json"))
    wrong = sum(r["wrong"] for r in rows["sweep"])
    expect(rc == 1 and wrong > 0 and "wrong elements FAILED" in out,
           f"run with wrong data: exit {rc}, {wrong} wrong\n{out[-400:]}")
    rc, out, err, _ = mpirun(2, run)
    expect(rc == 0 and "0 wrong elements OK" in out, f"run, clean: exit {rc}\n{out[-400:]}")


main(test)
