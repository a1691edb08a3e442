"""The step model's absolute throughput against published training tables: one list of rows,
used by test_model_throughput (which holds them to their bounds) and printed as the table in
topologies/README.md (`python3 tests/integration/throughput.py` with SCALECHECK set).

Each row: a system (a shipped topology, or a file in tests/data/published/ citing its sources), a
workload as its benchmark runs it (shipped, or in tests/data/published/workloads/, none stating
a share of peak), and the samples/s published on 1 GPU and on 8. 'calibration' rows fixed one of
the compute model's constants (docs/REFERENCE.md section 8.1: the activation traffic of a kind of
model); 'check' rows were not used to fit anything; 'open' rows are shown with their error, held
to no bound, and say why."""
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(__file__))
from sclib import scalecheck1, workdir  # noqa: E402

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
DATA = os.path.join(ROOT, "tests", "data", "published")
MEDIAN_BOUND = 0.15   # median |error| of samples/s, 1 and 8 GPUs, over calibration and check rows
SCALING_BOUND = 0.03  # each check row's 8-GPU scaling efficiency, in points

RN50 = "NVIDIA DeepLearningExamples, PyTorch ResNet-50 v1.5 README (pytorch-21.03)"
BERT = "NVIDIA DeepLearningExamples, PyTorch BERT README (pytorch:21.11), pre-training"
BINNED = ("phase 2 bins sequences by length (LDDL, bin size 64): they average fewer than 512 "
          "tokens by an amount not published")
INPUT = ("at 8 GPUs the input bound fitted on the DGX A100 (7.70 ms of a core a sample, its 128 "
         "cores capping 16621 img/s) caps the DGX-1's 40 cores at 5195; the published 8322 is "
         "past it. With AMP both systems lose 13-16 % at 8 GPUs whatever their cores (TF32 and "
         "FP32 3 %): a loss no published figure of the input pipeline explains")

# (system, topology, workload, published samples/s on 1 GPU, on 8 GPUs, role, why, source)
ROWS = [
    ("DGX A100 80GB, ResNet-50 AMP", "dgx-a100", "resnet50-dp", 2470, 16621, "calibration",
     "the CNN's activation traffic", RN50),
    ("DGX A100 80GB, ResNet-50 TF32", "dgx-a100", "resnet50-dp-tf32", 938, 7248, "check", "",
     RN50),
    ("DGX-1 V100 16GB, ResNet-50 FP32", "dgx1-v100-16", "resnet50-dp-fp32", 367, 2855, "check",
     "", RN50),
    ("DGX-1 V100 16GB, ResNet-50 AMP", "dgx1-v100-16", "resnet50-dp", 1200, 8322, "open",
     INPUT, RN50),
    ("DGX-1 V100 32GB, ResNet-50 FP32", "dgx1-v100-32", "resnet50-dp-fp32", 356, 2766, "check",
     "", RN50),
    ("DGX-1 V100 32GB, ResNet-50 AMP", "dgx1-v100-32", "resnet50-dp", 1156, 8056, "open",
     INPUT, RN50),
    ("DGX A100 80GB, BERT-large seq 128 AMP", "dgx-a100", "bert-large-p1-amp", 580, 4591,
     "calibration", "the transformer's activation traffic", BERT),
    ("DGX A100 80GB, BERT-large seq 128 TF32", "dgx-a100", "bert-large-p1-tf32", 317, 2505,
     "check", "", BERT),
    ("DGX-1 V100 32GB, BERT-large seq 128 FP32", "dgx1-v100-32", "bert-large-p1-fp32", 50, 387,
     "check", "", BERT),
    ("DGX-1 V100 32GB, BERT-large seq 128 AMP", "dgx1-v100-32", "bert-large-p1-amp", 224, 1746,
     "check", "", BERT),
    ("DGX A100 80GB, BERT-large seq 512 AMP", "dgx-a100", "bert-large-p2-amp", 210, 1657,
     "open", BINNED, BERT),
    ("DGX A100 80GB, BERT-large seq 512 TF32", "dgx-a100", "bert-large-p2-tf32", 110, 860,
     "open", BINNED, BERT),
    ("DGX-1 V100 32GB, BERT-large seq 512 FP32", "dgx1-v100-32", "bert-large-p2-fp32", 19, 149.6,
     "open", BINNED + "; at 512 tokens 19 sequences/s would be 19 TFLOP/s, past the V100's "
     "15.7 FP32 peak", BERT),
    ("DGX-1 V100 32GB, BERT-large seq 512 AMP", "dgx1-v100-32", "bert-large-p2-amp", 75, 586,
     "open", BINNED, BERT),
]


def path_of(folder_shipped, folder_data, name):
    shipped = os.path.join(ROOT, folder_shipped, name + ".yaml")
    return shipped if os.path.exists(shipped) else os.path.join(folder_data, name + ".yaml")


def predict(row):
    """The model's samples/s on 1 and 8 GPUs of one node."""
    system, topo, workload = row[:3]
    path = os.path.join(workdir("throughput"), "t.json")
    args = ["model", "--topology", path_of("topologies", DATA, topo), "--workload",
            path_of("workloads", os.path.join(DATA, "workloads"), workload), "--size", "1G",
            "--gpus", "1,8", "--nodes", "1", "--json", path]
    rc, _, err, _ = scalecheck1(args, timeout=60)
    if rc != 0:
        raise RuntimeError(f"model {workload} on {topo}: exit {rc}: {err[-400:]}")
    with open(path) as f:
        curve = {p["gpus"]: p["throughput"] for p in json.load(f)["curve"]}
    return curve[1], curve[8]


def evaluate():
    """Every row with the model's figures: (row, predicted 1 and 8 GPUs, their relative errors,
    the 8-GPU scaling efficiency's error in points)."""
    out = []
    for row in ROWS:
        one, eight = predict(row)
        scaling = eight / one / 8 - row[4] / row[3] / 8
        out.append((row, (one, eight), (one / row[3] - 1, eight / row[4] - 1), scaling))
    return out


def median_error(rows):
    return statistics.median(abs(e) for r, _, errs, _ in rows if r[5] != "open" for e in errs)


def table(rows):
    lines = ["| system, workload | published 1 / 8 GPUs | predicted | error | 8-GPU scaling: "
             "published, predicted | role | source |", "|---|---|---|---|---|---|---|"]
    for (system, _, _, one, eight, role, why, source), pred, errs, scaling in rows:
        what = f"{role}: {why}" if why else role
        lines.append(f"| {system} | {one:g} / {eight:g} | {pred[0]:.0f} / {pred[1]:.0f} | "
                     f"{errs[0] * 100:+.0f} / {errs[1] * 100:+.0f} % | {eight / one / 8:.3f}, "
                     f"{eight / one / 8 + scaling:.3f} | {what} | {source} |")
    lines.append(f"\nMedian |error| of samples/s over the calibration and check rows, 1 and 8 "
                 f"GPUs: {median_error(rows) * 100:.1f} %.")
    return "\n".join(lines)


if __name__ == "__main__":
    print(table(evaluate()))
