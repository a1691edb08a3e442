#!/usr/bin/env bash
# Configures and builds scalecheck into build/ (warnings are errors). Re-running is cheap.
# --main: the program and its GPU module only (no tests, fakes or benchmarks: what the main job
# runs, with no python3 needed); otherwise the developer's build with the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${SC_BUILD_DIR:-build}
testing=ON
[ "${1:-}" = "--main" ] && testing=OFF
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSC_WERROR=ON \
    -DBUILD_TESTING="$testing" >/dev/null
cmake --build "$build_dir" -j "$(nproc)"
