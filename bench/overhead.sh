#!/usr/bin/env bash
# Benchmark (not a test): engine vs a bare MPI_Allreduce loop, interleaved round by round, sizes
# 8 B .. 64 MB. Prints per size the mean of each side's medians, the median of the per-round
# ratios engine/bare (target: within 1 +- 0.05) and of their differences (target at 8 B:
# < 0.2 us). usage: bench/overhead.sh [RANKS] [MAXBYTES] [ROUNDS] [ITERS]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh >/dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
exec mpirun -np "${1:-2}" --bind-to none build/sc_bench_overhead "${2:-64M}" "${3:-7}" "${4:-50}"
