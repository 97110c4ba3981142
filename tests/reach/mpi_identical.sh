#!/usr/bin/env bash
# `iklab reach` at a small resolution: the map file must be byte-identical
#   * without MPI at 1 and 2 threads,
#   * under mpirun with 1, 2 and 3 ranks (3 oversubscribes a 2-core machine),
#   * after a run stopped by --stop-after under 2 ranks and resumed under 3,
# and no reach.h5 may exist while the map is incomplete.
#
# Usage: mpi_identical.sh IKLAB_PROGRAM SANITIZED HAVE_MPI
# Exit 77 (CTest: skipped) when MPI is not built or mpirun is missing, and in
# the sanitizer build: Open MPI's runtime keeps allocations to process exit
# on purpose, which LeakSanitizer reports as leaks in every rank, and its
# shared-memory transport is not instrumented; the non-MPI determinism and
# resume tests of the Catch2 suite run there.
set -u
IKLAB=${1:?usage: mpi_identical.sh IKLAB_PROGRAM SANITIZED HAVE_MPI}
SANITIZED=${2:-OFF}
HAVE_MPI=${3:-OFF}
LIMIT=${IKLAB_CLI_TEST_TIMEOUT:-300}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/iklab-reach-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1

ARGS=(reach --robot panda --resolution 0.2 --orientations 4 --attempts 4
      --no-plots --seed 3)
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

run() {  # run NAME CMD...: runs CMD, output in NAME.log
  local name=$1
  shift
  timeout "$LIMIT" "$@" >"$name.log" 2>&1
  local rc=$?
  if [ "$rc" -ne 0 ]; then
    fail "$name exited $rc"
    tail -n 20 "$name.log"
  fi
  return $rc
}

run serial1 "$IKLAB" "${ARGS[@]}" --threads 1 --out serial1
run serial2 "$IKLAB" "${ARGS[@]}" --threads 2 --out serial2
[ -f serial1/reach.h5 ] || fail "no map from the serial run"
cmp -s serial1/reach.h5 serial2/reach.h5 || fail "1 and 2 threads differ"

if [ "$SANITIZED" = "ON" ]; then
  echo "SKIPPED the MPI runs: sanitizer build (see the comment at the top)"
  [ "$failures" -eq 0 ] || exit 1
  exit 77
fi
if [ "$HAVE_MPI" != "ON" ] || ! command -v mpirun >/dev/null 2>&1; then
  echo "SKIPPED the MPI runs: iklab built without MPI or no mpirun on PATH"
  [ "$failures" -eq 0 ] || exit 1
  exit 77
fi

# Open MPI refuses root unless told, and -n 3 on 2 cores needs
# --oversubscribe; both flags are harmless otherwise.
MPIRUN=(mpirun --oversubscribe)
if [ "$(id -u)" -eq 0 ]; then MPIRUN+=(--allow-run-as-root); fi
# Keep Open MPI on this machine's loopback/shared memory in CI containers.
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1

for k in 1 2 3; do
  run "mpi$k" "${MPIRUN[@]}" -n "$k" "$IKLAB" "${ARGS[@]}" --out "mpi$k" &&
    { cmp -s serial1/reach.h5 "mpi$k/reach.h5" ||
        fail "mpirun -n $k differs from the serial map"; }
  # Only rank 0 speaks, and it saw all k ranks: the voxels were split, not
  # computed k times over.
  [ "$(grep -c "$k rank(s) x 1 thread(s)\$" "mpi$k.log")" -eq 1 ] ||
    fail "mpirun -n $k: expected one rank-0 header naming $k ranks"
  [ "$(grep -c "(${k} rank(s) x 1 thread(s))" "mpi$k.log")" -eq 1 ] ||
    fail "mpirun -n $k: expected one summary from rank 0"
done
run mpi2x2 "${MPIRUN[@]}" -n 2 "$IKLAB" "${ARGS[@]}" --threads 2 --out mpi2x2 &&
  { cmp -s serial1/reach.h5 mpi2x2/reach.h5 ||
      fail "mpirun -n 2 --threads 2 differs from the serial map"; }

# Stop under 2 ranks: exit 3, a journal, no map.
timeout "$LIMIT" "${MPIRUN[@]}" -n 2 "$IKLAB" "${ARGS[@]}" --out resumed \
  --stop-after 100 >stop.log 2>&1
rc=$?
[ "$rc" -eq 3 ] || { fail "--stop-after under mpirun exited $rc, expected 3"; tail -n 20 stop.log; }
[ -f resumed/reach.h5.partial ] || fail "no journal after --stop-after"
[ -e resumed/reach.h5 ] && fail "a map file exists although the map is incomplete"
grep -q -- "--resume" stop.log || fail "the stop message does not say --resume"
run resume "${MPIRUN[@]}" -n 3 "$IKLAB" "${ARGS[@]}" --out resumed --resume &&
  { cmp -s serial1/reach.h5 resumed/reach.h5 ||
      fail "the resumed map differs from the uninterrupted one"; }
[ -e resumed/reach.h5.partial ] && fail "the journal is left after completion"

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "reach maps byte-identical: threads 1, 2; mpirun -n 1, 2, 3, 2x2 threads; stop + resume"
