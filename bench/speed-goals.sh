#!/usr/bin/env bash
# Benchmark (not a test): the speed goals of `model` and `judge`. Times, as the median of
# ROUNDS runs each (default 5):
#   - model of a 3D workload (gpt3-13b-3d) on 4096 DGX A100 nodes   goal < 1 s
#   - judge of a 10 000-line nccl-tests log (all_reduce_perf rows)   goal < 1 s
# and prints each median against its goal. usage: bench/speed-goals.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh >/dev/null
rounds=${1:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# a 10 000-line nccl-tests log: the header, 8 ranks, then rows of growing size
python3 - "$work/big.txt" <<'PY'
import sys
lines = ["# Collective test starting: all_reduce_perf", "# Using devices"]
lines += [f"#  Rank {r:2d} Group  0 Pid {100 + r:6d} on     dgx-01 device {r} [0000:07:00] A100"
          for r in range(8)]
lines.append("#       size         count      type   redop    root     time   algbw   busbw #wrong"
             "     time   algbw   busbw #wrong")
while len(lines) < 10000:
    s = 8 * (len(lines) % 24 + 1) << (len(lines) % 20)
    t = 12.0 + s / 132e3
    a = s / t / 1e3
    lines.append(f"{s:12d} {s // 4:12d}     float     sum      -1 {t:8.2f} {a:7.2f} {a * 1.75:7.2f}"
                 f"      0 {t:8.2f} {a:7.2f} {a * 1.75:7.2f}      0")
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY

median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
time_it() { # prints seconds of one run of "$@"
    local t0 t1
    t0=$(date +%s.%N)
    "$@" >/dev/null 2>&1 || true
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc -l
}
goal() { awk -v m="$2" -v g="$3" -v n="$1" 'BEGIN {printf "%-44s median %.3f s  goal < %s s  %s\n", n, m, g, (m < g ? "met" : "MISSED")}'; }

model=$(for _ in $(seq "$rounds"); do
    time_it build/scalecheck model --topology topologies/dgx-a100.yaml \
        --workload workloads/gpt3-13b-3d.yaml --gpus 8 --nodes 4096 --size 1G
done | median)
goal "model, 3D workload, 4096 nodes" "$model" 1
judge=$(for _ in $(seq "$rounds"); do
    time_it build/scalecheck judge --topology topologies/dgx-a100.yaml \
        --results-dir "$work/results" "$work/big.txt"
done | median)
goal "judge, 10 000-line nccl-tests log" "$judge" 1
