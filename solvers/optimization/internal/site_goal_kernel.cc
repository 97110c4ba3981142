#include "solvers/optimization/internal/site_goal_kernel.h"

#include <cmath>

#include "constraints/internal/validation.h"
#include "constraints/orientation_goal.h"
#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "solvers/optimization/internal/model_key.h"

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

namespace {

// A rotation within rounding of a signed permutation (every entry within
// kSnap of 0 or ±1): *P gets that permutation. kSnap is a few units in the
// last place of 1: the ±90° turns of URDFs written with π/2 to double
// precision leave cos(π/2) ≈ 6e-17 in their matrices, while one written as
// 1.5708 (cos ≈ −4e-6) is a different rotation and stays as it is.
bool SnapToSignedPermutation(const Eigen::Matrix3d& R, Eigen::Matrix3d* P) {
  constexpr double kSnap = 1e-15;
  for (int i = 0; i < 3; ++i) {
    int ones = 0;
    for (int j = 0; j < 3; ++j) {
      const double x = R(i, j);
      if (std::abs(x) <= kSnap) {
        (*P)(i, j) = 0.0;
      } else if (std::abs(std::abs(x) - 1.0) <= kSnap) {
        (*P)(i, j) = x > 0.0 ? 1.0 : -1.0;
        ++ones;
      } else {
        return false;
      }
    }
    if (ones != 1) return false;
  }
  // One ±1 per row; a rotation's columns are orthonormal, so also one per
  // column, and det = +1 (the result stays a rotation).
  return P->determinant() == 1.0;
}

}  // namespace

template <int M, int N>
auto SiteGoalKernel<M, N>::BuildChain(const Model& model, int site)
    -> std::shared_ptr<const Chain> {
  if (site < 0 || site >= model.num_sites()) return nullptr;
  // A mimic step turns by a·q + b, which the fused kernel does not model:
  // such models take the generic path.
  if (model.has_mimics()) return nullptr;
  auto chain = std::make_shared<Chain>();
  // The site's ancestors, root first (parent(i) < i, so a walk up and a
  // reversal).
  int path[kMaxPath];
  int length = 0;
  for (int i = model.site_step(site); i > 0; i = model.parent(i)) {
    if (length == kMaxPath) return nullptr;  // not an arm: generic path
    path[length++] = i;
  }
  // Fold every fixed step into the next moving joint's X_PJ (the root's X_PJ
  // into the first one's) and the fixed steps after the last moving joint
  // into the site's X_FS (products with an identity `pending` skipped).
  Eigen::Isometry3d pending = model.X_PJ(0);
  bool pending_identity = pending.matrix().isIdentity(0.0);
  const auto fold = [&](const Eigen::Isometry3d& X) {
    return pending_identity ? X : Eigen::Isometry3d(pending * X);
  };
  // R_WJ = Φ T (see Joint): T so far, a signed permutation.
  Eigen::Matrix3d T = Eigen::Matrix3d::Identity();
  for (int k = length - 1; k >= 0; --k) {
    const int step = path[k];
    if (model.dof(step) < 0) {
      pending = fold(model.X_PJ(step));
      pending_identity = false;
      continue;
    }
    // More moving joints than coordinates cannot happen (dofs are
    // distinct).
    if (chain->num_joints == N) return nullptr;
    const Eigen::Isometry3d X_PJ = fold(model.X_PJ(step));
    Joint& joint = chain->joints[chain->num_joints++];
    // Products with T are exact: each entry is one entry of the other
    // factor, possibly negated.
    joint.p_PJ = T * X_PJ.translation();
    Eigen::Matrix3d P;
    if (X_PJ.linear() == Eigen::Matrix3d::Identity()) {
      joint.multiply_rotation = false;
    } else if (SnapToSignedPermutation(X_PJ.linear(), &P)) {
      joint.multiply_rotation = false;
      T = T * P;
    } else if (chain->num_joints == 1) {
      // The first joint: Φ starts as its fixed transform (the same values
      // as the product with I, which is exact).
      joint.multiply_rotation = false;
      chain->base_rotation = X_PJ.linear();
      chain->base_position = joint.p_PJ;
      joint.p_PJ.setZero();
    } else {
      joint.multiply_rotation = true;
      joint.R_PJ = T * X_PJ.linear();
      T.setIdentity();
    }
    joint.axis = T * model.axis(step);
    joint.axis_sign = 1.0;
    joint.axis_kind = AxisKind::kGeneral;
    for (int i = 0; i < 3; ++i) {
      const Eigen::Vector3d& a = joint.axis;
      if (std::abs(a[i]) == 1.0 && a[(i + 1) % 3] == 0.0 &&
          a[(i + 2) % 3] == 0.0) {
        joint.axis_kind = static_cast<AxisKind>(i);  // kX, kY, kZ
        joint.axis_sign = a[i];
      }
    }
    joint.dof = model.dof(step);
    joint.kind = model.kind(step);
    pending.setIdentity();
    pending_identity = true;
  }
  const Eigen::Isometry3d X_LS = fold(model.X_FS(site));
  chain->R_LS = T * X_LS.linear();
  chain->p_LS = T * X_LS.translation();
  chain->dofs_in_order = chain->num_joints == N;
  for (int k = 0; k < chain->num_joints; ++k) {
    if (chain->joints[k].dof != k) chain->dofs_in_order = false;
  }
  return chain;
}

template <int M, int N>
auto SiteGoalKernel<M, N>::CachedChain(
    const std::shared_ptr<const Model>& model, int site)
    -> std::shared_ptr<const Chain> {
  struct Entry {
    std::weak_ptr<const Model> model;  // see IsModel
    int site = -1;
    std::shared_ptr<const Chain> chain;  // null: not an arm
  };
  // A few entries: a thread mostly solves on one arm, at most a handful.
  thread_local std::array<Entry, 4> cache;
  thread_local std::size_t next_victim = 0;
  for (const Entry& entry : cache) {
    if (entry.site == site && IsModel(entry.model, model)) {
      return entry.chain;
    }
  }
  Entry& entry = cache[next_victim];
  next_victim = (next_victim + 1) % cache.size();
  entry = {model, site, BuildChain(*model, site)};
  return entry.chain;
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
