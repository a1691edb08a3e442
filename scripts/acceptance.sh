#!/usr/bin/env bash
# The main job: install what is missing, build, and run the acceptance run on this machine:
# detect what is here -> calibrate this host (measured paths, in the run's own launch) -> the
# default workload's 1..N-rank scaling curve and an all-reduce sweep held to the calibrated
# localhost topology (tolerance 0.2) -> verdict (exit 1 on FAIL) -> report. Extra arguments go to
# `scalecheck run` (e.g. --workload workloads/resnet50-dp.yaml).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh >/dev/null
ranks=${SC_RANKS:-$(nproc)}
[ "$ranks" -ge 2 ] || ranks=2
# Open MPI refuses root without these; --oversubscribe allows more ranks than cores. Whichever
# MPI is the machine's (mpirun on PATH: Open MPI or MPICH) starts the ranks.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# One rank per core when they fit: unbound, two spinning ranks that the kernel leaves on one core
# run 2-4x slower for the rest of the run (a third of unbound runs here), which is the host
# misplacing its ranks, not the host being slow.
bind=none
[ "$ranks" -le "$(nproc)" ] && bind=core
# Ranks write to a pty under mpirun, so they would colour even into a file: not unless we are
# on a terminal ourselves (no-color.org).
[ -t 1 ] || export NO_COLOR=1
if mpirun --version 2>&1 | grep -qi hydra; then
    # MPICH's mpirun (hydra): its own spelling; it passes the environment whole and places more
    # ranks than cores freely
    mpi=(mpirun -n "$ranks" -bind-to "$bind")
else
    mpi=(mpirun -np "$ranks" --oversubscribe --bind-to "$bind")
    [ -t 1 ] || mpi+=(-x NO_COLOR)
fi
mkdir -p results
"${mpi[@]}" build/scalecheck detect --output results/detected-topology.yaml \
    --topology topologies/localhost.yaml
# A real model's messages and compute shrunk 100x: a 2-core host runs BERT-large's step.
exec "${mpi[@]}" build/scalecheck run --workload workloads/bert-large-dp.yaml \
    --topology topologies/localhost.yaml --calibrate --sweep-max 16M \
    --bytes-scale 0.01 --compute-scale 0.01 -n 10 -w 2 "$@"
