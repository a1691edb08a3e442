"""`scalecheck plan`: the step plan `run` executes and `model` prices, checked against counts
worked out by hand from the workload files (numbers written here, not a second implementation):
Megatron TP all-reduces (or all-gather + reduce-scatter with sequence parallelism), pipeline
messages, DDP buckets, ZeRO-1 and ZeRO-3 gathers, MoE all-to-alls; the 1F1B and GPipe orders;
overlapped buckets started during backward and deferred ones after it; and the model's pipeline
bubble, (pp - 1) / m of the compute, coming out of the schedule. Bad input: exit 2, nothing
written."""
import math
import os

import yaml

from sclib import *

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
WL = lambda n: os.path.join(ROOT, "workloads", n + ".yaml")
TOPO = os.path.join(ROOT, "topologies", "dgx-a100.yaml")


def quiet_topology():
    """DGX A100 without the model's training factors (step jitter, overlap slowdown): what is
    left of the step is compute and communication alone."""
    path = os.path.join(workdir("plan"), "quiet.yaml")
    with open(path, "w") as f:
        f.write(f"name: quiet\nextends: {TOPO}\ntraining:\n  step_jitter: 0\n  overlap_slowdown: 0\n")
    return path


def variant(name, base, **changes):
    """A copy of a shipped workload with some fields changed ("section.key": value)."""
    with open(WL(base)) as f:
        w = yaml.safe_load(f)
    for key, value in changes.items():
        section, field = key.split(".")
        w.setdefault(section, {})[field] = value
    w["name"] = name
    path = os.path.join(workdir("plan"), name + ".yaml")
    with open(path, "w") as f:
        yaml.safe_dump(w, f)
    return path


def plan(workload, *args):
    jpath = os.path.join(workdir("plan"), "p.json")
    if os.path.exists(jpath):
        os.remove(jpath)
    rc, out, err, _ = scalecheck1(["plan", "--workload", workload, "--json", jpath] + list(args))
    expect(rc == 0, f"plan {workload} {args}: exit {rc}\n{err[-800:]}")
    return load_json(jpath), out


def groups(doc):
    return {(g["group"], g["operation"]): g for g in doc["groups"]}


def expect_op(doc, group, op, calls_per_rank, bytes_per_call, where):
    g = groups(doc).get((group, op))
    expect(g is not None, f"{where}: no {group} {op} in {sorted(groups(doc))}")
    expect(math.isclose(g["calls_per_rank"], calls_per_rank, rel_tol=1e-9),
           f"{where}: {group} {op} {g['calls_per_rank']} calls per rank, expected {calls_per_rank}")
    expect(math.isclose(g["bytes"], g["calls"] * bytes_per_call, rel_tol=1e-9),
           f"{where}: {group} {op} {g['bytes']} bytes for {g['calls']} calls of {bytes_per_call}")


def passes(stage):
    """The stage's (phase, micro-batch) sequence, read off its compute operations."""
    seq = []
    for op in stage:
        if op["kind"] == "compute":
            key = (op["phase"][0].upper(), op["micro_batch"])
            if not seq or seq[-1] != key:
                seq.append(key)
    return seq


def test_tensor_and_pipeline():
    # gpt3-13b-3d: 40 layers, hidden 5120, sequence 2048, bf16, tp 8, pp 2, 16 micro-batches of 1
    act = 1 * 2048 * 5120 * 2
    doc, out = plan(WL("gpt3-13b-3d"), "--gpus", "8", "--nodes", "2")
    expect(doc["layout"] == {"dp": 1, "tp": 8, "pp": 2, "micro_batches": 16, "schedule": "1f1b",
                             "zero": 0, "sequence_parallel": False, "overlap": True},
           f"layout {doc['layout']}")
    # 2 all-reduces per layer forward, 2 backward: 4 x 20 layers per stage x 16 micro-batches
    expect_op(doc, "tp", "allreduce", 4 * 20 * 16, act, "gpt3")
    # every micro-batch crosses the one stage boundary forward and back: 2 x 16 per boundary
    # rank pair, 8 pairs (one per TP rank); each stage-rank sends 16 and receives 16
    expect_op(doc, "pp", "send", 16, act, "gpt3")
    expect_op(doc, "pp", "recv", 16, act, "gpt3")
    expect(groups(doc)[("pp", "send")]["calls"] == 2 * 16 * 1 * 8, "gpt3: sends over all ranks")
    expect(set(groups(doc)) == {("tp", "allreduce"), ("pp", "send"), ("pp", "recv")},
           f"gpt3: dp 1 issues no gradient traffic: {sorted(groups(doc))}")
    expect(doc["totals"]["calls"] == 4 * 20 * 16 * 16 + 2 * 256 and
           math.isclose(doc["totals"]["bytes"], (4 * 20 * 16 * 16 + 2 * 256) * act, rel_tol=1e-12),
           f"gpt3 totals {doc['totals']}")
    expect("tp        8 allreduce" in out and "total per step: 20992 calls" in out,
           f"gpt3 table:\n{out}")

    sp = variant("gpt3-sp", "gpt3-13b-3d", **{"parallel.sequence_parallel": True})
    doc, _ = plan(sp, "--gpus", "8", "--nodes", "2")
    expect_op(doc, "tp", "allgather", 4 * 20 * 16, act, "sequence parallel")
    expect_op(doc, "tp", "reducescatter", 4 * 20 * 16, act, "sequence parallel")
    expect(("tp", "allreduce") not in groups(doc), "sequence parallel: no TP all-reduce")


def test_schedules():
    doc, _ = plan(WL("gpt3-13b-3d"), "--gpus", "8", "--nodes", "2", "--ops")
    s0, s1 = passes(doc["stages"][0]), passes(doc["stages"][1])
    # 1F1B, stage 0 of 2: one warm-up forward, then forward/backward pairs, then the last backward
    want0 = [("F", 0)] + [x for i in range(1, 16) for x in (("F", i), ("B", i - 1))] + [("B", 15)]
    expect(s0 == want0, f"1f1b stage 0: {s0[:6]}...")
    want1 = [x for i in range(16) for x in (("F", i), ("B", i))]
    expect(s1 == want1, f"1f1b stage 1: {s1[:6]}...")
    expect(doc["stages"][0][-1] == {"kind": "wait", "phase": "backward", "micro_batch": -1,
                                    "layer": -1, "group": "pp"}, "stage ends waiting for its sends")
    gp = variant("gpt3-gpipe", "gpt3-13b-3d", **{"parallel.schedule": "gpipe"})
    doc, _ = plan(gp, "--gpus", "8", "--nodes", "2", "--ops")
    want = [("F", i) for i in range(16)] + [("B", i) for i in range(16)]
    expect(passes(doc["stages"][0]) == want and passes(doc["stages"][1]) == want, "gpipe order")


def test_data_parallel():
    # bert-large-dp: 340M parameters, 24 layers, fp16 gradients: 28.33 MB per layer, so every
    # layer fills a 25 MB bucket on its own: 24 buckets per step
    layer = 340e6 / 24 * 2
    doc, _ = plan(WL("bert-large-dp"), "--gpus", "8", "--ops")
    expect_op(doc, "dp", "allreduce", 24, layer, "bert ddp")
    stage = doc["stages"][0]
    kinds = [(op["kind"], op.get("overlaps_until")) for op in stage]
    last_compute = max(i for i, op in enumerate(stage) if op["kind"] == "compute")
    first_bucket = min(i for i, op in enumerate(stage) if op["kind"] == "collective")
    expect(first_bucket < last_compute, "overlap: the first bucket starts during backward")
    expect(all(k[1] == "wait" for k in kinds if k[0] == "collective"), "overlap: buckets started")
    expect(stage[-1]["kind"] == "wait" and stage[-1]["group"] == "dp", "overlap: ends on the wait")

    big = variant("bert-100mb", "bert-large-dp", **{"data_parallel.bucket_mb": 100})
    doc, _ = plan(big, "--gpus", "8")  # 4 layers (113 MB) fill a 100 MB bucket: 6 buckets
    expect_op(doc, "dp", "allreduce", 6, 4 * layer, "100 MB buckets")

    sync = variant("bert-sync", "bert-large-dp", **{"data_parallel.overlap": False})
    doc, _ = plan(sync, "--gpus", "8", "--ops")
    stage = doc["stages"][0]
    last_compute = max(i for i, op in enumerate(stage) if op["kind"] == "compute")
    buckets = [i for i, op in enumerate(stage) if op["kind"] == "collective"]
    expect(len(buckets) == 24 and min(buckets) > last_compute,
           "no overlap: the buckets are reduced after backward")
    expect(all("overlaps_until" not in stage[i] for i in buckets), "no overlap: blocking")

    z1 = variant("bert-zero1", "bert-large-dp", **{"parallel.zero": 1})
    doc, _ = plan(z1, "--gpus", "8", "--ops")
    expect_op(doc, "dp", "reducescatter", 24, layer, "zero-1")
    expect_op(doc, "dp", "allgather", 1, 24 * layer, "zero-1 parameters after the step")
    expect(doc["stages"][0][-1]["phase"] == "optimizer", "zero-1: the gather is the optimizer's")

    # llama-7b-zero3: every layer's parameters gathered before its forward and its backward
    with open(WL("llama-7b-zero3")) as f:
        w = yaml.safe_load(f)
    layers = w["model"]["layers"]
    micro = math.ceil(w["batch"]["per_gpu_batch"] / w["batch"].get("micro_batch", 1))
    doc, _ = plan(WL("llama-7b-zero3"), "--gpus", "8")
    g = groups(doc)[("dp", "allgather")]
    expect(g["calls_per_rank"] == 2 * layers * micro, f"zero-3 gathers {g['calls_per_rank']}")


def test_experts():
    # moe-small: 12 layers, every 2nd MoE (6), micro-batch 8 x 1024 x 1024 bf16 = 16 MiB of
    # activations, top-2, capacity 1.25: 2 all-to-alls forward and 2 backward per MoE layer
    doc, _ = plan(WL("moe-small"), "--gpus", "4")
    expect_op(doc, "ep", "alltoall", 4 * 6, 8 * 1024 * 1024 * 2 * 2 * 1.25, "moe")
    doc, _ = plan(WL("moe-small"), "--gpus", "1")
    expect(doc["groups"] == [], f"one GPU: nothing to send {doc['groups']}")
    # the all-to-alls sit in the layers' critical path: the model cannot hide them behind
    # backward the way it hides overlapped gradient buckets (no step jitter, no slowdown: communication only)
    quiet = quiet_topology()
    moe, _ = plan(WL("moe-small"), "--gpus", "8", "--nodes", "4", "--topology", quiet)
    dense, _ = plan(variant("dense", "moe-small", **{"model.experts": 1, "model.moe_every": 1000}),
                    "--gpus", "8", "--nodes", "4", "--topology", quiet)
    expect(("ep", "alltoall") not in groups(dense), "dense twin: no all-to-all")
    exposed = moe["expected"]["comm_ms"] - dense["expected"]["comm_ms"]
    expect(exposed > 10 * max(dense["expected"]["comm_ms"], 0.1),
           f"MoE all-to-alls exposed {exposed:.3f} ms vs dense {dense['expected']['comm_ms']:.3f} ms")


def test_model_bubble():
    # Compute only (tiny activations): the step is the stage's compute plus the 1F1B bubble,
    # (pp - 1) forward + backward passes: t (1 + (pp - 1) / m)
    base = dict(**{"model.hidden": 8, "model.sequence": 8, "parallel.tp": 1,
                   "compute.mode": "time", "compute.step_time_ms": 100})
    for pp, m, want in ((4, 4, 1.75), (4, 16, 1.1875), (1, 4, 1.0)):
        path = variant(f"bubble-{pp}-{m}", "gpt3-13b-3d", **base,
                       **{"parallel.pp": pp, "parallel.micro_batches": m, "batch.per_gpu_batch": m})
        doc, out = plan(path, "--gpus", str(pp), "--topology", quiet_topology())
        e = doc["expected"]
        ratio = e["step_time_ms"] / e["compute_ms"]
        expect(abs(ratio - want) < 0.01, f"pp {pp} m {m}: step / compute {ratio:.4f}, want {want}")
        expect(abs(e["compute_ms"] - 100) < 0.5, f"pp {pp}: compute {e['compute_ms']} ms")
        expect("expected on quiet" in out, "the table says what it priced")


def test_bad_input():
    wd = workdir("plan-bad")
    jpath = os.path.join(wd, "out.json")
    cases = [
        (["plan", "--workload", WL("gpt3-13b-3d"), "--gpus", "3", "--json", jpath], "tp 8"),
        (["plan", "--gpus", "8", "--json", jpath], "--workload"),
        (["plan", "--workload", os.path.join(wd, "missing.yaml"), "--json", jpath], "missing.yaml"),
        (["plan", "--workload", WL("bert-large-dp"), "--gpus", "0"], "--gpus"),
        (["plan", "--workload", WL("bert-large-dp"), "--json", os.path.join(wd, "no", "x.json")],
         "--json"),
    ]
    for args, text in cases:
        rc, out, err, _ = scalecheck1(args)
        expect(rc == 2, f"{args}: exit {rc}, expected 2")
        expect(text in err, f"{args}: error does not name {text!r}: {err}")
        expect(not os.path.exists(jpath), f"{args}: wrote {jpath}")


def test():
    test_tensor_and_pipeline()
    test_schedules()
    test_data_parallel()
    test_experts()
    test_model_bubble()
    test_bad_input()
    print("plan: counts, orders, overlap, bubble and refusals as expected")


main(test)
