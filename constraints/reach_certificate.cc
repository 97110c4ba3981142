#include "constraints/reach_certificate.h"

#include <sstream>

#include "constraints/position_goal.h"
#include "constraints/position_orientation_goal.h"
#include "framework/chain_reach.h"

namespace iklab {

namespace {

// The certificate for one goal (`what` names it in the message), if its
// position target is out of its site's reach.
std::optional<std::string> GoalCertificate(const Model& model, const Goal& goal,
                                           const char* what,
                                           const Eigen::VectorXd& lower,
                                           const Eigen::VectorXd& upper,
                                           double position_tolerance) {
  int site = -1;
  Eigen::Vector3d p_WT;
  if (const auto* position = dynamic_cast<const PositionGoal*>(&goal)) {
    site = position->site();
    p_WT = position->target();
  } else if (const auto* pose =
                 dynamic_cast<const PositionOrientationGoal*>(&goal)) {
    site = pose->site();
    p_WT = pose->target().translation();
  } else {
    return std::nullopt;
  }
  const ChainReach reach = ComputeChainReach(model, site, lower, upper);
  if (!reach.unbounded.empty()) return std::nullopt;
  const double distance = (p_WT - reach.centre).norm();
  // The slack covers the rounding of R's sum and of the distance.
  const double slack = 1e-12 * (distance + reach.radius);
  if (!(distance - reach.radius > position_tolerance + slack)) {
    return std::nullopt;
  }
  std::ostringstream out;
  out.precision(4);
  out << what << " '" << goal.name() << "': target " << distance
      << " from the chain's fixed base at (" << reach.centre.x() << ", "
      << reach.centre.y() << ", " << reach.centre.z()
      << "), which reaches at most " << reach.radius;
  if (!reach.moves) out << " (no joint moves the site)";
  return out.str();
}

}  // namespace

std::optional<std::string> OutOfReachCertificate(const Problem& problem,
                                                 const Eigen::VectorXd& lower,
                                                 const Eigen::VectorXd& upper,
                                                 double position_tolerance) {
  const Model& model = problem.model();
  for (const auto& goal : problem.goals()) {
    if (auto evidence = GoalCertificate(model, *goal, "goal", lower, upper,
                                        position_tolerance)) {
      return evidence;
    }
  }
  for (const auto& constraint : problem.equality_constraints()) {
    if (auto evidence =
            GoalCertificate(model, *constraint, "equality constraint", lower,
                            upper, position_tolerance)) {
      return evidence;
    }
  }
  return std::nullopt;
}

}  // namespace iklab
