#!/usr/bin/env python3
"""Verdicts of tests/gpu/device-check.sh from the JSON that scalecheck wrote: prints one line,
"ok DETAIL" or "FAIL DETAIL", and exits 0 either way (an exception prints FAIL and the error).

usage: device_verdicts.py KIND FILE   (KIND: coll, timing, spin, gemm, nvml, run, burn, choices)"""
import json
import os
import sys

# Device time against host time, on rows long enough to time: the steps run back to back
# between device marks, and the host's time is the batch's over its steps, so the two differ by
# the batch's one launch and one wait spread over its steps - a relative tolerance and an
# absolute allowance for that (a 512 MiB all-reduce on one H200 is a ~250 us copy, and one
# wait is 20-70 us of host time).
TIMING_MIN_US = 200.0
TIMING_TOLERANCE = 0.05
TIMING_ALLOWANCE_US = 30.0
# The spin kernel: the median error over its repeats (the first, which loads the kernel, is not
# timed), as a share of the time asked for; the worst is reported.
SPIN_TOLERANCE = 0.02


def coll(d):
    wrong = d["summary"]["wrong_total"]
    rows = d["results"]
    fastest = min(r["time_us"] for r in rows)
    detail = "%d cases, %d wrong, fastest %.1f us" % (len(rows), wrong, fastest)
    return wrong == 0 and len(rows) > 0, detail


def choices(d):
    """The real NCCL loaded the GPU module as its profiler plugin: the rows say which algorithm
    and protocol it used (rank_info's note says why not, where it did not)."""
    rows = d["results"]
    told = [r for r in rows if r.get("nccl_algo") and r.get("nccl_proto")]
    note = (d.get("rank_info") or [{}])[0].get("nccl_profiler", "none")
    pairs = sorted({"%s/%s" % (r["nccl_algo"], r["nccl_proto"]) for r in told})
    return len(rows) > 0 and len(told) == len(rows), "%d of %d rows say what NCCL chose (%s); %s" % (
        len(told), len(rows), ", ".join(pairs[:6]), note)


def traffic(d):
    """coll --concurrent: every group's collective timed alone and under the others' load."""
    rows = d.get("traffic", [])
    ok = len(rows) > 0 and all(r["alone_us"] > 0 and r["loaded_us"] > 0 for r in rows)
    return ok, "%d groups: %s" % (len(rows), ", ".join(
        "%s %.2fx" % (r["kind"], r["slowdown"]) for r in rows[:6]))


def node(d):
    """scalecheck node on the machine itself: its GPUs' PCIe links read from sysfs (at their
    best, or the FAIL naming one), the NIC nearest each, the rank's place, host memory; and
    the GPUs' copies (pinned host memory to each and back, within its memory), every one held
    to its share of the link's or the memory's rate - the figures beside nvbandwidth's
    (host_to_device_memcpy_ce, device_to_host_memcpy_ce, device_local_copy)."""
    rows = d.get("node", [])
    links = [r for r in rows if r["kind"] == "link" and r["what"].startswith("GPU")]
    memory = [r for r in rows if r["kind"] == "memory"]
    nics = [r["detail"].replace("nearest NIC ", "") for r in rows if r["kind"] == "gpu-nic"]
    copies = {k: [r for r in rows if r["kind"] == k] for k in ("h2d", "d2h", "hbm")}
    ok = (len(links) > 0 and len(memory) > 0 and all(r["verdict"] == "PASS" for r in links)
          and all(copies.values())
          and all(r["verdict"] == "PASS" for k in copies for r in copies[k]))
    return ok, "%s; %s; NICs %s; memory %s; copies %s" % (
        ", ".join("%s %s" % (r["what"], r["detail"]) for r in links[:2]) or "no GPU link in sysfs",
        "; ".join(r["detail"] for r in rows if r["kind"] == "rank")[:80],
        ", ".join(nics[:2]) or "none", ", ".join("%.1f GB/s" % r["measured_GBps"] for r in memory),
        ", ".join("%s %.1f GB/s of %s" % (k, copies[k][0]["measured_GBps"],
                                           "%.1f" % copies[k][0]["expected_GBps"]
                                           if copies[k][0].get("expected_GBps") else "?")
                  for k in copies if copies[k]) or "none")


def timing(d):
    # the host's time is the batch's mean: held to the mean of the device's intervals
    rows = [r for r in d["results"] if not r["in_place"] and r["time_us"] >= TIMING_MIN_US]
    off = [abs(r["host_time_us"] - r.get("time_us_mean", r["time_us"])) for r in rows]
    within = [o <= TIMING_TOLERANCE * r["host_time_us"] + TIMING_ALLOWANCE_US
              for o, r in zip(off, rows)]
    rel = [o / r["host_time_us"] for o, r in zip(off, rows)]
    worst = max(rel) if rel else float("nan")
    return bool(rows) and all(within), \
        "worst difference %.2f %% (%.1f us) over %d out-of-place rows (bound 5 %% + 30 us)" % (
            worst * 100, max(off) if off else float("nan"), len(rows))


def spin(d):
    r = d["ranks"][0]
    ok = r["median_error_us"] <= SPIN_TOLERANCE * r["requested_us"]
    return ok, "asked %.0f us, mean %.1f us, median error %.1f us, worst %.1f us" % (
        r["requested_us"], r["mean_us"], r["median_error_us"], r["worst_error_us"])


def gemm(d):
    """TFLOP/s, and the corruption check: sampled elements within the rounding bound of the fp64
    reference (a planted wrong element fails it)."""
    r = d["ranks"][0]
    failed = [c["name"] for c in d.get("checks", []) if c["verdict"] == "FAIL"]
    ok = r["tflops"] > 0 and r["check_sampled"] > 0 and r["check_wrong"] == 0 and not failed
    return ok, "%s %.1f TFLOP/s; result %d of %d sampled wrong (worst %.2g of the bound)%s" % (
        r["dtype"], r["tflops"], r["check_wrong"], r["check_sampled"], r["check_worst"],
        "; FAIL: " + ", ".join(failed) if failed else "")


def nvml(d):
    host = d[0]
    if not host["available"]:
        return False, "unavailable: " + host.get("reason", "")
    g = host["gpus"][0]
    s = g["samples"][0]
    return True, "%s %s C %s W SM %s MHz ECC-unc %s NVLinks up %s" % (
        g.get("name"), s.get("temp_c"), s.get("power_w"), s.get("sm_mhz"),
        s.get("ecc_uncorrected"), s.get("nvlinks_up"))


def run(d):
    points = d["points"]
    if not points:
        return False, "no points"
    p = points[0]
    # on a GPU the step's compute is the workload's products: their TFLOP/s must be there
    ok = (d.get("state") == "complete" and p["step_time_ms"] > 0 and p["throughput"] > 0
          and p.get("compute_tflops", 0) > 0)
    overlap = p.get("overlap_efficiency")
    return ok, "%s: step %.2f ms, comm %.0f %%, products %.4g TFLOP/s, compute alone %.2f ms, " \
        "overlap %s, %s" % (
            d.get("state"), p["step_time_ms"], p["comm_fraction"] * 100,
            p.get("compute_tflops", 0), p.get("compute_alone_ms", 0),
            "%.2f" % overlap if overlap is not None else "n/a (nothing to overlap)",
            p.get("slowest_host", ""))


def burn(d):
    """soak --load burn: every cycle burned, and what the GPU showed under it."""
    with open(os.path.join(d["results_dir"], "journal.jsonl")) as f:
        cycles = [c for c in map(json.loads, f) if c.get("type") == "cycle"]
    hosts = [h for c in cycles for h in c["hosts"]]
    temp = max(h["max_gpu_temp_c"] for h in hosts)
    power = max(h["max_power_w"] for h in hosts)
    clock = min((h["slow_clock_mhz"] for h in hosts if h["slow_clock_mhz"] > 0), default=-1)
    tflops = min(c.get("burn_tflops", 0) for c in cycles)
    verdict = d.get("verdict", {}).get("verdict", "?")
    ok = d.get("state") == "complete" and cycles and tflops > 0 and temp > 0 and verdict != "FAIL"
    return ok, "%d cycles, verdict %s: burn %.4g TFLOP/s, hottest %d C, %.0f W, SM %d MHz, %s" % (
        len(cycles), verdict, tflops, temp, power, clock,
        "; ".join(c["name"] for c in d.get("checks", []) if c["verdict"] != "PASS") or "all PASS")


def main():
    kind, path = sys.argv[1], sys.argv[2]
    try:
        with open(path) as f:
            ok, detail = globals()[kind](json.load(f))
    except Exception as e:  # the verdict is FAIL, with the reason
        ok, detail = False, "%s: %s" % (type(e).__name__, e)
    print(("ok " if ok else "FAIL ") + detail)


if __name__ == "__main__":
    main()
