#!/usr/bin/env bash
# The program built against MPICH (build-mpich/, -Werror, the host path) and the tests that do
# not need Open MPI's own launcher features run under MPICH's mpiexec, through launch/mpirun.sh
# as docs/install.md says MPICH users start it (hydra with -disable-auto-cleanup; the README's exit
# codes). Left out, with the reason: the virtual cluster and Slurm (launch/vcluster drives Open
# MPI's rsh agent and --mca flags); in the fault matrix, a rank killed outright (hydra's proxy
# goes down with it and kills the other ranks before they write the final state: exit 3, state
# left "running"; test_faults.py skips it); ReFrame (its mpirun launcher here is Open MPI's);
# and the long runs the Open MPI suite has already run (4 and 8 ranks, every workload: MPICH's
# ranks poll for their peers and take minutes on two shared cores); and, for CI's 30 minutes,
# nccl-tests' output and every command's refusals with nothing on disk (84 s and 43 s here: code
# that runs the same on either MPI, run by the whole suite and under the sanitizers - coll's and
# run's refusals stay, as coll-bad-flags and run-refusals). MPICH 4.0's wrong uint8
# MIN/MAX is expected there (test_coll_matrix.py: found, named as the library's, exit 1).
# MPICH is installed beside Open MPI by `install-deps.sh --test` (libmpich-dev); the machine's
# MPI selection is not changed.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x /usr/bin/mpicc.mpich ]; then
    echo "test-mpich: SKIP: MPICH is not installed (libmpich-dev)"
    exit 0
fi
dir=build-mpich
cmake -S . -B "$dir" -DMPI_C_COMPILER=/usr/bin/mpicc.mpich -DSC_WERROR=ON -DSC_ENABLE_GPU=OFF \
    >/dev/null
cmake --build "$dir" -j "$(nproc)" >/dev/null
cd "$dir"
if [ $# -eq 0 ]; then
    set -- -R '^(unit-.*|layers|compare|readme-table|packaging-(spack|container|k8s)|coll-matrix-np[12]|coll-bad-flags|coll-auto-iters|coll-wrong-data|version|compute-host|run-refusals|pairs-local|plan|model-cmd|judge|yaml-malformed|soak-degraded|soak-refused|metrics|install-prefix|telemetry|coll-timeout|faults)$'
fi
ctest --output-on-failure -j 2 "$@"
