#!/usr/bin/env bash
# The test suite once more under AddressSanitizer and UndefinedBehaviorSanitizer (host path;
# the GPU path is compiled and checked by the normal build). Leak checking is off: Open MPI
# keeps allocations until exit by design.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=build-asan
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Debug -DSC_ENABLE_GPU=OFF -DSC_WERROR=ON \
    -DCMAKE_C_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer" \
    >/dev/null
cmake --build "$dir" -j "$(nproc)" >/dev/null
# A sanitizer report exits 86, a code of its own: 1 means "a check failed" to scalecheck, and a
# test that expects 1 must not pass over a memory error.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=0:halt_on_error=1:exitcode=86
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=86
cd "$dir"
# A representative subset (CI runs this after the whole suite): every unit and integration test
# but the long multi-host ones whose code paths shorter tests run too: 20 healthy runs in a row,
# the shaped hosts and the strategies on 8 and 16 hosts (pairs-local runs bisect, the unit tests
# every schedule and the switch map; vcluster-healthy, -cut, -soak the multi-host pairs), the
# Slurm, calibrated and curve clusters, the killed-and-resumed 60-second soak (the degraded soak
# runs the same loop, the unit test the journal read back), the .deb (install-prefix installs the
# same files), and ReFrame's run (it holds a sanitized, slower build to this host's topology; the
# nccl-tests test runs the same sweep and files).
# Arguments replace the subset (e.g. -R unit- ; or -E '^$' for everything).
if [ $# -eq 0 ]; then
    set -- -E '^(vcluster-(repeat|shaped|strategies|strategies16|slurm|calibrated|curve)|soak-resumed|install-deb|packaging-reframe)$'
fi
ctest --output-on-failure -j 2 "$@"
