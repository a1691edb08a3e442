#!/usr/bin/env python3
"""Verdicts of tests/gpu/device-check.sh from the JSON that scalecheck wrote: prints one line,
"ok DETAIL" or "FAIL DETAIL", and exits 0 either way (an exception prints FAIL and the error).

usage: device_verdicts.py KIND FILE   (KIND: coll, timing, spin, gemm, nvml, run)"""
import json
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
    r = d["ranks"][0]
    return r["tflops"] > 0, "%s %.1f TFLOP/s" % (r["dtype"], r["tflops"])


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
    ok = d.get("state") == "complete" and p["step_time_ms"] > 0 and p["throughput"] > 0
    return ok, "%s: step %.2f ms, comm %.0f %%, %s" % (
        d.get("state"), p["step_time_ms"], p["comm_fraction"] * 100, p.get("slowest_host", ""))


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
