#!/usr/bin/env bash
# The main job: install what is missing, build, and run a collective sweep of every collective
# on this machine's ranks. Extra arguments go to `scalecheck coll`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh >/dev/null
ranks=${SC_RANKS:-$(nproc)}
[ "$ranks" -ge 2 ] || ranks=2
# Open MPI refuses root without these; --oversubscribe allows more ranks than cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
exec mpirun -np "$ranks" --oversubscribe --bind-to none build/scalecheck coll \
    --collective all -b 8 -e 16M -f 4 -n 20 -w 5 -c 1 "$@"
