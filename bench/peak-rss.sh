#!/usr/bin/env bash
# Benchmark (not a test): peak resident memory of each rank of a host-path run - coll (auto
# backend, so that choosing it costs nothing) and run of the default workload. Goal: under
# 40 MB a rank (the GPU libraries live in libscalecheck-gpu.so and are loaded only by the GPU
# path; when they were linked into the program every rank was ~220 MB).
# usage: bench/peak-rss.sh [RANKS]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh >/dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
np=${1:-2} goal_kb=40960
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
measure() { # NAME ARGS...: every rank's peak, then the largest against the goal
    local name=$1
    shift
    mpirun -np "$np" --oversubscribe --bind-to none python3 bench/peak_rss.py \
        build/scalecheck "$@" --results-dir "$out" | sort -k4n | tee "$out/$name.txt"
    awk -v name="$name" -v goal="$goal_kb" '$2 > worst { worst = $2 } END {
        printf "%-5s largest rank %6d kB (%.1f MB): %s\n", name, worst, worst / 1024,
               worst < goal ? "within the 40 MB goal" : "OVER the 40 MB goal" }' "$out/$name.txt"
}
measure coll coll -b 8 -e 1M -n 20
measure run run --workload workloads/bert-large-dp.yaml --bytes-scale 0.01 --compute-scale 0.01
