#!/usr/bin/env bash
# Run HERE (a Debian 12 machine with network to the package registry) before a device check:
# downloads the Debian packages the GPU machine may lack - Open MPI, libyaml, jansson, hwloc,
# pkg-config (pkgconf) and the shared libraries they load - into .gpu-bundle/ (git-ignored),
# which the device check carries and unpacks into a private prefix there (nothing can be
# fetched on the GPU machine). tests/gpu/test-bundle-build.sh proves that the bundle alone
# builds the GPU path, with the system's copies of these packages hidden.
# usage: tests/gpu/make-bundle.sh      then: device run with carry [".gpu-bundle"]
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/install-deps.sh >/dev/null
out=.gpu-bundle
rm -rf "$out" && mkdir -p "$out"

# Headers and pkg-config files to build against, and the launcher.
pkgs=(openmpi-bin openmpi-common libopenmpi-dev libyaml-dev libyaml-0-2 libjansson-dev libjansson4
      libhwloc-dev libhwloc15 pkgconf pkgconf-bin libpkgconf3 libnl-3-200)
# Every package that owns a shared library Open MPI, its plugins, libyaml or jansson load,
# except the C/C++ runtime and the libraries every Linux has (libudev is bundled: a container
# image may lack it, and hwloc needs it to link).
libs=$( (ls /usr/lib/x86_64-linux-gnu/libmpi.so.40 /usr/bin/orterun /usr/bin/orted \
            /usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/*.so \
            /usr/lib/x86_64-linux-gnu/pmix2/lib/pmix/*.so 2>/dev/null;
         ls /usr/lib/x86_64-linux-gnu/libyaml-0.so.2 /usr/lib/x86_64-linux-gnu/libjansson.so.4 \
            /usr/lib/x86_64-linux-gnu/libhwloc.so.15 /usr/lib/x86_64-linux-gnu/libpkgconf.so.3) |
        xargs -r ldd 2>/dev/null | awk '/=> \//{print $3}' | sort -u)
for lib in $libs; do
    owner=$(dpkg -S "$(readlink -f "$lib")" 2>/dev/null | head -1 | cut -d: -f1) || true
    [ -n "$owner" ] && pkgs+=("$owner")
done
mapfile -t pkgs < <(printf '%s\n' "${pkgs[@]}" | sort -u |
    grep -v -x -E 'libc6|libgcc-s1|libstdc\+\+6|libcrypt1|libselinux1|libpcre2-8-0|libzstd1|liblzma5|zlib1g|libssl3|libsystemd0')
# A machine whose package lists were never fetched finds nothing to download: fetch them once.
(cd "$out" && apt-get download -qq "${pkgs[@]}") ||
    { apt-get update -qq && (cd "$out" && apt-get download -qq "${pkgs[@]}"); }
echo "make-bundle: ${#pkgs[@]} packages, $(du -sh "$out" | cut -f1) in $out"
