"""GPU telemetry through NVML loaded at run time: against a fake NVML library (two GPUs, one
running hot, gaining ECC errors, an NVLink down) the summaries say exactly that; without NVML
the field says why and nothing fails."""
import os

from sclib import *

FAKE = os.environ["FAKE_NVML"]


def test():
    wd = workdir("telemetry")
    jpath = os.path.join(wd, "t.json")
    rc, out, err, _ = mpirun(2, ["coll", "-b", "64K", "-e", "64K", "-n", "5000", "--telemetry",
                                 "0.02", "--json", jpath, "--results-dir", os.path.join(wd, "r")],
                             env={"SCALECHECK_NVML_LIBRARY": FAKE})
    expect(rc == 0, f"exit {rc}\n{err[-1000:]}")
    hosts = load_json(jpath)["telemetry"]
    expect(len(hosts) == 1 and hosts[0]["available"], f"one host sampled: {hosts}")
    gpus = hosts[0]["gpus"]
    expect([g["name"] for g in gpus] == ["Fake H200 #0", "Fake H200 #1"], f"names {gpus}")
    expect(gpus[1]["bus_id"] == "00000000:1C:00.0", gpus[1]["bus_id"])
    g0, g1 = gpus
    n1 = len(g1["samples"])
    # sampled every 0.02 s while the run lasted (the last sample is taken at the end, at once)
    times = [x["t_s"] for x in g1["samples"]]
    steps = sorted(b - a for a, b in zip(times, times[1:-1]))
    expect(n1 >= 4 and steps, f"a run of ~0.2 s sampled every 0.02 s has {n1} samples: {times}")
    expect(0.015 <= steps[len(steps) // 2] <= 0.04,
           f"median spacing {steps[len(steps) // 2]:.4f} s, the interval is 0.02 s: {times}")
    expect(g0["max_temp_c"] == 40 and g1["max_temp_c"] == min(84 + n1 - 1, 90), f"temps {g1['max_temp_c']} n={n1}")
    expect(g0["ecc_uncorrected_new"] == 0 and g1["ecc_uncorrected_new"] == n1 - 1,
           f"ECC new: {g0['ecc_uncorrected_new']} {g1['ecc_uncorrected_new']} n={n1}")
    expect(g0["min_nvlinks_up"] == 18 and g1["min_nvlinks_up"] == 17, "NVLinks up")
    expect(g0["throttled_samples"] == 0 and g1["throttled_samples"] == n1, "throttling")
    s = g1["samples"][0]
    expect(s["power_w"] == 650.0 and s["sm_mhz"] == 1980 and s["nvlinks"][3]["up"] is False, f"sample {s}")
    expect(all(l["version"] == 0 for l in s["nvlinks"]), "version call absent: reported as 0")

    # The telemetry command: samples for a duration at an interval.
    rc, out, err, _ = mpirun(1, ["telemetry", "--duration", "0.3", "--interval", "0.05"],
                             env={"SCALECHECK_NVML_LIBRARY": FAKE})
    expect(rc == 0, f"telemetry: exit {rc} {err}")
    doc = json.loads(out)
    expect(len(doc[0]["gpus"][0]["samples"]) >= 4, f"samples over 0.3 s at 0.05 s: {len(doc[0]['gpus'][0]['samples'])}")

    # No NVML: said plainly, exit 0.
    rc, out, err, _ = mpirun(1, ["telemetry"], env={"SCALECHECK_NVML_LIBRARY": "/nonexistent/libnvml.so"})
    doc = json.loads(out)
    expect(rc == 0 and doc[0]["available"] is False and "NVML not available" in doc[0]["reason"],
           f"absent NVML: {rc} {out}")


import json
main(test)
