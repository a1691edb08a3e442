#!/usr/bin/env bash
# The main job: install what is missing, build, and run the acceptance run on this machine.
# On a GPU server (NVML sees NVIDIA GPUs, or sysfs AMD Instinct ones): `scalecheck node` (inside
# the server), then one rank per GPU over the GPUs' library (NCCL, RCCL), the shipped topology that
# describes the server chosen by `detect --pick` (or, where none does, the detected one,
# calibrated), BERT-large's real step on 1..N GPUs and an all-reduce sweep, the verdict.
# Elsewhere: detect what is here -> calibrate this host (measured paths, in the run's own launch) -> the
# default workload's 1..N-rank scaling curve and an all-reduce sweep held to the calibrated
# localhost topology (tolerance 0.2) -> verdict (exit 1 on FAIL) -> report. Extra arguments go to
# `scalecheck run` (e.g. --workload workloads/resnet50-dp.yaml). SC_PREBUILT=DIR runs DIR's
# build as it is and installs and builds nothing (a GPU machine with no package registry, where
# tests/gpu/device-check.sh built the GPU path).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${SC_PREBUILT:-}" ]; then
    sc=$SC_PREBUILT/scalecheck
else
    scripts/install-deps.sh
    scripts/build.sh --main >/dev/null
    sc=build/scalecheck
fi
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
# Without /sys (a container or chroot without it) nothing can see the CPUs: MPI cannot bind, and
# its hwloc says so once per process. Said once here; the verdicts carry it as a disturbance.
if [ ! -d /sys/devices/system/cpu ]; then
    echo "acceptance: this machine has no /sys (mount -t sysfs sysfs /sys): ranks run unbound," \
        "and a FAIL beside that is INCONCLUSIVE" >&2
    bind=none
    export HWLOC_HIDE_ERRORS=1
fi
# Ranks write to a pty under mpirun and cannot tell where mpirun's output goes: they colour
# only when told (CLICOLOR_FORCE), which they are when this script's output is a terminal and
# NO_COLOR is not set (no-color.org).
colour=0
[ -t 1 ] && [ -z "${NO_COLOR:-}" ] && colour=1 && export CLICOLOR_FORCE=1
# mpi: the host path's launch; mpi1: one rank; mpig: the GPU path's, -np given after (a rank per
# GPU, unbound: NCCL places its threads by the GPU's NUMA node itself)
# (the version is read whole first: grep -q would end the pipe early and, under pipefail, a
# SIGPIPE to mpirun (141) would read as "not MPICH")
mpi_version=$(mpirun --version 2>&1 || true)
if [[ ${mpi_version,,} == *hydra* ]]; then
    # MPICH's mpirun (hydra): its own spelling; it passes the environment whole and places more
    # ranks than cores freely
    mpi=(mpirun -n "$ranks" -bind-to "$bind")
    mpi1=(mpirun -n 1)
    mpig=(mpirun -bind-to none)
else
    mpi=(mpirun -np "$ranks" --oversubscribe --bind-to "$bind")
    mpi1=(mpirun -np 1)
    mpig=(mpirun --oversubscribe --bind-to none)
    [ "$colour" = 1 ] && mpi+=(-x CLICOLOR_FORCE) && mpig+=(-x CLICOLOR_FORCE)
fi
mkdir -p results
# Open MPI's boxed notices that a rank "returned a non-zero exit code" say again what the verdict
# and the exit code already said (1 a check failed, 5 inconclusive): left out; every other line,
# its other notices included, passes
quiet_mpi() {
    awk '/^--------------------+$/ { if (box) { if (keep) printf "%s%s\n", held, $0; box = 0; next }
                              box = 1; keep = 1; held = $0 "\n"; next }
         box { held = held $0 "\n"
               if ($0 ~ /non-zero (exit code|status)|exited with non-zero/) keep = 0; next }
         { print; fflush() }
         END { if (box && keep) printf "%s", held }'
}
# What this host is: a GPU server runs its GPUs' library (NCCL, RCCL: detect says which) with one
# rank per GPU, held to the shipped topology that describes it; any other host runs the host path
# below.
# (its files are what is wanted: the run below prints what was detected, once)
"${mpi1[@]}" "$sc" detect --output results/detected-topology.yaml \
    --pick results/detected.env >/dev/null
# shellcheck disable=SC1091
. results/detected.env
if [ "${SC_DETECTED_GPUS:-0}" -gt 0 ]; then
    gpus=${SC_RANKS:-$SC_DETECTED_GPUS}
    lib=${SC_DETECTED_LIBRARY:-nccl}
    if [ -n "$SC_TOPOLOGY" ]; then
        echo "# GPU host: $SC_DETECTED_GPUS x $SC_DETECTED_GPU; ${lib^^}, one rank per GPU; held to $SC_TOPOLOGY"
        echo "#   because $SC_TOPOLOGY_WHY"
        topo=(--topology "$SC_TOPOLOGY")
    else
        # no shipped file describes it: what detect found, calibrated in the run's own launch
        echo "# GPU host: $SC_DETECTED_GPUS x $SC_DETECTED_GPU; ${lib^^}, one rank per GPU; $SC_TOPOLOGY_WHY:"
        echo "#   held to the detected topology, calibrated here"
        topo=(--topology results/detected-topology.yaml --calibrate)
    fi
    # Inside the server first (`scalecheck node`: PCIe links, each rank's NUMA place, host
    # memory, the GPUs' copies - host to each and back, within each, every pair), a verdict of
    # its own, in the run's results folder when one is given
    node_dir=()
    prev=
    for arg in "$@"; do
        [ "$prev" = --results-dir ] && node_dir=(--results-dir "$arg")
        prev=$arg
    done
    node_rc=0
    "${mpig[@]}" -np "$gpus" "$sc" node --backend "$lib" -T 120 "${node_dir[@]}" \
        2> >(quiet_mpi >&2) || node_rc=$?
    # BERT-large's real step (its 1.3 GB of gradients), 1..N GPUs, and an all-reduce sweep to 1G;
    # the job's exit code is the run's, or node's where the run's is 0
    run_rc=0
    "${mpig[@]}" -np "$gpus" "$sc" run --backend "$lib" \
        --workload workloads/bert-large-dp.yaml "${topo[@]}" --sweep-max 1G -n 20 -w 5 -T 120 "$@" \
        2> >(quiet_mpi >&2) || run_rc=$?
    exit $((run_rc != 0 ? run_rc : node_rc))
fi
"${mpi[@]}" "$sc" detect --output results/detected-topology.yaml \
    --topology topologies/localhost.yaml
# A real model's messages and compute shrunk 100x: a 2-core host runs BERT-large's step.
exec "${mpi[@]}" "$sc" run --workload workloads/bert-large-dp.yaml \
    --topology topologies/localhost.yaml --calibrate --sweep-max 16M \
    --bytes-scale 0.01 --compute-scale 0.01 -n 10 -w 2 "$@" 2> >(quiet_mpi >&2)
