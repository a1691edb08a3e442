"""Each run writes its own results directory, never overwriting one: two runs with the same
name in the same second get two directories, each complete."""
import os

from sclib import *


def test():
    wd = workdir("resdir")
    base = os.path.join(wd, "results")
    for _ in range(2):
        rc, out, err, _ = mpirun(2, ["coll", "-b", "1K", "-e", "1K", "-n", "2", "--name", "same",
                                     "--results-dir", base])
        expect(rc == 0, f"exit {rc}\n{err[-1000:]}")
    dirs = run_dirs(base)
    expect(len(dirs) == 2, f"expected 2 run directories, got {dirs}")
    for d in dirs:
        expect("-same" in os.path.basename(d), f"name missing in {d}")
        doc = load_json(os.path.join(d, "result.json"))
        expect(doc["results_dir"] == d, f"results_dir field {doc['results_dir']} != {d}")
        expect(len(doc["results"]) == 2 and doc["state"] == "complete", f"{d}: content")
        expect(len(load_csv(os.path.join(d, "result.csv"))) == 2, f"{d}: CSV rows")
    # lists: exactly the chosen collectives x types x reductions (reductions only where they apply)
    rc, out, err, _ = mpirun(2, ["coll", "-b", "1K", "-e", "1K", "-n", "2", "--collective",
                                 "reducescatter,allgather", "-d", "int32,double", "-o", "max,sum",
                                 "--results-dir", base])
    expect(rc == 0, f"lists: exit {rc}\n{err[-1000:]}")
    d = [x for x in run_dirs(base) if x not in dirs]
    expect(len(d) == 1 and d[0].endswith("-coll-allgather+reducescatter"), f"list run dir {d}")
    rows = load_json(os.path.join(d[0], "result.json"))["results"]
    got = sorted({(r["collective"], r["dtype"], r["op"]) for r in rows})
    want = sorted([("allgather", t, "none") for t in ("int32", "double")] +
                  [("reducescatter", t, o) for t in ("int32", "double") for o in ("max", "sum")])
    expect(got == want and len(rows) == 2 * len(want), f"list selection: {got}")


main(test)
