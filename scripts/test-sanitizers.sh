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
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=0:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
cd "$dir"
ctest --output-on-failure -j 2 "$@"
