# The check of one run, shared by the hostile-input suites (hostile_inputs.sh,
# hostile_surfaces.sh, hostile_collisions.sh)
# (sourced; needs IKLAB, the program, and LIMIT, seconds per run).
#
# run_case CODE FRAGMENT -- ARGS...: runs "$IKLAB" ARGS and sets `out` to its
# stderr+stdout and `problem` to what is wrong, empty when the run is clean:
# a hang (no exit within LIMIT), a signal (exit code >= 128), an abort,
# sanitizer report or library diagnostic in the output, an exit code other
# than CODE, or FRAGMENT (a fixed string; empty = no check) missing from the
# output.
run_case() {
  local code=$1 fragment=$2
  shift 3
  local rc
  out=$(timeout "$LIMIT" "$IKLAB" "$@" 2>&1)
  rc=$?
  problem=""
  if [ "$rc" -eq 124 ]; then
    problem="hang (no exit within ${LIMIT} s)"
  elif [ "$rc" -ge 128 ]; then
    problem="killed by signal $((rc - 128))"
  elif printf '%s' "$out" | grep -q -e 'terminate called' -e 'Aborted' \
      -e 'Segmentation fault' -e 'AddressSanitizer' -e 'runtime error:' \
      -e 'LeakSanitizer' -e 'HDF5-DIAG'; then
    problem="abort, sanitizer report or library diagnostics"
  elif [ "$rc" -ne "$code" ]; then
    problem="exit code $rc, expected $code"
  elif [ -n "$fragment" ] && ! printf '%s' "$out" | grep -q -F -- "$fragment"; then
    problem="message lacks '$fragment'"
  fi
}

# expect CODE FRAGMENT -- ARGS...: run_case, counted in `cases`; a run that
# is not clean is counted in `failures` and printed with its output's tail.
# (hostile_surfaces.sh counts per surface with its own expect.)
cases=0
failures=0
expect() {
  cases=$((cases + 1))
  run_case "$@"
  if [ -n "$problem" ]; then
    failures=$((failures + 1))
    printf 'FAIL [%d] iklab %s\n  %s\n  output: %s\n' "$cases" "$*" \
      "$problem" "$(printf '%s' "$out" | tail -n 5)"
  fi
}
