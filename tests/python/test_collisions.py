"""Collision geometry from the model files in Python: shapes from the URDF,
the self-collision matrix, obstacles, the clearance query and the one-line
collision-free GoalSpec of a study."""

import json
import math

import numpy as np
import pytest

import iklab

from conftest import PANDA_TIP

PANDA_URDF = iklab.data_file("robots/panda.urdf")


@pytest.fixture(scope="module")
def panda_self(panda):
    return iklab.robot_collisions(panda, PANDA_URDF, self=True, samples=500)


def test_urdf_collision_shapes_are_the_files(panda):
    # The shipped URDF writes each link's capsule as a cylinder with a sphere
    # on each end cap: read as one capsule per link, or as the file's three
    # elements when asked.
    shapes = iklab.load_urdf_collision(PANDA_URDF, panda)
    elements = iklab.load_urdf_collision(PANDA_URDF, panda, capsules_from_cylinders=False)
    assert {s.shape.type for s in elements} == {iklab.ShapeType.SPHERE,
                                                iklab.ShapeType.CYLINDER}
    cylinders = [s.link for s in elements if s.shape.type == iklab.ShapeType.CYLINDER]
    capsules = [s.link for s in shapes if s.shape.type == iklab.ShapeType.CAPSULE]
    assert len(cylinders) == 6 and capsules == cylinders
    assert len(shapes) == len(elements) - 2 * len(capsules)
    # Every shape hangs on a link of the model.
    assert {s.link for s in shapes} <= set(panda.link_names)
    assert all(s.pose.shape == (4, 4) for s in shapes)


def test_self_collision_matrix_round_trips_through_its_file(panda, tmp_path):
    shapes = iklab.load_urdf_collision(PANDA_URDF, panda)
    matrix = iklab.compute_self_collision_matrix(panda, shapes, samples=300, seed=2)
    assert matrix.samples == 300
    reasons = {reason for _, _, reason, _ in matrix.pairs}
    assert iklab.CollisionPairReason.ADJACENT in reasons
    assert matrix.count(iklab.CollisionPairReason.ENABLED) == len(matrix.enabled_pairs())
    path = str(tmp_path / "matrix.json")
    iklab.write_self_collision_matrix(matrix, path)
    loaded = iklab.read_self_collision_matrix(path)
    assert loaded.pairs == matrix.pairs
    setup = iklab.robot_collisions(panda, PANDA_URDF, samples=300, seed=2,
                                   matrix_file=path)
    assert setup.self_pairs == matrix.enabled_pairs()


def test_a_folded_panda_reports_negative_clearance(panda, panda_self):
    # The shoulder pitched forward to its limit and the elbow folded: the
    # elbow (panda_link4's shapes) is driven down into the base (panda_link0),
    # 15 cm deep; the "ready" pose is clear by 19 cm.
    q_folded = np.array([0.0, 1.7, 0.0, -3.0, 0.0, 3.7, 0.0])
    q_ready = np.array([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785])
    assert iklab.min_distance(panda, panda_self, q_folded) < 0.0
    assert iklab.min_distance(panda, panda_self, q_ready) > 0.0
    # The goal's own distances (the capsules' closed form) agree with FCL's
    # where the shapes are apart; in overlap FCL's depth is an estimate
    # (its EPA), so there only the verdict must agree.
    goal = panda_self.make_goal(panda)
    assert goal.distances(panda, q_ready).min() == pytest.approx(
        iklab.min_distance(panda, panda_self, q_ready), abs=1e-6)
    assert goal.distances(panda, q_folded).min() < 0.0
    assert len(goal.pair_names()) == goal.distances(panda, q_ready).size


def test_sphere_obstacle_distance_is_the_hand_computed_one(panda, tmp_path):
    # A 0.05 m sphere on the hand and a 0.1 m sphere obstacle at p: the
    # distance is |x_hand(q) - p| - 0.15.
    p = np.array([0.5, 0.2, 0.4])
    obstacle_file = tmp_path / "obstacles.json"
    obstacle_file.write_text(json.dumps(
        [{"name": "ball", "type": "sphere", "radius": 0.1, "position": p.tolist()}]))
    obstacles = iklab.read_obstacle_file(str(obstacle_file))
    assert obstacles[0].name == "ball"
    assert np.allclose(obstacles[0].pose[:3, 3], p)
    hand = iklab.LinkShape("panda_hand", iklab.CollisionShape.sphere(0.05))
    goal = iklab.ShapeCollisionGoal(panda, [hand], obstacles)
    rng = np.random.default_rng(3)
    for _ in range(5):
        q = rng.uniform(panda.lower, panda.upper)
        x_hand = panda.site_pose(q, PANDA_TIP)[:3, 3]
        expected = math.dist(x_hand, p) - 0.15
        assert goal.distances(panda, q)[0] == pytest.approx(expected, abs=1e-9)


def test_bad_collision_input_names_what_to_fix(panda, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('[{"type": "sphere", "radius": NaN, "position": [0, 0, 0]}]')
    with pytest.raises(ValueError, match="bad.json"):
        iklab.read_obstacle_file(str(bad))
    with pytest.raises(ValueError, match="radius"):
        iklab.CollisionShape.sphere(-1.0)


def test_a_study_with_one_collision_free_goal_spec(panda, panda_self):
    study = iklab.Study(
        name="panda-self-collision", model=panda,
        goals=[iklab.GoalSpec.position(PANDA_TIP),
               iklab.GoalSpec.collision_free(panda_self)],
        solvers=[iklab.StudySolver.registered("slsqp", attempts=3)], trials=4,
        time_budget_seconds=0.0,
        position_tolerance=1e-4)
    result = study.run()
    assert iklab.GoalSpec.collision_free(panda_self).label() == "collision-free(self)"
    successes = 0
    for record in result.records:
        shown = record.constraints[0].values[0]
        assert shown == pytest.approx(
            iklab.min_distance(panda, panda_self, record.q), abs=1e-6)
        if record.verified:
            successes += 1
            assert shown >= -1e-4
    assert successes >= 3
