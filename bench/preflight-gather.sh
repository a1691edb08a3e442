#!/usr/bin/env bash
# Benchmark (not a test): what preflight's gather costs - the first rank of each host reads its
# configuration and alone sends one fixed-size record to rank 0 (one MPI_Gatherv: a record a
# host, not a rank, since issue 31; oversubscribed on one machine every rank is on one host). Measured at
# 32..256 ranks oversubscribed on this machine (as `scalecheck preflight` prints it: "read and
# gathered in X ms"), fitted to a + b x ranks, and extrapolated to 1024 and 4096 ranks. On 2
# cores the ranks also share the CPU, so the figure is an upper bound for a real cluster's.
# usage: bench/preflight-gather.sh [RANKS...]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh >/dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(32 64 128 256)
for n in "${sizes[@]}"; do
    line=$(mpirun -np "$n" --oversubscribe --bind-to none --mca btl self,vader,tcp \
        build/scalecheck preflight --results-dir "$out" | grep 'read and gathered in')
    ms=$(sed -n 's/.*read and gathered in \([0-9.]*\) ms.*/\1/p' <<<"$line")
    bytes=$(sed -n 's/.*(\([0-9]*\) B each).*/\1/p' <<<"$line")
    echo "$n $ms $bytes" | tee -a "$out/points"
done
python3 - "$out/points" <<'PY'
import sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if len(l.split()) == 3]
pts = [(r[0], r[1]) for r in rows]
record = rows[0][2]
n = len(pts)
mx = sum(x for x, _ in pts) / n
my = sum(y for _, y in pts) / n
b = sum((x - mx) * (y - my) for x, y in pts) / sum((x - mx) ** 2 for x, _ in pts)
a = my - b * mx
print(f"fit: {a:.1f} ms + {b * 1000:.1f} us x ranks")
for ranks in (1024, 4096):
    print(f"{ranks} ranks: ~{a + b * ranks:.0f} ms (records {ranks * record / 1e6:.1f} MB at rank 0)")
PY
