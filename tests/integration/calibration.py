"""The model's calibration against published training-scaling figures: one list of rows, used by
test_model_calibration (which holds every row to its bound) and printed as the table in
topologies/README.md (`python3 tests/integration/calibration.py` with SCALECHECK set).

Each row: the published scaling efficiency of a configuration, where it was published, and its
role. 'calibration' rows fixed a stated factor (the input pipeline's CPU cost of ResNet-50, the
training.step_jitter default); 'check' rows were not used to fit anything."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from sclib import scalecheck1, workdir  # noqa: E402

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
RN50 = ("NVIDIA DeepLearningExamples, PyTorch/Classification/ConvNets/resnet50v1.5/README.md, "
        "Training performance: NVIDIA DGX A100 (8x A100 80GB)")
BERT = ("NVIDIA DeepLearningExamples, PaddlePaddle/LanguageModeling/BERT/README.md, "
        "Pre-training NVIDIA DGX A100 (8x A100 80GB)")
BERTN = BERT + " Multi-node Scaling"

# (workload, topology, GPUs per node, nodes, base nodes, published speedup over the base,
#  role, what was fitted or the bound a check is held to, source)
ROWS = [
    ("resnet50-dp", "dgx-a100", 8, 1, None, 6.72, "calibration",
     "input.cpu_ms_per_sample = 7.70", RN50),
    ("resnet50-dp-tf32", "dgx-a100", 8, 1, None, 7.72, "calibration",
     "training.step_jitter = 0.018", RN50),
    ("bert-large-phase2", "dgx-a100", 8, 1, None, 7.99, "check", 0.02, BERT),
    ("bert-large-phase2-tf32", "dgx-a100", 8, 1, None, 7.95, "check", 0.02, BERT),
    ("bert-large-phase2", "dgx-a100", 8, 2, 1, 1.92, "check", 0.06, BERTN),
    ("bert-large-phase2", "dgx-a100", 8, 4, 1, 3.78, "check", 0.06, BERTN),
    ("bert-large-phase2", "dgx-a100", 8, 8, 1, 7.47, "check", 0.08, BERTN),
    ("bert-large-phase2", "dgx-a100", 8, 16, 1, 14.76, "check", 0.08, BERTN),
    ("bert-large-phase2", "dgx-a100", 8, 32, 1, 28.55, "check", 0.10, BERTN),
    ("bert-large-phase2-tf32", "dgx-a100", 8, 2, 1, 1.88, "check", 0.06, BERTN),
    ("bert-large-phase2-tf32", "dgx-a100", 8, 8, 1, 7.44, "check", 0.08, BERTN),
    ("bert-large-phase2-tf32", "dgx-a100", 8, 32, 1, 28.26, "check", 0.10, BERTN),
]
CALIBRATION_BOUND = 0.01  # a fitted row must come out within one point of efficiency


def curve(workload, topology, gpus, nodes):
    """The model's curve at 1 GPU, gpus per node and the given node counts."""
    path = os.path.join(workdir("calibration"), "m.json")
    args = ["model", "--topology", os.path.join(ROOT, "topologies", topology + ".yaml"),
            "--workload", os.path.join(ROOT, "workloads", workload + ".yaml"), "--size", "1G",
            "--gpus", f"1,{gpus}", "--nodes", ",".join(str(n) for n in nodes), "--json", path]
    rc, _, err, _ = scalecheck1(args, timeout=60)
    if rc != 0:
        raise RuntimeError(f"model {workload} on {topology}: exit {rc}: {err[-400:]}")
    with open(path) as f:
        return {(p["gpus"], p["nodes"]): p for p in json.load(f)["curve"]}


def evaluate():
    """Every row with the model's figure: (row, published efficiency, predicted, error)."""
    out = []
    for row in ROWS:
        workload, topology, g, n, base, published, role, bound, source = row
        c = curve(workload, topology, g, sorted({1, n, base or 1}))
        point = c[(g * n, n)]
        if base is None:  # speedup over one GPU
            pub_eff, pred_eff = published / (g * n), point["efficiency"]
        else:  # speedup over `base` nodes
            ref = c[(g * base, base)]
            pub_eff = published / (n / base)
            pred_eff = point["throughput"] / ref["throughput"] / (n / base)
        out.append((row, pub_eff, pred_eff, pred_eff - pub_eff))
    return out


def table(rows):
    lines = ["| workload | GPUs (nodes) | over | published | predicted | error | role | source |",
             "|---|---|---|---|---|---|---|---|"]
    for (workload, _, g, n, base, published, role, bound, source), pub, pred, err in rows:
        over = "1 GPU" if base is None else f"{base} node"
        what = f"{role}: {bound}" if role == "calibration" else f"check, bound {bound:.2f}"
        lines.append(f"| {workload} | {g * n} ({n}) | {over} | {pub:.3f} ({published}x) | "
                     f"{pred:.3f} | {err:+.3f} | {what} | {source} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(table(evaluate()))
