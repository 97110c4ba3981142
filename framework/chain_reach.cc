#include "framework/chain_reach.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "framework/internal/check.h"

namespace iklab {

using internal::StrCat;
using internal::ThrowInvalidArgument;

ChainReach ComputeChainReach(const Model& model, int site,
                             const Eigen::VectorXd& lower,
                             const Eigen::VectorXd& upper) {
  if (site < 0 || site >= model.num_sites()) {
    ThrowInvalidArgument("ComputeChainReach: site index ", site,
                         " out of range [0, ", model.num_sites(), ")");
  }
  if (lower.size() != model.nq() || upper.size() != model.nq()) {
    ThrowInvalidArgument("ComputeChainReach: the box must have model nq = ",
                         model.nq(), " coordinates, got ", lower.size(),
                         " (lower) and ", upper.size(), " (upper)");
  }
  // The path root → site, walked from the site: parent(i) < i, so the fixed
  // prefix is found by walking back to the root.
  std::vector<int> path;
  for (int step = model.site_step(site); step >= 0; step = model.parent(step)) {
    path.push_back(step);
  }
  std::reverse(path.begin(), path.end());
  std::size_t first = 0;
  while (first < path.size() && model.kind(path[first]) == StepKind::kFixed) {
    ++first;
  }
  // X_W of the joint frame of the first moving step (or of the site's step
  // when none moves): fixed steps have A = I, so X_W is the product of
  // their X_PJ (step 0's X_W is its X_PJ, kinematics.cc).
  Eigen::Isometry3d X_WJ = Eigen::Isometry3d::Identity();
  for (std::size_t p = 0; p <= std::min(first, path.size() - 1); ++p) {
    X_WJ = X_WJ * model.X_PJ(path[p]);
  }
  ChainReach reach;
  if (first == path.size()) {
    reach.centre = (X_WJ * model.X_FS(site)).translation();
    return reach;
  }
  reach.moves = true;
  reach.centre = X_WJ.translation();
  double radius = 0.0;
  for (std::size_t p = first; p < path.size(); ++p) {
    const int step = path[p];
    if (p > first) radius += model.X_PJ(step).translation().norm();
    if (model.kind(step) == StepKind::kPrismatic) {
      // The step moves by a·q_i + b (a mimic joint; 1 and 0 otherwise).
      const int i = model.dof(step);
      const double a = model.dof_scale(step), b = model.dof_offset(step);
      const double travel =
          std::max(std::abs(a * lower[i] + b), std::abs(a * upper[i] + b));
      if (!std::isfinite(travel)) {
        reach.radius = std::numeric_limits<double>::infinity();
        reach.unbounded = StrCat("prismatic coordinate '", model.dof_name(i),
                                 "' has unbounded travel");
        return reach;
      }
      radius += travel;
    }
  }
  reach.radius = radius + model.X_FS(site).translation().norm();
  return reach;
}

}  // namespace iklab
