"""`scalecheck soak`, the stability run, on this host (4 ranks, the host path: GPU telemetry "not
available"):
  resumed  - a 30-second soak of 3-second cycles; once 3 cycles are in the journal one rank is
             killed (SIGKILL): the launch ends, the journal keeps every finished cycle and says
             how it ended; a half-written last line is dropped on resume; `soak --resume DIR`
             carries on to 30 s of soak time with the journal's own options: cycles numbered on
             without a gap, one start, one resume, a complete end, the verdict PASS, the report
             with its time-series plots;
  degraded - a short soak with the fake NVML (a GPU climbing past 85 C, XIDs 79 and 48, an
             uncorrected ECC error a sample, PCIe replays and NVLink CRC errors) and a fake sysfs
             (a CPU sensor at 99 C, EDAC uncorrected errors appearing mid-run): FAIL, exit 1, each
             named; with the topology's expect.soak at 95 C the GPU temperature passes and the
             rest still fails;
  refused  - bad durations, --resume with other options, a resume on another number of ranks,
             a journal that is not one: exit 2, the message names it, nothing made or changed."""
import glob
import json
import os
import signal
import sys
import threading
import time

from sclib import *
import promtext

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FAKE = os.environ["FAKE_NVML"]
# (--max-drift 1: these soaks test health, endings and loads, not stability: the suite's other
# tests share the 2 cores and swing their busbw 10x - the unit test holds drift and swing)
SMALL = ["--bytes-scale", "0.001", "--compute-scale", "0.01", "--sweep-max", "1M", "--steps", "5",
         "--warmup", "1", "--max-drift", "1"]


def journal_lines(path):
    with open(path) as f:
        return [json.loads(l) for l in f.read().splitlines() if l.strip()]


def kill_when(base, journal, cycles, rank, done):
    """Once the journal holds `cycles` cycles, SIGKILL the given rank of the soak writing into
    base (no other test's soak: they share the machine)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            n = sum(1 for l in journal_lines(journal) if l.get("type") == "cycle")
        except (OSError, ValueError):
            n = 0
        if n >= cycles:
            pid = rank_pid(base, rank)
            if pid is not None:
                os.kill(pid, signal.SIGKILL)
                done.append(pid)
            return
        time.sleep(0.2)


SOAK_S, CYCLE_S = 30, 3  # the killed-and-resumed soak: 10 cycles, the kill after the third


def resumed(wd):
    base = os.path.join(wd, "r")
    # the drift is not judged here (--max-drift 1): the suite's other tests share the 2 cores and
    # swing this soak's figures 10x; the unit test holds the drift both ways
    args = ["soak", "--duration", f"{SOAK_S}s", "--cycle", str(CYCLE_S), "--max-drift", "1",
            "--results-dir", base, "--name", "stab"] + SMALL
    # the run directory appears as soon as the session opens: watch its journal
    killed = []
    def watcher():
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not run_dirs(base):
            time.sleep(0.1)
        if run_dirs(base):
            kill_when(base, os.path.join(run_dirs(base)[0], "journal.jsonl"), 3, 2, killed)
    t = threading.Thread(target=watcher)
    t.start()
    rc, out, err, _ = mpirun(4, args, timeout=180)
    t.join()
    expect(killed, f"rank 2 was never killed: exit {rc}\n{out[-1500:]}{err[-1500:]}")
    expect(rc != 0, f"a launch with a rank killed exited 0\n{out[-1500:]}")
    run = run_dirs(base)[0]
    journal = os.path.join(run, "journal.jsonl")
    first = journal_lines(journal)
    cycles = [l for l in first if l["type"] == "cycle"]
    expect(first[0]["type"] == "start" and first[0]["ranks"] == 4 and len(cycles) >= 3
           and [c["cycle"] for c in cycles] == list(range(1, len(cycles) + 1)),
           f"journal after the kill: {[l['type'] for l in first]}")
    state = load_json(os.path.join(run, "result.json"))["state"]
    expect(state in ("interrupted", "failed"), f"killed launch's state {state}")
    # a kill in the middle of a write leaves half a line: the resume drops it
    with open(journal, "a") as f:
        f.write('{"cycle": 99, "start_s": 1e9, "wall_')
    rc, out, err, _ = mpirun(4, ["soak", "--resume", run], timeout=180)
    expect(rc == 0, f"resume: exit {rc}\n{out[-2500:]}{err[-1500:]}")
    lines = journal_lines(journal)
    types = [l["type"] for l in lines]
    cycles = [l for l in lines if l["type"] == "cycle"]
    numbers = [c["cycle"] for c in cycles]
    expect(types.count("start") == 1 and types.count("resume") == 1 and types[-1] == "end"
           and lines[-1]["state"] == "complete" and numbers == list(range(1, len(numbers) + 1)),
           f"journal after the resume: {types}, cycles {numbers}")
    soak_s = cycles[-1]["start_s"] + cycles[-1]["wall_s"]
    expect(SOAK_S <= soak_s < SOAK_S + CYCLE_S + 10, f"soak time {soak_s:.1f} s of {SOAK_S}")
    for a, b in zip(cycles, cycles[1:]):  # soak time adds up across the launches
        expect(abs(a["start_s"] + a["wall_s"] - b["start_s"]) < 0.5, f"cycles {a} then {b}")
    expect(all(c["wall_s"] >= CYCLE_S and c["verdict"] == "PASS" and len(c["sweep"]) == 3
               and c["hosts"][0]["gpus_available"] is False and c["step_ms"] > 0
               for c in cycles), f"cycle records: {cycles[0]}")
    doc = load_json(os.path.join(run, "result.json"))
    soak = doc["soak"]
    expect(doc["state"] == "complete" and doc["verdict"]["verdict"] == "PASS"
           and soak["launches"] == 2 and soak["cycles"] == len(cycles) and soak["duration_s"] == SOAK_S,
           f"result: {doc['state']} {doc['verdict']} {soak}")
    names = [c["name"] for c in doc["checks"]]
    expect("drift: training step time" in names and "cycles within the limits" in names,
           f"checks {names}")
    html = open(os.path.join(run, "report.html")).read()
    expect("<h2>Cycles</h2>" in html and html.count("<tr><td>") >= len(cycles), "report.html")
    plots = sorted(os.path.basename(p) for p in glob.glob(os.path.join(run, "soak-*.svg")))
    expect(plots == ["soak-busbw.svg", "soak-step.svg"] and "<svg" in html,
           f"plots {plots} (no GPU: no temperature or power)")
    print(f"resumed: killed rank 2 after {len(first) - 1} lines; {len(cycles)} cycles, "
          f"{soak_s:.1f} s of soak, 2 launches, PASS")


def fake_sysfs(root):
    zone = os.path.join(root, "class", "thermal", "thermal_zone0")
    mc = os.path.join(root, "devices", "system", "edac", "mc", "mc0")
    for d in (zone, mc):
        os.makedirs(d)
    with open(os.path.join(zone, "temp"), "w") as f:
        f.write("99000\n")
    for name in ("ce_count", "ue_count"):
        with open(os.path.join(mc, name), "w") as f:
            f.write("0\n")
    return os.path.join(mc, "ue_count")


def checks_of(doc):
    return {c["name"]: c for c in doc["checks"]}


def degraded(wd):
    root = os.path.join(wd, "sysfs")
    ue = fake_sysfs(root)
    env = {"SCALECHECK_NVML_LIBRARY": FAKE, "SCALECHECK_SYSFS_ROOT": root}
    def memory_error():  # an uncorrected memory error appears a second into the run
        time.sleep(1.0)
        with open(ue, "w") as f:
            f.write("3\n")
    t = threading.Thread(target=memory_error)
    t.start()
    jpath = os.path.join(wd, "degraded.json")
    rc, out, err, _ = mpirun(4, ["soak", "--duration", "6s", "--cycle", "2", "--telemetry-interval",
                                 "0.2", "--json", jpath, "--results-dir", os.path.join(wd, "d")]
                             + SMALL, env=env, timeout=120)
    t.join()
    expect(os.path.exists(jpath), f"degraded: no {jpath}: exit {rc}\n{out[-1500:]}{err[-1500:]}")
    doc = load_json(jpath)
    checks = checks_of(doc)
    host = doc["hosts"][0]
    # the hottest GPU's check names it past the limit: looked up by what it is
    hot = [k for k in checks if k.startswith(f"{host}: hottest GPU")]
    expect(len(hot) == 1 and "(GPU 1, 00000000:1C:00.0; throttled: sw thermal slowdown)" in hot[0],
           f"the hot GPU named: {hot}")
    for named in [k for k in checks if " (GPU " in k]:  # the GPU named: by what the check is
        checks[named.split(" (GPU ")[0]] = checks[named]
    want_fail = [f"{host}: hottest GPU", f"{host}: XID errors", f"{host}: uncorrected ECC errors",
                 f"{host}: GPU throttled share of a cycle",
                 f"{host}: hottest CPU sensor", f"{host}: uncorrected memory errors (EDAC)",
                 "cycles within the limits"]
    want_warn = [f"{host}: PCIe replays", f"{host}: NVLink errors (replay, recovery, CRC)"]
    expect(rc == 1 and doc["verdict"]["verdict"] == "FAIL", f"degraded: exit {rc}\n{out[-2000:]}")
    for name in want_fail:
        expect(name in checks and checks[name]["verdict"] == "FAIL", f"{name}: {checks.get(name)}")
    for name in want_warn:
        expect(name in checks and checks[name]["verdict"] == "WARN", f"{name}: {checks.get(name)}")
    journal = journal_lines(os.path.join(run_dirs(os.path.join(wd, "d"))[0], "journal.jsonl"))
    ncycles = sum(1 for l in journal if l["type"] == "cycle")
    # the fake raises two XIDs each time it is loaded, once a cycle
    expect(checks[f"{host}: hottest GPU"]["measured"] == 90
           and checks[f"{host}: XID errors"]["measured"] == 2 * ncycles
           and checks[f"{host}: hottest CPU sensor"]["measured"] == 99
           and checks[f"{host}: uncorrected memory errors (EDAC)"]["measured"] == 3,
           f"figures over {ncycles} cycles: { {k: v['measured'] for k, v in checks.items()} }")
    first = [l for l in journal if l["type"] == "cycle"][0]
    expect(first["verdict"] == "FAIL" and "GPU at 90 C, above 85 C" in first["breaches"]
           and first["hosts"][0]["last_xid"] in (79, 48), f"first cycle {first}")
    run = run_dirs(os.path.join(wd, "d"))[0]
    plots = sorted(os.path.basename(p) for p in glob.glob(os.path.join(run, "soak-*.svg")))
    expect(len(plots) == 4, f"plots with GPU telemetry: {plots}")
    fams = promtext.parse(open(os.path.join(run, "metrics.prom")).read())
    gauge = lambda name: [s[1] for s in fams[name]["samples"]]
    expect(gauge("scalecheck_soak_cycles") == [ncycles]
           and gauge("scalecheck_soak_gpu_max_temperature_celsius") == [90]
           and gauge("scalecheck_soak_xid_errors") == [2] and gauge("scalecheck_verdict") == [2],
           f"metrics.prom: { {k: v['samples'] for k, v in fams.items() if 'soak' in k} }")
    # the limits come from the topology: 95 C lets the GPU pass, the errors still fail
    topo = os.path.join(wd, "hot.yaml")
    with open(topo, "w") as f:
        f.write(f"name: hot\nextends: {os.path.join(ROOT, 'topologies', 'localhost.yaml')}\n"
                "expect:\n  soak:\n    max_gpu_temp_c: 95\n    max_cpu_temp_c: 100\n")
    jpath = os.path.join(wd, "tolerant.json")
    rc, out, err, _ = mpirun(4, ["soak", "--duration", "2s", "--cycle", "2", "-Y", topo,
                                 "--json", jpath, "--results-dir", os.path.join(wd, "t")] + SMALL,
                             env=env, timeout=120)
    checks = checks_of(load_json(jpath))
    expect(rc == 1 and checks.get(f"{host}: hottest GPU", {}).get("verdict") == "PASS"
           and checks[f"{host}: hottest CPU sensor"]["verdict"] == "PASS"
           and checks[f"{host}: XID errors"]["verdict"] == "FAIL",
           f"expect.soak at 95 C: exit {rc}, {checks.get(host + ': hottest GPU')}")
    print(f"degraded: FAIL with {len(want_fail)} failing checks and {len(want_warn)} warnings; "
          f"expect.soak at 95 C passes the GPU")


def refused(wd):
    base = os.path.join(wd, "bad")
    # bad durations, modes and a --resume with options of its own need no peer: they are held in
    # process by tests/unit/test_refusals.c; here, what the ranks decide
    cases = [(["--duration", "1m", "--sweep-max", "1T"], "--sweep-max: the buffers need")]
    for args, message in cases:
        rc, out, err, _ = mpirun(2, ["soak", "--results-dir", base] + args, timeout=60)
        expect(rc == 2 and message in err, f"{args}: exit {rc}\n{err[-800:]}")
        # (a refusal found once the backend is open - the memory - leaves the folder it made for
        # run directories, empty, as every command does: exit2-nothing-on-disk)
        left = os.listdir(base) if os.path.exists(base) else []
        expect(left == [], f"{args}: exit 2 left {left} in {base}")
    # a journal that is not one, and a soak resumed on other ranks: refused, left as it was
    run = os.path.join(wd, "other")
    os.makedirs(run)
    with open(os.path.join(run, "journal.jsonl"), "w") as f:
        f.write('{"type":"start","version":"x","start_utc":"","ranks":4,"nhosts":1,"hosts":"'
                + os.uname().nodename + '","argv":["--duration","1m"],"duration_s":60}\n')
    before = open(os.path.join(run, "journal.jsonl")).read()
    rc, out, err, _ = mpirun(2, ["soak", "--resume", run], timeout=60)
    expect(rc == 2 and "--resume: the soak ran on 4 ranks" in err and "this launch has 2" in err,
           f"other ranks: exit {rc}\n{err[-800:]}")
    expect(open(os.path.join(run, "journal.jsonl")).read() == before
           and sorted(os.listdir(run)) == ["journal.jsonl"], f"left {os.listdir(run)}")
    with open(os.path.join(run, "journal.jsonl"), "w") as f:
        f.write('{"type":"cycle"}\n')
    rc, out, err, _ = mpirun(2, ["soak", "--resume", run], timeout=60)
    expect(rc == 2 and "journal.jsonl:1: not a soak journal" in err, f"not a journal: {err[-600:]}")
    print(f"refused: {len(cases) + 2} bad inputs, exit 2, nothing made")


def burn(wd):
    """--load burn on the host path: every rank burns a core (fp32 products and a memory stream)
    all through each cycle, beside its sweep and steps, and each cycle records the least TFLOP/s
    a rank's burn reached; a load that is neither step nor burn is refused."""
    jpath = os.path.join(wd, "burn.json")
    rc, out, err, _ = mpirun(2, ["soak", "--duration", "4s", "--cycle", "2", "--load", "burn",
                                 "--burn-size", "64", "--burn-stream", "1M", "--json", jpath,
                                 "--results-dir", os.path.join(wd, "b")] + SMALL, timeout=120)
    doc = load_json(jpath) if os.path.exists(jpath) else {}
    expect(rc == 0 and doc.get("verdict", {}).get("verdict") == "PASS",
           f"burn: exit {rc}\n{out[-1500:]}{err[-1000:]}")
    cycles = [l for l in journal_lines(os.path.join(doc["results_dir"], "journal.jsonl"))
              if l["type"] == "cycle"]
    # 64^3 fp32 products on one core: far above a GFLOP/s would be no product, far below no burn
    expect(len(cycles) >= 2 and all(1e-5 < c["burn_tflops"] < 1 for c in cycles),
           f"burn figures: {[c.get('burn_tflops') for c in cycles]}")
    rc, out, err, _ = mpirun(2, ["soak", "--duration", "4s", "--load", "heat", "--results-dir",
                                 os.path.join(wd, "x")], timeout=60)
    expect(rc == 2 and "--load: 'heat' is not one of step|burn" in err, f"--load heat: exit {rc}\n{err}")
    print(f"burn: {len(cycles)} cycles PASS, the least burn "
          f"{min(c['burn_tflops'] for c in cycles) * 1e3:.2f} GFLOP/s a core; --load heat refused")


def test():
    wd = workdir("soak-" + sys.argv[1])
    {"resumed": resumed, "degraded": degraded, "refused": refused, "burn": burn}[sys.argv[1]](wd)


main(test)
