#!/usr/bin/env python3
"""Verdicts of tests/gpu/device-check.sh from the JSON that scalecheck wrote: prints one line,
"ok DETAIL" or "FAIL DETAIL", and exits 0 either way (an exception prints FAIL and the error).

usage: device_verdicts.py KIND FILE   (KIND: coll, timing, spin, gemm, nvml, run)"""
import json
import sys

# Device time against host time: only rows long enough that launch and synchronisation costs
# (tens of microseconds) stay inside the tolerance.
TIMING_MIN_US = 200.0
TIMING_TOLERANCE = 0.05
# The spin kernel: worst error over its repeats, as a share of the time asked for.
SPIN_TOLERANCE = 0.02


def coll(d):
    wrong = d["summary"]["wrong_total"]
    rows = d["results"]
    fastest = min(r["time_us"] for r in rows)
    detail = "%d cases, %d wrong, fastest %.1f us" % (len(rows), wrong, fastest)
    return wrong == 0 and len(rows) > 0, detail


def timing(d):
    rel = [abs(r["host_time_us"] - r["time_us"]) / r["host_time_us"] for r in d["results"]
           if not r["in_place"] and r["time_us"] >= TIMING_MIN_US]
    worst = max(rel) if rel else float("nan")
    return bool(rel) and worst < TIMING_TOLERANCE, \
        "worst difference %.2f %% over %d out-of-place rows" % (worst * 100, len(rel))


def spin(d):
    r = d["ranks"][0]
    ok = r["worst_error_us"] <= SPIN_TOLERANCE * r["requested_us"]
    return ok, "asked %.0f us, mean %.1f us, worst error %.1f us" % (
        r["requested_us"], r["mean_us"], r["worst_error_us"])


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
    return p["step_time_ms"] > 0, "step %.2f ms, comm %.0f %%, %s" % (
        p["step_time_ms"], p["comm_fraction"] * 100, p.get("slowest_host", ""))


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
