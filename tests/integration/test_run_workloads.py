"""Every shipped workload runs at 1, 2, 4 and 8 ranks on the host path in one launch: speedup at
the base point is exactly 1, efficiency = speedup / (gpus / base gpus), and every point's calls
and bytes per step - counted by the runner as it issues them - equal the step plan's totals for
the same layout (the plan itself is checked against hand-worked counts in test_plan.py). The 3D
workload's grid is checked rank by rank."""
import math
import os

from sclib import *

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def expected_counts(wname, tp, pp, dp):
    """Calls and bytes per step summed over the point's ranks: the step plan of the same layout
    (`scalecheck plan`, whose counts test_plan.py checks against hand-worked numbers)."""
    jpath = os.path.join(workdir("run-plan"), f"{wname}-{tp}-{pp}-{dp}.json")
    rc, _, err, _ = scalecheck1(["plan", "--workload", os.path.join(ROOT, "workloads", wname + ".yaml"),
                                 "--gpus", str(tp * pp * dp), "--tp", str(tp), "--pp", str(pp),
                                 "--json", jpath])
    expect(rc == 0, f"plan {wname} tp {tp} pp {pp} dp {dp}: exit {rc}\n{err[-800:]}")
    c = {}
    for g in load_json(jpath)["groups"]:
        e = c.setdefault(g["operation"], [0.0, 0.0])
        e[0] += g["calls"]
        e[1] += g["bytes"]
    return c


SCALE = 0.0005  # --bytes-scale of every run here


def check_sent(where, op, calls, nbytes, sent, gpus):
    """What went to the backend is the plan's payload times --bytes-scale, to within the
    rounding to whole elements (at most 8 B a rank of the group, each call either way: a floor,
    or the one element every rank sends at least)."""
    slack = calls * 8 * gpus
    expect(abs(sent - nbytes * SCALE) <= slack,
           f"{where}: {op} sent {sent:.0f} B a step, the plan's {nbytes:.0f} B x {SCALE} is "
           f"{nbytes * SCALE:.0f} (+-{slack})")


def check_point(wname, p):
    where = f"{wname} at {p['gpus']} GPUs (dp {p['dp']} tp {p['tp']} pp {p['pp']})"
    exp = expected_counts(wname, p["tp"], p["pp"], p["dp"])
    got = {op: [v["calls"], v["bytes"], v["sent_bytes"]] for op, v in p["comm"].items()}
    expect(set(got) == set(exp), f"{where}: operations {sorted(got)} != expected {sorted(exp)}")
    for op, (calls, nbytes) in exp.items():
        expect(got[op][0] == calls, f"{where}: {op} calls {got[op][0]} != {calls}")
        expect(math.isclose(got[op][1], nbytes, rel_tol=1e-6), f"{where}: {op} bytes {got[op][1]} != {nbytes}")
        check_sent(where, op, calls, nbytes, got[op][2], p["gpus"])
    for key in ("step_time_ms", "throughput", "speedup", "efficiency", "comm_fraction",
                "slowest_rank", "slowest_host", "step_time_p99_ms"):
        expect(key in p, f"{where}: no {key}")
    expect(p["step_time_ms"] > 0 and p["step_time_p99_ms"] >= p["step_time_ms"] * 0.999, f"{where}: times")
    expect(0 <= p["comm_fraction"] <= 1, f"{where}: comm_fraction {p['comm_fraction']}")
    expect(0 <= p["slowest_rank"] < p["gpus"], f"{where}: slowest rank {p['slowest_rank']}")


def check_grid(p):
    tp, pp, dp = p["tp"], p["pp"], p["dp"]
    grid = p["grid"]
    expect(len(grid) == tp * pp * dp, "grid size")
    for r, g in enumerate(grid):
        t, s, d = r % tp, (r // tp) % pp, r // (tp * pp)
        expect((g["rank"], g["t"], g["p"], g["d"]) == (r, t, s, d), f"rank {r}: placed {g}")
        expect(g["tp_group"] == [(d * pp + s) * tp + i for i in range(tp)], f"rank {r}: tp group {g['tp_group']}")
        expect(g["pp_group"] == [(d * pp + i) * tp + t for i in range(pp)], f"rank {r}: pp group {g['pp_group']}")
        expect(g["dp_group"] == [(i * pp + s) * tp + t for i in range(dp)], f"rank {r}: dp group {g['dp_group']}")


def run_workload(name, extra, scales):
    wd = workdir("run-" + name)
    jpath = os.path.join(wd, "r.json")
    rc, out, err, _ = mpirun(8, ["run", "--workload", os.path.join(ROOT, "workloads", name + ".yaml"),
                                 "--scales", scales, "-n", "2", "-w", "1", "--bytes-scale", str(SCALE),
                                 "--compute-scale", "0.0005", "--telemetry", "0", "--json", jpath,
                                 "--csv", os.path.join(wd, "r.csv"), "--results-dir",
                                 os.path.join(wd, "results")] + extra)
    expect(rc == 0, f"{name} {extra}: exit {rc}\n{err[-1500:]}")
    doc = load_json(jpath)
    expect(doc["workload"] == name and doc["state"] == "complete", f"{name}: header")
    expect(len(load_csv(os.path.join(wd, "r.csv"))) == len(doc["points"]), f"{name}: CSV rows")
    return doc["points"]


def test():
    for path in sorted(os.listdir(os.path.join(ROOT, "workloads"))):
        if not path.endswith(".yaml"):
            continue
        name = path[:-5]
        if name == "gpt3-13b-3d":  # TP 8 x PP 2 needs 16: shrink the layout per point
            runs = [(["--tp", "1", "--pp", "1"], "1"), (["--tp", "2", "--pp", "1"], "2"),
                    (["--tp", "2", "--pp", "2"], "4,8")]
        else:
            runs = [([], "1,2,4,8")]
        gpus = []
        for extra, scales in runs:
            points = run_workload(name, extra, scales)
            for p in points:
                check_point(name, p)
                gpus.append(p["gpus"])
                if "grid" in p and p["tp"] * p["pp"] > 1:
                    check_grid(p)
            expect(points[0]["speedup"] == 1.0 and points[0]["efficiency"] == 1.0,
                   f"{name}: base point speedup {points[0]['speedup']}")
            base = points[0]
            for p in points:
                expect(math.isclose(p["efficiency"], p["speedup"] / (p["gpus"] / base["gpus"]), rel_tol=1e-9),
                       f"{name}: efficiency at {p['gpus']}")
                expect(math.isclose(p["speedup"], p["throughput"] / base["throughput"], rel_tol=1e-9),
                       f"{name}: speedup at {p['gpus']}")
        expect(sorted(gpus) == [1, 2, 4, 8], f"{name}: ran at {gpus}")
        print(f"{name}: ok at {sorted(gpus)}")


main(test)
