#!/usr/bin/env bash
# Proves that the device check builds the GPU path from .gpu-bundle alone, as on a GPU machine
# without the packages: makes the bundle, then, in a private mount namespace where every file
# of the system's Open MPI, hwloc, pkg-config, libyaml and jansson packages is covered by
# /dev/null, runs tests/gpu/device-check.sh with SC_DEVICE_CHECK_BUILD_ONLY=1 (the run half
# needs a GPU) and checks that it configured against the bundle's prefix and linked.
# Exit 77 (skipped) without root, mount namespaces, the CUDA toolkit or the package registry.
set -uo pipefail
cd "$(dirname "$0")/../.."
skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "needs root (mount namespace)"
command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] || skip "no CUDA toolkit"
unshare --mount --propagation private true 2>/dev/null || skip "no mount namespaces here"
probe=$(mktemp -d)
(cd "$probe" && apt-get download -qq libyaml-0-2 >/dev/null 2>&1) ||
    (apt-get update -qq >/dev/null 2>&1 && cd "$probe" && apt-get download -qq libyaml-0-2 >/dev/null 2>&1) ||
    { rm -rf "$probe"; skip "the Debian package registry cannot be reached"; }
rm -rf "$probe"

tests/gpu/make-bundle.sh || { echo "FAIL: make-bundle.sh"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
hidden=(openmpi-bin libopenmpi-dev libopenmpi3 libhwloc-dev libhwloc15 pkgconf pkgconf-bin
        libpkgconf3 libyaml-dev libjansson-dev)
dpkg -L "${hidden[@]}" 2>/dev/null | while read -r f; do [ -f "$f" ] && echo "$f"; done \
    | grep -v -E '^/usr/share/(doc|man|lintian|locale)/' >"$tmp/hide.txt"

unshare --mount --propagation private bash -s "$tmp" <<'INNER'
set -uo pipefail
tmp=$1
while read -r f; do mount --bind /dev/null "$f" 2>/dev/null; done <"$tmp/hide.txt"
# The machine now looks like one without these packages.
fail() { echo "FAIL: $*"; exit 1; }
mpicc --showme:version >/dev/null 2>&1 && fail "mpicc still runs"
pkg-config --version >/dev/null 2>&1 && fail "pkg-config still runs"
[ -s /usr/include/hwloc.h ] && fail "hwloc.h still visible"
[ -s /usr/include/yaml.h ] && fail "yaml.h still visible"
echo "hidden: $(wc -l <"$tmp/hide.txt") files of the system's MPI, hwloc, pkg-config, libyaml, jansson"
SC_DEVICE_CHECK_BUILD_ONLY=1 SC_BUNDLE_PREFIX=$tmp/prefix OUT=$tmp/out \
    PATH=/usr/local/cuda/bin:$PATH tests/gpu/device-check.sh
code=$?
[ $code -eq 0 ] || fail "device-check.sh (build half) exited $code"
grep -q "MPI_C_COMPILER:FILEPATH=$tmp/prefix/" build-gpu/CMakeCache.txt ||
    fail "MPI was not taken from the bundle"
grep -E "^(YAML|JANSSON|HWLOC)_LINK_LIBRARIES" build-gpu/CMakeCache.txt | grep -v -q "$tmp/prefix/" &&
    fail "a library was not taken from the bundle: $(grep -E '^(YAML|JANSSON|HWLOC)_LINK_LIBRARIES' build-gpu/CMakeCache.txt)"
[ -x build-gpu/scalecheck ] || fail "no scalecheck binary"
grep -q '^build (sm_90, -Werror) *ok' "$tmp/out/summary.txt" || fail "summary has no build line"
tar -tzf "$tmp/out/device-check.tar.gz" | grep -q 'device-check.log' || fail "archive lacks the log"
echo "bundle build: ok (configured and built from $tmp/prefix alone)"
INNER
