"""The collective model against published nccl-tests figures: one list of rows, used by
test_model_published (which holds the rows to their bounds) and printed as the table in
topologies/README.md (`python3 tests/integration/published.py` with SCALECHECK set).

Each row: a system written as a user would write it from its spec sheets (a shipped topology, or
a file in tests/data/published/ citing its sources), the collective, size, GPUs and nodes, the
busbw published in a public thread, and its role. 'calibration' rows fixed a stated constant of
the model; 'check' rows were not used to fit anything; 'open' rows are published figures that no
published fact we found explains (the thread's hardware behaves unlike its spec sheet): they are
shown with their error and held to no bound, and each says why."""
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(__file__))
from sclib import scalecheck1, workdir  # noqa: E402

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
DATA = os.path.join(ROOT, "tests", "data", "published")
MEDIAN_BOUND = 0.10  # median |error| over calibration and check rows
ROW_BOUND = 0.25     # each check row

SHIPPED = {"dgx-a100", "dgx-h100"}


def topology(name):
    folder = os.path.join(ROOT, "topologies") if name in SHIPPED else DATA
    return os.path.join(folder, name + ".yaml")


# (system, topology, collective, size, GPUs per node, nodes, --algo, published busbw GB/s,
#  role, what it fixed or why it is open, source)
ROWS = [
    ("8x A100 SXM4, NVSwitch", "dgx-a100", "allreduce", "4G", 8, 1, "auto", 232.5, "check", "",
     "nccl-tests issue 175 (single node, 232.54)"),
    ("8x H100 SXM5, NVSwitch, ring", "dgx-h100", "allreduce", "4G", 8, 1, "ring", 370, "check",
     "", "nccl-tests issue 212 (NCCL maintainers: ~370 with NCCL_ALGO=RING)"),
    ("8x H100 SXM5, NVLink SHARP", "dgx-h100", "allreduce", "8G", 8, 1, "auto", 480,
     "calibration", "NVLS algbw = 0.61 x line", "nccl-tests issue 212 (NCCL maintainers)"),
    ("H100 SXM5, NVLink SHARP", "dgx-h100", "allreduce", "8G", 5, 1, "auto", 420, "check", "",
     "NCCL issue 1455"),
    ("H100 SXM5, NVLink SHARP", "dgx-h100", "allreduce", "8G", 6, 1, "auto", 440, "check", "",
     "NCCL issue 1455"),
    ("H100 SXM5, NVLink SHARP", "dgx-h100", "allreduce", "8G", 7, 1, "auto", 460, "check", "",
     "NCCL issue 1455"),
    ("H100 SXM5, ring wins", "dgx-h100", "allreduce", "8G", 2, 1, "auto", 367, "check", "",
     "NCCL issue 1455 (365-370)"),
    ("H100 SXM5, NCCL keeps the ring", "dgx-h100", "allreduce", "8G", 4, 1, "auto", 367,
     "check", "", "NCCL issue 1455 (365-370)"),
    ("8x H200, NVLink SHARP", "h200-hgx", "allreduce", "4G", 8, 1, "auto", 475, "check", "",
     "nccl-tests issue 272"),
    ("8x B300, NVLink 5 SHARP", "b300-hgx", "allreduce", "8G", 8, 1, "auto", 845, "check", "",
     "NCCL issue 2140"),
    ("GB200 NVL72 rack, NVLink 5 SHARP", "gb200-nvl72", "allreduce", "8G", 72, 1, "auto", 840,
     "check", "", "coreweave/nccl-tests pull request 43 (835-847 at 4-8 GiB)"),
    ("8x H800 (8 links), NVLink SHARP", "h800-hgx", "allreduce", "4G", 8, 1, "auto", 215, "check",
     "", "NCCL issue 1374"),
    ("2 nodes of 8x H100, 8x 400G RoCE, NVLSTree", "h100-8x400g-roce", "allreduce", "8G", 8, 2,
     "auto", 430, "check", "", "NCCL issue 1221 (NCCL_NVLS_ENABLE=1)"),
    ("2 nodes of 8x H100, 8x 400G RoCE, ring", "h100-8x400g-roce", "allreduce", "8G", 8, 2,
     "ring", 330, "check", "", "NCCL issue 1221 (NCCL_NVLS_ENABLE=0)"),
    ("4 nodes of 8x H100, 8x 400G RoCE", "h100-8x400g-roce", "allreduce", "8G", 8, 4, "auto",
     320, "check", "", "NCCL issue 1221 (320 with NVLS on or off)"),
    ("2 nodes of 8x A100, 4x HDR each", "a100-sxm-4hdr", "allreduce", "4G", 8, 2, "auto", 86,
     "check", "", "nccl-tests issue 175"),
    ("3 nodes of 8x A100, 4x HDR each", "a100-sxm-4hdr", "allreduce", "128M", 8, 3, "auto", 96,
     "check", "", "nccl-tests issue 119 (peak of the 128 MiB sweep)"),
    ("2x A100 PCIe, NVLink bridge (NV12)", "a100-pcie-nvlink-pair", "allreduce", "4G", 2, 1,
     "auto", 208, "check", "", "nccl-tests issue 178"),
    ("8x RTX 5090, PCIe 5.0, no P2P", "rtx5090-8-pcie5", "allreduce", "4G", 8, 1, "auto", 28,
     "check", "", "NCCL issue 1639 (NCCL maintainers: CPU and memory decide it)"),
    ("4x RTX 5090, PCIe 5.0, no P2P", "rtx5090-8-pcie5", "allreduce", "4G", 4, 1, "auto", 35,
     "check", "", "NCCL issue 1639"),
    ("2x H100 PCIe, NVLink bridge (NV12)", "h100-pcie-nvlink-pair", "allreduce", "4G", 2, 1,
     "auto", 116, "open", "the same 12-link bridge carries 208 between A100 PCIe; no published "
     "figure of the H100 PCIe bridge's own rate", "NCCL issue 1161"),
    ("2x RTX 2080 Ti, NVLink bridge (2 links)", "rtx2080ti-nvlink-pair", "allreduce", "64M", 2, 1,
     "auto", 21.5, "open", "NCCL's own figure for two links of this generation is 40 GB/s; the "
     "system hung under the 2019 NCCL of the thread, and no other published figure was found",
     "nccl-tests issue 44"),
]


def predict(row):
    """The model's busbw for a row."""
    system, topo, coll, size, g, n, algo, published, role, why, source = row
    path = os.path.join(workdir("published"), "p.json")
    args = ["model", "--topology", topology(topo), "--collective", coll, "--size", size,
            "--gpus", str(g), "--nodes", str(n), "--algo", algo, "--json", path]
    rc, _, err, _ = scalecheck1(args, timeout=60)
    if rc != 0:
        raise RuntimeError(f"model on {topo}: exit {rc}: {err[-400:]}")
    with open(path) as f:
        return json.load(f)["predictions"][0]["busbw_GBps"]


def evaluate():
    """Every row with the model's figure: (row, predicted, relative error)."""
    out = []
    for row in ROWS:
        pred = predict(row)
        out.append((row, pred, pred / row[7] - 1.0))
    return out


def median_error(rows):
    return statistics.median(abs(e) for r, _, e in rows if r[8] != "open")


def table(rows):
    lines = ["| system | GPUs (nodes) | size | published busbw | predicted | error | role | source |",
             "|---|---|---|---|---|---|---|---|"]
    for (system, _, _, size, g, n, _, pub, role, why, source), pred, err in rows:
        what = f"{role}: {why}" if why else role
        lines.append(f"| {system} | {g * n} ({n}) | {size} | {pub:g} | {pred:.0f} | "
                     f"{err * 100:+.0f} % | {what} | {source} |")
    lines.append(f"\nMedian |error| over the calibration and check rows: "
                 f"{median_error(rows) * 100:.1f} %.")
    return "\n".join(lines)


if __name__ == "__main__":
    print(table(evaluate()))
