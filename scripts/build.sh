#!/usr/bin/env bash
# Configures and builds scalecheck into build/ (warnings are errors). Re-running is cheap.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${SC_BUILD_DIR:-build}
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSC_WERROR=ON >/dev/null
cmake --build "$build_dir" -j "$(nproc)"
