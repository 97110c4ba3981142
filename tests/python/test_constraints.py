"""Bindings of constraints/: every goal kind and regularizer, Bounds, Problem."""

import numpy as np
import pytest

import iklab
from conftest import PANDA_TIP, central_difference

TIP = PANDA_TIP


def every_goal(model):
    """One goal of every kind on the Panda, with its name."""
    rng = np.random.default_rng(3)
    X = model.site_pose(rng.uniform(model.lower, model.upper), TIP)
    p, R = X[:3, 3], X[:3, :3]
    n = model.nq
    position = iklab.PositionGoal(model, TIP, p)
    orientation = iklab.OrientationGoal(model, TIP, R)
    return {
        "position": position,
        "orientation": orientation,
        "axis": iklab.AxisGoal(model, TIP, [0, 0, 1], R[:, 2]),
        "rotation_vector": iklab.RotationVectorGoal(model, TIP, R),
        "axis_tangent": iklab.AxisTangentGoal(model, TIP, [0, 0, 1], R[:, 2]),
        "pose": iklab.PositionOrientationGoal(model, TIP, X, w_o=0.5),
        "aiming": iklab.AimingGoal(model, TIP, [0, 0, 1], p + R[:, 2]),
        "plane": iklab.PlaneGoal(model, TIP, p, [0, 0, 1]),
        "weighted_sum": iklab.WeightedSumGoal([position, orientation]),
        "disjunctive": iklab.DisjunctiveGoal([position, iklab.PositionGoal(model, TIP, -p)]),
        "tikhonov": iklab.TikhonovRegularizer(model, 0.1, model.mid_limits()),
        "joint_center_bias": iklab.JointCenterBias(model, model.mid_limits(), np.ones(n)),
        "joint_posture": iklab.JointPostureGoal(model, [0, "panda_joint2"], [0.1, 0.2]),
        "joint_range": iklab.JointRangeGoal(model, [1, 3], [-0.5, -2.0], [0.5, -1.0]),
        "cone": iklab.ConeGoal(model, TIP, [0, 0, 1], [0, 0, -1], 0.3),
        "gaze": iklab.GazeGoal(model, TIP, [0, 0, 1], [0.5, 0.0, 0.0], 0.2),
        "position_box": iklab.PositionBoxGoal(model, TIP, np.eye(4), [0.2, -0.1, 0.3],
                                              [0.4, 0.1, 0.5]),
        "orientation_box": iklab.OrientationBoxGoal(model, TIP, R, [-0.1] * 3, [0.1] * 3),
        "point_distance": iklab.PointDistanceGoal(model, TIP, [0, 0, 0.3], 0.2, 0.6),
        "site_distance": iklab.SiteDistanceGoal(model, "panda_link4", TIP, 0.1, 0.5),
        "relative_pose": iklab.RelativePoseGoal(model, "panda_link4", TIP, np.eye(4),
                                                length_per_radian=0.5),
        "relative_pose_box": iklab.RelativePoseBoxGoal(model, "panda_link4", TIP, np.eye(4),
                                                       [-0.1] * 6, [0.1] * 6),
        "collision": iklab.ShapeCollisionGoal(
            model, iklab.fit_chain_capsules(model, ["panda_link3", "panda_link5"], 0.05),
            [iklab.sphere_obstacle("ball", [0.4, 0.0, 0.4], 0.1)]),
    }


GOAL_NAMES = [
    "position", "orientation", "axis", "rotation_vector", "axis_tangent", "pose",
    "aiming", "plane", "weighted_sum", "disjunctive", "tikhonov", "joint_center_bias",
    "joint_posture", "joint_range", "cone", "gaze", "position_box", "orientation_box",
    "point_distance", "site_distance", "relative_pose", "relative_pose_box", "collision"]


def test_every_goal_kind_is_covered(panda):
    assert sorted(every_goal(panda)) == sorted(GOAL_NAMES)


@pytest.mark.parametrize("name", GOAL_NAMES)
def test_goal_jacobian_matches_finite_differences(panda, name):
    goal = every_goal(panda)[name]
    rng = np.random.default_rng(11)
    q = rng.uniform(panda.lower, panda.upper) * 0.8
    r, J = goal.evaluate(panda, q)
    assert r.shape == (goal.num_residuals,)
    assert J.shape == (goal.num_residuals, panda.nq)
    if name == "disjunctive":  # piecewise: differentiate the active branch only
        return
    numeric = central_difference(lambda x: goal.evaluate(panda, x)[0], q)
    np.testing.assert_allclose(J, numeric, atol=2e-6, rtol=1e-5)
    if isinstance(goal, iklab.InequalityGoal):
        g, Jg = goal.evaluate_constraint(panda, q)
        assert g.shape == (goal.num_constraints,)
        np.testing.assert_allclose(
            Jg, central_difference(lambda x: goal.evaluate_constraint(panda, x)[0], q),
            atol=2e-6, rtol=1e-5)


def test_goal_error_is_zero_at_its_target(panda):
    q = panda.mid_limits() + 0.1
    X = panda.site_pose(q, TIP)
    goal = iklab.PositionOrientationGoal(panda, TIP, X)
    error = goal.error(panda, q)
    assert error.position < 1e-12 and error.angle < 1e-7
    goal.target = (X[:3, 3] + [0.0, 0.0, 0.1], [1.0, 0.0, 0.0, 0.0])
    assert abs(goal.error(panda, q).position - 0.1) < 1e-12
    position = iklab.PositionGoal(panda, TIP, [0, 0, 0])
    position.target = X[:3, 3]
    assert position.error(panda, q).position < 1e-12
    assert goal.weight == 1.0
    goal.weight = 2.0
    goal.name = "hand"
    assert (goal.weight, goal.name) == (2.0, "hand")


def test_problem_potential_gradient_matches_finite_differences(pose_problem, panda):
    pose_problem.add_regularizer(iklab.TikhonovRegularizer(panda, 0.01, panda.mid_limits()))
    q = panda.mid_limits() + 0.3
    value, gradient = pose_problem.evaluate_potential(q)
    r, J = pose_problem.evaluate_residuals(q)
    assert r.shape == (pose_problem.num_residuals,)
    np.testing.assert_allclose(
        gradient, central_difference(lambda x: pose_problem.evaluate_potential(x)[0], q),
        atol=1e-6)
    assert len(pose_problem.goal_errors(q)) == 1
    assert len(pose_problem.regularizers) == 1


def test_problem_hard_constraints_are_evaluated_and_converted(panda):
    problem = iklab.Problem(panda)
    problem.add_goal(iklab.PositionGoal(panda, TIP, [0.4, 0.0, 0.5]))
    problem.add_equality_constraint(iklab.PlaneGoal(panda, TIP, [0, 0, 0.5], [0, 0, 1]))
    problem.add_inequality_constraint(iklab.ConeGoal(panda, TIP, [0, 0, 1], [0, 0, -1], 0.3))
    assert problem.has_constraints
    assert (problem.num_equality_constraints, problem.num_inequality_constraints) == (1, 1)
    c_eq, c_in, J_eq, J_in = problem.evaluate_constraints(panda.mid_limits())
    assert c_eq.shape == (1,) and c_in.shape == (1,)
    assert J_eq.shape == (1, 7) and J_in.shape == (1, 7)
    soft = problem.with_constraints_as_goals()
    assert len(soft.goals) == 3 and not soft.has_constraints
    hard = problem.with_goals_as_constraints()
    assert len(hard.goals) == 0
    assert isinstance(problem.inequality_constraints[0], iklab.ConeGoal)


def test_bounds_contain_project_and_reject_bad_input(panda):
    bounds = iklab.Bounds.from_model(panda)
    q = panda.upper + 1.0
    assert not bounds.contains(q)
    np.testing.assert_array_equal(bounds.project(q), panda.upper)
    bounds.set(0, -0.1, 0.1)
    problem = iklab.Problem(panda)
    problem.bounds = bounds
    assert problem.bounds.upper[0] == 0.1
    with pytest.raises(ValueError):
        iklab.Bounds([1.0], [0.0])
    with pytest.raises(ValueError):
        problem.bounds = iklab.Bounds.unbounded(3)


def test_goal_constructors_reject_bad_input_with_the_cpp_message(panda):
    with pytest.raises(ValueError, match="unknown site 'nowhere'"):
        iklab.PositionGoal(panda, "nowhere", [0, 0, 0])
    with pytest.raises(ValueError, match=r"target must have shape \(3,\), got shape \(2,\)"):
        iklab.PositionGoal(panda, TIP, [0, 0])
    with pytest.raises(ValueError, match=r"target must have shape \(3, 3\)"):
        iklab.OrientationGoal(panda, TIP, np.eye(4))
    with pytest.raises(ValueError, match=r"target \(quaternion w x y z\) must have a norm"):
        iklab.PositionOrientationGoal(panda, TIP, ([0, 0, 0], [0, 0, 0, 0]))
    with pytest.raises(ValueError):
        iklab.ConeGoal(panda, TIP, [0, 0, 1], [0, 0, 1], -0.5)
    with pytest.raises(ValueError):
        iklab.PositionGoal(panda, TIP, [np.nan, 0, 0])
    with pytest.raises(ValueError):
        iklab.PointDistanceGoal(panda, TIP, [0, 0, 0], 0.5, 0.1)
    with pytest.raises(ValueError, match=r"reference must have shape \(7,\)"):
        iklab.TikhonovRegularizer(panda, 0.1, np.zeros(3))
    with pytest.raises(ValueError):
        iklab.Problem(panda).add_goal(
            iklab.PositionGoal(iklab.planar_chain([1.0, 1.0]).compile(), 0, [1, 0, 0]))


def test_relative_pose_goal_is_met_at_the_generating_pose(panda):
    q = panda.mid_limits() + 0.2
    X_WA, X_WB = panda.site_pose(q, "panda_link4"), panda.site_pose(q, TIP)
    X_AB = np.linalg.inv(X_WA) @ X_WB
    goal = iklab.RelativePoseGoal(panda, "panda_link4", TIP, X_AB)
    assert goal.error(panda, q).position < 1e-12 and goal.error(panda, q).angle < 1e-7
    np.testing.assert_allclose(goal.target, X_AB, atol=1e-15)
    shifted = X_AB.copy()
    shifted[0, 3] += 0.05
    goal.target = shifted
    assert abs(goal.error(panda, q).position - 0.05) < 1e-12
    with pytest.raises(ValueError, match="site"):
        iklab.RelativePoseGoal(panda, TIP, TIP, X_AB)
    with pytest.raises(ValueError, match="lower"):
        iklab.RelativePoseBoxGoal(panda, "panda_link4", TIP, X_AB, [0.1] * 5, [0.2] * 6)
