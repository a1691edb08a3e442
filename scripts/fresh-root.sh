#!/usr/bin/env bash
# The README's promise on a bare machine: makes a minimal Debian 12 root (debootstrap, variant
# minbase: no compiler, no python3, no MPI), puts this checkout's tracked files in it and runs the
# README's first command there (scripts/acceptance.sh), then - with --tests - the second
# (scripts/test.sh). Checks that the main job installed no python3. Packages come from the mirror
# this machine's apt already uses. Logs and the exit codes go to OUT (default
# /var/tmp/scalecheck-fresh). Needs root; installs debootstrap when it is missing.
# usage: scripts/fresh-root.sh [--tests] [--no-sys] [--keep] [OUT]
#   --no-sys: no /sys in the root (a container or chroot without it): the acceptance must still
#             end with a verdict that says so, not a crash
set -euo pipefail
cd "$(dirname "$0")/.."
tests=0 sys=1 keep=0 out=/var/tmp/scalecheck-fresh
for a in "$@"; do
    case $a in
    --tests) tests=1 ;;
    --no-sys) sys=0 ;;
    --keep) keep=1 ;;
    -*) echo "fresh-root.sh: unknown option $a" >&2; exit 2 ;;
    *) out=$a ;;
    esac
done
[ "$(id -u)" = 0 ] || { echo "fresh-root.sh: needs root (debootstrap, chroot, mounts)" >&2; exit 2; }
command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap >/dev/null
# the mirror apt uses here (deb822 or one-line sources), not one named in this file
mirror=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null |
    grep -v security | head -n 1 || true)
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $3 == "bookworm" {print $2; exit}' \
    /etc/apt/sources.list 2>/dev/null || true)
[ -n "$mirror" ] || { echo "fresh-root.sh: no Debian mirror in this machine's apt sources" >&2; exit 2; }
root=$out/root
mkdir -p "$out"
mounted=()
cleanup() {
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[i]}" 2>/dev/null || true; done
    [ "$keep" = 1 ] || rm -rf "$root"
}
trap cleanup EXIT
rm -rf "$root"
echo "fresh-root: debootstrap minbase bookworm into $root"
debootstrap --variant=minbase bookworm "$root" "$mirror" > "$out/debootstrap.log" 2>&1 ||
    { tail -20 "$out/debootstrap.log" >&2; exit 1; }
cp /etc/resolv.conf "$root/etc/resolv.conf"
mkdir -p "$root/src"
git archive HEAD | tar -x -C "$root/src"
for m in proc dev dev/pts $([ "$sys" = 1 ] && echo sys); do
    case $m in
    proc) mount -t proc proc "$root/proc" ;;
    sys) mount -t sysfs sysfs "$root/sys" ;;
    *) mount --bind "/$m" "$root/$m" ;;
    esac
    mounted+=("$root/$m")
done
in_root() { chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin \
    TERM=dumb bash -c "cd /src && $1"; }
rc=0
echo "fresh-root: the main job (scripts/acceptance.sh), log $out/acceptance.log"
in_root scripts/acceptance.sh > "$out/acceptance.log" 2>&1 || rc=$?
echo "acceptance exit $rc" | tee "$out/acceptance.rc"
if in_root "dpkg -s python3" > /dev/null 2>&1; then
    echo "fresh-root: the main job installed python3 (it must not need it)" >&2
    exit 1
fi
# the acceptance's verdict: 0 good, 1 a check failed, 5 inconclusive (a noisy, shared machine);
# anything else - a build that stopped, bad usage, a crash - is the promise broken
case $rc in 0 | 1 | 5) ;; *) tail -30 "$out/acceptance.log" >&2; exit "$rc" ;; esac
if [ "$tests" = 1 ]; then
    echo "fresh-root: the tests (scripts/test.sh), log $out/test.log"
    trc=0
    in_root scripts/test.sh > "$out/test.log" 2>&1 || trc=$?
    echo "test exit $trc" | tee "$out/test.rc"
    grep -E "tests passed|tests failed" "$out/test.log" | tail -2
    [ "$trc" = 0 ] || exit "$trc"
fi
echo "fresh-root: both README commands ran on a bare Debian 12 root"
