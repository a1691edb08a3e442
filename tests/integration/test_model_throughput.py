"""The step model's samples/s against published training tables (tests/integration/throughput.py):
calibration rows within a point; the median |error| of samples/s on 1 and 8 GPUs over the
calibration and check rows within MEDIAN_BOUND; each check row within ROW_BOUND and its 8-GPU
scaling within SCALING_BOUND points; every open row says why; and the table in
topologies/README.md is the one the code prints now."""
import os

from sclib import *
import throughput

ROW_BOUND = 0.35  # the worst check row: ResNet-50 TF32 on an A100, +32 %


def test():
    rows = throughput.evaluate()
    for row, pred, errs, scaling in rows:
        system, role, why = row[0], row[5], row[6]
        label = (f"{system}: published {row[3]} / {row[4]}, model {pred[0]:.0f} / {pred[1]:.0f} "
                 f"samples/s on 1 / 8 GPUs")
        if role == "calibration":
            expect(abs(errs[0]) <= 0.01, f"{label}: a calibration row must be reproduced")
        elif role == "check":
            expect(max(abs(e) for e in errs) <= ROW_BOUND, f"{label}: beyond {ROW_BOUND}")
            expect(abs(scaling) <= throughput.SCALING_BOUND,
                   f"{label}: 8-GPU scaling off by {scaling * 100:+.1f} points")
        else:
            expect(role == "open" and len(why) > 40, f"{label}: an open row must say why")
    median = throughput.median_error(rows)
    expect(median <= throughput.MEDIAN_BOUND,
           f"median |error| {median:.3f} beyond {throughput.MEDIAN_BOUND}")
    checks = [r for r, _, _, _ in rows if r[5] == "check"]
    kinds = {"fp32" if r[2].endswith("fp32") else "tf32" if r[2].endswith("tf32") else "amp"
             for r in checks}
    gpus = {r[1] for r in checks}
    expect(len(checks) >= 6 and len(kinds) == 3 and len(gpus) >= 2,
           f"{len(checks)} check rows, precisions {kinds}, systems {gpus}: the checks must span "
           "precisions and GPU generations")
    with open(os.path.join(throughput.ROOT, "topologies", "README.md")) as f:
        readme = f.read()
    expect(throughput.table(rows) in readme,
           "topologies/README.md's table of published training throughput is not what the "
           "model gives now: regenerate it with `python3 tests/integration/throughput.py`")
    print(f"{len(rows)} rows, median |error| {median * 100:.1f} %")


main(test)
