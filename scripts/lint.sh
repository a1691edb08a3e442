#!/usr/bin/env bash
# Style gates CI applies: clang-format (the repo's .clang-format) and cppcheck, no findings.
# Nothing here reads the build tree (CI lints before it builds): cppcheck, without the generated
# sc_config.h, checks every configuration of its #if SC_HAVE_* blocks. The Ascend adapter's structs
# complete NCCL's and cuBLAS's handle types, and DCMI's mirror the library's layout (every field,
# read or not): cppcheck takes their members for unused (as in the fakes below).
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t sources < <(git ls-files 'harness/*.c' 'harness/*.h' 'harness/*.cu' 'tests/*.c' 'tests/*.h' 'bench/*.c')
clang-format --dry-run -Werror "${sources[@]}"
cppcheck --quiet --error-exitcode=1 --enable=warning,style,performance,portability --std=c11 \
    -I harness --suppress=missingIncludeSystem --suppress=toomanyconfigs --inline-suppr \
    --suppress=unusedStructMember:harness/comm/ascend/sc_ascend_hccl.c \
    --suppress=unusedStructMember:harness/comm/ascend/sc_ascend_rt.c \
    --suppress=unusedStructMember:harness/telemetry/sc_dcmi.c harness bench tests/unit
# The emulated device, against the CUDA headers it implements (their own findings are NVIDIA's).
# cppcheck takes the opaque structs that complete CUDA's and NCCL's handle types (and a
# _Thread_local struct) for unused: those findings are its misreading.
if [ -d /usr/local/cuda/include ]; then
    cppcheck --quiet --error-exitcode=1 --enable=warning,style,performance,portability --std=c11 \
        -I harness -I /usr/local/cuda/include --suppress=missingIncludeSystem \
        --suppress='*:/usr/local/cuda/*' --suppress=unusedStructMember --suppress=toomanyconfigs \
        --inline-suppr tests/fakes
fi
echo "lint: clean (${#sources[@]} files)"
