#!/usr/bin/env bash
# The Python package as a user installs it: clones the committed tree into a
# fresh temporary folder, makes a fresh virtual environment that sees
# Debian's NumPy, `pip install --no-build-isolation .` (setup.py builds the
# module with the project's CMake; ccache is reused), `pip wheel` the same,
# deletes the clone, then runs tests/python/installed_check.py from outside
# it: import iklab, read the shipped data, solve. Removes the temporary folder
# afterwards (KEEP=1 keeps it).
#
#   scripts/pip-check.sh            # from the repository root
#   PYTHON=/usr/bin/python3 scripts/pip-check.sh
set -euo pipefail
cd "$(dirname "$0")/.."

python="${PYTHON:-/usr/bin/python3}"
root="$(mktemp -d "${TMPDIR:-/tmp}/iklab-pip-XXXXXX")"
if [ "${KEEP:-0}" != "1" ]; then
  trap 'rm -rf "$root"' EXIT
fi
version="$(sed -n 's/^project(iklab VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)"
cp tests/python/installed_check.py "$root/"
git clone --quiet . "$root/iklab"
# setup.py hashes paths relative to the clone (CCACHE_BASEDIR), so the
# compilations of the usual build are reused.
unset CCACHE_BASEDIR IKLAB_DATA_DIR IKLAB_BUILD_DIR PYTHONPATH

"$python" -m venv --system-site-packages "$root/venv"
start=$SECONDS
"$root/venv/bin/pip" install --quiet --no-build-isolation "$root/iklab"
echo "pip install: $((SECONDS - start)) s"
start=$SECONDS
"$root/venv/bin/pip" wheel --quiet --no-build-isolation --no-deps \
  --wheel-dir "$root/wheels" "$root/iklab"
echo "pip wheel: $((SECONDS - start)) s: $(cd "$root/wheels" && ls)"
"$root/venv/bin/python" - "$root"/wheels/iklab-"$version"-*.whl <<'PY'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
for required in ("iklab/__init__.py", "iklab/data/robots/panda.urdf", "iklab/_iklab.pyi",
                 "iklab/py.typed", "iklab/_header_docs.py"):
    assert required in names, (required, "missing from", sys.argv[1])
assert any(n.startswith("iklab/_iklab") and n.endswith(".so") for n in names), names
PY

rm -rf "$root/iklab"
cd "$root"
"$root/venv/bin/python" installed_check.py "$version"
