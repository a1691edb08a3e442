"""The step model against published scaling (tests/integration/calibration.py): calibration
rows reproduced within a point, check rows within their stated bounds; data-parallel efficiency
below 1, falling with the GPU count and with faster compute; --tp/--pp and scaling model."""
import os

from sclib import *
import calibration

ROOT = calibration.ROOT


def W(name):
    return os.path.join(ROOT, "workloads", name + ".yaml")


def test():
    for row, pub, pred, err in calibration.evaluate():
        role, bound = row[6], row[7]
        limit = calibration.CALIBRATION_BOUND if role == "calibration" else bound
        expect(abs(err) <= limit, f"{row[0]} at {row[2] * row[3]} GPUs: published {pub:.3f}, "
               f"model {pred:.3f}, error {err:+.3f} beyond {limit}")

    # data parallelism is not free: below 1, falling with the GPU count
    c = calibration.curve("bert-large-dp", "dgx-a100", 8, [1, 2, 4, 8])
    effs = [c[k]["efficiency"] for k in sorted(c)]
    expect(effs[0] == 1.0 and all(e < 1 for e in effs[1:]), f"efficiencies {effs}")
    expect(all(a > b for a, b in zip(effs[1:], effs[2:])), f"efficiency must fall: {effs}")
    # ... and with faster compute: mixed precision exposes more than TF32
    amp = calibration.curve("resnet50-dp", "dgx-a100", 8, [1])[(8, 1)]["efficiency"]
    tf32 = calibration.curve("resnet50-dp-tf32", "dgx-a100", 8, [1])[(8, 1)]["efficiency"]
    expect(amp < tf32 - 0.05, f"AMP {amp:.3f} should scale worse than TF32 {tf32:.3f}")
    wd = workdir("calib-variants")
    fast = os.path.join(wd, "bert-fast.yaml")
    with open(W("bert-large-dp")) as f:
        text = f.read().replace("efficiency: 0.4", "efficiency: 0.8").replace(
            "name: bert-large-dp", "name: bert-fast")
    with open(fast, "w") as f:
        f.write(text)
    rc, out, err, _ = scalecheck1(["model", "--topology", os.path.join(ROOT, "topologies", "dgx-a100.yaml"),
                                   "--workload", fast, "--gpus", "1,8", "--nodes", "1", "--json",
                                   os.path.join(wd, "f.json")])
    expect(rc == 0, f"fast variant: {rc} {err}")
    fast8 = [p for p in load_json(os.path.join(wd, "f.json"))["curve"] if p["gpus"] == 8][0]
    expect(fast8["efficiency"] < c[(8, 1)]["efficiency"],
           f"twice the compute speed must scale worse: {fast8['efficiency']} vs {c[(8, 1)]['efficiency']}")

    # --tp / --pp on model, checked as the file's values are
    jp = os.path.join(wd, "tp.json")
    rc, out, err, _ = scalecheck1(["model", "--topology", os.path.join(ROOT, "topologies", "dgx-a100.yaml"),
                                   "--workload", W("gpt3-13b-3d"), "--tp", "2", "--pp", "4",
                                   "--gpus", "8", "--nodes", "1", "--json", jp])
    expect(rc == 0, f"--tp 2 --pp 4: {rc} {err}")
    pt = load_json(jp)["curve"][0]
    expect((pt["tp"], pt["pp"], pt["dp"]) == (2, 4, 1), f"layout {pt}")
    rc, out, err, _ = scalecheck1(["model", "--topology", os.path.join(ROOT, "topologies", "dgx-a100.yaml"),
                                   "--workload", W("gpt3-13b-3d"), "--tp", "3"])
    expect(rc == 2 and "--tp 3" in err and "multiple of parallel.tp" in err, f"--tp 3: {rc} {err}")

    # scaling model: tp grows with the GPUs, so does the model; per-GPU compute stays put
    grow = os.path.join(wd, "grow.yaml")
    with open(grow, "w") as f:
        f.write("name: grow\nmodel:\n  parameters: 1.3B\n  layers: 24\n  hidden: 2048\n"
                "  sequence: 2048\nbatch:\n  micro_batch: 8\n  per_gpu_batch: 8\n  scaling: model\n"
                "precision:\n  gradients: bf16\n  activations: bf16\n")
    jp = os.path.join(wd, "grow.json")
    rc, out, err, _ = scalecheck1(["model", "--topology", os.path.join(ROOT, "topologies", "dgx-a100.yaml"),
                                   "--workload", grow, "--gpus", "1,2,4,8", "--nodes", "1", "--json", jp])
    expect(rc == 0, f"scaling model: {rc} {err}")
    pts = load_json(jp)["curve"]
    expect([p["tp"] for p in pts] == [1, 2, 4, 8], f"tp grows: {[p['tp'] for p in pts]}")
    computes = [p["compute_ms"] for p in pts]
    expect(max(computes) / min(computes) < 1.2, f"per-GPU compute roughly fixed: {computes}")
    expect(pts[-1]["comm_ms"] > pts[1]["comm_ms"] > 0, f"TP traffic grows: {[p['comm_ms'] for p in pts]}")
    # weak scaling: efficiency is the first point's step time over each one's (it printed
    # samples/s per GPU, 0.11 at tp 8), speedup the work done (efficiency x GPUs)
    for p in pts:
        eff = pts[0]["step_time_ms"] / p["step_time_ms"]
        expect(abs(p["efficiency"] - eff) < 1e-9 and abs(p["speedup"] - eff * p["gpus"]) < 1e-9,
               f"weak scaling at {p['gpus']} GPUs: efficiency {p['efficiency']}, speedup "
               f"{p['speedup']}, step ratio {eff}")
    expect(0.5 < pts[-1]["efficiency"] < 1.0, f"weak efficiency at tp 8: {pts[-1]['efficiency']}")
    expect("weak scaling" in out, "the output says it is weak scaling")


main(test)
