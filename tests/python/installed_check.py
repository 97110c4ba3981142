"""What a user does after `pip install .`, run from outside the clone (which
scripts/pip-check.sh has deleted by then): import iklab, read the shipped
data, solve one target and a batch.

    python installed_check.py EXPECTED_VERSION
"""

import os
import sys

import numpy as np

import iklab

expected_version = sys.argv[1]
package = os.path.dirname(os.path.abspath(iklab.__file__))
assert iklab.__version__ == expected_version, (iklab.__version__, expected_version)
# The data comes from the installed package, not from a source tree.
assert os.path.realpath(iklab.data_directory()) == os.path.realpath(
    os.path.join(package, "data")), (iklab.data_directory(), package)

arm = iklab.load_urdf(iklab.data_file("robots/panda.urdf"),
                      base_link="panda_link0", tip_link="panda_hand")
model = arm.compile()
rng = np.random.default_rng(1)
q_true = rng.uniform(model.lower, model.upper)
target = model.site_pose(q_true, "panda_hand")
problem = iklab.Problem(model)
problem.add_goal(iklab.PositionOrientationGoal(model, "panda_hand", target))
solver = iklab.BoundedLmSolver(time_budget_seconds=0.0, max_iterations=500)
result = solver.solve(problem, model.mid_limits())
assert result.converged, result
assert np.allclose(model.site_pose(result.q, "panda_hand"), target, atol=1e-5)

qs = rng.uniform(model.lower, model.upper, (50, model.nq))
targets = np.array([np.concatenate(model.site_position_quaternion(q, "panda_hand"))
                    for q in qs])  # (50, 7): x y z qw qx qy qz
batch = iklab.solve_batch(problem, targets, np.tile(model.mid_limits(), (50, 1)), solver,
                          threads=2)
converged = int(batch.converged.sum())
assert converged >= 40, converged
print(f"iklab {iklab.__version__} from {package}: one solve {result.status.name}, "
      f"batch {converged}/50 converged")
