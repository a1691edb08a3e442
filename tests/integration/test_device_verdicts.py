"""The device check's verdicts (tests/gpu/device_verdicts.py) in both directions, on JSON shaped
like scalecheck's: each healthy case must print "ok", each degraded twin "FAIL" - a wrong
element, device time off the host time, no row long enough to compare, a spin off by 5 %, no
throughput, a result off the reference, no NVML, no points, a step whose products did not run,
a burn that failed, a file that is not JSON."""
import json
import os
import subprocess
import sys

from sclib import *

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "gpu", "device_verdicts.py")


def verdict(wd, kind, doc, name):
    path = os.path.join(wd, name + ".json")
    with open(path, "w") as f:
        f.write(doc if isinstance(doc, str) else json.dumps(doc))
    out = subprocess.run([sys.executable, SCRIPT, kind, path], capture_output=True, text=True,
                         timeout=30)
    expect(out.returncode == 0, f"{name}: exit {out.returncode}: {out.stderr}")
    return out.stdout.strip()


def row(time_us, host_us, in_place=False):
    return {"time_us": time_us, "host_time_us": host_us, "in_place": in_place}


def test():
    wd = workdir("device-verdicts")
    coll_ok = {"summary": {"wrong_total": 0}, "results": [row(10, 12), row(20, 22)]}
    coll_bad = {"summary": {"wrong_total": 3}, "results": [row(10, 12)]}
    timing_ok = {"results": [row(500, 510), row(1000, 1020), row(50, 90), row(800, 2000, True)]}
    timing_bad = {"results": [row(500, 600)]}
    timing_short = {"results": [row(50, 51), row(900, 910, True)]}
    spin = lambda median: {"ranks": [{"requested_us": 1000, "mean_us": 1000 + median,
                                      "median_error_us": median, "worst_error_us": 3 * median}]}
    gemm = lambda tf, wrong=0, checks=(): {
        "ranks": [{"dtype": "bf16", "tflops": tf, "check_sampled": 64, "check_wrong": wrong,
                   "check_worst": 0.1 if not wrong else 40.0}], "checks": list(checks)}
    nvml_ok = [{"available": True, "gpus": [{"name": "H200", "samples": [{"temp_c": 40}]}]}]
    nvml_bad = [{"available": False, "reason": "libnvidia-ml.so.1: cannot open"}]
    run = lambda pts, state="complete": {"state": state, "points": pts}
    point = {"step_time_ms": 12.5, "comm_fraction": 0.2, "slowest_host": "n1", "throughput": 80.0,
             "compute_tflops": 512.0, "compute_alone_ms": 9.0}
    burn_dir = os.path.join(wd, "burn-run")
    os.makedirs(burn_dir)
    cycle = lambda temp, tflops: {"type": "cycle", "burn_tflops": tflops, "hosts": [
        {"max_gpu_temp_c": temp, "max_power_w": 690.0, "slow_clock_mhz": 1980}]}
    with open(os.path.join(burn_dir, "journal.jsonl"), "w") as f:
        f.write("\n".join(json.dumps(c) for c in [{"type": "start"}, cycle(71, 700.0),
                                                  cycle(74, 690.0)]) + "\n")
    burn = lambda verdict: {"state": "complete", "results_dir": burn_dir,
                            "verdict": {"verdict": verdict}, "checks": []}
    copy = lambda kind, gbps, want, verdict="PASS": {
        "kind": kind, "what": "GPU 0 0000:18:00.0", "detail": "", "measured_GBps": gbps,
        "expected_GBps": want, "verdict": verdict}
    node_doc = lambda link, verdict, h2d="PASS": {"node": [
        {"kind": "link", "what": "GPU 0 0000:18:00.0", "detail": link, "verdict": verdict},
        {"kind": "gpu-nic", "what": "GPU 0", "detail": "nearest NIC mlx5_0 0000:17:00.0 (PIX)"},
        {"kind": "rank", "what": "rank 0", "detail": "CPUs 0-55 on node 0; GPU 0 on node 0"},
        {"kind": "memory", "what": "NUMA node 0", "measured_GBps": 180.0, "detail": ""},
        copy("h2d", 55.1, 50.4, h2d), copy("d2h", 55.3, 50.4), copy("hbm", 3900.0, 3835.0)]}
    cases = [
        ("coll", coll_ok, "ok"), ("coll", coll_bad, "FAIL"),
        ("coll", {"summary": {"wrong_total": 0}, "results": []}, "FAIL"),
        ("choices", {"results": [dict(row(10, 12), nccl_algo="RING", nccl_proto="LL")],
                     "rank_info": [{"nccl_profiler": "scalecheck (NCCL's choices recorded)"}]}, "ok"),
        ("choices", {"results": [row(10, 12)], "rank_info": [{"nccl_profiler":
                     "NCCL did not load its profiler plugin"}]}, "FAIL"),
        ("timing", timing_ok, "ok"), ("timing", timing_bad, "FAIL"),
        ("timing", timing_short, "FAIL"),
        # one rank's 512 MiB all-reduce: a ~260 us copy and a wait of 40 us on the host - over
        # 5 %, inside the absolute allowance
        ("timing", {"results": [row(260, 300)]}, "ok"),
        ("spin", spin(5), "ok"), ("spin", spin(50), "FAIL"),
        ("gemm", gemm(780.0), "ok"), ("gemm", gemm(0.0), "FAIL"),
        # a result off the fp64 reference, or a GPU its peers outvote: the check fails
        ("gemm", gemm(780.0, wrong=1), "FAIL"),
        ("gemm", gemm(780.0, checks=[{"name": "same result as its peers: GPU 0",
                                      "verdict": "FAIL"}]), "FAIL"),
        ("burn", burn("PASS"), "ok"), ("burn", burn("FAIL"), "FAIL"),
        ("burn", dict(burn("PASS"), state="failed"), "FAIL"),
        ("nvml", nvml_ok, "ok"), ("nvml", nvml_bad, "FAIL"),
        # node: the GPU's link in sysfs at its best, and memory measured; x8 or no GPU, FAIL
        ("node", node_doc("Gen5 x16 of Gen5 x16", "PASS"), "ok"),
        ("node", node_doc("Gen5 x8 of Gen5 x16", "FAIL"), "FAIL"),
        ("node", {"node": [r for r in node_doc("", "PASS")["node"] if r["kind"] != "link"]},
         "FAIL"),
        # its copies: host to GPU below its link's share, or none measured (no GPU path), FAIL
        ("node", node_doc("Gen5 x16 of Gen5 x16", "PASS", h2d="FAIL"), "FAIL"),
        ("node", {"node": [r for r in node_doc("Gen5 x16 of Gen5 x16", "PASS")["node"]
                           if r["kind"] != "hbm"]}, "FAIL"),
        ("traffic", {"traffic": [{"kind": "tp", "slowdown": 1.4, "alone_us": 900,
                                  "loaded_us": 1260}]}, "ok"),
        ("traffic", {"traffic": []}, "FAIL"),
        ("run", run([point]), "ok"), ("run", run([]), "FAIL"),
        ("run", run([point], "failed"), "FAIL"),
        ("run", run([dict(point, throughput=0.0)]), "FAIL"),
        # on a GPU the step's compute is the workload's products: none measured is a FAIL
        ("run", run([dict(point, compute_tflops=0.0)]), "FAIL"),
        ("run", "not json {", "FAIL"),
    ]
    for i, (kind, doc, want) in enumerate(cases):
        got = verdict(wd, kind, doc, f"{kind}-{i}")
        expect(got.split(" ")[0] == want, f"{kind} case {i}: got {got!r}, expected {want}")
    print(f"{len(cases)} verdicts, healthy and degraded: as expected")


main(test)
