#!/usr/bin/env bash
# Benchmark (not a test): the rounds and pairs each `pairs` strategy takes at fleet sizes -
# healthy, one and two bad nodes - as `pairs --plan-only` computes them (no traffic). The
# virtual-cluster test (vcluster-strategies) measures the same counts on 8 hosts.
# usage: bench/pairs-strategies.sh [NODES...]   (default 1024 4096)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh >/dev/null
nodes=("$@")
[ ${#nodes[@]} -gt 0 ] || nodes=(1024 4096)
for n in "${nodes[@]}"; do
    build/scalecheck pairs --plan-only --nodes "$n"
done
