"""Issue 33: the whole `scalecheck coll` command against a bare MPI_Allreduce loop, timed the same
way (each iteration timed, the slowest rank's, median; bench/bare-allreduce.c), interleaved round
by round on ranks bound to cores. Prints per size each round's ratio coll/bare and their median
(target: <= 1.03 from 1 KB to 4 MB on a quiet machine).

usage: python3 bench/coll-vs-bare.py SCALECHECK [--rounds 6] [--ranks 2] [COLL FLAGS...]
EXTRA flags go to coll (e.g. --telemetry 0, -T 0) to see what a helper costs."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def bare_binary(work):
    exe = os.path.join(work, "bare-allreduce")
    subprocess.run(["mpicc", "-O2", "-o", exe, os.path.join(HERE, "bare_allreduce.c")],
                   check=True)
    return exe


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scalecheck")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--ranks", type=int, default=2)
    a, extra = ap.parse_known_args()
    a.extra = [x for x in extra if x != "--"]
    work = tempfile.mkdtemp(prefix="coll-vs-bare-")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    launch = ["mpirun", "-np", str(a.ranks), "--bind-to", "core"]
    bare = bare_binary(work)
    ratios = {}
    for r in range(a.rounds + 1):  # the first round warms both up (page cache, CPU clocks): dropped
        out = subprocess.run(launch + [bare], capture_output=True, text=True, env=env, check=True)
        base = {int(l.split()[0]): float(l.split()[1]) for l in out.stdout.split("\n") if l}
        path = os.path.join(work, f"coll{r}.json")
        subprocess.run(launch + [a.scalecheck, "coll", "--collective", "allreduce", "-d", "float",
                                 "-o", "sum", "-b", "1K", "-e", "4M", "-f", "4", "-n", "200",
                                 "-w", "20", "-c", "0", "--looks", "1", "--json", path,
                                 "--results-dir", os.path.join(work, "results")] + a.extra,
                       capture_output=True, env=env, check=False)
        if r == 0:
            continue
        for row in json.load(open(path))["results"]:
            if not row["in_place"] and row["size_bytes"] in base:
                ratios.setdefault(row["size_bytes"], []).append(row["time_us"] / base[row["size_bytes"]])
    print(f"# coll / bare, {a.rounds} interleaved rounds, {a.ranks} ranks bound to cores"
          f"{' (coll ' + ' '.join(a.extra) + ')' if a.extra else ''}")
    for size in sorted(ratios):
        each = " ".join(f"{x:.3f}" for x in ratios[size])
        print(f"{size:>8d} B  median {statistics.median(ratios[size]):.3f}   rounds {each}")


if __name__ == "__main__":
    sys.exit(main())
