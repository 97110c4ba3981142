#!/usr/bin/env python3
"""The cost of calling iklab from Python, next to the C++ benchmark
(benchmarks/batch_benchmark.cc) on the same solves: the shipped Panda, the
benchmark protocol's targets (seed 1), bounded Levenberg-Marquardt without a
wall-clock budget.

 1. Per-call overhead of `solver.solve(problem, q0)`: the Python wall time of
    each call minus the time the C++ Solve itself took on the same target
    (timed inside solve_batch with threads=1), interleaved in one process;
    median over the targets.
 2. `solve_batch` throughput on 10,000 targets on 1 and 2 threads (Python wall
    time, conversions included). With --cpp BINARY, the C++ benchmark binary
    runs BM_SolveBatch10k right before and after, for a side-by-side ratio.

    PYTHONPATH=build/python python3 benchmarks/python_overhead.py \
        --cpp build/benchmarks/iklab_benchmarks
"""

import argparse
import json
import platform
import subprocess
import time

import numpy as np

import iklab

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--calls", type=int, default=2000, help="targets for the per-call part")
parser.add_argument("--targets", type=int, default=10000)
parser.add_argument("--repeats", type=int, default=3)
parser.add_argument("--cpp", help="the iklab_benchmarks binary, for side-by-side rows")
args = parser.parse_args()

model = iklab.load_urdf(iklab.data_file("robots/panda.urdf"), base_link="panda_link0",
                        tip_link="panda_hand").compile()
poses, seeds = iklab.generate_targets(model, "panda_hand", args.targets, seed=1)
problem = iklab.Problem(model)
goal = iklab.PositionOrientationGoal(model, "panda_hand", np.eye(4))
problem.add_goal(goal)
solver = iklab.BoundedLmSolver(time_budget_seconds=0.0)
print(f"machine: {platform.processor() or platform.machine()}, "
      f"load average {open('/proc/loadavg').read().split()[:3]}")

# 1. Per-call overhead, on problems whose goal is already set (setting the
# target is not part of the solve call).
problems = []
for pose in poses[: args.calls]:
    p = iklab.Problem(model)
    p.add_goal(iklab.PositionOrientationGoal(model, "panda_hand", (pose[:3], pose[3:])))
    problems.append(p)
python_us = np.empty(args.calls)
cpp_us = np.empty(args.calls)
for i, (p, q0) in enumerate(zip(problems, seeds)):
    cpp_us[i] = iklab.solve_batch(p, [p], q0[None, :], solver, threads=1).microseconds[0]
    start = time.perf_counter()
    solver.solve(p, q0)
    python_us[i] = 1e6 * (time.perf_counter() - start)
overhead = python_us - cpp_us
# The Python timer's own share of each Python timing (an empty interval
# timed the same way), which the overhead above includes.
timer_us = np.empty(args.calls)
for i in range(args.calls):
    start = time.perf_counter()
    timer_us[i] = 1e6 * (time.perf_counter() - start)
print(f"per call ({args.calls} solves): Python median {np.median(python_us):.2f} us, "
      f"C++ median {np.median(cpp_us):.2f} us, overhead median "
      f"{np.median(overhead):.2f} us (p25 {np.percentile(overhead, 25):.2f}, "
      f"p75 {np.percentile(overhead, 75):.2f}; of which the Python timer itself "
      f"{np.median(timer_us):.2f} us)")


def cpp_rows():
    if not args.cpp:
        return {}
    out = subprocess.run([args.cpp, "--benchmark_filter=BM_SolveBatch10k",
                          "--benchmark_format=json"], check=True, capture_output=True,
                         text=True).stdout
    return {b["name"]: b["targets_per_second"] for b in json.loads(out)["benchmarks"]}


before = cpp_rows()
rates = {}
for threads in (1, 2):
    best = 0.0
    for _ in range(args.repeats):
        start = time.perf_counter()
        batch = iklab.solve_batch(problem, poses, seeds, solver, threads=threads)
        best = max(best, args.targets / (time.perf_counter() - start))
    rates[threads] = best
    print(f"solve_batch {args.targets} targets, {threads} thread(s): {best:,.0f} targets/s "
          f"(best of {args.repeats}; converged {batch.converged.mean():.3f})")
after = cpp_rows()
for threads in (1, 2):
    name = f"BM_SolveBatch10k/{threads}/iterations:3/real_time"
    if name in before and name in after:
        cpp = max(before[name], after[name])
        print(f"C++ SolveBatch {threads} thread(s): {cpp:,.0f} targets/s (best of the runs "
              f"before and after); Python/C++ = {rates[threads] / cpp:.3f}")
