#!/usr/bin/env bash
# Installs the Debian packages iklab needs, and only the missing ones.
# Used by `make test` and `make reproduce`; safe to run again.
# With --fuzz, also clang and its sanitizer/libFuzzer runtimes (make fuzz-smoke).
set -euo pipefail

packages=(
  cmake g++ make pkg-config
  libeigen3-dev libboost-graph-dev liblbfgspp-dev libceres-dev
  catch2 libbenchmark-dev liburdfdom-dev libmujoco-dev libfcl-dev liborocos-kdl-dev
  libcli11-dev libfmt-dev nlohmann-json3-dev libtbb-dev
  gnuplot-nox valgrind
  coinor-libipopt-dev libnlopt-cxx-dev libhwy-dev
  pybind11-dev python3-dev python3-numpy python3-pytest
  python3-venv python3-pip python3-setuptools python3-wheel
  python3-nbclient python3-ipykernel
  libhdf5-dev libopenmpi-dev openmpi-bin
  libcmark-dev libtinygltf-dev libjs-three chromium nodejs
)
# Debian's npm, unless an npm came with another nodejs (NodeSource's bundles it).
command -v npm >/dev/null 2>&1 || packages+=(npm)
if [ "${1:-}" = "--fuzz" ]; then
  packages+=(clang libclang-rt-dev)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
    missing+=("$p")
  fi
done

# The browser tests' driver (tests/web): puppeteer-core, pinned by
# tests/web/package-lock.json, into tests/web/node_modules.
install_web_test_driver() {
  local web
  web="$(cd "$(dirname "$0")/.." && pwd)/tests/web"
  if [ -d "$web/node_modules/puppeteer-core" ]; then return 0; fi
  if ! command -v npm >/dev/null 2>&1; then
    echo "iklab: npm not found; the browser tests (tests/web) will be skipped" >&2
    return 0
  fi
  echo "iklab: installing the browser tests' driver (npm ci in tests/web)"
  (cd "$web" && npm ci --no-audit --no-fund --loglevel=error) ||
    echo "iklab: npm ci failed; the browser tests (tests/web) will be skipped" >&2
}

if [ ${#missing[@]} -eq 0 ]; then
  install_web_test_driver
  exit 0
fi

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
install_web_test_driver
