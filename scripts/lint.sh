#!/usr/bin/env bash
# Style gates CI applies: clang-format (the repo's .clang-format) and cppcheck, no findings.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t sources < <(git ls-files 'harness/*.c' 'harness/*.h' 'harness/*.cu' 'tests/*.c' 'tests/*.h' 'bench/*.c')
clang-format --dry-run -Werror "${sources[@]}"
cppcheck --quiet --error-exitcode=1 --enable=warning,style,performance,portability --std=c11 \
    -I harness -I build/generated --suppress=missingIncludeSystem --inline-suppr \
    harness bench tests/unit
echo "lint: clean (${#sources[@]} files)"
