"""The bindings give the C++ API's answers bit for bit: a C++ program
(tests/python/reference_main.cc) computes poses, Jacobians and solver answers
on the same inputs and writes them as exact hexadecimal floats."""

import os
import subprocess

import numpy as np
import pytest

import iklab
from conftest import PANDA_TIP

REFERENCE = os.environ.get("IKLAB_REFERENCE")


def read_reference(path):
    values = {}
    with open(path) as lines:
        for line in lines:
            key, row, *numbers = line.split()
            values[(key, int(row))] = np.array([float.fromhex(x) for x in numbers])
    return values


@pytest.mark.skipif(not REFERENCE, reason="IKLAB_REFERENCE (the C++ reference program) "
                                          "is set by ctest")
def test_python_matches_cpp_bit_for_bit(tmp_path, panda):
    poses, seeds = iklab.generate_targets(panda, PANDA_TIP, 12, seed=21)
    seeds = seeds + np.random.default_rng(2).uniform(-0.3, 0.3, seeds.shape)
    inputs = tmp_path / "inputs.csv"
    # repr() of a float64 round-trips exactly through the C++ std::stod.
    inputs.write_text("".join(",".join(repr(float(x)) for x in row) + "\n"
                              for row in np.hstack([poses, seeds])))
    output = tmp_path / "reference.txt"
    subprocess.run([REFERENCE, iklab.data_file("robots/panda.urdf"), "panda_link0",
                    PANDA_TIP, str(inputs), str(output)], check=True)
    reference = read_reference(output)

    bounded_lm = iklab.BoundedLmSolver(time_budget_seconds=0.0, max_iterations=300)
    solvers = {
        "lbfgsb": iklab.LbfgsbSolver(),
        "ceres": iklab.CeresSolver(),
        "bounded-lm": bounded_lm,
        "dls": iklab.DampedLeastSquaresSolver(max_iterations=300, damping=0.05),
    }
    goal = iklab.PositionOrientationGoal(panda, PANDA_TIP, np.eye(4))
    problem = iklab.Problem(panda)
    problem.add_goal(goal)
    for i, (pose, q0) in enumerate(zip(poses, seeds)):
        np.testing.assert_array_equal(panda.site_pose(q0, PANDA_TIP).ravel(),
                                      reference[("pose", i)])
        np.testing.assert_array_equal(panda.site_jacobian(q0, PANDA_TIP).ravel(),
                                      reference[("jacobian", i)])
        goal.target = (pose[:3], pose[3:])
        for name, solver in solvers.items():
            np.testing.assert_array_equal(solver.solve(problem, q0).q,
                                          reference[(name, i)], err_msg=name)
    batch = iklab.solve_batch(problem, poses, seeds, solvers["lbfgsb"], threads=1)
    for i in range(len(poses)):
        np.testing.assert_array_equal(batch.q[i], reference[("batch-lbfgsb", i)])
