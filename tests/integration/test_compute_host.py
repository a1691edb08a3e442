"""The compute phase on the host path: a spin asked for T takes T (it sleeps while keeping MPI
progressing), on every rank, and the JSON says so."""
import os

from sclib import *


def test():
    wd = workdir("compute")
    jpath = os.path.join(wd, "c.json")
    rc, out, err, _ = mpirun(2, ["compute", "--mode", "spin", "--time-us", "20000", "-n", "5",
                                 "--backend", "mpi", "--json", jpath])
    expect(rc == 0, f"exit {rc}\n{err[-1000:]}")
    doc = load_json(jpath)
    expect(doc["backend"] == "mpi" and len(doc["ranks"]) == 2, f"doc: {doc}")
    for r in doc["ranks"]:
        expect(r["requested_us"] == 20000 and r["repeats"] == 5, f"record: {r}")
        # Never shorter than asked; a loaded 2-core machine may make it a little longer.
        expect(20000 <= r["mean_us"] <= 26000, f"spin of 20 ms took {r['mean_us']} us")
    expect("spin asked 20000.0 us" in out, out)
    rc, out, err, _ = mpirun(1, ["compute", "--mode", "walk"])
    expect(rc == 2 and "--mode: unknown mode 'walk' (valid: spin, gemm)" in err, err)


main(test)
