"""The step model against published scaling (tests/integration/calibration.py): calibration
rows reproduced within a point, check rows within their stated bounds; data-parallel efficiency
below 1, falling with the GPU count and with faster compute; --tp/--pp and scaling model."""
import os
import re

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
    effs = [c[k]["efficiency"] for k in sorted(c) if k[1] == 1 or k[0] == 8 * k[1]]  # whole nodes
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

    # scaling model: tp grows with the GPUs, so does the model, as Megatron-LM's table grows it
    # (hidden x growth^0.47 to a multiple of tp, layers x growth^0.25): per-GPU compute is the
    # layers' 24 s h^2 + 4 s^2 h over tp
    grow = os.path.join(wd, "grow.yaml")
    with open(grow, "w") as f:
        f.write("name: grow\nmodel:\n  parameters: 1.3B\n  layers: 24\n  hidden: 2048\n"
                "  sequence: 2048\nbatch:\n  micro_batch: 8\n  per_gpu_batch: 8\n  scaling: model\n"
                "precision:\n  gradients: bf16\n  activations: bf16\n"
                # a stated share: what is checked is the grown model's FLOPs (the share priced
                # from the shapes grows with hidden, docs/REFERENCE.md section 8.1)
                "compute:\n  efficiency: 0.45\n")
    jp = os.path.join(wd, "grow.json")
    rc, out, err, _ = scalecheck1(["model", "--topology", os.path.join(ROOT, "topologies", "dgx-a100.yaml"),
                                   "--workload", grow, "--gpus", "1,2,4,8", "--nodes", "1", "--json", jp])
    expect(rc == 0, f"scaling model: {rc} {err}")
    pts = load_json(jp)["curve"]
    expect([p["tp"] for p in pts] == [1, 2, 4, 8], f"tp grows: {[p['tp'] for p in pts]}")
    computes = [p["compute_ms"] for p in pts]

    def per_gpu(tp):
        h = max(1, round(2048 * tp ** 0.47 / tp)) * tp
        layers = round(24 * tp ** 0.25)
        return layers * (24 * 2048 * h * h + 4 * 2048 * 2048 * h) / tp
    for p, c in zip(pts, computes):
        want = per_gpu(p["tp"]) / per_gpu(1) * computes[0]
        expect(abs(c / want - 1) < 0.01, f"per-GPU compute at tp {p['tp']}: {c} ms, the grown "
               f"model's {want:.1f} ms ({computes})")
    expect(pts[-1]["comm_ms"] > pts[1]["comm_ms"] > 0, f"TP traffic grows: {[p['comm_ms'] for p in pts]}")
    # weak scaling: efficiency is per FLOP - the training FLOPs a GPU does a second against the
    # first point's, as published weak-scaling tables count it (it was the step time's ratio,
    # 0.62 at tp 8, while the grown model gives each GPU more FLOPs a step); speedup the FLOPs
    # done (efficiency x GPUs)
    for p in pts:
        rate = p["throughput"] * per_gpu(p["tp"]) * p["tp"] / p["gpus"]
        eff = rate / (pts[0]["throughput"] * per_gpu(1))
        expect(abs(p["efficiency"] / eff - 1) < 1e-6 and
               abs(p["speedup"] / (eff * p["gpus"]) - 1) < 1e-6,
               f"weak scaling at {p['gpus']} GPUs: efficiency {p['efficiency']}, speedup "
               f"{p['speedup']}, FLOP rate ratio {eff}")
    step_ratio = pts[0]["step_time_ms"] / pts[-1]["step_time_ms"]
    expect(step_ratio < pts[-1]["efficiency"] < 1.0,
           f"per-FLOP efficiency at tp 8: {pts[-1]['efficiency']} (step ratio {step_ratio})")
    expect("weak scaling" in out and "per FLOP" in out, "the output says it is weak scaling, per FLOP")




CARD = """name: {name}
model:
  kind: {kind}
  parameters: {params}
  layers: {layers}
  hidden: {hidden}
{extra}batch:
  micro_batch: {mb}
  per_gpu_batch: {mb}
precision:
  gradients: {grad}
  activations: fp16
{compute}input:
  loader: gpu
"""


def card(wd, name, **kw):
    """A workload written from a model card alone: no compute.efficiency, no gpu_tflops."""
    fields = dict(name=name, kind="transformer", params="1.3B", layers=24, hidden=2048,
                  extra="  sequence: 2048\n", mb=4, grad="fp16", compute="")
    fields.update(kw)
    path = os.path.join(wd, name + ".yaml")
    with open(path, "w") as f:
        f.write(CARD.format(**fields))
    return path


def model_point(wd, topology, workload, gpus, *extra):
    jp = os.path.join(wd, "m.json")
    rc, out, err, _ = scalecheck1(["model", "--topology", topology, "--workload", workload,
                                   "--gpus", str(gpus), "--nodes", "1", "--json", jp, *extra])
    expect(rc == 0, f"model {workload} on {topology}: {rc} {err}")
    return load_json(jp)["curve"][0], out


def compute_share(out):
    """The share of peak `model` says it took ("compute: 41.9 % of 312 TFLOP/s (...")."""
    m = re.search(r"# compute: ([0-9.]+) % of ([0-9]+) TFLOP/s \((.*)", out)
    expect(m is not None, f"no compute line: {out[:600]}")
    return float(m.group(1)) / 100, m.group(3)


def test_compute_defaults():
    """A workload from its model card is priced from its shapes: its products at the GEMM share
    of peak plus its activations' memory traffic at the GPU memory's rate, the same rule for
    every system, and the output says so. Where a shape lacks what it takes (a CNN without its
    activations, a GPU without its memory rate), its GPU generation's published share, said as
    assumed (it took half the peak: ResNet-50 from its card predicted 5x the published
    single-GPU throughput)."""
    wd = workdir("card")
    topo = lambda n: os.path.join(ROOT, "topologies", n + ".yaml")  # noqa: E731
    rn50 = card(wd, "rn50-card", kind="cnn", params="25.6M", layers=50, extra="", mb=256,
                grad="fp32", compute="compute:\n  forward_gflops_per_sample: 4.1\n")
    p, out = model_point(wd, topo("dgx-a100"), rn50, 1)
    # NVIDIA DeepLearningExamples: 2470 img/s on one A100 80GB with AMP (the CNN row's source)
    expect(abs(p["throughput"] / 2470 - 1) < 0.02, f"ResNet-50 from its card: {p['throughput']}")
    expect("assumed: CNN: ResNet-50" in out, f"the assumption is said: {out[:600]}")
    gpt = card(wd, "gpt-card")
    shares = {}
    for system in ("dgx-a100", "dgx-h100"):
        share, why = compute_share(model_point(wd, topo(system), gpt, 1)[1])
        expect(why.startswith("from the step's shapes: products at 70 % of peak") and
               "GB/s" in why, f"{system}: {why}")
        shares[system] = share
    # the H100's peak grew 3.2x over the A100's, its memory 1.6x: more of its step is traffic
    expect(0.25 < shares["dgx-h100"] < shares["dgx-a100"] < 0.7, f"shares {shares}")
    flash = card(wd, "gpt-flash", extra="  sequence: 2048\n  attention: flash\n")
    share, _ = compute_share(model_point(wd, topo("dgx-h100"), flash, 1)[1])
    expect(share > shares["dgx-h100"] + 0.1, f"FlashAttention stores no scores: {share}")
    # a GPU whose memory rate the topology does not give: the nearest published share
    _, out_n = model_point(wd, topo("sugon-ascend910b"), gpt, 1)
    expect("assumed, the nearest published figure: transformer on Ampere" in out_n, out_n[:600])
    stated = card(wd, "gpt-stated", compute="compute:\n  efficiency: 0.3\n")
    _, out_s = model_point(wd, topo("dgx-h100"), stated, 1)
    expect("30.0 % of 990 TFLOP/s (declared by the workload)" in out_s, out_s[:600])


INPUT = """name: {name}
model:
  kind: cnn
  parameters: 1M
  layers: 10
batch:
  micro_batch: 64
  per_gpu_batch: 64
compute:
  forward_gflops_per_sample: 0.001
  activations_per_sample: 1000
input:
{input}"""


def test_input():
    """The input pipeline is held to what the workload declares: decode workers a GPU bound a
    node to workers x GPUs cores (not all of them), and a GPU decoder's time a sample joins each
    step's compute."""
    wd = workdir("input")
    topo = os.path.join(ROOT, "topologies", "dgx-a100.yaml")  # 128 cores, 8 GPUs

    def point(name, text, gpus):
        path = os.path.join(wd, name + ".yaml")
        with open(path, "w") as f:
            f.write(INPUT.format(name=name, input=text))
        return model_point(wd, topo, path, gpus)
    # 10 ms of a core a sample: all 128 cores feed 12800 samples/s, 2 workers a GPU 200 a GPU
    cpu = "  loader: cpu\n  cpu_ms_per_sample: 10\n"
    for gpus, want in ((1, 200), (8, 1600)):
        p, out = point("workers", cpu + "  workers_per_gpu: 2\n", gpus)
        expect(abs(p["throughput"] / want - 1) < 1e-3, f"2 workers a GPU, {gpus} GPUs: "
               f"{p['throughput']:.1f} samples/s, want {want}")
    expect("on 2 workers a GPU (16 of the node's 128 cores, declared)" in out, out[:800])
    p, _ = point("cores", cpu, 8)
    expect(abs(p["throughput"] / 12800 - 1) < 1e-3, f"all cores: {p['throughput']:.1f}")
    # the GPU decodes: 64 samples x 2 ms more compute a step
    plain, _ = point("gpu0", "  loader: gpu\n", 1)
    dec, out = point("gpu2", "  loader: gpu\n  gpu_ms_per_sample: 2\n", 1)
    expect(abs(dec["step_time_ms"] - plain["step_time_ms"] - 128) < 1e-6 and
           abs(dec["compute_ms"] - plain["compute_ms"] - 128) < 1e-6,
           f"GPU decode: step {plain['step_time_ms']} -> {dec['step_time_ms']} ms")
    expect("decoded on the GPU, 2.00 ms of its time a sample (declared)" in out, out[:800])


def test_recompute():
    """Activation recomputation (Korthikanti et al. 2022): full adds a forward to backward and
    repeats its tensor-parallel collectives; selective adds the attention's products."""
    wd = workdir("recompute")
    topo = os.path.join(ROOT, "topologies", "dgx-a100.yaml")
    base, _ = model_point(wd, topo, card(wd, "none"), 1)
    full, _ = model_point(wd, topo, card(wd, "full", extra="  sequence: 2048\n  recompute: full\n"), 1)
    sel, _ = model_point(wd, topo, card(wd, "sel", extra="  sequence: 2048\n  recompute: selective\n"), 1)
    expect(abs(full["compute_ms"] / base["compute_ms"] - 4 / 3) < 0.005,
           f"full: forward 1 + backward 3 against 1 + 2: {full['compute_ms']} {base['compute_ms']}")
    share = 4 * 2048 * 2048 * 2048 / (24 * 2048 * 2048 ** 2 + 4 * 2048 ** 2 * 2048)
    expect(abs(sel["compute_ms"] / base["compute_ms"] - (3 + share) / 3) < 0.005,
           f"selective: the attention's share {share:.3f} again: {sel['compute_ms']}")
    tp0, _ = model_point(wd, topo, card(wd, "tp-none"), 8, "--tp", "8")
    tp1, _ = model_point(wd, topo, card(wd, "tp-full", extra="  sequence: 2048\n  recompute: full\n"),
                         8, "--tp", "8")
    expect(tp1["comm_ms"] > 1.2 * tp0["comm_ms"],
           f"full recomputation repeats the TP collectives: {tp1['comm_ms']} vs {tp0['comm_ms']}")
    rc, _, err, _ = scalecheck1(["model", "--topology", topo, "--workload",
                                 card(wd, "bad", extra="  sequence: 2048\n  recompute: some\n")])
    expect(rc == 2 and "recompute" in err and "none|selective|full" in err, f"bad: {rc} {err}")


main(lambda: (test(), test_compute_defaults(), test_input(), test_recompute()))
