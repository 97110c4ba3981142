"""solve_batch: one solve per target on several threads, without the GIL."""

import threading

import numpy as np
import pytest

import iklab
from conftest import PANDA_TIP


@pytest.fixture(scope="module")
def targets(panda):
    poses, seeds = iklab.generate_targets(panda, PANDA_TIP, 40, seed=5)
    return poses, seeds


def test_batch_equals_one_solve_per_target_bit_for_bit(panda, pose_problem, targets):
    poses, seeds = targets
    solver = iklab.LbfgsbSolver()
    batch = iklab.solve_batch(pose_problem, poses, seeds, solver, threads=2)
    assert batch.q.shape == (40, 7) and len(batch) == 40
    for i in range(len(poses)):
        problem = iklab.Problem(panda)
        problem.add_goal(iklab.PositionOrientationGoal(panda, PANDA_TIP,
                                                       (poses[i, :3], poses[i, 3:])))
        single = solver.solve(problem, seeds[i])
        np.testing.assert_array_equal(batch.q[i], single.q)
        assert batch.status[i] == int(single.status)
        assert batch.iterations[i] == single.iterations
        assert batch.position_error[i] == single.goal_errors[0].position
        assert batch.angle_error[i] == single.goal_errors[0].angle
    assert batch.converged.mean() > 0.3
    assert np.all(batch.microseconds > 0)


@pytest.mark.parametrize("solver", [
    iklab.LbfgsbSolver(),
    iklab.BoundedLmSolver(time_budget_seconds=0.0, max_iterations=300),
    iklab.RestartSolver(iklab.DampedLeastSquaresSolver(), max_attempts=3, seed=4),
], ids=["lbfgsb", "bounded-lm", "dls+restarts"])
def test_batch_answers_do_not_depend_on_the_thread_count(pose_problem, targets, solver):
    poses, seeds = targets
    one = iklab.solve_batch(pose_problem, poses, seeds, solver, threads=1)
    for threads in (2, 3, 8):
        many = iklab.solve_batch(pose_problem, poses, seeds, solver, threads=threads)
        np.testing.assert_array_equal(many.q, one.q)
        np.testing.assert_array_equal(many.status, one.status)
    default = iklab.solve_batch(pose_problem, poses, seeds, solver)  # all cores
    np.testing.assert_array_equal(default.q, one.q)


def test_batch_of_positions_and_of_problems(panda, targets):
    poses, seeds = targets
    template = iklab.Problem(panda)
    template.add_goal(iklab.PositionGoal(panda, PANDA_TIP, [0, 0, 0]))
    template.add_regularizer(iklab.TikhonovRegularizer(panda, 1e-6, panda.mid_limits()))
    solver = iklab.LbfgsbSolver()
    batch = iklab.solve_batch(template, poses[:, :3], seeds, solver, threads=2)
    problems = []
    for p in poses[:, :3]:
        problem = iklab.Problem(panda)
        problem.add_goal(iklab.PositionGoal(panda, PANDA_TIP, p))
        problem.add_regularizer(iklab.TikhonovRegularizer(panda, 1e-6, panda.mid_limits()))
        problems.append(problem)
    listed = iklab.solve_batch(template, problems, seeds, solver, threads=2)
    np.testing.assert_array_equal(listed.q, batch.q)
    assert np.median(batch.position_error) < 1e-4  # near, displaced by the regularizer
    # The template's regularizer is kept: not the same as without it.
    plain = iklab.Problem(panda)
    plain.add_goal(iklab.PositionGoal(panda, PANDA_TIP, [0, 0, 0]))
    assert not np.array_equal(iklab.solve_batch(plain, poses[:, :3], seeds, solver).q,
                              batch.q)


def test_batch_outputs_are_numpy_views(pose_problem, targets):
    poses, seeds = targets
    batch = iklab.solve_batch(pose_problem, poses, seeds, iklab.LbfgsbSolver())
    assert batch.q.dtype == np.float64 and not batch.q.flags.owndata
    assert batch.status.dtype == np.int8
    assert set(batch.status) <= {int(s) for s in iklab.SolveStatus.__members__.values()}
    # Fortran-ordered and integer inputs are accepted (converted).
    again = iklab.solve_batch(pose_problem, np.asfortranarray(poses), seeds,
                              iklab.LbfgsbSolver())
    np.testing.assert_array_equal(again.q, batch.q)


def test_batch_releases_the_gil(pose_problem, panda):
    poses, seeds = iklab.generate_targets(panda, PANDA_TIP, 600, seed=8)
    done = threading.Event()

    def work():
        iklab.solve_batch(pose_problem, poses, seeds, iklab.LbfgsbSolver(), threads=1)
        done.set()

    worker = threading.Thread(target=work)
    worker.start()
    ticks = 0
    while not done.is_set():
        ticks += 1
        done.wait(0.001)
    worker.join()
    assert ticks > 20  # the main thread ran while the batch was solving


def test_batch_rejects_bad_input_naming_the_argument(panda, pose_problem, targets):
    poses, seeds = targets
    solver = iklab.LbfgsbSolver()
    with pytest.raises(ValueError, match=r"targets must have shape \(B, 7\).*got \(40, 5\)"):
        iklab.solve_batch(pose_problem, poses[:, :5], seeds, solver)
    with pytest.raises(ValueError, match=r"q0 must have shape \(B, nq\) = \(40, 7\), "
                                         r"got shape \(40, 6\)"):
        iklab.solve_batch(pose_problem, poses, seeds[:, :6], solver)
    with pytest.raises(ValueError, match=r"q0 must have shape .* got shape \(39, 7\)"):
        iklab.solve_batch(pose_problem, poses, seeds[1:], solver)
    with pytest.raises(ValueError, match="targets must be a numeric array.*dtype"):
        iklab.solve_batch(pose_problem, poses.astype(str), seeds, solver)
    with pytest.raises(ValueError, match="threads must be >= 1, got 0"):
        iklab.solve_batch(pose_problem, poses, seeds, solver, threads=0)
    bad = poses.copy()
    bad[3, 3:] = 0
    with pytest.raises(ValueError, match=r"targets row 3 columns 3..6 \(quaternion w x y z\) must have a norm"):
        iklab.solve_batch(pose_problem, bad, seeds, solver)
    bad[3, 3:] = [1, 0, 0, 0]
    bad[5, 0] = np.nan
    with pytest.raises(ValueError, match="targets has a non-finite entry"):
        iklab.solve_batch(pose_problem, bad, seeds, solver)
    empty = iklab.Problem(panda)
    with pytest.raises(ValueError, match="the problem has no PositionOrientationGoal"):
        iklab.solve_batch(empty, poses, seeds, solver)
    with pytest.raises(ValueError, match="goal 2 of the problem is not a PositionGoal"):
        iklab.solve_batch(pose_problem, poses[:, :3], seeds, solver, goal=2)
    with pytest.raises(ValueError, match=r"q0 must have shape \(B, nq\) = \(2, 7\)"):
        iklab.solve_batch(pose_problem, [pose_problem, pose_problem], seeds, solver)


def test_bounded_lm_batches_run_on_simd_lanes_and_say_so(panda, pose_problem, targets):
    poses, seeds = targets
    simd = iklab.solve_batch(pose_problem, poses, seeds,
                             iklab.BoundedLmSolver(time_budget_seconds=0.0), threads=2)
    assert simd.method.startswith("simd-bounded-lm")
    assert simd.converged.all()
    assert (simd.position_error <= 1e-6).all()
    scalar = iklab.solve_batch(pose_problem, poses, seeds, iklab.LbfgsbSolver(), threads=2)
    assert scalar.method.startswith("scalar: the solver is")
