"""Issue 33: `scalecheck pairs` against a bare MPI loop that measures a pair the same way
(bench/bare_pairs.c: 8-byte ping-pong latency with MPI_Send/MPI_Recv as OSU's osu_latency, and
best of three streams of MPI_Isend each way), interleaved round by round on 2 ranks bound to
cores. Prints per message size the median over the rounds of pairs/bare for the latency and of
bare/pairs for each direction's bandwidth: both read as "times slower" (target: <= 1.03).

usage: python3 bench/pairs-vs-bare.py SCALECHECK [--rounds 20] [--sizes 65536,4194304]"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scalecheck")
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--sizes", default="65536,4194304")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="pairs-vs-bare-")
    bare = os.path.join(work, "bare-pairs")
    subprocess.run(["mpicc", "-O2", "-o", bare, os.path.join(HERE, "bare_pairs.c")], check=True)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    launch = ["mpirun", "-np", "2", "--bind-to", "core"]
    print(f"# pairs / bare, {a.rounds} interleaved rounds, 2 ranks bound to cores (one pair); "
          "each a ratio of times: > 1 is slower than the bare loop")
    for size in [int(s) for s in a.sizes.split(",")]:
        ratios = {"latency": [], "0->1": [], "1->0": []}
        for r in range(a.rounds + 1):  # the first round warms both up: dropped
            out = subprocess.run(launch + [bare, str(size), "8", "50"], capture_output=True,
                                 text=True, env=env, check=True).stdout.split()
            lat, ab, ba = (float(x) for x in out[:3])
            path = os.path.join(work, f"pairs{r}.json")
            run = subprocess.run(launch + [a.scalecheck, "pairs", "--per", "rank", "--backend",
                                           "mpi", "--mode", "serial", "--size", str(size), "--json",
                                           path, "--results-dir", os.path.join(work, "results")],
                                 capture_output=True, text=True, env=env, check=False)
            if not os.path.exists(path):
                sys.exit(f"pairs-vs-bare: pairs ended {run.returncode} without {path}\n"
                         f"{run.stderr[-1500:]}")
            if r == 0:
                continue
            row = json.load(open(path))["pairs"][0]
            ratios["latency"].append(row["latency_us"] / lat)
            ratios["0->1"].append(ab / row["uni_ab_GBps"])
            ratios["1->0"].append(ba / row["uni_ba_GBps"])
        cells = "  ".join(f"{k} {statistics.median(v):.3f}" for k, v in ratios.items())
        print(f"{size:>8d} B  median  {cells}")


if __name__ == "__main__":
    sys.exit(main())
