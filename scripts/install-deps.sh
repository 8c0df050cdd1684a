#!/usr/bin/env bash
# Installs every Debian package that the build, the tests, the demo and the benchmarks need.
# Idempotent: packages already present are skipped without touching the package lists.
#   scripts/install-deps.sh [--with-paraview] [--with-peers] [--with-packaging]
set -euo pipefail
PACKAGES=(
  build-essential cmake ninja-build pkg-config
  libeigen3-dev libtomlplusplus-dev libcli11-dev libfmt-dev nlohmann-json3-dev libqhull-dev libgmsh-dev
  libopenvdb-dev libgdal-dev gdal-bin python3-gdal zlib1g-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang libclang-rt-dev libomp-dev
  python3 python3-numpy python3-meshio python3-matplotlib
  python3-dev pybind11-dev python3-pybind11 python3-pytest
  libopenmpi-dev openmpi-bin
  help2man
)
for arg in "$@"; do
  case "$arg" in
    --with-peers) PACKAGES+=(liggghts) ;;  # the LIGGGHTS comparison of bench/
    # ParaView for the long tests (make test-long) and `etdem view`: large, so not by default.
    --with-paraview) PACKAGES+=(paraview python3-paraview xvfb xauth) ;;
    # The Debian package (make package): dpkg-deb, dpkg-shlibdeps, file (CPack's DEB generator).
    --with-packaging) PACKAGES+=(dpkg-dev file) ;;
    *) echo "install-deps.sh: unknown option $arg (--with-peers, --with-paraview, --with-packaging)" >&2
       exit 2 ;;
  esac
done
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
