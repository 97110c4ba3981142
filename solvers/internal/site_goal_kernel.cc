#include "solvers/internal/site_goal_kernel.h"

#include <cmath>

#include "constraints/internal/validation.h"
#include "constraints/orientation_goal.h"
#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"

namespace iklab::internal {

bool ReadSiteGoal(const Problem& problem, SiteGoalSpec* spec) {
  if (problem.goals().size() != 1 || !problem.regularizers().empty() ||
      problem.has_constraints()) {
    return false;
  }
  const Goal* goal = problem.goals().front().get();
  // Problem scales a goal's rows by √w after the goal's own scales.
  const double root_weight = std::sqrt(goal->weight());
  if (const auto* pose = dynamic_cast<const PositionOrientationGoal*>(goal)) {
    const PositionOrientationScales& scales = pose->scales();
    spec->site = pose->site();
    spec->rows = SiteGoalRows::kPose;
    spec->s_p = std::sqrt(scales.w_p) * root_weight;
    spec->s_x = std::sqrt(scales.w_o) * scales.c_dx * root_weight;
    spec->s_y = std::sqrt(scales.w_o) * scales.c_dy * root_weight;
    spec->p_WT = pose->target().translation();
    spec->R_WG = pose->target().linear();
    return true;
  }
  if (const auto* position = dynamic_cast<const PositionGoal*>(goal)) {
    spec->site = position->site();
    spec->rows = SiteGoalRows::kPosition;
    spec->s_p = root_weight;
    spec->p_WT = position->target();
    return true;
  }
  if (const auto* orientation = dynamic_cast<const OrientationGoal*>(goal)) {
    spec->site = orientation->site();
    spec->rows = SiteGoalRows::kOrientation;
    spec->s_x = spec->s_y = root_weight;
    spec->R_WG = orientation->target();
    return true;
  }
  return false;
}

template <int M, int N>
bool SiteGoalKernel<M, N>::Build(const Model& model, const SiteGoalSpec& spec) {
  constexpr SiteGoalRows kRows = M == 3   ? SiteGoalRows::kPosition
                                 : M == 6 ? SiteGoalRows::kOrientation
                                          : SiteGoalRows::kPose;
  if (spec.rows != kRows || spec.site < 0 || spec.site >= model.num_sites()) {
    return false;
  }
  spec_ = spec;
  // The site's ancestors, root first (parent(i) < i, so a walk up and a
  // reversal).
  int path[kMaxPath];
  int length = 0;
  for (int i = model.site_step(spec.site); i > 0; i = model.parent(i)) {
    if (length == kMaxPath) return false;  // not an arm: generic path
    path[length++] = i;
  }
  // Fold every fixed step into the next moving joint's X_PJ (the root's X_PJ
  // into the first one's) and the fixed steps after the last moving joint
  // into the site's X_FS.
  // (Products with an identity `pending` are skipped: the fold is set-up
  // cost of every solve.)
  Eigen::Isometry3d pending = model.X_PJ(0);
  bool pending_identity = pending.matrix().isIdentity(0.0);
  const auto fold = [&](const Eigen::Isometry3d& X) {
    return pending_identity ? X : Eigen::Isometry3d(pending * X);
  };
  num_joints_ = 0;
  for (int k = length - 1; k >= 0; --k) {
    const int step = path[k];
    if (model.dof(step) < 0) {
      pending = fold(model.X_PJ(step));
      pending_identity = false;
      continue;
    }
    if (num_joints_ == N) return false;  // cannot happen: dofs are distinct
    const Eigen::Isometry3d X_PJ = fold(model.X_PJ(step));
    Joint& joint = joints_[num_joints_++];
    joint.R_PJ = X_PJ.linear();
    joint.p_PJ = X_PJ.translation();
    joint.axis = model.axis(step);
    joint.dof = model.dof(step);
    joint.kind = model.kind(step);
    joint.axis_kind = model.axis_kind(step);
    joint.pure_translation = joint.R_PJ == Eigen::Matrix3d::Identity();
    pending.setIdentity();
    pending_identity = true;
  }
  const Eigen::Isometry3d X_LS = fold(model.X_FS(spec.site));
  R_LS_ = X_LS.linear();
  p_LS_ = X_LS.translation();
  return true;
}

template <int M, int N>
bool SiteGoalKernel<M, N>::WithinTolerance(double position_tolerance,
                                           double angle_tolerance,
                                           GoalError* error) const {
  *error = GoalError{};
  if constexpr (M != 6) {
    error->position = (spec_.p_WT - ToEigen(p_WS_)).norm();
    if (!(error->position <= position_tolerance)) return false;
  }
  if constexpr (M != 3) {
    error->angle = RotationAngle(spec_.R_WG, SiteRotation());
    if (!(error->angle <= angle_tolerance)) return false;
  }
  return true;
}

template class SiteGoalKernel<3, 6>;
template class SiteGoalKernel<6, 6>;
template class SiteGoalKernel<9, 6>;
template class SiteGoalKernel<3, 7>;
template class SiteGoalKernel<6, 7>;
template class SiteGoalKernel<9, 7>;

}  // namespace iklab::internal
