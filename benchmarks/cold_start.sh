#!/usr/bin/env bash
# The first solve in a fresh process against the warm ones, per solver: for
# each solver, `iklab bench` in a new process solves one target 21 times
# (after the solver's Prepare, as the benchmark always does); cold = the
# first solve's microseconds, warm = the median of the other 20.
#
# Usage: benchmarks/cold_start.sh [IKLAB_PROGRAM] [REPEATS]
set -euo pipefail
IKLAB=${1:-build/experiments/iklab}
REPEATS=${2:-3}
ROBOTS="$(cd "$(dirname "$0")/.." && pwd)/data/robots"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/iklab-cold.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# One random reachable target per arm, drawn by the benchmark itself (its
# targets file: the seed joint vector, then x y z qw qx qy qz), 21 times.
target() {  # robot
  "$IKLAB" bench --robots "$1" --targets 1 --solvers bounded-lm \
    --out "$WORK/gen-$1" >"$WORK/log" 2>&1 || { cat "$WORK/log" >&2; exit 1; }
  local file
  file=$(ls "$WORK/gen-$1"/"$1"_*targets.csv | head -n 1)
  head -n 1 "$file" >"$WORK/$1.csv"
  for _ in $(seq 21); do sed -n 2p "$file" >>"$WORK/$1.csv"; done
}
target panda
target iiwa14
target ur5

run() {  # name urdf base tip solver
  local out="$WORK/out-$1-$5"
  "$IKLAB" bench --urdf "$ROBOTS/$2" --base "$3" --tip "$4" --solvers "$5" \
    --targets-csv "$WORK/$1.csv" --out "$out" >"$WORK/log" 2>&1 || { cat "$WORK/log" >&2; exit 1; }
  python3 - "$1" "$5" "$out"/*_outcomes.csv <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[3])))
t = [float(r["microseconds"]) for r in rows]
warm = statistics.median(t[1:])
print(f"{sys.argv[1]:6s} {sys.argv[2]:14s} cold {t[0]:8.1f} us   warm median "
      f"{warm:7.1f} us   cold/warm {t[0] / warm:5.1f}   ({rows[0]['status']})")
PY
}
for _ in $(seq "$REPEATS"); do
  run panda panda.urdf panda_link0 panda_hand bounded-lm
  run iiwa14 iiwa14.urdf base iiwa_link_ee tolani
  run ur5 ur5.urdf base_link ee_link analytic-6r
done
