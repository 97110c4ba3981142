#!/usr/bin/env bash
# Installs the Debian packages iklab needs, and only the missing ones.
# Used by `make test` and `make reproduce`; safe to run again.
# With --fuzz, also clang and its sanitizer/libFuzzer runtimes (make fuzz-smoke).
set -euo pipefail

packages=(
  cmake g++ make pkg-config
  libeigen3-dev libboost-graph-dev liblbfgspp-dev libceres-dev
  catch2 libbenchmark-dev liburdfdom-dev liborocos-kdl-dev
  libcli11-dev libfmt-dev nlohmann-json3-dev libtbb-dev
  gnuplot-nox
  coinor-libipopt-dev libnlopt-cxx-dev
  pybind11-dev python3-dev python3-numpy python3-pytest
  libhdf5-dev libopenmpi-dev openmpi-bin
)
if [ "${1:-}" = "--fuzz" ]; then
  packages+=(clang libclang-rt-dev)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "iklab: installing missing Debian packages: ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    sudo="sudo"
  else
    echo "iklab: need root (or sudo) to install: ${missing[*]}" >&2
    exit 1
  fi
fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
