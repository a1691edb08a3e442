#!/usr/bin/env bash
# The main job on a GPU machine, in one device call after (or instead of) the device check:
# builds the GPU path with device-check.sh's build half (the system's packages or the carried
# .gpu-bundle), runs scripts/acceptance.sh's GPU branch on that build (SC_PREBUILT: nothing
# installed, nothing built), then starts one rank more than the GPUs, which must be refused with
# exit 2 and the two ranks named (not a hang, not NCCL's own abort). Extra arguments go to the
# acceptance run. What comes back: $OUT/main-job.txt (the verdicts), the logs, and the results
# folder packed as $OUT/main-job.tar.gz. Exit 0 when both checks passed, 1 when one failed.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-build-gpu/main-job-out}
mkdir -p "$out"
status=0
say() { echo "[main-job] $*" | tee -a "$out/main-job.txt"; }

if ! OUT=$out/build SC_DEVICE_CHECK_BUILD_ONLY=1 tests/gpu/device-check.sh >"$out/build.log" 2>&1; then
    tail -n 20 "$out/build.log"
    say "build FAIL"
    exit 1
fi
. build-gpu/device-env.sh
sc=build-gpu/scalecheck
rm -rf results/detected.env

# 1. the main job, as a user on this server would run it
start=$(date +%s)
timeout -k 5 300 env SC_PREBUILT=build-gpu scripts/acceptance.sh "$@" >"$out/acceptance.log" 2>&1
code=$?
verdict=$(grep -m1 -o -E '^# verdict: [A-Z]+' "$out/acceptance.log")
if [ $code -le 1 ] && [ -n "$verdict" ]; then
    say "acceptance ok exit $code, $verdict, $(( $(date +%s) - start )) s"
else
    say "acceptance FAIL exit $code: $(tail -n 3 "$out/acceptance.log" | tr '\n' ' ' | cut -c1-300)"
    status=1
fi

# 2. one rank more than this host's GPUs: a clear refusal
gpus=$(sed -n 's/^SC_DETECTED_GPUS=//p' results/detected.env 2>/dev/null | tr -d "'\"")
if [ -n "$gpus" ] && [ "$gpus" -gt 0 ]; then
    np=$((gpus + 1))
    timeout -k 5 90 mpirun -np "$np" --oversubscribe --bind-to none "$sc" coll --backend nccl \
        -b 8 -e 1K -n 2 -w 1 -T 60 >"$out/oversubscribed.log" 2>&1
    code=$?
    if [ $code = 2 ] && grep -q 'both use GPU' "$out/oversubscribed.log"; then
        say "ranks > GPUs ok exit 2: $(grep -m1 '^scalecheck' "$out/oversubscribed.log" | cut -c1-200)"
    else
        say "ranks > GPUs FAIL exit $code: $(tail -n 3 "$out/oversubscribed.log" | tr '\n' ' ' | cut -c1-300)"
        status=1
    fi
else
    say "ranks > GPUs FAIL: detect found no GPU (results/detected.env)"
    status=1
fi
tar -czf "$out/main-job.tar.gz" results "$out"/*.log 2>/dev/null
say "exit $status"
exit $status
