"""Bindings of lab/, bench/ and experiments/: data, studies, the benchmark
protocol, and the experiments (list, run one, run several with a report)."""

import os

import numpy as np
import pytest

import iklab
from conftest import PANDA_TIP


def test_shipped_data_is_found():
    assert os.path.isdir(iklab.data_directory())
    assert iklab.data_file("robots/panda.urdf").endswith("panda.urdf")
    with pytest.raises(ValueError, match="data file .* not found"):
        iklab.data_file("robots/none.urdf")
    with pytest.raises(ValueError, match="is not a folder"):
        iklab.set_data_directory("/nonexistent/folder")


def test_experiments_are_listed_and_one_runs(tmp_path):
    experiments = iklab.list_experiments()
    names = [e["name"] for e in experiments]
    assert len(names) == len(set(names)) > 10
    assert "nlp-example-3.1" in names
    assert all(e["title"] and e["source"] for e in experiments)
    run = iklab.run_experiment("nlp-example-3.1", str(tmp_path), quick=True)
    assert run["error"] == ""
    assert run["claims"] and {c["verdict"] for c in run["claims"]} <= {"reproduced",
                                                                       "differs"}
    assert os.listdir(run["dir"])  # the experiment wrote its outputs
    with pytest.raises(ValueError, match="unknown experiment 'nope'; known: "):
        iklab.run_experiment("nope", str(tmp_path))


def test_several_experiments_write_a_report(tmp_path):
    report, runs = iklab.run_experiments(str(tmp_path), names=["nlp-example-3.1"],
                                         quick=True)
    assert os.path.isfile(report) and len(runs) == 1
    with pytest.raises(ValueError, match="threads must be >= 1"):
        iklab.run_experiments(str(tmp_path), names=[], threads=0)


def test_a_study_runs_solvers_on_the_same_trials(panda):
    result = iklab.run_study(panda, [iklab.GoalSpec.pose(PANDA_TIP)],
                             solvers=["lbfgsb", "dls"], trials=6, seed=3,
                             time_budget_seconds=0.0, threads=2)
    assert [s.label for s in result.summaries] == ["lbfgsb", "dls"]
    assert result.summary("lbfgsb").solves == 6
    assert len(result.records) == 12
    again = iklab.run_study(panda, [iklab.GoalSpec.pose(PANDA_TIP)],
                            solvers=["lbfgsb", "dls"], trials=6, seed=3,
                            time_budget_seconds=0.0, threads=1)
    for a, b in zip(result.records, again.records):
        np.testing.assert_array_equal(a.q, b.q)
    assert "lbfgsb" in iklab.study_solver_labels()
    with pytest.raises(ValueError, match="no solver named .fastest."):
        iklab.run_study(panda, [iklab.GoalSpec.pose(PANDA_TIP)], solvers=["fastest"])
    specs = [iklab.GoalSpec.position(PANDA_TIP), iklab.GoalSpec.cone(PANDA_TIP, [0, 0, 1], 0.2),
             iklab.GoalSpec.any_of([iklab.GoalSpec.position(PANDA_TIP),
                                    iklab.GoalSpec.plane(PANDA_TIP)]),
             iklab.GoalSpec.gaze(PANDA_TIP, [0, 0, 1], 0.1, 0.5),
             iklab.GoalSpec.orientation_box(PANDA_TIP, 0.1),
             iklab.GoalSpec.point_distance(PANDA_TIP, 0.3, 0.01),
             iklab.GoalSpec.site_distance(PANDA_TIP, "panda_link4", 0.01),
             iklab.GoalSpec.relative_pose(PANDA_TIP, "panda_link4"),
             iklab.GoalSpec.relative_position(PANDA_TIP, "panda_link4"),
             iklab.GoalSpec.joint_range([0, 1], 0.1),
             iklab.GoalSpec.joint_posture([])]
    assert all(spec.label() for spec in specs)
    assert specs[-1].kind == iklab.GoalKind.JOINT_POSTURE
    # The new kinds run in a study like the others, and the generating pose meets them.
    result = iklab.run_study(panda, specs[3:6], trials=4, solvers=["bounded-lm"], seed=2)
    assert result.summaries[0].solves == 4


def test_the_benchmark_protocol_on_given_targets(panda):
    poses, seeds = iklab.generate_targets(panda, PANDA_TIP, 10, seed=4,
                                          mode=iklab.SeedMode.RANDOM)
    assert poses.shape == (10, 7) and seeds.shape == (10, 7)
    for pose, seed in zip(poses[:3], seeds[:3]):
        assert panda.within_limits(seed)
        assert abs(np.linalg.norm(pose[3:]) - 1) < 1e-12
    out = iklab.run_benchmark(panda, PANDA_TIP, "bounded-lm", poses, seeds,
                              time_budget_seconds=0.05, robot="panda")
    summary = out["summary"]
    assert summary.targets == 10 and summary.solver == "bounded-lm"
    assert out["q"].shape == (10, 7)
    for q, pose, success in zip(out["q"], poses, out["success"]):
        check = iklab.verify(panda, PANDA_TIP, q, (pose[:3], pose[3:]), 1e-5)
        if success:  # a success passed the independent check (late answers fail)
            assert check.success
    assert summary.solve_rate > 0.5
    assert "bounded-lm" in iklab.benchmark_solver_names()
    names = [r.name for r in iklab.standard_robots()]
    assert "panda" in names and "ur5" in names
    with pytest.raises(ValueError, match="unknown benchmark solver 'x'"):
        iklab.run_benchmark(panda, PANDA_TIP, "x", poses, seeds)
    with pytest.raises(ValueError, match=r"seeds must have shape \(B, nq\) = \(10, 7\)"):
        iklab.run_benchmark(panda, PANDA_TIP, "bounded-lm", poses, seeds[:, :3])


def test_a_study_says_which_solver_ran_each_entry(panda):
    # No time budget: bounded LM on a single pose goal goes to the SIMD
    # batch solver; DLS cannot, and the summary says why.
    result = iklab.run_study(panda, [iklab.GoalSpec.pose(PANDA_TIP)],
                             solvers=["bounded-lm", "dls"], trials=8, seed=4,
                             time_budget_seconds=0.0, threads=2)
    assert result.summary("bounded-lm").method.startswith("simd-bounded-lm (")
    assert result.summary("bounded-lm").method.endswith(" lanes)")
    assert result.summary("dls").method.startswith("scalar: the solver is")
    assert result.summary("bounded-lm").success_rate == 1.0
    # A time budget keeps bounded LM on the scalar solver, with the reason.
    budgeted = iklab.run_study(panda, [iklab.GoalSpec.pose(PANDA_TIP)],
                               solvers=["bounded-lm"], trials=4, seed=4,
                               time_budget_seconds=0.005, threads=1)
    assert budgeted.summary("bounded-lm").method == \
        "scalar: a time budget is set (the batch solver has none)"
