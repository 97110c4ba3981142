"""Bindings of solvers/: every solver with keyword options, Result, restarts,
trajectories and the analytic solvers."""

import math

import numpy as np
import pytest

import iklab
from conftest import PANDA_TIP

# Every solver that takes a pose goal on a 7-DOF arm, with non-default options
# given as keyword arguments (common SolveOptions and StepControl fields too).
POSE_SOLVERS = {
    "lbfgsb": lambda: iklab.LbfgsbSolver(max_iterations=500, memory=8),
    "ceres": lambda: iklab.CeresSolver(method=iklab.CeresMethod.DOGLEG),
    "bounded-lm": lambda: iklab.BoundedLmSolver(time_budget_seconds=0.0,
                                                max_iterations=2000),
    "ipopt": lambda: iklab.IpoptSolver(max_iterations=300),
    "slsqp": lambda: iklab.SlsqpSolver(max_iterations=300),
    "dls": lambda: iklab.DampedLeastSquaresSolver(damping=0.05, max_iterations=1000),
    "sdls": lambda: iklab.SelectivelyDampedSolver(max_iterations=2000),
    "bounded-dls": lambda: iklab.BoundedDampedLeastSquaresSolver(max_iterations=1000),
    "pseudo-inverse": lambda: iklab.PseudoInverseSolver(max_iterations=1000,
                                                        max_joint_step=0.2),
    "alternative-jacobian": lambda: iklab.AlternativeJacobianSolver(max_iterations=1000),
    "control-term": lambda: iklab.ControlTermSolver(max_iterations=1000),
    "multi-effector": lambda: iklab.MultiEffectorSolver(max_iterations=1000),
    "transpose": lambda: iklab.JacobianTransposeSolver(
        step_size=iklab.JacobianTransposeStepSize.OPTIMAL, max_iterations=20000),
    "ccd": lambda: iklab.CcdSolver(max_iterations=5000),
}


def near_pose_problem(model, seed):
    """A pose goal reachable from a start 0.1 rad away in every joint."""
    rng = np.random.default_rng(seed)
    q_goal = model.mid_limits() + rng.uniform(-0.4, 0.4, model.nq)
    problem = iklab.Problem(model)
    X = model.site_pose(q_goal, PANDA_TIP)
    problem.add_goal(iklab.PositionOrientationGoal(model, PANDA_TIP, X))
    return problem, q_goal + rng.choice([-0.1, 0.1], model.nq)


@pytest.mark.parametrize("name", sorted(POSE_SOLVERS))
def test_every_solver_reaches_a_near_pose_goal(panda, name):
    solver = POSE_SOLVERS[name]()
    problem, q0 = near_pose_problem(panda, 5)
    result = solver.solve(problem, q0)
    assert result.status in (iklab.SolveStatus.CONVERGED, iklab.SolveStatus.MAX_ITERATIONS)
    assert result.q.shape == (7,)
    assert result.solver == solver.name
    assert len(result.goal_errors) == 1
    if name in ("lbfgsb", "ceres", "bounded-lm", "dls", "sdls", "pseudo-inverse",
                "ipopt", "slsqp"):
        assert result.converged, (name, result.message)
        X = panda.site_pose(result.q, PANDA_TIP)
        goal = problem.goals[0].target
        assert np.linalg.norm(X[:3, 3] - goal[:3, 3]) < 1e-5
    # The module-level form gives the same answer.
    again = iklab.solve(problem, q0, solver)
    np.testing.assert_array_equal(again.q, result.q)


def test_extended_jacobian_on_a_planar_chain():
    # The extended Jacobian method is defined for position goals of planar chains.
    model = iklab.planar_chain([1.0, 1.0, 1.0]).compile()
    problem = iklab.Problem(model)
    tip = model.site_names[-1]
    target = model.site_pose([0.3, 0.4, 0.5], tip)[:3, 3]
    problem.add_goal(iklab.PositionGoal(model, tip, target))
    solver = iklab.ExtendedJacobianSolver(max_iterations=1000, element_weight=1.0)
    result = solver.solve(problem, [0.2, 0.5, 0.4])
    assert result.converged, result.message
    np.testing.assert_allclose(model.site_pose(result.q, tip)[:3, 3], target, atol=1e-5)


def test_options_are_keyword_arguments_and_objects(panda):
    options = iklab.LbfgsbOptions(memory=4, max_iterations=30, record_trace=True)
    assert options.memory == 4
    assert options.common.max_iterations == 30
    solver = iklab.LbfgsbSolver(options, memory=6)
    assert solver.options.memory == 6 and solver.options.common.record_trace
    assert "memory=6" in repr(solver.options)
    assert iklab.DampedLeastSquaresOptions(stall_iterations=7).step.stall_iterations == 7
    assert iklab.SolveOptions(max_iterations=3).max_iterations == 3
    assert iklab.LbfgsbOptions().is_valid() == (True, "")


def test_bad_options_name_the_option(panda):
    with pytest.raises(ValueError, match="LbfgsbSolver: unknown option 'memmory'; options "
                                         "are: .*memory"):
        iklab.LbfgsbSolver(memmory=3)
    with pytest.raises(ValueError, match="LbfgsbSolver: LbfgsbOptions::memory must be >= 1"):
        iklab.LbfgsbSolver(memory=0)
    with pytest.raises(ValueError, match="CeresSolver: option 'method'"):
        iklab.CeresSolver(method="fast")
    with pytest.raises(ValueError, match="max_iterations"):
        iklab.CcdSolver(max_iterations=-1)
    with pytest.raises(ValueError, match="restart_candidates must be >= 1, got 0"):
        iklab.BoundedLmSolver(restart_candidates=0)
    assert iklab.BoundedLmSolver(restart_candidates=2).options.restart_candidates == 2
    with pytest.raises(ValueError, match=r"restart_pool must be in \[0, 65536\], got -1"):
        iklab.BoundedLmSolver(restart_pool=-1)
    assert iklab.BoundedLmSolver(restart_pool=0).options.restart_pool == 0


def test_result_carries_status_message_and_trace(panda):
    problem, q0 = near_pose_problem(panda, 2)
    result = iklab.LbfgsbSolver(record_trace=True).solve(problem, q0)
    assert result.status == iklab.SolveStatus.CONVERGED
    assert iklab.solve_status_name(result.status) == "converged"
    assert result.message
    assert result.iterations >= 1
    assert result.function_evaluations >= result.iterations
    assert result.final_potential <= result.initial_potential
    assert len(result.trace) >= 1
    record = result.trace[-1]
    assert record.q.shape == (7,)
    assert record.potential >= 0
    assert result.wall_time_seconds > 0
    assert "converged" in repr(result)


def test_unreachable_goal_is_a_status_not_an_exception(panda):
    problem = iklab.Problem(panda)
    problem.add_goal(iklab.PositionGoal(panda, PANDA_TIP, [5.0, 0.0, 0.0]))
    result = iklab.LbfgsbSolver(max_iterations=50).solve(problem, panda.mid_limits())
    assert not result.converged


def test_a_target_beyond_the_reach_is_unreachable_with_the_certificate(panda):
    assert iklab.solve_status_name(iklab.SolveStatus.LOCAL_MINIMUM) == "local minimum"
    # 5 m from a 1.2 m arm: the reach certificate proves it out of reach.
    far = iklab.Problem(panda)
    far.add_goal(iklab.PositionGoal(panda, PANDA_TIP, [5.0, 0.0, 0.0]))
    result = iklab.BoundedLmSolver().solve(far, panda.mid_limits())
    assert result.status == iklab.SolveStatus.UNREACHABLE
    assert "which reaches at most" in result.message


def test_solve_rejects_bad_starts(panda, pose_problem):
    solver = iklab.LbfgsbSolver()
    with pytest.raises(ValueError, match=r"q0 must have shape \(7,\), got shape \(2, 7\)"):
        solver.solve(pose_problem, np.zeros((2, 7)))
    result = solver.solve(pose_problem, np.full(7, np.nan))
    assert result.status == iklab.SolveStatus.INVALID_INPUT


def test_a_start_in_any_layout_is_read_as_its_values(panda, pose_problem):
    # A C-contiguous float64 start of the right size is read in place (the
    # per-call fast path, docs/python.md "Cost of Python"); every other layout
    # is converted. Each must give the very same solve. The start's values are
    # float32 numbers, so that a float32 copy holds them exactly. L-BFGS-B
    # descends from its start alone (bounded LM may restart from its pool),
    # so another start gives another answer.
    solver = iklab.LbfgsbSolver()
    q0 = (panda.mid_limits() + 0.3).astype(np.float32).astype(np.float64)
    expected = solver.solve(pose_problem, q0).q
    assert not np.array_equal(solver.solve(pose_problem, q0 - 0.2).q, expected)
    read_only = q0.copy()
    read_only.flags.writeable = False
    starts = {
        "big-endian float64": q0.astype(">f8"),
        "float32": q0.astype(np.float32),
        "list": list(q0),
        "strided view": np.repeat(q0, 2)[::2],
        "row of a matrix": np.stack([q0 - 1.0, q0])[1],
        "read-only": read_only,
    }
    for name, start in starts.items():
        np.testing.assert_array_equal(solver.solve(pose_problem, start).q, expected,
                                      err_msg=name)


def test_restarts_and_hermite_path_wrap_any_solver(panda):
    problem, q0 = near_pose_problem(panda, 9)
    restarts = iklab.RestartSolver(iklab.LbfgsbSolver(), max_attempts=5, seed=3)
    assert restarts.options.max_attempts == 5
    first = restarts.solve(problem, q0)
    again = restarts.solve(problem, q0)
    assert first.converged
    np.testing.assert_array_equal(first.q, again.q)
    path = iklab.HermitePathSolver(iklab.LbfgsbSolver(), frames=4)
    assert path.frames == 4
    assert path.solve(problem, q0).converged
    with pytest.raises(ValueError, match="RestartSolver"):
        iklab.RestartSolver(iklab.LbfgsbSolver(), max_attempts=0)


def test_trajectory_follows_a_moving_position_goal(panda):
    q0 = panda.mid_limits()
    start = panda.site_pose(q0, PANDA_TIP)[:3, 3]
    end = start + [0.0, 0.1, -0.05]
    goal = iklab.PositionGoal(panda, PANDA_TIP, start)
    problem = iklab.Problem(panda)
    problem.add_goal(goal)
    path = iklab.hermite_path(start, end)
    np.testing.assert_allclose(path(1.0), end)
    np.testing.assert_allclose(iklab.linear_path(start, end)(0.5), (start + end) / 2)
    results = iklab.solve_trajectory(iklab.LbfgsbSolver(), problem, q0, 5,
                                     iklab.move_position_goal(goal, path))
    assert len(results) == 5 and all(r.converged for r in results)
    np.testing.assert_allclose(panda.site_pose(results[-1].q, PANDA_TIP)[:3, 3], end,
                               atol=1e-5)

    # A Python callable is a goal path too.
    frames = []

    def python_path(frame, s, problem):
        frames.append(frame)
        problem.goals[0].target = start + s * (end - start)

    results = iklab.solve_trajectory(iklab.LbfgsbSolver(), problem, q0, 3, python_path)
    assert frames == [1, 2, 3] and results[-1].converged


def test_two_link_closed_form():
    solutions = iklab.solve_two_link_planar(1.0, 1.0, [1.0, 1.0])
    assert solutions.reachable and solutions.num_solutions == 2
    for angles in solutions.solutions:
        np.testing.assert_allclose(iklab.two_link_tip(1.0, 1.0, angles), [1.0, 1.0],
                                   atol=1e-12)
    assert not iklab.solve_two_link_planar(1.0, 1.0, [3.0, 0.0]).reachable
    model = iklab.planar_chain([1.0, 1.0]).compile()
    problem = iklab.Problem(model)
    problem.add_goal(iklab.PositionGoal(model, model.site_names[-1], [1.0, 1.0, 0.0]))
    result = iklab.TwoLinkAnalyticSolver(elbow=iklab.TwoLinkElbow.NEGATIVE).solve(
        problem, [0.0, 0.0])
    assert result.converged and result.q[1] <= 0


def test_six_r_closed_form_on_the_ur5():
    robot = next(r for r in iklab.standard_robots() if r.name == "ur5")
    model = iklab.load_urdf(robot.urdf_path, base_link=robot.base_link,
                            tip_link=robot.tip_link).compile()
    q = np.array([0.3, -1.0, 1.2, -0.5, 0.8, 0.2])
    X = model.site_pose(q, robot.tip_link)
    arm = iklab.SixRArm.create(model, robot.tip_link)
    solutions = arm.all_solutions(X)
    assert len(solutions) >= 1
    for q_solution, _ in solutions:
        np.testing.assert_allclose(model.site_pose(q_solution, robot.tip_link), X,
                                   atol=1e-9)
    problem = iklab.Problem(model)
    problem.add_goal(iklab.PositionOrientationGoal(model, robot.tip_link, X))
    assert iklab.SixRAnalyticSolver().solve(problem, model.mid_limits()).converged
    panda = iklab.load_urdf(iklab.data_file("robots/panda.urdf"), base_link="panda_link0",
                            tip_link=PANDA_TIP).compile()
    with pytest.raises(ValueError, match="SixRArm"):
        iklab.SixRArm.create(panda, PANDA_TIP)


def test_tolani_limb_closed_form():
    geometry = iklab.tolani_arm_geometry()
    ik = iklab.TolaniLimbIk(geometry)
    q = (ik.lower + ik.upper) / 2 + 0.1
    G = ik.forward(q)
    solution = ik.solve_pose(G, options=iklab.LimbIkOptions(
        swivel_choice=iklab.SwivelChoice.LONGEST_ARC_MIDPOINT))
    assert solution.status == iklab.LimbIkStatus.SOLVED
    np.testing.assert_allclose(ik.forward(solution.q), G, atol=1e-8)
    model = iklab.limb_figure(geometry).compile()
    site = geometry.tip_site_name
    q_model = model.mid_limits() + 0.1
    problem = iklab.Problem(model)
    problem.add_goal(iklab.PositionOrientationGoal(model, site,
                                                   model.site_pose(q_model, site)))
    result = iklab.TolaniLimbSolver().solve(problem, model.mid_limits())
    assert result.converged, result.message
    with pytest.raises(ValueError, match="LimbIkOptions: unknown option"):
        iklab.LimbIkOptions(swivel=1.0)


def test_srs_arm_all_solutions_round_trip():
    iiwa = iklab.load_urdf(iklab.data_file("robots/iiwa14.urdf"), base_link="base",
                           tip_link="iiwa_link_ee").compile()
    site = iiwa.num_sites - 1
    arm = iklab.SrsArm.create(iiwa, site)
    assert len(arm.coordinates) == 7
    rng = np.random.default_rng(3)
    lower, upper = iiwa.lower, iiwa.upper
    for _ in range(20):
        theta = rng.uniform(lower, upper)
        X = arm.forward(theta)
        solutions = arm.all_solutions(X)
        assert solutions.num_elbow_roots >= 1
        intervals = solutions.valid_swivel()
        assert intervals, "the generating pose is within the limits"
        lo, hi = intervals[0]
        branches = solutions.branches((lo + hi) / 2)
        assert any(b.within_limits for b in branches)
        for b in branches:
            np.testing.assert_allclose(arm.forward(b.theta), X, atol=1e-9)
    panda = iklab.load_urdf(iklab.data_file("robots/panda.urdf"), base_link="panda_link0",
                            tip_link=PANDA_TIP).compile()
    with pytest.raises(ValueError, match="SrsArm"):
        iklab.SrsArm.create(panda, PANDA_TIP)


def test_the_registry_lists_and_makes_every_solver(panda):
    entries = iklab.solver_registry()
    names = iklab.solver_names()
    assert [e.name for e in entries] == names
    assert len(set(names)) == len(names)
    assert {e.family for e in entries} == {
        "optimization", "constrained", "differential", "analytic"}
    assert iklab.study_solver_labels() == names
    for e in entries:
        solver = iklab.make_solver(e.name)
        assert solver.name == e.name
    dls = next(e for e in entries if e.name == "dls")
    assert dls.defaults.max_iterations == 500
    assert "Parent" in dls.reference
    # Common settings replace the defaults: one iteration is not enough.
    common = iklab.SolveOptions(max_iterations=1)
    problem, q0 = near_pose_problem(panda, 5)
    result = iklab.make_solver("dls", common).solve(problem, q0)
    assert result.iterations == 1
    assert result.status == iklab.SolveStatus.MAX_ITERATIONS
    with pytest.raises(ValueError, match="no solver named 'fastest'.*bounded-lm"):
        iklab.make_solver("fastest")
