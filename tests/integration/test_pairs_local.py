"""`scalecheck pairs` on one host (--per rank, the GPU-pair view's host analogue): the matrices,
pairs, localisation and checks are all there with their defaults; a node slow only at its first
look while the machine is busy through two rounds of looks is not named (the control pair's and
group's drop excuses those rounds), and is named when the machine stays busy (all and bisect);
bad options name their flag with exit 2."""
import csv
import glob
import os

from sclib import *

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def busy(wd):
    """A node slow at its first looks only (a moment's noise), and the machine busy through the
    first two rounds of later looks (the test-only switch SCALECHECK_TEST_FAULT, README): those
    rounds' controls drop too, so they do not count, and the third round clears the node: exit
    0, nothing named. Busy through every round, the node is named once the excused rounds
    (--looks - 1) are spent. The same for the bisect search's groups."""
    for strategy, ranks, slow, extra in (("all", 5, 1, ()), ("bisect", 16, 5, ("-n", "8"))):
        for busy_rounds, want in ((2, 0), (9, 1)):
            path = os.path.join(wd, f"busy-{strategy}-{busy_rounds}.json")
            rc, out, err, _ = mpirun(ranks, ["pairs", "--per", "rank", "--strategy", strategy,
                                             "--size", "64K", "--tolerance", "0.8", "--mode", "serial",
                                             "--json", path, "--results-dir", os.path.join(wd, "r")]
                                     + list(extra), timeout=240,
                                     env={"SCALECHECK_TEST_FAULT": f"slow-first:{slow},busy-looks:{busy_rounds}"})
            doc = load_json(path)
            name = doc["names"][slow]
            named = [s["where"] for s in doc["localization"]["suspects"]]
            looks = [r["looks"] for r in doc["pairs"] if name in (r["a"], r["b"])]
            if strategy == "bisect":
                looks = [g["looks"] for g in doc["groups"] if name in g["members"].split()]
            # healthy: at least one look counted after the busy rounds (noise may take one more)
            counted = min(looks) >= 2 if want == 0 else set(looks) == {3}
            expect(rc == want and doc["busy_rounds"] == 2 and named == ([name] if want else [])
                   and counted,
                   f"{strategy}, busy {busy_rounds} rounds: exit {rc}, busy {doc['busy_rounds']}, "
                   f"named {named}, looks {looks}\n{out[-1200:]}{err[-600:]}")
            expect("2 rounds of later looks not counted" in out, f"{strategy}: the log says so")


def test():
    wd = workdir("pairs")
    jpath, cpath = os.path.join(wd, "p.json"), os.path.join(wd, "p.csv")
    # one pair at a time (3 ranks share 2 cores: concurrent pairs would measure the cores they
    # fight over) and a wide band: a healthy host names no suspect and exits 0 (the degraded
    # twin, a host whose link is shaped, is vcluster-shaped's)
    rc, out, err, _ = mpirun(3, ["pairs", "--per", "rank", "--size", "256K", "--tolerance", "0.9",
                                 "--mode", "serial", "--json", jpath, "--csv", cpath,
                                 "--results-dir", os.path.join(wd, "r")])
    expect(rc == 0, f"healthy pairs: exit {rc}\n{out[-1500:]}{err[-1000:]}")
    doc = load_json(jpath)
    n = len(doc["names"])
    expect(n == 3 and doc["method"] == "tag" and doc["mode"] == "serial", f"header {doc['names']}")
    for key in ("uni_GBps", "bidir_GBps", "latency_us"):
        m = doc[key]
        expect(len(m) == 3 and all(len(r) == 3 for r in m), f"{key} shape")
        expect(all(m[i][i] == 0 for i in range(3)), f"{key} diagonal")
        expect(all(m[i][j] > 0 for i in range(3) for j in range(3) if i != j), f"{key} filled: {m}")
    expect(len(doc["pairs"]) == 3 and len(doc["checks"]) == 3, "one row and one check per pair")
    first, best = doc["uni_first_look_GBps"], doc["uni_GBps"]  # later looks only ever raise
    expect(all(0 < first[i][j] <= best[i][j] for i in range(3) for j in range(3) if i != j),
           f"first look {first} vs best {best}")
    expect(not doc["localization"]["suspects"] and doc["verdict"]["fail"] == 0,
           f"healthy: {doc['localization']['suspects']} {doc['verdict']}")
    expect("uni-directional bandwidth" in out and "# suspects:" in out, "terminal heatmap")
    html = open(glob.glob(os.path.join(wd, "r", "*", "report.html"))[0]).read()
    a, b = doc["names"][0], doc["names"][1]
    expect(f"pair {a} &lt;-&gt; {b} bandwidth" in html and "<->" not in html, "report.html escapes")
    # the pairs as CSV, in the run directory and where --csv says, with each pair's verdict
    for path in (cpath, glob.glob(os.path.join(wd, "r", "*", "pairs.csv"))[0]):
        rows = list(csv.DictReader(open(path)))
        expect(len(rows) == 3, f"{path}: {len(rows)} rows")
        for row, pair, check in zip(rows, doc["pairs"], doc["checks"]):
            expect((row["a"], row["b"]) == (pair["a"], pair["b"]), f"{path}: {row}")
            expect(abs(float(row["uni_ab_GBps"]) - pair["uni_ab_GBps"]) <= 1e-5 * pair["uni_ab_GBps"],
                   f"{path}: {row['uni_ab_GBps']} vs {pair['uni_ab_GBps']}")
            expect(row["verdict"] == check["verdict"] == pair["verdict"] and int(row["looks"]) >= 1,
                   f"{path}: verdict {row} vs {check}")
    # --plan-only: what each strategy takes on a fleet, without traffic
    rc, out, err, _ = scalecheck1(["pairs", "--plan-only", "--nodes", "1000"])
    rows = {l.split()[0]: l.split()[1:] for l in out.splitlines() if l.startswith("  ")}
    expect(rc == 0 and rows.get("all") == ["999", "/", "499500"] * 3
           and rows.get("quick") == ["1", "/", "500", "2", "/", "502", "2", "/", "504"]
           and rows.get("bisect") == ["1", "/", "16", "9", "/", "29", "9", "/", "42"]
           and rows.get("switch") == ["32", "/", "15628"] * 3,
           f"plan-only: exit {rc}\n{out}{err}")
    # bisect on one host, every rank a participant: 16 ranks make 4 groups of 4, all healthy in
    # a wide band: no pair is measured (the degraded twins are vcluster-strategies')
    bpath = os.path.join(wd, "bisect.json")
    rc, out, err, _ = mpirun(16, ["pairs", "--per", "rank", "--strategy", "bisect", "--size", "64K",
                                  "-n", "2", "--tolerance", "0.9", "--mode", "serial", "--json",
                                  bpath, "--results-dir", os.path.join(wd, "r")], timeout=240)
    doc = load_json(bpath)
    groups = doc["groups"]
    expect(rc == 0 and doc["strategy"] == "bisect" and doc["rounds"] == 1
           and [g["size"] for g in groups] == [4] * 4 and doc["pairs_measured"] == 0
           and all(g["busbw_GBps"] > 0 and g["verdict"] == "PASS" for g in groups)
           and len(doc["checks"]) == 4 and "bisect groups" in out,
           f"bisect: exit {rc}, {doc['rounds']} rounds, groups {groups}\n{out[-1500:]}")
    expect(groups[1]["members"].split() == [f"{doc['names'][i]}" for i in range(4, 8)],
           f"members {groups[1]['members']} of {doc['names']}")
    busy(wd)
    # a switch map that leaves this host out
    topo = os.path.join(wd, "switches.yaml")
    with open(topo, "w") as f:
        f.write(f"name: one-leaf\nextends: {os.path.join(ROOT, 'topologies', 'localhost.yaml')}\n"
                "switches:\n  leaf1: [no-such-host]\n")
    for args, message in [(["--strategy", "x"], "--strategy: 'x' is not one of all|quick|bisect|switch"),
                          (["--strategy", "switch", "--per", "rank"], "--strategy switch: needs --topology FILE with a switches: map"),
                          (["--strategy", "switch", "--per", "rank", "-Y", topo], "switches: host "),
                          (["--strategy", "bisect", "--per", "rank", "--backend", "ucx"], "--strategy bisect: the ucx backend has no all-reduce"),
                          (["--plan-only"], "--plan-only: needs --nodes N"),
                          (["--mode", "x"], "--mode: 'x' is not one of concurrent|serial"),
                          (["--method", "x"], "--method: 'x' is not one of tag|put"),
                          (["--per", "x"], "--per: 'x' is not one of node|rank"),
                          (["--method", "put", "--per", "rank"], "--method put: one-sided transfers need the ucx backend (not mpi)")]:
        rc, out, err, _ = mpirun(2, ["pairs", "--backend", "mpi", "--results-dir", os.path.join(wd, "bad")] + args, timeout=60)
        expect(rc == 2 and message in err, f"{args}: exit {rc}\n{err[-600:]}")
        expect(not os.path.exists(os.path.join(wd, "bad")), f"{args}: exit 2 left the results directory")


main(test)
