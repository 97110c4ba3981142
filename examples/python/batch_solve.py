#!/usr/bin/env python3
"""How often, and how fast, does each solver reach random reachable poses of
the shipped Panda arm? Solves one batch per solver with iklab.solve_batch
(all cores, no GIL) and plots success rate and time per solve with matplotlib
when it is installed.

    PYTHONPATH=build/python python3 examples/python/batch_solve.py --targets 2000
"""

import argparse

import numpy as np

import iklab

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--targets", type=int, default=1000)
parser.add_argument("--threads", type=int, default=None, help="default: all cores")
parser.add_argument("--plot", default="batch_solve.png", help="figure file")
args = parser.parse_args()

arm = iklab.load_urdf(iklab.data_file("robots/panda.urdf"),
                      base_link="panda_link0", tip_link="panda_hand")
model = arm.compile()
poses, seeds = iklab.generate_targets(model, "panda_hand", args.targets, seed=1)

problem = iklab.Problem(model)
problem.add_goal(iklab.PositionOrientationGoal(model, "panda_hand", np.eye(4)))
solvers = {
    "lbfgsb": iklab.LbfgsbSolver(),
    "bounded-lm": iklab.BoundedLmSolver(time_budget_seconds=0.0, max_iterations=500),
    "ceres": iklab.CeresSolver(),
    "dls": iklab.DampedLeastSquaresSolver(max_iterations=500, damping=0.05),
}
rows = []
for name, solver in solvers.items():
    batch = iklab.solve_batch(problem, poses, seeds, solver, threads=args.threads)
    rows.append((name, batch.converged.mean(), np.median(batch.microseconds)))
    print(f"{arm.robot_name} {name:>10}: solved {100 * rows[-1][1]:5.1f} %, "
          f"median {rows[-1][2]:8.1f} us per solve")

try:
    import matplotlib.pyplot as plt
except ImportError:
    print("matplotlib is not installed: no figure")
else:
    names, rates, times = zip(*rows)
    figure, (left, right) = plt.subplots(1, 2, figsize=(9, 3.5))
    left.bar(names, [100 * r for r in rates])
    left.set_ylabel("solved (%)")
    right.bar(names, times)
    right.set_ylabel("median time per solve (us)")
    right.set_yscale("log")
    figure.suptitle(f"{args.targets} random reachable poses, {arm.robot_name}")
    figure.tight_layout()
    figure.savefig(args.plot)
    print(f"figure: {args.plot}")
