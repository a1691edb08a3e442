#!/usr/bin/env bash
# The test suite once more under AddressSanitizer and UndefinedBehaviorSanitizer - the host path,
# and the GPU path on the emulated device (tests/fakes) where the CUDA toolkit is installed -
# then the GPU path's threads (streams, the callback thread, NCCL's init and split, the
# watchdog and its aborts) under ThreadSanitizer. Leak checking is off: Open MPI keeps
# allocations until exit by design.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=build-asan
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Debug -DSC_WERROR=ON \
    -DCMAKE_C_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer" \
    >/dev/null
cmake --build "$dir" -j "$(nproc)" >/dev/null
# A sanitizer report exits 86, a code of its own: 1 means "a check failed" to scalecheck, and a
# test that expects 1 must not pass over a memory error.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=0:halt_on_error=1:exitcode=86
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=86
cd "$dir"
# A representative subset (CI runs this after the whole suite, whose every test must pass
# first; timing held to figures - the host path's straggler - stays with the whole suite: the
# sanitizers change what takes long): the unit tests, every command's refusals and error paths (exit 2, nothing on disk;
# malformed YAML), the collectives on 2 and 3 ranks with wrong data and timeouts, the workloads,
# pairs with bisect, judge, report, compare, health, telemetry, metrics and
# the soak's degraded run; the ending paths once: coll under every fault (killed, stopped,
# SIGTERM, a full disk). Left to the whole suite: the link cut on the virtual cluster (its C is
# the watchdog `faults` covers here; beside the other tests under ASan its 4-rank coll did not
# end within the test's 120 s bound in 3 of 4 runs, alone it passes in 57 s), 1, 4 and 8 ranks
# (the same code on more peers), the other vcluster modes, install
# and packaging (files and recipes, no new C paths), calibrate and baseline (their C has unit
# tests here: test_calibrate, test_baseline), and nccl-tests' output (79 s here, mostly mpirun
# starting: its readers are fuzzed under ASan, its output checked by the whole suite).
# The GPU path on the emulated device: every mode but the ones that only repeat it at more
# ranks (coll4, coll8), the main job and the device check (scripts that run these same
# commands), `run` (138 s under ASan, CI's 45 minutes: ThreadSanitizer runs it below, and
# its steps' memory paths are the host path's `run-workloads` and `run-refusals` here) and `node`
# (198 s: its 8 ranks repeat the copies `coverage` runs on one rank with two devices, and the
# drive and verdicts the host path's `node` runs here).
gpu_subset='gpu-emulated-(coll2|wrong|graph|blocking|old-nccl|register|choices|straggler|concurrent|hang|async-error|refused|pairs|compute|coverage|amd-coll2|amd-wrong|ascend-wrong|ascend-async-error)'
# Arguments replace the subset (e.g. -R unit- ; or -E '^$' for everything).
if [ $# -eq 0 ]; then
    export SC_FAULT_COMMANDS=${SC_FAULT_COMMANDS:-coll}
    set -- -R "^(unit-.*|layers|coll-matrix-np[23]|coll-(timeout|bad-flags|auto-iters|results-dir|wrong-data)|version|telemetry|run-(workloads|refusals)|model-(cmd|calibration|published)|detect|yaml-malformed|pairs-local|exit2-nothing-on-disk|plan|judge|judge-formats|device-verdicts|metrics|health|compare|soak-(degraded|refused)|verdict-report|faults|node|vcluster-healthy|$gpu_subset)\$"
    tsan=1
fi
ctest --output-on-failure -j 2 "$@"
cd ..
if [ "${tsan:-0}" = 1 ] && grep -q '#define SC_HAVE_NCCL 1' "$dir/generated/sc_config.h"; then
    # ThreadSanitizer on the threads of the GPU path (the split wait's unit test, and the
    # emulated device's modes whose threads differ: faults, graphs, launch blocking, splits,
    # pairs, soak), and on baseline create's readers (runs read side by side into one store). UCX's memory hooks crash under TSan at thread exit: off. Open MPI's own
    # locking is suppressed (tests/tsan.supp says what and why).
    tdir=build-tsan
    cmake -S . -B "$tdir" -DCMAKE_BUILD_TYPE=Debug -DSC_WERROR=ON \
        -DCMAKE_C_FLAGS="-fsanitize=thread -fno-omit-frame-pointer" >/dev/null
    cmake --build "$tdir" -j "$(nproc)" >/dev/null
    export UCX_MEM_MMAP_HOOK_MODE=none UCX_MEM_MALLOC_HOOKS=no
    export SC_SANITIZER=thread # the emulated run's lighter variant (test_gpu_emulated.py)
    export TSAN_OPTIONS="halt_on_error=1:exitcode=86:detect_deadlocks=0:report_signal_unsafe=0:suppressions=$PWD/tests/tsan.supp"
    (cd "$tdir" && ctest --output-on-failure -j 2 -R \
        '^(unit-test_async|baseline|gpu-emulated-(wrong|graph|blocking|old-nccl|choices|straggler|concurrent|hang|async-error|refused|run|pairs|soak|compute|amd-hang|amd-wrong|ascend-hang))$')
fi
