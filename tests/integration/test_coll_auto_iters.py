"""-n auto: each size iterates until the median's 95 % CI is within --target-ci or the per-size
budget is spent, and the number of iterations is reported per size; a target that cannot be met
spends the budget - about all of it, and not more (batches that only doubled spent up to 3x)."""
import os

from sclib import *


def test():
    wd = workdir("auto")
    jpath = os.path.join(wd, "out.json")
    budget = 0.5
    rc, out, err, _ = mpirun(2, ["coll", "-b", "8", "-e", "1M", "-f", "64", "-n", "auto",
                                 "--target-ci", "5", "--size-budget", str(budget),
                                 "--json", jpath, "--results-dir", os.path.join(wd, "r")])
    expect(rc == 0, f"exit {rc}\n{err[-2000:]}")
    doc = load_json(jpath)
    expect(doc["options"]["iters"] == 0, "options.iters should record auto as 0")
    expect("iters" in out, "the table should show the iteration counts with -n auto")
    for row in doc["results"]:
        where = f"{row['size_bytes']} B in_place={row['in_place']}"
        n = row["iterations"]
        expect(n >= 10, f"{where}: {n} iterations, the floor is 10")
        met = row["ci95_rel"] <= 0.05
        # Either the target was met, or the budget (plus one batch) stopped it.
        expect(met or row["time_us"] * n * 1e-6 >= budget * 0.3,
               f"{where}: stopped at {n} iterations with CI {row['ci95_rel']:.3f} > 0.05 and "
               f"only {row['time_us'] * n * 1e-6:.2f} s spent")
        expect(row["ci95_lo_us"] <= row["time_us"] <= row["ci95_hi_us"], f"{where}: CI brackets median")
    small = [r["iterations"] for r in doc["results"] if r["size_bytes"] == 8]
    expect(all(n >= 10 for n in small), f"iterations at 8 B: {small}")
    check_budget_kept(wd)


def check_budget_kept(wd):
    """An unreachable target (a CI of 0.01 %, the least it takes): the budget alone ends each size. The time spent
    is bracketed by the iterations times the fastest and the slowest iteration."""
    jpath = os.path.join(wd, "budget.json")
    budget = 0.3
    rc, out, err, _ = mpirun(2, ["coll", "-b", "256K", "-e", "1M", "-f", "4", "-n", "auto",
                                 "--target-ci", "0.01", "--size-budget", str(budget), "-c", "0",
                                 "--json", jpath, "--results-dir", os.path.join(wd, "b")])
    expect(rc == 0, f"exit {rc}\n{err[-2000:]}")
    for row in load_json(jpath)["results"]:
        where = f"{row['size_bytes']} B in_place={row['in_place']}"
        n = row["iterations"]
        least, most = n * row["time_us_min"] * 1e-6, n * row["time_us_max"] * 1e-6
        expect(least <= budget * 1.25, f"{where}: {n} iterations took at least {least:.3f} s, "
                                      f"over the {budget} s budget")
        expect(most >= budget * 0.75, f"{where}: {n} iterations took at most {most:.3f} s, "
                                      f"stopped before the {budget} s budget")
    print(f"budget {budget} s kept: {[r['iterations'] for r in load_json(jpath)['results']]}")


main(test)
