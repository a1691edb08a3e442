#!/usr/bin/env bash
# Builds a libFuzzer target for each YAML loader and one for every reader of results
# (tests/fuzz/fuzz_readers.c: result.json, baselines, the soak journal, nccl-tests -J, nccl-tests
# and OSU text), all from one clang build (-fsanitize=fuzzer, ASan, UBSan with float-cast-overflow)
# whose sources are CMakeLists.txt's own lists. Each loader runs for SECONDS (default 20), seeded
# with the shipped files, its inputs loaded beside copies of the shipped bases so that the seeds'
# extends resolve and the merge is fuzzed too; each reader runs SECONDS, seeded from
# tests/fuzz/seeds/KIND. A crash, leak or
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
san="-fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all"
# one clang build of the fuzz targets; their sources are the build's own lists (CMakeLists.txt)
cmake -S . -B "$out/readers" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=Debug \
    -DSC_ENABLE_GPU=OFF -DSC_ENABLE_UCX=OFF -DBUILD_TESTING=OFF -DSC_FUZZ=ON \
    -DCMAKE_C_FLAGS="-O1 -g -fsanitize=fuzzer-no-link $san" \
    -DCMAKE_EXE_LINKER_FLAGS="$san" > "$out/readers-configure.log"
cmake --build "$out/readers" --target fuzz_readers fuzz_workload fuzz_topology -j"$(nproc)" \
    > "$out/readers-build.log" || { tail -20 "$out/readers-build.log" >&2; exit 1; }
for kind in workload topology; do
    corpus="$out/corpus-$kind"
    mkdir -p "$corpus"
    cp workloads/*.yaml topologies/*.yaml topologies/nodes/*.yaml "$corpus/"
    echo "fuzz: $kind loader for $secs s"
    (cd "$out" && "./readers/fuzz_$kind" -max_total_time="$secs" -max_len=4096 -timeout=5 \
        -print_final_stats=1 "corpus-$kind" 2>&1 | tail -4)
done
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
