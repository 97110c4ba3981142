"""Bindings of motion retargeting (lab/motion_retargeting.h) and of the
procedural motions: a clip onto the human figure and onto a renamed BVH
skeleton through a map, its arrays and metrics, and the refusals."""

import numpy as np
import pytest

import iklab


def test_procedural_motions_are_bvh_the_loader_reads():
    assert iklab.procedural_motion_names() == ["walk", "run", "squat", "reach"]
    for name in iklab.procedural_motion_names():
        text = iklab.procedural_motion_bvh(name, 8)
        clip = iklab.load_bvh_from_string(text, name)
        assert clip.num_frames == 8
        assert clip.joints[0].name == "Hips"
    assert iklab.procedural_motion("run").num_frames == 252
    with pytest.raises(ValueError, match="no procedural motion named 'jump'"):
        iklab.procedural_motion_bvh("jump")


def test_a_squat_goes_onto_the_human_figure_with_its_feet_planted():
    clip = iklab.procedural_motion("squat", 30)
    r = iklab.retarget_motion(clip, onto="human", contacts="penalty", frames=24)
    nq = r.model.nq
    assert r.q.shape == (24, nq)
    assert len(r.key_points) == 19
    assert r.targets.shape == (24, 19, 3)
    assert r.key_point_error.shape == (24, 19)
    assert r.contact.shape == (24, 4) and r.contact.dtype == np.bool_
    assert r.contact.all()  # a squat stands on both feet throughout
    assert r.feet == ["left_ankle", "left_foot", "right_ankle", "right_foot"]
    assert r.microseconds.shape == (24,) and (r.microseconds > 0).all()
    assert r.angular_jerk.shape == (21,)
    m = r.metrics
    assert m.frames == 24
    # The arrays and the metrics say the same.
    assert m.tracking_mean == pytest.approx(r.key_point_error.mean(), rel=1e-9)
    assert m.tracking_max == pytest.approx(r.key_point_error.max(), rel=1e-9)
    assert m.jerk_rms == pytest.approx(np.sqrt(np.mean(r.angular_jerk ** 2)), rel=1e-9)
    # Stated bounds: key points within 5 cm, the planted feet sliding under
    # 1 cm/s, no joint outside its limits.
    assert m.tracking_mean < 0.05
    assert m.skating.samples > 0 and m.skating.mean < 0.01
    assert m.limit_violations == 0
    assert r.scale == pytest.approx(r.scale)  # a number
    assert r.solver == "bounded-lm"
    # Every solved frame is within the limits the model reports.
    assert (r.q >= r.model.lower - 1e-9).all() and (r.q <= r.model.upper + 1e-9).all()
    with pytest.raises(ValueError, match="not a BVH skeleton"):
        r.bvh_text


def test_a_walk_goes_onto_a_renamed_skeleton_through_a_map():
    walk = iklab.procedural_motion("walk", 24)
    # The walk's own skeleton, every joint renamed, written as BVH text.
    text = iklab.procedural_motion_bvh("walk", 24)
    names = [j.name for j in walk.joints]
    renamed_text = text
    for i, name in sorted(enumerate(names), key=lambda p: -len(p[1])):
        renamed_text = renamed_text.replace(f"JOINT {name}\n", f"JOINT j{i:02d}\n")
        renamed_text = renamed_text.replace(f"ROOT {name}\n", f"ROOT j{i:02d}\n")
    other = iklab.load_bvh_from_string(renamed_text, "renamed")
    assert [j.name for j in other.joints] == [f"j{i:02d}" for i in range(len(names))]
    lines = ["source_axes +y +z", "target_axes +y +z"]
    for i, joint in enumerate(walk.joints):
        lines.append(f"pair {joint.name} j{i:02d} 1 1")
        if joint.end_sites:
            lines.append(f"pair {joint.name}_End j{i:02d}_End 1 0")
    lines += ["foot LeftToe_End", "foot RightToe_End"]
    mapping = iklab.parse_retarget_map("\n".join(lines), "renamed.map")
    assert mapping.feet == ["LeftToe_End", "RightToe_End"]
    assert mapping.pairs[0] == ("Hips", "j00", 1.0, 1.0)
    assert mapping.target_rest == {}
    rest = iklab.parse_retarget_map("\n".join(lines + ["target_rest j05 0.5"]),
                                    "renamed.map")
    assert rest.target_rest == {"j05": 0.5}
    r = iklab.retarget_motion(walk, onto=other, map=mapping, contacts="off",
                              smoothness_weight=0.0)
    assert r.scale == pytest.approx(1.0)
    # Same proportions: the solved angles are the clip's own, and so is the
    # root's travel (its height is measured from the clip's ground).
    poses = np.asarray(walk.poses)[:24]
    assert np.abs(r.q[:, 3:] - poses[:, 3:]).max() < 1e-3
    assert np.abs(r.q[:, [0, 2]] - poses[:, [0, 2]]).max() < 1e-2
    back = iklab.load_bvh_from_string(r.bvh_text, "retargeted")
    assert back.joints[0].name == "j00" and back.num_frames == 24
    assert np.allclose(back.poses, r.q, atol=1e-6)


def test_retarget_options_are_checked():
    clip = iklab.procedural_motion("walk", 4)
    with pytest.raises(ValueError, match="contact mode 'sticky' is not one of"):
        iklab.retarget_motion(clip, contacts="sticky")
    with pytest.raises(ValueError, match="no solver named 'newton'"):
        iklab.retarget_motion(clip, solver="newton")
    with pytest.raises(ValueError, match="the height must be a number of metres"):
        iklab.retarget_motion(clip, onto="human:tall")
    with pytest.raises(ValueError, match="smoothness_weight must be a finite"):
        iklab.retarget_motion(clip, smoothness_weight=-1.0)
    with pytest.raises(ValueError, match="refused the problem"):
        iklab.retarget_motion(clip, contacts="hard", solver="bounded-lm")
    with pytest.raises(TypeError, match="onto: expected"):
        iklab.retarget_motion(clip, onto=3)


def test_self_penetration_is_measured_on_a_robot_and_none_without_geometry():
    walk = iklab.procedural_motion("walk", 8)
    human = iklab.retarget_motion(walk, onto="human", frames=6)
    assert human.metrics.self_penetration_max is None
    assert human.metrics.self_penetration_frames is None
    h1 = iklab.data_file("robots/h1.urdf")
    r = iklab.retarget_motion(walk, onto=h1, frames=6,
                              self_collision="penalty")
    assert r.q.shape == (6, r.model.nq)
    assert r.metrics.self_penetration_max >= 0.0
    assert 0 <= r.metrics.self_penetration_frames <= 6
    with pytest.raises(ValueError, match="no collision_shapes"):
        iklab.retarget_motion(walk, onto="human", frames=6,
                              self_collision="penalty")
    with pytest.raises(ValueError, match="unknown|off|penalty"):
        iklab.retarget_motion(walk, onto=h1, frames=6, self_collision="sometimes")
