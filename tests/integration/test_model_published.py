"""The collective model against published nccl-tests figures (tests/integration/published.py):
calibration rows within a point, each check row within ROW_BOUND, their median within
MEDIAN_BOUND; every open row says why; each check row's system, as an nccl-tests log at its
published figure, judged no FAIL, and at half of it a FAIL; and the table in topologies/README.md
is the one the code prints now."""
import os

from sclib import *
import published


def nccl_log(path, row, busbw):
    """An nccl-tests all_reduce_perf log of one size at busbw, as the row's system ran it."""
    system, topo, coll, size, g, n, algo, pub = row[:8]
    ranks, nbytes = g * n, published_size(size)
    algbw = busbw / (2.0 * (ranks - 1) / ranks)
    t = nbytes / algbw / 1e3
    lines = ["# Collective test starting: all_reduce_perf", "#", "# Using devices"]
    lines += [f"#  Rank {r:3d} Group  0 Pid {5000 + r:6d} on {'node%d' % (r // g):>10s} device "
              f"{r % g:2d} [0x{r % 256:02x}] GPU" for r in range(ranks)]
    lines += ["#", "#       size         count      type   redop    root     time   algbw   busbw "
              "#wrong     time   algbw   busbw #wrong",
              f"  {nbytes:12d}  {nbytes // 4:12d}     float     sum      -1 {t:8.1f} {algbw:7.2f} "
              f"{busbw:7.2f}      0 {t:8.1f} {algbw:7.2f} {busbw:7.2f}      0"]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def published_size(size):
    return int(size[:-1]) << {"K": 10, "M": 20, "G": 30}[size[-1]]


def judged(wd, row, busbw):
    """The verdict judge gives a log of row's system at busbw (its topology, its --algo)."""
    path = os.path.join(wd, "log.txt")
    nccl_log(path, row, busbw)
    out = os.path.join(wd, "j.json")
    rc, _, err, _ = scalecheck1(["judge", "-Y", published.topology(row[1]), "--algo", row[6],
                                 "--results-dir", os.path.join(wd, "r"), "--json", out, path])
    expect(rc in (0, 1), f"{row[0]}: judge exit {rc}\n{err[-400:]}")
    # the model's checks (a topology's own claims - dgx-h100's NVLS 480 - hold other runs)
    return {c["verdict"] for c in load_json(out)["checks"] if c.get("source") != "claim"}


def healthy_and_degraded(rows):
    """Each check row's system as published is never a FAIL (a PASS, or a WARN where the model
    misses it by more than the band), and at half its figure always one."""
    wd = workdir("published-judged")
    for row, _, err in rows:
        if row[8] != "check" or row[2] != "allreduce":
            continue
        healthy, degraded = judged(wd, row, row[7]), judged(wd, row, row[7] / 2)
        expect("FAIL" not in healthy and (healthy == {"PASS"} or abs(err) > 0.1),
               f"{row[0]} at {row[4] * row[5]} GPUs as published: {healthy} (model {err:+.2f})")
        expect("FAIL" in degraded, f"{row[0]} at half its published figure: {degraded}")


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
    healthy_and_degraded(rows)
    checks = [r for r, _, _ in rows if r[8] == "check"]
    expect(len(checks) >= 10, f"only {len(checks)} check rows")
    with open(os.path.join(published.ROOT, "topologies", "README.md")) as f:
        readme = f.read()
    expect(published.table(rows) in readme,
           "topologies/README.md's table of published collectives is not what the model gives "
           "now: regenerate it with `python3 tests/integration/published.py`")


main(test)
