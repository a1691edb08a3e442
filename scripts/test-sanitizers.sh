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
# A representative subset (CI runs this after the whole suite, whose every test must pass
# first): the unit tests, every command's refusals and error paths (exit 2, nothing on disk;
# malformed YAML), the collectives on 2 and 3 ranks with wrong data and timeouts, the workloads,
# pairs with bisect, judge, report, compare, nccl-tests' output, health, telemetry, metrics and
# the soak's degraded run; the ending paths once: coll under every fault (killed, stopped,
# SIGTERM, a full disk) and a link cut on the virtual cluster in coll, run and pairs. Left to the
# whole suite: 1, 4 and 8 ranks (the same code on more peers), the other vcluster modes, install
# and packaging (files and recipes, no new C paths), calibrate and baseline (their C has unit
# tests here: test_calibrate, test_baseline).
# Arguments replace the subset (e.g. -R unit- ; or -E '^$' for everything).
if [ $# -eq 0 ]; then
    export SC_FAULT_COMMANDS=${SC_FAULT_COMMANDS:-coll}
    set -- -R '^(unit-.*|layers|coll-matrix-np[23]|coll-(timeout|bad-flags|auto-iters|results-dir|wrong-data)|version|telemetry|run-(workloads|refusals)|model-(cmd|calibration)|detect|yaml-malformed|pairs-local|exit2-nothing-on-disk|plan|judge|device-verdicts|metrics|health|nccl-tests|compare|soak-(degraded|refused)|verdict-report|faults|vcluster-(healthy|cut))$'
fi
ctest --output-on-failure -j 2 "$@"
