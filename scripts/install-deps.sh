#!/usr/bin/env bash
# Installs the Debian 12 packages scalecheck needs. Idempotent: does nothing (no apt-get update,
# no network) when everything is already there.
#   scripts/install-deps.sh          what building and running need (the main job); an MPI that
#                                    is already there (Open MPI or MPICH: an mpicc on PATH) is
#                                    used, never replaced - Open MPI only where there is none
#   scripts/install-deps.sh --package   that, plus what `cpack -G DEB` needs (dpkg-dev, file)
#   scripts/install-deps.sh --test   that, plus what the test suite needs (Open MPI for its
#                                    launcher flags, Python, the style tools, Slurm and munge for
#                                    the virtual cluster, xmllint, clang for the fuzzers,
#                                    dpkg-dev, lintian and groff for the package and man page
#                                    tests, headless Chromium for the pages, MPICH beside Open MPI for scripts/test-mpich.sh, and
#                                    Prometheus' promtool - taken out of Debian's prometheus
#                                    package into /opt/scalecheck-test-tools, not installed: no
#                                    server is set up or started)
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libyaml-dev                     # YAML workload/topology loaders
  libjansson-dev                  # JSON results
  libhwloc-dev                    # topology detection (CPUs, NUMA)
  libucx-dev                      # UCX backend (point-to-point)
  gnuplot-nox                     # plots in the reports
)
mpi=(openmpi-bin libopenmpi-dev)  # MPI host backend and launcher
tests=(
  python3 python3-yaml            # test helpers that parse JSON/CSV/YAML
  python3-venv                    # ReFrame from PyPI in a venv of its own (packaging-reframe)
  clang-format cppcheck           # style gates (scripts/lint.sh)
  iproute2 iputils-ping           # the virtual cluster (network namespaces, tc) and host probes
  slurm-wlm munge                 # a real Slurm on the virtual cluster (tests)
  libxml2-utils                   # xmllint: junit.xml validated against the JUnit schema (tests)
  clang libclang-rt-14-dev        # scripts/fuzz.sh: libFuzzer with ASan/UBSan (CI)
  dpkg-dev file groff-base        # the .deb built by cpack (CPackDeb runs file) and installed
                                  # (install-deb), man pages read
  lintian                         # the .deb held to Debian's conventions (install-deb)
  chromium-headless-shell         # the report pages rendered by a browser (browser-pages)
  libmpich-dev                    # the build and a subset against MPICH (scripts/test-mpich.sh);
)                                 # beside Open MPI, whose higher priority keeps the mpi selection
package=(dpkg-dev file)           # `cpack -G DEB` (docs/install.md): CPackDeb runs file
case "${1:-}" in
  --test) packages+=("${mpi[@]}" "${tests[@]}") ;;
  --package) command -v mpicc >/dev/null 2>&1 || packages+=("${mpi[@]}"); packages+=("${package[@]}") ;;
  "") command -v mpicc >/dev/null 2>&1 || packages+=("${mpi[@]}") ;;
  *) echo "install-deps: usage: scripts/install-deps.sh [--test|--package]" >&2; exit 2 ;;
esac

# promtool (metrics): the one binary out of Debian's prometheus package, whose installation
# would add a user and a server that starts at boot
PROMTOOL_DIR=/opt/scalecheck-test-tools/bin
promtool_fetch() {
  [ "${1:-}" = --test ] && [ ! -x "$PROMTOOL_DIR/promtool" ] && ! command -v promtool >/dev/null 2>&1 || return 0
  local tmp
  tmp=$(mktemp -d)
  (cd "$tmp" && apt-get download -qq prometheus 2>/dev/null && dpkg-deb -x prometheus_*.deb root) &&
    mkdir -p "$PROMTOOL_DIR" && cp "$tmp/root/usr/bin/promtool" "$PROMTOOL_DIR/" &&
    echo "install-deps: promtool in $PROMTOOL_DIR" ||
    echo "install-deps: promtool not fetched (the metrics test runs without it)" >&2
  rm -rf "$tmp"
}

missing=()
for p in "${packages[@]}"; do
  if [[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true) != *'install ok installed'* ]]; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  [ "$(id -u)" -ne 0 ] || promtool_fetch "${1:-}"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing ${missing[*]}; run as root (or with sudo)" >&2
  exit 2
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# apt and dpkg say hundreds of lines a fresh machine does not need to read: into a log, its
# tail shown when they fail
log=$(mktemp /tmp/scalecheck-install-deps.XXXXXX.log)
if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}"; } \
    >"$log" 2>&1; then
  tail -n 30 "$log" >&2
  echo "install-deps: apt-get failed (the whole log: $log)" >&2
  exit 1
fi
echo "install-deps: ${#missing[@]} packages installed (apt's log: $log)"
promtool_fetch "${1:-}"
