"""`scalecheck judge`: results other tools wrote - nccl-tests text (with and without the root
column, with per-iteration columns), nccl-tests -J JSON, OSU collectives and osu_bw - held to a
topology (and to a baseline) with the same verdict, exit code and files as a scalecheck run; a
degraded twin FAILs;
bad input is exit 2 with nothing on disk. The inputs are written here in those tools' documented
formats (nccl-tests src/util.cu; OSU's '# Size  Avg Latency(us)' tables)."""
import json
import os

from sclib import *

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
DGX = os.path.join(ROOT, "topologies", "dgx-a100.yaml")
SIZES = [8 << (3 * i) for i in range(10)]  # 8 B .. 1 GiB


def expected_times(gpus, nodes, collective="allreduce", topology=DGX, sizes=SIZES):
    wd = workdir("judge-model")
    path = os.path.join(wd, "m.json")
    rc, _, err, _ = scalecheck1(["model", "--topology", topology, "--collective", collective, "--size",
                                 ",".join(map(str, sizes)), "--gpus", str(gpus // nodes),
                                 "--nodes", str(nodes), "--json", path])
    expect(rc == 0, f"model: {rc} {err}")
    return {p["size_bytes"]: p["time_us"] for p in load_json(path)["predictions"]
            if p["gpus"] == gpus}


def nccl_text(path, times, gpus, hosts, slow=lambda s: 1.0, root=True, per_iter=False,
              program="all_reduce_perf", noise=True, tail=lambda s: 1.1):
    out = ["# nccl-tests version 2.13.9 nccl-headers=22005 nccl-library=22005"]
    if program:
        out.append(f"# Collective test starting: {program}")
    out.append("# nThread 1 nGpus 1 minBytes 8 maxBytes 1073741824 step: 8(factor) warmup iters: 5 "
               "iters: 20 agg iters: 1 validation: 1 graph: 0 unalign: 0")
    out.append("#\n# Using devices")
    for r in range(gpus):
        out.append(f"#  Rank {r:2d} Group  0 Pid {4000 + r:6d} on {hosts[r * len(hosts) // gpus]:>10s} "
                   f"device {r % 8:2d} [0000:{r:02x}:00] NVIDIA A100-SXM4-80GB")
    out.append("#")
    cols = "time   algbw   busbw #wrong" + ("   i_min   i_max   i_p99   i_cv%" if per_iter else "")
    out.append(f"#       size         count      type   redop {'   root' if root else ''}  {cols}  {cols}")
    if noise:
        out.append("dgx-01:1234:1234 [0] NCCL INFO comm 0x55 rank 0 nranks 8 - Init COMPLETE")
    for s in sorted(times):
        t = times[s] * 1.03 * slow(s)
        alg = s / t / 1e3
        cell = f"{t:9.2f} {alg:7.2f} {alg * 2 * (gpus - 1) / gpus:7.2f}      0"
        if per_iter:
            cell += f" {t * 0.9:7.2f} {t * max(1.2, tail(s)):7.2f} {t * tail(s):7.2f}    1.50"
        out.append(f"{s:12d} {s // 4:12d}     float     sum {'     -1' if root else ''} {cell} {cell}")
    out += ["# Out of bounds values : 0 OK", "# Avg bus bandwidth    : 100.0", "#"]
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def nccl_json(path, times, gpus, hosts):
    devices = [{"rank": r, "group": 0, "pid": 100 + r, "hostname": hosts[r * len(hosts) // gpus],
                "device": r % 8, "device_hex": "0000:07:00", "device_info": "NVIDIA A100-SXM4-80GB"}
               for r in range(gpus)]
    results = []
    for s in sorted(times):
        t = times[s] * 1.02
        alg = s / t / 1e3
        place = {"time": t, "alg_bw": alg, "bus_bw": alg * 2 * (gpus - 1) / gpus, "nwrong": 0.0}
        results.append({"size": s, "count": s // 4, "type": "float", "redop": "sum",
                        "root": "    -1", "out_of_place": place, "in_place": dict(place),
                        "actual_iterations": 20, "experiment_name": ""})
    doc = {"version": 2, "start_time": "2026-11-30 10:00:00",
           "args": ["./build/all_reduce_perf", "-b", "8", "-e", "1G", "-f", "8", "-J", path],
           "env": [], "nccl_version": 22005,
           "config": {"nthreads": 1, "ngpus": 1, "minimum_bytes": 8, "maximum_bytes": 1 << 30,
                      "step_factor": 8, "warmup_iters": 5, "iterations": 20,
                      "aggregated_iterations": 1, "validation": 1, "graph": 0,
                      "blocking_collectives": "false", "per_iter_timing": "false",
                      "parallel_init": "false", "devices": devices},
           "results": results, "out_of_bounds": {"count": 0, "okay": "true"},
           "average_bus_bandwidth": {"bandwidth": 150.0, "okay": "unchecked"},
           "errors": [], "end_time": "2026-11-30 10:01:00"}
    with open(path, "w") as f:
        json.dump(doc, f)


def osu(path, title, header, rows):
    with open(path, "w") as f:
        f.write(f"# {title}\n# Datatype: MPI_FLOAT.\n# {header}\n")
        for s, v in rows:
            f.write(f"{s:<10d}{v:18.2f}\n")


def judge(wd, files, *extra, want_rc=None):
    base = os.path.join(wd, "results")
    rc, out, err, _ = scalecheck1(["judge", "--topology", DGX, "--results-dir", base, *extra] + files)
    # in the order written (a name's counter passes 9: "-10" sorts before "-9")
    dirs = sorted(os.listdir(base), key=lambda d: os.path.getmtime(os.path.join(base, d))) \
        if os.path.isdir(base) else []
    if want_rc is not None:
        expect(rc == want_rc, f"judge {files} {extra}: exit {rc}, want {want_rc}\n{out[-600:]}\n{err[-600:]}")
    return rc, out, err, [os.path.join(base, d) for d in dirs]


def judged(d):
    summary = load_json(os.path.join(d, "summary.json"))
    for name in ("result.json", "junit.xml", "report.html"):
        expect(os.path.isfile(os.path.join(d, name)), f"{d} lacks {name}")
    return summary, load_json(os.path.join(d, "result.json"))


def latency_bound(wd):
    """A log written from published behaviour, not from the model: DGX A100 nccl-tests
    all-reduce with a 24 us floor (what healthy 8-GPU runs show at small sizes) and a 230 GB/s
    busbw ceiling, 8 B to 1 GiB by x2 (56 rows). Healthy PASSes every row; at half the bandwidth
    the large rows FAIL; with a 5x floor (a slow launch path, a busy host) the small ones do."""
    sizes = [8 << i for i in range(28)]

    def times(floor, busbw):
        return {s: (floor + 2 * 7 / 8 * s / (busbw * 1e3)) / 1.03 for s in sizes}  # nccl_text adds 3 %

    cases = [("healthy", times(24, 230), 0), ("half-bandwidth", times(24, 115), 1),
             ("slow-floor", times(120, 230), 1)]
    for name, t, want in cases:
        path = os.path.join(wd, f"latency-{name}.txt")
        nccl_text(path, t, 8, ["dgx-01"])
        rc, out, err, dirs = judge(wd, [path], want_rc=want)
        _, doc = judged(dirs[-1])
        rows = [c for c in doc["checks"] if c["source"] == "model"]
        failed = sorted({r["size_bytes"] for r in doc["results"]
                         if any(c["verdict"] == "FAIL" and f" {sc_size(r['size_bytes'])} B " in c["name"]
                                for c in rows)})
        expect(len(rows) == 2 * len(sizes), f"{name}: {len(rows)} model checks")
        if name == "healthy":
            bad = [(c["name"], c["verdict"], round(c["ratio"], 2)) for c in rows if c["verdict"] != "PASS"]
            expect(not bad, f"healthy: {len(bad)} rows not PASS: {bad[:6]}")
        elif name == "half-bandwidth":
            expect(failed and min(failed) >= 1 << 20 and (1 << 30) in failed,
                   f"half bandwidth: the large rows FAIL, the small pass: {failed}")
        else:
            expect(failed and max(failed) < 1 << 24 and 8 in failed,
                   f"slow floor: the small rows FAIL, the large pass: {failed}")
        print(f"latency-bound {name}: exit {rc}, FAIL at {len(failed)} sizes"
              f"{'' if not failed else f' ({min(failed)}..{max(failed)} B)'}")


def staged_pcie(wd):
    """A published PCIe system without peer-to-peer: 8 RTX 5090 reach 28 GB/s busbw (NVIDIA
    issue 1639), staged through host memory. Its log, written from that figure over 64 MiB to
    4 GiB, PASSes against the system written from its spec sheets (the host-memory bound: 30.7);
    at half the bandwidth (a lost memory channel, a x8 link) it FAILs."""
    topo = os.path.join(ROOT, "tests", "data", "published", "rtx5090-8-pcie5.yaml")
    sizes = [64 << 20 << i for i in range(7)]
    for name, busbw, want in [("healthy", 28.0, 0), ("half", 14.0, 1)]:
        path = os.path.join(wd, f"staged-{name}.txt")
        nccl_text(path, {s: 2 * 7 / 8 * s / (busbw * 1e3) / 1.03 for s in sizes}, 8, ["box"])
        base = os.path.join(wd, f"staged-{name}")
        rc, out, err, _ = scalecheck1(["judge", "--topology", topo, "--results-dir", base, path])
        _, doc = judged(os.path.join(base, os.listdir(base)[0]))
        verdicts = {c["verdict"] for c in doc["checks"] if c["source"] == "model"}
        expect(rc == want and verdicts == ({"PASS"} if want == 0 else {"FAIL"}),
               f"staged {name}: exit {rc}, verdicts {verdicts}\n{out[-600:]}")
        print(f"staged PCIe {name} ({busbw} GB/s): exit {rc}, {verdicts}")


def symmetric(wd):
    """Symmetric memory (nccl-tests -R 2): a log from the published figure - a small all-reduce
    on 2 B200 of about 9 us (NVIDIA/nccl-tests issue 333) - with the bandwidth of the links
    beyond it (the B300 HGX's, NVLink 5), held to NCCL's symmetric kernels with --symmetric
    (their LL all-reduce: 11 us and a little on Blackwell): it PASSes; at 50 us (a launch path
    gone slow) the small rows FAIL."""
    topo = os.path.join(ROOT, "tests", "data", "published", "b300-hgx.yaml")
    sizes = [8 << (2 * i) for i in range(13)]  # 8 B .. 128 MiB
    line = expected_times(2, 1, topology=topo, sizes=[1 << 30])[1 << 30] / (1 << 30)
    for name, floor, want in [("healthy", 9.0, 0), ("slow", 50.0, 1)]:
        path = os.path.join(wd, f"symmetric-{name}.txt")
        nccl_text(path, {s: (floor + s * line) / 1.03 for s in sizes}, 2, ["b300-01"])
        base = os.path.join(wd, f"symmetric-{name}")
        rc, out, err, _ = scalecheck1(["judge", "--topology", topo, "--symmetric",
                                       "--results-dir", base, path])
        _, doc = judged(os.path.join(base, os.listdir(base)[0]))
        rows = [c for c in doc["checks"] if c["source"] == "model"]
        failed = [c["name"] for c in rows if c["verdict"] == "FAIL"]
        small = [c["expected"] for c in rows if " 8 B " in c["name"]]
        expect(small and all(11.0 < e < 11.6 for e in small), f"symmetric 8 B priced {small}")
        expect(rc == want, f"symmetric {name}: exit {rc}, want {want}: {failed[:4]}\n{err[-400:]}")
        if want:
            expect(any(" 8 B " in n for n in failed), f"symmetric slow: 8 B FAILs {failed}")
        print(f"symmetric {name} ({floor} us floor): exit {rc}, {len(failed)} rows FAIL")


def osu_reduce_published(wd):
    """A published OSU run on 192 ranks (2 AWS p4d.24xlarge, Open MPI over EFA; open-mpi/ompi
    pull request 12318): osu_reduce reads 53 us at 1 B. MPI reduces a small buffer down a
    binomial tree - 8 steps, not a ring's 191 - so the log PASSes against aws-p4d's own figures;
    the same log at 4x (a slow hop) FAILs."""
    topo = os.path.join(ROOT, "topologies", "aws-p4d.yaml")
    rows = [(1, 53.34), (2, 52.71), (64, 53.17), (1024, 55.48), (2048, 58.17)]
    for name, slow, want in [("published", 1.0, 0), ("slow", 4.0, 1)]:
        path = os.path.join(wd, f"osu_reduce-{name}.txt")
        osu(path, "OSU MPI-CUDA Reduce Latency Test v7.3", "Size       Avg Latency(us)",
            [(s, t * slow) for s, t in rows])
        base = os.path.join(wd, name)
        rc, out, err, _ = scalecheck1(["judge", "--topology", topo, "--gpus", "192", "--nodes", "2",
                                       "--results-dir", base, path])
        _, doc = judged(os.path.join(base, os.listdir(base)[0]))
        verdicts = [c["verdict"] for c in doc["checks"] if c["source"] == "model"]
        expect(rc == want and len(verdicts) == len(rows) and
               set(verdicts) == ({"PASS"} if want == 0 else {"FAIL"}),
               f"osu_reduce 192 ranks {name}: exit {rc}, {verdicts}\n{out[-500:]}{err[-300:]}")
        print(f"osu_reduce 192 ranks {name}: exit {rc}, {verdicts}")


def sc_size(n):
    for unit, shift in (("G", 30), ("M", 20), ("K", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift}{unit}"
    return str(n)


def test():
    wd = workdir("judge")
    latency_bound(workdir("judge-latency"))  # its own results folder: dirs[-1] below is the last
    staged_pcie(workdir("judge-staged"))
    symmetric(workdir("judge-symmetric"))
    osu_reduce_published(workdir("judge-osu-reduce"))
    t8 = expected_times(8, 1)
    # nccl-tests text, healthy: every case PASSes, exit 0, the run's files
    good = os.path.join(wd, "ar8.txt")
    nccl_text(good, t8, 8, ["dgx-01"])
    rc, out, err, dirs = judge(wd, [good], want_rc=0)
    good_dir = dirs[-1]
    summary, doc = judged(dirs[-1])
    # every case, and dgx-a100.yaml's busbw claim at 1 GiB on 8 GPUs
    expect(summary["verdict"] == "PASS" and summary["checks"] == 2 * len(SIZES) + 1, f"summary {summary}")
    claim = [c for c in doc["checks"] if c["source"] == "claim"]
    expect(len(claim) == 1 and claim[0]["metric"] == "busbw" and claim[0]["expected"] == 220,
           f"claim checks {claim}")
    expect(doc["command"] == "judge" and doc["topology"] == "dgx-a100", f"doc {doc['command']}")
    rows = doc["results"]
    expect(len(rows) == 2 * len(SIZES) and rows[-1]["size_bytes"] == 1 << 30, f"{len(rows)} rows")
    big = [r for r in rows if r["size_bytes"] == 1 << 30][0]
    expect(200 < big["busbw_GBps"] < 240 and big["expected_busbw_GBps"] > 200, f"1 GiB row {big}")
    expect("8 GPUs on 1 node" in out and "verdict: PASS" in out, out[-400:])

    # degraded twin: large messages at half speed FAIL, exit 1, junit failures
    bad = os.path.join(wd, "ar8-slow.txt")
    nccl_text(bad, t8, 8, ["dgx-01"], slow=lambda s: 2.0 if s >= 1 << 20 else 1.0)
    rc, out, err, dirs = judge(wd, [bad], want_rc=1)
    summary, slow_doc = judged(dirs[-1])
    # both placements where bytes decide the time, and the busbw claim; at 2 MiB the model's
    # time is most protocol overhead (its band wider): half speed there is a WARN
    slow = 2 * sum(1 for s in SIZES if s >= 1 << 24) + 1
    expect(summary["verdict"] == "FAIL" and summary["fail"] == slow and summary["warn"] == 2,
           f"degraded summary {summary}")
    two = [c["verdict"] for c in slow_doc["checks"] if " 2M B " in c["name"]]
    expect(two == ["WARN", "WARN"], f"2 MiB at half speed: {two}")
    junit = open(os.path.join(dirs[-1], "junit.xml")).read()
    expect(junit.count("<failure") == slow, f"junit failures: {junit.count('<failure')}")
    # the two WARNs pass, their warnings in the suite's output, as the exit code says (a WARN
    # is exit 0: a <skipped> reads as neither, README's verdict table), none skipped
    said = junit.split("<system-out>")[-1].split("</system-out>")[0]
    warned = [l for l in said.splitlines() if l.startswith("WARN ")]
    expect(len(warned) == 2 and ' skipped="0"' in junit and "<skipped" not in junit,
           f"junit WARNs: {warned}")

    # a baseline from the healthy judged log; each log held to it alone (no topology): the
    # degraded one FAILs where it is slow, the healthy one passes
    bpath = os.path.join(wd, "judge-base.json")
    rc, out, err, _ = scalecheck1(["baseline", "create", good_dir, "-o", bpath])
    expect(rc == 0 and os.path.isfile(bpath), f"baseline create: {rc} {err}")
    halved = 2 * sum(1 for s in SIZES if s >= 1 << 20)  # a baseline has no latency band
    for log, want in [(good, 0), (bad, 1)]:
        base = os.path.join(wd, "vs-baseline-" + os.path.basename(log))
        rc, out, err, _ = scalecheck1(["judge", "--baseline", bpath, "--results-dir", base, log])
        _, doc = judged(os.path.join(base, os.listdir(base)[0]))
        fails = [c for c in doc["checks"] if c["verdict"] == "FAIL"]
        expect(rc == want and all(c["source"] == "baseline" for c in doc["checks"])
               and len(doc["checks"]) == 2 * len(SIZES) + 1
               and len(fails) == (halved if want else 0), f"{log} vs baseline: {rc} {out[-800:]}")

    # claims on other metrics, both ways: a latency ceiling at 8 B and an algbw floor at 1 GiB
    # that the healthy file meets, then the same claims 100x tighter, which it cannot
    for scale, want in ((1.0, 0), (100.0, 1)):
        topo = os.path.join(wd, f"claims{int(scale)}.yaml")
        with open(topo, "w") as f:
            f.write(f"name: claims\nextends: {os.path.abspath(DGX)}\nexpect:\n  claims:\n"
                    f"    - {{metric: latency, size: 8, gpus: 8, max: {t8[8] * 1.5 / scale}}}\n"
                    f"    - {{metric: algbw, size: 1G, gpus: 8, min: {100 * scale}}}\n")
        base = os.path.join(wd, f"claims-results{int(scale)}")
        rc, out, err, _ = scalecheck1(["judge", "--topology", topo, "--results-dir", base, good])
        doc = load_json(os.path.join(base, sorted(os.listdir(base))[-1], "result.json"))
        levels = {c["metric"]: c["verdict"] for c in doc["checks"]
                  if c["source"] == "claim" and c["metric"] != "busbw"}  # busbw: dgx-a100's own
        expect(rc == want and set(levels) == {"latency", "algbw"} and
               set(levels.values()) == ({"PASS"} if want == 0 else {"FAIL"}),
               f"claims x{scale}: exit {rc}, {levels}\n{err[-400:]}")

    # older tables: no root column, no program line: --collective says what it was
    old = os.path.join(wd, "old.txt")
    nccl_text(old, t8, 8, ["dgx-01"], root=False, program=None)
    rc, out, err, dirs_before = judge(wd, [old], want_rc=2)
    expect("give --collective" in err, f"old without --collective: {err}")
    rc, out, err, dirs = judge(wd, [old], "--collective", "allreduce", want_rc=0)
    expect(len(dirs) == len(dirs_before) + 1, "exit 2 left nothing, the good run one directory")
    # per-iteration columns: the time is still the first of each placement
    it = os.path.join(wd, "iter.txt")
    nccl_text(it, t8, 8, ["dgx-01"], per_iter=True)
    rc, out, err, dirs = judge(wd, [it], want_rc=0)
    _, doc = judged(dirs[-1])
    expect(abs(doc["results"][-1]["time_us"] - t8[1 << 30] * 1.03) < 1, f"per-iter time {doc['results'][-1]}")
    # ... and its tail: steady (p99 1.1 x the median) PASSes the steadiness check; a link slow now
    # and then (p99 12 x the median from 16 MiB, medians unchanged) FAILs it alone
    steady = [c for c in doc["checks"] if c["source"] == "steadiness"]
    expect(len(steady) == 1 and steady[0]["verdict"] == "PASS" and
           abs(doc["results"][-1]["time_us_p99"] - t8[1 << 30] * 1.03 * 1.1) < 1,
           f"steadiness of a steady log: {steady}")
    flap = os.path.join(wd, "iter-flapping.txt")
    nccl_text(flap, t8, 8, ["dgx-01"], per_iter=True, tail=lambda s: 12.0 if s >= 1 << 24 else 1.1)
    rc, out, err, dirs = judge(wd, [flap], want_rc=1)
    _, doc = judged(dirs[-1])
    steady = [c for c in doc["checks"] if c["source"] == "steadiness"]
    others = {c["verdict"] for c in doc["checks"] if c["source"] != "steadiness"}
    expect(len(steady) == 1 and steady[0]["verdict"] == "FAIL" and "12.0 x the median" in
           steady[0].get("note", "") and others == {"PASS"}, f"a flapping link: {steady} {others}")
    print(f"steadiness: steady PASS, flapping FAIL ({steady[0]['name']})")

    # nccl-tests -J, two nodes: ranks and hosts from its device list
    t16 = expected_times(16, 2)
    js = os.path.join(wd, "ar16.json")
    nccl_json(js, t16, 16, ["dgx-01", "dgx-02"])
    rc, out, err, dirs = judge(wd, [js], want_rc=0)
    summary, doc = judged(dirs[-1])
    expect("16 GPUs on 2 nodes" in out and summary["checks"] == 2 * len(SIZES), f"json: {summary}")
    expect(doc["backend"] == "nccl-tests -J", f"tool {doc['backend']}")
    # several files at once, one verdict
    rc, out, err, dirs = judge(wd, [good, js, bad], want_rc=1)
    summary, _ = judged(dirs[-1])
    expect(summary["checks"] == 6 * len(SIZES) + 2 and summary["fail"] == slow, f"three files (+ the claim on each 8-GPU file) {summary}")

    # OSU: collectives give latency per size, nothing about ranks: --gpus/--nodes. OSU measures
    # the MPI library, so its files are held to MPI's algorithms and protocols on the same
    # hardware (the DGX under library: mpi), not to NCCL's
    dgx_mpi = os.path.join(wd, "dgx-mpi.yaml")
    with open(dgx_mpi, "w") as f:
        f.write(f"extends: {DGX}\nlibrary: mpi\n")
    t8m = expected_times(8, 1, topology=dgx_mpi)
    expect(any(abs(t8m[s] / t8[s] - 1) > 0.3 for s in t8m), f"MPI's all-reduce is NCCL's: {t8m} {t8}")
    osu_ar = os.path.join(wd, "osu_allreduce.txt")
    osu(osu_ar, "OSU MPI-CUDA Allreduce Latency Test v7.4", "Size       Avg Latency(us)",
        [(s, t8m[s] * 1.05) for s in sorted(t8m) if s >= 8])
    rc, out, err, _ = judge(wd, [osu_ar], want_rc=2)
    expect("give --gpus and --nodes" in err, f"osu without ranks: {err}")
    rc, out, err, dirs = judge(wd, [osu_ar], "--gpus", "8", "--nodes", "1", want_rc=0)
    _, doc = judged(dirs[-1])
    r = [x for x in doc["results"] if x["size_bytes"] == 1 << 30][0]
    expect(abs(r["busbw_GBps"] - (1 << 30) / (t8m[1 << 30] * 1.05) / 1e3 * 1.75) < 1, f"osu busbw {r}")
    # its degraded twin: the large sizes 3x slower FAIL
    osu_slow = os.path.join(wd, "osu_allreduce_slow.txt")
    osu(osu_slow, "OSU MPI-CUDA Allreduce Latency Test v7.4", "Size       Avg Latency(us)",
        [(s, t8m[s] * (3.0 if s >= 1 << 20 else 1.05)) for s in sorted(t8m) if s >= 8])
    rc, out, err, dirs = judge(wd, [osu_slow], "--gpus", "8", "--nodes", "1", want_rc=1)
    summary, _ = judged(dirs[-1])
    big = sum(1 for s in t8m if s >= 1 << 20)
    expect(summary["fail"] >= big, f"osu slow: {big} sizes FAIL {summary}")
    # osu_latency between two nodes: above the eager limit a message waits for the receiver's
    # reply (rendezvous). A healthy log jumps there and PASSes; the same jump at 4x FAILs
    lat_sizes = [0, 1, 64, 1024, 4096, 8192, 16384, 32768, 65536, 1 << 20]
    tl = expected_times(2, 2, "sendrecv", dgx_mpi, lat_sizes[1:])
    expect(tl[16384] > 2.0 * tl[8192], f"no rendezvous step at 8-16 KiB: {tl}")
    lat = os.path.join(wd, "osu_latency.txt")
    osu(lat, "OSU MPI Latency Test v7.4", "Size          Latency (us)",
        [(s, tl[max(s, 1)] * 1.1) for s in lat_sizes])
    rc, out, err, dirs = judge(wd, [lat], "--gpus", "2", "--nodes", "2", want_rc=0)
    summary, doc = judged(dirs[-1])
    expect(summary["fail"] == 0 and summary["warn"] == 0, f"osu_latency healthy {summary}")
    lat_bad = os.path.join(wd, "osu_latency_slow.txt")
    osu(lat_bad, "OSU MPI Latency Test v7.4", "Size          Latency (us)",
        [(s, tl[max(s, 1)] * (4.5 if 16384 <= s <= 65536 else 1.1)) for s in lat_sizes])
    rc, out, err, dirs = judge(wd, [lat_bad], "--gpus", "2", "--nodes", "2", want_rc=1)
    summary, _ = judged(dirs[-1])
    expect(summary["fail"] == 3, f"osu_latency 4.5x at 16-64 KiB: 3 FAIL {summary}")
    # osu_bw between two GPUs of a node: MB/s (10^6) into a sendrecv time
    tp = expected_times(2, 1, "sendrecv", dgx_mpi)
    bw = os.path.join(wd, "osu_bw.txt")
    osu(bw, "OSU MPI Bandwidth Test v7.4", "Size      Bandwidth (MB/s)",
        [(s, s / (tp[s] * 1.02)) for s in sorted(tp)])
    rc, out, err, dirs = judge(wd, [bw], "--gpus", "2", "--nodes", "1", want_rc=0)
    _, doc = judged(dirs[-1])
    expect(doc["results"][0]["collective"] == "sendrecv", f"osu_bw rows {doc['results'][0]}")

    # bad input: exit 2, named, nothing on disk
    broken = os.path.join(wd, "broken.txt")
    text = open(good).read().splitlines()
    row = next(i for i, l in enumerate(text) if l.startswith("     65536") or l.strip().startswith("32768"))
    text[row] = text[row].split()[0] + " 8192 float sum -1 fast 1 1 0"
    open(broken, "w").write("\n".join(text) + "\n")
    n_before = len(os.listdir(os.path.join(wd, "results")))
    rc, out, err, dirs = judge(wd, [good, broken], want_rc=2)
    expect(f"broken.txt:{row + 1}:" in err, f"broken row named: {err}")
    expect(len(dirs) == n_before, "nothing written for a bad file")
    junk = os.path.join(wd, "junk.txt")
    open(junk, "w").write("hello\nworld\n")
    rc, out, err, _ = judge(wd, [junk], want_rc=2)
    expect("neither nccl-tests output" in err, f"junk: {err}")
    rc, out, err, _ = judge(wd, [], want_rc=2)
    expect("give the files to judge" in err, err)
    rc, out, err, _ = scalecheck1(["judge", good])
    expect(rc == 2 and "--topology: required" in err and "--baseline" in err, f"no topology: {rc} {err}")
    rc, out, err, _ = judge(wd, [os.path.join(wd, "missing.txt")], want_rc=2)
    expect("missing.txt: cannot open" in err, err)


main(test)
