#!/usr/bin/env bash
# The first solve in a fresh process against the warm ones, per solver: for
# each solver, `iklab bench` in a new process solves one target 21 times
# (after the solver's Prepare, as the benchmark always does); cold = the
# first solve's microseconds, warm = the median of the other 20.
# Then the same from Python (when PYTHON_MODULE_DIR, default build/python,
# holds the module), where nothing calls Prepare unless asked: per solver
# and per case (no Prepare; solver.prepare(problem) first), a new
# interpreter solves one target 21 times; "call" is the Python wall time of
# solver.solve, "clock" the solve's own Result.wall_time_seconds.
#
# Usage: benchmarks/cold_start.sh [IKLAB_PROGRAM] [REPEATS] [PYTHON_MODULE_DIR]
set -euo pipefail
IKLAB=${1:-build/experiments/iklab}
REPEATS=${2:-3}
PYTHON_MODULE_DIR=${3:-build/python}
PYTHON=${PYTHON:-python3}  # the interpreter the module was built for
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

[ -d "$PYTHON_MODULE_DIR/iklab" ] || exit 0
cat >"$WORK/cold.py" <<'PY'
import statistics, sys, time
import iklab
name, urdf, base, tip, case = sys.argv[1:6]
model = iklab.load_urdf(iklab.data_file("robots/" + urdf), base_link=base,
                        tip_link=tip).compile()
q = model.lower + 0.4 * (model.upper - model.lower)
problem = iklab.Problem(model)
problem.add_goal(iklab.PositionOrientationGoal(model, tip, model.site_pose(q, tip)))
solver = iklab.make_solver(name)
q0 = model.mid_limits()
if case == "prepare":
    solver.prepare(problem)
calls, clocks = [], []
for _ in range(21):
    start = time.perf_counter()
    r = solver.solve(problem, q0)
    calls.append((time.perf_counter() - start) * 1e6)
    clocks.append(r.wall_time_seconds * 1e6)
warm = statistics.median(calls[1:])
print(f"python {name:12s} {case:10s} first call {calls[0]:8.1f} us (clock {clocks[0]:6.1f})"
      f"   warm median {warm:6.1f} us (clock {statistics.median(clocks[1:]):5.1f})"
      f"   first/warm {calls[0] / warm:5.1f}")
PY
for _ in $(seq "$REPEATS"); do
  for case in no-prepare prepare; do
    PYTHONPATH="$PYTHON_MODULE_DIR" "$PYTHON" "$WORK/cold.py" bounded-lm panda.urdf panda_link0 panda_hand $case
    PYTHONPATH="$PYTHON_MODULE_DIR" "$PYTHON" "$WORK/cold.py" tolani iiwa14.urdf base iiwa_link_ee $case
    PYTHONPATH="$PYTHON_MODULE_DIR" "$PYTHON" "$WORK/cold.py" analytic-6r ur5.urdf base_link ee_link $case
  done
done
