#!/usr/bin/env python3
"""Writes the robot models iklab ships (data/robots/*.urdf, *.xml).

Kinematics: for each arm the links from its base to its tool frame and
the joints between them (origin, axis, position limits, and the velocity and
effort limits URDF requires), typed in below from the manufacturers' published
kinematic parameters. No meshes, no inertia; the numbers are facts about the
robots, the files are ours.

Collision geometry (COLLISION_RADII, Panda, iiwa14, Gen3, UR5): one capsule
per listed link, its segment from the link's origin to the origin of its child
joint (the kinematic segment the link spans, from the same published
parameters; a point, hence a sphere, where the two coincide), its radius from
COLLISION_RADII. URDF has no capsule, so the URDF writes each as a cylinder
plus a sphere at each end (the same solid); the MJCF writes a capsule geom.

Link and joint names follow the robots' ROS description packages, so a chain
read from these files has the same names as one read from those packages
(tests/framework/shipped_robots_test.cc compares the two when the packages'
files are at hand: same chain, FK, limits).

The humanoid (data/robots/h1.urdf, h1.xml: a Unitree H1) is written from the
H1 table below with collision primitives, a freejoint in the MJCF and named
points for retargeting; tests/lab/robot_target_test.cc checks that its two
files agree.

The Panda, iiwa14, Gen3 and UR5 are also written as MuJoCo models (MJCF,
data/robots/*.xml) from the same joint tuples: one body per URDF link, its
pos/quat the joint origin (quat from the rpy, R = Rz(yaw) Ry(pitch) Rx(roll)),
a hinge at the body origin about the URDF axis with the same range (limited,
or unlimited for continuous joints), no joint for fixed ones, and a site at
the flange/tool frames listed in MJCF_SITES (named like their links).
tests/framework/mjcf_loader_test.cc checks that the two files give the same
forward kinematics.

Run from the repository root:  python3 scripts/make_robot_models.py
The output is deterministic; CI does not run it (the files are committed).
"""

import math
import os

PI = math.pi
HALF_PI = math.pi / 2


def deg(x):
    return math.radians(x)


# A joint: (name, type, parent, child, xyz, rpy, axis, limit, soft)
#   limit: (lower, upper, velocity, effort); lower/upper ignored (None) for
#          continuous joints.
#   soft:  None or (soft_lower, soft_upper, k_position, k_velocity): the
#          <safety_controller> the controller enforces.
ROBOTS = [
    {
        "file": "panda.urdf",
        "robot": "panda",
        "title": "Franka Emika Panda, 7-DOF arm, base panda_link0 to hand frame panda_hand",
        "source": (
            "Franka Control Interface documentation, 'Robot and interface "
            "specifications': modified DH parameters (d1 = 0.333, d3 = 0.316, "
            "a4 = 0.0825, a5 = -0.0825, d5 = 0.384, a7 = 0.088, flange d = "
            "0.107 m, hand rotated -45 deg about the flange axis) and the "
            "joint position and velocity limits; efforts from the same page "
            "(87 Nm joints 1-4, 12 Nm joints 5-7). Frames as in Franka's "
            "franka_description package."),
        "joints": [
            ("panda_joint1", "revolute", "panda_link0", "panda_link1", (0, 0, 0.333), (0, 0, 0), (0, 0, 1), (-2.8973, 2.8973, 2.175, 87.0), None),
            ("panda_joint2", "revolute", "panda_link1", "panda_link2", (0, 0, 0), (-HALF_PI, 0, 0), (0, 0, 1), (-1.7628, 1.7628, 2.175, 87.0), None),
            ("panda_joint3", "revolute", "panda_link2", "panda_link3", (0, -0.316, 0), (HALF_PI, 0, 0), (0, 0, 1), (-2.8973, 2.8973, 2.175, 87.0), None),
            ("panda_joint4", "revolute", "panda_link3", "panda_link4", (0.0825, 0, 0), (HALF_PI, 0, 0), (0, 0, 1), (-3.0718, -0.0698, 2.175, 87.0), None),
            ("panda_joint5", "revolute", "panda_link4", "panda_link5", (-0.0825, 0.384, 0), (-HALF_PI, 0, 0), (0, 0, 1), (-2.8973, 2.8973, 2.61, 12.0), None),
            ("panda_joint6", "revolute", "panda_link5", "panda_link6", (0, 0, 0), (HALF_PI, 0, 0), (0, 0, 1), (-0.0175, 3.7525, 2.61, 12.0), None),
            ("panda_joint7", "revolute", "panda_link6", "panda_link7", (0.088, 0, 0), (HALF_PI, 0, 0), (0, 0, 1), (-2.8973, 2.8973, 2.61, 12.0), None),
            ("panda_joint8", "fixed", "panda_link7", "panda_link8", (0, 0, 0.107), (0, 0, 0), None, None, None),
            ("panda_hand_joint", "fixed", "panda_link8", "panda_hand", (0, 0, 0), (0, 0, -PI / 4), None, None, None),
        ],
    },
    {
        "file": "iiwa14.urdf",
        "robot": "iiwa14",
        "title": "KUKA LBR iiwa 14 R820, 7-DOF arm, base 'base' to tool frame iiwa_link_ee",
        "source": (
            "KUKA LBR iiwa 7 R800 / LBR iiwa 14 R820 specification (data "
            "sheet): link lengths 0.360 m (base to joint 2), 0.420 m (joint 2 "
            "to joint 4), 0.400 m (joint 4 to joint 6), 0.126 m (joint 6 to "
            "the flange, tool frame 0.045 m past the joint 7 link frame); "
            "axis ranges +-170/120/170/120/170/120/175 deg; speeds 85/85/100/"
            "75/130/135/135 deg/s; torques 320/320/176/176/110/40/40 Nm. Link "
            "frames split the lengths as the iiwa_stack description does "
            "(0.1575 + 0.2025, 0.2045 + 0.2155, 0.1845 + 0.2155, 0.081 + "
            "0.045)."),
        "joints": [
            ("iiwa_base_joint", "fixed", "base", "iiwa_link_0", (0, 0, 0), (0, 0, 0), None, None, None),
            ("iiwa_joint_1", "revolute", "iiwa_link_0", "iiwa_link_1", (0, 0, 0.1575), (0, 0, 0), (0, 0, 1), (-deg(170), deg(170), deg(85), 320), None),
            ("iiwa_joint_2", "revolute", "iiwa_link_1", "iiwa_link_2", (0, 0, 0.2025), (HALF_PI, 0, PI), (0, 0, 1), (-deg(120), deg(120), deg(85), 320), None),
            ("iiwa_joint_3", "revolute", "iiwa_link_2", "iiwa_link_3", (0, 0.2045, 0), (HALF_PI, 0, PI), (0, 0, 1), (-deg(170), deg(170), deg(100), 176), None),
            ("iiwa_joint_4", "revolute", "iiwa_link_3", "iiwa_link_4", (0, 0, 0.2155), (HALF_PI, 0, 0), (0, 0, 1), (-deg(120), deg(120), deg(75), 176), None),
            ("iiwa_joint_5", "revolute", "iiwa_link_4", "iiwa_link_5", (0, 0.1845, 0), (-HALF_PI, PI, 0), (0, 0, 1), (-deg(170), deg(170), deg(130), 110), None),
            ("iiwa_joint_6", "revolute", "iiwa_link_5", "iiwa_link_6", (0, 0, 0.2155), (HALF_PI, 0, 0), (0, 0, 1), (-deg(120), deg(120), deg(135), 40), None),
            ("iiwa_joint_7", "revolute", "iiwa_link_6", "iiwa_link_7", (0, 0.081, 0), (-HALF_PI, PI, 0), (0, 0, 1), (-deg(175), deg(175), deg(135), 40), None),
            ("tool0_joint", "fixed", "iiwa_link_7", "iiwa_link_ee", (0, 0, 0.045), (0, -HALF_PI, 0), None, None, None),
        ],
    },
    {
        "file": "gen3.urdf",
        "robot": "gen3_7dof",
        "title": "Kinova Gen3 7-DOF (no vision module), base base_link to tool frame end_effector_link",
        "source": (
            "Kinova Gen3 Ultra lightweight robot user guide, 'Kinematics' "
            "(classic DH: d1 = -(0.1564 + 0.1284), d2 = -(0.0054 + 0.0064), "
            "d3 = -(0.2104 + 0.2104), d4 = -(0.0064 + 0.0064), d5 = -(0.2084 "
            "+ 0.1059), d6 = 0, d7 = -(0.1059 + 0.0615) m; joints 1, 3, 5, 7 "
            "unlimited, 2, 4, 6 limited) in the per-actuator frames of "
            "Kinova's kortex_description, which writes the 90 and 180 deg "
            "frame rotations rounded to 1.5708 and 3.1416 rad and the limits "
            "of joints 2, 4, 6 as +-2.24, 2.57 and 2.09 rad; both kept as "
            "Kinova writes them. Speeds 80/80/80/80/70/70/70 deg/s as "
            "1.3963/1.2218 rad/s; torques 39 Nm (large actuators), 9 Nm "
            "(small)."),
        "joints": [
            ("joint_1", "continuous", "base_link", "shoulder_link", (0, 0, 0.15643), (3.1416, 0, 0), (0, 0, 1), (None, None, 1.3963, 39), None),
            ("joint_2", "revolute", "shoulder_link", "half_arm_1_link", (0, 0.005375, -0.12838), (1.5708, 0, 0), (0, 0, 1), (-2.24, 2.24, 1.3963, 39), None),
            ("joint_3", "continuous", "half_arm_1_link", "half_arm_2_link", (0, -0.21038, -0.006375), (-1.5708, 0, 0), (0, 0, 1), (None, None, 1.3963, 39), None),
            ("joint_4", "revolute", "half_arm_2_link", "forearm_link", (0, 0.006375, -0.21038), (1.5708, 0, 0), (0, 0, 1), (-2.57, 2.57, 1.3963, 39), None),
            ("joint_5", "continuous", "forearm_link", "spherical_wrist_1_link", (0, -0.20843, -0.006375), (-1.5708, 0, 0), (0, 0, 1), (None, None, 1.2218, 9), None),
            ("joint_6", "revolute", "spherical_wrist_1_link", "spherical_wrist_2_link", (0, 0.00017505, -0.10593), (1.5708, 0, 0), (0, 0, 1), (-2.09, 2.09, 1.2218, 9), None),
            ("joint_7", "continuous", "spherical_wrist_2_link", "bracelet_link", (0, -0.10593, -0.00017505), (-1.5708, 0, 0), (0, 0, 1), (None, None, 1.2218, 9), None),
            ("end_effector", "fixed", "bracelet_link", "end_effector_link", (0, 0, -0.061525), (PI, 0, 0), None, None, None),
        ],
    },
    {
        "file": "ur5.urdf",
        "robot": "ur5",
        "title": "Universal Robots UR5 (CB3), 6-DOF arm, base base_link to tool frame ee_link",
        "source": (
            "Universal Robots, 'DH parameters for calculations of kinematics "
            "and dynamics' (UR5: d1 = 0.089159, a2 = -0.425, a3 = -0.39225, "
            "d4 = 0.10915, d5 = 0.09465, d6 = 0.0823 m); joint ranges +-360 "
            "deg (the elbow +-180 deg as ROS-Industrial's ur_description "
            "limits it); speeds 180 deg/s (3.15 rad/s) and 3.2 rad/s at the "
            "wrist; torques 150 Nm (base, shoulder, elbow) and 28 Nm "
            "(wrists). Link frames as in ur_description, which splits d4 = "
            "0.13585 - 0.1197 + 0.093 m across the shoulder, elbow and "
            "wrist 1 frames."),
        "joints": [
            ("shoulder_pan_joint", "revolute", "base_link", "shoulder_link", (0, 0, 0.089159), (0, 0, 0), (0, 0, 1), (-2 * PI, 2 * PI, 3.15, 150.0), None),
            ("shoulder_lift_joint", "revolute", "shoulder_link", "upper_arm_link", (0, 0.13585, 0), (0, HALF_PI, 0), (0, 1, 0), (-2 * PI, 2 * PI, 3.15, 150.0), None),
            ("elbow_joint", "revolute", "upper_arm_link", "forearm_link", (0, -0.1197, 0.425), (0, 0, 0), (0, 1, 0), (-PI, PI, 3.15, 150.0), None),
            ("wrist_1_joint", "revolute", "forearm_link", "wrist_1_link", (0, 0, 0.39225), (0, HALF_PI, 0), (0, 1, 0), (-2 * PI, 2 * PI, 3.2, 28.0), None),
            ("wrist_2_joint", "revolute", "wrist_1_link", "wrist_2_link", (0, 0.093, 0), (0, 0, 0), (0, 0, 1), (-2 * PI, 2 * PI, 3.2, 28.0), None),
            ("wrist_3_joint", "revolute", "wrist_2_link", "wrist_3_link", (0, 0, 0.09465), (0, 0, 0), (0, 1, 0), (-2 * PI, 2 * PI, 3.2, 28.0), None),
            ("ee_fixed_joint", "fixed", "wrist_3_link", "ee_link", (0, 0.0823, 0), (0, 0, HALF_PI), None, None, None),
        ],
    },
    {
        "file": "baxter_left_arm.urdf",
        "robot": "baxter_left_arm",
        "title": "Rethink Robotics Baxter, left 7-DOF arm, base 'base' to gripper frame left_gripper",
        "source": (
            "Rethink Robotics, Baxter hardware specifications ('Arms': joint "
            "ranges S0 +-97.494 deg, S1 -123 to +60 deg, E0 +-174.987 deg, E1 "
            "-2.864 to +150 deg, W0 +-175.25 deg, W1 -90 to +120 deg, W2 "
            "+-175.25 deg; peak speeds 1.5 rad/s shoulder and elbow, 4.0 "
            "rad/s wrist; torques 50/15 Nm) and the link offsets of Rethink's "
            "baxter_description (arm mount 0.024645, 0.219645, 0.118588 m, "
            "rotated 0.7854 rad about z; S0 0.055695 m, 0.011038 m up; L1 "
            "0.069 m, L2 0.27035 m; E0 0.102 m; L3 0.069 m, L4 0.26242 m; W0 "
            "0.10359 m; L5 0.01 m, L6 0.2707 m; W2 0.115975 m; hand 0.11355 "
            "m; gripper base 0.025 m; gripper frame 0.1327 m), with the limits "
            "as that package writes them in radians."),
        "joints": [
            ("torso_t0", "fixed", "base", "torso", (0, 0, 0), (0, 0, 0), None, None, None),
            ("left_torso_arm_mount", "fixed", "torso", "left_arm_mount", (0.024645, 0.219645, 0.118588), (0, 0, 0.7854), None, None, None),
            ("left_s0", "revolute", "left_arm_mount", "left_upper_shoulder", (0.055695, 0, 0.011038), (0, 0, 0), (0, 0, 1), (-1.70167993878, 1.70167993878, 1.5, 50.0), None),
            ("left_s1", "revolute", "left_upper_shoulder", "left_lower_shoulder", (0.069, 0, 0.27035), (-HALF_PI, 0, 0), (0, 0, 1), (-2.147, 1.047, 1.5, 50.0), None),
            ("left_e0", "revolute", "left_lower_shoulder", "left_upper_elbow", (0.102, 0, 0), (HALF_PI, 0, HALF_PI), (0, 0, 1), (-3.05417993878, 3.05417993878, 1.5, 50.0), None),
            ("left_e1", "revolute", "left_upper_elbow", "left_lower_elbow", (0.069, 0, 0.26242), (-HALF_PI, -HALF_PI, 0), (0, 0, 1), (-0.05, 2.618, 1.5, 50.0), None),
            ("left_w0", "revolute", "left_lower_elbow", "left_upper_forearm", (0.10359, 0, 0), (HALF_PI, 0, HALF_PI), (0, 0, 1), (-3.059, 3.059, 4.0, 15.0), None),
            ("left_w1", "revolute", "left_upper_forearm", "left_lower_forearm", (0.01, 0, 0.2707), (-HALF_PI, -HALF_PI, 0), (0, 0, 1), (-HALF_PI, 2.094, 4.0, 15.0), None),
            ("left_w2", "revolute", "left_lower_forearm", "left_wrist", (0.115975, 0, 0), (HALF_PI, 0, HALF_PI), (0, 0, 1), (-3.059, 3.059, 4.0, 15.0), None),
            ("left_hand_joint", "fixed", "left_wrist", "left_hand_link", (0, 0, 0.11355), (0, 0, 0), None, None, None),
            ("left_gripper_base_joint", "fixed", "left_hand_link", "left_gripper_base_link", (0, 0, 0.025), (0, 0, 0), None, None, None),
            ("left_endpoint", "fixed", "left_gripper_base_link", "left_gripper", (0, 0, 0.1327), (0, 0, 0), None, None, None),
        ],
    },
    {
        "file": "pr2_right_arm.urdf",
        "robot": "pr2_right_arm",
        "title": "Willow Garage PR2, right 7-DOF arm, base torso_lift_link to wrist frame r_wrist_roll_link",
        "source": (
            "Willow Garage PR2 user manual and pr2_description: shoulder "
            "0.188 m right of the torso lift link, shoulder lift 0.1 m out, "
            "upper arm 0.4 m, forearm 0.321 m; hard ranges shoulder pan "
            "-2.2854 to 0.7146, shoulder lift -0.5236 to 1.3963, upper arm "
            "roll -3.9 to 0.8, elbow flex -2.3213 to 0, wrist flex -2.094 to "
            "0 rad; forearm and wrist roll continuous; the safety "
            "controller's soft ranges 0.15 rad inside the pan, 0.17/0.1 rad "
            "inside the lift, 0.15 rad inside the roll, 0.2/0.15 rad inside "
            "the elbow and 0.1 rad inside the wrist flex limits (as "
            "pr2_description writes them)."),
        "joints": [
            ("r_shoulder_pan_joint", "revolute", "torso_lift_link", "r_shoulder_pan_link", (0, -0.188, 0), (0, 0, 0), (0, 0, 1), (-2.2853981634, 0.714601836603, 2.088, 30), (-2.1353981634, 0.564601836603, 100, 10)),
            ("r_shoulder_lift_joint", "revolute", "r_shoulder_pan_link", "r_shoulder_lift_link", (0.1, 0, 0), (0, 0, 0), (0, 1, 0), (-0.5236, 1.3963, 2.082, 30), (-0.3536, 1.2963, 100, 10)),
            ("r_upper_arm_roll_joint", "revolute", "r_shoulder_lift_link", "r_upper_arm_roll_link", (0, 0, 0), (0, 0, 0), (1, 0, 0), (-3.9, 0.8, 3.27, 30), (-3.75, 0.65, 100, 2)),
            ("r_upper_arm_joint", "fixed", "r_upper_arm_roll_link", "r_upper_arm_link", (0, 0, 0), (0, 0, 0), None, None, None),
            ("r_elbow_flex_joint", "revolute", "r_upper_arm_link", "r_elbow_flex_link", (0.4, 0, 0), (0, 0, 0), (0, 1, 0), (-2.3213, 0.0, 3.3, 30), (-2.1213, -0.15, 100, 3)),
            ("r_forearm_roll_joint", "continuous", "r_elbow_flex_link", "r_forearm_roll_link", (0, 0, 0), (0, 0, 0), (1, 0, 0), (None, None, 3.6, 30), None),
            ("r_forearm_joint", "fixed", "r_forearm_roll_link", "r_forearm_link", (0, 0, 0), (0, 0, 0), None, None, None),
            ("r_wrist_flex_joint", "revolute", "r_forearm_link", "r_wrist_flex_link", (0.321, 0, 0), (0, 0, 0), (0, 1, 0), (-2.094, 0.0, 3.078, 10), (-1.994, -0.1, 20, 4)),
            ("r_wrist_roll_joint", "continuous", "r_wrist_flex_link", "r_wrist_roll_link", (0, 0, 0), (0, 0, 0), (1, 0, 0), (None, None, 3.6, 10), None),
        ],
    },
]


def number(x):
    """Shortest text that reads back as the same double ('0' for zero)."""
    if x == 0:
        return "0"
    text = repr(float(x))
    return text[:-2] if text.endswith(".0") else text


def triple(values):
    return " ".join(number(v) for v in values)


def urdf(robot):
    lines = ['<?xml version="1.0"?>', "<!--"]
    lines.append("  " + robot["title"] + ".")
    lines.append("  Kinematics only (links, joints, origins, axes, limits), written for iklab by")
    if robot["file"] in COLLISION_RADII:
        lines.append("  scripts/make_robot_models.py; no meshes or inertia. Collision capsules")
        lines.append("  (cylinder + end spheres) span each link's kinematic segment, radii as in")
        lines.append("  the script's COLLISION_RADII (our approximation of the housings).")
    else:
        lines.append("  scripts/make_robot_models.py; no meshes, inertia or collision geometry.")
    lines.append("  Source of the numbers:")
    words = robot["source"].split()
    line = "   "
    for w in words:
        if len(line) + len(w) + 1 > 88:
            lines.append(line)
            line = "   "
        line += " " + w
    lines.append(line)
    lines.append("-->")
    lines.append('<robot name="%s">' % robot["robot"])
    links = []
    for j in robot["joints"]:
        for link in (j[2], j[3]):
            if link not in links:
                links.append(link)
    for link in links:
        collision = urdf_collision(robot, link, "    ")
        if collision:
            lines.append('  <link name="%s">' % link)
            lines.extend(collision)
            lines.append("  </link>")
        else:
            lines.append('  <link name="%s"/>' % link)
    for name, kind, parent, child, xyz, rpy, axis, limit, soft in robot["joints"]:
        lines.append('  <joint name="%s" type="%s">' % (name, kind))
        lines.append('    <parent link="%s"/>' % parent)
        lines.append('    <child link="%s"/>' % child)
        lines.append('    <origin xyz="%s" rpy="%s"/>' % (triple(xyz), triple(rpy)))
        if axis is not None:
            lines.append('    <axis xyz="%s"/>' % triple(axis))
        if limit is not None:
            lower, upper, velocity, effort = limit
            if kind == "continuous":
                lines.append('    <limit effort="%s" velocity="%s"/>' % (number(effort), number(velocity)))
            else:
                lines.append('    <limit lower="%s" upper="%s" effort="%s" velocity="%s"/>'
                             % (number(lower), number(upper), number(effort), number(velocity)))
        if soft is not None:
            lines.append('    <safety_controller soft_lower_limit="%s" soft_upper_limit="%s" '
                         'k_position="%s" k_velocity="%s"/>' % tuple(number(v) for v in soft))
        lines.append("  </joint>")
    lines.append("</robot>")
    return "\n".join(lines) + "\n"


# Capsule radii (m) per link, for the links that get collision geometry. They
# are our approximation of the link housings (round numbers that cover the
# arms' outer shells), not published values: Panda 0.06 m about the base,
# shoulder, upper arm, elbow and forearm, 0.05 m at the wrist, 0.04 m at the
# flange (the radii of franka_description's self-collision capsules); iiwa14
# 0.07 m (its 0.14 m-wide housings); Gen3 0.05 m (its 0.1 m actuators), 0.04 m
# at the wrist; UR5 0.06 m (its 0.12 m-wide size-3 joints), 0.045 m at the
# wrist (size-1 joints).
COLLISION_RADII = {
    "panda.urdf": {"panda_link0": 0.06, "panda_link1": 0.06, "panda_link2": 0.06,
                   "panda_link3": 0.06, "panda_link4": 0.06, "panda_link5": 0.06,
                   "panda_link6": 0.05, "panda_link7": 0.04},
    "iiwa14.urdf": {"iiwa_link_0": 0.07, "iiwa_link_1": 0.07, "iiwa_link_2": 0.07,
                    "iiwa_link_3": 0.07, "iiwa_link_4": 0.07, "iiwa_link_5": 0.07,
                    "iiwa_link_6": 0.07, "iiwa_link_7": 0.05},
    "gen3.urdf": {"base_link": 0.05, "shoulder_link": 0.05, "half_arm_1_link": 0.05,
                  "half_arm_2_link": 0.05, "forearm_link": 0.05,
                  "spherical_wrist_1_link": 0.04, "spherical_wrist_2_link": 0.04,
                  "bracelet_link": 0.04},
    "ur5.urdf": {"base_link": 0.06, "shoulder_link": 0.06, "upper_arm_link": 0.06,
                 "forearm_link": 0.06, "wrist_1_link": 0.045, "wrist_2_link": 0.045,
                 "wrist_3_link": 0.045},
}


def collision_segment(robot, link):
    """(start, end) of a link's capsule in its frame: its origin to the origin
    of its (first) child joint."""
    for j in robot["joints"]:
        if j[2] == link:
            return (0.0, 0.0, 0.0), tuple(float(v) for v in j[4])
    return (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)


def urdf_collision(robot, link, pad):
    """URDF <collision> elements of a link's capsule: a cylinder and two end
    spheres (or one sphere for a point segment)."""
    radius = COLLISION_RADII.get(robot["file"], {}).get(link)
    if radius is None:
        return []
    a, b = collision_segment(robot, link)
    d = [b[i] - a[i] for i in range(3)]
    length = math.sqrt(sum(v * v for v in d))
    out = []
    ends = [a] if length == 0 else [a, b]
    for p in ends:
        out.append('%s<collision><origin xyz="%s" rpy="0 0 0"/><geometry><sphere radius="%s"/></geometry></collision>'
                   % (pad, triple(p), number(radius)))
    if length > 0:
        # R = Rz(yaw) Ry(pitch) turns z onto the segment direction.
        pitch = math.acos(max(-1.0, min(1.0, d[2] / length)))
        yaw = math.atan2(d[1], d[0])
        mid = [(a[i] + b[i]) / 2 for i in range(3)]
        out.append('%s<collision><origin xyz="%s" rpy="0 %s %s"/><geometry><cylinder radius="%s" length="%s"/></geometry></collision>'
                   % (pad, triple(mid), number(pitch), number(yaw), number(radius), number(length)))
    return out


def mjcf_collision(robot, link, pad):
    """The MJCF geom of a link's capsule (a sphere for a point segment)."""
    radius = COLLISION_RADII.get(robot["file"], {}).get(link)
    if radius is None:
        return []
    a, b = collision_segment(robot, link)
    if a == b:
        return ['%s<geom name="%s_collision" type="sphere" size="%s" pos="%s"/>'
                % (pad, link, number(radius), triple(a))]
    return ['%s<geom name="%s_collision" type="capsule" size="%s" fromto="%s %s"/>'
            % (pad, link, number(radius), triple(a), triple(b))]


# The MJCF models: URDF file -> (MJCF file, links that get a site).
MJCF_SITES = {
    "panda.urdf": ("panda.xml", ["panda_link8", "panda_hand"]),
    "iiwa14.urdf": ("iiwa14.xml", ["iiwa_link_7", "iiwa_link_ee"]),
    "gen3.urdf": ("gen3.xml", ["bracelet_link", "end_effector_link"]),
    "ur5.urdf": ("ur5.xml", ["wrist_3_link", "ee_link"]),
}


def quaternion(rpy):
    """w, x, y, z of R = Rz(yaw) Ry(pitch) Rx(roll) (URDF's rpy)."""
    r, p, y = (v / 2 for v in rpy)
    cr, sr, cp, sp, cy, sy = (math.cos(r), math.sin(r), math.cos(p),
                              math.sin(p), math.cos(y), math.sin(y))
    return (cr * cp * cy + sr * sp * sy, sr * cp * cy - cr * sp * sy,
            cr * sp * cy + sr * cp * sy, cr * cp * sy - sr * sp * cy)


def mjcf(robot, sites):
    lines = ["<!--"]
    lines.append("  " + robot["title"] + ", as a MuJoCo model (MJCF).")
    lines.append("  Kinematics only, written for iklab by scripts/make_robot_models.py from the")
    lines.append("  same numbers as data/robots/" + robot["file"] + " (one body per URDF link, its pos/quat")
    lines.append("  the URDF joint origin, a hinge at the body origin with the URDF axis and range);")
    lines.append("  no meshes; collision capsules as in the URDF (COLLISION_RADII of the script).")
    lines.append("  MuJoCo refuses moving bodies without mass,")
    lines.append("  so boundmass/boundinertia give each body a placeholder (not the robot's).")
    lines.append("  Source of the numbers:")
    words = robot["source"].split()
    line = "   "
    for w in words:
        if len(line) + len(w) + 1 > 88:
            lines.append(line)
            line = "   "
        line += " " + w
    lines.append(line)
    lines.append("-->")
    lines.append('<mujoco model="%s">' % robot["robot"])
    lines.append('  <compiler angle="radian" boundmass="1e-6" boundinertia="1e-12"/>')
    lines.append("  <worldbody>")
    joints = robot["joints"]
    root = joints[0][2]
    children = {}
    for j in joints:
        children.setdefault(j[2], []).append(j)

    def body(j, depth):
        name, kind, parent, child, xyz, rpy, axis, limit, soft = j
        pad = "  " * depth
        lines.append('%s<body name="%s" pos="%s" quat="%s">'
                     % (pad, child, triple(xyz), triple(quaternion(rpy))))
        if kind in ("revolute", "continuous"):
            attributes = 'name="%s" type="hinge" axis="%s"' % (name, triple(axis))
            if kind == "revolute":
                attributes += ' limited="true" range="%s %s"' % (number(limit[0]), number(limit[1]))
            else:
                attributes += ' limited="false"'
            lines.append("%s  <joint %s/>" % (pad, attributes))
        elif kind != "fixed":
            raise ValueError("no MJCF mapping for a %s joint" % kind)
        lines.extend(mjcf_collision(robot, child, pad + "  "))
        if child in sites:
            lines.append('%s  <site name="%s"/>' % (pad, child))
        for c in children.get(child, []):
            body(c, depth + 1)
        lines.append("%s</body>" % pad)

    lines.append('    <body name="%s">' % root)
    lines.extend(mjcf_collision(robot, root, "      "))
    if root in sites:
        lines.append('      <site name="%s"/>' % root)
    for c in children.get(root, []):
        body(c, 3)
    lines.append("    </body>")
    lines.append("  </worldbody>")
    lines.append("</mujoco>")
    return "\n".join(lines) + "\n"


# The humanoid: a Unitree H1 (19 DOF) written from published parameters.
# Unlike the arms it has collision primitives (capsules, cylinders, spheres,
# boxes), a floating base (an MJCF freejoint; the URDF's root link is the
# pelvis, as in Unitree's own description, and loaders add the free joint) and
# named points for motion retargeting (toes on the sole, hands, neck, head).
H1_SOURCE = (
    "The kinematic parameters Unitree publishes for the H1 in its "
    "h1_description package "
    "(unitree_ros, robots/h1_description, urdf/h1.urdf): hip yaw axis 0.0875 "
    "m lateral and 0.1742 m below the pelvis frame, hip roll 0.039468 m "
    "forward of it, hip pitch 0.11536 m lateral of that, knee and ankle 0.4 m "
    "below; torso yaw at the pelvis frame; shoulder pitch at (0.0055, "
    "+-0.15535, 0.42999) m in the torso frame turned +-0.43633 rad about x, "
    "shoulder roll at (-0.0055, +-0.0565, -0.0165) m turned back, shoulder "
    "yaw 0.1343 m below, elbow at (0.0185, 0, -0.198) m; position limits, "
    "efforts and speeds as that URDF writes them (hip yaw and roll +-0.43, "
    "hip pitch -3.14..2.53, knee -0.26..2.05, ankle -0.87..0.52, torso "
    "+-2.35, shoulder pitch +-2.87, shoulder roll -0.34..3.11 (left), "
    "shoulder yaw -1.3..4.45 (left), elbow -1.25..2.61 rad). Collision "
    "primitives: the simplified collision geometry of the MuJoCo Menagerie "
    "H1 model (google-deepmind/mujoco_menagerie, unitree_h1/h1.xml: foot "
    "capsules of radius 0.014 m with the sole 0.07 m below the ankle axis, "
    "shank capsule 0.025 m and knee sphere 0.05 m, thigh capsule 0.03 m, "
    "hip cylinders 0.06 and 0.05 m, pelvis capsule 0.05 m, torso box "
    "0.14 x 0.2 x 0.44 m, head capsule 0.06 m and sphere 0.073 m, shoulder "
    "capsule 0.04 m, upper arm 0.03 m, forearm 0.025 m ending in a 0.033 m "
    "sphere 0.28 m along it). Named points (fixed links in the URDF, sites in "
    "the MJCF): left/right_toe on the sole under the toe capsule (0.14, 0, "
    "-0.07) m in the ankle frame; left/right_hand at the centre of the "
    "forearm's end sphere (0.28, 0, -0.015) m in the elbow frame; neck "
    "midway between the shoulder pitch axes (0.0055, 0, 0.42999) m and head "
    "at the top of the head sphere (0.045, 0, 0.753) m in the torso frame. "
    "The MJCF's pelvis stands 1.0442 m up (0.1742 + 0.4 + 0.4 + 0.07: the "
    "soles on the floor at q = 0).")


def h1_joints():
    """The H1's joints as the arms' tuples (name, type, parent, child, xyz,
    rpy, axis, limit, soft)."""
    j = []
    for side, s in (("left", 1), ("right", -1)):
        j += [
            ("%s_hip_yaw_joint" % side, "revolute", "pelvis", "%s_hip_yaw_link" % side, (0, s * 0.0875, -0.1742), (0, 0, 0), (0, 0, 1), (-0.43, 0.43, 23, 200), None),
            ("%s_hip_roll_joint" % side, "revolute", "%s_hip_yaw_link" % side, "%s_hip_roll_link" % side, (0.039468, 0, 0), (0, 0, 0), (1, 0, 0), (-0.43, 0.43, 23, 200), None),
            ("%s_hip_pitch_joint" % side, "revolute", "%s_hip_roll_link" % side, "%s_hip_pitch_link" % side, (0, s * 0.11536, 0), (0, 0, 0), (0, 1, 0), (-3.14, 2.53, 23, 200), None),
            ("%s_knee_joint" % side, "revolute", "%s_hip_pitch_link" % side, "%s_knee_link" % side, (0, 0, -0.4), (0, 0, 0), (0, 1, 0), (-0.26, 2.05, 14, 300), None),
            ("%s_ankle_joint" % side, "revolute", "%s_knee_link" % side, "%s_ankle_link" % side, (0, 0, -0.4), (0, 0, 0), (0, 1, 0), (-0.87, 0.52, 9, 40), None),
            ("%s_toe_joint" % side, "fixed", "%s_ankle_link" % side, "%s_toe" % side, (0.14, 0, -0.07), (0, 0, 0), None, None, None),
        ]
    j += [
        ("torso_joint", "revolute", "pelvis", "torso_link", (0, 0, 0), (0, 0, 0), (0, 0, 1), (-2.35, 2.35, 23, 200), None),
        ("neck_joint", "fixed", "torso_link", "neck", (0.0055, 0, 0.42999), (0, 0, 0), None, None, None),
        ("head_joint", "fixed", "torso_link", "head", (0.045, 0, 0.753), (0, 0, 0), None, None, None),
    ]
    for side, s in (("left", 1), ("right", -1)):
        roll = (-0.34, 3.11) if s > 0 else (-3.11, 0.34)
        yaw = (-1.3, 4.45) if s > 0 else (-4.45, 1.3)
        j += [
            ("%s_shoulder_pitch_joint" % side, "revolute", "torso_link", "%s_shoulder_pitch_link" % side, (0.0055, s * 0.15535, 0.42999), (s * 0.43633, 0, 0), (0, 1, 0), (-2.87, 2.87, 9, 40), None),
            ("%s_shoulder_roll_joint" % side, "revolute", "%s_shoulder_pitch_link" % side, "%s_shoulder_roll_link" % side, (-0.0055, s * 0.0565, -0.0165), (-s * 0.43633, 0, 0), (1, 0, 0), (roll[0], roll[1], 9, 40), None),
            ("%s_shoulder_yaw_joint" % side, "revolute", "%s_shoulder_roll_link" % side, "%s_shoulder_yaw_link" % side, (0, 0, -0.1343), (0, 0, 0), (0, 0, 1), (yaw[0], yaw[1], 20, 18), None),
            ("%s_elbow_joint" % side, "revolute", "%s_shoulder_yaw_link" % side, "%s_elbow_link" % side, (0.0185, 0, -0.198), (0, 0, 0), (0, 1, 0), (-1.25, 2.61, 20, 18), None),
            ("%s_hand_joint" % side, "fixed", "%s_elbow_link" % side, "%s_hand" % side, (0.28, 0, -0.015), (0, 0, 0), None, None, None),
        ]
    return j


def h1_collisions():
    """link -> [(kind, numbers)] in the link frame:
    ("capsule", radius, a, b), ("cylinder", radius, a, b) (end centres),
    ("sphere", radius, centre), ("box", half sizes, centre)."""
    c = {"pelvis": [("capsule", 0.05, (0, -0.1, -0.05), (0, 0.1, -0.05))],
         "torso_link": [("box", (0.07, 0.1, 0.22), (0, 0, 0.25)),
                        ("capsule", 0.06, (0.05, 0, 0.6), (0.05, 0, 0.68)),
                        ("sphere", 0.073, (0.045, 0, 0.68))]}
    for side, s in (("left", 1), ("right", -1)):
        c["%s_hip_yaw_link" % side] = [("cylinder", 0.06, (-0.102, 0, 0), (-0.032, 0, 0))]
        c["%s_hip_roll_link" % side] = [("cylinder", 0.05, (0, -s * 0.05, 0), (0, s * 0.01, 0))]
        c["%s_hip_pitch_link" % side] = [("capsule", 0.03, (0.02, 0, 0.02), (0.02, 0, -0.4))]
        c["%s_knee_link" % side] = [("capsule", 0.025, (0.02, 0, 0), (0.02, 0, -0.4)),
                                    ("sphere", 0.05, (0, 0, -0.115))]
        c["%s_ankle_link" % side] = [("capsule", 0.014, (-0.035, 0, -0.056), (0.02, 0, -0.045)),
                                     ("capsule", 0.014, (0.02, 0, -0.045), (0.115, 0, -0.056)),
                                     ("capsule", 0.014, (0.14, -0.03, -0.056), (0.14, 0.03, -0.056))]
        c["%s_shoulder_roll_link" % side] = [("capsule", 0.04, (0, s * 0.01, 0.008), (0, -s * 0.07, -0.02))]
        c["%s_shoulder_yaw_link" % side] = [("capsule", 0.03, (0, 0, 0.15), (0, 0, -0.2))]
        c["%s_elbow_link" % side] = [("capsule", 0.025, (0, 0, 0), (0.28, 0, -0.015)),
                                     ("sphere", 0.033, (0.28, 0, -0.015))]
    return c


H1 = {
    "file": "h1.urdf",
    "mjcf": "h1.xml",
    "robot": "unitree_h1",
    "title": "Unitree H1 humanoid, 19 DOF (legs 2 x 5, torso 1, arms 2 x 4), root link pelvis",
    "source": H1_SOURCE,
    "joints": h1_joints(),
    "collisions": h1_collisions(),
}


def rpy_of_z(d):
    """rpy (R = Rz(yaw) Ry(pitch) Rx(roll)) of a rotation taking z onto d."""
    n = math.sqrt(sum(v * v for v in d))
    z = [v / n for v in d]
    # x: a unit vector perpendicular to z (world x unless z is along it).
    helper = (1, 0, 0) if abs(z[0]) < 0.9 else (0, 1, 0)
    y = [z[1] * helper[2] - z[2] * helper[1], z[2] * helper[0] - z[0] * helper[2],
         z[0] * helper[1] - z[1] * helper[0]]
    ny = math.sqrt(sum(v * v for v in y))
    y = [v / ny for v in y]
    x = [y[1] * z[2] - y[2] * z[1], y[2] * z[0] - y[0] * z[2], y[0] * z[1] - y[1] * z[0]]
    # R columns x, y, z: R[i][j].
    R = [[x[i], y[i], z[i]] for i in range(3)]
    roll = math.atan2(R[2][1], R[2][2])
    pitch = -math.asin(max(-1.0, min(1.0, R[2][0])))
    yaw = math.atan2(R[1][0], R[0][0])
    return (roll, pitch, yaw)


def urdf_collisions(shapes):
    """URDF <collision> elements; a capsule is a cylinder and two spheres
    (URDF has no capsule), which enclose the same volume."""
    out = []

    def element(xyz, rpy, geometry):
        out.append("    <collision>")
        out.append('      <origin xyz="%s" rpy="%s"/>' % (triple(xyz), triple(rpy)))
        out.append("      <geometry>%s</geometry>" % geometry)
        out.append("    </collision>")

    for shape in shapes:
        kind = shape[0]
        if kind in ("capsule", "cylinder"):
            r, a, b = shape[1], shape[2], shape[3]
            d = [b[i] - a[i] for i in range(3)]
            length = math.sqrt(sum(v * v for v in d))
            mid = [(a[i] + b[i]) / 2 for i in range(3)]
            element(mid, rpy_of_z(d), '<cylinder radius="%s" length="%s"/>' % (number(r), number(round(length, 12))))
            if kind == "capsule":
                for end in (a, b):
                    element(end, (0, 0, 0), '<sphere radius="%s"/>' % number(r))
        elif kind == "sphere":
            element(shape[2], (0, 0, 0), '<sphere radius="%s"/>' % number(shape[1]))
        elif kind == "box":
            element(shape[2], (0, 0, 0), '<box size="%s"/>' % triple([2 * h for h in shape[1]]))
    return out


def mjcf_collisions(shapes, pad):
    out = []
    for shape in shapes:
        kind = shape[0]
        if kind in ("capsule", "cylinder"):
            out.append('%s<geom type="%s" size="%s" fromto="%s %s"/>'
                       % (pad, kind, number(shape[1]), triple(shape[2]), triple(shape[3])))
        elif kind == "sphere":
            out.append('%s<geom type="sphere" size="%s" pos="%s"/>' % (pad, number(shape[1]), triple(shape[2])))
        elif kind == "box":
            out.append('%s<geom type="box" size="%s" pos="%s"/>' % (pad, triple(shape[1]), triple(shape[2])))
    return out


def wrapped(text, indent="   "):
    lines, line = [], indent
    for w in text.split():
        if len(line) + len(w) + 1 > 88:
            lines.append(line)
            line = indent
        line += " " + w
    lines.append(line)
    return lines


def humanoid_urdf(robot):
    lines = ['<?xml version="1.0"?>', "<!--"]
    lines.append("  " + robot["title"] + ".")
    lines.append("  Kinematics and collision primitives (links, joints, origins, axes, limits,")
    lines.append("  capsules written as a cylinder and two spheres), written for iklab by")
    lines.append("  scripts/make_robot_models.py; no meshes or inertia. The root link is the")
    lines.append("  pelvis; a floating base is the loader's (iklab retarget adds a 6-DOF joint).")
    lines.append("  Source of the numbers:")
    lines += wrapped(robot["source"])
    lines.append("-->")
    lines.append('<robot name="%s">' % robot["robot"])
    links = []
    for j in robot["joints"]:
        for link in (j[2], j[3]):
            if link not in links:
                links.append(link)
    for link in links:
        shapes = robot["collisions"].get(link)
        if not shapes:
            lines.append('  <link name="%s"/>' % link)
            continue
        lines.append('  <link name="%s">' % link)
        lines += urdf_collisions(shapes)
        lines.append("  </link>")
    for name, kind, parent, child, xyz, rpy, axis, limit, soft in robot["joints"]:
        lines.append('  <joint name="%s" type="%s">' % (name, kind))
        lines.append('    <parent link="%s"/>' % parent)
        lines.append('    <child link="%s"/>' % child)
        lines.append('    <origin xyz="%s" rpy="%s"/>' % (triple(xyz), triple(rpy)))
        if axis is not None:
            lines.append('    <axis xyz="%s"/>' % triple(axis))
        if limit is not None:
            lower, upper, velocity, effort = limit
            lines.append('    <limit lower="%s" upper="%s" effort="%s" velocity="%s"/>'
                         % (number(lower), number(upper), number(effort), number(velocity)))
        lines.append("  </joint>")
    lines.append("</robot>")
    return "\n".join(lines) + "\n"


def humanoid_mjcf(robot):
    lines = ["<!--"]
    lines.append("  " + robot["title"] + ", as a MuJoCo model (MJCF).")
    lines.append("  Written for iklab by scripts/make_robot_models.py from the same numbers as")
    lines.append("  data/robots/" + robot["file"] + ": one body per moving URDF link (pos/quat the joint")
    lines.append("  origin, a hinge with the URDF axis and range), a freejoint on the pelvis,")
    lines.append("  the URDF's fixed links as sites (and a site at every body origin, named like")
    lines.append("  the body), the same collision primitives (capsules as capsules). No meshes;")
    lines.append("  MuJoCo refuses moving bodies without mass, so boundmass/boundinertia give")
    lines.append("  each body a placeholder (not the robot's).")
    lines.append("  Source of the numbers:")
    lines += wrapped(robot["source"])
    lines.append("-->")
    lines.append('<mujoco model="%s">' % robot["robot"])
    lines.append('  <compiler angle="radian" boundmass="1e-6" boundinertia="1e-12"/>')
    lines.append("  <worldbody>")
    joints = robot["joints"]
    children = {}
    for j in joints:
        children.setdefault(j[2], []).append(j)

    def contents(link, pad):
        lines.append('%s<site name="%s"/>' % (pad, link))
        lines.extend(mjcf_collisions(robot["collisions"].get(link, []), pad))
        for j in children.get(link, []):
            name, kind, parent, child, xyz, rpy, axis, limit, soft = j
            if kind == "fixed":
                if children.get(child):
                    raise ValueError("a fixed link with children: " + child)
                lines.append('%s<site name="%s" pos="%s" quat="%s"/>'
                             % (pad, child, triple(xyz), triple(quaternion(rpy))))
                continue
            lines.append('%s<body name="%s" pos="%s" quat="%s">'
                         % (pad, child, triple(xyz), triple(quaternion(rpy))))
            lines.append('%s  <joint name="%s" type="hinge" axis="%s" limited="true" range="%s %s"/>'
                         % (pad, name, triple(axis), number(limit[0]), number(limit[1])))
            contents(child, pad + "  ")
            lines.append("%s</body>" % pad)

    lines.append('    <body name="pelvis" pos="0 0 1.0442">')
    lines.append('      <freejoint name="floating_base"/>')
    contents("pelvis", "      ")
    lines.append("    </body>")
    lines.append("  </worldbody>")
    lines.append("</mujoco>")
    return "\n".join(lines) + "\n"


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "robots")
    os.makedirs(root, exist_ok=True)
    for robot in ROBOTS:
        with open(os.path.join(root, robot["file"]), "w", newline="\n") as f:
            f.write(urdf(robot))
        print("wrote data/robots/" + robot["file"])
        if robot["file"] in MJCF_SITES:
            name, sites = MJCF_SITES[robot["file"]]
            with open(os.path.join(root, name), "w", newline="\n") as f:
                f.write(mjcf(robot, sites))
            print("wrote data/robots/" + name)
    with open(os.path.join(root, H1["file"]), "w", newline="\n") as f:
        f.write(humanoid_urdf(H1))
    print("wrote data/robots/" + H1["file"])
    with open(os.path.join(root, H1["mjcf"]), "w", newline="\n") as f:
        f.write(humanoid_mjcf(H1))
    print("wrote data/robots/" + H1["mjcf"])


if __name__ == "__main__":
    main()
