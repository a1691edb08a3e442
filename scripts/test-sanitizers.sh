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
ctest --output-on-failure -j 2 "$@"
