#!/usr/bin/env bash
# The GPU check, in one call on a machine with a GPU (the device tool: about 6 minutes on one
# H200). Builds the GPU path for sm_90 and checks, each with a pass/fail verdict: the GPU unit
# tests; NCCL `coll` on every collective, type (fp16/bf16 too) and reduction with the data
# check; CUDA graphs (-G); device time against host time at large sizes; the spin kernel's
# accuracy and cuBLAS TF32/BF16/FP16/FP32 throughput; one NVML sample; `run` of a DP workload
# and of the 3D workload (sub-communicators by ncclCommSplit) on the device.
#
# Exit status: 0 when every check passed, 1 when one failed, 2 when the build could not start.
# What comes back: $OUT/summary.txt (the one-screen summary, also printed last) and
# $OUT/device-check.tar.gz (every log, JSON and results directory). Without $OUT both go to
# build-gpu/device-check-out.
#
# Where Open MPI, libyaml, jansson, hwloc or pkg-config are missing (a GPU machine with no
# package registry), run tests/gpu/make-bundle.sh on a Debian 12 machine first and carry
# .gpu-bundle: it is unpacked into a private prefix here and found before the system's.
# NCCL is taken from the CUDA install or from the Python nvidia-nccl package.
# SC_DEVICE_CHECK_BUILD_ONLY=1 stops after the build (the half that needs no GPU).
set -uo pipefail
cd "$(dirname "$0")/../.."
work=build-gpu/device-check
out=${OUT:-build-gpu/device-check-out}
rm -rf "$work" && mkdir -p "$work" "$out"
exec > >(tee "$work/device-check.log") 2>&1
summary=()
status=0

# record NAME VERDICT DETAIL: one summary line; any verdict but ok (FAIL, or the error a
# check's own parsing printed) is a failure and makes the exit status 1.
record() {
    local name=$1 verdict=$2
    [ "$verdict" = ok ] || { verdict=FAIL; status=1; }
    summary+=("$(printf '%-30s %-5s %s' "$name" "$verdict" "$3")")
}
finish() {
    local code=${1:-$status}
    {
        echo "================ device-check summary ================"
        printf '%s\n' "${summary[@]}"
        echo "exit status $code"
    } | tee "$out/summary.txt"
    sleep 0.2 # let tee write the log before it is packed
    tar -czf "$out/device-check.tar.gz" -C build-gpu device-check 2>/dev/null
    exit "$code"
}
# Runs a command with a bound, its output in $work/NAME.log; returns its exit code.
bounded() {
    local name=$1 limit=$2
    shift 2
    timeout --kill-after=10 "$limit" "$@" >"$work/$name.log" 2>&1
}
last_line() { tail -n 1 "$work/$1.log" 2>/dev/null | cut -c1-110; }

# --- 1. dependencies: the system's, else the carried bundle unpacked into a prefix
unpack_deb() { # a .deb into $2, with dpkg where there is one, else with Python (ar + tar)
    if command -v dpkg >/dev/null; then dpkg -x "$1" "$2"; return; fi
    python3 - "$1" "$2" <<'PY'
import io, sys, tarfile
data = open(sys.argv[1], "rb").read()
pos = 8
while pos < len(data):
    name = data[pos:pos + 16].decode().strip().rstrip("/")
    size = int(data[pos + 48:pos + 58].decode().strip())
    if name.startswith("data.tar"):
        tarfile.open(fileobj=io.BytesIO(data[pos + 60:pos + 60 + size])).extractall(sys.argv[2])
    pos += 60 + size + (size & 1)
PY
}
runs() { "$@" >/dev/null 2>&1; } # present and runnable (a file that is there is not enough)
have_system_deps() {
    runs mpicc --showme:version && runs pkg-config --exists yaml-0.1 jansson hwloc
}
cmake_extra=()
if have_system_deps; then
    mpicc_path=$(command -v mpicc) mpirun_path=$(command -v mpirun)
    record "dependencies" ok "system"
else
    if [ ! -d .gpu-bundle ]; then
        record "dependencies" FAIL "missing, and no .gpu-bundle (run tests/gpu/make-bundle.sh)"
        finish 2
    fi
    pfx=${SC_BUNDLE_PREFIX:-/opt/scalecheck-deps}
    rm -rf "$pfx" && mkdir -p "$pfx"
    for deb in .gpu-bundle/*.deb; do unpack_deb "$deb" "$pfx"; done
    lib=$pfx/usr/lib/x86_64-linux-gnu
    # The bundle's .pc files name /usr: point them at the prefix, and search them first
    # (the system's own .pc files stay visible behind them).
    sed -i "s#^\([A-Za-z_]*\)=/usr#\1=$pfx/usr#" "$lib"/pkgconfig/*.pc "$pfx"/usr/share/pkgconfig/*.pc 2>/dev/null
    export PKG_CONFIG_PATH=$lib/pkgconfig:$pfx/usr/share/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
    # Debian puts some headers (hwloc's autogen/config.h) in the multiarch folder the compiler
    # searches by default, which the .pc files do not name: name the bundle's.
    export CPATH=$pfx/usr/include/x86_64-linux-gnu${CPATH:+:$CPATH}
    export OPAL_PREFIX=$pfx/usr PATH=$pfx/usr/bin:$PATH
    export LD_LIBRARY_PATH=$lib:$lib/openmpi/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    runs pkg-config --version || cmake_extra+=(-DPKG_CONFIG_EXECUTABLE="$pfx/usr/bin/pkgconf")
    mpicc_path=$pfx/usr/bin/mpicc.openmpi
    mpirun_path=$pfx/usr/bin/orterun
    record "dependencies" ok "bundle unpacked into $pfx ($(ls .gpu-bundle/*.deb | wc -l) packages)"
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# --- 2. NCCL: the CUDA install's, else the Python package's
nccl_inc="" nccl_lib=""
py_nccl=$(python3 -c 'import nvidia.nccl as n; print(list(n.__path__)[0])' 2>/dev/null)
for d in /usr/local/cuda/include /usr/include ${py_nccl:+"$py_nccl/include"}; do
    if [ -f "$d/nccl.h" ]; then nccl_inc=$d; break; fi
done
for f in /usr/local/cuda/lib64/libnccl.so.2 /usr/local/cuda/lib/libnccl.so.2 \
         /usr/lib/x86_64-linux-gnu/libnccl.so.2 ${py_nccl:+"$py_nccl/lib/libnccl.so.2"}; do
    if [ -f "$f" ]; then nccl_lib=$f; break; fi
done
if [ -z "$nccl_inc" ] || [ -z "$nccl_lib" ]; then
    record "nccl" FAIL "nccl.h or libnccl.so.2 not found"; finish 2
fi
record "nccl" ok "$nccl_lib"
export LD_LIBRARY_PATH=$(dirname "$nccl_lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# --- 3. build for sm_90 (-Werror), configured afresh: a cache from another prefix would
# point at paths that are gone
t0=$(date +%s)
rm -rf build-gpu/CMakeCache.txt build-gpu/CMakeFiles
if cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DSC_WERROR=ON -DSC_CUDA_ARCHS=90 \
       -DMPI_C_COMPILER="$mpicc_path" -DMPIEXEC_EXECUTABLE="$mpirun_path" \
       -DNCCL_INCLUDE_DIR="$nccl_inc" -DNCCL_LIBRARY="$nccl_lib" "${cmake_extra[@]}" \
       >"$work/cmake.log" 2>&1 &&
   cmake --build build-gpu -j "$(nproc)" >"$work/build.log" 2>&1; then
    record "build (sm_90, -Werror)" ok "$(( $(date +%s) - t0 )) s"
else
    tail -n 30 "$work/cmake.log"
    [ -f "$work/build.log" ] && tail -n 30 "$work/build.log"
    record "build" FAIL "see cmake.log / build.log"; finish 1
fi
if ! grep -q 'GPU path ON' "$work/cmake.log"; then
    record "gpu path" FAIL "not built: $(grep 'GPU path' "$work/cmake.log")"; finish 1
fi
[ "${SC_DEVICE_CHECK_BUILD_ONLY:-0}" = 1 ] && finish 0

sc=build-gpu/scalecheck
res=$work/results
run1=("$mpirun_path" -np 1 --bind-to none)
nvidia-smi -L >"$work/nvidia-smi.log" 2>&1 || true
record "gpu" ok "$(head -n 1 "$work/nvidia-smi.log" | cut -c1-100)"

# verdict NAME KIND FILE: records the verdict tests/gpu/device_verdicts.py gives FILE.
verdict() {
    local line
    line=$(python3 tests/gpu/device_verdicts.py "$2" "$3" 2>&1)
    record "$1" "${line%% *}" "${line#* }"
}

# --- 4. GPU unit tests (kernels exact, planted element found, event vs host time)
if bounded gpu-unit 300 build-gpu/tests/test_gpu_kernels; then
    record "gpu unit tests" ok "$(last_line gpu-unit)"
else
    record "gpu unit tests" FAIL "$(last_line gpu-unit)"
fi

# --- 5. every collective x type x reduction, data check on (fp16 and bf16 among the types)
if bounded coll-all 300 "${run1[@]}" $sc coll --backend nccl --collective all -d all -o all -b 8 -e 16M \
        -f 16 -n 10 -w 2 -c 2 --telemetry 0.5 --json "$work/coll-all.json" --results-dir "$res"; then
    verdict "coll all x all x all" coll "$work/coll-all.json"
else
    record "coll all x all x all" FAIL "exit $?: $(last_line coll-all)"
fi

# --- 6. device time vs host time: out-of-place rows long enough to time (with one rank, NCCL's
# in-place collectives do no device work); within 5 %.
if bounded coll-large 300 "${run1[@]}" $sc coll --backend nccl -b 512M -e 2G -f 2 -n 20 -c 0 \
        --json "$work/coll-large.json" --results-dir "$res"; then
    verdict "event vs host (512M..2G)" timing "$work/coll-large.json"
else
    record "event vs host (512M..2G)" FAIL "exit $?: $(last_line coll-large)"
fi

# --- 7. CUDA graphs: 10 operations per graph, data checked
if bounded coll-graph 300 "${run1[@]}" $sc coll --backend nccl -b 8 -e 1M -f 32 -n 20 -G 10 -c 1 \
        --json "$work/coll-graph.json" --results-dir "$res"; then
    verdict "cuda graphs (-G 10)" coll "$work/coll-graph.json"
else
    record "cuda graphs (-G 10)" FAIL "exit $?: $(last_line coll-graph)"
fi

# --- 8. compute phase: the spin within 2 % of what was asked; cuBLAS throughput per type
if bounded spin 120 "${run1[@]}" $sc compute --backend nccl --mode spin --time-us 1000 -n 20 \
        --json "$work/spin.json"; then
    verdict "spin 1000 us" spin "$work/spin.json"
else
    record "spin 1000 us" FAIL "exit $?: $(last_line spin)"
fi
for t in tf32 bf16 fp16 fp32; do
    if bounded "gemm-$t" 120 "${run1[@]}" $sc compute --backend nccl --mode gemm -d $t --size 8192 -n 20 \
            --json "$work/gemm-$t.json"; then
        verdict "gemm $t 8192^3" gemm "$work/gemm-$t.json"
    else
        record "gemm $t 8192^3" FAIL "exit $?: $(last_line "gemm-$t")"
    fi
done

# --- 9. one NVML sample
if timeout 60 "${run1[@]}" $sc telemetry >"$work/telemetry.json" 2>"$work/telemetry.log"; then
    verdict "nvml sample" nvml "$work/telemetry.json"
else
    record "nvml sample" FAIL "exit $?: $(last_line telemetry)"
fi

# --- 10. training steps on the device: DP, and the 3D workload at tp=pp=1 (one GPU: its
# TP/PP/DP groups are still made by ncclCommSplit, the path a multi-GPU 3D run takes)
for w in bert-large-dp gpt3-13b-3d; do
    extra=()
    [ $w = gpt3-13b-3d ] && extra=(--tp 1 --pp 1)
    bounded "run-$w" 300 "${run1[@]}" $sc run --backend nccl --workload workloads/$w.yaml --scales 1 \
        -n 5 -w 1 "${extra[@]}" --json "$work/run-$w.json" --results-dir "$res"
    code=$?
    if [ $code -le 1 ] && [ -f "$work/run-$w.json" ]; then
        verdict "run $w (exit $code)" run "$work/run-$w.json"
    else
        record "run $w" FAIL "exit $code: $(last_line "run-$w")"
    fi
done
finish
