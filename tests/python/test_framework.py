"""Bindings of framework/: figures, builders, DH, URDF, BVH, Model, FK, Jacobians."""

import math

import numpy as np
import pytest

import iklab
from conftest import PANDA_TIP, central_difference


def test_planar_chain_tip_is_the_sum_of_the_links():
    model = iklab.planar_chain([1.0, 2.0]).compile()
    assert model.nq == 2
    X = model.site_pose([0.0, 0.0], model.site_names[-1])
    np.testing.assert_allclose(X[:3, 3], [3.0, 0.0, 0.0], atol=1e-12)
    X = model.site_pose([math.pi / 2, 0.0], model.site_names[-1])
    np.testing.assert_allclose(X[:3, 3], [0.0, 3.0, 0.0], atol=1e-12)


def test_figure_built_joint_by_joint_compiles_to_the_expected_model():
    figure = iklab.Figure("base")
    figure.add_link("upper")
    figure.add_joint(iklab.Joint("shoulder", "base", "upper", axis=[0, 0, 1],
                                 lower=[-1.0], upper=[1.0]))
    figure.add_site(iklab.Site("tip", "upper", np.array(
        [[1, 0, 0, 0.5], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1.0]])))
    model = figure.compile()
    assert model.dof_names == ["shoulder"]
    np.testing.assert_array_equal(model.lower, [-1.0])
    np.testing.assert_allclose(model.site_pose([0.3], "tip")[:2, 3],
                               [0.5 * math.cos(0.3), 0.5 * math.sin(0.3)], atol=1e-15)


def test_figure_rejects_a_duplicate_link_with_the_cpp_message():
    figure = iklab.Figure("base")
    with pytest.raises(ValueError, match="AddLink: duplicate link name 'base'"):
        figure.add_link("base")


def test_builders_make_the_papers_figures():
    assert iklab.parent_arm().compile().nq > 0
    assert iklab.soch_chain().compile().nq > 0
    assert iklab.nlp_branched_figure(3).compile().num_sites >= 3
    arm = iklab.tolani_arm(iklab.Side.RIGHT).compile()
    assert arm.nq == 7
    assert iklab.tolani_leg().compile().nq == 7
    human = iklab.human_figure(floating_root=False).compile()
    for site in iklab.human_end_effector_sites():
        assert site in human.site_names
    geometry = iklab.tolani_arm_geometry(iklab.Side.LEFT, iklab.Anthropometry(height=1.8))
    assert geometry.upper_length > 0
    assert iklab.limb_figure(geometry).compile().nq == 7


def test_dh_table_matches_the_product_of_its_transforms():
    rows = [iklab.DhRow(a=0.3, alpha=math.pi / 2, d=0.1),
            iklab.DhRow(a=0.25, alpha=0.0, d=0.0)]
    model = iklab.denavit_hartenberg_figure(rows).compile()
    q = np.array([0.4, -0.7])
    expected = (iklab.dh_transform(rows[0], iklab.DhConvention.CLASSIC, q[0])
                @ iklab.dh_transform(rows[1], iklab.DhConvention.CLASSIC, q[1]))
    np.testing.assert_allclose(model.site_pose(q, model.site_names[-1]), expected,
                               atol=1e-12)


def test_urdf_from_string_and_its_errors():
    xml = """<robot name="r">
      <link name="a"/><link name="b"/>
      <joint name="j" type="revolute"><parent link="a"/><child link="b"/>
        <axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/>
      </joint></robot>"""
    urdf = iklab.load_urdf_from_string(xml, base_link="a", tip_link="b")
    assert urdf.robot_name == "r"
    assert urdf.compile().nq == 1
    with pytest.raises(ValueError):
        iklab.load_urdf_from_string("<robot", source_name="broken.urdf")
    with pytest.raises(ValueError):
        iklab.load_urdf("/nonexistent/robot.urdf")


def test_bvh_motion_frames_are_configurations():
    text = """HIERARCHY
ROOT hips
{
  OFFSET 0 0 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT knee
  {
    OFFSET 0 -1 0
    CHANNELS 3 Zrotation Xrotation Yrotation
    End Site
    {
      OFFSET 0 -1 0
    }
  }
}
MOTION
Frames: 2
Frame Time: 0.5
0 1 0 0 0 0 0 0 0
0 1 0 0 0 0 90 0 0
"""
    bvh = iklab.load_bvh_from_string(text)
    assert bvh.num_frames == 2
    assert bvh.frame_time == 0.5
    assert [j.name for j in bvh.joints] == ["hips", "knee"]
    assert len(bvh.channels) == 9
    model = bvh.compile()
    assert bvh.poses.shape == (2, model.nq)
    with pytest.raises(ValueError):
        iklab.load_bvh_from_string("HIERARCHY\nROOT")


def test_site_jacobian_matches_finite_differences(panda):
    rng = np.random.default_rng(1)
    q = rng.uniform(panda.lower, panda.upper)
    J = panda.site_jacobian(q, PANDA_TIP)
    assert J.shape == (6, 7)
    # Linear rows first: the derivative of the site position.
    Jp = central_difference(lambda x: panda.site_pose(x, PANDA_TIP)[:3, 3], q)
    np.testing.assert_allclose(J[:3], Jp, atol=1e-7)
    # Angular rows: dR/dq_i R^T = [omega_i]x.
    R = panda.site_pose(q, PANDA_TIP)[:3, :3]
    dR = central_difference(lambda x: panda.site_pose(x, PANDA_TIP)[:3, :3].ravel(), q)
    for i in range(7):
        W = dR[:, i].reshape(3, 3) @ R.T
        np.testing.assert_allclose([W[2, 1], W[0, 2], W[1, 0]], J[3:, i], atol=1e-7)


def test_free_functions_agree_with_the_model_shortcuts(panda):
    q = panda.mid_limits()
    data = iklab.Data(panda)
    iklab.forward_kinematics(panda, q, data)
    site = panda.site_index(PANDA_TIP)
    np.testing.assert_array_equal(iklab.site_pose(panda, data, site),
                                  panda.site_pose(q, PANDA_TIP))
    np.testing.assert_array_equal(iklab.site_position(panda, data, PANDA_TIP),
                                  panda.site_pose(q, PANDA_TIP)[:3, 3])
    np.testing.assert_array_equal(iklab.site_jacobian(panda, data, PANDA_TIP),
                                  panda.site_jacobian(q, PANDA_TIP))
    np.testing.assert_array_equal(iklab.site_position_jacobian(panda, data, PANDA_TIP),
                                  panda.site_jacobian(q, PANDA_TIP)[:3])
    assert iklab.link_pose(panda, data, 0).shape == (4, 4)
    p = iklab.site_position(panda, data, PANDA_TIP)
    step = panda.num_steps - 1
    assert iklab.point_jacobian(panda, data, step, p).shape == (3, 7)
    np.testing.assert_array_equal(data.X_W(0), iklab.link_pose(panda, data, 0))


def test_position_quaternion_round_trips_to_the_matrix(panda):
    q = panda.mid_limits() + 0.2
    p, w = panda.site_position_quaternion(q, PANDA_TIP)
    assert abs(np.linalg.norm(w) - 1) < 1e-15
    goal = iklab.PositionOrientationGoal(panda, PANDA_TIP, (p, w))
    np.testing.assert_allclose(goal.target, panda.site_pose(q, PANDA_TIP), atol=1e-15)


def test_bad_arrays_name_the_argument_and_the_shape(panda):
    with pytest.raises(ValueError, match=r"q must have shape \(7,\), got shape \(3,\)"):
        panda.site_pose(np.zeros(3), PANDA_TIP)
    with pytest.raises(ValueError, match="q must be a numeric array.*dtype <U"):
        panda.site_pose(np.array(["a"] * 7), PANDA_TIP)
    with pytest.raises(ValueError, match=r"X_PJ must have shape \(4, 4\)"):
        iklab.Joint("j", "a", "b", X_PJ=np.eye(3))
    with pytest.raises(ValueError, match="site index 99 out of range"):
        panda.site_pose(panda.mid_limits(), 99)
    with pytest.raises(ValueError, match="unknown site 'nowhere'"):
        panda.site_jacobian(panda.mid_limits(), "nowhere")
    with pytest.raises(ValueError, match="data was made for another model"):
        iklab.forward_kinematics(panda, panda.mid_limits(),
                                 iklab.Data(iklab.planar_chain([1.0]).compile()))
    # Integer arrays are converted, not rejected.
    assert panda.site_pose(np.zeros(7, dtype=int), PANDA_TIP).shape == (4, 4)


def test_mimic_joints_are_enforced_and_the_full_joint_vector_is_reported():
    figure = iklab.Figure("base")
    figure.add_joint(iklab.Joint("a", "base", "la", axis=[0, 0, 1],
                                 lower=[-1.0], upper=[1.0]))
    figure.add_joint(iklab.Joint("b", "la", "lb", axis=[0, 0, 1],
                                 lower=[-0.5], upper=[2.0]))
    figure.add_mimic("b", "a", multiplier=-2.0, offset=0.5)
    model = figure.compile()
    assert model.has_mimics
    assert model.nq == 1 and model.dof_names == ["a"]
    assert model.nq_full == 2 and model.full_dof_names == ["a", "b"]
    np.testing.assert_array_equal(model.full_configuration([0.25]), [0.25, 0.0])
    # b = -2 a + 0.5 within [-0.5, 2] needs a within [-0.75, 0.5].
    np.testing.assert_array_equal(model.lower, [-0.75])
    np.testing.assert_array_equal(model.upper, [0.5])
    np.testing.assert_array_equal(model.full_upper, [1.0, 2.0])
    with pytest.raises(ValueError, match="cycle 'a' -> 'b' -> 'a'"):
        figure.add_mimic("a", "b")
