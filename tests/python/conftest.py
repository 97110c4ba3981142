"""Shared fixtures of the iklab Python tests: the shipped Panda arm."""

import numpy as np
import pytest

import iklab

PANDA_TIP = "panda_hand"


@pytest.fixture(scope="session")
def panda():
    arm = iklab.load_urdf(iklab.data_file("robots/panda.urdf"),
                          base_link="panda_link0", tip_link=PANDA_TIP)
    return arm.compile()


@pytest.fixture
def pose_problem(panda):
    """A pose goal at the tip, reachable: the tip pose at a random q."""
    rng = np.random.default_rng(7)
    q = rng.uniform(panda.lower, panda.upper)
    problem = iklab.Problem(panda)
    problem.add_goal(iklab.PositionOrientationGoal(panda, PANDA_TIP,
                                                   panda.site_pose(q, PANDA_TIP)))
    return problem


def central_difference(f, q, h=1e-6):
    """Columns d f / d q_i by central differences."""
    columns = []
    for i in range(q.size):
        e = np.zeros_like(q)
        e[i] = h
        columns.append((np.asarray(f(q + e)) - np.asarray(f(q - e))) / (2 * h))
    return np.stack(columns, axis=-1)
