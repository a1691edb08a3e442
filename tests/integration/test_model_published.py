"""The collective model against published nccl-tests figures (tests/integration/published.py):
calibration rows within a point, each check row within ROW_BOUND, their median within
MEDIAN_BOUND; every open row says why; and the table in topologies/README.md is the one the code
prints now."""
import os

from sclib import *
import published


def test():
    rows = published.evaluate()
    for row, pred, err in rows:
        system, role, why = row[0], row[8], row[9]
        label = f"{system} at {row[4] * row[5]} GPUs: published {row[7]}, model {pred:.1f}"
        if role == "calibration":
            expect(abs(err) <= 0.01, f"{label}: a calibration row must be reproduced ({err:+.3f})")
        elif role == "check":
            expect(abs(err) <= published.ROW_BOUND, f"{label}: error {err:+.3f} beyond "
                   f"{published.ROW_BOUND}")
        else:
            expect(role == "open" and len(why) > 20, f"{label}: an open row must say why")
    median = published.median_error(rows)
    expect(median <= published.MEDIAN_BOUND,
           f"median |error| {median:.3f} beyond {published.MEDIAN_BOUND}")
    checks = [r for r, _, _ in rows if r[8] == "check"]
    expect(len(checks) >= 10, f"only {len(checks)} check rows")
    with open(os.path.join(published.ROOT, "topologies", "README.md")) as f:
        readme = f.read()
    expect(published.table(rows) in readme,
           "topologies/README.md's table of published collectives is not what the model gives "
           "now: regenerate it with `python3 tests/integration/published.py`")


main(test)
