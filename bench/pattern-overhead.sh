#!/usr/bin/env bash
# Benchmark (not a test): the pattern engine's overhead on the collectives of a step, for the
# data-parallel, ZeRO-3, MoE and tensor-parallel patterns (target: < 5 %).
# usage: bench/pattern-overhead.sh [RANKS] [BYTES_SCALE]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh >/dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
np=${1:-2} scale=${2:-0.01}
run() { mpirun -np "$np" --oversubscribe --bind-to none build/sc_bench_pattern "$@"; }
run workloads/bert-large-dp.yaml "$scale" 5 10
run workloads/resnet50-dp.yaml "$scale" 5 10
run workloads/llama-7b-zero3.yaml "$scale" 5 5
run workloads/moe-small.yaml "$scale" 5 10
run workloads/gpt3-13b-3d.yaml "$scale" 3 3 "$np"   # TP over all ranks, one stage
