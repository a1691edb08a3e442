"""Metrics for monitoring: every run writes metrics.prom (and --metrics FILE) in the Prometheus
text format node_exporter's textfile collector reads, checked by a strict reader of that format
(promtext.py): the verdict and each check's, the largest size's bus bandwidth (coll), each
point's efficiency and step time (run), each pair's bandwidth (pairs), all equal to result.json;
label values escaped (a results folder with a quote and a backslash); a failing run's verdict
is 2; a --metrics path that cannot be written is exit 2."""
import os

import promtext
from sclib import *

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
LEVEL = {"PASS": 0, "WARN": 1, "FAIL": 2}


def samples(fams, name):
    expect(name in fams and fams[name]["type"] == "gauge" and fams[name]["help"],
           f"family {name}: {fams.get(name)}")
    return fams[name]["samples"]


def read(path):
    try:
        return promtext.parse(open(path).read())
    except ValueError as e:
        raise Failure(f"{path}: not the text format: {e}")


def only_dir(base):
    dirs = run_dirs(base)
    expect(len(dirs) == 1, f"run dirs {dirs}")
    return dirs[0]


def check_common(fams, doc, command):
    run_info = samples(fams, "scalecheck_run_info")
    expect(len(run_info) == 1 and run_info[0][0]["results_dir"] == doc["results_dir"]
           and run_info[0][0]["command"] == command and run_info[0][0]["state"] == "complete",
           f"run_info {run_info} vs {doc['results_dir']!r}")
    expect(samples(fams, "scalecheck_run_complete")[0][1] == 1, "complete")
    checks = {l["check"]: v for l, v in samples(fams, "scalecheck_check_verdict")}
    expect(checks == {c["name"]: LEVEL[c["verdict"]] for c in doc["checks"]},
           f"check verdicts {checks}")
    expect(samples(fams, "scalecheck_verdict")[0][1] == LEVEL[doc["verdict"]["verdict"]],
           "verdict")


def test_coll(wd, loose):
    base = os.path.join(wd, 'res "q" back\\slash')
    metrics = os.path.join(wd, "coll.prom")
    rc, out, err, _ = mpirun(2, ["coll", "-b", "64K", "-e", "256K", "-f", "4", "-n", "10",
                                 "--topology", loose, "--metrics", metrics, "--results-dir", base])
    expect(rc == 0, f"coll: exit {rc}\n{err[-800:]}")
    d = only_dir(base)
    doc = load_json(os.path.join(d, "result.json"))
    for path in (metrics, os.path.join(d, "metrics.prom")):
        fams = read(path)
        check_common(fams, doc, "coll")
        busbw = {(l["collective"], l["in_place"]): (v, l["size_bytes"])
                 for l, v in samples(fams, "scalecheck_busbw_gigabytes_per_second")}
        want = {(r["collective"], "true" if r["in_place"] else "false"):
                (r["busbw_GBps"], str(r["size_bytes"]))
                for r in doc["results"] if r["size_bytes"] == 262144}
        expect(busbw.keys() == want.keys() and all(
            abs(busbw[k][0] - want[k][0]) <= 1e-6 * want[k][0] and busbw[k][1] == want[k][1]
            for k in want), f"busbw {busbw} vs {want}")
    # an impossible claim: the verdict is 2
    bad = os.path.join(wd, "impossible.yaml")
    with open(bad, "w") as f:
        f.write(f"name: impossible\nextends: {loose}\nexpect:\n  claims:\n    - metric: busbw\n"
                "      collective: allreduce\n      size: 256K\n      gpus: 2\n      min: 100000\n")
    rc, out, err, _ = mpirun(2, ["coll", "-b", "256K", "-e", "256K", "-n", "5", "--topology", bad,
                                 "--metrics", metrics, "--results-dir", os.path.join(wd, "bad")])
    fams = read(metrics)
    expect(rc == 1 and samples(fams, "scalecheck_verdict")[0][1] == 2, f"failing run: exit {rc}")
    rc, out, err, _ = mpirun(2, ["coll", "-b", "8", "-e", "8", "--metrics", "/nonexistent/x.prom",
                                 "--results-dir", os.path.join(wd, "never")])
    expect(rc == 2 and "--metrics" in err, f"--metrics unwritable: exit {rc}\n{err[-400:]}")


def test_run(wd, loose):
    metrics = os.path.join(wd, "run.prom")
    base = os.path.join(wd, "run")
    rc, out, err, _ = mpirun(2, ["run", "--workload", os.path.join(ROOT, "workloads",
                                                                    "bert-large-dp.yaml"),
                                 "--scales", "1,2", "--bytes-scale", "0.001", "--compute-scale",
                                 "0.001", "-n", "3", "-w", "1", "--topology", loose, "--metrics",
                                 metrics, "--results-dir", base])
    expect(rc == 0, f"run: exit {rc}\n{err[-800:]}")
    doc = load_json(os.path.join(only_dir(base), "result.json"))
    fams = read(metrics)
    check_common(fams, doc, "run")
    eff = {int(l["gpus"]): v for l, v in samples(fams, "scalecheck_scaling_efficiency")}
    expect(eff.keys() == {p["gpus"] for p in doc["points"]} and all(
        abs(eff[p["gpus"]] - p["efficiency"]) <= 1e-6 for p in doc["points"]),
        f"efficiency {eff} vs {[(p['gpus'], p['efficiency']) for p in doc['points']]}")
    steps = {int(l["gpus"]): v for l, v in samples(fams, "scalecheck_step_time_milliseconds")}
    expect(all(abs(steps[p["gpus"]] - p["step_time_ms"]) <= 1e-6 * p["step_time_ms"]
               for p in doc["points"]), f"step times {steps}")


def test_pairs(wd):
    metrics = os.path.join(wd, "pairs.prom")
    base = os.path.join(wd, "pairs")
    rc, out, err, _ = mpirun(3, ["pairs", "--per", "rank", "--size", "256K", "--mode", "serial",
                                 "--tolerance", "0.9", "--metrics", metrics, "--results-dir", base])
    expect(rc == 0, f"pairs: exit {rc}\n{err[-800:]}")
    doc = load_json(os.path.join(only_dir(base), "result.json"))
    fams = read(metrics)
    check_common(fams, doc, "pairs")
    bw = {(l["a"], l["b"]): v for l, v in samples(fams, "scalecheck_pair_bandwidth_gigabytes_per_second")}
    want = {(p["a"], p["b"]): min(p["uni_ab_GBps"], p["uni_ba_GBps"]) for p in doc["pairs"]}
    expect(bw.keys() == want.keys() and all(abs(bw[k] - want[k]) <= 1e-6 * want[k] for k in want),
           f"pair bandwidth {bw} vs {want}")
    expect("scalecheck_suspect" not in fams or not fams["scalecheck_suspect"]["samples"],
           "no suspect on a healthy host")


def test_reader():
    """The reader refuses what the collector would: it can fail."""
    for bad in ['x{a="1"} 1\nx{a="1"} 2\n', 'x 1\ny 1\nx 2\n', 'x{a="\\t"} 1\n', "x one\n",
                "# TYPE x gauge\n# TYPE x gauge\nx 1\n", "x 1"]:
        try:
            promtext.parse(bad)
        except ValueError:
            continue
        raise Failure(f"the reader took {bad!r}")


def test():
    test_reader()
    wd = workdir("metrics")
    loose = os.path.join(wd, "loose.yaml")
    with open(loose, "w") as f:  # a wide band: a healthy host PASSes (see test_verdict_report)
        f.write(f"name: loose\nextends: {os.path.join(ROOT, 'topologies', 'localhost.yaml')}\n"
                "expect:\n  tolerance: 0.98\n")
    test_coll(wd, loose)
    test_run(wd, loose)
    test_pairs(wd)


main(test)
