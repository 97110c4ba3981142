#ifndef IKLAB_IKLAB_H_
#define IKLAB_IKLAB_H_

/// @file
/// Everything a user's study or program needs, in one include:
/// figures and models (builders, DH tables, URDF and BVH loaders), FK and
/// Jacobians, every goal and regularizer, the Problem, every solver, studies,
/// and the command line.
///
///     #include "iklab.h"   // installed as <prefix>/include/iklab/iklab.h

#include "cli/command_line.h"
#include "cli/scene_files.h"
#include "constraints/aiming_goal.h"
#include "constraints/shape_collision.h"
#include "constraints/composite_goals.h"
#include "constraints/distance_goals.h"
#include "constraints/joint_goals.h"
#include "constraints/orientation_goal.h"
#include "constraints/plane_goal.h"
#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "constraints/problem.h"
#include "constraints/regularizers.h"
#include "constraints/relative_pose_goal.h"
#include "constraints/tolerance_goals.h"
#include "framework/builders.h"
#include "framework/bvh_loader.h"
#include "framework/denavit_hartenberg.h"
#include "framework/kinematics.h"
#include "framework/random_configuration.h"
#include "framework/mjcf_loader.h"
#include "framework/urdf_loader.h"
#include "framework/validate.h"
#include "lab/data.h"
#include "lab/plot.h"
#include "lab/scene.h"
#include "lab/scene_gltf.h"
#include "lab/study.h"
#include "lab/study_scene.h"
#include "reach/reach_map.h"
#include "reach/reach_scene.h"
#include "solvers/analytic/six_r_solver.h"
#include "solvers/analytic/tolani/tolani_solver.h"
#include "solvers/analytic/two_link_analytic.h"
#include "solvers/batch_solve.h"
#include "solvers/constrained/ipopt_solver.h"
#include "solvers/constrained/slsqp_solver.h"
#include "solvers/differential/ccd_solver.h"
#include "solvers/differential/damped_least_squares_solver.h"
#include "solvers/differential/extended_jacobian_solver.h"
#include "solvers/differential/jacobian_transpose_solver.h"
#include "solvers/differential/multi_effector_solver.h"
#include "solvers/differential/pseudo_inverse_solver.h"
#include "solvers/optimization/bounded_lm_solver.h"
#include "solvers/optimization/ceres_solver.h"
#include "solvers/optimization/lbfgsb_solver.h"
#include "solvers/registry.h"
#include "solvers/restarts.h"
#include "solvers/trajectory.h"

#endif  // IKLAB_IKLAB_H_
