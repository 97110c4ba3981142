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
#include "constraints/aiming_goal.h"
#include "constraints/collision.h"
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
#include "framework/urdf_loader.h"
#include "lab/data.h"
#include "lab/study.h"
#include "solvers/analytic/six_r_solver.h"
#include "solvers/batch_solve.h"
#include "solvers/bounded_lm_solver.h"
#include "solvers/ccd_solver.h"
#include "solvers/ceres_solver.h"
#include "solvers/damped_least_squares_solver.h"
#include "solvers/extended_jacobian_solver.h"
#include "solvers/ipopt_solver.h"
#include "solvers/jacobian_transpose_solver.h"
#include "solvers/lbfgsb_solver.h"
#include "solvers/multi_effector_solver.h"
#include "solvers/pseudo_inverse_solver.h"
#include "solvers/restarts.h"
#include "solvers/slsqp_solver.h"
#include "solvers/trajectory.h"
#include "solvers/two_link_analytic.h"

#endif  // IKLAB_IKLAB_H_
