"""Studies written in Python (iklab.Study): a Python scenario, solver
factory, accept test and claims; results as NumPy arrays and a DataFrame;
the same outputs and report as a C++ study; errors raised in a callable."""

import csv
import json
import os

import numpy as np
import pytest

import iklab
from conftest import PANDA_TIP


def fk_scenario(context):
    """A pose goal at the tip's pose at a random configuration: reachable by
    construction, and the configuration is known (q_generator)."""
    q = context.random_configuration()
    problem = iklab.Problem(context.model)
    problem.add_goal(iklab.PositionOrientationGoal(context.model, PANDA_TIP,
                                                   context.model.site_pose(q, PANDA_TIP)))
    return iklab.Trial(problem, q_generator=q)


def make_study(panda, **fields):
    settings = dict(name="python-study", model=panda, scenario=fk_scenario, trials=12,
                    seed=5, solvers=["bounded-lm"], time_budget_seconds=0.0, threads=2)
    settings.update(fields)
    return iklab.Study(**settings)


def fk_error(panda, q, target):
    """Position and angle error of the tip at q against a 4x4 target,
    computed here from FK, independently of the study."""
    pose = panda.site_pose(q, PANDA_TIP)
    position = np.linalg.norm(pose[:3, 3] - target[:3, 3])
    cosine = (np.trace(target[:3, :3].T @ pose[:3, :3]) - 1.0) / 2.0
    return position, np.arccos(np.clip(cosine, -1.0, 1.0))


def test_bounded_lm_solves_every_goal_made_from_forward_kinematics(panda):
    targets = {}

    def recording_scenario(context):
        trial = fk_scenario(context)
        targets[context.index] = trial.problem.goals[0]
        return trial

    study = make_study(panda, scenario=recording_scenario)
    result = study.run()
    assert result.study is study
    arrays = result.arrays()
    assert arrays["q"].shape == (12, panda.nq)
    assert np.all(arrays["success"]) and result.summaries[0].success_rate == 1.0
    # Each answer meets its trial's goal, checked from FK here.
    for trial, q in zip(arrays["trial"], arrays["q"]):
        position, angle = fk_error(panda, q, targets[trial].target)
        assert position <= study.position_tolerance and angle <= study.angle_tolerance
        assert np.all(q >= panda.lower - 1e-9) and np.all(q <= panda.upper + 1e-9)
    # The record's recomputed errors are the ones the arrays carry.
    np.testing.assert_array_equal(arrays["goal0_position_error"],
                                  [r.errors[0].position for r in result.records])


def test_a_solver_factory_and_an_accept_test_written_in_python(panda):
    made, accepted = [], []

    def make_dls(common, trial):
        made.append((trial, common))  # kept after the call: copies
        assert trial.q_generator.shape == (panda.nq,)
        return iklab.DampedLeastSquaresSolver(common=common, max_iterations=2)

    def accept(record):
        accepted.append(record)  # kept after the call: the record is a copy
        return bool(record.errors[0].position < 1.0)  # a loose test of our own

    study = make_study(panda, solvers=[iklab.StudySolver("dls-2", make_dls)], accept=accept)
    result = study.run()
    # Once per trial, and trial 0 once more for its convergence curve.
    assert sorted(trial.index for trial, _ in made) == sorted(list(range(12)) + [0])
    assert all(common.time_budget_seconds == 0.0 for _, common in made)
    assert all(trial.problem.goals[0].target.shape == (4, 4) for trial, _ in made)
    assert sorted(record.trial for record in accepted) == list(range(12))
    assert all(record.q.shape == (panda.nq,) for record in accepted)
    # The accept test replaced the built-in check: two DLS iterations do not
    # converge, yet every solve within 1 m counts as a success.
    arrays = result.arrays()
    assert not np.any(arrays["claimed"])
    np.testing.assert_array_equal(arrays["success"], arrays["goal0_position_error"] < 1.0)
    assert result.solver_labels == ["dls-2"]


def test_the_same_seed_gives_the_same_arrays_on_one_and_two_threads(panda):
    solvers = ["bounded-lm", iklab.StudySolver(
        "dls", lambda common, trial: iklab.make_solver("dls", common))]
    one = make_study(panda, solvers=solvers, threads=1).run().arrays()
    two = make_study(panda, solvers=solvers, threads=2).run().arrays()
    other_seed = make_study(panda, solvers=solvers, seed=6).run().arrays()
    assert set(one) == set(two)
    for name in one:
        if name != "microseconds":
            np.testing.assert_array_equal(one[name], two[name], err_msg=name)
    assert not np.array_equal(one["q0"], other_seed["q0"])


def test_claims_and_outputs_are_a_c_plus_plus_studys(panda, tmp_path):
    def claims(result):
        lm = result.summary("bounded-lm")
        return [iklab.Claim("bounded LM solves every reachable pose", "100 %",
                            f"{100 * lm.success_rate:.0f} %", lm.success_rate == 1.0,
                            f"{lm.successes} of {lm.solves} verified"),
                # False by construction: every goal is reachable.
                iklab.Claim("bounded LM fails on some reachable pose", "some failure",
                            f"{lm.solves - lm.successes} failures",
                            lm.successes < lm.solves, "every solve verified")]

    study = make_study(panda, claims=claims, title="Python scenario on the Panda")
    result = study.run()
    written = study.write_report(result, str(tmp_path))
    verdicts = [c.verdict for c in written["claims"]]
    assert verdicts == ["reproduced", "differs"]
    summary = json.load(open(os.path.join(written["dir"], "summary.json")))
    assert [c["verdict"] for c in summary["claims"]] == verdicts
    report = open(written["report"], encoding="utf-8").read()
    assert "bounded LM fails on some reachable pose" in report and "differs" in report
    assert os.path.isfile(written["html"]) and os.path.isfile(written["page"])
    for name in ("trials.csv", "solvers.csv", "study.json", "success.png"):
        assert os.path.isfile(os.path.join(written["dir"], name)), name
    with open(os.path.join(written["dir"], "trials.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    arrays = result.arrays()
    assert [int(r["success"]) for r in rows] == arrays["success"].astype(int).tolist()
    pd = pytest.importorskip("pandas")
    frame = result.to_pandas()
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.columns) == list(rows[0].keys())
    assert frame["status"].iloc[0] == rows[0]["status"]
    np.testing.assert_allclose(frame["q_panda_joint1"], [float(r["q_panda_joint1"]) for r in rows])


@pytest.mark.parametrize("where", ["scenario", "factory", "accept", "claims"])
def test_an_exception_in_a_callable_names_it_and_the_trial(panda, tmp_path, where):
    def scenario(context):
        if where == "scenario" and context.index == 3:
            raise ZeroDivisionError("no goal for trial 3")
        return fk_scenario(context)

    def factory(common, trial):
        if where == "factory" and trial.index == 4:
            raise KeyError("no solver for trial 4")
        return iklab.BoundedLmSolver(common=common)

    def accept(record):
        if where == "accept" and record.trial == 5:
            raise ValueError("cannot judge trial 5")
        return True

    def claims(result):
        raise ArithmeticError("no claim")

    study = make_study(panda, scenario=scenario, accept=accept, claims=claims,
                       solvers=[iklab.StudySolver("lm", factory)])
    if where == "claims":
        with pytest.raises(RuntimeError,
                           match=r"study 'python-study': claims 'test_an_exception.*claims' "
                                 r"raised ArithmeticError: no claim") as raised:
            study.write_report(study.run(), str(tmp_path))
        assert isinstance(raised.value.__cause__, ArithmeticError)
        return
    expected = {"scenario": (r"scenario '.*scenario' at trial 3 raised ZeroDivisionError: "
                             r"no goal for trial 3", ZeroDivisionError),
                "factory": (r"solver factory 'lm' '.*factory' at trial 4 raised KeyError",
                            KeyError),
                "accept": (r"accept '.*accept' at trial 5 raised ValueError: cannot judge",
                           ValueError)}[where]
    with pytest.raises(RuntimeError, match=expected[0]) as raised:
        study.run()
    assert isinstance(raised.value.__cause__, expected[1])


def test_callables_returning_the_wrong_thing_are_refused_with_a_reason(panda):
    study = make_study(panda, scenario=lambda context: "a problem")
    with pytest.raises(RuntimeError, match="must return an iklab.Problem or an iklab.Trial, "
                                           "got str"):
        study.run()
    study = make_study(panda, solvers=[iklab.StudySolver("none", lambda c, t: None)])
    with pytest.raises(RuntimeError, match="must return an iklab solver"):
        study.run()
    with pytest.raises(TypeError, match="Study.scenario must be callable or None, got int"):
        study.scenario = 3
    with pytest.raises(TypeError, match="Study has no field 'trails'"):
        iklab.Study(trails=3)
    with pytest.raises(TypeError, match="each entry must be a registered solver name"):
        study.solvers = [3]
    with pytest.raises(ValueError, match="no solver named .fastest."):
        study.solvers = ["fastest"]
    with pytest.raises(ValueError, match="attempts must be >= 1"):
        iklab.StudySolver("x", lambda c, t: None, attempts=0)
