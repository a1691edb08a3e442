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


main(test)
