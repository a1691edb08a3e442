#!/usr/bin/env bash
# Builds a libFuzzer target for each YAML loader (clang, -fsanitize=fuzzer,address,undefined)
# and runs each for SECONDS (default 20), seeded with the shipped files; the inputs are loaded
# beside copies of the shipped bases, so that the seeds' extends resolve and the merge is fuzzed
# too. Then every reader of results (result.json, baselines, the soak journal, nccl-tests -J,
# nccl-tests and OSU text: tests/fuzz/fuzz_readers.c), from a clang build of its own with UBSan's
# float-cast-overflow too, SECONDS each, seeded from tests/fuzz/seeds/KIND. A crash, leak or
# undefined behaviour fails the script and leaves the input in build-fuzz/.
# clang and its libFuzzer runtime come with scripts/install-deps.sh --test.
# usage: scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-20}
out=build-fuzz
mkdir -p "$out"
cc=$(command -v clang || command -v clang-14 || true)
[ -n "$cc" ] || { echo "fuzz.sh: needs clang with libFuzzer (scripts/install-deps.sh --test installs it)" >&2; exit 2; }
# the build's configuration header, as CMake writes it, for the loaders alone
mkdir -p "$out/generated"
sed -e "s#@PROJECT_VERSION@#fuzz#" -e "s#@SC_HAVE_NCCL@#0#" -e "s#@SC_HAVE_UCX@#0#" \
    -e "s#@CMAKE_SOURCE_DIR@#$PWD#" -e "s#@CMAKE_INSTALL_PREFIX@#/usr/local#" \
    harness/sc_config.h.in > "$out/generated/sc_config.h"
srcs=(harness/config/sc_yaml.c harness/config/sc_yaml_schema.c harness/config/sc_workload.c
      harness/topology/sc_topology.c harness/topology/sc_topology_paths.c harness/util/sc_dtype.c
      harness/util/sc_status.c
      harness/util/sc_names.c harness/util/sc_size.c harness/util/sc_files.c
      tests/fuzz/fuzz_loader.c)
flags=(-std=c17 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined
       -fno-sanitize-recover=undefined -Iharness -I"$out/generated"
       -DFUZZ_BASES="\"$PWD/topologies\"")
"$cc" "${flags[@]}" "${srcs[@]}" -lyaml -lm -o "$out/fuzz_workload"
"$cc" "${flags[@]}" -DFUZZ_TOPOLOGY "${srcs[@]}" -lyaml -lm -o "$out/fuzz_topology"
for kind in workload topology; do
    corpus="$out/corpus-$kind"
    mkdir -p "$corpus"
    cp workloads/*.yaml topologies/*.yaml topologies/nodes/*.yaml "$corpus/"
    echo "fuzz: $kind loader for $secs s"
    (cd "$out" && "./fuzz_$kind" -max_total_time="$secs" -max_len=4096 -timeout=5 \
        -print_final_stats=1 "corpus-$kind" 2>&1 | tail -4)
done
san="-fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all"
cmake -S . -B "$out/readers" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=Debug \
    -DSC_ENABLE_GPU=OFF -DSC_ENABLE_UCX=OFF -DBUILD_TESTING=OFF -DSC_FUZZ=ON \
    -DCMAKE_C_FLAGS="-O1 -g -fsanitize=fuzzer-no-link $san" \
    -DCMAKE_EXE_LINKER_FLAGS="$san" > "$out/readers-configure.log"
cmake --build "$out/readers" --target fuzz_readers -j"$(nproc)" > "$out/readers-build.log" ||
    { tail -20 "$out/readers-build.log" >&2; exit 1; }
for kind in result baseline journal ntjson text; do
    corpus="$out/corpus-$kind"
    mkdir -p "$corpus"
    cp tests/fuzz/seeds/"$kind"/* "$corpus/"
    echo "fuzz: $kind reader for $secs s"
    (cd "$out" && FUZZ_READER=$kind ./readers/fuzz_readers -max_total_time="$secs" \
        -max_len=16384 -timeout=5 -print_final_stats=1 "corpus-$kind" 2>&1 | tail -4)
done
rm -rf /tmp/sc-fuzz-*
echo "fuzz: no crash"
