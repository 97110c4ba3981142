#!/usr/bin/env bash
# The project on its own: clones the committed tree into a fresh temporary
# folder (nothing beside the clone, so no data folder outside the project can
# be found), builds it, runs the test suite and `iklab run all --quick` there,
# and checks that `iklab bench` runs on the shipped robots by default. Tests
# that cross-check against upstream files report SKIPPED. Removes the
# temporary folder afterwards (KEEP=1 keeps it).
#
#   scripts/isolated-check.sh            # from the repository root
set -euo pipefail
cd "$(dirname "$0")/.."

root="$(mktemp -d "${TMPDIR:-/tmp}/iklab-isolated-XXXXXX")"
if [ "${KEEP:-0}" != "1" ]; then
  trap 'rm -rf "$root"' EXIT
fi
# The Makefile hashes paths relative to the clone (CCACHE_BASEDIR), so the
# compilations of the usual build are reused here.
name="$(basename "$PWD")"
git clone --quiet . "$root/$name"
cd "$root/$name"
echo "isolated clone: $PWD ($(git rev-parse --short HEAD)); beside it: $(ls -A "$root")"
unset CCACHE_BASEDIR

# No data folder from the environment either.
unset IKLAB_DATA_DIR

make test JOBS="${JOBS:-2}"
./build/experiments/iklab run all --quick --out out-quick
./build/experiments/iklab bench --targets 20 --solvers bounded-lm \
  --seeds mid-limits --out bench-quick
