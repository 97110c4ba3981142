#!/usr/bin/env bash
# The solver and study tests under valgrind memcheck: an uninitialised value
# that decides a branch or reaches a system call, an invalid read or write,
# or a bad free fails the run (exit 1), so an uninitialised read fails CI.
# Two shards in parallel (one per core of a 2-core CI machine); the heavy
# analytic sweeps (10,000 poses each, pure arithmetic on stack values) and
# the [slow] tests are left to the ordinary and sanitizer runs, and so are the
# [wallclock] tests of time budgets (a 10,000-joint chain, restarts: valgrind
# runs ~50 times slower).
#
# Usage: scripts/memcheck.sh BUILD/tests/iklab_tests
set -uo pipefail
TESTS=${1:?usage: memcheck.sh path/to/iklab_tests}
TESTS=$(cd "$(dirname "$TESTS")" && pwd)/$(basename "$TESTS")
command -v valgrind >/dev/null || { echo "valgrind not installed (scripts/install-deps.sh)"; exit 1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1
shards=(
  "[solvers]~[slow]~[analytic]~[study]~[wallclock]"
  "[study]~[slow]"
)
pids=()
for i in "${!shards[@]}"; do
  mkdir -p "shard$i"
  (cd "shard$i" && valgrind --tool=memcheck --error-exitcode=1 \
     --track-origins=no --leak-check=no --quiet \
     "$TESTS" "${shards[$i]}" >log 2>&1) &
  pids+=($!)
done
status=0
for i in "${!pids[@]}"; do
  if wait "${pids[$i]}"; then
    echo "memcheck shard $i (${shards[$i]}): clean"
  else
    status=1
    echo "memcheck shard $i (${shards[$i]}): FAILED"
    grep -E '^==[0-9]+==|FAILED|test cases' "shard$i/log" | head -60
  fi
  tail -n 3 "shard$i/log"
done
exit $status
