"""Metrics for monitoring: every run writes metrics.prom (and --metrics FILE) in the Prometheus
text format node_exporter's textfile collector reads, checked by a strict reader of that format
(promtext.py): the verdict and each check's, the largest size's bus bandwidth (coll), each
point's efficiency and step time (run), each pair's bandwidth (pairs), all equal to result.json;
label values escaped (a judged file named with a quote and a backslash); no label that changes
every run, names in base units; a failing run's verdict
is 2; a --metrics path that cannot be written is exit 2."""
import os
import re
import shutil
import subprocess

import promtext
from sclib import *

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
LEVEL = {"PASS": 0, "WARN": 1, "FAIL": 2}
VERDICT = dict(LEVEL, INCONCLUSIVE=3)  # README's verdict table


def samples(fams, name):
    expect(name in fams and fams[name]["type"] == "gauge" and fams[name]["help"],
           f"family {name}: {fams.get(name)}")
    return fams[name]["samples"]


# Prometheus' own linter: on PATH, or where scripts/install-deps.sh --test puts it (taken from
# Debian's prometheus package, not installed: no server started)
PROMTOOL = shutil.which("promtool") or "/opt/scalecheck-test-tools/bin/promtool"
PROMTOOL_RUNS = []


def read(path):
    if os.access(PROMTOOL, os.X_OK):
        with open(path) as f:
            p = subprocess.run([PROMTOOL, "check", "metrics"], stdin=f, capture_output=True,
                               text=True, timeout=60)
        expect(p.returncode == 0, f"promtool check metrics {path}: exit {p.returncode}\n"
               f"{p.stdout[-800:]}{p.stderr[-800:]}")
        PROMTOOL_RUNS.append(path)
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
    expect(len(run_info) == 1 and run_info[0][0]["command"] == command
           and run_info[0][0]["state"] == "complete", f"run_info {run_info}")
    # low cardinality: nothing that changes from run to run in a label (a new series each run)
    for fam in fams.values():
        for labels, _ in fam["samples"]:
            expect(not {"results_dir", "start_utc"} & labels.keys()
                   and doc["results_dir"] not in labels.values(), f"a run's own label: {labels}")
    # Prometheus' base units (promtool check metrics): seconds, bytes
    for name in fams:
        expect(not re.search(r"_(milli|micro|nano)seconds|_(kilo|mega|giga)bytes", name),
               f"{name}: not in base units")
    expect(samples(fams, "scalecheck_run_complete")[0][1] == 1, "complete")
    checks = {l["check"]: v for l, v in samples(fams, "scalecheck_check_verdict")}
    expect(checks == {c["name"]: LEVEL[c["verdict"]] for c in doc["checks"]},
           f"check verdicts {checks}")
    expect(samples(fams, "scalecheck_verdict")[0][1] == VERDICT[doc["verdict"]["verdict"]],
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
                 for l, v in samples(fams, "scalecheck_busbw_bytes_per_second")}
        want = {(r["collective"], "true" if r["in_place"] else "false"):
                (r["busbw_GBps"] * 1e9, str(r["size_bytes"]))
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
    steps = {int(l["gpus"]): v for l, v in samples(fams, "scalecheck_step_time_seconds")}
    expect(all(abs(steps[p["gpus"]] - p["step_time_ms"] / 1e3) <= 1e-9 * p["step_time_ms"]
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
    bw = {(l["a"], l["b"]): v for l, v in samples(fams, "scalecheck_pair_bandwidth_bytes_per_second")}
    want = {(p["a"], p["b"]): min(p["uni_ab_GBps"], p["uni_ba_GBps"]) * 1e9 for p in doc["pairs"]}
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


def test_escaping(wd):
    """Label values escaped as the format wants: a judged file whose name holds a quote and a
    backslash names each check."""
    name = os.path.join(wd, 'it\'s "q" back\\slash.txt')
    shutil.copy(os.path.join(ROOT, "tests", "data", "formats", "nccl-tests-2.13.txt"), name)
    base = os.path.join(wd, "judged")
    rc, out, err, _ = scalecheck1(["judge", "--topology", "dgx-a100", "--collective", "allreduce",
                                   name, "--results-dir", base])
    expect(rc in (0, 1), f"judge: exit {rc}\n{err[-600:]}")
    fams = read(os.path.join(only_dir(base), "metrics.prom"))
    checks = [l["check"] for l, _ in samples(fams, "scalecheck_check_verdict")]
    expect(any(c.startswith('it\'s "q" back\\slash.txt: ') for c in checks),
           f"escaped check labels: {checks[:2]}")


def test():
    test_reader()
    wd = workdir("metrics")
    loose = loose_topology(wd)  # a wide band: a healthy host PASSes
    test_coll(wd, loose)
    test_run(wd, loose)
    test_pairs(wd)
    test_escaping(wd)
    print(f"metrics: promtool check metrics clean on {len(PROMTOOL_RUNS)} files" if PROMTOOL_RUNS
          else "metrics: promtool not installed here (scripts/install-deps.sh --test puts it in "
               "/opt/scalecheck-test-tools): the strict reader alone")


main(test)
