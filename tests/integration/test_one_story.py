"""One story in every output (README's verdict table): a run of coll, run, pairs, soak and judge
each, and its document made to say PASS, WARN, FAIL and INCONCLUSIVE in turn and rendered again
by `scalecheck report`; every output read - the exit code and the terminal's verdict line (the
real runs), result.json, summary.json, junit.xml (its verdict property, failures and errors),
metrics.prom (scalecheck_verdict) and report.html (the badge) - must say the same verdict."""
import glob
import json
import os
import re
import shutil

from sclib import *

# README's verdict table: the exit code and the metric's value of each verdict
EXIT = {"PASS": 0, "WARN": 0, "FAIL": 1, "INCONCLUSIVE": 5}
METRIC = {"PASS": 0, "WARN": 1, "FAIL": 2, "INCONCLUSIVE": 3}
NCCL_TEXT = os.path.join(os.path.dirname(__file__), "..", "data", "formats",
                         "nccl-tests-2.13.txt")


def outputs(d):
    """The verdict each file of run directory d says (result.json's where it has one: report
    renders the others from its checks and leaves it as it is)."""
    said = {"summary.json": load_json(os.path.join(d, "summary.json"))["verdict"]}
    doc = load_json(os.path.join(d, "result.json"))
    if "verdict" in doc:
        said["result.json"] = doc["verdict"]["verdict"]
    junit = open(os.path.join(d, "junit.xml")).read()
    m = re.search(r'<property name="verdict" value="([A-Z]+)"', junit)
    said["junit.xml"] = m.group(1) if m else None
    failures = int(re.search(r' failures="(\d+)"', junit).group(1))
    errors = int(re.search(r' errors="(\d+)"', junit).group(1))
    # what a CI server shows: red for a failure or an error, green otherwise
    said["junit.xml counts"] = ("INCONCLUSIVE" if errors and not failures else
                                "FAIL" if failures else said["junit.xml"] if said["junit.xml"]
                                in ("PASS", "WARN") else "green")
    prom = open(os.path.join(d, "metrics.prom")).read()
    m = re.search(r"^scalecheck_verdict\{[^}]*\} (\d+)", prom, re.M)
    said["metrics.prom"] = {v: k for k, v in METRIC.items()}.get(int(m.group(1))) if m else None
    html = open(os.path.join(d, "report.html")).read()
    m = re.search(r"verdict: <span class='badge \w+'>([A-Z]+)</span>", html)
    said["report.html"] = m.group(1) if m else None
    return said


def same_story(label, d, want, extra=None):
    said = outputs(d)
    if extra:
        said.update(extra)
    wrong = {k: v for k, v in said.items() if v != want}
    expect(not wrong, f"{label}: the verdict is {want}, but {wrong}")


def made_to_say(src, want, wd):
    """A copy of run directory src whose checks say want, rendered again."""
    os.makedirs(wd, exist_ok=True)
    d = os.path.join(wd, os.path.basename(src) + "-" + want)
    shutil.copytree(src, d)
    path = os.path.join(d, "result.json")
    doc = load_json(path)
    checks = doc["checks"]
    expect(checks, f"{src}: no checks to make say {want}")
    for c in checks:
        c["verdict"], c["disturbance"] = "PASS", False
    if want in ("WARN", "FAIL", "INCONCLUSIVE"):
        checks[0]["verdict"] = "WARN" if want == "WARN" else "FAIL"
    if want == "INCONCLUSIVE":  # a FAIL beside a disturbance check that did not pass
        probe = dict(checks[-1], name="reference probe", verdict="WARN", disturbance=True)
        checks.append(probe)
    doc.pop("verdict", None)
    with open(path, "w") as f:
        json.dump(doc, f)
    rc, out, err, _ = scalecheck1(["report", d])
    expect(rc == 0, f"report {d}: exit {rc}\n{err}")
    return d


def terminal_verdict(out):
    m = re.findall(r"^# verdict: ([A-Z]+)", out, re.M)
    return m[-1] if m else None


def runs(wd):
    """A real run of each command, with its exit code and its terminal's verdict."""
    r = os.path.join(wd, "r")
    topo = os.path.join(os.path.dirname(__file__), "..", "..", "topologies", "localhost.yaml")
    launches = {
        "coll": (1, ["coll", "-Y", topo, "-b", "8", "-e", "4K", "-n", "2"]),
        "run": (2, ["run", "-W", "bert-large-dp", "-Y", topo, "--bytes-scale", "0.001",
                    "--compute-scale", "0.001", "-n", "2", "-w", "1", "--sweep-max", "64K"]),
        "pairs": (2, ["pairs", "--per", "rank", "--size", "64K", "--tolerance", "0.9"]),
        "soak": (2, ["soak", "--duration", "2s", "--cycle", "1", "--steps", "1", "--warmup",
                     "0", "--sweep-max", "64K", "--bytes-scale", "0.001", "--compute-scale",
                     "0.001"]),
        "judge": (0, ["judge", "-Y", "dgx-a100", "--collective", "allreduce", NCCL_TEXT]),
    }
    found = {}
    for cmd, (np, args) in launches.items():
        before = set(glob.glob(os.path.join(r, "*")))
        args = args + ["--results-dir", r]
        rc, out, err, _ = mpirun(np, args, timeout=240) if np else scalecheck1(args)
        new = sorted(set(glob.glob(os.path.join(r, "*"))) - before)
        expect(len(new) == 1, f"{cmd}: exit {rc}, run directories {new}\n{out[-800:]}{err[-800:]}")
        verdict = load_json(os.path.join(new[0], "result.json"))["verdict"]["verdict"]
        same_story(f"{cmd} as it ran", new[0], verdict,
                   {"exit code": verdict if rc == EXIT[verdict] else f"exit {rc}",
                    "terminal": terminal_verdict(out) or terminal_verdict(err)})
        found[cmd] = (new[0], verdict)
    return found


def test():
    wd = workdir("one-story")
    found = runs(wd)
    told = []
    for cmd, (d, verdict) in found.items():
        for want in EXIT:
            same_story(f"{cmd} made to say {want}", made_to_say(d, want, wd), want)
        told.append(f"{cmd} {verdict}")
    # a suspect the localisation named is a FAIL, every check passing or not, read back too
    d = made_to_say(found["pairs"][0], "PASS", os.path.join(wd, "suspect"))
    doc = load_json(os.path.join(d, "result.json"))
    doc.setdefault("localization", {"reference_GBps": 1, "best_GBps": 1, "tolerance": 0.5,
                                    "slow_pairs": [], "reference_note": None})
    doc["localization"]["suspects"] = [{"kind": "node", "where": doc["names"][0],
                                        "evidence": "planted by the test"}]
    with open(os.path.join(d, "result.json"), "w") as f:
        json.dump(doc, f)
    rc, out, err, _ = scalecheck1(["report", d])
    same_story("pairs with a suspect", d, "FAIL")
    junit = open(os.path.join(d, "junit.xml")).read()
    expect(f'name="suspect node: {doc["names"][0]}"' in junit, "junit names the suspect")
    print(f"one story: real runs ({', '.join(told)}) and each made PASS, WARN, FAIL and "
          "INCONCLUSIVE: the exit code, the table, result.json, summary.json, junit.xml, "
          "metrics.prom and report.html agree")


main(test)
