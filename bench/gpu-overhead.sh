#!/usr/bin/env bash
# Benchmark (not a test), on a machine with a GPU: the whole `scalecheck coll --backend nccl`
# command against a bare NCCL all-reduce loop (bench/bare_nccl_allreduce.c) timed the same way
# (device events between launches, median), one GPU, out of place, interleaved round by round.
# Prints per size the median over rounds of coll's time, the bare loop's and their ratio
# (issue 33's goal: <= 1.03). Needs the GPU build (tests/gpu/device-check.sh builds build-gpu and
# writes build-gpu/device-env.sh). usage: bench/gpu-overhead.sh [ROUNDS] [ITERS]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5} iters=${2:-200}
bdir=${SC_GPU_BUILD:-build-gpu}
[ -f "$bdir/device-env.sh" ] && . "$bdir/device-env.sh"
inc=$(sed -n 's/^NCCL_INCLUDE_DIR:[A-Z]*=//p' "$bdir/CMakeCache.txt")
lib=$(sed -n 's/^NCCL_LIBRARY:[A-Z]*=//p' "$bdir/CMakeCache.txt")
cuda=${CUDA_HOME:-/usr/local/cuda}
bare=$bdir/bare_nccl_allreduce
gcc -O2 -std=c11 -o "$bare" bench/bare_nccl_allreduce.c -I"$inc" -I"$cuda/include" \
    "$lib" -L"$cuda/lib64" -lcudart -Wl,-rpath,"$(dirname "$lib")":"$cuda/lib64"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sizes="1024 4096 16384 65536 262144 1048576 4194304"
for r in $(seq 1 "$rounds"); do
    for s in $sizes; do
        "$bare" "$s" "$iters" 20 >>"$tmp/bare.txt"
        mpirun -np 1 --bind-to none "$bdir/scalecheck" coll --backend nccl -b "$s" -e "$s" \
            -n "$iters" -w 20 -c 0 -T 60 --json "$tmp/coll.json" --results-dir "$tmp/r" >/dev/null
        python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
r=[x for x in d["results"] if not x["in_place"]][0]; print(r["size_bytes"], r["time_us"])' \
            "$tmp/coll.json" >>"$tmp/coll.txt"
    done
done
python3 - "$tmp/bare.txt" "$tmp/coll.txt" <<'PY'
import statistics, sys
def read(p):
    out = {}
    for line in open(p):
        size, us = line.split()
        out.setdefault(int(size), []).append(float(us))
    return out
bare, coll = read(sys.argv[1]), read(sys.argv[2])
print(f"{'size':>9} {'coll us':>9} {'bare us':>9} {'ratio':>6}   (medians of {len(bare[1024])} interleaved rounds)")
for size in sorted(bare):
    c, b = statistics.median(coll[size]), statistics.median(bare[size])
    print(f"{size:>9} {c:>9.2f} {b:>9.2f} {c / b:>6.3f}")
PY
