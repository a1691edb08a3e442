#!/usr/bin/env bash
# The GPU check, in one call on a machine with a GPU (the device tool: about 5 minutes on one
# H200). Builds the GPU path for sm_90, runs the GPU unit tests, a 1-rank `coll` sweep with the
# data check on every collective, type and reduction, the event-vs-host timing check, CUDA
# graphs, the compute phase (spin accuracy, cuBLAS TF32/BF16 TFLOP/s) and one NVML sample, and
# prints a summary table last.
#
# Where Open MPI, libyaml or jansson are missing (the GPU machine has no package registry),
# run tests/gpu/make-bundle.sh here first and carry .gpu-bundle: this script unpacks it into a
# private prefix. NCCL is taken from the CUDA install or from the Python nvidia-nccl package.
# Results go to $OUT (the device tool's folder) or build-gpu/device-check.
# SC_DEVICE_CHECK_BUILD_ONLY=1 stops after the build (to test this script without a GPU).
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-build-gpu/device-check}
mkdir -p "$out"
log=$out/device-check.log
exec > >(tee "$log") 2>&1
summary=()
note() { summary+=("$(printf '%-34s %s' "$1" "$2")"); }
finish() {
    echo; echo "================ device-check summary ================"
    printf '%s\n' "${summary[@]}"
    exit "${1:-0}"
}

# --- 1. dependencies: unpack the carried bundle into a prefix when the host lacks them
if ! command -v mpicc >/dev/null || ! pkg-config --exists yaml-0.1 jansson 2>/dev/null; then
    if [ ! -d .gpu-bundle ]; then
        echo "no Open MPI/libyaml/jansson here and no .gpu-bundle: run tests/gpu/make-bundle.sh"
        note "dependencies" "MISSING (no .gpu-bundle)"; finish 2
    fi
    pfx=${SC_BUNDLE_PREFIX:-/opt/scalecheck-deps}
    mkdir -p "$pfx"
    for deb in .gpu-bundle/*.deb; do dpkg -x "$deb" "$pfx"; done
    lib=$pfx/usr/lib/x86_64-linux-gnu
    export OPAL_PREFIX=$pfx/usr PATH=$pfx/usr/bin:$PATH
    export LD_LIBRARY_PATH=$lib:$lib/openmpi/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    export PKG_CONFIG_SYSROOT_DIR=$pfx PKG_CONFIG_LIBDIR=$lib/pkgconfig:$pfx/usr/share/pkgconfig
    mpicc_path=$pfx/usr/bin/mpicc.openmpi
    mpirun_path=$pfx/usr/bin/orterun
    note "dependencies" "bundle unpacked into $pfx"
else
    mpicc_path=$(command -v mpicc); mpirun_path=$(command -v mpirun)
    note "dependencies" "system"
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# --- 2. NCCL: the CUDA install's, else the Python package's
nccl_inc="" nccl_lib=""
for d in /usr/local/cuda/include /usr/include \
         $(python3 -c 'import nvidia.nccl, os; print(os.path.dirname(nvidia.nccl.__file__ or list(nvidia.nccl.__path__)[0]) + "/include")' 2>/dev/null) \
         $(python3 -c 'import nvidia.nccl; print(list(nvidia.nccl.__path__)[0] + "/include")' 2>/dev/null); do
    if [ -f "$d/nccl.h" ]; then nccl_inc=$d; break; fi
done
for f in /usr/local/cuda/lib64/libnccl.so.2 /usr/local/cuda/lib/libnccl.so.2 \
         /usr/lib/x86_64-linux-gnu/libnccl.so.2 "${nccl_inc%/include}/lib/libnccl.so.2"; do
    if [ -f "$f" ]; then nccl_lib=$f; break; fi
done
note "nccl" "${nccl_inc:-not found} ${nccl_lib:-}"
[ -n "$nccl_inc" ] && [ -n "$nccl_lib" ] || finish 2
export LD_LIBRARY_PATH=$(dirname "$nccl_lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# --- 3. build for sm_90
t0=$(date +%s)
if cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DSC_WERROR=ON -DSC_CUDA_ARCHS=90 \
       -DMPI_C_COMPILER="$mpicc_path" -DMPIEXEC_EXECUTABLE="$mpirun_path" \
       -DNCCL_INCLUDE_DIR="$nccl_inc" -DNCCL_LIBRARY="$nccl_lib" >"$out/cmake.log" 2>&1 &&
   cmake --build build-gpu -j "$(nproc)" >"$out/build.log" 2>&1; then
    note "build (sm_90, -Werror)" "ok in $(( $(date +%s) - t0 )) s"
else
    tail -30 "$out/cmake.log" "$out/build.log"; note "build" "FAILED"; finish 1
fi
grep -q 'GPU path ON' "$out/cmake.log" || { note "gpu path" "NOT BUILT"; finish 1; }
[ "${SC_DEVICE_CHECK_BUILD_ONLY:-0}" = 1 ] && finish 0

sc=build-gpu/scalecheck
run1() { "$mpirun_path" -np 1 --bind-to none "$@"; }
nvidia-smi -L || true
status=0

# --- 4. GPU unit tests (kernels exact, planted element found, event vs host time)
if build-gpu/test_gpu_kernels > "$out/gpu-unit.log" 2>&1; then
    note "gpu unit tests" "$(tail -1 "$out/gpu-unit.log")"
else
    note "gpu unit tests" "FAILED: $(tail -1 "$out/gpu-unit.log")"; status=1
fi

# --- 5. 1-rank sweep: every collective, type and reduction, data check on
if run1 $sc coll --backend nccl --collective all -d all -o all -b 8 -e 16M -f 16 -n 10 -w 2 \
        -c 2 --telemetry 0.5 --json "$out/coll.json" --results-dir "$out/results" \
        > "$out/coll.log" 2>&1; then
    note "coll sweep (all x all x all)" "$(grep 'Out of bounds' "$out/coll.log")"
else
    note "coll sweep" "FAILED (exit $?): $(tail -2 "$out/coll.log" | head -1)"; status=1
fi

# --- 6. event time vs host time at large sizes (within 5 %), and CUDA graphs
run1 $sc coll --backend nccl -b 64M -e 256M -f 2 -n 20 -c 0 --json "$out/large.json" \
    --results-dir "$out/results" > "$out/large.log" 2>&1
note "event vs host (64M..256M)" "$(python3 - "$out/large.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["results"]
worst = max(abs(r["host_time_us"] - r["time_us"]) / r["host_time_us"] for r in rows)
print(f"worst difference {worst*100:.2f} % ({'ok' if worst < 0.05 else 'FAIL'})")
PY
)"
run1 $sc coll --backend nccl -b 8 -e 1M -f 32 -n 20 -G 10 -c 1 --json "$out/graph.json" \
    --results-dir "$out/results" > "$out/graph.log" 2>&1 &&
    note "cuda graphs (-G 10)" "$(grep 'Out of bounds' "$out/graph.log")" ||
    { note "cuda graphs (-G 10)" "FAILED"; status=1; }

# --- 7. compute phase: spin accuracy and cuBLAS throughput
run1 $sc compute --backend nccl --mode spin --time-us 1000 -n 20 --json "$out/spin.json" \
    > "$out/spin.log" 2>&1
note "spin 1000 us" "$(tail -1 "$out/spin.log")"
for t in tf32 bf16 fp16 fp32; do
    run1 $sc compute --backend nccl --mode gemm -d $t --size 8192 -n 20 \
        --json "$out/gemm-$t.json" > "$out/gemm-$t.log" 2>&1
    note "gemm $t 8192^3" "$(tail -1 "$out/gemm-$t.log")"
done

# --- 8. one NVML sample
run1 $sc telemetry > "$out/telemetry.json" 2> "$out/telemetry.err"
note "nvml sample" "$(python3 -c '
import json,sys; h=json.load(open(sys.argv[1]))[0]
g=(h.get("gpus") or [{}])[0]; s=(g.get("samples") or [{}])[0]
print("unavailable: "+h.get("reason","") if not h["available"] else
      f"{g.get(\"name\")} {s.get(\"temp_c\")} C {s.get(\"power_w\")} W SM {s.get(\"sm_mhz\")} MHz ECC-unc {s.get(\"ecc_uncorrected\")} NVLinks up {s.get(\"nvlinks_up\")}")' "$out/telemetry.json" 2>&1)"
finish $status
