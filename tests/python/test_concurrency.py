"""A Problem that a solve is reading (in another thread, without the GIL)
cannot be changed underneath it; argument type errors name the argument."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import iklab

# Runs in a child interpreter: before the guard, adding goals while another
# thread solved killed the interpreter (SIGSEGV or a malloc abort), which
# would take pytest down with it.
MUTATE_WHILE_SOLVING = textwrap.dedent("""
    import threading
    import time
    import iklab

    arm = iklab.load_urdf(iklab.data_file("robots/panda.urdf"),
                          base_link="panda_link0", tip_link="panda_hand")
    model = arm.compile()
    problem = iklab.Problem(model)
    problem.add_goal(iklab.PositionGoal(model, "panda_hand", [0.4, 0.1, 0.5]))
    solver = iklab.BoundedLmSolver(time_budget_seconds=0.0, max_iterations=50)

    stop = threading.Event()
    def solve():
        while not stop.is_set():
            solver.solve(problem, model.mid_limits())

    worker = threading.Thread(target=solve)
    worker.start()
    refused = added = 0
    message = ""
    end = time.monotonic() + 2.0
    while time.monotonic() < end and added < 2000:
        try:
            problem.add_goal(iklab.PositionGoal(model, "panda_hand", [0.3, 0.0, 0.6]))
            added += 1
        except RuntimeError as e:
            refused += 1
            message = str(e)
    stop.set()
    worker.join()
    # Once the solves are over the Problem can be changed again.
    problem.add_goal(iklab.PositionGoal(model, "panda_hand", [0.3, 0.0, 0.6]))
    print(refused, added, message)
""")



def test_a_problem_being_solved_in_another_thread_refuses_new_goals():
    run = subprocess.run([sys.executable, "-c", MUTATE_WHILE_SOLVING],
                         capture_output=True, text=True, timeout=120,
                         env=os.environ.copy())
    assert run.returncode == 0, (run.returncode, run.stderr[-2000:])
    refused, added, message = run.stdout.split(" ", 2)
    assert int(refused) > 0
    assert "Problem.add_goal" in message and "being solved" in message


def test_problem_mutators_refuse_only_during_a_solve(panda):
    problem = iklab.Problem(panda)
    problem.add_goal(iklab.PositionGoal(panda, "panda_hand", [0.4, 0.1, 0.5]))
    problem.bounds = problem.bounds  # allowed: no solve is running
    result = iklab.BoundedLmSolver().solve(problem, panda.mid_limits())
    assert result.status in (iklab.SolveStatus.CONVERGED, iklab.SolveStatus.LOCAL_MINIMUM)
    problem.add_regularizer(iklab.PositionGoal(panda, "panda_hand", [0.4, 0.1, 0.5]))
    assert len(problem.regularizers) == 1


@pytest.mark.parametrize("threads", ["2", 2.0, True, [2]])
def test_a_thread_count_of_the_wrong_type_is_a_type_error_naming_it(panda, threads):
    problem = iklab.Problem(panda)
    problem.add_goal(iklab.PositionGoal(panda, "panda_hand", [0.4, 0.1, 0.5]))
    targets = np.array([[0.4, 0.1, 0.5]])
    with pytest.raises(TypeError, match=r"^threads must be an int, got "):
        iklab.solve_batch(problem, targets, panda.mid_limits()[None, :],
                          iklab.BoundedLmSolver(), threads=threads)


def test_a_numpy_integer_thread_count_is_accepted(panda):
    problem = iklab.Problem(panda)
    problem.add_goal(iklab.PositionGoal(panda, "panda_hand", [0.4, 0.1, 0.5]))
    result = iklab.solve_batch(problem, np.array([[0.4, 0.1, 0.5]]),
                               panda.mid_limits()[None, :], iklab.BoundedLmSolver(),
                               threads=np.int64(2))
    assert len(result) == 1


def test_options_of_the_wrong_type_are_a_type_error_naming_them():
    with pytest.raises(TypeError, match="BoundedLmSolver: options must be a BoundedLmOptions"):
        iklab.BoundedLmSolver(options=iklab.LbfgsbOptions())
    with pytest.raises(TypeError, match="make_solver: common must be a SolveOptions"):
        iklab.make_solver("lbfgsb", common=3)
