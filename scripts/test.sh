#!/usr/bin/env bash
# The whole test suite: install what is missing, build, run every ctest test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --test
scripts/build.sh
cd build
ctest --output-on-failure -j 2 "$@"
