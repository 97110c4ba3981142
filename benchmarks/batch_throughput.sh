#!/usr/bin/env bash
# Scalar bounded LM against the SIMD batch solver on the same targets, and
# their scaling over threads, from an existing build: prints one table row
# per robot, seed mode and thread count (medians of REPETITIONS runs).
#
#   benchmarks/batch_throughput.sh [BUILD_DIR]      (default: build)
#   THREADS="1 2 4" REPETITIONS=5 benchmarks/batch_throughput.sh
#
# Thread counts above the machine's cores are skipped. Columns: problems per
# second of each solver (wall), per core (÷ threads), the ratio SIMD/scalar
# (wall) and of the main thread's CPU time per batch (scalar/SIMD; on 1
# thread the per-core ratio that a loaded machine disturbs least), the
# fraction solved (converged) and false claims (converged but failing
# the protocol's independent FK check) of each. ~1 minute on 16 cores.
set -euo pipefail
build=${1:-build}
binary="$build/benchmarks/iklab_benchmarks"
[[ -x $binary ]] || { echo "no $binary: build the iklab_benchmarks target" >&2; exit 1; }
cores=$(nproc)
threads=${THREADS:-"1 2 4 8 16"}
repetitions=${REPETITIONS:-3}
pattern=""
for t in $threads; do
  (( t <= cores )) || continue
  pattern+="${pattern:+|}threads:$t/"
done
json=$(mktemp)
trap 'rm -f "$json"' EXIT
"$binary" --benchmark_filter="BM_SimdVsScalar/.*/($pattern)" \
  --benchmark_repetitions="$repetitions" --benchmark_report_aggregates_only=true \
  --benchmark_format=json >"$json" 2>/dev/null
python3 - "$json" "$cores" <<'PY'
import json, re, sys
data = json.load(open(sys.argv[1]))
print(f"# {data['context'].get('host_name', '?')}: {sys.argv[2]} cores, "
      f"{data['context'].get('mhz_per_cpu', '?')} MHz; medians")
rows = {}
label = ""
medians = any(b.get("aggregate_name") == "median" for b in data["benchmarks"])
for b in data["benchmarks"]:
    if medians and b.get("aggregate_name") != "median":
        continue
    m = re.search(r"robot:(\d)/random0_mid1:(\d)/simd:(\d)/threads:(\d+)", b["name"])
    robot, mode, simd, threads = (int(x) for x in m.groups())
    rows.setdefault((robot, mode, threads), {})[simd] = b
    if simd:
        label = b.get("label", label)
print(f"# SIMD: {label}")
print(f"{'robot':7} {'seeds':6} {'thr':>3} {'scalar/s':>10} {'simd/s':>10} "
      f"{'scal/core':>10} {'simd/core':>10} {'ratio':>6} {'cpu':>6} {'solved s|v':>13} {'false s|v':>9}")
for (robot, mode, threads), pair in sorted(rows.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2])):
    s, v = pair.get(0), pair.get(1)
    if not s or not v:
        continue
    print(f"{['panda', 'iiwa14', 'gen3'][robot]:7} {['random', 'mid'][mode]:6} {threads:>3} "
          f"{s['problems_per_second']:>10.0f} {v['problems_per_second']:>10.0f} "
          f"{s['per_core']:>10.0f} {v['per_core']:>10.0f} "
          f"{v['problems_per_second'] / s['problems_per_second']:>6.2f} "
          f"{s['cpu_time'] / v['cpu_time']:>6.2f} "
          f"{s['solved']:>6.4f}|{v['solved']:<6.4f} "
          f"{s['false_claims']:>4.0f}|{v['false_claims']:<4.0f}")
PY

program="$build/experiments/iklab"
[[ -x $program ]] || { echo "no $program: skipping iklab bench" >&2; exit 0; }
targets=${BENCH_TARGETS:-20000}
out=$(mktemp -d)
trap 'rm -rf "$json" "$out"' EXIT
echo
echo "# iklab bench: panda, iiwa14 x both seed modes, $targets targets each; wall s"
printf '%-16s %4s %8s %s\n' solver thr wall_s "solve rates (robot/seeds: rate)"
for solver in bounded-lm bounded-lm-simd; do
  for t in $threads; do
    (( t <= cores )) || continue
    start=$(date +%s.%N)
    "$program" bench --robots panda,iiwa14 --solvers "$solver" -n "$targets" \
      -j "$t" --out "$out/$solver-$t" >/dev/null 2>&1
    end=$(date +%s.%N)
    rates=$(awk -F, 'NR > 1 { printf "%s/%s: %s  ", $1, $3, $6 }' \
      "$out/$solver-$t/summary.csv")
    printf '%-16s %4d %8.2f %s\n' "$solver" "$t" "$(awk "BEGIN { print $end - $start }")" "$rates"
  done
done
