#!/usr/bin/env bash
# The GPU check, in one call on a machine with a GPU (the device tool; about 5 minutes on one
# H200 by the estimates below). Builds the GPU path for sm_90 and checks, each with a pass/fail
# verdict: the GPU unit tests; NCCL `coll` on every collective and type (fp16/bf16 too) and on
# every reduction, with the data check; CUDA graphs (-G); device time against host time at large
# sizes; the spin kernel's accuracy, cuBLAS TF32/BF16/FP16/FP32 throughput and the corruption
# check (results against an fp64 reference); one NVML sample; `run` of a DP workload and of the
# 3D workload at tp=pp=1 with the workload's own products (TFLOP/s reached, compute and
# communication alone; its TP/PP/DP groups, made by ncclCommSplit, need several GPUs and run on
# the emulated device in CI: gpu-emulated-run); a 60 s `soak --load burn` (temperature, power,
# clocks under full load).
#
# Every verdict line is written to $OUT/summary.txt the moment it is known, so a call cut short
# still brings back what finished. Every command has -T 60 and every step a bound of at most
# 90 s; a step whose bound no longer fits in the budget (SC_DEVICE_CHECK_BUDGET, default 540 s:
# under the device tool's 600 s a call) is skipped and says so.
#
# Exit status: 0 when every check passed, 1 when one failed or was skipped, 2 when the build
# could not start. What comes back: $OUT/summary.txt and $OUT/device-check.tar.gz (every log,
# JSON and results directory). Without $OUT both go to build-gpu/device-check-out.
#
# Where Open MPI, libyaml, jansson, hwloc or pkg-config are missing (a GPU machine with no
# package registry), run tests/gpu/make-bundle.sh on a Debian 12 machine first and carry
# .gpu-bundle: it is unpacked into a private prefix here and found before the system's.
# NCCL is taken from the CUDA install or from the Python nvidia-nccl package.
# SC_DEVICE_CHECK_BUILD_ONLY=1 stops after the build (the half that needs no GPU).
# SC_DEVICE_CHECK_BUILD=DIR uses a build folder made already (the emulated device in CI:
# tests/integration/test_gpu_emulated.py runs this whole script on it, healthy and degraded);
# SC_DEVICE_CHECK_SMALL=1 shrinks the sizes for an emulated device (host memory, 2 cores).
# On an AMD machine (/dev/kfd and no nvidia-smi, or SC_DEVICE_VENDOR=amd) the same checks run
# the AMD module (--backend rccl: HIP, RCCL and rocBLAS loaded from ROCm at run time, from
# SCALECHECK_ROCM_LIB_DIR or /opt/rocm/lib where the loader does not find them): no CUDA or NCCL
# is looked for, the build needs none, the telemetry is the amdgpu driver's (in NVML's place),
# and the checks that are NVIDIA's alone (the CUDA kernels' unit tests and spin) say so.
# On a Huawei Ascend machine (/dev/davinci_manager and no nvidia-smi, or SC_DEVICE_VENDOR=ascend)
# the same checks run the Ascend module (--backend hccl: ACL, HCCL and the operator API loaded
# from CANN at run time, from SCALECHECK_ASCEND_LIB_DIR or CANN's default lib64), the telemetry
# DCMI's (the NPU driver's libdcmi.so); besides what the AMD module lacks, HCCL has no profiler
# plugin (no choices to read) and the module no graphs.
set -uo pipefail
cd "$(dirname "$0")/../.."
bdir=${SC_DEVICE_CHECK_BUILD:-build-gpu}
work=$bdir/device-check
out=${OUT:-$bdir/device-check-out}
rm -rf "$work" && mkdir -p "$work" "$out"
exec > >(tee "$work/device-check.log") 2>&1
status=0
: >"$out/summary.txt"
budget=${SC_DEVICE_CHECK_BUDGET:-540}
t_start=$(date +%s)

# record NAME VERDICT DETAIL: one summary line, printed and appended to the summary at once; any
# verdict but ok (FAIL, SKIP, or the error a check's own parsing printed) makes the exit status 1.
record() {
    local name=$1 verdict=$2 line
    case $verdict in ok | SKIP) ;; *) verdict=FAIL ;; esac
    [ "$verdict" = ok ] || status=1
    line=$(printf '%-30s %-5s %s' "$name" "$verdict" "$3")
    echo "$line" >>"$out/summary.txt"
    echo "[device-check] $line"
}
finish() {
    local code=${1:-$status}
    {
        echo "================ device-check summary ================"
        cat "$out/summary.txt"
        echo "exit status $code after $(( $(date +%s) - t_start )) s"
    } | tee "$out/summary.final"
    mv "$out/summary.final" "$out/summary.txt"
    sleep 0.2 # let tee write the log before it is packed
    tar -czf "$out/device-check.tar.gz" -C "$(dirname "$work")" "$(basename "$work")" 2>/dev/null
    exit "$code"
}
# fits NAME BOUND: whether a step of that bound still fits in the budget; records SKIP if not.
fits() {
    local left=$(( budget - ($(date +%s) - t_start) ))
    [ "$2" -le "$left" ] && return 0
    record "$1" SKIP "out of time: bound $2 s, $left s of the budget left"
    return 1
}
# the last error scalecheck printed, else the last line
last_line() {
    { grep '^scalecheck' "$work/$1.log" || tail -n 1 "$work/$1.log"; } 2>/dev/null | tail -n 1 |
        cut -c1-140
}

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
    # Debian names mpirun through its alternatives, which the bundle lacks: a machine's own
    # mpirun (another Open MPI) must not start the bundle's programs.
    ln -sf orterun "$pfx/usr/bin/mpirun"
    # PMIx looks for its plugins where Debian put them: on a machine with its own PMIx there
    # (Ubuntu 24.04's, another version) the bundle's loaded one that failed (pcompress_zlib:
    # undefined symbol pmix_output_info; it then runs without compression), and neither
    # PMIX_INSTALL_PREFIX nor PMIX_MCA_mca_base_component_path moved it on the H200 machine
    # (2026-12-04). Both stay set; the 16 lines each launch printed about it are silenced.
    export PMIX_INSTALL_PREFIX=$lib/pmix2 PMIX_MCA_mca_base_component_path=$lib/pmix2/lib/pmix \
        PMIX_MCA_mca_base_component_show_load_errors=0 PMIX_MCA_pcompress_base_silence_warning=1
    record "dependencies" ok "bundle unpacked into $pfx ($(ls .gpu-bundle/*.deb | wc -l) packages)"
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# The environment the checks run in, for a later command on this machine (the main job:
# `. build-gpu/device-env.sh && SC_PREBUILT=build-gpu scripts/acceptance.sh`).
mkdir -p "$bdir"
export -p | grep -E ' (PATH|LD_LIBRARY_PATH|OPAL_PREFIX|PKG_CONFIG_PATH|CPATH|PMIX_INSTALL_PREFIX|PMIX_MCA_[A-Za-z_]*|OMPI_ALLOW_RUN_AS_ROOT[A-Z_]*)=' \
    >"$bdir/device-env.sh"

# --- 2. the vendor, and its collective library: NCCL from the CUDA install, else the Python
# package's; RCCL from ROCm (found at run time by the AMD module)
vendor=${SC_DEVICE_VENDOR:-nvidia}
if [ -z "${SC_DEVICE_VENDOR:-}" ] && ! command -v nvidia-smi >/dev/null; then
    [ -e /dev/kfd ] && vendor=amd
    [ -e /dev/davinci_manager ] && vendor=ascend
fi
# the modules without kernels (AMD, Ascend): their data check runs on the host
kernelless=0
[ "$vendor" != nvidia ] && kernelless=1
be=nccl
[ "$vendor" = amd ] && be=rccl
[ "$vendor" = ascend ] && be=hccl
cann=/usr/local/Ascend/ascend-toolkit/latest/lib64
if [ "$vendor" = ascend ] && [ -z "${SCALECHECK_ASCEND_LIB_DIR:-}" ] && [ -d "$cann" ]; then
    export SCALECHECK_ASCEND_LIB_DIR=$cann
fi
dcmi=/usr/local/Ascend/driver/lib64/driver/libdcmi.so
if [ "$vendor" = ascend ] && [ -z "${SCALECHECK_DCMI_LIBRARY:-}" ] && [ -f "$dcmi" ]; then
    export SCALECHECK_DCMI_LIBRARY=$dcmi
fi
if [ "$vendor" = amd ] && [ -z "${SCALECHECK_ROCM_LIB_DIR:-}" ] && [ -d /opt/rocm/lib ]; then
    export SCALECHECK_ROCM_LIB_DIR=/opt/rocm/lib
fi
nccl_inc="" nccl_lib=""
# The Python package's folder: nvidia/nccl in the cu12 wheels, and wherever a later layout put
# it (nvidia/cu13/...): the first folder under any nvidia package that holds libnccl.so.2.
py_nccl=$(python3 - 2>/dev/null <<'PY'
import glob, os
try:
    import nvidia
except ImportError:
    raise SystemExit
for root in list(nvidia.__path__):
    for lib in sorted(glob.glob(os.path.join(root, "**", "libnccl.so.2"), recursive=True)):
        print(os.path.dirname(os.path.dirname(lib)))
        raise SystemExit
PY
)
for d in /usr/local/cuda/include /usr/include ${py_nccl:+"$py_nccl/include"} .gpu-bundle/include; do
    if [ -f "$d/nccl.h" ]; then nccl_inc=$d; break; fi
done
for f in /usr/local/cuda/lib64/libnccl.so.2 /usr/local/cuda/lib/libnccl.so.2 \
         /usr/lib/x86_64-linux-gnu/libnccl.so.2 ${py_nccl:+"$py_nccl/lib/libnccl.so.2"}; do
    if [ -f "$f" ]; then nccl_lib=$f; break; fi
done
if [ "$vendor" = amd ]; then
    record "vendor" ok "AMD: --backend rccl, ROCm from ${SCALECHECK_ROCM_LIB_DIR:-the loader search path}"
elif [ "$vendor" = ascend ]; then
    record "vendor" ok "Ascend: --backend hccl, CANN from ${SCALECHECK_ASCEND_LIB_DIR:-the loader search path}"
elif [ -z "$nccl_inc" ] || [ -z "$nccl_lib" ]; then
    record "nccl" FAIL "nccl.h or libnccl.so.2 not found"; finish 2
else
    record "nccl" ok "$nccl_lib"
fi
# (the build's RUNPATH names NCCL's and CUDA's folders: LD_LIBRARY_PATH is left as it is, so
# that an emulated device's libraries, put first there, stay first)

# --- 3. build for sm_90 (-Werror), configured afresh: a cache from another prefix would
# point at paths that are gone; or the build folder given
t0=$(date +%s)
if [ -n "${SC_DEVICE_CHECK_BUILD:-}" ]; then
    if [ "$vendor" = amd ] && [ -x "$bdir/scalecheck" ] && [ -f "$bdir/libscalecheck-rocm.so" ]; then
        record "build" ok "the AMD module built already in $bdir"
    elif [ "$vendor" = ascend ] && [ -x "$bdir/scalecheck" ] &&
         [ -f "$bdir/libscalecheck-ascend.so" ]; then
        record "build" ok "the Ascend module built already in $bdir"
    elif [ -x "$bdir/scalecheck" ] && grep -q '#define SC_HAVE_NCCL 1' "$bdir/generated/sc_config.h"; then
        record "build" ok "the GPU path built already in $bdir"
    else
        record "build" FAIL "$bdir has no GPU-path build"; finish 1
    fi
else
    rm -rf build-gpu/CMakeCache.txt build-gpu/CMakeFiles
    gpu_flags=(-DSC_CUDA_ARCHS=90 -DNCCL_INCLUDE_DIR="$nccl_inc" -DNCCL_LIBRARY="$nccl_lib")
    [ "$vendor" != nvidia ] && gpu_flags=(-DSC_ENABLE_GPU=OFF) # the AMD and Ascend modules need no CUDA
    if cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DSC_WERROR=ON "${gpu_flags[@]}" \
           -DMPI_C_COMPILER="$mpicc_path" -DMPIEXEC_EXECUTABLE="$mpirun_path" "${cmake_extra[@]}" \
           >"$work/cmake.log" 2>&1 &&
       timeout 300 cmake --build build-gpu -j "$(nproc)" >"$work/build.log" 2>&1; then
        record "build (sm_90, -Werror)" ok "$(( $(date +%s) - t0 )) s"
    else
        tail -n 30 "$work/cmake.log"
        [ -f "$work/build.log" ] && tail -n 30 "$work/build.log"
        record "build" FAIL "see cmake.log / build.log"; finish 1
    fi
    if [ "$vendor" = nvidia ] && ! grep -q 'GPU path ON' "$work/cmake.log"; then
        record "gpu path" FAIL "not built: $(grep 'GPU path' "$work/cmake.log")"; finish 1
    fi
fi
[ "${SC_DEVICE_CHECK_BUILD_ONLY:-0}" = 1 ] && finish 0

sc=$bdir/scalecheck
res=$work/results
run1=("$mpirun_path" -np 1 --bind-to none)
if [ "$vendor" != nvidia ]; then
    record "gpu" ok "$("$sc" version 2>&1 | grep -m1 -e "^$be: " | cut -c1-100)"
elif nvidia-smi -L >"$work/nvidia-smi.log" 2>&1; then
    record "gpu" ok "$(head -n 1 "$work/nvidia-smi.log" | cut -c1-100)"
else
    record "gpu" ok "no nvidia-smi: $("$sc" version 2>&1 | grep -m1 '^loaded: .*cudart')"
fi
# Sizes: an H200's, or an emulated device's (host memory and 2 cores: 1/256 of them).
if [ "${SC_DEVICE_CHECK_SMALL:-0}" = 1 ]; then
    big=(-b 2M -e 8M) coll_max=64K gemm_size=64 spin_n=10 rscale=(--bytes-scale 0.001 --compute-scale 1e-6)
    burn=(--duration 6s --cycle 3 --burn-size 128 --burn-stream 1M --bytes-scale 0.001 --compute-scale 1e-6)
else
    big=(-b 512M -e 2G) coll_max=16M gemm_size=8192 spin_n=20 rscale=(--compute-scale 0.1)
    burn=(--duration 60s --cycle 20 --compute-scale 0.1)
fi
# The steps, with the seconds each is expected to take on one H200 (the estimate) and its bound.
echo "# estimate: about 5 min on one H200 (build ~120 s, the checks ~190 s); budget ${budget} s"

# verdict NAME KIND FILE: records the verdict tests/gpu/device_verdicts.py gives FILE.
verdict() {
    local line
    line=$(python3 tests/gpu/device_verdicts.py "$2" "$3" 2>&1)
    record "$1" "${line%% *}" "${line#* }"
}
# step NAME BOUND KIND FILE CMD...: runs CMD under BOUND (when it fits), then judges FILE by KIND
# (or, with KIND "-", by the exit status alone).
step() {
    local name=$1 limit=$2 kind=$3 file=$4 code
    shift 4
    fits "$name" "$limit" || return 0
    timeout --kill-after=5 "$limit" "$@" >"$work/${file##*/}.log" 2>&1
    code=$?
    if [ "$kind" = - ]; then
        if [ $code = 0 ]; then record "$name" ok "$(last_line "${file##*/}")"
        else record "$name" FAIL "exit $code: $(last_line "${file##*/}")"; fi
    elif [ $code -le 1 ] && [ -f "$file" ]; then
        verdict "$name" "$kind" "$file"
    else
        record "$name" FAIL "exit $code: $(last_line "${file##*/}")"
    fi
}

# --- 4. GPU unit tests (kernels exact, planted element found, event vs host time)   ~5 s
if [ "$kernelless" = 1 ]; then
    echo "# gpu unit tests: the CUDA kernels' (the $vendor module has none: its check runs on the host)"
else
    step "gpu unit tests" 60 - "$work/gpu-unit" "$bdir/tests/test_gpu_kernels"
fi

# --- 5. every collective x type (fp16 and bf16 among them), and every reduction, data check on
step "coll all x all types" 90 coll "$work/coll-types.json" "${run1[@]}" "$sc" coll \
    --backend "$be" --collective all -d all -o sum -b 8 -e "$coll_max" -f 16 -n 5 -w 1 -c 1 -T 60 \
    --telemetry 0.5 --json "$work/coll-types.json" --results-dir "$res"            # ~20 s
# what NCCL chose, as it told the profiler plugin (the GPU module): in every row of the above
if [ "$be" = hccl ]; then
    echo "# hccl profiler plugin: HCCL has none (its choices are not recorded)"
elif [ -f "$work/coll-types.json" ]; then
    verdict "$be profiler plugin" choices "$work/coll-types.json"
fi
step "coll reductions x types" 90 coll "$work/coll-ops.json" "${run1[@]}" "$sc" coll \
    --backend "$be" --collective allreduce,reducescatter,reduce -d float,fp16,bf16,int32 -o all \
    -b 8 -e "$coll_max" -f 16 -n 5 -w 1 -c 1 -T 60 --json "$work/coll-ops.json" \
    --results-dir "$res"                                                          # ~15 s

# traffic that collides: TP, DP and all-to-all communicators at once (each stream polled to its
# own end), where the machine has two GPUs or more (one GPU cannot hold two ranks of NCCL's)
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
if [ "$vendor" != nvidia ]; then
    ngpu=$("${run1[@]}" "$sc" detect --output "$work/detected.yaml" --pick "$work/detected.env" \
        >/dev/null 2>&1 && . "$work/detected.env" && echo "${SC_DETECTED_GPUS:-0}")
fi
if [ "$ngpu" -ge 2 ] && [ $(( ngpu % 2 )) = 0 ]; then
    step "coll --concurrent" 90 traffic "$work/coll-concurrent.json" "$mpirun_path" -np "$ngpu" \
        --bind-to none "$sc" coll --backend "$be" --concurrent all --tp 2 -b 1M -e 64M -f 8 -n 10 \
        -T 60 --json "$work/coll-concurrent.json" --results-dir "$res"           # ~10 s
else
    echo "# coll --concurrent: ${ngpu:-0} GPU(s) here; it takes 2 or more (not part of this run)"
fi

# --- 6. device time vs host time: out-of-place rows long enough to time (with one rank, NCCL's
# in-place collectives do no device work); the steps back to back, within 5 % + 30 us
step "event vs host (large)" 90 timing "$work/coll-large.json" "${run1[@]}" "$sc" coll \
    --backend "$be" "${big[@]}" -f 2 -n 20 -c 0 -T 60 --json "$work/coll-large.json" \
    --results-dir "$res"                                                          # ~10 s

# --- 7. CUDA graphs: 10 operations per graph, data checked                          ~10 s
if [ "$be" = hccl ]; then
    echo "# graphs (-G 10): the Ascend module has none yet (ACL's capture is not used)"
else
    step "cuda graphs (-G 10)" 90 coll "$work/coll-graph.json" "${run1[@]}" "$sc" coll \
        --backend "$be" -b 8 -e 1M -f 32 -n 20 -G 10 -c 1 -T 60 --json "$work/coll-graph.json" \
        --results-dir "$res"
fi

# --- 8. compute phase: the spin's median error within 2 % of what was asked (after an untimed
# first spin: kernels load lazily); cuBLAS throughput per type                   ~5 s each
if [ "$kernelless" = 1 ]; then
    # a host function holds the stream (the module has no kernels): its callback's hop is not
    # the GPU's accuracy, which the 2 % bound is for
    echo "# spin 1000 us: the $vendor module's spin is a host function, not a kernel (not part of this run)"
else
    step "spin 1000 us" 60 spin "$work/spin.json" "${run1[@]}" "$sc" compute --backend "$be" \
        --mode spin --time-us 1000 -n "$spin_n" -T 60 --json "$work/spin.json"
fi
for t in tf32 bf16 fp16 fp32; do
    step "gemm $t ${gemm_size}^3" 60 gemm "$work/gemm-$t.json" "${run1[@]}" "$sc" compute \
        --backend "$be" --mode gemm -d $t --size "$gemm_size" -n 20 -T 60 --json "$work/gemm-$t.json"
done

# --- 8b. inside the node: the GPU's PCIe link in sysfs against its best, the NIC nearest it,
# the rank's NUMA place, host memory per NUMA node (hwloc-bound copies), and the GPU's copies:
# pinned host memory to it and back (held to 0.8 of its link's raw rate), within its memory
# (0.8 of its peak: memory clock x 2 x bus width) - what nvbandwidth's host_to_device,
# device_to_host and device_local_copy measure                                          ~15 s
# (the emulated device has no PCIe tree of its own: the recorded HGX H100 one stands in)
node_env=(env)
copy_size=256M
if [ "${SC_DEVICE_CHECK_SMALL:-0}" = 1 ]; then
    tree=hgx-h100
    [ "$vendor" = amd ] && tree=mi250-apollo
    [ "$vendor" = ascend ] && tree=atlas800t-a2
    node_env+=("SCALECHECK_SYS_ROOT=$(python3 tests/fakes/sysfs_tree.py \
        tests/fakes/trees/$tree.tree "$work/sysfs" --numa-cpus 0:0,1:1)" \
        FAKE_CUDA_COPY_MODEL=1)
    copy_size=16M
fi
step "node (PCIe, NUMA, copies)" 60 node "$work/node.json" "${node_env[@]}" "${run1[@]}" \
    "$sc" node --backend "$be" --mem-size 64M --copy-size "$copy_size" -n 3 -T 60 \
    --json "$work/node.json" --results-dir "$res"

# --- 9. one telemetry sample: NVML's, or on AMD the amdgpu driver's files (the emulated AMD
# device's are the recorded tree's)                                                 ~2 s
mon_env=(env)
[ "$vendor" != nvidia ] && mon_env=("${node_env[@]}")
tele_name="nvml sample"
[ "$vendor" = amd ] && tele_name="telemetry sample (amdgpu)"
[ "$vendor" = ascend ] && tele_name="telemetry sample (dcmi)"
if fits "$tele_name" 30; then
    if timeout 30 "${mon_env[@]}" "${run1[@]}" "$sc" telemetry >"$work/telemetry.json" \
        2>"$work/telemetry.log"; then
        verdict "$tele_name" nvml "$work/telemetry.json"
    else
        record "$tele_name" FAIL "exit $?: $(last_line telemetry)"
    fi
fi

# --- 10. training steps on the device, their compute the workload's own products: DP, and the
# 3D workload at tp=pp=1 (compute scaled to a tenth: GPT-3 13B's layers at full size take
# minutes on one GPU); TFLOP/s reached, compute and communication alone    ~20 s each
for w in bert-large-dp gpt3-13b-3d; do
    extra=()
    [ $w = gpt3-13b-3d ] && extra=(--tp 1 --pp 1)
    step "run $w" 90 run "$work/run-$w.json" "${run1[@]}" "$sc" run --backend "$be" \
        --workload workloads/$w.yaml --scales 1 -n 5 -w 1 -T 60 "${rscale[@]}" "${extra[@]}" \
        --json "$work/run-$w.json" --results-dir "$res"
done

# --- 11. a burn: the GPU at full load (products and a memory stream) beside the soak's sweep and
# steps, its temperature, power and clocks sampled every second                       ~70 s
step "soak --load burn" 120 burn "$work/burn.json" "${mon_env[@]}" "${run1[@]}" "$sc" soak \
    --backend "$be" --load burn "${burn[@]}" --steps 2 --warmup 1 --sweep-max 16M \
    --telemetry-interval 1 -T 60 --json "$work/burn.json" --results-dir "$res"
finish
