"""nccl-tests habits (docs/accept.md, "nccl-tests habits"): `coll --nccl-tests-output` prints nccl-tests'
own header, table and footer - read here the way the parsers around nccl-tests read it (every
line that is not a comment split on white space, the "Avg bus bandwidth" line by its label) and
held to nccl-tests 2.19's column widths (src/util.cu's format strings); -J writes its JSON, which
`scalecheck judge` reads back as nccl-tests'; wrong data show as #wrong and "FAILED" as in
nccl-tests; nccl-tests' flags mean what they mean there (-T the timeout, -N cycles, -r all, -m,
-a / --stat in the header), the ones with no meaning here are refused naming the flag, and -N 0
runs until a signal stops it, keeping what finished."""
import os
import re
import signal
import subprocess
import sys
import time

from sclib import *

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
LOCAL = os.path.join(ROOT, "topologies", "localhost.yaml")
SIZES = [8 * 4 ** i for i in range(9)]  # 8 B .. 512 KiB, -f 4
ARGS = ["coll", "-b", "8", "-e", "512K", "-f", "4", "-n", "5", "-w", "1"]
# where each field of a row ends: "%12li  %12li  %8s  %6s  %6s", then per half
# "  %7s  %6s  %6s  %6g" (nccl-tests src/util.cu)
EDGES = [12, 26, 36, 44, 52, 61, 69, 77, 85, 94, 102, 110, 118]


def parse(text):
    """(rows, avg busbw, header lines) as nccl-tests' parsers see them."""
    rows, avg = [], None
    for line in text.splitlines():
        if line.startswith("# Avg bus bandwidth"):
            avg = float(line.split(":")[1].split()[0])  # then OK / FAILED with NCCL_TESTS_MIN_BW
        if line.startswith("#") or not line.strip():
            continue
        f = line.split()
        if len(f) >= 13 and f[0].isdigit() and f[1].isdigit():
            rows.append({"line": line, "size": int(f[0]), "count": int(f[1]), "type": f[2],
                         "redop": f[3], "root": int(f[4]), "fields": f,
                         "oop": [float(x) for x in f[5:9]], "ip": [float(x) for x in f[9:13]]})
    return rows, avg, [l for l in text.splitlines() if l.startswith("#")]


def run_nt(wd, extra=(), env=None, np=2, want=0):
    base = os.path.join(wd, "results")
    rc, out, err, _ = mpirun(np, ARGS + ["--results-dir", base, "--nccl-tests-output"] +
                             list(extra), env=env)
    expect(rc == want, f"coll --nccl-tests-output {extra}: exit {rc}, want {want}\n{err[-800:]}")
    return out, err, base


def table(wd):
    jpath = os.path.join(wd, "nt.json")
    out, err, base = run_nt(wd, ["-J", jpath])
    rows, avg, head = parse(out)
    expect(head[0].startswith("# nccl-tests version 2.19.6 nccl-headers="), f"first line {head[0]}")
    expect("# Collective test starting: all_reduce_perf" in head, f"no program line: {head[:3]}")
    expect(any(l.startswith("# nThread 1 nGpus 1 minBytes 8 maxBytes 524288 step: 4(factor) "
                            "warmup iters: 1 iters: 5 agg iters: 1 validation: 1") for l in head),
           f"config line: {head[2]}")
    expect(sum(1 for l in head if re.match(r"#  Rank  [01] Group  0 Pid +\d+ on ", l)) == 2,
           "two device lines")
    expect(any("time is the mean" in l and "avg (-a 1)" in l for l in head),
           "the statistic line: nccl-tests' mean and average by default")
    expect([r["size"] for r in rows] == SIZES, f"sizes {[r['size'] for r in rows]}")
    for r in rows:
        expect(r["count"] == r["size"] // 4 and r["type"] == "float" and r["redop"] == "sum" and
               r["root"] == -1, f"row {r['line']}")
        ends = [m.end() for m in re.finditer(r"\S+", r["line"])]
        expect(ends == EDGES, f"columns end at {ends}, nccl-tests' at {EDGES}: {r['line']!r}")
        for t, alg, bus, wrong in (r["oop"], r["ip"]):
            expect(t > 0 and wrong == 0 and abs(bus - alg) <= 0.011, f"row {r['line']}")
            if alg >= 0.5:  # 2 decimals: the ratio holds where they are enough
                expect(abs(alg - r["size"] / t / 1e3) <= 0.02 * alg + 0.01,
                       f"algbw {alg} vs size/time {r['size'] / t / 1e3}")
    busbws = [x for r in rows for x in (r["oop"][2], r["ip"][2])]
    mean = sum(busbws) / len(busbws)
    expect(avg is not None and abs(avg - mean) <= 0.01 + 0.02 * mean,
           f"Avg bus bandwidth {avg}, the rows' mean {mean:.3f}")
    expect("# Out of bounds values : 0 OK" in head and
           "# Collective test concluded: all_reduce_perf" in head, "footer")
    doc = load_json(os.path.join(run_dirs(base)[0], "result.json"))
    expect(doc["options"]["statistic"] == "mean" and doc["options"]["average"] == "avg",
           f"options {doc['options']}")
    nt = load_json(jpath)
    expect(nt["version"] == 3 and len(nt["config"]["devices"]) == 2 and
           len(nt["results"]) == len(SIZES), f"-J: {list(nt)}")
    for res, r in zip(nt["results"], rows):
        expect(res["size"] == r["size"] and res["count"] == r["count"], f"-J row {res}")
        for half, printed in (("out_of_place", r["oop"]), ("in_place", r["ip"])):
            h = res[half]
            expect(abs(h["bus_bw"] - printed[2]) <= 0.006 and h["nwrong"] == 0, f"-J {half} {h}")
    expect(nt["out_of_bounds"] == {"count": 0, "okay": True}, f"-J {nt['out_of_bounds']}")
    # scalecheck judge reads both back as nccl-tests' (its reader, src/util.cu's layout)
    log = os.path.join(wd, "nt.log")
    with open(log, "w") as f:
        f.write(out)
    jb = os.path.join(wd, "judged")
    rc, jout, jerr, _ = scalecheck1(["judge", "-Y", LOCAL, "--results-dir", jb, log, jpath])
    expect(rc in (0, 1), f"judge: exit {rc}\n{jerr[-600:]}")
    jdoc = load_json(os.path.join(run_dirs(jb)[0], "result.json"))
    read = jdoc["results"]  # both halves of every size, from each file
    expect(len(read) == 4 * len(SIZES) and sorted({r["size_bytes"] for r in read}) == SIZES,
           f"judge read {len(read)} rows")
    printed = {(r["size"], half): v[2] for r in rows for half, v in ((0, r["oop"]), (1, r["ip"]))}
    for r in read:
        want = printed[(r["size_bytes"], int(r["in_place"]))]
        expect(abs(r["busbw_GBps"] - want) <= 0.006, f"judge busbw {r['busbw_GBps']} vs {want}")
    print(f"table: {len(rows)} rows at nccl-tests' columns, avg busbw {avg}, -J and judge agree")


def degraded(wd):
    """A rank that corrupts its results: #wrong in the rows, FAILED in the footer, exit 1."""
    jpath = os.path.join(wd, "bad.json")
    out, _, _ = run_nt(wd, ["-J", jpath], env={"SCALECHECK_TEST_FAULT": "corrupt:1"}, want=1)
    rows, _, head = parse(out)
    expect(rows and all(r["oop"][3] > 0 and r["ip"][3] > 0 for r in rows),
           f"#wrong: {[r['oop'][3] for r in rows]}")
    bad = [l for l in head if l.startswith("# Out of bounds values")]
    expect(bad and bad[0].endswith("FAILED") and int(bad[0].split()[6]) > 0, f"footer {bad}")
    expect(load_json(jpath)["out_of_bounds"]["okay"] is False, "-J okay")
    print(f"degraded: {bad[0]}")


def flags(wd):
    base = os.path.join(wd, "flags")
    rc, out, err, _ = mpirun(2, ARGS + ["--results-dir", base, "-T", "60"])
    expect(rc == 0, f"-T 60: exit {rc} {err[-300:]}")
    expect(re.search(r"# time: the median .* combined by max \(-a 3\)", out),
           "scalecheck's own table states its median and max")
    rc, out, _, _ = mpirun(2, ARGS + ["--results-dir", base, "--stat", "mean", "-a", "1"])
    expect(rc == 0 and "# time: the mean" in out and "avg (-a 1)" in out, "--stat mean -a 1")
    refused = {("-T", "topologies/localhost.yaml"): "-T is the timeout in seconds",
               ("-t", "2"): "-t 2: scalecheck drives one GPU per rank",
               ("-g", "4"): "-g 4: scalecheck drives one GPU per rank",
               ("-o", "mulsum"): "-o mulsum: NCCL's pre-multiplied sum",
               ("-y", "1"): "-y 1:", ("-R", "1"): "-R 1:", ("-u", "8"): "-u 8:",
               ("-D", "1"): "-D:", ("-N", "0", "-Y", LOCAL): "-N 0: a run until stopped"}
    for args, text in refused.items():
        nothing = os.path.join(wd, "refused")
        rc, _, err, _ = mpirun(1, ["coll", "--results-dir", nothing, *args])
        expect(rc == 2 and text in err, f"{args}: exit {rc}, {err.strip()[:200]}")
        expect(not os.path.exists(nothing), f"{args}: left {nothing}")
    rc, out, _, _ = scalecheck1(["coll", "--version"])
    expect(rc == 0 and out.startswith("scalecheck "), f"coll --version: {rc} {out[:80]}")
    rc, _, err, _ = scalecheck1(["model", "-T", "dgx-a100", "-W", "resnet50-dp"])
    expect(rc == 2 and "a topology is -Y/--topology" in err, f"model -T: {rc} {err}")
    out, _, nbase = run_nt(wd, ["-N", "3", "-m", "4", "-z", "3", "-I", "1", "-S", "1"])
    rows, _, head = parse(out)
    expect(len(rows) == 3 * len(SIZES) and all(len(r["fields"]) == 23 for r in rows),
           f"-N 3 -I 1 -S 1: {len(rows)} rows, {len(rows[0]['fields'])} fields")
    expect(any("agg iters: 4" in l for l in head) and any("Blocking Enabled" in l for l in head),
           "-m 4 and -z 3 in the header")
    cycles = sorted({c["cycle"] for c in load_json(
        os.path.join(run_dirs(nbase)[-1], "result.json"))["results"]})
    expect(cycles == [1, 2, 3], f"cycles {cycles}")
    out, _, _ = run_nt(wd, ["--collective", "broadcast", "-r", "all"])
    roots = sorted({r["root"] for r in parse(out)[0]})
    expect(roots == [0, 1], f"-r all: roots {roots}")
    out, _, _ = run_nt(wd, ["--collective", "all", "-e", "4K"])
    programs = re.findall(r"# Collective test starting: (\S+)", out)
    expect(len(programs) == len(COLLECTIVES) and out.count("# Avg bus bandwidth") ==
           len(COLLECTIVES), f"--collective all: {programs}")
    print(f"flags: {len(refused)} refused with the flag named; -N 3, -r all, all collectives")


def forever(wd):
    """-N 0: sweeps until a signal; the job ends interrupted (exit 4) with its rows kept."""
    base = os.path.join(wd, "forever")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    # Open MPI's mpirun ends 1 on SIGTERM: launch/mpirun.sh passes the ranks' exit code on
    start = [os.path.join(ROOT, "launch", "mpirun.sh"), "-np", "2", "--oversubscribe", "--"] \
        if MPI == "openmpi" else launcher(2)
    proc = subprocess.Popen(start + [SCALECHECK] + ARGS + ["-N", "0", "--results-dir", base],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            start_new_session=True)
    cycles, deadline = [], time.monotonic() + 60
    while time.monotonic() < deadline and max(cycles, default=0) < 3:
        time.sleep(0.3)
        try:
            cycles = [r["cycle"] for r in load_json(
                os.path.join(run_dirs(base)[0], "result.json"))["results"]]
        except (OSError, ValueError, IndexError, KeyError):
            pass
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        raise Failure("-N 0: no end 30 s after SIGTERM")
    doc = load_json(os.path.join(run_dirs(base)[0], "result.json"))
    kept = max((r["cycle"] for r in doc["results"]), default=0)
    want = (4,) if MPI == "openmpi" else (4, 143)  # hydra may answer for its killed ranks
    expect(proc.returncode in want and doc["state"] == "interrupted" and kept >= 3,
           f"-N 0: exit {proc.returncode}, state {doc['state']}, last cycle kept {kept}")
    print(f"forever: stopped after cycle {kept}, exit 4, rows kept")


def min_bw(wd):
    """NCCL_TESTS_MIN_BW as nccl-tests honours it: the average's line says OK or FAILED (below
    90 % of the floor), a FAILED run exits 1 - and here it is a check of the verdict too; a value
    that is not a number is refused (nccl-tests' atof would read it as no floor)."""
    for floor, want, word in (("0.000001", 0, "OK"), ("1000000", 1, "FAILED")):
        wdf = os.path.join(wd, "min-bw-" + word)
        out, err, base = run_nt(wdf, env={"NCCL_TESTS_MIN_BW": floor}, want=want)
        lines = [l for l in out.splitlines() if l.startswith("# Avg bus bandwidth")]
        expect(lines and all(l.split()[-1] == word for l in lines), f"{floor}: {lines}")
        doc = load_json(os.path.join(run_dirs(base)[-1], "result.json"))
        check = [c for c in doc["checks"] if c["source"] == "NCCL_TESTS_MIN_BW"]
        expect(len(check) == 1 and check[0]["verdict"] == ("PASS" if want == 0 else "FAIL")
               and check[0]["expected"] == float(floor), f"{floor}: check {check}")
    rc, out, err, _ = mpirun(1, ["coll", "--results-dir", os.path.join(wd, "min-bw-bad")],
                             env={"NCCL_TESTS_MIN_BW": "fast"})
    expect(rc == 2 and "NCCL_TESTS_MIN_BW: 'fast' is not a bandwidth" in err
           and not os.path.exists(os.path.join(wd, "min-bw-bad")), f"bad floor: {rc} {err[-300:]}")


def test():
    wd = workdir("nccl-tests")
    min_bw(wd)
    table(wd)
    degraded(wd)
    flags(wd)
    forever(wd)


if __name__ == "__main__":
    main(test)
