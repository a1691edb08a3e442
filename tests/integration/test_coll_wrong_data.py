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


main(test)
