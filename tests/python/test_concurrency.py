"""A Problem, its goals and its bounds, while a solve is reading them (in
another thread, without the GIL), cannot be changed underneath it;
argument type errors name the argument."""

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


# Runs in a child interpreter: one thread solves (without the GIL) while this
# one sets the goal's target, a Problem's bounds in place, the goal's weight
# and a regularizer's reference in a loop. Before the guard covered them the
# setters went through mid-solve: a solve's reported goal error then matched
# neither target (a torn or changed read), which the child counts.
SET_WHILE_SOLVING = textwrap.dedent("""
    import sys
    import threading
    import time
    import numpy as np
    import iklab

    arm = iklab.load_urdf(iklab.data_file("robots/panda.urdf"),
                          base_link="panda_link0", tip_link="panda_hand")
    model = arm.compile()
    A = np.array([0.4, 0.1, 0.5])
    B = np.array([0.3, -0.1, 0.6])
    goal = iklab.PositionGoal(model, "panda_hand", A)
    reg = iklab.TikhonovRegularizer(model, 1e-6, model.mid_limits())
    problem = iklab.Problem(model)
    # The goal sits inside a composite: the guard must find it there too.
    problem.add_goal(iklab.WeightedSumGoal([goal]))
    problem.add_regularizer(reg)
    solver = iklab.BoundedLmSolver(time_budget_seconds=0.0, max_iterations=50)
    mode = sys.argv[1]

    stop = threading.Event()
    results = []
    def solve():
        while not stop.is_set():
            if mode == "batch":
                batch = iklab.solve_batch(problem, [problem, problem],
                                          np.stack([model.mid_limits()] * 2),
                                          solver, threads=2)
                results.extend(batch.q)
            else:
                r = solver.solve(problem, model.mid_limits())
                results.append((r.q, r.goal_errors[0].position))

    worker = threading.Thread(target=solve)
    worker.start()
    refused = {}
    went_through = 0
    messages = {}
    setters = {
        "target": lambda i: setattr(goal, "target", A if i % 2 else B),
        "bounds": lambda i: problem.bounds.set(0, -2.0 + 0.1 * (i % 2), 2.0),
        "weight": lambda i: setattr(goal, "weight", 1.0 + (i % 2)),
        "reference": lambda i: setattr(reg, "reference", model.mid_limits() + 0.01 * (i % 2)),
    }
    end = time.monotonic() + 1.5
    i = 0
    while time.monotonic() < end:
        for name, setter in setters.items():
            try:
                setter(i)
                went_through += 1
            except RuntimeError as e:
                refused[name] = refused.get(name, 0) + 1
                messages[name] = str(e)
        i += 1
    stop.set()
    worker.join()
    # A solve's reported error must be the distance to one of the targets.
    torn = 0
    if mode == "single":
        for q, error in results:
            p = model.site_pose(q, "panda_hand")[:3, 3]
            if min(abs(error - np.linalg.norm(p - A)),
                   abs(error - np.linalg.norm(p - B))) > 1e-9:
                torn += 1
    # Once the solves are over every setter works again.
    goal.target = A
    problem.bounds.set(0, -2.0, 2.0)
    goal.weight = 1.0
    reg.reference = model.mid_limits()
    print(repr({"refused": refused, "went_through": went_through, "torn": torn,
                "solves": len(results), "messages": messages}))
""")


@pytest.mark.parametrize("mode", ["single", "batch"])
def test_goal_and_bounds_setters_refuse_while_a_solve_reads_them(mode):
    run = subprocess.run([sys.executable, "-c", SET_WHILE_SOLVING, mode],
                         capture_output=True, text=True, timeout=120,
                         env=os.environ.copy())
    assert run.returncode == 0, (run.returncode, run.stderr[-2000:])
    report = eval(run.stdout)  # a dict printed by the child  # noqa: S307
    assert report["solves"] > 0
    assert report["torn"] == 0, report
    for name, what in [("target", "PositionGoal.target"), ("bounds", "Bounds.set"),
                       ("weight", "Goal.weight"),
                       ("reference", "TikhonovRegularizer.reference")]:
        assert report["refused"].get(name, 0) > 0, (name, report)
        message = report["messages"][name]
        assert message.startswith(what + ":") and "being solved" in message, message
        assert "after the solve returns" in message, message


def test_goal_setters_work_between_solves_and_in_a_trajectory_path(panda):
    goal = iklab.PositionGoal(panda, "panda_hand", [0.4, 0.1, 0.5])
    problem = iklab.Problem(panda)
    problem.add_goal(goal)
    iklab.BoundedLmSolver().solve(problem, panda.mid_limits())
    goal.target = [0.3, 0.0, 0.6]
    goal.weight = 2.0
    problem.bounds.set(0, -1.0, 1.0)
    assert goal.weight == 2.0 and problem.bounds.upper[0] == 1.0
    # The path of solve_trajectory runs between frames, when no solve reads
    # the problem: it may move the goal (but other solves' marks stay).
    other = iklab.Problem(panda)
    seen = []

    def path(frame, s, p):
        p.goals[0].target = [0.4, 0.1, 0.5 + 0.01 * s]
        p.bounds.set(1, -1.5, 1.5)
        seen.append(frame)

    results = iklab.solve_trajectory(iklab.BoundedLmSolver(), problem,
                                     panda.mid_limits(), 3, path)
    assert seen == [1, 2, 3] and len(results) == 3
    other.add_goal(goal)  # after the trajectory, nothing holds the goal
    goal.target = [0.4, 0.1, 0.5]


def test_a_solvers_options_are_a_copy_that_cannot_change_it():
    # Before, `options` was a view: writing to it changed the solver's
    # options while solves in other threads read them without the GIL.
    solver = iklab.BoundedLmSolver(max_attempts=2)
    options = solver.options
    options.max_attempts = 5
    solver.options.common.max_iterations = 7
    assert solver.options.max_attempts == 2
    assert solver.options.common.max_iterations == iklab.BoundedLmOptions().common.max_iterations
    restarts = iklab.RestartSolver(iklab.LbfgsbSolver(), max_attempts=3)
    restarts.options.max_attempts = 99
    assert restarts.options.max_attempts == 3


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
